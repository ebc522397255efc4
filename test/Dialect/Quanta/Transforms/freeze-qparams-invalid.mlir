// RUN: quant-opt %s -split-input-file --quanta-freeze-qparams -verify-diagnostics

func.func @no_statistics(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{MinMaxObserver has no statistics yet: calibrate first}}
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @nothing_to_reuse(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{reuses its input's observer, but no observer precedes it through shape-only ops}}
  %0 = quanta.observe %x {observer = #quanta.reuse_input} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @oneflow(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{cannot freeze oneflow.nn.MinMaxObserver into quantization parameters}}
  %0 = quanta.observe %x {observer = #quanta.oneflow_min_max<>, stats = #quanta.min_max_stats<min = [-1.0], max = [1.0]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @per_channel_through_reshape(%x: tensor<2x3xf32>) -> tensor<6xf32> {
  %0 = quanta.observe %x {observer = #quanta.per_channel_min_max<ch_axis = 1>, stats = #quanta.min_max_stats<min = [-1.0, -1.0, -1.0], max = [1.0, 1.0, 1.0]>} : tensor<2x3xf32>
  %1 = tensor.collapse_shape %0 [[0, 1]] : tensor<2x3xf32> into tensor<6xf32>
  // expected-error @+1 {{cannot reuse per-channel qparams through an op that changes the shape}}
  %2 = quanta.observe %1 {observer = #quanta.reuse_input} : tensor<6xf32>
  return %2 : tensor<6xf32>
}

// -----

func.func @nan_statistics(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{NaN}}
  %0 = quanta.observe %x {observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [nan], max = [1.0]>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @fake_quant_without_statistics(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has neither known qparams nor statistics to compute them: calibrate first}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<>, observer_enabled = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The value comes from an op without operands: nothing to walk back to.
func.func @reuse_of_a_constant() -> tensor<4xf32> {
  %cst = arith.constant dense<1.0> : tensor<4xf32>
  // expected-error @+1 {{reuses its input's observer, but no observer precedes it through shape-only ops}}
  %0 = quanta.observe %cst {observer = #quanta.reuse_input} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// RUN: quant-opt %s -split-input-file -verify-diagnostics --pass-pipeline='builtin.module(quanta-insert-observers)'
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{qconfig=fbgemm2})' 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{override=linalg.matmul})' 2>&1 | FileCheck %s --check-prefix=OVERRIDE
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{qconfig=#quanta.min_max<>})' 2>&1 | FileCheck %s --check-prefix=NOTQCONFIG

// UNKNOWN: unknown qconfig 'fbgemm2'; expected none, a #quanta.qconfig<...> or one of: x86 fbgemm qnnpack onednn
// OVERRIDE: override 'linalg.matmul' must be <op name or location name>=<qconfig>
// NOTQCONFIG: '#quanta.min_max<>' is not a #quanta.qconfig

func.func @tosa_input(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'tosa.abs' op is TOSA: convert to linalg first (run quanta-prepare, which runs the upstream tosa-to-linalg pipeline)}}
  %0 = tosa.abs %x : (tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @bad_qconfig_attribute(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %o: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{'quanta.qconfig' must be a preset name, 'none' or a #quanta.qconfig, got 3 : i64}}
  %0 = linalg.matmul {quanta.qconfig = 3} ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

func.func @unknown_preset_attribute(%x: tensor<2x2xf32>, %w: tensor<2x2xf32>, %o: tensor<2x2xf32>) -> tensor<2x2xf32> {
  // expected-error @+1 {{unknown qconfig 'x68'}}
  %0 = linalg.matmul {quanta.qconfig = "x68"} ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Depthwise HWCM filters with M > 1 have no single output-channel axis.
func.func @depthwise_multiplier(%x: tensor<1x4x4x2xf32>, %o: tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x3xf32> {
  %w = arith.constant dense<1.0> : tensor<3x3x2x3xf32>
  // expected-error @+1 {{has no single output-channel dimension in its weight}}
  %0 = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x2xf32>, tensor<3x3x2x3xf32>) outs(%o : tensor<1x2x2x2x3xf32>) -> tensor<1x2x2x2x3xf32>
  return %0 : tensor<1x2x2x2x3xf32>
}

// -----

// OneFlow's per-channel observer works on axis 0 only; matmul's KxN weight
// has its output channels on axis 1.
func.func @oneflow_axis(%x: tensor<2x2xf32>, %o: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  // expected-error @+1 {{OneFlow's per-channel observer works on axis 0, but this weight's output channels are not on axis 0}}
  %0 = linalg.matmul {quanta.qconfig = #quanta.qconfig<activation = #quanta.min_max<>, weight = #quanta.oneflow_min_max<per_layer_quantization = false>>} ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%o : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// A NaN weight has no quantization parameters.
func.func @nan_weight(%x: tensor<1x2xf32>, %o: tensor<1x2xf32>) -> tensor<1x2xf32> {
  // expected-error @+1 {{cannot observe a constant holding NaN (element 1): its quantization parameters would be undefined}}
  %w = arith.constant dense<[[1.0, 0x7FC00000], [2.0, 3.0]]> : tensor<2x2xf32>
  %0 = linalg.matmul ins(%x, %w : tensor<1x2xf32>, tensor<2x2xf32>) outs(%o : tensor<1x2xf32>) -> tensor<1x2xf32>
  return %0 : tensor<1x2xf32>
}

// -----

// Observers see float tensors; a QAT fake-quant needs float32. The
// observer takes the location of the value it observes (here the argument).
// expected-error @+1 {{'quanta.fake_quant' op operand #0 must be ranked tensor of 32-bit float values, but got 'tensor<2x2xf16>'}}
func.func @qat_on_f16(%x: tensor<2x2xf16>, %o: tensor<2x2xf16>) -> tensor<2x2xf16> {
  %w = arith.constant dense<1.0> : tensor<2x2xf16>
  // expected-remark @+1 {{while observing operand of this op}}
  %0 = linalg.matmul {quanta.qconfig = "default_qat"} ins(%x, %w : tensor<2x2xf16>, tensor<2x2xf16>) outs(%o : tensor<2x2xf16>) -> tensor<2x2xf16>
  return %0 : tensor<2x2xf16>
}

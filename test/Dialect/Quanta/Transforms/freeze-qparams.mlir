// RUN: quant-opt %s -split-input-file --quanta-freeze-qparams | FileCheck %s

// Per tensor: quint8 affine (scale 3.75 / 255, zero point 102), the
// reduce_range storage range u8<0:127> (scale 3.75 / 127), fixed qparams without statistics,
// and a reuse_input observer through a reshape that takes its source's type.

// CHECK-LABEL: func @per_tensor
// CHECK: %[[Q0:.*]] = quant.qcast %{{.*}} : tensor<2x4xf32> to tensor<2x4x!quant.uniform<u8:f32, 0.014705882407724857:102>>
// CHECK: %[[D0:.*]] = quant.dcast %[[Q0]] : tensor<2x4x!quant.uniform<u8:f32, 0.014705882407724857:102>> to tensor<2x4xf32>
// CHECK: quant.qcast %[[D0]] : tensor<2x4xf32> to tensor<2x4x!quant.uniform<u8<0:127>:f32, 0.029527559876441956:51>>
// CHECK: quant.qcast %{{.*}} : tensor<2x4xf32> to tensor<2x4x!quant.uniform<u8:f32, 3.906250e-03>>
// CHECK: %[[R:.*]] = tensor.collapse_shape
// CHECK: quant.qcast %[[R]] : tensor<8xf32> to tensor<8x!quant.uniform<u8:f32, 3.906250e-03>>
// CHECK-NOT: quanta.observe
func.func @per_tensor(%x: tensor<2x4xf32>) -> tensor<8xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [-1.5], max = [2.25]>} : tensor<2x4xf32>
  %1 = quanta.observe %0 {observer = #quanta.min_max<reduce_range = true>, stats = #quanta.min_max_stats<min = [-1.5], max = [2.25]>} : tensor<2x4xf32>
  %2 = quanta.observe %1 {observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>} : tensor<2x4xf32>
  %3 = tensor.collapse_shape %2 [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %4 = quanta.observe %3 {observer = #quanta.reuse_input} : tensor<8xf32>
  return %4 : tensor<8xf32>
}

// -----

// Per channel: symmetric qint8 per axis (max |x| / 127.5, as PyTorch), float
// qparams (zero point -min / scale in float32: 254.999985, not 255) kept in Quanta's own
// op (upstream types have integer zero points only), placeholders stay float.

// CHECK-LABEL: func @per_channel
// CHECK: quant.qcast %{{.*}} : tensor<2x3xf32> to tensor<2x3x!quant.uniform<i8:f32:1, {0.0078431377187371254,0.015686275437474251,0.023529412224888802}>>
// CHECK: quanta.fake_quant %{{.*}} {axis = 0 : i64, float_zero_point = array<f32: 254.999985, 127.499992>, quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 0.00392156886, 0.0156862754>} : tensor<2x3xf32>
// CHECK-NOT: quanta.observe
func.func @per_channel(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quanta.observe %x {observer = #quanta.per_channel_min_max<ch_axis = -1, dtype = qint8, qscheme = per_channel_symmetric>, stats = #quanta.min_max_stats<min = [-1.0, -2.0, -3.0], max = [0.5, 1.0, 1.5]>} : tensor<2x3xf32>
  %1 = quanta.observe %0 {observer = #quanta.per_channel_min_max<qscheme = per_channel_affine_float_qparams>, stats = #quanta.min_max_stats<min = [-1.0, -2.0], max = [0.0, 2.0]>} : tensor<2x3xf32>
  %2 = quanta.observe %1 {observer = #quanta.placeholder<dtype = float16>} : tensor<2x3xf32>
  return %2 : tensor<2x3xf32>
}

// -----

// Fake quantization: known qparams become the same pair (QAT models enter
// the integer pipeline this way), disabled ones disappear, and a fused
// module computes its qparams from its statistics with ATen's
// ChooseQuantizationParams (here symmetric qint8 over [-1, 2]).

// CHECK-LABEL: func @fake_quant
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK: %[[Q:.*]] = quant.qcast %[[X]] : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 0.10000000149011612:3>>
// CHECK: %[[D:.*]] = quant.dcast %[[Q]]
// CHECK-NEXT: quant.qcast %[[D]] : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.015748031437397003>>
func.func @fake_quant(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quanta.fake_quant %x {scale = array<f32: 0.1>, zero_point = array<i64: 3>, quant_min = 0, quant_max = 255} : tensor<4xf32>
  %1 = quanta.fake_quant %0 {fake_quant_enabled = false, scale = array<f32: 0.5>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<4xf32>
  %2 = quanta.fake_quant %1 {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<dtype = qint8, qscheme = per_tensor_symmetric>, quant_min = -128, quant_max = 127, fused = true>, observer_enabled = false, stats = #quanta.min_max_stats<min = [-1.0], max = [2.0]>} : tensor<4xf32>
  return %2 : tensor<4xf32>
}

// -----

// PyTorch's FakeQuantize(HistogramObserver) computes its qparams with the
// observer's L2 search over its histogram, and a FixedQParamsFakeQuantize
// keeps its observer's. The histogram, scale 0.027559055 and zero point 36
// are PyTorch 1.13's after FakeQuantize(observer=HistogramObserver,
// quant_min=0, quant_max=255, reduce_range=True, bins=8) saw
// [[-1, -0.25, 0, 0.5], [0.75, 1.5, 2, 3]].

// CHECK-LABEL: func @histogram_and_fixed_fake_quant
// CHECK: quant.qcast %{{.*}} : tensor<4xf32> to tensor<4x!quant.uniform<u8<0:127>:f32, 0.027559055015444756:36>>
// CHECK: quant.qcast %{{.*}} : tensor<4xf32> to tensor<4x!quant.uniform<u8:f32, 3.906250e-03>>
func.func @histogram_and_fixed_fake_quant(%x: tensor<4xf32>) -> (tensor<4xf32>, tensor<4xf32>) {
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.histogram<bins = 8, reduce_range = true>, quant_min = 0, quant_max = 255>, stats = #quanta.histogram_stats<min = -1.0, max = 3.0, histogram = [1.0, 1.0, 1.0, 2.0, 0.0, 1.0, 1.0, 1.0], num_batches = 1>} : tensor<4xf32>
  %1 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>>, scale = array<f32: 0.00390625>, zero_point = array<i64: 0>} : tensor<4xf32>
  return %0, %1 : tensor<4xf32>, tensor<4xf32>
}

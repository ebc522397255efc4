// RUN: quant-opt %s | FileCheck %s
// RUN: quant-opt %s | quant-opt | FileCheck %s
// RUN: quant-opt %s --mlir-print-op-generic | quant-opt | FileCheck %s

// Every observer family with its defaults (printed empty) and with options.

// CHECK-LABEL: func @observers
func.func @observers(%x: tensor<4x8xf32>) -> tensor<4x8xf32> {
  // CHECK: quanta.observe %{{.*}} {observer = #quanta.min_max<>}
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4x8xf32>
  // Defaults are omitted when printed.
  // CHECK: quanta.observe %{{.*}} {observer = #quanta.min_max<>}
  %1 = quanta.observe %0 {observer = #quanta.min_max<dtype = quint8, qscheme = per_tensor_affine, reduce_range = false, eps = 1.1920929e-07, memoryless = false>} : tensor<4x8xf32>
  // CHECK: #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric, quant_min = -127, quant_max = 127, eps = 0.00024414062>
  %2 = quanta.observe %1 {observer = #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric, quant_min = -127, quant_max = 127, eps = 0.000244140625>} : tensor<4x8xf32>
  // CHECK: #quanta.min_max<reduce_range = true, memoryless = true>
  %3 = quanta.observe %2 {observer = #quanta.min_max<reduce_range = true, memoryless = true>} : tensor<4x8xf32>
  // CHECK: #quanta.moving_average_min_max<averaging_constant = 0.5, dtype = qint8>
  %4 = quanta.observe %3 {observer = #quanta.moving_average_min_max<averaging_constant = 0.5, dtype = qint8>} : tensor<4x8xf32>
  // CHECK: #quanta.moving_average_min_max<>
  %5 = quanta.observe %4 {observer = #quanta.moving_average_min_max<averaging_constant = 0.01>} : tensor<4x8xf32>
  // CHECK: #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>
  %6 = quanta.observe %5 {observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>} : tensor<4x8xf32>
  // CHECK: #quanta.per_channel_min_max<qscheme = per_channel_affine_float_qparams>
  %7 = quanta.observe %6 {observer = #quanta.per_channel_min_max<qscheme = per_channel_affine_float_qparams>} : tensor<4x8xf32>
  // CHECK: #quanta.per_channel_min_max<ch_axis = -1, dtype = quint4x2, qscheme = per_channel_affine_float_qparams>
  %8 = quanta.observe %7 {observer = #quanta.per_channel_min_max<ch_axis = -1, dtype = quint4x2, qscheme = per_channel_affine_float_qparams>} : tensor<4x8xf32>
  // CHECK: #quanta.moving_average_per_channel_min_max<averaging_constant = 0.25, ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric, reduce_range = true, quant_min = 0, quant_max = 255>
  %9 = quanta.observe %8 {observer = #quanta.moving_average_per_channel_min_max<averaging_constant = 0.25, ch_axis = 1, qscheme = per_channel_symmetric, reduce_range = true, quant_min = 0, quant_max = 255, dtype = qint8>} : tensor<4x8xf32>
  // CHECK: #quanta.histogram<>
  %10 = quanta.observe %9 {observer = #quanta.histogram<bins = 2048, upsample_rate = 128>} : tensor<4x8xf32>
  // CHECK: #quanta.histogram<bins = 256, upsample_rate = 16, dtype = qint32, exact_histc_range = true>
  %11 = quanta.observe %10 {observer = #quanta.histogram<bins = 256, upsample_rate = 16, dtype = qint32, exact_histc_range = true>} : tensor<4x8xf32>
  // CHECK: #quanta.histogram<calibration = percentile, percentile = 99.9>
  %h1 = quanta.observe %11 {observer = #quanta.histogram<calibration = percentile, percentile = 99.9>} : tensor<4x8xf32>
  // CHECK: #quanta.histogram<calibration = entropy>
  %h2 = quanta.observe %h1 {observer = #quanta.histogram<calibration = entropy, percentile = 99.99>} : tensor<4x8xf32>
  // CHECK: #quanta.fixed_qparams<scale = 0.0078125, zero_point = 128>
  %12 = quanta.observe %h2 {observer = #quanta.fixed_qparams<scale = 0.0078125, zero_point = 128>} : tensor<4x8xf32>
  // CHECK: #quanta.placeholder<dtype = quint8, compute_dtype = quint8>
  %13 = quanta.observe %12 {observer = #quanta.placeholder<dtype = quint8, compute_dtype = quint8>} : tensor<4x8xf32>
  // CHECK: #quanta.placeholder<dtype = float16, custom_op_name = "my_op">
  %14 = quanta.observe %13 {observer = #quanta.placeholder<dtype = float16, custom_op_name = "my_op">} : tensor<4x8xf32>
  // CHECK: #quanta.noop<>
  %15 = quanta.observe %14 {observer = #quanta.noop<dtype = float16>} : tensor<4x8xf32>
  // CHECK: #quanta.recording<dtype = qint8>
  %16 = quanta.observe %15 {observer = #quanta.recording<dtype = qint8>} : tensor<4x8xf32>
  // CHECK: #quanta.reuse_input
  %17 = quanta.observe %16 {observer = #quanta.reuse_input} : tensor<4x8xf32>
  // CHECK: #quanta.oneflow_min_max<>
  %18 = quanta.observe %17 {observer = #quanta.oneflow_min_max<quantization_formula = google, quantization_bit = 8, quantization_scheme = symmetric, per_layer_quantization = true>} : tensor<4x8xf32>
  // CHECK: #quanta.oneflow_min_max<quantization_bit = 4, quantization_scheme = affine, per_layer_quantization = false>
  %19 = quanta.observe %18 {observer = #quanta.oneflow_min_max<quantization_bit = 4, quantization_scheme = affine, per_layer_quantization = false>} : tensor<4x8xf32>
  // CHECK: #quanta.oneflow_min_max<quantization_formula = cambricon, quantization_bit = 2>
  %20 = quanta.observe %19 {observer = #quanta.oneflow_min_max<quantization_formula = cambricon, quantization_bit = 2>} : tensor<4x8xf32>
  return %20 : tensor<4x8xf32>
}

// CHECK-LABEL: func @statistics
func.func @statistics(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: quanta.observe %{{.*}} {name = "act", observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [-1.5], max = [2.25], num_batches = 3>}
  %0 = quanta.observe %x {name = "act", observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [-1.5], max = [2.25], num_batches = 3>} : tensor<2x3xf32>
  // CHECK: #quanta.min_max_stats<min = [-1.0, 0.0], max = [1.0, 0.5]>
  %1 = quanta.observe %0 {observer = #quanta.per_channel_min_max<>, stats = #quanta.min_max_stats<min = [-1.0, 0.0], max = [1.0, 0.5]>} : tensor<2x3xf32>
  // Uninitialized per-channel statistics (PyTorch's empty buffers).
  // CHECK: #quanta.min_max_stats<min = [], max = []>
  %2 = quanta.observe %1 {observer = #quanta.per_channel_min_max<>, stats = #quanta.min_max_stats<min = [], max = []>} : tensor<2x3xf32>
  // CHECK: #quanta.histogram_stats<min = -1.0, max = 3.0, histogram = [1.0, 0.0, 2.0, 3.0], num_batches = 1>
  %3 = quanta.observe %2 {observer = #quanta.histogram<bins = 4>, stats = #quanta.histogram_stats<min = -1.0, max = 3.0, histogram = [1.0, 0.0, 2.0, 3.0], num_batches = 1>} : tensor<2x3xf32>
  // Statistics round-trip exactly (0.30000004 is the float32 after 0.3,
  // which 7 significant digits would turn into 0.3), non-finite included.
  // CHECK: #quanta.min_max_stats<min = [0.1, -inf], max = [0.30000004, nan]>
  %4 = quanta.observe %3 {observer = #quanta.per_channel_min_max<>, stats = #quanta.min_max_stats<min = [0.1, -inf], max = [0.30000004, nan]>} : tensor<2x3xf32>
  // A hexadecimal literal is the bit pattern of a float32, as in MLIR's own
  // f32 attributes (0x3F800000 is 1.0, 0xBFC00000 is -1.5).
  // CHECK: #quanta.histogram_stats<min = -1.5, max = 1.0, histogram = [1.0, 2.0], num_batches = 1>
  %5 = quanta.observe %4 {observer = #quanta.histogram<bins = 2>, stats = #quanta.histogram_stats<min = 0xBFC00000, max = 0x3F800000, histogram = [0x3F800000, 2.0], num_batches = 1>} : tensor<2x3xf32>
  // PyTorch's histogram combination leaves float32 residue below zero.
  // CHECK: histogram = [1.0e+04, -0.0006]
  %6 = quanta.observe %5 {observer = #quanta.histogram<bins = 2>, stats = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [10000.0, -0.0006], num_batches = 1>} : tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// CHECK-LABEL: func @fake_quant
func.func @fake_quant(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // CHECK: quanta.fake_quant %{{.*}} {quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 1.000000e-01>, zero_point = array<i64: 3>}
  %0 = quanta.fake_quant %x {scale = array<f32: 0.1>, zero_point = array<i64: 3>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  // CHECK: quanta.fake_quant %{{.*}} {axis = 1 : i64, quant_max = 127 : i64, quant_min = -128 : i64, scale = array<f32: 1.000000e-01, 2.000000e-01, 3.000000e-01>, zero_point = array<i64: 0, 0, 0>}
  %1 = quanta.fake_quant %0 {axis = 1, scale = array<f32: 0.1, 0.2, 0.3>, zero_point = array<i64: 0, 0, 0>, quant_min = -128, quant_max = 127} : tensor<2x3xf32>
  // CHECK: quanta.fake_quant %{{.*}} {axis = 0 : i64, float_zero_point = array<f32: 1.500000e+00, -2.500000e+00>, quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 1.000000e-01, 2.000000e-01>}
  %2 = quanta.fake_quant %1 {axis = 0, scale = array<f32: 0.1, 0.2>, float_zero_point = array<f32: 1.5, -2.5>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  // CHECK: quanta.fake_quant %{{.*}} {fake_quant_enabled = false, quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 1.000000e+00>, zero_point = array<i64: 0>}
  %3 = quanta.fake_quant %2 {fake_quant_enabled = false, scale = array<f32: 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  // PyTorch's FakeQuantize module: the observer feeds the qparams.
  // CHECK: quanta.fake_quant %{{.*}} {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<reduce_range = true>, quant_min = 0, quant_max = 255>, observer_enabled = true}
  %4 = quanta.fake_quant %3 {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<reduce_range = true>, quant_min = 0, quant_max = 255>, observer_enabled = true} : tensor<2x3xf32>
  // FusedMovingAvgObsFakeQuantize, per channel on axis 0.
  // CHECK: #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>, quant_min = -128, quant_max = 127, fused = true>
  %5 = quanta.fake_quant %4 {axis = 0, fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>, quant_min = -128, quant_max = 127, fused = true>, observer_enabled = false} : tensor<2x3xf32>
  // Without an observer: PyTorch's default MovingAverageMinMaxObserver.
  // CHECK: #quanta.fake_quantize<>
  %6 = quanta.fake_quant %5 {fake_quantize = #quanta.fake_quantize<>, stats = #quanta.min_max_stats<min = [-1.0], max = [1.0]>} : tensor<2x3xf32>
  return %6 : tensor<2x3xf32>
}

// CHECK-LABEL: func @qconfig_attribute
// CHECK: quanta.qconfig = #quanta.qconfig<activation = #quanta.histogram<reduce_range = true>, weight = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>>
func.func @qconfig_attribute() attributes {quanta.qconfig = #quanta.qconfig<activation = #quanta.histogram<reduce_range = true>, weight = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>>} {
  return
}

// The product of two quantized activations.
!qa = !quant.uniform<u8<0:127>:f32, 0.05:3>
!qb = !quant.uniform<i8:f32, 0.02:-1>
!qo = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func @qbatch_matmul
// CHECK: quanta.qbatch_matmul %{{.*}}, %{{.*}} {multiplier = 1073741824 : i32, output_max = 250 : i32, output_min = 3 : i32, shift = -3 : i32} : tensor<2x3x4x!quant.uniform<u8<0:127>:f32, 5.000000e-02:3>>, tensor<2x4x6x!quant.uniform<i8:f32, 2.000000e-02:-1>> -> tensor<2x3x6x!quant.uniform<u8:f32, 1.000000e-01:10>>
func.func @qbatch_matmul(%a: tensor<2x3x4x!qa>, %b: tensor<2x4x6x!qb>) -> tensor<2x3x6x!qo> {
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = -3 : i32, output_min = 3 : i32, output_max = 250 : i32} : tensor<2x3x4x!qa>, tensor<2x4x6x!qb> -> tensor<2x3x6x!qo>
  return %r : tensor<2x3x6x!qo>
}

// Dynamic Linear layers: per-tensor and per-column weight scales, with and
// without a bias, each engine (onnx: an ONNX weight scale below eps).
// CHECK-LABEL: func @dynamic_qmatmul
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onednn) {bias = array<f32: 1.000000e+00, -2.000000e+00>, weight_scales = array<f32: 2.500000e-01>, weights = dense<{{\[}}[1, -2], [3, 127]]> : tensor<2x2xi8>} : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(qnnpack) {weight_scales = array<f32: 2.500000e-01, 5.000000e-01>, weights = dense<1> : tensor<2x2xi8>} : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {weight_scales = array<f32: 9.99999997E-7>, weights = dense<1> : tensor<2x2xi8>} : tensor<3x2xf32> -> tensor<3x2xf32>
func.func @dynamic_qmatmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<[[1, -2], [3, 127]]> : tensor<2x2xi8>, weight_scales = array<f32: 0.25>, bias = array<f32: 1.0, -2.0>} : tensor<3x2xf32> -> tensor<3x2xf32>
  %z = quanta.dynamic_qmatmul %y engine(qnnpack) {weights = dense<1> : tensor<2x2xi8>, weight_scales = array<f32: 0.25, 0.5>} : tensor<3x2xf32> -> tensor<3x2xf32>
  %w = quanta.dynamic_qmatmul %z engine(onnx) {weights = dense<1> : tensor<2x2xi8>, weight_scales = array<f32: 1.0e-6>} : tensor<3x2xf32> -> tensor<3x2xf32>
  return %w : tensor<3x2xf32>
}

// A dynamic convolution (an image read through its window) with weight
// zero points (ONNX Runtime's uint8 weights, shifted).
// CHECK-LABEL: func @dynamic_qmatmul_window
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {weight_scales = array<f32: 5.000000e-01>, weight_zero_points = array<i32: -3, 4>, weights = dense<1> : tensor<12x2xi8>, window = array<i64: 2, 2, 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<9x2xf32>
func.func @dynamic_qmatmul_window(%x: tensor<1x4x4x3xf32>) -> tensor<9x2xf32> {
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<12x2xi8>, weight_scales = array<f32: 0.5>, weight_zero_points = array<i32: -3, 4>, window = array<i64: 2, 2, 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<9x2xf32>
  return %y : tensor<9x2xf32>
}

// Weight-only Linear layers: f16 weights, and s8 ones with column scales.
// CHECK-LABEL: func @weight_only_matmul
// CHECK: quanta.weight_only_matmul %{{.*}} {bias = array<f32: 1.000000e+00, -2.000000e+00>, weights = dense<5.000000e-01> : tensor<2x2xf16>} : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: quanta.weight_only_matmul %{{.*}} {scales = array<f32: 2.500000e-01, 5.000000e-01>, weights = dense<{{\[}}[1, -2], [3, 127]]> : tensor<2x2xi8>} : tensor<3x2xf32> -> tensor<3x2xf32>
func.func @weight_only_matmul(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<0.5> : tensor<2x2xf16>, bias = array<f32: 1.0, -2.0>} : tensor<3x2xf32> -> tensor<3x2xf32>
  %z = quanta.weight_only_matmul %y {weights = dense<[[1, -2], [3, 127]]> : tensor<2x2xi8>, scales = array<f32: 0.25, 0.5>} : tensor<3x2xf32> -> tensor<3x2xf32>
  return %z : tensor<3x2xf32>
}

// 4-bit weights with a scale per group of 2 k values of each column.
// CHECK-LABEL: func @weight_only_int4
// CHECK: quanta.weight_only_matmul %{{.*}} {group_size = 2 : i64, scales = array<f32: 2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00>, weights = dense<{{\[}}[1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<4x2xi4>} : tensor<3x4xf32> -> tensor<3x2xf32>
func.func @weight_only_int4(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<[[1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<4x2xi4>, scales = array<f32: 0.25, 0.5, 1.0, 2.0>, group_size = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Asymmetric 4-bit weights: a zero point per scale; scales stored as f16.
// CHECK-LABEL: func @weight_only_int4_asymmetric
// CHECK: quanta.weight_only_matmul %{{.*}} {f16_scales, group_size = 2 : i64, scales = array<f32: 2.500000e-01, 5.000000e-01, 1.000000e+00, 2.000000e+00>, weights = dense<{{\[}}[1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<4x2xi4>, zero_points = array<i8: -8, 0, 7, 3>} : tensor<3x4xf32> -> tensor<3x2xf32>
func.func @weight_only_int4_asymmetric(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<[[1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<4x2xi4>, scales = array<f32: 0.25, 0.5, 1.0, 2.0>, group_size = 2, zero_points = array<i8: -8, 0, 7, 3>, f16_scales} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// int8_activations (int4_dynamic): a unit attribute beside the group size.
// CHECK-LABEL: func @weight_only_int4_dynamic
// CHECK: quanta.weight_only_matmul %{{.*}} {group_size = 8 : i64, int8_activations, scales = array<f32: 2.500000e-01, 5.000000e-01>, weights = dense<3> : tensor<8x2xi4>} : tensor<1x8xf32> -> tensor<1x2xf32>
func.func @weight_only_int4_dynamic(%x: tensor<1x8xf32>) -> tensor<1x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<3> : tensor<8x2xi4>, scales = array<f32: 0.25, 0.5>, group_size = 8, int8_activations} : tensor<1x8xf32> -> tensor<1x2xf32>
  return %y : tensor<1x2xf32>
}

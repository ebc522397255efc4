// RUN: quant-opt %s -split-input-file -verify-diagnostics

// Rules of quanta.observe and quanta.fake_quant, one case each.

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // PyTorch's permute accepts -rank <= ch_axis < rank.
  // expected-error @+1 {{channel axis 2 is out of range for a tensor of rank 2 (expected -2 <= ch_axis < 2)}}
  %0 = quanta.observe %x {observer = #quanta.per_channel_min_max<ch_axis = 2>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{channel axis -3 is out of range for a tensor of rank 2}}
  %0 = quanta.observe %x {observer = #quanta.moving_average_per_channel_min_max<ch_axis = -3>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{PerChannelMinMaxObserver needs a tensor of rank >= 2 (PyTorch flattens the dimensions after the channel axis and raises IndexError), got 'tensor<4xf32>'}}
  %0 = quanta.observe %x {observer = #quanta.per_channel_min_max<>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @f(%x: tensor<f32>) -> tensor<f32> {
  // expected-error @+1 {{per-channel observation needs a tensor of rank >= 1}}
  %0 = quanta.observe %x {observer = #quanta.oneflow_min_max<per_layer_quantization = false>} : tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @f(%x: tensor<2x3xi8>) -> tensor<2x3xi8> {
  // Observers see floats (PyTorch converts to float32 first).
  // expected-error @+1 {{operand #0 must be ranked tensor of floating-point values}}
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<2x3xi8>
  return %0 : tensor<2x3xi8>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{attribute 'observer' failed to satisfy constraint}}
  %0 = quanta.observe %x {observer = #quanta.qconfig<activation = #quanta.min_max<>, weight = #quanta.min_max<>>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{PlaceholderObserver does not hold statistics, but 'stats' is set}}
  %0 = quanta.observe %x {observer = #quanta.placeholder<>, stats = #quanta.min_max_stats<min = [0.0], max = [1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{histogram has 2 bins but the observer has bins = 4}}
  %0 = quanta.observe %x {observer = #quanta.histogram<bins = 4>, stats = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [1.0, 2.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{HistogramObserver statistics must be a #quanta.histogram_stats}}
  %0 = quanta.observe %x {observer = #quanta.histogram<>, stats = #quanta.min_max_stats<min = [0.0], max = [1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{MinMaxObserver statistics must be a #quanta.min_max_stats}}
  %0 = quanta.observe %x {observer = #quanta.min_max<>, stats = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{min_max_stats must hold one value for per-tensor quantization, got 2}}
  %0 = quanta.observe %x {observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [0.0, 0.0], max = [1.0, 1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{min_max_stats must hold one value per channel (3 along axis 1), got 2}}
  %0 = quanta.observe %x {observer = #quanta.per_channel_min_max<ch_axis = -1>, stats = #quanta.min_max_stats<min = [0.0, 0.0], max = [1.0, 1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'observer_enabled' needs a 'fake_quantize' module whose observer it enables}}
  %0 = quanta.fake_quant %x {observer_enabled = true, scale = array<f32: 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'stats' belong to the observer of a 'fake_quantize' module, but there is none}}
  %0 = quanta.fake_quant %x {stats = #quanta.min_max_stats<min = [0.0], max = [1.0]>, scale = array<f32: 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{quant_min/quant_max come from the 'fake_quantize' module; do not set them on the op as well}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{set either 'zero_point' or 'float_zero_point', not both}}
  %0 = quanta.fake_quant %x {axis = 0, scale = array<f32: 1.0, 1.0>, zero_point = array<i64: 0, 0>, float_zero_point = array<f32: 0.0, 0.0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'scale' and a zero point go together}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{needs known qparams ('scale' and 'zero_point') or a 'fake_quantize' module to compute them}}
  %0 = quanta.fake_quant %x {quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{the module's observer is per-channel: set 'axis'}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<>>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{'float_zero_point' (per_channel_affine_float_qparams) is per-channel: set 'axis'}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, float_zero_point = array<f32: 0.5>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{scale and zero point must have the same length (2 vs 1)}}
  %0 = quanta.fake_quant %x {axis = 0, scale = array<f32: 1.0, 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{scale must hold one value for per-tensor quantization, got 2}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0, 1.0>, zero_point = array<i64: 0, 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{scale must hold one value per channel (3 along axis 1), got 2}}
  %0 = quanta.fake_quant %x {axis = 1, scale = array<f32: 1.0, 1.0>, zero_point = array<i64: 0, 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{channel axis 5 is out of range for a tensor of rank 2}}
  %0 = quanta.fake_quant %x {axis = 5, scale = array<f32: 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{scale must be finite and positive, got 0}}
  %0 = quanta.fake_quant %x {scale = array<f32: 0.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{scale must be finite and positive, got -1}}
  %0 = quanta.fake_quant %x {scale = array<f32: -1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{known qparams need 'quant_min' and 'quant_max'}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, zero_point = array<i64: 0>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // ATen: "`quant_min` should be less than or equal to `quant_max`".
  // expected-error @+1 {{`quant_min` should be less than or equal to `quant_max`, got 10 > 5}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, zero_point = array<i64: 7>, quant_min = 10, quant_max = 5} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // ATen: "`zero_point` must be between `quant_min` and `quant_max`".
  // expected-error @+1 {{`zero_point` must be between `quant_min` and `quant_max`, got 300 outside [0, 255]}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, zero_point = array<i64: 300>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf64>) -> tensor<2x3xf64> {
  // PyTorch's fake-quant kernels take float32.
  // expected-error @+1 {{operand #0 must be ranked tensor of 32-bit float values}}
  %0 = quanta.fake_quant %x {scale = array<f32: 1.0>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<2x3xf64>
  return %0 : tensor<2x3xf64>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_shapes(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{shapes do not compose: input 2x4, weights 5x3, output 2x3}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<5x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_multiplier(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{multiplier 5 is not a normalized Q31 value (0 or in [2^30, 2^31))}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 5, 1073741824, 1073741824>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8<0:127>:f32, 0.1:10>
func.func @qmatmul_range(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{output range [0, 255] is empty or outside the output storage range [0, 127]}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

func.func @qmatmul_float_input(%a: tensor<2x4xf32>) -> tensor<2x3xf32> {
  // expected-error @below {{input must be a static 2-D tensor of per-tensor !quant.uniform with 8-bit storage, got 'tensor<2x4xf32>'}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4xf32> -> tensor<2x3xf32>
  return %r : tensor<2x3xf32>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_shifts(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{shifts must hold one value per output channel (3), got 2}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_depthwise_no_window(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{depthwise needs a window}}
  %r = quanta.qmatmul %a {depthwise, weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

// A depthwise 3x3 window over a 1x4x4x2 image: K = 9 taps (not 9 x 2), 4
// output pixels, and N must be the input's 2 channels.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_depthwise_channels(%a: tensor<1x4x4x2x!in>) -> tensor<4x3x!out> {
  // expected-error @below {{a depthwise convolution's 3 output channels must be its input's 2}}
  %r = quanta.qmatmul %a {depthwise, window = array<i64: 3, 3, 1, 1, 1, 1>, weights = dense<0> : tensor<9x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<1x4x4x2x!in> -> tensor<4x3x!out>
  return %r : tensor<4x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_depthwise_taps(%a: tensor<1x4x4x2x!in>) -> tensor<4x2x!out> {
  // expected-error @below {{shapes do not compose: input im2col 4x9, weights 18x2, output 4x2}}
  %r = quanta.qmatmul %a {depthwise, window = array<i64: 3, 3, 1, 1, 1, 1>, weights = dense<0> : tensor<18x2xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0>, multipliers = array<i32: 0, 0>, shifts = array<i32: 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<1x4x4x2x!in> -> tensor<4x2x!out>
  return %r : tensor<4x2x!out>
}

// -----

func.func @intrinsic_name(%a: vector<8xi32>) -> vector<8xi32> {
  // expected-error @below {{names an LLVM intrinsic (llvm.*), got 'x86.pmadd'}}
  %r = quanta.intrinsic "x86.pmadd"(%a) : (vector<8xi32>) -> vector<8xi32>
  return %r : vector<8xi32>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_weights_type(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{weights must be a K x N tensor of i8, got 'tensor<4x3xi32>'}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi32>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_weight_zero_point(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{weight zero point 128 is outside the s8 range}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 128>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qmatmul_shift_range(%a: tensor<2x4x!in>) -> tensor<2x3x!out> {
  // expected-error @below {{shift 31 is outside [-31, 30]}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<4x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 31, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x4x!in> -> tensor<2x3x!out>
  return %r : tensor<2x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:0>
func.func @qmatmul_window_size(%a: tensor<1x4x4x2x!in>) -> tensor<4x3x!out> {
  // expected-error @below {{window must hold 6 positive values [KH, KW, SH, SW, DH, DW], got [3, 3, 1, 0, 1, 1]}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<18x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 0, 1, 1>} : tensor<1x4x4x2x!in> -> tensor<4x3x!out>
  return %r : tensor<4x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:0>
func.func @qmatmul_window_rank(%a: tensor<16x2x!in>) -> tensor<4x3x!out> {
  // expected-error @below {{input with a window must be a static 4-D tensor of per-tensor !quant.uniform with 8-bit storage, got 'tensor<16x2x!quant.uniform<u8:f32, 5.000000e-02:3>>'}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<18x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<16x2x!in> -> tensor<4x3x!out>
  return %r : tensor<4x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:0>
func.func @qmatmul_window_fit(%a: tensor<1x4x4x2x!in>) -> tensor<4x3x!out> {
  // expected-error @below {{window [3, 3, 1, 1, 2, 1] does not fit the 4x4 input}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<18x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 1, 2, 1>} : tensor<1x4x4x2x!in> -> tensor<4x3x!out>
  return %r : tensor<4x3x!out>
}

// -----

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:0>
func.func @qmatmul_window_shapes(%a: tensor<1x4x4x2x!in>) -> tensor<4x3x!out> {
  // expected-error @below {{shapes do not compose: input im2col 4x18, weights 16x3, output 4x3}}
  %r = quanta.qmatmul %a {weights = dense<0> : tensor<16x3xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0>, multipliers = array<i32: 0, 0, 0>, shifts = array<i32: 0, 0, 0>, output_min = 0 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<1x4x4x2x!in> -> tensor<4x3x!out>
  return %r : tensor<4x3x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!b = !quant.uniform<i8:f32, 0.02:-1>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qbatch_matmul_shapes(%a: tensor<2x3x4x!a>, %b: tensor<2x5x6x!b>) -> tensor<2x3x6x!out> {
  // expected-error @below {{shapes do not compose: lhs 2x3x4, rhs 2x5x6, output 2x3x6}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = -3 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x3x4x!a>, tensor<2x5x6x!b> -> tensor<2x3x6x!out>
  return %r : tensor<2x3x6x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qbatch_matmul_float_rhs(%a: tensor<2x3x4x!a>, %b: tensor<2x4x6xf32>) -> tensor<2x3x6x!out> {
  // expected-error @below {{rhs must be a static 3-D tensor of per-tensor !quant.uniform with 8-bit storage, got 'tensor<2x4x6xf32>'}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = -3 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x3x4x!a>, tensor<2x4x6xf32> -> tensor<2x3x6x!out>
  return %r : tensor<2x3x6x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qbatch_matmul_matrix(%a: tensor<3x4x!a>, %b: tensor<4x6x!a>) -> tensor<3x6x!out> {
  // expected-error @below {{lhs must be a static 3-D tensor of per-tensor !quant.uniform with 8-bit storage}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = -3 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<3x4x!a>, tensor<4x6x!a> -> tensor<3x6x!out>
  return %r : tensor<3x6x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qbatch_matmul_multiplier(%a: tensor<2x3x4x!a>, %b: tensor<2x4x6x!a>) -> tensor<2x3x6x!out> {
  // expected-error @below {{multiplier 7 is not a normalized Q31 value (0 or in [2^30, 2^31))}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 7 : i32, shift = -3 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x3x4x!a>, tensor<2x4x6x!a> -> tensor<2x3x6x!out>
  return %r : tensor<2x3x6x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @qbatch_matmul_shift(%a: tensor<2x3x4x!a>, %b: tensor<2x4x6x!a>) -> tensor<2x3x6x!out> {
  // expected-error @below {{shift 40 is outside}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = 40 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x3x4x!a>, tensor<2x4x6x!a> -> tensor<2x3x6x!out>
  return %r : tensor<2x3x6x!out>
}

// -----

!a = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<i8:f32, 0.1:10>
func.func @qbatch_matmul_range(%a: tensor<2x3x4x!a>, %b: tensor<2x4x6x!a>) -> tensor<2x3x6x!out> {
  // expected-error @below {{output range [0, 255] is empty or outside the output storage range [-128, 127]}}
  %r = quanta.qbatch_matmul %a, %b {multiplier = 1073741824 : i32, shift = -3 : i32, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x3x4x!a>, tensor<2x4x6x!a> -> tensor<2x3x6x!out>
  return %r : tensor<2x3x6x!out>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{HistogramObserver statistics must be a #quanta.histogram_stats, got #quanta.min_max_stats}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.histogram<>>, stats = #quanta.min_max_stats<min = [0.0], max = [1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{MovingAverageMinMaxObserver statistics must be a #quanta.min_max_stats, got #quanta.histogram_stats}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<>, stats = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [1.0, 2.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{histogram has 2 bins but the observer has bins = 2048}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.histogram<>>, stats = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [1.0, 2.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{min_max_stats must hold one value per channel (2 along axis 0), got 3}}
  %0 = quanta.fake_quant %x {axis = 0, fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<>>, stats = #quanta.min_max_stats<min = [0.0, 0.0, 0.0], max = [1.0, 1.0, 1.0]>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{a FixedQParamsFakeQuantize module fake-quantizes with its observer's qparams: set 'scale' and 'zero_point' to those of #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @f(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  // expected-error @+1 {{a FixedQParamsFakeQuantize module fake-quantizes with its observer's qparams: set 'scale' and 'zero_point' to those of #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>>, scale = array<f32: 0.5>, zero_point = array<i64: 0>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

func.func @dynamic_qmatmul_shapes(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op shapes do not compose: input 3x4, weights 5x2, output 3x2}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<5x2xi8>, weight_scales = array<f32: 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_dynamic_input(%x: tensor<?x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op input must be a static 2-D tensor of f32, got 'tensor<?x4xf32>'}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>} : tensor<?x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_weight_type(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weights must be a K x N tensor of i8, got 'tensor<4x2xi32>'}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<4x2xi32>, weight_scales = array<f32: 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_scale_count(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weight_scales must hold 1 or 2 values (per tensor or per output column), got 3}}
  %y = quanta.dynamic_qmatmul %x engine(qnnpack) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5, 0.5, 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_zero_scale(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weight scales must be finite and at least float eps (the observers' floor), got 0.000000e+00}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5, 0.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_onnx_subnormal_scale(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weight scales must be finite and at least FLT_MIN (positive normal floats), got 9.999946e-41}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 1.0e-40>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_nan_scale(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{weight scales must be finite}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0x7FC00000>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_zero_point_count(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weight_zero_points must hold 1 or 2 values (per tensor or per output column), got 3}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>, weight_zero_points = array<i32: 1, 2, 3>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_zero_point_range(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op weight zero point 128 is outside the s8 range}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>, weight_zero_points = array<i32: 0, 128>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_window_matrix(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op input with a window must be a static NHWC image of f32, got 'tensor<3x4xf32>'}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>, window = array<i64: 2, 2, 1, 1, 1, 1>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_window_values(%x: tensor<1x4x4x3xf32>) -> tensor<9x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op window must hold 6 positive values [KH, KW, SH, SW, DH, DW], got [2, 2, 0, 1, 1, 1]}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<12x2xi8>, weight_scales = array<f32: 0.5>, window = array<i64: 2, 2, 0, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<9x2xf32>
  return %y : tensor<9x2xf32>
}

// -----

func.func @dynamic_qmatmul_window_too_large(%x: tensor<1x4x4x3xf32>) -> tensor<9x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op window [3, 3, 1, 1, 2, 1] does not fit the 4x4 input}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<27x2xi8>, weight_scales = array<f32: 0.5>, window = array<i64: 3, 3, 1, 1, 2, 1>} : tensor<1x4x4x3xf32> -> tensor<9x2xf32>
  return %y : tensor<9x2xf32>
}

// -----

func.func @dynamic_qmatmul_window_shapes(%x: tensor<1x4x4x3xf32>) -> tensor<9x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op shapes do not compose: input im2col 9x12, weights 27x2, output 9x2}}
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<1> : tensor<27x2xi8>, weight_scales = array<f32: 0.5>, window = array<i64: 2, 2, 1, 1, 1, 1>} : tensor<1x4x4x3xf32> -> tensor<9x2xf32>
  return %y : tensor<9x2xf32>
}

// -----

func.func @dynamic_qmatmul_bias(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.dynamic_qmatmul' op bias must hold 2 values (one per output column), got 1}}
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>, bias = array<f32: 1.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @dynamic_qmatmul_engine(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{expected string or keyword containing one of the following enum values for attribute 'engine' [onednn, qnnpack, onnx]}}
  %y = quanta.dynamic_qmatmul %x engine(fbgemm) {weights = dense<1> : tensor<4x2xi8>, weight_scales = array<f32: 0.5>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_type(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op weights must be a K x N tensor of f16, bf16, i8 or i4, got 'tensor<4x2xf32>'}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<4x2xf32>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_shapes(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op shapes do not compose: input 3x4, weights 5x2, output 3x2}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<5x2xf16>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_half_scales(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op 'f16' weights take no scales}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<4x2xf16>, scales = array<f32: 1.0, 1.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int8_scales(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op i8 weights need one scale per output column (2), got 1}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi8>, scales = array<f32: 1.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int8_bad_scale(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op scales must be finite and positive, got -1.000000e+00}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi8>, scales = array<f32: 1.0, -1.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_bias(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op bias must hold 2 values (one per output column), got 3}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<4x2xf16>, bias = array<f32: 1.0, 2.0, 3.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int4_group(%x: tensor<3x6xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op i4 weights need a group_size dividing K = 6, got 4}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<6x2xi4>, scales = array<f32: 1.0, 1.0>, group_size = 4} : tensor<3x6xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int4_odd_group(%x: tensor<3x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op i4 weights need a positive, even group_size (two 4-bit values per byte), got 3}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<3x2xi4>, scales = array<f32: 1.0, 1.0>, group_size = 3} : tensor<3x3xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int4_scales(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op i4 weights need (K / group_size) x N scales (4), got 2}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi4>, scales = array<f32: 1.0, 1.0>, group_size = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_group_on_i8(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op only i4 weights take a group_size}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi8>, scales = array<f32: 1.0, 1.0>, group_size = 2} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_bf16_scales(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op 'bf16' weights take no scales}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<4x2xbf16>, scales = array<f32: 1.0, 1.0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int8_activations_on_i8(%x: tensor<3x8xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op int8_activations needs i4 weights with a group_size that is a multiple of 8 and at most 16384, got 'i8' weights, group_size none}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<8x2xi8>, scales = array<f32: 1.0, 1.0>, int8_activations} : tensor<3x8xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_zero_points_on_i8(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op only i4 weights take zero_points, got 'i8'}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi8>, scales = array<f32: 1.0, 1.0>, zero_points = array<i8: 0, 0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_zero_points_count(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op zero_points must hold one value per scale (4), got 2}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi4>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>, group_size = 2, zero_points = array<i8: 0, 0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_zero_points_range(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op zero_points must be in the i4 weights' -8..7, got 8}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi4>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>, group_size = 2, zero_points = array<i8: 0, 0, 8, 0>} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_f16_scales_on_i8(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op only i4 weights take f16_scales, got 'i8'}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi8>, scales = array<f32: 1.0, 1.0>, f16_scales} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_f16_scales_value(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op f16_scales needs every scale to be an f16 value, got 1.000000e-01}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<4x2xi4>, scales = array<f32: 1.0, 0.1, 1.0, 1.0>, group_size = 2, f16_scales} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

func.func @weight_only_int8_activations_group(%x: tensor<3x8xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op int8_activations needs i4 weights with a group_size that is a multiple of 8 and at most 16384, got 'i4' weights, group_size 4}}
  %y = quanta.weight_only_matmul %x {weights = dense<1> : tensor<8x2xi4>, scales = array<f32: 1.0, 1.0, 1.0, 1.0>, group_size = 4, int8_activations} : tensor<3x8xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

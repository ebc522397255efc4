// RUN: quant-opt %s --quanta-lower-x86=isa=avx2 | FileCheck %s
// RUN: quant-opt %s --quanta-lower-neon=features=i8mm | FileCheck %s --check-prefix=NEON

// The kernel of PyTorch's dynamic Linear: the input's min and max (one
// vector pass, NaN propagating), ChooseQuantizationParams in f64 scalar
// code, the input quantized as the engine does, the integer tiles, and an
// epilogue converting each accumulator vector to f32 and scaling it with
// separate multiplies, adds and a divide (no fused multiply-add: PyTorch's
// engines round each step). onednn's activations (0..128) keep AVX2's
// vpmaddubsw exact for any s8 weights; qnnpack's (0..255) times weights of
// 127 could saturate it: vpmaddwd.
// CHECK-LABEL: func.func @onednn
// CHECK: vector.reduction <minimumf>
// CHECK: vector.reduction <maximumf>
// CHECK: math.roundeven %{{.*}} : f64
// CHECK: linalg.generic
// CHECK: math.roundeven %{{.*}} : f32
// CHECK: arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK-NOT: fma
// CHECK: arith.divf %{{.*}} : vector<8xf32>
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: arith.addf %{{.*}} : vector<8xf32>
// CHECK: arith.mulf %{{.*}} : vector<8xf32>
// CHECK: quanta.dot_step = "vpmaddubsw+vpmaddwd"
// NEON-LABEL: func.func @onednn
// NEON: quanta.dot_step = "usmmla"
func.func @onednn(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<127> : tensor<64x16xi8>, weight_scales = array<f32: 0.25>, bias = array<f32: 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0>} : tensor<4x64xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// CHECK-LABEL: func.func @qnnpack
// CHECK-NOT: fma
// CHECK: quanta.dot_step = "vpmaddwd"
func.func @qnnpack(%x: tensor<4x64xf32>) -> tensor<4x16xf32> {
  %y = quanta.dynamic_qmatmul %x engine(qnnpack) {weights = dense<127> : tensor<64x16xi8>, weight_scales = array<f32: 0.25>} : tensor<4x64xf32> -> tensor<4x16xf32>
  return %y : tensor<4x16xf32>
}

// K = 0: min = max = 0, every accumulator 0; the output is the library's
// (the bias, through onednn's scales), a constant. M = 0: nothing.
// CHECK-LABEL: func.func @empty_k
// CHECK-NEXT: %[[C:.*]] = arith.constant dense<{{\[}}[1.500000e+00, -2.000000e+00, 1.000000e-01], [1.500000e+00, -2.000000e+00, 1.000000e-01]]> : tensor<2x3xf32>
// CHECK-NEXT: return %[[C]]
func.func @empty_k(%x: tensor<2x0xf32>) -> tensor<2x3xf32> {
  %y = quanta.dynamic_qmatmul %x engine(onednn) {weights = dense<0> : tensor<0x3xi8>, weight_scales = array<f32: 0.5>, bias = array<f32: 1.5, -2.0, 0.1>} : tensor<2x0xf32> -> tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// CHECK-LABEL: func.func @empty_m
// CHECK-NEXT: %[[E:.*]] = tensor.empty() : tensor<0x3xf32>
// CHECK-NEXT: return %[[E]]
func.func @empty_m(%x: tensor<0x8xf32>) -> tensor<0x3xf32> {
  %y = quanta.dynamic_qmatmul %x engine(qnnpack) {weights = dense<1> : tensor<8x3xi8>, weight_scales = array<f32: 0.5>} : tensor<0x8xf32> -> tensor<0x3xf32>
  return %y : tensor<0x3xf32>
}

// ONNX Runtime's numerics (engine onnx): the input divided by its scale,
// and without a bias no addition after the multiplies. The float
// consumers of the output, here a ReLU over the [B, S, N] expansion of its
// rows (an ONNX MatMul of a 3-D input), run in the kernel on each
// accumulator vector: no loop nest of their own.
// CHECK-LABEL: func.func @onnx_relu
// CHECK: arith.divf %{{.*}} : f32
// CHECK: %[[ACC:.*]] = arith.sitofp %{{.*}} : vector<8xi32> to vector<8xf32>
// CHECK: %[[FACTOR:.*]] = arith.mulf %{{.*}} : vector<8xf32>
// CHECK-NEXT: %[[OUT:.*]] = arith.mulf %[[FACTOR]], %[[ACC]] : vector<8xf32>
// CHECK-NOT: arith.addf
// CHECK: arith.maximumf %[[OUT]], %{{.*}} : vector<8xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
// CHECK-NOT: linalg.generic
// CHECK: return
#map3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
func.func @onnx_relu(%x: tensor<4x64xf32>) -> tensor<2x2x16xf32> {
  %y = quanta.dynamic_qmatmul %x engine(onnx) {weights = dense<127> : tensor<64x16xi8>, weight_scales = array<f32: 0.25>} : tensor<4x64xf32> -> tensor<4x16xf32>
  %e = tensor.expand_shape %y [[0, 1], [2]] output_shape [2, 2, 16] : tensor<4x16xf32> into tensor<2x2x16xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x2x16xf32>
  %r = linalg.generic {indexing_maps = [#map3, #map3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%e : tensor<2x2x16xf32>) outs(%init : tensor<2x2x16xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x2x16xf32>
  return %r : tensor<2x2x16xf32>
}

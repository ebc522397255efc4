// RUN: quant-opt %s --quanta-quantize-dynamic="qconfig=int4_dynamic group-size=8" | FileCheck %s

// int4_dynamic (Quanta's): the weights as weight_only_int4 quantizes them
// (a scale per group of 8 k values of each column, largest magnitude / 7),
// the op marked int8_activations (the input quantized per group at run
// time); the bias stays f32. 3.5 / 1 rounds half to even to 4; -1 and -2
// over f32(2 / 7) and f32(4 / 7), a hair above the ratios, are -3.4999998:
// -3.
// CHECK-LABEL: func.func @int4_dynamic
// CHECK: quanta.weight_only_matmul %arg0 {bias = array<f32: 5.000000e-01, -1.500000e+00>, group_size = 8 : i64, int8_activations, scales = array<f32: 1.000000e+00, 0.285714298, 1.000000e+00, 0.571428597>, weights = dense<{{\[}}[7, -3], [-7, 0], [0, 7], [4, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, -3], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [7, 7]]> : tensor<16x2xi4>} : tensor<2x16xf32> -> tensor<2x2xf32>
func.func @int4_dynamic(%x: tensor<2x16xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[7.0, -1.0], [-7.0, 0.0], [0.0, 2.0], [3.5, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, -2.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [7.0, 4.0]]> : tensor<16x2xf32>
  %b = arith.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %biased = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<2x2xf32>) dimensions = [0]
  %r = linalg.matmul ins(%x, %w : tensor<2x16xf32>, tensor<16x2xf32>) outs(%biased : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// RUN: quant-opt %s --quanta-quantize-dynamic="qconfig=weight_only_int4 group-size=8 int4-asymmetric=true" | FileCheck %s --check-prefix=ASYM
// RUN: quant-opt %s --quanta-quantize-dynamic="qconfig=int4_dynamic group-size=8 int4-asymmetric=true" | FileCheck %s --check-prefix=ASYM-DYN

// int4-asymmetric: each group's scale and zero point PyTorch's
// MinMaxObserver(dtype=torch.quint4x2) gives (affine over 0..15, the
// range extended to 0), the values quantize_val's, both stored minus 8.
// Column 0, group 0: -1..14, scale 1, zero point 1; column 1, group 0:
// 0.5..1.5 (the range from 0), scale f32(1.5 / 15), zero point 0, values
// x * 10 (the f32 inverse of the scale); column 0, group 1: zeros, scale
// eps, zero point 0; column 1, group 1: -3..0, scale f32(3 / 15), zero
// point 15.
// ASYM-LABEL: func.func @asymmetric
// ASYM: quanta.weight_only_matmul %arg0 {group_size = 8 : i64, scales = array<f32: 1.000000e+00, 1.000000e-01, 1.1920929E-7, 2.000000e-01>, weights = dense<{{\[}}[-8, -3], [-7, 2], [-6, 2], [-5, 2], [-4, 2], [-3, 2], [-2, 2], [7, 7], [-8, -8], [-8, 7], [-8, 7], [-8, 7], [-8, 7], [-8, 7], [-8, 7], [-8, 7]]> : tensor<16x2xi4>, zero_points = array<i8: -7, -8, -8, 7>} : tensor<2x16xf32> -> tensor<2x2xf32>
// ASYM-DYN-LABEL: func.func @asymmetric
// ASYM-DYN: quanta.weight_only_matmul %arg0 {group_size = 8 : i64, int8_activations, scales = {{.*}}, zero_points = array<i8: -7, -8, -8, 7>}
func.func @asymmetric(%x: tensor<2x16xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[-1.0, 0.5], [0.0, 1.0], [1.0, 1.0], [2.0, 1.0], [3.0, 1.0], [4.0, 1.0], [5.0, 1.0], [14.0, 1.5], [0.0, -3.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0], [0.0, 0.0]]> : tensor<16x2xf32>
  %e = tensor.empty() : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %r = linalg.matmul ins(%x, %w : tensor<2x16xf32>, tensor<16x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %r : tensor<2x2xf32>
}

// RUN: quant-opt %s --quanta-quantize-dynamic="qconfig=int4_dynamic group-size=8 int4-f16-scales=true" | FileCheck %s --check-prefix=F16
// int4-f16-scales: the scales rounded to f16 (2 / 7 and 4 / 7 to
// 0.28564453125 and 0.5712890625), the values quantized with them: -1 and
// -2 over those are -3.5008..., so -4 where the f32 scales gave -3.
// F16-LABEL: func.func @int4_dynamic
// F16: quanta.weight_only_matmul %arg0 {bias = array<f32: 5.000000e-01, -1.500000e+00>, f16_scales, group_size = 8 : i64, int8_activations, scales = array<f32: 1.000000e+00, 0.285644531, 1.000000e+00, 0.571289063>, weights = dense<{{\[}}[7, -4], [-7, 0], [0, 7], [4, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, -4], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [0, 0], [7, 7]]> : tensor<16x2xi4>} : tensor<2x16xf32> -> tensor<2x2xf32>


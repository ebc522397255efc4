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

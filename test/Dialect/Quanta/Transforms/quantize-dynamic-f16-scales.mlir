// RUN: quant-opt %s --quanta-quantize-dynamic="qconfig=weight_only_int4 group-size=2 int4-f16-scales=true" -verify-diagnostics | FileCheck %s

// int4-f16-scales: a group whose scale (largest magnitude / 7) is beyond
// f16's largest value leaves the layer float; one below f16's smallest
// subnormal takes that (2^-24, 5.96e-8): its values then quantize to
// 0 or +-1.
// CHECK-LABEL: func.func @f16_scale_range
// CHECK: linalg.matmul
// CHECK: quanta.weight_only_matmul %arg0 {f16_scales, group_size = 2 : i64, scales = array<f32: 5.96046448E-8, 5.96046448E-8>, weights = dense<{{\[}}[0, 1], [0, 0]]> : tensor<2x2xi4>}
func.func @f16_scale_range(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %huge = arith.constant dense<[[1.0e6, 1.0], [0.0, 1.0]]> : tensor<2x2xf32>
  %tiny = arith.constant dense<[[1.0e-9, 6.0e-8], [0.0, 0.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{stays float: a group's scale 142857.140625 is beyond f16's largest value (65504): f16 scales cannot hold it}}
  %r = linalg.matmul ins(%x, %huge : tensor<3x2xf32>, tensor<2x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  %s = linalg.matmul ins(%x, %tiny : tensor<3x2xf32>, tensor<2x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r, %s : tensor<3x2xf32>, tensor<3x2xf32>
}

// RUN: quant-opt %s --quanta-quantize-dynamic=group-size=2 -split-input-file -verify-diagnostics | FileCheck %s
// RUN: quant-opt %s --quanta-quantize-dynamic="engine=qnnpack qconfig=per_channel_dynamic group-size=2" -split-input-file -verify-diagnostics | FileCheck %s --check-prefix=CHANNEL

// ONNX's Gemm: a matmul of [K, N] weights from zero, then a bias add. The
// weights are nn.Linear's [[1, 0.25], [-0.5, 2]], quantized as
// quantize_dynamic does: per tensor 2 / 127.5 (2 -> 127.5 -> clamped to
// 127), per output column 1 / 127.5 and 2 / 127.5. The float weights,
// bias and fill are gone.
// CHECK-LABEL: func.func @gemm
// CHECK-NEXT: %[[R:.*]] = quanta.dynamic_qmatmul %arg0 engine(onednn)
// CHECK-SAME: bias = array<f32: 5.000000e-01, -1.500000e+00>
// CHECK-SAME: weight_scales = array<f32: 0.0156862754>
// CHECK-SAME: weights = dense<{{\[}}[64, -32], [16, 127]]> : tensor<2x2xi8>
// CHECK-SAME: : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK-NEXT: return %[[R]]
// CHANNEL-LABEL: func.func @gemm
// CHANNEL: engine(qnnpack)
// CHANNEL-SAME: weight_scales = array<f32: 0.00784313772, 0.0156862754>
// CHANNEL-SAME: weights = dense<{{\[}}[127, -32], [32, 127]]>
func.func @gemm(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  %b = arith.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<3x2xf32>, tensor<2xf32>) outs(%e2 : tensor<3x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

// -----

// PyTorch's Linear: [N, K] weights through a transposed B, the bias
// broadcast into the accumulator; no bias at all.
// CHECK-LABEL: func.func @linear
// CHECK: quanta.dynamic_qmatmul %arg0 engine(onednn) {bias = array<f32: 1.000000e+00, 2.000000e+00, 3.000000e+00>, weight_scales = array<f32: 0.0235294122>, weights = dense<{{\[}}[127, 0, -64], [42, 85, 0]]> : tensor<2x3xi8>} : tensor<4x2xf32> -> tensor<4x3xf32>
// CHECK-LABEL: func.func @no_bias
// CHECK: quanta.dynamic_qmatmul %arg0 engine(onednn) {weight_scales
func.func @linear(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[3.0, 1.0], [0.0, 2.0], [-1.5, 0.0]]> : tensor<3x2xf32>
  %b = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<4x3xf32>
  %init = linalg.broadcast ins(%b : tensor<3xf32>) outs(%e : tensor<4x3xf32>) dimensions = [0]
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<4x2xf32>, tensor<3x2xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}
func.func @no_bias(%x: tensor<4x2xf32>) -> tensor<4x3xf32> {
  %w = arith.constant dense<[[3.0, 1.0], [0.0, 2.0], [-1.5, 0.0]]> : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x3xf32>) -> tensor<4x3xf32>
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : tensor<4x2xf32>, tensor<3x2xf32>) outs(%init : tensor<4x3xf32>) -> tensor<4x3xf32>
  return %r : tensor<4x3xf32>
}

// -----

// ONNX's MatMul on [B, S, K], then Add: collapsed rows, the dynamic
// product, the expansion; a bias of one value for all columns.
// CHECK-LABEL: func.func @matmul_add
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0
// CHECK: %[[Y:.*]] = quanta.dynamic_qmatmul %[[ROWS]] engine(onednn) {bias = array<f32: 2.500000e-01, 2.500000e-01>
// CHECK-SAME: : tensor<6x2xf32> -> tensor<6x2xf32>
// CHECK: %[[R:.*]] = tensor.expand_shape %[[Y]] {{\[}}[0, 1], [2]] output_shape [2, 3, 2]
// CHECK-NOT: linalg
// CHECK: return %[[R]]
func.func @matmul_add(%x: tensor<2x3x2xf32>) -> tensor<2x3x2xf32> {
  %w = arith.constant dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<0.25> : tensor<1xf32>
  %zero = arith.constant 0.0 : f32
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : tensor<2x3x2xf32> into tensor<6x2xf32>
  %e = tensor.empty() : tensor<6x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<6x2xf32>) -> tensor<6x2xf32>
  %mm = linalg.matmul ins(%rows, %w : tensor<6x2xf32>, tensor<2x2xf32>) outs(%init : tensor<6x2xf32>) -> tensor<6x2xf32>
  %y = tensor.expand_shape %mm [[0, 1], [2]] output_shape [2, 3, 2] : tensor<6x2xf32> into tensor<2x3x2xf32>
  %e2 = tensor.empty() : tensor<2x3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (0)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%y, %b : tensor<2x3x2xf32>, tensor<1xf32>) outs(%e2 : tensor<2x3x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<2x3x2xf32>
  return %r : tensor<2x3x2xf32>
}

// -----

// What stays float: a product of two activations (attention's, which
// quantize_dynamic does not touch either), a matmul whose qconfig is
// "none", weights holding NaN (with a remark), a bias add with a second
// use of the product (only the product is replaced).
// CHECK-LABEL: func.func @activations
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @opted_out
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @nan_weights
// CHECK: linalg.matmul
// CHECK-LABEL: func.func @shared_product
// CHECK: %[[MM:.*]] = quanta.dynamic_qmatmul
// CHECK-NOT: bias
// CHECK: linalg.generic
// CHECK: return %[[MM]],
func.func @activations(%x: tensor<3x2xf32>, %w: tensor<2x2xf32>) -> tensor<3x2xf32> {
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %mm : tensor<3x2xf32>
}
func.func @opted_out(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul {quanta.qconfig = "none"} ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %mm : tensor<3x2xf32>
}
func.func @nan_weights(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.0, 0x7FC00000], [0.25, 2.0]]> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{stays float: the weights hold NaN or infinity: quantize_dynamic would compute an infinite or NaN scale}}
  %mm = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %mm : tensor<3x2xf32>
}
func.func @shared_product(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %b = arith.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<3x2xf32>, tensor<2xf32>) outs(%e : tensor<3x2xf32>) {
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  } -> tensor<3x2xf32>
  return %mm, %r : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// A static qconfig is no dynamic one.
func.func @static_qconfig(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-error @+1 {{'quanta.qconfig' must be 'none', 'default_dynamic', 'per_channel_dynamic', 'float16_dynamic', 'weight_only_bf16', 'bf16_dot', 'weight_only_int8', 'weight_only_int4' or 'int4_dynamic' for quanta-quantize-dynamic, got "x86"}}
  %mm = linalg.matmul {quanta.qconfig = "x86"} ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %mm : tensor<3x2xf32>
}

// -----

// The weight-only schemes, per op: f16 weights (float16_dynamic; one
// beyond 65504 clamped, with a remark, as PyTorch's fp16 prepack clamps
// it) and per-column s8 weights with their scales (weight_only_int8); the
// bias stays f32.
// CHECK-LABEL: func.func @weight_only
// CHECK: quanta.weight_only_matmul %arg0 {bias = array<f32: 5.000000e-01, -1.500000e+00>, weights = dense<{{\[}}[1.000000e+00, 6.550400e+04], [2.500000e-01, 3.332520e-01]]> : tensor<2x2xf16>} : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: quanta.weight_only_matmul %arg0 {scales = array<f32: 0.00784313772, 0.0156862754>, weights = dense<{{\[}}[127, -32], [32, 127]]> : tensor<2x2xi8>} : tensor<3x2xf32> -> tensor<3x2xf32>
func.func @weight_only(%x: tensor<3x2xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>) {
  %w16 = arith.constant dense<[[1.0, 1.0e+05], [0.25, 0.33333]]> : tensor<2x2xf32>
  %w8 = arith.constant dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %b = arith.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %biased = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<3x2xf32>) dimensions = [0]
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{1 weights outside the f16 range clamped to +-65504, as PyTorch's fp16 prepack clamps them}}
  %half = linalg.matmul {quanta.qconfig = "float16_dynamic"} ins(%x, %w16 : tensor<3x2xf32>, tensor<2x2xf32>) outs(%biased : tensor<3x2xf32>) -> tensor<3x2xf32>
  %int8 = linalg.matmul {quanta.qconfig = "weight_only_int8"} ins(%x, %w8 : tensor<3x2xf32>, tensor<2x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %half, %int8 : tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// 4-bit weights, a scale per group of 2 k values of each column (largest
// magnitude / 7); a K the group size does not divide stays float, and so
// does int4_dynamic with a group size that is no multiple of 8.
// CHECK-LABEL: func.func @int4
// CHECK: quanta.weight_only_matmul %arg0 {group_size = 2 : i64, scales = array<f32: 0.142857149, 0.285714298>, weights = dense<{{\[}}[7, -2], [2, 7]]> : tensor<2x2xi4>} : tensor<3x2xf32> -> tensor<3x2xf32>
// CHECK: linalg.matmul
// CHECK: linalg.matmul
func.func @int4(%x: tensor<3x2xf32>, %y: tensor<3x3xf32>) -> (tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>) {
  %w = arith.constant dense<[[1.0, -0.5], [0.25, 2.0]]> : tensor<2x2xf32>
  %w3 = arith.constant dense<1.0> : tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %r = linalg.matmul {quanta.qconfig = "weight_only_int4"} ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{stays float: the group size 2 does not divide K = 3}}
  %s = linalg.matmul {quanta.qconfig = "weight_only_int4"} ins(%y, %w3 : tensor<3x3xf32>, tensor<3x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @+1 {{stays float: int4_dynamic needs a group size that is a multiple of 8 (the integer steps sum runs of 8 k values) and at most 16384 (each group's sum exact in f32), got 2}}
  %t = linalg.matmul {quanta.qconfig = "int4_dynamic"} ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%zeros : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r, %s, %t : tensor<3x2xf32>, tensor<3x2xf32>, tensor<3x2xf32>
}

// -----

// bf16 weights (weight_only_bf16, Quanta's): rounded to nearest even (1 +
// 2^-8 ties down to 1, 1 + 3 * 2^-8 up to 1 + 2^-6), one beyond bf16's
// largest finite value clamped to it with a remark; the sum starts from
// the bias, as with f16 weights.
// CHECK-LABEL: func.func @weight_only_bf16
// CHECK: quanta.weight_only_matmul %arg0 {bias = array<f32: 5.000000e-01, -1.500000e+00>, weights = dense<{{\[}}[1.000000e+00, 3.389530e+38], [1.015630e+00, -3.339840e-01]]> : tensor<2x2xbf16>} : tensor<3x2xf32> -> tensor<3x2xf32>
func.func @weight_only_bf16(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %w = arith.constant dense<[[1.00390625, 3.4e+38], [1.01171875, -0.333333]]> : tensor<2x2xf32>
  %b = arith.constant dense<[0.5, -1.5]> : tensor<2xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %biased = linalg.broadcast ins(%b : tensor<2xf32>) outs(%e : tensor<3x2xf32>) dimensions = [0]
  // expected-remark @+1 {{1 weights outside the bf16 range clamped to +-3.39E+38}}
  %r = linalg.matmul {quanta.qconfig = "weight_only_bf16"} ins(%x, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%biased : tensor<3x2xf32>) -> tensor<3x2xf32>
  return %r : tensor<3x2xf32>
}

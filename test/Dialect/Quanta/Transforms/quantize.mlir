// RUN: quant-opt %s --quanta-quantize --canonicalize -split-input-file -verify-diagnostics | FileCheck %s

// A biased fully connected layer with relu6: one quanta.qmatmul whose
// constants come from prepareIntegerGemm (s8 weights per channel, bias
// folded into the column offsets, relu6 into the output range).

!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!w = !quant.uniform<i8:f32:1, {0.01, 0.02, 0.03}>
!out = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @fc
// CHECK: %[[Q:.*]] = quant.qcast %arg0
// CHECK: %[[R:.*]] = quanta.qmatmul %[[Q]] {column_offsets = array<i32: 520, -166, 688>, multipliers = array<i32: 1374389504, 1374389504, 2061584256>, output_max = 70 : i32, output_min = 10 : i32, shifts = array<i32: -7, -6, -6>, weight_zero_points = array<i32: 0>, weights = dense<{{\[\[}}10, -10, 10], [50, 30, -23], [100, -50, 8], [0, 2, -2]]> : tensor<4x3xi8>}
// CHECK-NOT: linalg
// CHECK: quant.dcast %[[R]]
func.func @fc(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!in>
  %a = quant.dcast %q : tensor<2x4x!in> to tensor<2x4xf32>
  %cst = arith.constant dense<[[0.1, -0.2, 0.3], [0.5, 0.6, -0.7], [1.0, -1.0, 0.25], [0.0, 0.05, -0.06]]> : tensor<4x3xf32>
  %wq = quant.qcast %cst : tensor<4x3xf32> to tensor<4x3x!w>
  %w = quant.dcast %wq : tensor<4x3x!w> to tensor<4x3xf32>
  %bias = arith.constant dense<[0.5, -0.25, 1.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%bias : tensor<3xf32>) outs(%e : tensor<2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e2 = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x3xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.minimumf %in, %six : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<2x3xf32>
  %qo = quant.qcast %r : tensor<2x3xf32> to tensor<2x3x!out>
  %y = quant.dcast %qo : tensor<2x3x!out> to tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// The same layer as PyTorch's Linear holds it, weights [out, in] read
// through a transposed B map, per channel along their dimension 0: the same
// qmatmul as @fc, weights re-laid out as K x N.
!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!w = !quant.uniform<i8:f32:0, {0.01, 0.02, 0.03}>
!out = !quant.uniform<u8:f32, 0.1:10>
#lhs = affine_map<(m, n, k) -> (m, k)>
#rhs_t = affine_map<(m, n, k) -> (n, k)>
#res = affine_map<(m, n, k) -> (m, n)>
// CHECK-LABEL: func.func @fc_transposed_weights
// CHECK: quanta.qmatmul %{{.*}} {column_offsets = array<i32: 520, -166, 688>, multipliers = array<i32: 1374389504, 1374389504, 2061584256>, output_max = 70 : i32, output_min = 10 : i32, shifts = array<i32: -7, -6, -6>, weight_zero_points = array<i32: 0>, weights = dense<{{\[\[}}10, -10, 10], [50, 30, -23], [100, -50, 8], [0, 2, -2]]> : tensor<4x3xi8>}
// CHECK-NOT: linalg
func.func @fc_transposed_weights(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!in>
  %a = quant.dcast %q : tensor<2x4x!in> to tensor<2x4xf32>
  %cst = arith.constant dense<[[0.1, 0.5, 1.0, 0.0], [-0.2, 0.6, -1.0, 0.05], [0.3, -0.7, 0.25, -0.06]]> : tensor<3x4xf32>
  %wq = quant.qcast %cst : tensor<3x4xf32> to tensor<3x4x!w>
  %w = quant.dcast %wq : tensor<3x4x!w> to tensor<3x4xf32>
  %bias = arith.constant dense<[0.5, -0.25, 1.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2x3xf32>
  %init = linalg.broadcast ins(%bias : tensor<3xf32>) outs(%e : tensor<2x3xf32>) dimensions = [0]
  %mm = linalg.matmul indexing_maps = [#lhs, #rhs_t, #res] ins(%a, %w : tensor<2x4xf32>, tensor<3x4xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e2 = tensor.empty() : tensor<2x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x3xf32>) outs(%e2 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.minimumf %in, %six : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<2x3xf32>
  %qo = quant.qcast %r : tensor<2x3xf32> to tensor<2x3x!out>
  %y = quant.dcast %qo : tensor<2x3x!out> to tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// A matmul on a [B, M, K] input: a batch_matmul whose weights ([K, N]; the
// op has no transposed broadcast) are broadcast over the batch is one GEMM
// of B * M rows, the same qmatmul as @fc.
!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!w = !quant.uniform<i8:f32:1, {0.01, 0.02, 0.03}>
!out = !quant.uniform<u8:f32, 0.1:10>
#lhs = affine_map<(b, m, n, k) -> (b, m, k)>
#rhs_b = affine_map<(b, m, n, k) -> (k, n)>
#res = affine_map<(b, m, n, k) -> (b, m, n)>
// CHECK-LABEL: func.func @batch_fc_broadcast_weights
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x5x4xi8> into tensor<10x4xi8>
// CHECK: %[[R:.*]] = quanta.qmatmul %{{.*}} {column_offsets = array<i32: 520, -166, 688>, multipliers = array<i32: 1374389504, 1374389504, 2061584256>, output_max = 70 : i32, output_min = 10 : i32, shifts = array<i32: -7, -6, -6>, weight_zero_points = array<i32: 0>, weights = dense<{{\[\[}}10, -10, 10], [50, 30, -23], [100, -50, 8], [0, 2, -2]]> : tensor<4x3xi8>} : tensor<10x4x!quant.uniform<u8<0:127>:f32, 5.000000e-02:3>> -> tensor<10x3x!quant.uniform<u8:f32, 1.000000e-01:10>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [2, 5, 3] : tensor<10x3xi8> into tensor<2x5x3xi8>
// CHECK-NOT: linalg
func.func @batch_fc_broadcast_weights(%x: tensor<2x5x4xf32>) -> tensor<2x5x3xf32> {
  %q = quant.qcast %x : tensor<2x5x4xf32> to tensor<2x5x4x!in>
  %a = quant.dcast %q : tensor<2x5x4x!in> to tensor<2x5x4xf32>
  %cst = arith.constant dense<[[0.1, -0.2, 0.3], [0.5, 0.6, -0.7], [1.0, -1.0, 0.25], [0.0, 0.05, -0.06]]> : tensor<4x3xf32>
  %wq = quant.qcast %cst : tensor<4x3xf32> to tensor<4x3x!w>
  %w = quant.dcast %wq : tensor<4x3x!w> to tensor<4x3xf32>
  %bias = arith.constant dense<[0.5, -0.25, 1.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<2x5x3xf32>
  %init = linalg.broadcast ins(%bias : tensor<3xf32>) outs(%e : tensor<2x5x3xf32>) dimensions = [0, 1]
  %mm = linalg.batch_matmul indexing_maps = [#lhs, #rhs_b, #res] ins(%a, %w : tensor<2x5x4xf32>, tensor<4x3xf32>) outs(%init : tensor<2x5x3xf32>) -> tensor<2x5x3xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e2 = tensor.empty() : tensor<2x5x3xf32>
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]} ins(%mm : tensor<2x5x3xf32>) outs(%e2 : tensor<2x5x3xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = arith.minimumf %in, %six : f32
    %1 = arith.maximumf %0, %zero : f32
    linalg.yield %1 : f32
  } -> tensor<2x5x3xf32>
  %qo = quant.qcast %r : tensor<2x5x3xf32> to tensor<2x5x3x!out>
  %y = quant.dcast %qo : tensor<2x5x3x!out> to tensor<2x5x3xf32>
  return %y : tensor<2x5x3xf32>
}

// -----

// Weights that differ per batch, and a transposed input, are no single
// GEMM of the input's rows: both stay float, with a remark.
!in = !quant.uniform<u8:f32, 0.05:3>
!w = !quant.uniform<i8:f32, 0.01>
!out = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @no_single_gemm
// CHECK: linalg.batch_matmul
// CHECK: linalg.matmul
// CHECK-NOT: quanta.qmatmul
func.func @no_single_gemm(%x: tensor<2x3x4xf32>, %t: tensor<4x3xf32>) -> (tensor<2x3x2xf32>, tensor<3x2xf32>) {
  %q = quant.qcast %x : tensor<2x3x4xf32> to tensor<2x3x4x!in>
  %a = quant.dcast %q : tensor<2x3x4x!in> to tensor<2x3x4xf32>
  %cst = arith.constant dense<0.5> : tensor<2x4x2xf32>
  %wq = quant.qcast %cst : tensor<2x4x2xf32> to tensor<2x4x2x!w>
  %w = quant.dcast %wq : tensor<2x4x2x!w> to tensor<2x4x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: only matmuls of the input's rows are supported: not a transposed or broadcast input, nor weights that differ per batch}}
  %mm = linalg.batch_matmul ins(%a, %w : tensor<2x3x4xf32>, tensor<2x4x2xf32>) outs(%init : tensor<2x3x2xf32>) -> tensor<2x3x2xf32>
  %qo = quant.qcast %mm : tensor<2x3x2xf32> to tensor<2x3x2x!out>
  %y = quant.dcast %qo : tensor<2x3x2x!out> to tensor<2x3x2xf32>
  %tq = quant.qcast %t : tensor<4x3xf32> to tensor<4x3x!in>
  %td = quant.dcast %tq : tensor<4x3x!in> to tensor<4x3xf32>
  %cst2 = arith.constant dense<0.5> : tensor<4x2xf32>
  %wq2 = quant.qcast %cst2 : tensor<4x2xf32> to tensor<4x2x!w>
  %w2 = quant.dcast %wq2 : tensor<4x2x!w> to tensor<4x2xf32>
  %e2 = tensor.empty() : tensor<3x2xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x2xf32>) -> tensor<3x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: only matmuls of the input's rows are supported: not a transposed or broadcast input, nor weights that differ per batch}}
  %mm2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>] ins(%td, %w2 : tensor<4x3xf32>, tensor<4x2xf32>) outs(%init2 : tensor<3x2xf32>) -> tensor<3x2xf32>
  %qo2 = quant.qcast %mm2 : tensor<3x2xf32> to tensor<3x2x!out>
  %y2 = quant.dcast %qo2 : tensor<3x2x!out> to tensor<3x2xf32>
  return %y, %y2 : tensor<2x3x2xf32>, tensor<3x2xf32>
}

// -----

// Attention's products of two activations (Q.K^T, softmax(.).V): one
// quanta.qbatch_matmul each, requantized with the numeric library's
// multiplier for the float scales' 0.05 * 0.04 / 0.1 (about 0.64 * 2^-5); a
// 2-D product is a batch of one.
!q = !quant.uniform<u8<0:127>:f32, 0.05:3>
!k = !quant.uniform<u8<0:127>:f32, 0.04:64>
!s = !quant.uniform<u8<0:127>:f32, 0.1:10>
// CHECK-LABEL: func.func @attention_products
// CHECK: %[[P:.*]] = quanta.qbatch_matmul %{{.*}}, %{{.*}} {multiplier = 1374389504 : i32, output_max = 127 : i32, output_min = 0 : i32, shift = -5 : i32} : tensor<2x3x4x!quant.uniform<u8<0:127>:f32, 5.000000e-02:3>>, tensor<2x4x5x!quant.uniform<u8<0:127>:f32, 4.000000e-02:64>> -> tensor<2x3x5x!quant.uniform<u8<0:127>:f32, 1.000000e-01:10>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 3, 4] : tensor<3x4xi8> into tensor<1x3x4xi8>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [1, 4, 5] : tensor<4x5xi8> into tensor<1x4x5xi8>
// CHECK: quanta.qbatch_matmul %{{.*}}, %{{.*}} {multiplier = 1374389504 : i32, output_max = 127 : i32, output_min = 0 : i32, shift = -5 : i32} : tensor<1x3x4x!quant.uniform<u8<0:127>:f32, 5.000000e-02:3>>, tensor<1x4x5x!quant.uniform<u8<0:127>:f32, 4.000000e-02:64>> -> tensor<1x3x5x!quant.uniform<u8<0:127>:f32, 1.000000e-01:10>>
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<1x3x5xi8> into tensor<3x5xi8>
// CHECK-NOT: linalg.batch_matmul
// CHECK-NOT: linalg.matmul
func.func @attention_products(%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>, %u: tensor<3x4xf32>, %v: tensor<4x5xf32>) -> (tensor<2x3x5xf32>, tensor<3x5xf32>) {
  %qx = quant.qcast %x : tensor<2x3x4xf32> to tensor<2x3x4x!q>
  %dx = quant.dcast %qx : tensor<2x3x4x!q> to tensor<2x3x4xf32>
  %qy = quant.qcast %y : tensor<2x4x5xf32> to tensor<2x4x5x!k>
  %dy = quant.dcast %qy : tensor<2x4x5x!k> to tensor<2x4x5xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %mm = linalg.batch_matmul ins(%dx, %dy : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%init : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %qo = quant.qcast %mm : tensor<2x3x5xf32> to tensor<2x3x5x!s>
  %o = quant.dcast %qo : tensor<2x3x5x!s> to tensor<2x3x5xf32>
  %qu = quant.qcast %u : tensor<3x4xf32> to tensor<3x4x!q>
  %du = quant.dcast %qu : tensor<3x4x!q> to tensor<3x4xf32>
  %qv = quant.qcast %v : tensor<4x5xf32> to tensor<4x5x!k>
  %dv = quant.dcast %qv : tensor<4x5x!k> to tensor<4x5xf32>
  %e2 = tensor.empty() : tensor<3x5xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %mm2 = linalg.matmul ins(%du, %dv : tensor<3x4xf32>, tensor<4x5xf32>) outs(%init2 : tensor<3x5xf32>) -> tensor<3x5xf32>
  %qo2 = quant.qcast %mm2 : tensor<3x5xf32> to tensor<3x5x!s>
  %o2 = quant.dcast %qo2 : tensor<3x5x!s> to tensor<3x5xf32>
  return %o, %o2 : tensor<2x3x5xf32>, tensor<3x5xf32>
}

// -----

// Products of two activations without an integer form stay float, each
// with a remark: a float first operand, a bias in the accumulator, a
// transposed operand.
!q = !quant.uniform<u8:f32, 0.05:3>
!s = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @activation_products_stay_float
// CHECK-COUNT-3: linalg.batch_matmul
// CHECK-NOT: quanta.qbatch_matmul
func.func @activation_products_stay_float(%x: tensor<2x3x4xf32>, %y: tensor<2x4x5xf32>, %t: tensor<2x5x4xf32>) -> (tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>) {
  %qy = quant.qcast %y : tensor<2x4x5xf32> to tensor<2x4x5x!q>
  %dy = quant.dcast %qy : tensor<2x4x5x!q> to tensor<2x4x5xf32>
  %qx = quant.qcast %x : tensor<2x3x4xf32> to tensor<2x3x4x!q>
  %dx = quant.dcast %qx : tensor<2x3x4x!q> to tensor<2x3x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a product of two activations needs both dequantized from 8-bit per-tensor types}}
  %mm = linalg.batch_matmul ins(%x, %dy : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%init : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %qo = quant.qcast %mm : tensor<2x3x5xf32> to tensor<2x3x5x!s>
  %o = quant.dcast %qo : tensor<2x3x5x!s> to tensor<2x3x5xf32>
  %one = arith.constant 1.0 : f32
  %biased = linalg.fill ins(%one : f32) outs(%e : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the accumulator does not start from zero}}
  %mm2 = linalg.batch_matmul ins(%dx, %dy : tensor<2x3x4xf32>, tensor<2x4x5xf32>) outs(%biased : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %qo2 = quant.qcast %mm2 : tensor<2x3x5xf32> to tensor<2x3x5x!s>
  %o2 = quant.dcast %qo2 : tensor<2x3x5x!s> to tensor<2x3x5xf32>
  %qt = quant.qcast %t : tensor<2x5x4xf32> to tensor<2x5x4x!q>
  %dt = quant.dcast %qt : tensor<2x5x4x!q> to tensor<2x5x4xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a product of two activations with transposed or broadcast operands (indexing maps of its own) has no integer form}}
  %mm3 = linalg.batch_matmul indexing_maps = [affine_map<(b, m, n, k) -> (b, m, k)>, affine_map<(b, m, n, k) -> (b, n, k)>, affine_map<(b, m, n, k) -> (b, m, n)>] ins(%dx, %dt : tensor<2x3x4xf32>, tensor<2x5x4xf32>) outs(%init : tensor<2x3x5xf32>) -> tensor<2x3x5xf32>
  %qo3 = quant.qcast %mm3 : tensor<2x3x5xf32> to tensor<2x3x5x!s>
  %o3 = quant.dcast %qo3 : tensor<2x3x5x!s> to tensor<2x3x5xf32>
  return %o, %o2, %o3 : tensor<2x3x5xf32>, tensor<2x3x5xf32>, tensor<2x3x5xf32>
}

// -----

// No bias, s8 input, per-tensor weights with a zero point, a zero fill.
!in = !quant.uniform<i8:f32, 0.5:-4>
!w = !quant.uniform<i8:f32, 0.25:2>
!out = !quant.uniform<i8:f32, 1.0:1>
// CHECK-LABEL: func.func @no_bias
// CHECK: quanta.qmatmul %{{.*}} {column_offsets = array<i32: 16, -16>, multipliers = array<i32: 1073741824, 1073741824>, output_max = 127 : i32, output_min = -128 : i32, shifts = array<i32: -2, -2>, weight_zero_points = array<i32: 2>, weights = dense<{{\[\[}}6, -2], [2, 2]]> : tensor<2x2xi8>}
func.func @no_bias(%x: tensor<3x2xf32>) -> tensor<3x2xf32> {
  %q = quant.qcast %x : tensor<3x2xf32> to tensor<3x2x!in>
  %a = quant.dcast %q : tensor<3x2x!in> to tensor<3x2xf32>
  %cst = arith.constant dense<[[1.0, -1.0], [0.0, 0.0]]> : tensor<2x2xf32>
  %wq = quant.qcast %cst : tensor<2x2xf32> to tensor<2x2x!w>
  %w = quant.dcast %wq : tensor<2x2x!w> to tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<3x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<3x2xf32>) -> tensor<3x2xf32>
  %mm = linalg.matmul ins(%a, %w : tensor<3x2xf32>, tensor<2x2xf32>) outs(%init : tensor<3x2xf32>) -> tensor<3x2xf32>
  %qo = quant.qcast %mm : tensor<3x2xf32> to tensor<3x2x!out>
  %y = quant.dcast %qo : tensor<3x2x!out> to tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// -----

// Weights that are not constant: the matmul stays float, with a remark.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @dynamic_weights
// CHECK: linalg.matmul
// CHECK-NOT: quanta.qmatmul
func.func @dynamic_weights(%x: tensor<2x4xf32>, %w: tensor<4x3xf32>) -> tensor<2x3xf32> {
  %q = quant.qcast %x : tensor<2x4xf32> to tensor<2x4x!in>
  %a = quant.dcast %q : tensor<2x4x!in> to tensor<2x4xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x3xf32>) -> tensor<2x3xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the weights are not a quantized float constant}}
  %mm = linalg.matmul ins(%a, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %qo = quant.qcast %mm : tensor<2x3xf32> to tensor<2x3x!out>
  %y = quant.dcast %qo : tensor<2x3x!out> to tensor<2x3xf32>
  return %y : tensor<2x3xf32>
}

// -----

// An op with no integer form yet stays float, with a remark.
!in = !quant.uniform<u8:f32, 0.05:3>
// CHECK-LABEL: func.func @unsupported
// CHECK: linalg.generic
func.func @unsupported(%x: tensor<4xf32>) -> tensor<4xf32> {
  %q = quant.qcast %x : tensor<4xf32> to tensor<4x!in>
  %a = quant.dcast %q : tensor<4x!in> to tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @below {{stays float between dequantize and quantize: its body has ops the lookup-table builder cannot evaluate}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.sin %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %qo = quant.qcast %r : tensor<4xf32> to tensor<4x!in>
  %y = quant.dcast %qo : tensor<4x!in> to tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// An average pooling from u8 into s8 has no integer form (PyTorch's keeps
// its input's type): it stays float, and a remark says why.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<i8:f32, 0.05:-3>
// CHECK-LABEL: func.func @average_mixed_signedness
// CHECK: linalg.pooling_nhwc_sum
func.func @average_mixed_signedness(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %q = quant.qcast %x : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!in>
  %a = quant.dcast %q : tensor<1x4x4x2x!in> to tensor<1x4x4x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%a, %window : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %four = arith.constant 4.0 : f32
  // expected-remark @below {{stays float between dequantize and quantize: the input and the result mix signed and unsigned types}}
  %avg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x2x2x2xf32>) outs(%e : tensor<1x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.divf %in, %four : f32
    linalg.yield %r : f32
  } -> tensor<1x2x2x2xf32>
  %qo = quant.qcast %avg : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!out>
  %y = quant.dcast %qo : tensor<1x2x2x2x!out> to tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A sum pooling that starts from anything but zero is no average of its
// window: it stays float, and the remark says why.
!in = !quant.uniform<u8:f32, 0.05:3>
// CHECK-LABEL: func.func @average_nonzero_start
// CHECK: linalg.pooling_nhwc_sum
func.func @average_nonzero_start(%x: tensor<1x4x4x2xf32>) -> tensor<1x2x2x2xf32> {
  %q = quant.qcast %x : tensor<1x4x4x2xf32> to tensor<1x4x4x2x!in>
  %a = quant.dcast %q : tensor<1x4x4x2x!in> to tensor<1x4x4x2xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%one : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%a, %window : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %four = arith.constant 4.0 : f32
  // expected-remark @below {{stays float between dequantize and quantize: the sum pooling does not start from zero}}
  %avg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x2x2x2xf32>) outs(%e : tensor<1x2x2x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    %r = arith.divf %in, %four : f32
    linalg.yield %r : f32
  } -> tensor<1x2x2x2xf32>
  %qo = quant.qcast %avg : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!in>
  %y = quant.dcast %qo : tensor<1x2x2x2x!in> to tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// The float matmul result is also returned: it must stay.
!in = !quant.uniform<u8:f32, 0.05:3>
!w = !quant.uniform<i8:f32, 0.01>
!out = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @shared_result
// CHECK: linalg.matmul
// CHECK-NOT: quanta.qmatmul
func.func @shared_result(%x: tensor<2x2xf32>) -> (tensor<2x2xf32>, tensor<2x2xf32>) {
  %q = quant.qcast %x : tensor<2x2xf32> to tensor<2x2x!in>
  %a = quant.dcast %q : tensor<2x2x!in> to tensor<2x2xf32>
  %cst = arith.constant dense<0.5> : tensor<2x2xf32>
  %wq = quant.qcast %cst : tensor<2x2xf32> to tensor<2x2x!w>
  %w = quant.dcast %wq : tensor<2x2x!w> to tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a float result of the chain has other users}}
  %mm = linalg.matmul ins(%a, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %qo = quant.qcast %mm : tensor<2x2xf32> to tensor<2x2x!out>
  %y = quant.dcast %qo : tensor<2x2x!out> to tensor<2x2xf32>
  return %y, %mm : tensor<2x2xf32>, tensor<2x2xf32>
}

// -----

// NaN has no quantized value: the weights stay float.
!in = !quant.uniform<u8:f32, 0.05:3>
!w = !quant.uniform<i8:f32, 0.01>
!out = !quant.uniform<u8:f32, 0.1:10>
// CHECK-LABEL: func.func @nan_weights
// CHECK-NOT: quanta.qmatmul
func.func @nan_weights(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %q = quant.qcast %x : tensor<2x2xf32> to tensor<2x2x!in>
  %a = quant.dcast %q : tensor<2x2x!in> to tensor<2x2xf32>
  %cst = arith.constant dense<[[0.5, 0x7FC00000], [0.25, 1.0]]> : tensor<2x2xf32>
  %wq = quant.qcast %cst : tensor<2x2xf32> to tensor<2x2x!w>
  %w = quant.dcast %wq : tensor<2x2x!w> to tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the weights hold NaN}}
  %mm = linalg.matmul ins(%a, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %qo = quant.qcast %mm : tensor<2x2xf32> to tensor<2x2x!out>
  %y = quant.dcast %qo : tensor<2x2x!out> to tensor<2x2xf32>
  return %y : tensor<2x2xf32>
}

// -----

// A 2x2 NCHW convolution of stride 2: the storage integers transposed to
// NHWC, the weights re-laid out as (kh, kw, c) x f (w[f][c][kh][kw] =
// 10 f + 4 c + 2 kh + kw in steps of 0.1), one qmatmul reading the im2col
// matrix (rows n, oh, ow; columns kh, kw, c) through its window, and the
// NHWC result transposed back to NCHW.
!in = !quant.uniform<u8:f32, 0.5:0>
!w = !quant.uniform<i8:f32, 0.1>
!out = !quant.uniform<u8:f32, 1.0:0>
// CHECK-LABEL: func.func @conv_nchw
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01>> to tensor<1x2x4x4xi8>
// CHECK: %[[NHWC:.*]] = linalg.transpose ins(%[[S]] : tensor<1x2x4x4xi8>) outs(%{{.*}} : tensor<1x4x4x2xi8>) permutation = [0, 2, 3, 1]
// CHECK: %[[Q:.*]] = quant.scast %[[NHWC]]
// CHECK: %[[R:.*]] = quanta.qmatmul %[[Q]] {{.*}}weights = dense<{{\[\[}}0, 10], [4, 14], [1, 11], [5, 15], [2, 12], [6, 16], [3, 13], [7, 17]]> : tensor<8x2xi8>, window = array<i64: 2, 2, 2, 2, 1, 1>} : tensor<1x4x4x2x!quant.uniform<u8:f32, 5.000000e-01>> -> tensor<4x2x!quant.uniform<u8:f32, 1.000000e+00>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 2, 2, 2] : tensor<4x2xi8> into tensor<1x2x2x2xi8>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x2x2x2xi8>) outs(%{{.*}} : tensor<1x2x2x2xi8>) permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.conv
func.func @conv_nchw(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x2x2xf32> {
  %q = quant.qcast %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!in>
  %a = quant.dcast %q : tensor<1x2x4x4x!in> to tensor<1x2x4x4xf32>
  %cst = arith.constant dense<[[[[0.0, 0.1], [0.2, 0.3]], [[0.4, 0.5], [0.6, 0.7]]], [[[1.0, 1.1], [1.2, 1.3]], [[1.4, 1.5], [1.6, 1.7]]]]> : tensor<2x2x2x2xf32>
  %wq = quant.qcast %cst : tensor<2x2x2x2xf32> to tensor<2x2x2x2x!w>
  %w = quant.dcast %wq : tensor<2x2x2x2x!w> to tensor<2x2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%a, %w : tensor<1x2x4x4xf32>, tensor<2x2x2x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %qo = quant.qcast %c : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!out>
  %y = quant.dcast %qo : tensor<1x2x2x2x!out> to tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// The constant padding of a padded NCHW image moves after the transpose
// (low/high of H and W, its value the input zero point 3): the transpose
// is of the unpadded image, and quanta-lower-x86 sees the padding of the
// image quanta.qmatmul reads.
!in = !quant.uniform<u8:f32, 0.5:3>
!w = !quant.uniform<i8:f32, 0.1>
!out = !quant.uniform<u8:f32, 1.0:0>
// CHECK-LABEL: func.func @conv_nchw_padded
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<1x2x4x4x!quant.uniform<u8:f32, 5.000000e-01:3>> to tensor<1x2x4x4xi8>
// CHECK: %[[NHWC:.*]] = linalg.transpose ins(%[[S]] : tensor<1x2x4x4xi8>) outs(%{{.*}} : tensor<1x4x4x2xi8>) permutation = [0, 2, 3, 1]
// CHECK: %[[PAD:.*]] = tensor.pad %[[NHWC]] low[0, 1, 2, 0] high[0, 0, 1, 0]
// CHECK: tensor.yield %c3_i8 : i8
// CHECK: } : tensor<1x4x4x2xi8> to tensor<1x5x7x2xi8>
// CHECK: %[[Q:.*]] = quant.scast %[[PAD]]
// CHECK: quanta.qmatmul %[[Q]] {{.*}} : tensor<1x5x7x2x!quant.uniform<u8:f32, 5.000000e-01:3>> -> tensor<24x2x!quant.uniform<u8:f32, 1.000000e+00>>
// CHECK-NOT: linalg.conv
func.func @conv_nchw_padded(%x: tensor<1x2x4x4xf32>) -> tensor<1x2x4x6xf32> {
  %q = quant.qcast %x : tensor<1x2x4x4xf32> to tensor<1x2x4x4x!in>
  %a = quant.dcast %q : tensor<1x2x4x4x!in> to tensor<1x2x4x4xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %a low[0, 0, 1, 2] high[0, 0, 0, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x2x4x4xf32> to tensor<1x2x5x7xf32>
  %pq = quant.qcast %p : tensor<1x2x5x7xf32> to tensor<1x2x5x7x!in>
  %pd = quant.dcast %pq : tensor<1x2x5x7x!in> to tensor<1x2x5x7xf32>
  %cst = arith.constant dense<[[[[0.0, 0.1], [0.2, 0.3]], [[0.4, 0.5], [0.6, 0.7]]], [[[1.0, 1.1], [1.2, 1.3]], [[1.4, 1.5], [1.6, 1.7]]]]> : tensor<2x2x2x2xf32>
  %wq = quant.qcast %cst : tensor<2x2x2x2xf32> to tensor<2x2x2x2x!w>
  %w = quant.dcast %wq : tensor<2x2x2x2x!w> to tensor<2x2x2x2xf32>
  %e = tensor.empty() : tensor<1x2x4x6xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %c = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%pd, %w : tensor<1x2x5x7xf32>, tensor<2x2x2x2xf32>) outs(%init : tensor<1x2x4x6xf32>) -> tensor<1x2x4x6xf32>
  %qo = quant.qcast %c : tensor<1x2x4x6xf32> to tensor<1x2x4x6x!out>
  %y = quant.dcast %qo : tensor<1x2x4x6x!out> to tensor<1x2x4x6xf32>
  return %y : tensor<1x2x4x6xf32>
}

// -----

// An NHWC convolution reads its quantized input as it is: the window
// [KH, KW, SH, SW, DH, DW] = [2, 2, 2, 3, 3, 2] (strides [2, 3],
// dilations [3, 2]) tells quanta.qmatmul where each im2col row lies; the
// weights are (kh, kw, c) x f, the output rows (n, oh, ow).
// CHECK-LABEL: func.func @conv_nhwc
// CHECK: %[[Q:.*]] = quant.qcast %{{.*}} : tensor<1x6x6x3xf32> to tensor<1x6x6x3x!quant.uniform<u8:f32, 5.000000e-01>>
// CHECK-NEXT: %[[R:.*]] = quanta.qmatmul %[[Q]] {{.*}}weights = dense<5> : tensor<12x2xi8>, window = array<i64: 2, 2, 2, 3, 3, 2>} : tensor<1x6x6x3x!quant.uniform<u8:f32, 5.000000e-01>> -> tensor<4x2x!quant.uniform<u8:f32, 1.000000e+00>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 2, 2, 2] : tensor<4x2xi8> into tensor<1x2x2x2xi8>
// CHECK-NOT: linalg.conv
!in = !quant.uniform<u8:f32, 0.5:0>
!w = !quant.uniform<i8:f32, 0.1>
!out = !quant.uniform<u8:f32, 1.0:0>
func.func @conv_nhwc(%x: tensor<1x6x6x3xf32>) -> tensor<1x2x2x2xf32> {
  %q = quant.qcast %x : tensor<1x6x6x3xf32> to tensor<1x6x6x3x!in>
  %a = quant.dcast %q : tensor<1x6x6x3x!in> to tensor<1x6x6x3xf32>
  %cst = arith.constant dense<0.5> : tensor<2x2x2x3xf32>
  %wq = quant.qcast %cst : tensor<2x2x2x3xf32> to tensor<2x2x2x3x!w>
  %w = quant.dcast %wq : tensor<2x2x2x3x!w> to tensor<2x2x2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<[3, 2]> : tensor<2xi64>, strides = dense<[2, 3]> : tensor<2xi64>} ins(%a, %w : tensor<1x6x6x3xf32>, tensor<2x2x2x3xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %qo = quant.qcast %c : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!out>
  %y = quant.dcast %qo : tensor<1x2x2x2x!out> to tensor<1x2x2x2xf32>
  return %y : tensor<1x2x2x2xf32>
}

// -----

// A 1x1 NHWC convolution of stride 1 is a GEMM on the input as it is: a
// reshape, no im2col. Per-channel weights (HWCF: axis 3) and a TOSA-style
// bias of shape 1x1x1x3 added through size-1 dimensions. 1.0 / 0.4 = 2.5
// rounds half to even, to 2, as torch.quantize_per_channel does.
!in = !quant.uniform<u8:f32, 0.5:0>
!w = !quant.uniform<i8:f32:3, {0.1, 0.2, 0.4}>
!out = !quant.uniform<u8:f32, 1.0:0>
// CHECK-LABEL: func.func @conv_1x1
// CHECK-NOT: linalg.generic
// CHECK: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] : tensor<1x3x3x2xi8> into tensor<9x2xi8>
// CHECK: quanta.qmatmul {{.*}}column_offsets = array<i32: 20, 10, 5>{{.*}}weights = dense<{{\[\[}}10, 5, 2], [-10, -5, -2]]> : tensor<2x3xi8>}
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 3, 3, 3] : tensor<9x3xi8> into tensor<1x3x3x3xi8>
func.func @conv_1x1(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x3xf32> {
  %q = quant.qcast %x : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!in>
  %a = quant.dcast %q : tensor<1x3x3x2x!in> to tensor<1x3x3x2xf32>
  %cst = arith.constant dense<[[[[1.0, 1.0, 1.0], [-1.0, -1.0, -1.0]]]]> : tensor<1x1x2x3xf32>
  %wq = quant.qcast %cst : tensor<1x1x2x3xf32> to tensor<1x1x2x3x!w>
  %w = quant.dcast %wq : tensor<1x1x2x3x!w> to tensor<1x1x2x3xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x3x3x3xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %c = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x3x3x2xf32>, tensor<1x1x2x3xf32>) outs(%init : tensor<1x3x3x3xf32>) -> tensor<1x3x3x3xf32>
  %bias = arith.constant dense<[[[[1.0, 1.0, 1.0]]]]> : tensor<1x1x1x3xf32>
  %e2 = tensor.empty() : tensor<1x3x3x3xf32>
  %b = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (0, 0, 0, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%c, %bias : tensor<1x3x3x3xf32>, tensor<1x1x1x3xf32>) outs(%e2 : tensor<1x3x3x3xf32>) {
  ^bb0(%in: f32, %bb: f32, %o: f32):
    %s = arith.addf %in, %bb : f32
    linalg.yield %s : f32
  } -> tensor<1x3x3x3xf32>
  %qo = quant.qcast %b : tensor<1x3x3x3xf32> to tensor<1x3x3x3x!out>
  %y = quant.dcast %qo : tensor<1x3x3x3x!out> to tensor<1x3x3x3xf32>
  return %y : tensor<1x3x3x3xf32>
}

// -----

// A bias along the spatial dimensions is not a per-channel bias.
!in = !quant.uniform<u8:f32, 0.5:0>
!w = !quant.uniform<i8:f32, 0.1>
!out = !quant.uniform<u8:f32, 1.0:0>
func.func @bias_along_width(%x: tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32> {
  %q = quant.qcast %x : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!in>
  %a = quant.dcast %q : tensor<1x3x3x2x!in> to tensor<1x3x3x2xf32>
  %cst = arith.constant dense<1.0> : tensor<2x1x1x2xf32>
  %wq = quant.qcast %cst : tensor<2x1x1x2xf32> to tensor<2x1x1x2x!w>
  %w = quant.dcast %wq : tensor<2x1x1x2x!w> to tensor<2x1x1x2xf32>
  %bias = arith.constant dense<[1.0, 2.0, 3.0]> : tensor<3xf32>
  %e = tensor.empty() : tensor<1x3x3x2xf32>
  %init = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d2)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%bias : tensor<3xf32>) outs(%e : tensor<1x3x3x2xf32>) {
  ^bb0(%in: f32, %o: f32):
    linalg.yield %in : f32
  } -> tensor<1x3x3x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the bias does not broadcast along the output channels}}
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x3x3x2xf32>, tensor<2x1x1x2xf32>) outs(%init : tensor<1x3x3x2xf32>) -> tensor<1x3x3x2xf32>
  %qo = quant.qcast %c : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!out>
  %y = quant.dcast %qo : tensor<1x3x3x2x!out> to tensor<1x3x3x2xf32>
  return %y : tensor<1x3x3x2xf32>
}

// -----

// A depthwise convolution as tosa-to-linalg emits it (HWCM filter with
// M = 1, collapse, bias add): quanta.qmatmul's depthwise form, K = the 9
// taps, each column reading its own channel through the window, with the
// column offsets and per-channel requantization of any GEMM. By hand:
// filter q = 1.0 / 0.1 = 10 and 0.4 / 0.2 = 2; bias_q = 1.0 / (0.5 * 0.1)
// = 20 and -0.5 / (0.5 * 0.2) = -5; column offsets bias_q - za * colsum =
// 20 - 2 * 90 = -160 and -5 - 2 * 18 = -41; multipliers 0.05 and 0.1 as
// 0.8 * 2^-4 and 0.8 * 2^-3.
!in = !quant.uniform<u8:f32, 0.5:2>
!w = !quant.uniform<i8:f32:2, {0.1, 0.2}>
!out = !quant.uniform<u8:f32, 1.0:5>
// CHECK-LABEL: func.func @depthwise
// CHECK: %[[R:.*]] = quanta.qmatmul %{{.*}} {column_offsets = array<i32: -160, -41>, depthwise, multipliers = array<i32: 1717986944, 1717986944>, output_max = 255 : i32, output_min = 0 : i32, shifts = array<i32: -4, -3>, weight_zero_points = array<i32: 0>, weights = dense<{{\[}}[10, 2], [10, 2], [10, 2], [10, 2], [10, 2], [10, 2], [10, 2], [10, 2], [10, 2]]> : tensor<9x2xi8>, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<1x3x3x2x!quant.uniform<u8:f32, 5.000000e-01:2>> -> tensor<1x2x!quant.uniform<u8:f32, 1.000000e+00:5>>
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [1, 1, 1, 2] : tensor<1x2xi8> into tensor<1x1x1x2xi8>
// CHECK-NOT: linalg.depthwise_conv_2d
// CHECK: return
func.func @depthwise(%x: tensor<1x3x3x2xf32>) -> tensor<1x1x1x2xf32> {
  %q = quant.qcast %x : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!in>
  %a = quant.dcast %q : tensor<1x3x3x2x!in> to tensor<1x3x3x2xf32>
  %cst = arith.constant dense<[[[[1.0], [0.4]], [[1.0], [0.4]], [[1.0], [0.4]]], [[[1.0], [0.4]], [[1.0], [0.4]], [[1.0], [0.4]]], [[[1.0], [0.4]], [[1.0], [0.4]], [[1.0], [0.4]]]]> : tensor<3x3x2x1xf32>
  %wq = quant.qcast %cst : tensor<3x3x2x1xf32> to tensor<3x3x2x1x!w>
  %w = quant.dcast %wq : tensor<3x3x2x1x!w> to tensor<3x3x2x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x1x2x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x2x1xf32>) -> tensor<1x1x1x2x1xf32>
  %c = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x3x3x2xf32>, tensor<3x3x2x1xf32>) outs(%init : tensor<1x1x1x2x1xf32>) -> tensor<1x1x1x2x1xf32>
  %collapsed = tensor.collapse_shape %c [[0], [1], [2], [3, 4]] : tensor<1x1x1x2x1xf32> into tensor<1x1x1x2xf32>
  %bias = arith.constant dense<[1.0, -0.5]> : tensor<2xf32>
  %e2 = tensor.empty() : tensor<1x1x1x2xf32>
  %biased = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%collapsed, %bias : tensor<1x1x1x2xf32>, tensor<2xf32>) outs(%e2 : tensor<1x1x1x2xf32>) {
  ^bb0(%in: f32, %b: f32, %o: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<1x1x1x2xf32>
  %qo = quant.qcast %biased : tensor<1x1x1x2xf32> to tensor<1x1x1x2x!out>
  %y = quant.dcast %qo : tensor<1x1x1x2x!out> to tensor<1x1x1x2xf32>
  return %y : tensor<1x1x1x2xf32>
}

// -----

// A depth multiplier of 2 spreads the output channels over the filter's
// C and M dimensions: per-channel scales along C alone do not fit.
!in = !quant.uniform<u8:f32, 0.5:0>
!w = !quant.uniform<i8:f32:2, {0.1, 0.2}>
!out = !quant.uniform<u8:f32, 1.0:0>
func.func @depthwise_multiplier_per_channel(%x: tensor<1x3x3x2xf32>) -> tensor<1x1x1x2x2xf32> {
  %q = quant.qcast %x : tensor<1x3x3x2xf32> to tensor<1x3x3x2x!in>
  %a = quant.dcast %q : tensor<1x3x3x2x!in> to tensor<1x3x3x2xf32>
  %cst = arith.constant dense<1.0> : tensor<3x3x2x2xf32>
  %wq = quant.qcast %cst : tensor<3x3x2x2xf32> to tensor<3x3x2x2x!w>
  %w = quant.dcast %wq : tensor<3x3x2x2x!w> to tensor<3x3x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x1x1x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x2x2xf32>) -> tensor<1x1x1x2x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: per-channel weights of a depthwise convolution with a depth multiplier above 1 (output channels on C and M) are not supported: quantize them per tensor}}
  %c = linalg.depthwise_conv_2d_nhwc_hwcm {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%a, %w : tensor<1x3x3x2xf32>, tensor<3x3x2x2xf32>) outs(%init : tensor<1x1x1x2x2xf32>) -> tensor<1x1x1x2x2xf32>
  %qo = quant.qcast %c : tensor<1x1x1x2x2xf32> to tensor<1x1x1x2x2x!out>
  %y = quant.dcast %qo : tensor<1x1x1x2x2x!out> to tensor<1x1x1x2x2xf32>
  return %y : tensor<1x1x1x2x2xf32>
}

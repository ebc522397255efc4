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
  // expected-remark @below {{stays float between dequantize and quantize: quanta-quantize has no integer form for 'linalg.generic' yet}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%a : tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%in: f32, %o: f32):
    %0 = math.exp %in : f32
    linalg.yield %0 : f32
  } -> tensor<4xf32>
  %qo = quant.qcast %r : tensor<4xf32> to tensor<4x!in>
  %y = quant.dcast %qo : tensor<4x!in> to tensor<4xf32>
  return %y : tensor<4xf32>
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

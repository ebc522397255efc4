// RUN: quant-opt %s --quanta-quantize --canonicalize -split-input-file -verify-diagnostics | FileCheck %s

// add: QNNPACK's constants from the numeric library. Ratios 0.5 and 0.25
// give the shift 21 - ilogb(0.5) = 22 and multipliers 0.5 * 2^22 and
// 0.25 * 2^22.
!a = !quant.uniform<u8:f32, 0.5:10>
!b = !quant.uniform<u8:f32, 0.25:20>
!o = !quant.uniform<u8:f32, 1.0:30>
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @add
// CHECK-DAG: %[[MA:.*]] = arith.constant 2097152 : i32
// CHECK-DAG: %[[MB:.*]] = arith.constant 1048576 : i32
// CHECK-DAG: %[[SHIFT:.*]] = arith.constant 22 : i32
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %{{.*}} : tensor<8xi8>, tensor<8xi8>) outs(%{{.*}} : tensor<8xi8>)
// CHECK: arith.extui
// CHECK: arith.muli %{{.*}}, %[[MA]]
// CHECK: arith.muli %{{.*}}, %[[MB]]
// CHECK: arith.shrsi %{{.*}}, %[[SHIFT]]
// CHECK-NOT: arith.addf
func.func @add(%x: tensor<8x!a>, %y: tensor<8x!b>) -> tensor<8x!o> {
  %xd = quant.dcast %x : tensor<8x!a> to tensor<8xf32>
  %yd = quant.dcast %y : tensor<8x!b> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%xd, %yd : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!o>
  return %r : tensor<8x!o>
}

// -----

// relu on s8: a table indexed by the storage value + 128.
!s = !quant.uniform<i8:f32, 0.1:-5>
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @relu_table
// CHECK: %[[TABLE:.*]] = arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<256xi8>
// CHECK: linalg.generic
// CHECK: %[[W:.*]] = arith.extsi %{{.*}} : i8 to i32
// CHECK: %[[I:.*]] = arith.addi %[[W]], %c128_i32
// CHECK: %[[P:.*]] = arith.index_cast %[[I]]
// CHECK: tensor.extract %[[TABLE]][%[[P]]] : tensor<256xi8>
func.func @relu_table(%x: tensor<8x!s>) -> tensor<8x!s> {
  %xd = quant.dcast %x : tensor<8x!s> to tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%xd : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.maximumf %p, %zero : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!s>
  return %r : tensor<8x!s>
}

// -----

// Attention's scaling, x / 8 with the 8 a 0-d constant tensor, and 1 - x
// with the constant first: tables over the one activation (x = q / 2, so
// x / 8 in steps of 1/8 is q / 2 rounded half to even: 0 0 1 2 2 2 3 4).
!u = !quant.uniform<u8:f32, 0.5>
!e = !quant.uniform<u8:f32, 0.125>
!n = !quant.uniform<i8:f32, 0.5>
#id = affine_map<(d0) -> (d0)>
#scalar = affine_map<(d0) -> ()>
// CHECK-LABEL: func.func @scaled_table
// CHECK: %[[TABLE:.*]] = arith.constant dense<"0x0000010202020304{{[0-9A-F]+}}"> : tensor<256xi8>
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #{{.*}}], iterator_types = ["parallel"]} ins(%{{.*}} : tensor<8xi8>)
// CHECK: tensor.extract %[[TABLE]]
// CHECK-NOT: arith.divf
func.func @scaled_table(%x: tensor<8x!u>) -> tensor<8x!e> {
  %xd = quant.dcast %x : tensor<8x!u> to tensor<8xf32>
  %eight = arith.constant dense<8.0> : tensor<f32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #scalar, #id], iterator_types = ["parallel"]} ins(%xd, %eight : tensor<8xf32>, tensor<f32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %c: f32, %o: f32):
    %r = arith.divf %p, %c : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!e>
  return %r : tensor<8x!e>
}
// CHECK-LABEL: func.func @constant_first
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<8xi8>)
// CHECK-NOT: arith.subf
func.func @constant_first(%x: tensor<8x!n>) -> tensor<8x!n> {
  %xd = quant.dcast %x : tensor<8x!n> to tensor<8xf32>
  %one = arith.constant dense<1.0> : tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%one, %xd : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%c: f32, %p: f32, %o: f32):
    %r = arith.subf %c, %p : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!n>
  return %r : tensor<8x!n>
}

// -----

// A constant that is not one value per element is not a table's scalar.
!u = !quant.uniform<u8:f32, 0.5>
#id = affine_map<(d0) -> (d0)>
func.func @varying_constant(%x: tensor<4x!u>) -> tensor<4x!u> {
  %xd = quant.dcast %x : tensor<4x!u> to tensor<4xf32>
  %c = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %e = tensor.empty() : tensor<4xf32>
  // expected-remark @below {{stays float between dequantize and quantize: an operand is not dequantized from an 8-bit per-tensor type}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%xd, %c : tensor<4xf32>, tensor<4xf32>) outs(%e : tensor<4xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %r = quant.qcast %s : tensor<4xf32> to tensor<4x!u>
  return %r : tensor<4x!u>
}

// -----

// Padding with 0.0 pads the storage with the zero point.
!a = !quant.uniform<u8:f32, 0.5:3>
// CHECK-LABEL: func.func @pad
// CHECK: %[[ZP:.*]] = arith.constant 3 : i8
// CHECK: tensor.pad %{{.*}} low[1] high[2]
// CHECK: tensor.yield %[[ZP]] : i8
// CHECK: } : tensor<4xi8> to tensor<7xi8>
func.func @pad(%x: tensor<4x!a>) -> tensor<7x!a> {
  %xd = quant.dcast %x : tensor<4x!a> to tensor<4xf32>
  %zero = arith.constant 0.0 : f32
  %p = tensor.pad %xd low[1] high[2] {
  ^bb0(%i: index):
    tensor.yield %zero : f32
  } : tensor<4xf32> to tensor<7xf32>
  %r = quant.qcast %p : tensor<7xf32> to tensor<7x!a>
  return %r : tensor<7x!a>
}

// -----

!a = !quant.uniform<u8:f32, 0.5:10>
!s = !quant.uniform<i8:f32, 0.25:0>
#id = affine_map<(d0) -> (d0)>
func.func @mixed_signedness(%x: tensor<8x!a>, %y: tensor<8x!s>) -> tensor<8x!a> {
  %xd = quant.dcast %x : tensor<8x!a> to tensor<8xf32>
  %yd = quant.dcast %y : tensor<8x!s> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the operands and the result mix signed and unsigned types}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%xd, %yd : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.mulf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!a>
  return %r : tensor<8x!a>
}

// -----

!a = !quant.uniform<u8:f32, 0.5:10>
!b = !quant.uniform<u8:f32, 0.25:10>
func.func @requantizing_reshape(%x: tensor<2x4x!a>) -> tensor<8x!b> {
  %xd = quant.dcast %x : tensor<2x4x!a> to tensor<2x4xf32>
  // expected-remark @below {{stays float between dequantize and quantize: an operand is not dequantized from the result's quantized type (only concatenation requantizes its inputs)}}
  %c = tensor.collapse_shape %xd [[0, 1]] : tensor<2x4xf32> into tensor<8xf32>
  %r = quant.qcast %c : tensor<8xf32> to tensor<8x!b>
  return %r : tensor<8x!b>
}

// -----

!a = !quant.uniform<u8:f32, 0.5:10>
!b = !quant.uniform<u8:f32, 0.25:10>
func.func @requantizing_pool(%x: tensor<1x4x4x1x!a>) -> tensor<1x2x2x1x!b> {
  %xd = quant.dcast %x : tensor<1x4x4x1x!a> to tensor<1x4x4x1xf32>
  %lowest = arith.constant -3.40282347E+38 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  // expected-remark @below {{stays float between dequantize and quantize: max pooling needs the result's quantized type as input and a constant initial value}}
  %p = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%xd, %w : tensor<1x4x4x1xf32>, tensor<2x2xf32>) outs(%init : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %r = quant.qcast %p : tensor<1x2x2x1xf32> to tensor<1x2x2x1x!b>
  return %r : tensor<1x2x2x1x!b>
}

// -----

// log of the negative inputs is NaN: no table.
!s = !quant.uniform<i8:f32, 0.1:0>
#id = affine_map<(d0) -> (d0)>
func.func @nan_table(%x: tensor<8x!s>) -> tensor<8x!s> {
  %xd = quant.dcast %x : tensor<8x!s> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: its body gives NaN for the input -12.8}}
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%xd : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.log %p : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!s>
  return %r : tensor<8x!s>
}

// -----

// The shape operand of tensor.reshape is not a quantized value.
!a = !quant.uniform<u8:f32, 0.5:3>
// CHECK-LABEL: func.func @reshape
// CHECK: {{tensor.reshape|tensor.collapse_shape}} {{.*}}tensor<8xi8>
// CHECK-NOT: quant.dcast
func.func @reshape(%x: tensor<2x4x!a>) -> tensor<8x!a> {
  %xd = quant.dcast %x : tensor<2x4x!a> to tensor<2x4xf32>
  %shape = arith.constant dense<8> : tensor<1xindex>
  %r = tensor.reshape %xd(%shape) : (tensor<2x4xf32>, tensor<1xindex>) -> tensor<8xf32>
  %q = quant.qcast %r : tensor<8xf32> to tensor<8x!a>
  return %q : tensor<8x!a>
}

// -----

// The clamp [200, 250] lies above u8<0:127> of scale 1.
!a = !quant.uniform<u8:f32, 1.0>
!o = !quant.uniform<u8<0:127>:f32, 1.0>
#id = affine_map<(d0) -> (d0)>
// CHECK-LABEL: func.func @empty_output_range
// CHECK: arith.addf
func.func @empty_output_range(%x: tensor<8x!a>, %y: tensor<8x!a>) -> tensor<8x!o> {
  %xd = quant.dcast %x : tensor<8x!a> to tensor<8xf32>
  %yd = quant.dcast %y : tensor<8x!a> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // The remark explains the chain at its last op; the add itself only
  // reads dequantized values.
  // expected-remark @below {{stays float between dequantize and quantize: quanta-quantize has no integer form for 'linalg.generic' yet}}
  %s = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel"]} ins(%xd, %yd : tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %r = arith.addf %p, %q : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  %lo = arith.constant 200.0 : f32
  %hi = arith.constant 250.0 : f32
  %e2 = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the fused activation leaves no value in the output's range}}
  %c = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%s : tensor<8xf32>) outs(%e2 : tensor<8xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %lo : f32
    %n = arith.minimumf %m, %hi : f32
    linalg.yield %n : f32
  } -> tensor<8xf32>
  %r = quant.qcast %c : tensor<8xf32> to tensor<8x!o>
  return %r : tensor<8x!o>
}

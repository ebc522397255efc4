// RUN: quant-opt %s --quanta-propagate-layout -split-input-file | FileCheck %s

// Two NCHW layers as quanta-quantize leaves them: the first layer's NHWC
// result transposed to NCHW, a max pool and the next layer's padding in
// NCHW, then the transpose back to NHWC. The first transpose moves down
// through the pool and the pad, meets the second and both disappear: the
// pool (its window map unchanged) and the pad run on NHWC.
#in = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2 * 2 + d4, d3 * 2 + d5)>
#win = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
#out = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2, d3)>
!q = !quant.uniform<u8:f32, 0.1:3>
// CHECK-LABEL: func.func @pool_between_layers
// CHECK-SAME: (%[[X:.*]]: tensor<1x4x4x8xi8>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.fill
// CHECK: %[[POOL:.*]] = linalg.generic {indexing_maps = [#[[IN:.*]], #[[WIN:.*]], #[[OUT:.*]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[X]], %{{.*}} : tensor<1x4x4x8xi8>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x2x2x8xi8>)
// CHECK: arith.maxui
// CHECK: %[[PAD:.*]] = tensor.pad %[[POOL]] low[0, 1, 1, 0] high[0, 1, 1, 0]
// CHECK: return %[[PAD]] : tensor<1x4x4x8xi8>
func.func @pool_between_layers(%x: tensor<1x4x4x8xi8>) -> tensor<1x4x4x8xi8> {
  %e0 = tensor.empty() : tensor<1x8x4x4xi8>
  %nchw = linalg.transpose ins(%x : tensor<1x4x4x8xi8>) outs(%e0 : tensor<1x8x4x4xi8>) permutation = [0, 3, 1, 2]
  %q = quant.scast %nchw : tensor<1x8x4x4xi8> to tensor<1x8x4x4x!q>
  %s = quant.scast %q : tensor<1x8x4x4x!q> to tensor<1x8x4x4xi8>
  %w = tensor.empty() : tensor<2x2xf32>
  %c0 = arith.constant 0 : i8
  %e1 = tensor.empty() : tensor<1x8x2x2xi8>
  %init = linalg.fill ins(%c0 : i8) outs(%e1 : tensor<1x8x2x2xi8>) -> tensor<1x8x2x2xi8>
  %pool = linalg.generic {indexing_maps = [#in, #win, #out], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%s, %w : tensor<1x8x4x4xi8>, tensor<2x2xf32>) outs(%init : tensor<1x8x2x2xi8>) {
  ^bb0(%a: i8, %b: f32, %o: i8):
    %m = arith.maxui %a, %o : i8
    linalg.yield %m : i8
  } -> tensor<1x8x2x2xi8>
  %p = tensor.pad %pool low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c0 : i8
  } : tensor<1x8x2x2xi8> to tensor<1x8x4x4xi8>
  %e2 = tensor.empty() : tensor<1x4x4x8xi8>
  %nhwc = linalg.transpose ins(%p : tensor<1x8x4x4xi8>) outs(%e2 : tensor<1x4x4x8xi8>) permutation = [0, 2, 3, 1]
  return %nhwc : tensor<1x4x4x8xi8>
}

// -----

// A transpose into NCHW moves below an elementwise op with a per-channel
// constant (indexed by the channel's iteration dim, it stays; the loops
// are renamed to run in NHWC order) and stops before a flatten, whose
// order depends on the layout.
#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#ch = affine_map<(d0, d1, d2, d3) -> (d1)>
// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1, d2, d3) -> (d3)>
// CHECK-LABEL: func.func @flatten_keeps_transpose
// CHECK: %[[B:.*]] = linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[ID]]]{{.*}} ins(%arg0, %{{.*}} : tensor<1x2x2x3xi32>, tensor<3xi32>) outs(%{{.*}} : tensor<1x2x2x3xi32>)
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[B]] : tensor<1x2x2x3xi32>) outs(%{{.*}} : tensor<1x3x2x2xi32>) permutation = [0, 3, 1, 2]
// CHECK: tensor.collapse_shape %[[T]]
func.func @flatten_keeps_transpose(%x: tensor<1x2x2x3xi32>) -> tensor<1x12xi32> {
  %e0 = tensor.empty() : tensor<1x3x2x2xi32>
  %nchw = linalg.transpose ins(%x : tensor<1x2x2x3xi32>) outs(%e0 : tensor<1x3x2x2xi32>) permutation = [0, 3, 1, 2]
  %bias = arith.constant dense<[1, 2, 3]> : tensor<3xi32>
  %e1 = tensor.empty() : tensor<1x3x2x2xi32>
  %b = linalg.generic {indexing_maps = [#id, #ch, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%nchw, %bias : tensor<1x3x2x2xi32>, tensor<3xi32>) outs(%e1 : tensor<1x3x2x2xi32>) {
  ^bb0(%a: i32, %c: i32, %o: i32):
    %s = arith.addi %a, %c : i32
    linalg.yield %s : i32
  } -> tensor<1x3x2x2xi32>
  %flat = tensor.collapse_shape %b [[0], [1, 2, 3]] : tensor<1x3x2x2xi32> into tensor<1x12xi32>
  return %flat : tensor<1x12xi32>
}

// -----

// A filled init tensor transposed is the same fill made in the other
// layout.
// CHECK-LABEL: func.func @transposed_fill
// CHECK: %[[E:.*]] = tensor.empty() : tensor<1x4x5x3xf32>
// CHECK: %[[F:.*]] = linalg.fill ins(%{{.*}} : f32) outs(%[[E]] : tensor<1x4x5x3xf32>)
// CHECK-NOT: linalg.transpose
// CHECK: return %[[F]]
func.func @transposed_fill() -> tensor<1x4x5x3xf32> {
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<1x3x4x5xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e0 : tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  %e1 = tensor.empty() : tensor<1x4x5x3xf32>
  %t = linalg.transpose ins(%f : tensor<1x3x4x5xf32>) outs(%e1 : tensor<1x4x5x3xf32>) permutation = [0, 2, 3, 1]
  return %t : tensor<1x4x5x3xf32>
}

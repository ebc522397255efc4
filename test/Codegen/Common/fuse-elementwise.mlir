// RUN: quant-opt %s --quanta-fuse-elementwise --split-input-file | FileCheck %s

// A chain of elementwise ops (ConvInteger's cast, the scale's Mul, the
// bias Add, a Clip) becomes one linalg.generic: one loop over memory, each
// element's ops in the same order.
// CHECK-LABEL: func.func @chain
// CHECK: linalg.generic
// CHECK: arith.sitofp
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: arith.minimumf
// CHECK-NOT: linalg.generic
#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d1)>
func.func @chain(%x: tensor<4x8xi32>, %bias: tensor<8xf32>) -> tensor<4x8xf32> {
  %scale = arith.constant 0.5 : f32
  %six = arith.constant 6.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<4x8xi32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: i32, %out: f32):
    %v = arith.sitofp %in : i32 to f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%f : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %scale : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %b = linalg.generic {indexing_maps = [#map, #row, #map], iterator_types = ["parallel", "parallel"]} ins(%s, %bias : tensor<4x8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %c: f32, %out: f32):
    %v = arith.addf %in, %c : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  %c = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%b : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.minimumf %in, %six : f32
    linalg.yield %v : f32
  } -> tensor<4x8xf32>
  return %c : tensor<4x8xf32>
}

// -----

// A producer with a second use stays: fused, it would be computed twice.
// CHECK-LABEL: func.func @shared
// CHECK: %[[CAST:.*]] = linalg.generic
// CHECK: arith.sitofp
// CHECK: linalg.generic {{.*}} ins(%[[CAST]] :
// CHECK: arith.mulf
// CHECK: return %[[CAST]],
#map = affine_map<(d0) -> (d0)>
func.func @shared(%x: tensor<8xi32>) -> (tensor<8xf32>, tensor<8xf32>) {
  %scale = arith.constant 0.5 : f32
  %e = tensor.empty() : tensor<8xf32>
  %f = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%x : tensor<8xi32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: i32, %out: f32):
    %v = arith.sitofp %in : i32 to f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel"]} ins(%f : tensor<8xf32>) outs(%e : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %v = arith.mulf %in, %scale : f32
    linalg.yield %v : f32
  } -> tensor<8xf32>
  return %f, %s : tensor<8xf32>, tensor<8xf32>
}

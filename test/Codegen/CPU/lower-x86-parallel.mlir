// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s

// How the threads share a tiled GEMM: one loop over as many chunks as the
// module has threads (quanta.threads), marked quanta.parallel with the
// GEMM's dot steps (its bounds come from tables, which quanta-parallelize
// cannot count), around every tile of the GEMM: one parallel region.
//
// Few rows and many column groups (m < n: a deep layer at batch 1, a fully
// connected layer): each chunk takes its run of whole groups of the widest
// tile (4 strips of 16 columns: 8 groups of 64 in 520 columns, 4 each),
// every row of them; the 8 columns past them go to the last chunk only.

// CHECK-LABEL: func.func @few_rows(
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c2 step %c1 iter_args
// CHECK: %[[BEGINS:.*]] = arith.constant dense<[0, 16]> : tensor<2xindex>
// CHECK: %[[BEGIN:.*]] = tensor.extract %[[BEGINS]][%[[CHUNK]]]
// CHECK: %[[ENDS:.*]] = arith.constant dense<[16, 32]> : tensor<2xindex>
// CHECK: %[[END:.*]] = tensor.extract %[[ENDS]][%[[CHUNK]]]
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %{{.*}}
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %c4
// CHECK: } {quanta.dot_step = "fma"}
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[CHUNK]], %c1
// CHECK: scf.if %[[LAST]]
// CHECK: } {quanta.dot_step = "fma"}
// CHECK-NOT: quanta.parallel
// CHECK: } {quanta.parallel = 2112 : i64}
module attributes {quanta.threads = 2 : i64} {
func.func @few_rows(%a: tensor<4x16xf32>) -> tensor<4x520xf32> {
  %w = arith.constant dense<0.5> : tensor<16x520xf32>
  %e = tensor.empty() : tensor<4x520xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x520xf32>) -> tensor<4x520xf32>
  %r = linalg.matmul ins(%a, %w : tensor<4x16xf32>, tensor<16x520xf32>) outs(%f : tensor<4x520xf32>) -> tensor<4x520xf32>
  return %r : tensor<4x520xf32>
}
}

// -----

// As many rows as columns: each chunk takes its run of whole 8-row tiles
// (rows 0..32 and 32..64) in every column group; no half or one-row tiles
// are left.

// CHECK-LABEL: func.func @many_rows(
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c2 step %c1 iter_args
// CHECK: %[[BEGINS:.*]] = arith.constant dense<[0, 32]> : tensor<2xindex>
// CHECK: %[[BEGIN:.*]] = tensor.extract %[[BEGINS]][%[[CHUNK]]]
// CHECK: %[[ENDS:.*]] = arith.constant dense<[32, 64]> : tensor<2xindex>
// CHECK: %[[END:.*]] = tensor.extract %[[ENDS]][%[[CHUNK]]]
// CHECK: scf.for %{{.*}} = %c0{{.*}} to %c4 step %c2
// CHECK: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c8
// CHECK: } {quanta.dot_step = "fma"}
// CHECK-NOT: scf.for
// CHECK: } {quanta.parallel = 4096 : i64}
module attributes {quanta.threads = 2 : i64} {
func.func @many_rows(%a: tensor<64x16xf32>) -> tensor<64x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x16xf32>, tensor<16x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}
}

// -----

// Rows left over go to the last chunk: 67 = 8 x 8 + 3 rows, which a half
// tile of 4 takes (its fourth row repeating the last); the chunks' whole
// tiles end at 32 and 64, their half tiles at 32 (none) and 68. No
// one-row tiles are left in either chunk (their ranges are empty in both),
// so none are emitted.

// CHECK-LABEL: func.func @rows_left(
// CHECK: scf.for %[[CHUNK:.*]] = %c0 to %c2 step %c1 iter_args
// CHECK: arith.constant dense<[0, 32]> : tensor<2xindex>
// CHECK: %[[WHOLE_ENDS:.*]] = arith.constant dense<[32, 64]> : tensor<2xindex>
// CHECK: %[[WHOLE_END:.*]] = tensor.extract %[[WHOLE_ENDS]][%[[CHUNK]]]
// CHECK: %[[HALF_ENDS:.*]] = arith.constant dense<[32, 68]> : tensor<2xindex>
// CHECK: %[[HALF_END:.*]] = tensor.extract %[[HALF_ENDS]][%[[CHUNK]]]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[WHOLE_END]] step %c8
// CHECK: scf.for %{{.*}} = %[[WHOLE_END]] to %[[HALF_END]] step %c4
// CHECK-NOT: step %c1 iter_args
// CHECK: } {quanta.parallel = 4288 : i64}
module attributes {quanta.threads = 2 : i64} {
func.func @rows_left(%a: tensor<67x16xf32>) -> tensor<67x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %e = tensor.empty() : tensor<67x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<67x64xf32>) -> tensor<67x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<67x16xf32>, tensor<16x64xf32>) outs(%f : tensor<67x64xf32>) -> tensor<67x64xf32>
  return %r : tensor<67x64xf32>
}
}

// -----

// One thread (no quanta.threads): no chunk loop, nothing marked.

// CHECK-LABEL: func.func @one_thread(
// CHECK-NOT: quanta.parallel
// CHECK: return
func.func @one_thread(%a: tensor<64x16xf32>) -> tensor<64x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x16xf32>, tensor<16x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

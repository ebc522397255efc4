// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s

// Which loop of a tiled GEMM the threads share. Few rows and many column
// groups (m < n: a deep layer at batch 1, a fully connected layer): the
// loop over column groups, so that each thread reads half of the weights,
// in one parallel region; the row loop inside it stays sequential.

// CHECK-LABEL: func.func @few_rows(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c32 step %c2
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %c4
// CHECK: scf.yield %{{.*}} : tensor<4x512xf32>
// CHECK-NEXT: }{{$}}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {quanta.dot_step = "fma", quanta.parallel}
func.func @few_rows(%a: tensor<4x16xf32>) -> tensor<4x512xf32> {
  %w = arith.constant dense<0.5> : tensor<16x512xf32>
  %e = tensor.empty() : tensor<4x512xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<4x512xf32>) -> tensor<4x512xf32>
  %r = linalg.matmul ins(%a, %w : tensor<4x16xf32>, tensor<16x512xf32>) outs(%f : tensor<4x512xf32>) -> tensor<4x512xf32>
  return %r : tensor<4x512xf32>
}

// -----

// As many rows as columns: the row loop, inside each column group.

// CHECK-LABEL: func.func @many_rows(
// CHECK: scf.for %{{.*}} = %{{.*}} to %c4 step %c2
// CHECK: scf.for %{{.*}} = %{{.*}} to %c64 step %c8
// CHECK: scf.yield %{{.*}} : tensor<64x64xf32>
// CHECK-NEXT: } {quanta.parallel}
// CHECK-NEXT: scf.yield
// CHECK-NEXT: } {quanta.dot_step = "fma"}
func.func @many_rows(%a: tensor<64x16xf32>) -> tensor<64x64xf32> {
  %w = arith.constant dense<0.5> : tensor<16x64xf32>
  %e = tensor.empty() : tensor<64x64xf32>
  %z = arith.constant 0.0 : f32
  %f = linalg.fill ins(%z : f32) outs(%e : tensor<64x64xf32>) -> tensor<64x64xf32>
  %r = linalg.matmul ins(%a, %w : tensor<64x16xf32>, tensor<16x64xf32>) outs(%f : tensor<64x64xf32>) -> tensor<64x64xf32>
  return %r : tensor<64x64xf32>
}

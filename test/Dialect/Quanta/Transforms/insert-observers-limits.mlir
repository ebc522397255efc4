// A constant weight no machine could hold as float32 (a splat is a few
// bytes of IR) is an error at the weight, not an abort of the process.
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' 2>&1 | FileCheck %s
// CHECK: insert-observers-limits.mlir:9:8: error: observing this constant at compile time needs 4000000000000 bytes, more than the {{[0-9]+}} bytes of memory Quanta may use

func.func @huge_splat(%x: tensor<1x1000000xf32>) -> tensor<1x1000000xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x1000000xf32>
  %w = arith.constant dense<0.5> : tensor<1000000x1000000xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1x1000000xf32>) -> tensor<1x1000000xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x1000000xf32>, tensor<1000000x1000000xf32>) outs(%fill : tensor<1x1000000xf32>) -> tensor<1x1000000xf32>
  return %y : tensor<1x1000000xf32>
}

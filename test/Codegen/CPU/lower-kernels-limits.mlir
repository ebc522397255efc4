// Weights no machine could pack (a splat is a few bytes of IR) are an error
// at the op, not an abort of the process; so is a constant the LLVM
// lowering would have to write out.
// RUN: not quant-opt %s --quanta-lower-x86 2>&1 | FileCheck %s --check-prefix=PACK
// PACK: lower-kernels-limits.mlir:14:8: error: 'linalg.matmul' op has a constant operand #1 of 1000000000000 elements; the kernels pack at most 2^32 - 1
// RUN: not quant-compile %s -o %t.o 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: lower-kernels-limits.mlir:12:8: error: quant-compile: compiling this constant needs 4000000000000 bytes, more than the {{[0-9]+}} bytes of memory Quanta may use

func.func @huge_weights(%x: tensor<1x1000000xf32>) -> tensor<1x1000000xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x1000000xf32>
  %w = arith.constant dense<0.5> : tensor<1000000x1000000xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1x1000000xf32>) -> tensor<1x1000000xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x1000000xf32>, tensor<1000000x1000000xf32>) outs(%fill : tensor<1x1000000xf32>) -> tensor<1x1000000xf32>
  return %y : tensor<1x1000000xf32>
}

// QUANTA_MEMORY_LIMIT_MB caps the memory Quanta treats as available (a
// shared server, a fuzzer's allocation limit): a 4 MB weight observed at
// compile time passes under the machine's memory and 8 MB, and is an error
// under 2 MB. A value that is not a positive number of megabytes, or above
// the machine's memory, leaves the machine's limit.
// RUN: quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' -o /dev/null
// RUN: env QUANTA_MEMORY_LIMIT_MB=8 quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' -o /dev/null
// RUN: env QUANTA_MEMORY_LIMIT_MB=lots quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' -o /dev/null
// RUN: env QUANTA_MEMORY_LIMIT_MB=0 quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' -o /dev/null
// RUN: not env QUANTA_MEMORY_LIMIT_MB=2 quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers)' 2>&1 | FileCheck %s
// CHECK: memory-limit.mlir:14:8: error: observing this constant at compile time needs 4000000 bytes, more than the 2097152 bytes of memory Quanta may use

func.func @weight(%x: tensor<1x1000xf32>) -> tensor<1x1000xf32> {
  %w = arith.constant dense<0.5> : tensor<1000x1000xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<1x1000xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  %y = linalg.matmul ins(%x, %w : tensor<1x1000xf32>, tensor<1000x1000xf32>) outs(%fill : tensor<1x1000xf32>) -> tensor<1x1000xf32>
  return %y : tensor<1x1000xf32>
}

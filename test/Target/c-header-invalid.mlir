// RUN: not quant-compile %s -o %t.o --header=%t.h 2>&1 | FileCheck %s
// RUN: not quant-compile %S/c-header.mlir --target-triple=nonsense-arch-none -o %t.o 2>&1 | FileCheck %s --check-prefix=TRIPLE
// RUN: not quant-compile %S/c-header.mlir -o %t.missing/dir/x.o 2>&1 | FileCheck %s --check-prefix=OUTPUT
// RUN: not quant-compile %S/c-header.mlir -o %t.o --header=%t.missing/dir/x.h 2>&1 | FileCheck %s --check-prefix=HEADER

// What a C interface cannot take, each reported at its function.

// CHECK: error: 'func.func' op argument 0 has type 'tensor<?xf32>'; a C interface takes static tensors
func.func @dynamic(%x: tensor<?xf32>) -> tensor<?xf32> {
  return %x : tensor<?xf32>
}

// CHECK: error: 'func.func' op result 0 has type 'tensor<4xbf16>'
func.func @bf16(%x: tensor<4xbf16>) -> tensor<4xbf16> {
  return %x : tensor<4xbf16>
}

// CHECK: error: 'func.func' op name 'not.c' is not a C identifier
func.func @"not.c"(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
}

// TRIPLE: error: unknown target triple 'nonsense-arch-none'
// OUTPUT: error: cannot write the object file
// HEADER: error: cannot write the header

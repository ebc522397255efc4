// RUN: quant-opt %s --quanta-apply-noalias --split-input-file -verify-diagnostics | FileCheck %s

// The positions quanta-outline-loops listed become LLVM noalias arguments
// and the list goes.

// CHECK-LABEL: llvm.func @loop(
// CHECK-SAME: %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64, %{{.*}}: !llvm.ptr, %{{.*}}: !llvm.ptr {llvm.noalias}, %{{.*}}: i64)
// CHECK-NOT: quanta.noalias_arguments
llvm.func @loop(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64, %b0: !llvm.ptr, %b1: !llvm.ptr, %b2: i64) attributes {quanta.noalias_arguments = array<i64: 1, 4>} {
  llvm.return
}

// -----

// A listed position that is not a pointer (the memrefs were not expanded as
// quanta-outline-loops counted) is an error, not a wrong attribute.

// expected-error @below {{quanta-apply-noalias: argument 2 of loop is not a pointer}}
llvm.func @loop(%a0: !llvm.ptr, %a1: !llvm.ptr, %a2: i64) attributes {quanta.noalias_arguments = array<i64: 2>} {
  llvm.return
}

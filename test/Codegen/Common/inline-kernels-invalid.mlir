// RUN: quant-opt %s --quanta-inline-kernels -verify-diagnostics

// A kernel is one block (quanta-inline-kernels runs before control flow is
// lowered); one with more, or none, is not inlined in silence.

// expected-error @below {{quanta-inline-kernels: kernel @branches has no body or more than one block}}
func.func private @branches(%x: memref<4xf32>) attributes {quanta.kernel} {
  cf.br ^next
^next:
  return
}

func.func @main(%x: memref<4xf32>) {
  call @branches(%x) : (memref<4xf32>) -> ()
  return
}

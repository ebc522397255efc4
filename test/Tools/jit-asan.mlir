// REQUIRES: sanitized
// In a sanitizer build the JIT's code is instrumented too (Jit.cpp): a
// generated read one element past a heap buffer (here an argument; in
// calibration every batch) is reported by AddressSanitizer where an
// uninstrumented build would read a neighbour's bytes silently. Constants
// and the arena are globals aligned to 64 bytes, which ASan does not give
// redzones (its rule: no alignment above the 32-byte minimum redzone); the
// guard-page tests cover the arguments and results of every kernel.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.arange(5, dtype=np.float32))"
// RUN: not quant-run %s --input=%t.x.npy --output=%t.o.npy 2>&1 | FileCheck %s
// CHECK: AddressSanitizer: heap-buffer-overflow
// CHECK: READ of size 4
// CHECK: 0 bytes after 20-byte region

func.func @past_end(%x: tensor<5xf32>) -> tensor<1xf32> {
  %c5 = arith.constant 5 : index
  %v = tensor.extract %x[%c5] : tensor<5xf32>
  %r = tensor.from_elements %v : tensor<1xf32>
  return %r : tensor<1xf32>
}

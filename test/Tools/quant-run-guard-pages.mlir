// REQUIRES: avx2
// The execution tests run every kernel with --guard-pages=after: each
// argument and result ends where a page the process may not touch starts,
// so a kernel that reads or writes one element past a buffer (a tile
// remainder handled as a full tile) faults instead of passing on a
// neighbour's bytes. Here the other side, buffers starting right after such
// a page, at sizes that are not multiples of the tiles:
// RUN: for isa in generic avx2; do for e in odd_u8 k1_u8 wide_u8 n48_s8; do \
// RUN:   quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=before --entry=$e --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" --input=%S/Inputs/qmatmul_${e}_input.npy --output=%t.$isa.$e.npy && \
// RUN:   cmp %t.$isa.$e.npy %S/Inputs/qmatmul_${e}_expected.npy || exit 1; done; done
// RUN: for e in odd wide k1 rows; do \
// RUN:   quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=before --entry=$e --pass-pipeline="builtin.module(quanta-lower-x86{isa=avx2})" --input=%S/Inputs/float_matmul_${e}_input.npy --output=%t.float.$e.npy && \
// RUN:   cmp %t.float.$e.npy %S/Inputs/float_matmul_${e}_expected.npy || exit 1; done
// RUN: for e in k3_small_u8 k3_s2_s8 k5_d2_u8; do \
// RUN:   quant-run %S/Inputs/qdepthwise_exec.mlir --guard-pages=before --entry=$e --pass-pipeline="builtin.module(quanta-lower-x86{isa=avx2})" --input=%S/Inputs/qdepthwise_${e}_input.npy --output=%t.dw.$e.npy && \
// RUN:   cmp %t.dw.$e.npy %S/Inputs/qdepthwise_${e}_expected.npy || exit 1; done

// The guards work: a read one element past the end, or one before the
// start, faults (in a sanitizer build too: its handler would turn the
// signal into an exit status).
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.arange(5, dtype=np.float32))"
// RUN: env ASAN_OPTIONS=handle_segv=0:allow_user_poisoning=0 not --crash quant-run %s --entry=past_end --input=%t.x.npy --guard-pages=after --output=%t.o.npy
// RUN: env ASAN_OPTIONS=handle_segv=0:allow_user_poisoning=0 not --crash quant-run %s --entry=before_start --input=%t.x.npy --guard-pages=before --output=%t.o.npy

// RUN: not quant-run %s --entry=past_end --input=%t.x.npy --guard-pages=sideways 2>&1 | FileCheck %s --check-prefix=BADVALUE
// RUN: not quant-run %s --entry=past_end --input=%t.x.npy --guard-pages=after --target-triple=aarch64-linux-gnu 2>&1 | FileCheck %s --check-prefix=EMULATED
// BADVALUE: for the --guard-pages option: Cannot find option named 'sideways'!
// EMULATED: error: --guard-pages guards the buffers of code run in this process, not under emulation

func.func @past_end(%x: tensor<5xf32>) -> tensor<1xf32> {
  %c5 = arith.constant 5 : index
  %v = tensor.extract %x[%c5] : tensor<5xf32>
  %r = tensor.from_elements %v : tensor<1xf32>
  return %r : tensor<1xf32>
}

func.func @before_start(%x: tensor<5xf32>) -> tensor<1xf32> {
  %c-1 = arith.constant -1 : index
  %v = tensor.extract %x[%c-1] : tensor<5xf32>
  %r = tensor.from_elements %v : tensor<1xf32>
  return %r : tensor<1xf32>
}

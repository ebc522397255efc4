// REQUIRES: avx2
// Execution of quanta.qbatch_matmul (the product of two quantized
// activations: attention's Q.K^T and softmax(.).V) lowered for AVX2 and the
// generic path on x86, and for the three AArch64 levels under qemu (as
// quant-run-neon-qmatmul.mlir): outputs byte-identical to NumPy's int64
// evaluation of the op's semantics (scripts/goldens/gen_qbatch_matmul_exec.py)
// for u8<0:127> operands (vpmaddubsw, exact on that range), full-range u8 and
// s8 rhs (vpmaddwd; the sign flip of a u8 rhs), zero points on both sides,
// an s8 output narrower than its storage, odd sizes and a 1x1x1 product.
//
// RUN: for isa in avx2 generic; do \
// RUN:   for entry in reduced_u8 full_u8 s8 mixed one; do \
// RUN:     quant-run %S/Inputs/qbatch_matmul_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/qbatch_matmul_${entry}_input.npz --output=%t.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.$isa.$entry.npy %S/Inputs/qbatch_matmul_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-5: avx2 {{[a-z0-9_]+}} identical
// X86-COUNT-5: generic {{[a-z0-9_]+}} identical
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for entry in reduced_u8 full_u8 s8 mixed one; do \
// RUN:     quant-run %S/Inputs/qbatch_matmul_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%S/Inputs/qbatch_matmul_${entry}_input.npz --output=%t.$step.$entry.npy || exit 1; \
// RUN:     cmp %t.$step.$entry.npy %S/Inputs/qbatch_matmul_${entry}_expected.npy && echo "$step $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-5: smull {{[a-z0-9_]+}} identical
// NEON-COUNT-5: sdot {{[a-z0-9_]+}} identical
// NEON-COUNT-5: smmla {{[a-z0-9_]+}} identical
//
// The kernel: every batch's rhs packed and its column offsets computed
// before the batch loop, which the threads share; vpmaddubsw where both
// operands are u8<0:127>, vpmaddwd otherwise.
// RUN: quant-opt %S/Inputs/qbatch_matmul_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=KERNEL
// KERNEL-LABEL: func.func @reduced_u8
// KERNEL: linalg.generic
// KERNEL: scf.for
// KERNEL: quanta.dot_step = "vpmaddubsw+vpmaddwd"
// KERNEL: } {quanta.parallel}
// KERNEL-LABEL: func.func @full_u8
// KERNEL: quanta.dot_step = "vpmaddwd"

// REQUIRES: avx2
// Execution of quanta-quantize's integer softmax lowered for AVX2, the
// generic x86 path and AArch64 (dotprod level, under qemu): outputs
// byte-identical to NumPy's evaluation of the documented algorithm
// (scripts/goldens/gen_softmax_exec.py, which also checks each expected
// output within one step of the quantized float softmax) for a reduce_range
// u8 input along the last dimension, an s8 input and output along
// dimension 0, a ViT row of 197 and a single value.
//
// RUN: for isa in avx2 generic; do \
// RUN:   for entry in attention signed_axis0 vit_row one; do \
// RUN:     quant-run %S/Inputs/softmax_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/softmax_${entry}_input.npy --output=%t.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.$isa.$entry.npy %S/Inputs/softmax_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-4: avx2 {{[a-z0-9_]+}} identical
// X86-COUNT-4: generic {{[a-z0-9_]+}} identical
//
// RUN: for entry in attention signed_axis0 vit_row one; do \
// RUN:   quant-run %S/Inputs/softmax_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=neoverse-n1 --qemu-cpu=neoverse-n1 \
// RUN:     --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-neon)' --input=%S/Inputs/softmax_${entry}_input.npy --output=%t.neon.$entry.npy || exit 1; \
// RUN:   cmp %t.neon.$entry.npy %S/Inputs/softmax_${entry}_expected.npy && echo "neon $entry identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-4: neon {{[a-z0-9_]+}} identical

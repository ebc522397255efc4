// REQUIRES: avx2
// Execution of quanta-quantize's integer softmax and layer norm lowered
// for AVX2, the generic x86 path and AArch64 (dotprod level, under qemu):
// outputs byte-identical to NumPy's evaluation of the documented algorithms
// (scripts/goldens/gen_normalization_exec.py, which also checks each
// expected output within one step of the quantized float op). Softmax: a
// reduce_range u8 input along the last dimension, an s8 input and output
// along dimension 0, a ViT row of 197 and a single value. Layer norm (as
// the ONNX importer translates it): BERT's rows of 768 with beta, s8 in and
// out without beta, a constant row.
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
// RUN: for isa in avx2 generic; do \
// RUN:   for entry in bert signed constant_row; do \
// RUN:     quant-run %S/Inputs/layer_norm_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/layer_norm_${entry}_input.npy --output=%t.ln.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.ln.$isa.$entry.npy %S/Inputs/layer_norm_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=LN-X86
// LN-X86-COUNT-3: avx2 {{[a-z0-9_]+}} identical
// LN-X86-COUNT-3: generic {{[a-z0-9_]+}} identical
//
// RUN: for entry in attention signed_axis0 vit_row one; do \
// RUN:   quant-run %S/Inputs/softmax_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=neoverse-n1 --qemu-cpu=neoverse-n1 \
// RUN:     --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-neon)' --input=%S/Inputs/softmax_${entry}_input.npy --output=%t.neon.$entry.npy || exit 1; \
// RUN:   cmp %t.neon.$entry.npy %S/Inputs/softmax_${entry}_expected.npy && echo "neon $entry identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-4: neon {{[a-z0-9_]+}} identical
//
// RUN: for entry in bert signed constant_row; do \
// RUN:   quant-run %S/Inputs/layer_norm_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=neoverse-n1 --qemu-cpu=neoverse-n1 \
// RUN:     --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-neon)' --input=%S/Inputs/layer_norm_${entry}_input.npy --output=%t.ln.neon.$entry.npy || exit 1; \
// RUN:   cmp %t.ln.neon.$entry.npy %S/Inputs/layer_norm_${entry}_expected.npy && echo "neon $entry identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=LN-NEON
// LN-NEON-COUNT-3: neon {{[a-z0-9_]+}} identical

// REQUIRES: avx2
// RUN: for isa in avx2 generic; do \
// RUN:   for entry in k3_pad1_u8 k3_s2_s8 k5_d2_u8 k3_valid_u8 k3_small_u8 k3_wide_shift_s8 k3_high_rounding_u8; do \
// RUN:     quant-run %S/Inputs/qdepthwise_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/qdepthwise_${entry}_input.npy --output=%t.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.$isa.$entry.npy %S/Inputs/qdepthwise_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
// RUN: quant-opt %S/Inputs/qdepthwise_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=IR

// Execution of quanta.qmatmul's depthwise form lowered by quanta-lower-x86
// for AVX2 (8 channels per vector) and for any CPU (generic), through
// quant-run's JIT: outputs byte-identical to NumPy's int64 evaluation of
// the op's semantics (scripts/goldens/gen_qdepthwise_exec.py). The cases
// cover channel counts that are not multiples of the vector (masked last
// block), border pixels read through the skipped padding (asymmetric, wider
// than a dilated 5x5 window, an image smaller than its window, a padding
// value other than the zero point), an unpadded image, stride 2, s8 and u8
// inputs at their range ends, weight zero points and every shift class of
// the requantization. quant-run-qdepthwise-avx512.mlir runs them with 16
// channels per vector, quant-run-neon-qmatmul.mlir on AArch64.
//
// CHECK-COUNT-7: avx2 {{[a-z0-9_]+}} identical
// CHECK-COUNT-7: generic {{[a-z0-9_]+}} identical

// The kernel reads the image inside its padding (the unpadded argument;
// the tensor.pad is left dead), one row of output pixels per iteration of
// a loop the threads may share.
// IR-LABEL: func.func @k3_pad1_u8
// IR: vector.transfer_read %arg0[
// IR: quanta.dot_step = "depthwise"
// IR-SAME: quanta.parallel

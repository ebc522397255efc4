// REQUIRES: avx512vnni
// RUN: for e in fhwc_3x3 hwcf_s2_dilated fhwc_1x1_c1 hwcf_5x5_s3 nchw_3x3_s2_dilated; do \
// RUN:   quant-run %S/Inputs/float_conv_exec.mlir --guard-pages=after --entry=$e --pass-pipeline="builtin.module(quanta-lower-x86{isa=avx512vnni})" --input=%S/Inputs/float_conv_${e}_input.npy --output=%t.$e.npy && \
// RUN:   cmp %t.$e.npy %S/Inputs/float_conv_${e}_expected.npy && echo "$e zmm equal" || exit 1; \
// RUN: done | FileCheck %s

// The convolutions of quant-run-float-conv.mlir on zmm (16-column strips,
// 8 x 2 tiles): byte-identical to NumPy's int64 evaluation.
// CHECK-COUNT-5: {{[a-z0-9_]+}} zmm equal

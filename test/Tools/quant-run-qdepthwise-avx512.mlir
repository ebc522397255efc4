// REQUIRES: avx512vnni
// RUN: for isa in avx512vnni; do \
// RUN:   for entry in k3_pad1_u8 k3_s2_s8 k5_d2_u8 k3_valid_u8 k3_small_u8 k3_wide_shift_s8 k3_high_rounding_u8; do \
// RUN:     quant-run %S/Inputs/qdepthwise_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/qdepthwise_${entry}_input.npy --output=%t.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.$isa.$entry.npy %S/Inputs/qdepthwise_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s

// The depthwise execution cases of quant-run-qdepthwise.mlir with 16
// channels per zmm vector: byte-identical to the same NumPy goldens.
//
// CHECK-COUNT-7: avx512vnni {{[a-z0-9_]+}} identical

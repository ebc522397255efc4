// REQUIRES: avx512vnni, avxvnni
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=odd_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_odd_u8_input.npy --output=%t.odd_u8.npy && cmp %t.odd_u8.npy %S/Inputs/qmatmul_odd_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=tiles_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_tiles_s8_input.npy --output=%t.tiles_s8.npy && cmp %t.tiles_s8.npy %S/Inputs/qmatmul_tiles_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=k1_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_k1_u8_input.npy --output=%t.k1_u8.npy && cmp %t.k1_u8.npy %S/Inputs/qmatmul_k1_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_wide_u8_input.npy --output=%t.wide_u8.npy && cmp %t.wide_u8.npy %S/Inputs/qmatmul_wide_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=odd_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_odd_u8_input.npy --output=%t.ymm.odd_u8.npy && cmp %t.ymm.odd_u8.npy %S/Inputs/qmatmul_odd_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=tiles_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_tiles_s8_input.npy --output=%t.ymm.tiles_s8.npy && cmp %t.ymm.tiles_s8.npy %S/Inputs/qmatmul_tiles_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=k1_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_k1_u8_input.npy --output=%t.ymm.k1_u8.npy && cmp %t.ymm.k1_u8.npy %S/Inputs/qmatmul_k1_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_wide_u8_input.npy --output=%t.ymm.wide_u8.npy && cmp %t.ymm.wide_u8.npy %S/Inputs/qmatmul_wide_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n16_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_n16_u8_input.npy --output=%t.n16_u8.npy && cmp %t.n16_u8.npy %S/Inputs/qmatmul_n16_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n48_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_n48_s8_input.npy --output=%t.n48_s8.npy && cmp %t.n48_s8.npy %S/Inputs/qmatmul_n48_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n16_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_n16_u8_input.npy --output=%t.ymm.n16_u8.npy && cmp %t.ymm.n16_u8.npy %S/Inputs/qmatmul_n16_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n48_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_n48_s8_input.npy --output=%t.ymm.n48_s8.npy && cmp %t.ymm.n48_s8.npy %S/Inputs/qmatmul_n48_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=shift_ends_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_shift_ends_u8_input.npy --output=%t.shift_ends_u8.npy && cmp %t.shift_ends_u8.npy %S/Inputs/qmatmul_shift_ends_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_shift_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_wide_shift_s8_input.npy --output=%t.wide_shift_s8.npy && cmp %t.wide_shift_s8.npy %S/Inputs/qmatmul_wide_shift_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=shift_ends_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_shift_ends_u8_input.npy --output=%t.ymm.shift_ends_u8.npy && cmp %t.ymm.shift_ends_u8.npy %S/Inputs/qmatmul_shift_ends_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_shift_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_wide_shift_s8_input.npy --output=%t.ymm.wide_shift_s8.npy && cmp %t.ymm.wide_shift_s8.npy %S/Inputs/qmatmul_wide_shift_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_high_rounding_u8_input.npy --output=%t.high_rounding_u8.npy && cmp %t.high_rounding_u8.npy %S/Inputs/qmatmul_high_rounding_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_high_rounding_u8_input.npy --output=%t.ymm.high_rounding_u8.npy && cmp %t.ymm.high_rounding_u8.npy %S/Inputs/qmatmul_high_rounding_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_zo_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_high_rounding_zo_u8_input.npy --output=%t.high_rounding_zo_u8.npy && cmp %t.high_rounding_zo_u8.npy %S/Inputs/qmatmul_high_rounding_zo_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_zo_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_high_rounding_zo_u8_input.npy --output=%t.ymm.high_rounding_zo_u8.npy && cmp %t.ymm.high_rounding_zo_u8.npy %S/Inputs/qmatmul_high_rounding_zo_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=s8_out_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_s8_out_u8_input.npy --output=%t.s8_out_u8.npy && cmp %t.s8_out_u8.npy %S/Inputs/qmatmul_s8_out_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=weight_zp_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_weight_zp_s8_input.npy --output=%t.weight_zp_s8.npy && cmp %t.weight_zp_s8.npy %S/Inputs/qmatmul_weight_zp_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=s8_out_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_s8_out_u8_input.npy --output=%t.s8_out_u8.npy && cmp %t.s8_out_u8.npy %S/Inputs/qmatmul_s8_out_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=weight_zp_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_weight_zp_s8_input.npy --output=%t.weight_zp_s8.npy && cmp %t.weight_zp_s8.npy %S/Inputs/qmatmul_weight_zp_s8_expected.npy

// Execution of quanta.qmatmul lowered for AVX-512 VNNI (zmm) and ymm vpdpbusd through quant-run's JIT:
// outputs byte-identical to NumPy's int64 evaluation of the op's semantics
// (scripts/goldens/gen_qmatmul_exec.py): odd sizes that are not multiples
// of the vector width or the tile, K = 1, s8 and u8 inputs with rows at
// the range ends, weights of -128, saturating requantization, and shifts at both ends of the
// high-word epilogue (t = 32, 62) and below it (t = 1..31, the 64-bit one),
// and t >= 33 everywhere (the rounding on the high words, the zero point
// folded into it or not), an s8 output narrower than its storage, weight
// zero points.
//
// quanta.qbatch_matmul's cases (quant-run-qbatch-matmul.mlir) on the same
// two VNNI steps: u8 lhs read as they are, s8 lhs with the sign flip the
// run-time column offsets take back out.
// RUN: for isa in avx512vnni avxvnni; do \
// RUN:   for entry in reduced_u8 full_u8 s8 mixed one; do \
// RUN:     quant-run %S/Inputs/qbatch_matmul_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/qbatch_matmul_${entry}_input.npz --output=%t.product.$isa.$entry.npy || exit 1; \
// RUN:     cmp %t.product.$isa.$entry.npy %S/Inputs/qbatch_matmul_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=PRODUCT
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=gemv_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_gemv_u8_input.npy --output=%t.avx512vnni.gemv_u8.npy && cmp %t.avx512vnni.gemv_u8.npy %S/Inputs/qmatmul_gemv_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=gemv_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/qmatmul_gemv_s8_input.npy --output=%t.avx512vnni.gemv_s8.npy && cmp %t.avx512vnni.gemv_s8.npy %S/Inputs/qmatmul_gemv_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=gemv_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_gemv_u8_input.npy --output=%t.avxvnni.gemv_u8.npy && cmp %t.avxvnni.gemv_u8.npy %S/Inputs/qmatmul_gemv_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=gemv_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avxvnni})' --input=%S/Inputs/qmatmul_gemv_s8_input.npy --output=%t.avxvnni.gemv_s8.npy && cmp %t.avxvnni.gemv_s8.npy %S/Inputs/qmatmul_gemv_s8_expected.npy
// PRODUCT-COUNT-5: avx512vnni {{[a-z0-9_]+}} identical
// PRODUCT-COUNT-5: avxvnni {{[a-z0-9_]+}} identical

// REQUIRES: avx2
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=odd_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_odd_u8_input.npy --output=%t.odd_u8.npy && cmp %t.odd_u8.npy %S/Inputs/qmatmul_odd_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=tiles_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_tiles_s8_input.npy --output=%t.tiles_s8.npy && cmp %t.tiles_s8.npy %S/Inputs/qmatmul_tiles_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=k1_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_k1_u8_input.npy --output=%t.k1_u8.npy && cmp %t.k1_u8.npy %S/Inputs/qmatmul_k1_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_wide_u8_input.npy --output=%t.wide_u8.npy && cmp %t.wide_u8.npy %S/Inputs/qmatmul_wide_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=odd_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_odd_u8_input.npy --output=%t.odd_u8.npy && cmp %t.odd_u8.npy %S/Inputs/qmatmul_odd_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=tiles_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_tiles_s8_input.npy --output=%t.tiles_s8.npy && cmp %t.tiles_s8.npy %S/Inputs/qmatmul_tiles_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=k1_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_k1_u8_input.npy --output=%t.k1_u8.npy && cmp %t.k1_u8.npy %S/Inputs/qmatmul_k1_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_wide_u8_input.npy --output=%t.wide_u8.npy && cmp %t.wide_u8.npy %S/Inputs/qmatmul_wide_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n16_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_n16_u8_input.npy --output=%t.n16_u8.npy && cmp %t.n16_u8.npy %S/Inputs/qmatmul_n16_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n48_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_n48_s8_input.npy --output=%t.n48_s8.npy && cmp %t.n48_s8.npy %S/Inputs/qmatmul_n48_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n16_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_n16_u8_input.npy --output=%t.n16_u8.npy && cmp %t.n16_u8.npy %S/Inputs/qmatmul_n16_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=n48_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_n48_s8_input.npy --output=%t.n48_s8.npy && cmp %t.n48_s8.npy %S/Inputs/qmatmul_n48_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=shift_ends_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_shift_ends_u8_input.npy --output=%t.shift_ends_u8.npy && cmp %t.shift_ends_u8.npy %S/Inputs/qmatmul_shift_ends_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_shift_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_wide_shift_s8_input.npy --output=%t.wide_shift_s8.npy && cmp %t.wide_shift_s8.npy %S/Inputs/qmatmul_wide_shift_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=shift_ends_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_shift_ends_u8_input.npy --output=%t.shift_ends_u8.npy && cmp %t.shift_ends_u8.npy %S/Inputs/qmatmul_shift_ends_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=wide_shift_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_wide_shift_s8_input.npy --output=%t.wide_shift_s8.npy && cmp %t.wide_shift_s8.npy %S/Inputs/qmatmul_wide_shift_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_high_rounding_u8_input.npy --output=%t.high_rounding_u8.npy && cmp %t.high_rounding_u8.npy %S/Inputs/qmatmul_high_rounding_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_high_rounding_u8_input.npy --output=%t.generic.high_rounding_u8.npy && cmp %t.generic.high_rounding_u8.npy %S/Inputs/qmatmul_high_rounding_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_zo_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_high_rounding_zo_u8_input.npy --output=%t.high_rounding_zo_u8.npy && cmp %t.high_rounding_zo_u8.npy %S/Inputs/qmatmul_high_rounding_zo_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=high_rounding_zo_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_high_rounding_zo_u8_input.npy --output=%t.generic.high_rounding_zo_u8.npy && cmp %t.generic.high_rounding_zo_u8.npy %S/Inputs/qmatmul_high_rounding_zo_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=rows_exact_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_rows_exact_u8_input.npy --output=%t.rows_exact_u8.npy && cmp %t.rows_exact_u8.npy %S/Inputs/qmatmul_rows_exact_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=rows_exact_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_rows_exact_u8_input.npy --output=%t.generic.rows_exact_u8.npy && cmp %t.generic.rows_exact_u8.npy %S/Inputs/qmatmul_rows_exact_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=s8_out_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_s8_out_u8_input.npy --output=%t.s8_out_u8.npy && cmp %t.s8_out_u8.npy %S/Inputs/qmatmul_s8_out_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=weight_zp_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/qmatmul_weight_zp_s8_input.npy --output=%t.weight_zp_s8.npy && cmp %t.weight_zp_s8.npy %S/Inputs/qmatmul_weight_zp_s8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=s8_out_u8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_s8_out_u8_input.npy --output=%t.s8_out_u8.npy && cmp %t.s8_out_u8.npy %S/Inputs/qmatmul_s8_out_u8_expected.npy
// RUN: quant-run %S/Inputs/qmatmul_exec.mlir --guard-pages=after --entry=weight_zp_s8 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/qmatmul_weight_zp_s8_input.npy --output=%t.weight_zp_s8.npy && cmp %t.weight_zp_s8.npy %S/Inputs/qmatmul_weight_zp_s8_expected.npy
// RUN: quant-opt %S/Inputs/qmatmul_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s

// Execution of quanta.qmatmul lowered for AVX2 (both vpmaddubsw and exact vpmaddwd cases) and the generic path through quant-run's JIT:
// outputs byte-identical to NumPy's int64 evaluation of the op's semantics
// (scripts/goldens/gen_qmatmul_exec.py): odd sizes that are not multiples
// of the vector width or the tile, K = 1, s8 and u8 inputs with rows at
// the range ends, weights of -128, saturating requantization, and shifts at both ends of the
// high-word epilogue (t = 32, 62) and below it (t = 1..31, the 64-bit one),
// and t >= 33 everywhere (the rounding on the high words, the zero point
// folded into it or not), an s8 output narrower than its storage, weight
// zero points; fewer rows than one exact-path tile, whose
// weights are read as s8 and widened in registers:
// CHECK-LABEL: func.func @rows_exact_u8
// CHECK: vector.transfer_read {{.*}} : tensor<{{[0-9]+}}xi8>, vector<16xi8>
// CHECK: arith.extsi {{.*}} : vector<16xi8> to vector<16xi16>
// CHECK: quanta.intrinsic "llvm.x86.avx2.pmadd.wd"
// CHECK: {quanta.dot_step = "vpmaddwd"}

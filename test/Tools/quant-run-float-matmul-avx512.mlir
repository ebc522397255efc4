// REQUIRES: avx512vnni
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=odd --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_odd_input.npy --output=%t.avx512vnni.odd.npy && cmp %t.avx512vnni.odd.npy %S/Inputs/float_matmul_odd_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=tiles --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_tiles_input.npy --output=%t.avx512vnni.tiles.npy && cmp %t.avx512vnni.tiles.npy %S/Inputs/float_matmul_tiles_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=k1 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_k1_input.npy --output=%t.avx512vnni.k1.npy && cmp %t.avx512vnni.k1.npy %S/Inputs/float_matmul_k1_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=wide --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_wide_input.npy --output=%t.avx512vnni.wide.npy && cmp %t.avx512vnni.wide.npy %S/Inputs/float_matmul_wide_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=rows --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_rows_input.npy --output=%t.avx512vnni.rows.npy && cmp %t.avx512vnni.rows.npy %S/Inputs/float_matmul_rows_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=whole --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_whole_input.npy --output=%t.avx512vnni.whole.npy && cmp %t.avx512vnni.whole.npy %S/Inputs/float_matmul_whole_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=transposed --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_transposed_input.npy --output=%t.avx512vnni.transposed.npy && cmp %t.avx512vnni.transposed.npy %S/Inputs/float_matmul_transposed_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=batch --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' --input=%S/Inputs/float_matmul_batch_input.npy --output=%t.avx512vnni.batch.npy && cmp %t.avx512vnni.batch.npy %S/Inputs/float_matmul_batch_expected.npy
// Execution of f32 linalg.matmul lowered by quanta-lower-x86 to tiled FMA
// code for zmm, through quant-run's JIT: outputs bit-identical to NumPy's
// int64 evaluation (scripts/goldens/gen_float_matmul_exec.py; small integer
// values keep every sum exact): odd sizes that are not multiples of the
// vector width or the tile, K = 1, one-row tiles only, a masked last strip,
// and an init tensor (a broadcast bias) the accumulators start from.

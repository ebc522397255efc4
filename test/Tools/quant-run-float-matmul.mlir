// REQUIRES: avx2
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=odd --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_odd_input.npy --output=%t.avx2.odd.npy && cmp %t.avx2.odd.npy %S/Inputs/float_matmul_odd_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=tiles --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_tiles_input.npy --output=%t.avx2.tiles.npy && cmp %t.avx2.tiles.npy %S/Inputs/float_matmul_tiles_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=k1 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_k1_input.npy --output=%t.avx2.k1.npy && cmp %t.avx2.k1.npy %S/Inputs/float_matmul_k1_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=wide --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_wide_input.npy --output=%t.avx2.wide.npy && cmp %t.avx2.wide.npy %S/Inputs/float_matmul_wide_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=rows --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_rows_input.npy --output=%t.avx2.rows.npy && cmp %t.avx2.rows.npy %S/Inputs/float_matmul_rows_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=whole --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_whole_input.npy --output=%t.avx2.whole.npy && cmp %t.avx2.whole.npy %S/Inputs/float_matmul_whole_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=transposed --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_transposed_input.npy --output=%t.avx2.transposed.npy && cmp %t.avx2.transposed.npy %S/Inputs/float_matmul_transposed_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=batch --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_batch_input.npy --output=%t.avx2.batch.npy && cmp %t.avx2.batch.npy %S/Inputs/float_matmul_batch_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activations --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_activations_input.npz --output=%t.avx2.activations.npy && cmp %t.avx2.activations.npy %S/Inputs/float_matmul_activations_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activation_batch --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_activation_batch_input.npz --output=%t.avx2.activation_batch.npy && cmp %t.avx2.activation_batch.npy %S/Inputs/float_matmul_activation_batch_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=odd --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_odd_input.npy --output=%t.generic.odd.npy && cmp %t.generic.odd.npy %S/Inputs/float_matmul_odd_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=tiles --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_tiles_input.npy --output=%t.generic.tiles.npy && cmp %t.generic.tiles.npy %S/Inputs/float_matmul_tiles_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=k1 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_k1_input.npy --output=%t.generic.k1.npy && cmp %t.generic.k1.npy %S/Inputs/float_matmul_k1_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=wide --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_wide_input.npy --output=%t.generic.wide.npy && cmp %t.generic.wide.npy %S/Inputs/float_matmul_wide_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=rows --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_rows_input.npy --output=%t.generic.rows.npy && cmp %t.generic.rows.npy %S/Inputs/float_matmul_rows_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=whole --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_whole_input.npy --output=%t.generic.whole.npy && cmp %t.generic.whole.npy %S/Inputs/float_matmul_whole_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=transposed --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_transposed_input.npy --output=%t.generic.transposed.npy && cmp %t.generic.transposed.npy %S/Inputs/float_matmul_transposed_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=batch --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_batch_input.npy --output=%t.generic.batch.npy && cmp %t.generic.batch.npy %S/Inputs/float_matmul_batch_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activations --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_activations_input.npz --output=%t.generic.activations.npy && cmp %t.generic.activations.npy %S/Inputs/float_matmul_activations_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activation_batch --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%S/Inputs/float_matmul_activation_batch_input.npz --output=%t.generic.activation_batch.npy && cmp %t.generic.activation_batch.npy %S/Inputs/float_matmul_activation_batch_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=odd --input=%S/Inputs/float_matmul_odd_input.npy --output=%t.scalar.odd.npy && cmp %t.scalar.odd.npy %S/Inputs/float_matmul_odd_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=tiles --input=%S/Inputs/float_matmul_tiles_input.npy --output=%t.scalar.tiles.npy && cmp %t.scalar.tiles.npy %S/Inputs/float_matmul_tiles_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=k1 --input=%S/Inputs/float_matmul_k1_input.npy --output=%t.scalar.k1.npy && cmp %t.scalar.k1.npy %S/Inputs/float_matmul_k1_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=wide --input=%S/Inputs/float_matmul_wide_input.npy --output=%t.scalar.wide.npy && cmp %t.scalar.wide.npy %S/Inputs/float_matmul_wide_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=rows --input=%S/Inputs/float_matmul_rows_input.npy --output=%t.scalar.rows.npy && cmp %t.scalar.rows.npy %S/Inputs/float_matmul_rows_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=whole --input=%S/Inputs/float_matmul_whole_input.npy --output=%t.scalar.whole.npy && cmp %t.scalar.whole.npy %S/Inputs/float_matmul_whole_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=transposed --input=%S/Inputs/float_matmul_transposed_input.npy --output=%t.scalar.transposed.npy && cmp %t.scalar.transposed.npy %S/Inputs/float_matmul_transposed_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=batch --input=%S/Inputs/float_matmul_batch_input.npy --output=%t.scalar.batch.npy && cmp %t.scalar.batch.npy %S/Inputs/float_matmul_batch_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activations --input=%S/Inputs/float_matmul_activations_input.npz --output=%t.scalar.activations.npy && cmp %t.scalar.activations.npy %S/Inputs/float_matmul_activations_expected.npy
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activation_batch --input=%S/Inputs/float_matmul_activation_batch_input.npz --output=%t.scalar.activation_batch.npy && cmp %t.scalar.activation_batch.npy %S/Inputs/float_matmul_activation_batch_expected.npy
// Execution of f32 linalg.matmul lowered by quanta-lower-x86 to tiled FMA
// code for ymm and the generic path, and the scalar loops without it, through quant-run's JIT: outputs bit-identical to NumPy's
// int64 evaluation (scripts/goldens/gen_float_matmul_exec.py; small integer
// values keep every sum exact): odd sizes that are not multiples of the
// vector width or the tile, K = 1, one-row tiles only, a masked last strip,
// an init tensor (a broadcast bias) the accumulators start from, weights
// [N, K] through a transposed map, a batch_matmul with weights broadcast
// over the batch, and products of two arguments (B packed at run time; on
// two threads too, which share the batches).
// RUN: quant-run %S/Inputs/float_matmul_exec.mlir --guard-pages=after --entry=activation_batch --num-threads=2 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --input=%S/Inputs/float_matmul_activation_batch_input.npz --output=%t.threads.npy && cmp %t.threads.npy %S/Inputs/float_matmul_activation_batch_expected.npy
// The transposed weights and the batch with broadcast weights take the
// tiled kernel too (the batch as one GEMM of 15 rows), not the scalar loops.
// RUN: quant-opt %S/Inputs/float_matmul_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=LOWERED
// LOWERED-LABEL: func.func @transposed
// LOWERED-NOT: linalg.matmul
// LOWERED: quanta.dot_step = "fma"
// LOWERED-LABEL: func.func @batch
// LOWERED: tensor.collapse_shape %arg0 {{\[\[}}0, 1], [2]] : tensor<3x5x12xf32> into tensor<15x12xf32>
// LOWERED-NOT: linalg.batch_matmul
// LOWERED: quanta.dot_step = "fma"
// LOWERED: tensor.expand_shape %{{.*}} {{\[\[}}0, 1], [2]] output_shape [3, 5, 20] : tensor<15x20xf32> into tensor<3x5x20xf32>
// A product of two arguments: B of every batch packed by one generic before
// the batch loop (which the threads share), each batch's tiles reading
// their slice of it.
// LOWERED-LABEL: func.func @activation_batch
// LOWERED: linalg.generic
// LOWERED: tensor.extract %arg1
// LOWERED: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2, 3, 4, 5]] : tensor<3x8x5x1x8x1xf32> into tensor<3x320xf32>
// LOWERED: scf.for
// LOWERED: tensor.extract_slice %{{.*}} : tensor<3x320xf32> to tensor<320xf32>
// LOWERED: quanta.dot_step = "fma"
// LOWERED: tensor.insert_slice
// LOWERED: quanta.parallel
// LOWERED-NOT: linalg.batch_matmul

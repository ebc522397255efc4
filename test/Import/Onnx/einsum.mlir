// Einsum as numpy.einsum (ONNX's definition), one linalg.generic per node,
// on models from scripts/goldens/gen_einsum_models.py (float32 inputs;
// expected: NumPy's einsum in float64): attention's Q.K^T, a batched
// matmul with spaces in the equation, a transpose, a sum, a diagonal under
// '...', '...' broadcast between operands of different ranks, implicit
// outputs (an inner product, a matmul) and three operands. ONNX's own
// Einsum node tests are float64 (listed skips).
// RUN: for e in attention batch_matmul transpose sum diagonal broadcast inner_implicit matmul_implicit chain; do \
// RUN:   quant-run %S/Inputs/einsum_$e.onnx --input=%S/Inputs/einsum_${e}_input.npz --output=%t.$e.npy || exit 1; \
// RUN:   echo -n "$e: "; %python %S/Inputs/compare_float.py %t.$e.npy %S/Inputs/einsum_${e}_expected.npy; \
// RUN: done | FileCheck %s --check-prefix=SAME
// SAME-COUNT-9: : within 1e-05 relative
//
// RUN: quant-translate --import-onnx %S/Inputs/einsum_attention.onnx | FileCheck %s --check-prefix=IR
// IR-DAG: #[[Q:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// IR-DAG: #[[K:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d3, d4)>
// IR-DAG: #[[OUT:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// IR: linalg.generic {indexing_maps = [#[[Q]], #[[K]], #[[OUT]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// IR: arith.mulf
// IR: arith.addf
// IR: -> tensor<2x3x4x6xf32>
//
// RUN: quant-translate --import-onnx %S/Inputs/einsum_diagonal.onnx | FileCheck %s --check-prefix=DIAGONAL
// DIAGONAL: affine_map<(d0, d1) -> (d0, d1, d1)>
//
// RUN: not quant-translate --import-onnx %S/Inputs/einsum_bad_sizes.onnx 2>&1 | FileCheck %s --check-prefix=SIZES
// SIZES: einsum_bad_sizes.onnx:0:0: error: Einsum node 'einsum': letter 'j' has sizes 3 and 4
// RUN: not quant-translate --import-onnx %S/Inputs/einsum_bad_ellipsis.onnx 2>&1 | FileCheck %s --check-prefix=ELLIPSIS
// ELLIPSIS: error: Einsum node 'einsum': the output 'i' drops the 2 dimension(s) of '...'

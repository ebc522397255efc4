// REQUIRES: avx2
// ONNX Runtime's com.microsoft.MatMulNBits (the node its 4-bit weight
// quantizers write) imports as quanta.weight_only_matmul: B's unsigned
// 4-bit values - 8 (the default zero point) as i4 weights [K, N], a group
// per block_size k values with its scales, the bias; accuracy_level 4
// (ONNX Runtime quantizes A to int8 per block) as int8_activations. A of
// rank 3 is collapsed to rows and expanded back. The models and their
// expected outputs: scripts/goldens/gen_onnx_matmul_nbits.py, which found
// ONNX Runtime 1.30's outputs the same bits on the exact models and within
// 3.8e-6 of the op's formula on the random one (its own summation order).
// Zero points other than 8 (the asymmetric form ONNX Runtime's quantizer
// writes by default) become the op's zero_points, minus 8 like the weights.
//
// RUN: quant-translate --import-onnx %S/Inputs/matmul_nbits_exact.onnx | FileCheck %s
// CHECK: %[[ROWS:.*]] = tensor.collapse_shape %arg0 {{\[}}[0, 1], [2]] : tensor<2x3x64xf32> into tensor<6x64xf32>
// CHECK: quanta.weight_only_matmul %[[ROWS]] {bias = array<f32: {{[^}]*}}>, group_size = 32 : i64, scales = array<f32: {{[^}]*}}>, weights = {{.*}} : tensor<64x20xi4>} : tensor<6x64xf32> -> tensor<6x20xf32>
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0, 1], [2]] output_shape [2, 3, 20]
// RUN: quant-translate --import-onnx %S/Inputs/matmul_nbits_exact_level4.onnx | FileCheck %s --check-prefix=LEVEL4
// LEVEL4: quanta.weight_only_matmul %{{.*}} group_size = 32 : i64, int8_activations, scales =
// RUN: quant-translate --import-onnx %S/Inputs/matmul_nbits_asymmetric_exact.onnx | FileCheck %s --check-prefix=ASYMMETRIC
// ASYMMETRIC: quanta.weight_only_matmul %{{.*}} group_size = 32 : i64, scales = array<f32: {{[^}]*}}>, weights = {{.*}} : tensor<64x20xi4>, zero_points = array<i8: {{(-?[0-7], )+}}{{-?[0-7]}}>}
// All zero points 8: the symmetric op.
// RUN: quant-translate --import-onnx %S/Inputs/matmul_nbits_level4.onnx | FileCheck %s --check-prefix=ALL-EIGHT
// ALL-EIGHT: quanta.weight_only_matmul
// ALL-EIGHT-NOT: zero_points
//
// Outputs byte-identical to the expected ones on x86 (this machine's
// level, AVX2, generic) and the AArch64 levels under qemu.
// RUN: for model in matmul_nbits_exact matmul_nbits_exact_level4 matmul_nbits_level4 matmul_nbits_asymmetric_exact matmul_nbits_asymmetric_level4; do \
// RUN:   for isa in host avx2 generic; do \
// RUN:     quant-run %S/Inputs/$model.onnx --guard-pages=after --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/${model}_input.npy --output=%t.npy || exit 1; \
// RUN:     cmp %t.npy %S/Inputs/${model}_expected.npy && echo "$isa $model identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-15: {{host|avx2|generic}} {{[a-z_0-9]+}} identical
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for model in matmul_nbits_exact matmul_nbits_level4 matmul_nbits_asymmetric_exact matmul_nbits_asymmetric_level4; do \
// RUN:     quant-run %S/Inputs/$model.onnx --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline="builtin.module(quanta-lower-neon)" \
// RUN:       --input=%S/Inputs/${model}_input.npy --output=%t.$step.npy || exit 1; \
// RUN:     cmp %t.$step.npy %S/Inputs/${model}_expected.npy && echo "$step $model identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-4: smull {{[a-z_0-9]+}} identical
// NEON-COUNT-4: sdot {{[a-z_0-9]+}} identical
//
// What has no Quanta form: located errors.
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_float_zero_points.onnx 2>&1 | FileCheck %s --check-prefix=FLOAT-ZERO
// FLOAT-ZERO: matmul_nbits_float_zero_points.onnx{{.*}}error: MatMulNBits node 'MatMulNBits_0': zero_points must be a constant uint8 of N x ceil(K / block_size / 2) = 140 bytes (float zero points do not import)
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_bits.onnx 2>&1 | FileCheck %s --check-prefix=BITS
// BITS: error: MatMulNBits node 'MatMulNBits_0': bits = 2: only 4-bit weights import
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_g_idx.onnx 2>&1 | FileCheck %s --check-prefix=G-IDX
// G-IDX: error: MatMulNBits node 'MatMulNBits_0': g_idx (act-order weights) is not supported
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_zero_scale.onnx 2>&1 | FileCheck %s --check-prefix=ZERO-SCALE
// ZERO-SCALE: error: MatMulNBits node 'MatMulNBits_0': scale 0.000000e+00 (column 5, block 1) is not finite and positive
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_short_bias.onnx 2>&1 | FileCheck %s --check-prefix=SHORT-BIAS
// SHORT-BIAS: error: MatMulNBits node 'MatMulNBits_0': bias must be a constant f32 of N = 70 values
// RUN: not quant-translate --import-onnx %S/Inputs/matmul_nbits_partial_block.onnx 2>&1 | FileCheck %s --check-prefix=PARTIAL-BLOCK
// PARTIAL-BLOCK: error: MatMulNBits node 'MatMulNBits_0': K = 200 is not a multiple of block_size = 64: a padded last block has no i4 group of its own

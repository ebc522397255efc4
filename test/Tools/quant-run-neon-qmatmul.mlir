// Every quanta.qmatmul execution case of the x86 tests
// (quant-run-qmatmul-{avx2,vnni}.mlir), lowered by quanta-lower-neon for
// the CPU named, compiled for AArch64 and run under qemu on a CPU model of
// that level: ARMv8.0 (smull + sadalp) on a Cortex-A72, dotprod (sdot) on a
// Neoverse N1, i8mm (smmla/usmmla, compiled for a Neoverse V1) on qemu's
// max CPU. The outputs are byte-identical to the NumPy goldens the x86
// kernels are checked against (scripts/goldens/gen_qmatmul_exec.py), hence
// to the x86 outputs: odd sizes, K = 1, u8 and s8 inputs at the range
// ends, weights of -128, saturation, every shift class of the epilogue,
// weight zero points, an s8 output narrower than its storage, single rows
// (i8mm computes those with sdot).
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for entry in odd_u8 tiles_s8 k1_u8 wide_u8 n16_u8 n48_s8 shift_ends_u8 wide_shift_s8 high_rounding_u8 high_rounding_zo_u8 rows_exact_u8 s8_out_u8 weight_zp_s8 gemv_u8 gemv_s8; do \
// RUN:     quant-run %S/Inputs/qmatmul_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%S/Inputs/qmatmul_${entry}_input.npy --output=%t.$entry.npy || exit 1; \
// RUN:     cmp %t.$entry.npy %S/Inputs/qmatmul_${entry}_expected.npy && echo "$step $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
//
// CHECK-COUNT-15: smull {{[a-z0-9_]+}} identical
// CHECK-COUNT-15: sdot {{[a-z0-9_]+}} identical
// CHECK-COUNT-15: smmla {{[a-z0-9_]+}} identical

// The depthwise cases of quant-run-qdepthwise.mlir (quanta.qmatmul's
// depthwise form: 8 channels per vector, NEON's requantization),
// byte-identical to the same NumPy goldens on an ARMv8.0 core.
// RUN: for entry in k3_pad1_u8 k3_s2_s8 k5_d2_u8 k3_valid_u8 k3_small_u8 k3_wide_shift_s8 k3_high_rounding_u8; do \
// RUN:   quant-run %S/Inputs/qdepthwise_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=cortex-a72 --qemu-cpu=cortex-a72 \
// RUN:     --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%S/Inputs/qdepthwise_${entry}_input.npy --output=%t.dw.$entry.npy || exit 1; \
// RUN:   cmp %t.dw.$entry.npy %S/Inputs/qdepthwise_${entry}_expected.npy && echo "depthwise $entry identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=DEPTHWISE
// DEPTHWISE-COUNT-7: depthwise {{[a-z0-9_]+}} identical

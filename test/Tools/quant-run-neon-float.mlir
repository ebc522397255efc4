// The f32 kernels of quanta-lower-neon (the tiled design with fmla by
// element, lowered for the CPU named) on every case of the x86 float tests
// (quant-run-float-{matmul,conv}.mlir), compiled for AArch64 and run under
// qemu on the three CPU models: outputs byte-identical to the goldens the
// x86 FMA kernels equal (each output the sequential sum of its products in
// k order, every step one fused multiply-add), hence to the x86 outputs.
//
// RUN: quant-opt %S/Inputs/float_matmul_exec.mlir --quanta-lower-neon=features=baseline | FileCheck %s --check-prefix=IR
// IR: vector.fma
// IR: {quanta.dot_step = "fmla"}
// In the object file, the inputs of 4 k come from one 16-byte load each
// and feed fmla by element:
// RUN: quant-compile %S/Inputs/float_matmul_exec.mlir --target-triple=aarch64-linux-gnu --mcpu=cortex-a72 --pass-pipeline='builtin.module(quanta-lower-neon)' -o %t.o
// RUN: llvm-objdump -d %t.o | FileCheck %s --check-prefix=OBJ
// OBJ: fmla v{{[0-9]+}}.4s, v{{[0-9]+}}.4s, v{{[0-9]+}}.s[{{[0-3]}}]
//
// RUN: for config in cortex-a72 neoverse-n1 neoverse-v1:max; do \
// RUN:   cpu=${config%%%%:*} qemu=${config#*:}; \
// RUN:   for entry in odd tiles k1 wide rows whole transposed batch activations activation_batch; do \
// RUN:     quant-run %S/Inputs/float_matmul_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline='builtin.module(quanta-lower-neon)' --input=$(ls %S/Inputs/float_matmul_${entry}_input.np?) --output=%t.$entry.npy || exit 1; \
// RUN:     cmp %t.$entry.npy %S/Inputs/float_matmul_${entry}_expected.npy && echo "$qemu matmul $entry identical" || exit 1; \
// RUN:   done; \
// RUN:   for entry in fhwc_3x3 hwcf_s2_dilated fhwc_1x1_c1 hwcf_5x5_s3 nchw_3x3_s2_dilated; do \
// RUN:     quant-run %S/Inputs/float_conv_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%S/Inputs/float_conv_${entry}_input.npy --output=%t.$entry.npy || exit 1; \
// RUN:     cmp %t.$entry.npy %S/Inputs/float_conv_${entry}_expected.npy && echo "$qemu conv $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
//
// CHECK-COUNT-10: cortex-a72 matmul {{[a-z0-9_]+}} identical
// CHECK-COUNT-5: cortex-a72 conv {{[a-z0-9_]+}} identical
// CHECK-COUNT-10: neoverse-n1 matmul {{[a-z0-9_]+}} identical
// CHECK-COUNT-5: neoverse-n1 conv {{[a-z0-9_]+}} identical
// CHECK-COUNT-10: max matmul {{[a-z0-9_]+}} identical
// CHECK-COUNT-5: max conv {{[a-z0-9_]+}} identical

// RUN: bash %S/Inputs/run_conv_exec.sh %t %python generic aarch64:cortex-a72:cortex-a72 aarch64:neoverse-n1:neoverse-n1 aarch64:neoverse-v1:max > %t.log
// RUN: grep -c "aarch64:.*: identical to generic" %t.log | FileCheck %s --check-prefix=IDENTICAL
// RUN: grep -cE "aarch64:.*: [0-9]+ of [0-9]+ equal, max difference [01] LSB, [1-9][0-9]+ distinct values" %t.log | FileCheck %s --check-prefix=CLOSE
// RUN: not grep DIFFERENT %t.log

// The functions of quant-run-conv.mlir (3x3, 1x1, 2x2 convolutions, padded
// and uneven, strided, dilated, NCHW, grouped by tap, depthwise with
// multipliers, fully connected and batch matmuls) through quanta-quantize
// and quanta-lower-neon for each AArch64 level (smull + sadalp on a
// Cortex-A72, sdot on a Neoverse N1, smmla on qemu's max CPU), run under
// qemu: each of the 12 functions on each of the 3 CPUs within 1 LSB of the
// float reference and byte-identical to the x86 lowering's outputs (its
// generic kernel, which the other x86 kernels equal byte for byte:
// quant-run-conv.mlir).
// IDENTICAL: 36
// CLOSE: 36

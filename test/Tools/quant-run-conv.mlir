// REQUIRES: avx2
// RUN: quant-opt %S/Inputs/conv_exec.mlir --quanta-quantize | FileCheck %s
// RUN: quant-opt %S/Inputs/conv_exec.mlir --quanta-quantize | grep -c "window = array" | FileCheck %s --check-prefix=WINDOWS

// Each function as written (float between its dq/q pairs: the reference)
// and through quanta-quantize (quanta.qmatmul, over an implicit im2col
// matrix for the convolutions, in its depthwise form for the depthwise
// ones: their own kernel) for each ISA (quant-run-conv-vnni.mlir: the VNNI
// ones).
// RUN: bash %S/Inputs/run_conv_exec.sh %t %python avx2 generic | FileCheck %s --check-prefix=EXEC

// Every chain became integer code: the comparison is not float against
// float.
// CHECK-COUNT-12: quanta.qmatmul
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.{{(batch_)?}}matmul
// CHECK-NOT: linalg.depthwise_conv_2d
// CHECK-NOT: -> tensor<{{[0-9x]+}}xf32>

// The nine convolutions that are not 1x1 NHWC of stride 1 (two of them
// depthwise) read their input through a window.
// WINDOWS: 9

// The integer results equal the float reference between the dq/q pairs
// within 1 LSB (bias and requantization round once each); the reference
// outputs are not constant.
// EXEC-COUNT-24: {{(avx2|generic)}}: {{[0-9]+}} of {{[0-9]+}} equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values

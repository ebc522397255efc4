// REQUIRES: avx512vnni, avxvnni
// RUN: bash %S/Inputs/run_conv_exec.sh %t %python avx512vnni avxvnni | FileCheck %s

// The functions of quant-run-conv.mlir lowered with vpdpbusd, on zmm and
// on ymm: within 1 LSB of the float reference between the dq/q pairs.
// CHECK-COUNT-24: {{avx512vnni|avxvnni}}: {{[0-9]+}} of {{[0-9]+}} equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values

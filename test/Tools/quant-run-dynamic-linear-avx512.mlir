// REQUIRES: avx512vnni
// quant-run-dynamic-linear.mlir's cases on AVX-512 VNNI (vpdpbusd on zmm,
// 16-lane epilogue): byte-identical to PyTorch 1.13's dynamic Linear.
//
// RUN: for entry in gemm linear matmul_add gemv ties tiny deep nan; do \
// RUN:   for engine in onednn qnnpack; do \
// RUN:     for qconfig in default_dynamic per_channel_dynamic; do \
// RUN:       quant-run %S/Inputs/dynamic_linear_exec.mlir --guard-pages=after --entry=$entry \
// RUN:         --pass-pipeline="builtin.module(quanta-quantize-dynamic{engine=$engine qconfig=$qconfig},quanta-lower-x86{isa=avx512vnni})" \
// RUN:         --input=%S/Inputs/dynamic_linear_${entry}_input.npy --output=%t.npy || exit 1; \
// RUN:       cmp %t.npy %S/Inputs/dynamic_linear_${entry}_${engine}_${qconfig}_expected.npy && echo "$entry $engine $qconfig identical" || exit 1; \
// RUN:     done; \
// RUN:   done; \
// RUN: done | FileCheck %s
// CHECK-COUNT-32: {{[a-z_]+}} {{onednn|qnnpack}} {{[a-z_]+}} identical

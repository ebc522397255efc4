// REQUIRES: avx512bf16
// qconfig=bf16_dot (Quanta's): bf16 weights and activations, pairs of k
// values summed in f32 by AVX512-BF16's vdpbf16ps (the odd k of each pair
// first, each step one rounding), from the bias. Random inputs, which bf16
// rounds; the expected outputs follow that order exactly
// (scripts/goldens/gen_dynamic_exec.py's bf16_dot_expected, which checks
// that k order or f32 activations would give other bits): an odd K (37,
// 301: the last pair completed with 0), with and without a bias, M = 5 and
// a GEMV.
//
// RUN: for entry in bf16_dot bf16_dot_gemv; do \
// RUN:   quant-run %S/Inputs/weight_only_exec.mlir --guard-pages=after --entry=$entry \
// RUN:     --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=bf16_dot},quanta-lower-x86)" \
// RUN:     --input=%S/Inputs/weight_only_${entry}_input.npy --output=%t.npy || exit 1; \
// RUN:   cmp %t.npy %S/Inputs/weight_only_${entry}_expected.npy && echo "$entry identical" || exit 1; \
// RUN: done | FileCheck %s
// CHECK: bf16_dot identical
// CHECK: bf16_dot_gemv identical
//
// The kernel's step is vdpbf16ps; the input is rounded once before it.
// RUN: quant-opt %S/Inputs/weight_only_exec.mlir --quanta-quantize-dynamic=qconfig=bf16_dot --quanta-lower-x86=isa=host \
// RUN:   | FileCheck %s --check-prefix=IR
// IR: arith.truncf {{.*}} : f32 to bf16
// IR: quanta.intrinsic "llvm.x86.avx512bf16.dpbf16ps.512"
// IR: quanta.dot_step = "vdpbf16ps"

// REQUIRES: avx2
// Execution of quanta-quantize-dynamic's weight-only schemes: f16 weights
// (qconfig=float16_dynamic), bf16 weights (weight_only_bf16, rounded to
// nearest even, ties included), per-column s8 weights with float
// activations (weight_only_int8) and 4-bit weights with a scale per group
// of 32 or 128 k values (weight_only_int4), widened in registers by the
// f32 kernels
// of this machine's x86 level (host), AVX2 and generic x86, and of the
// three AArch64 levels under qemu. The values
// make every sum exact in f32 (scripts/goldens/gen_dynamic_exec.py), so
// the outputs must equal NumPy's bit for bit: M = 1 GEMVs and odd shapes,
// with and without a bias, and an f16 weight beyond 65504 (clamped, as
// PyTorch's fp16 prepack clamps it). int4_dynamic (the same 4-bit weights,
// the input quantized to s8 per group of 16, 32 or 128; vpdpbusd on the
// host here, vpmaddubsw on AVX2, sdot with dotprod, vector arithmetic on
// generic x86 and ARMv8.0) has random inputs: its expected values follow
// the op's formula (int4_dynamic_expected, the fused multiply-adds rounded
// once), with rounding ties, groups of zeros and below 127 / FLT_MAX, and
// rows holding a NaN or -inf (every output NaN). The *asym* cases quantize
// the 4-bit weights asymmetrically (int4-asymmetric: a zero point per
// group, values chosen so that PyTorch's quint4x2 observer gives them back
// exactly), with f32 activations (the zero point's share taken from each
// group's input sum: int4_asymmetric_expected, random inputs in
// int4_asym_order) and with int8 ones.
//
// RUN: for isa in host avx2 generic; do \
// RUN:   for case in half:float16_dynamic:32 half_gemv:float16_dynamic:32 int8:weight_only_int8:32 int8_gemv:weight_only_int8:32 int4:weight_only_int4:32 int4_gemv:weight_only_int4:128 bf16:weight_only_bf16:32 bf16_gemv:weight_only_bf16:32 int4_dyn:int4_dynamic:32 int4_dyn_gemv:int4_dynamic:128 int4_dyn_edges:int4_dynamic:16 int4_asym:weight_only_int4:32 int4_asym_gemv:weight_only_int4:128 int4_asym_order:weight_only_int4:32 int4_dyn_asym:int4_dynamic:32 int4_dyn_asym_gemv:int4_dynamic:128; do \
// RUN:     entry=${case%%%%:*}; rest=${case#*:}; qconfig=${rest%%%%:*}; group=${rest#*:}; asym=false; [ -n "${entry##*asym*}" ] || asym=true; \
// RUN:     quant-run %S/Inputs/weight_only_exec.mlir --guard-pages=after --entry=$entry \
// RUN:       --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=$qconfig group-size=$group int4-asymmetric=$asym},quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/weight_only_${entry}_input.npy --output=%t.npy 2>/dev/null || exit 1; \
// RUN:     cmp %t.npy %S/Inputs/weight_only_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-16: host {{[a-z0-9_]+}} identical
// X86-COUNT-16: avx2 {{[a-z0-9_]+}} identical
// X86-COUNT-16: generic {{[a-z0-9_]+}} identical
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for case in half:float16_dynamic:32 half_gemv:float16_dynamic:32 int8:weight_only_int8:32 int8_gemv:weight_only_int8:32 int4:weight_only_int4:32 int4_gemv:weight_only_int4:128 bf16:weight_only_bf16:32 bf16_gemv:weight_only_bf16:32 int4_dyn:int4_dynamic:32 int4_dyn_gemv:int4_dynamic:128 int4_dyn_edges:int4_dynamic:16 int4_asym:weight_only_int4:32 int4_asym_gemv:weight_only_int4:128 int4_asym_order:weight_only_int4:32 int4_dyn_asym:int4_dynamic:32 int4_dyn_asym_gemv:int4_dynamic:128; do \
// RUN:     entry=${case%%%%:*}; rest=${case#*:}; qconfig=${rest%%%%:*}; group=${rest#*:}; asym=false; [ -n "${entry##*asym*}" ] || asym=true; \
// RUN:     quant-run %S/Inputs/weight_only_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=$qconfig group-size=$group int4-asymmetric=$asym},quanta-lower-neon)" \
// RUN:       --input=%S/Inputs/weight_only_${entry}_input.npy --output=%t.$step.npy 2>/dev/null || exit 1; \
// RUN:     cmp %t.$step.npy %S/Inputs/weight_only_${entry}_expected.npy && echo "$step $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-16: smull {{[a-z0-9_]+}} identical
// NEON-COUNT-16: sdot {{[a-z0-9_]+}} identical
// NEON-COUNT-16: smmla {{[a-z0-9_]+}} identical
//
// int4-f16-scales: the same 4-bit cases with the scales stored as f16
// (theirs are powers of 2, f16 values: the same weights, so the same
// expected bytes), on each x86 level and with sdot under qemu.
// RUN: for isa in host avx2 generic; do \
// RUN:   for case in int4:weight_only_int4:32 int4_gemv:weight_only_int4:128 int4_dyn:int4_dynamic:32 int4_dyn_gemv:int4_dynamic:128 int4_asym_order:weight_only_int4:32 int4_dyn_asym:int4_dynamic:32; do \
// RUN:     entry=${case%%%%:*}; rest=${case#*:}; qconfig=${rest%%%%:*}; group=${rest#*:}; asym=false; [ -n "${entry##*asym*}" ] || asym=true; \
// RUN:     quant-run %S/Inputs/weight_only_exec.mlir --guard-pages=after --entry=$entry \
// RUN:       --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=$qconfig group-size=$group int4-asymmetric=$asym int4-f16-scales=true},quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/weight_only_${entry}_input.npy --output=%t.npy 2>/dev/null || exit 1; \
// RUN:     cmp %t.npy %S/Inputs/weight_only_${entry}_expected.npy && echo "$isa $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=F16-SCALES
// F16-SCALES-COUNT-6: host {{[a-z0-9_]+}} identical
// F16-SCALES-COUNT-6: avx2 {{[a-z0-9_]+}} identical
// F16-SCALES-COUNT-6: generic {{[a-z0-9_]+}} identical
// RUN: for case in int4_gemv:weight_only_int4:128 int4_dyn_asym:int4_dynamic:32; do \
// RUN:   entry=${case%%%%:*}; rest=${case#*:}; qconfig=${rest%%%%:*}; group=${rest#*:}; asym=false; [ -n "${entry##*asym*}" ] || asym=true; \
// RUN:   quant-run %S/Inputs/weight_only_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=neoverse-n1 --qemu-cpu=neoverse-n1 \
// RUN:     --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=$qconfig group-size=$group int4-asymmetric=$asym int4-f16-scales=true},quanta-lower-neon)" \
// RUN:     --input=%S/Inputs/weight_only_${entry}_input.npy --output=%t.f16.npy 2>/dev/null || exit 1; \
// RUN:   cmp %t.f16.npy %S/Inputs/weight_only_${entry}_expected.npy && echo "sdot $entry identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=F16-SCALES-NEON
// F16-SCALES-NEON-COUNT-2: sdot {{[a-z0-9_]+}} identical

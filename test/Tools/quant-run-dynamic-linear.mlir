// REQUIRES: avx2
// Execution of quanta-quantize-dynamic (PyTorch's quantize_dynamic of
// nn.Linear) and the dynamic kernel on x86 (AVX2's vpmaddubsw: onednn's
// activations lie in 0..128; vpmaddwd for qnnpack's 0..255 where
// vpmaddubsw could saturate; the generic path) and the three AArch64
// levels under qemu: outputs byte-identical to those of
// torch.ao.nn.quantized.dynamic.Linear of PyTorch 1.13 on the same weights
// and inputs (scripts/goldens/gen_dynamic_exec.py), for each engine and
// qconfig: the Gemm, Linear ([N, K] weights, bias in the accumulator) and
// MatMul + Add forms, a GEMV of K = 768, inputs on onednn's rounding ties,
// a range below ChooseQuantizationParams' 6.1e-5 floor, accumulators
// beyond 2^24 (K = 3072), and a NaN input (PyTorch raises: every output
// NaN).
//
// RUN: for isa in avx2 generic; do \
// RUN:   for entry in gemm linear matmul_add gemv ties tiny deep nan; do \
// RUN:     for engine in onednn qnnpack; do \
// RUN:       for qconfig in default_dynamic per_channel_dynamic; do \
// RUN:         quant-run %S/Inputs/dynamic_linear_exec.mlir --guard-pages=after --entry=$entry \
// RUN:           --pass-pipeline="builtin.module(quanta-quantize-dynamic{engine=$engine qconfig=$qconfig},quanta-lower-x86{isa=$isa})" \
// RUN:           --input=%S/Inputs/dynamic_linear_${entry}_input.npy --output=%t.npy || exit 1; \
// RUN:         cmp %t.npy %S/Inputs/dynamic_linear_${entry}_${engine}_${qconfig}_expected.npy && echo "$isa $entry $engine $qconfig identical" || exit 1; \
// RUN:       done; \
// RUN:     done; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-32: avx2 {{[a-z_]+}} {{onednn|qnnpack}} {{[a-z_]+}} identical
// X86-COUNT-32: generic {{[a-z_]+}} {{onednn|qnnpack}} {{[a-z_]+}} identical
//
// The composed pipeline (TOSA to linalg, quanta-quantize-dynamic,
// quanta-lower-cpu), its options routed to the passes that own them.
// RUN: quant-run %S/Inputs/dynamic_linear_exec.mlir --entry=linear \
// RUN:   --pass-pipeline="builtin.module(quanta-compile-dynamic{engine=qnnpack qconfig=per_channel_dynamic})" \
// RUN:   --input=%S/Inputs/dynamic_linear_linear_input.npy --output=%t.pipeline.npy
// RUN: cmp %t.pipeline.npy %S/Inputs/dynamic_linear_linear_qnnpack_per_channel_dynamic_expected.npy

// The threads share the column groups and each step's scalars: the same
// bytes with 2 and 3 threads.
// RUN: for threads in 2 3; do \
// RUN:   for entry in gemm deep; do \
// RUN:     quant-run %S/Inputs/dynamic_linear_exec.mlir --entry=$entry --num-threads=$threads \
// RUN:       --pass-pipeline="builtin.module(quanta-quantize-dynamic,quanta-lower-x86{isa=avx2})" \
// RUN:       --input=%S/Inputs/dynamic_linear_${entry}_input.npy --output=%t.threads.npy || exit 1; \
// RUN:     cmp %t.threads.npy %S/Inputs/dynamic_linear_${entry}_onednn_default_dynamic_expected.npy && echo "$threads threads $entry identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=THREADS
// THREADS-COUNT-4: threads {{[a-z]+}} identical
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for entry in gemm linear matmul_add ties tiny deep nan; do \
// RUN:     for engine in onednn qnnpack; do \
// RUN:       quant-run %S/Inputs/dynamic_linear_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:         --pass-pipeline="builtin.module(quanta-quantize-dynamic{engine=$engine qconfig=per_channel_dynamic},quanta-lower-neon)" \
// RUN:         --input=%S/Inputs/dynamic_linear_${entry}_input.npy --output=%t.$step.npy || exit 1; \
// RUN:       cmp %t.$step.npy %S/Inputs/dynamic_linear_${entry}_${engine}_per_channel_dynamic_expected.npy && echo "$step $entry $engine identical" || exit 1; \
// RUN:     done; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-14: smull {{[a-z_]+}} {{onednn|qnnpack}} identical
// NEON-COUNT-14: sdot {{[a-z_]+}} {{onednn|qnnpack}} identical
// NEON-COUNT-14: smmla {{[a-z_]+}} {{onednn|qnnpack}} identical

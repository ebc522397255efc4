// REQUIRES: avx2
// ONNX Runtime's com.microsoft.DynamicQuantizeLSTM (what its
// quantize_dynamic writes for an LSTM: W [dirs, I, 4H] and R [dirs, H,
// 4H] int8 or uint8, a scale and zero point per direction or per
// direction and column) imports as the LSTM with each product a
// quanta.dynamic_qmatmul with ONNX Runtime's numerics: the input
// projection's X quantized once over every step, the hidden state once per
// step inside the loop. The models and ONNX Runtime 1.30's outputs:
// scripts/goldens/gen_onnx_dynamic_lstm.py. Its gates use MLAS's own
// sigmoid and tanh approximations, so the outputs agree within 1e-5 of
// the largest (2e-7 measured on every level below), not bit for bit; the
// quantization's own error is 1.5e-2 to 4.4e-2, so a float product would
// fail the comparison.
//
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_lstm_u8.onnx | FileCheck %s --check-prefix=IMPORT
// IMPORT: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {weight_scales = array<f32: {{[^}]*}}>, weights = {{.*}} : tensor<16x96xi8>}
// IMPORT: scf.for
// IMPORT: quanta.dynamic_qmatmul %arg{{[0-9]+}} engine(onnx)
// IMPORT-NOT: linalg.matmul
//
// RUN: for model in dynamic_lstm_s8 dynamic_lstm_u8; do \
// RUN:   for isa in host avx2 generic; do \
// RUN:     quant-run %S/Inputs/$model.onnx --guard-pages=after --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/${model}_input.npy --output=%t.npy || exit 1; \
// RUN:     echo "$isa $model" $(%python %S/Inputs/compare_float.py %t.npy %S/Inputs/${model}_expected.npy 1e-5); \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-6: {{host|avx2|generic}} dynamic_lstm_{{s8|u8}} within 1e-05 relative
// RUN: for config in smull:cortex-a72 sdot:neoverse-n1; do \
// RUN:   step=${config%%%%:*} cpu=${config#*:}; \
// RUN:   for model in dynamic_lstm_s8 dynamic_lstm_u8; do \
// RUN:     quant-run %S/Inputs/$model.onnx --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$cpu \
// RUN:       --pass-pipeline="builtin.module(quanta-lower-neon)" \
// RUN:       --input=%S/Inputs/${model}_input.npy --output=%t.$step.npy || exit 1; \
// RUN:     echo "$step $model" $(%python %S/Inputs/compare_float.py %t.$step.npy %S/Inputs/${model}_expected.npy 1e-5); \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON-COUNT-4: {{smull|sdot}} dynamic_lstm_{{s8|u8}} within 1e-05 relative
//
// Without a kernel lowering the products have no lowering to LLVM: said so.
// RUN: not quant-run %S/Inputs/dynamic_lstm_s8.onnx --input=%S/Inputs/dynamic_lstm_s8_input.npy --output=%t.npy 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: error: 'quanta.dynamic_qmatmul' is lowered by the kernel passes only: run quanta-lower-cpu (or quanta-lower-x86, quanta-lower-neon) for the target first
//
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_lstm_bad_scale.onnx 2>&1 | FileCheck %s --check-prefix=BAD-SCALE
// BAD-SCALE: dynamic_lstm_bad_scale.onnx{{.*}}error: DynamicQuantizeLSTM node 'DynamicQuantizeLSTM_0': W's scale (input 8) must be a constant of 1 or 96 values (per direction, or per direction and column)
// W in LSTM's own layout [dirs, 4H, I] instead of DynamicQuantizeLSTM's
// transpose:
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_lstm_bad_weights.onnx 2>&1 | FileCheck %s --check-prefix=BAD-WEIGHTS
// BAD-WEIGHTS: dynamic_lstm_bad_weights.onnx{{.*}}error: DynamicQuantizeLSTM node 'DynamicQuantizeLSTM_0': W (input 1) must be a constant int8 or uint8 [1, 16, 96] (directions, input_size, 4 x hidden_size)

// The GPT-style decoder (causal_op14.onnx: two blocks under a causal mask,
// scripts/goldens/gen_transformer_models.py) one token at a time (batch 1,
// seq 1: every Linear a GEMV, M = 1) under the weight-only and 4-bit
// schemes of quanta-compile-dynamic: each of its 9 Linear layers becomes
// one quanta.weight_only_matmul (attention's two activation products per
// block stay float batch matmuls), and the logits stay within each
// scheme's rounding of the float model's (run by the same tool, which
// transformer-float.mlir holds to PyTorch's within 1e-5): f16 weights
// 1e-3, per-column int8 2e-2, 4-bit weights per group of 16, with f32 or
// int8 activations, 0.25 of the largest logit (random weights, 10 logits).
//
// RUN: quant-translate --import-onnx %S/Inputs/causal_op14.onnx --onnx-dim=batch=1,seq=1 \
// RUN:   | quant-opt --pass-pipeline="builtin.module(quanta-quantize-dynamic{qconfig=int4_dynamic group-size=16})" | FileCheck %s
// CHECK-COUNT-9: quanta.weight_only_matmul %{{.*}}group_size = 16 : i64, int8_activations
// CHECK-NOT: linalg.matmul
//
// RUN: quant-run %S/Inputs/causal_op14.onnx --onnx-dim=batch=1,seq=1 --input=%S/Inputs/decoder_token.npy --output=%t.float.npy
// RUN: for scheme in float16_dynamic:1e-3 weight_only_int8:2e-2 weight_only_int4:0.25 int4_dynamic:0.25; do \
// RUN:   qconfig=${scheme%%%%:*}; tolerance=${scheme#*:}; \
// RUN:   quant-run %S/Inputs/causal_op14.onnx --onnx-dim=batch=1,seq=1 --input=%S/Inputs/decoder_token.npy --output=%t.$qconfig.npy \
// RUN:     --pass-pipeline="builtin.module(quanta-compile-dynamic{qconfig=$qconfig group-size=16})" 2>/dev/null || exit 1; \
// RUN:   %python %S/Inputs/compare_float.py %t.$qconfig.npy %t.float.npy $tolerance | sed "s/^/$qconfig /"; \
// RUN: done | FileCheck %s --check-prefix=CLOSE
// CLOSE: float16_dynamic within 0.001 relative
// CLOSE: weight_only_int8 within 0.02 relative
// CLOSE: weight_only_int4 within 0.25 relative
// CLOSE: int4_dynamic within 0.25 relative

// Transformer encoders as PyTorch 1.13 exports them (token embedding of
// int64 ids, learned positions sliced to the sequence, multi-head attention
// with its Shape -> Gather -> Unsqueeze -> Concat -> Reshape chains,
// LayerNorm decomposed at opset 13 and LayerNormalization at 17, GELU's
// Erf, a Trilu causal mask) import with every symbolic dimension bound by
// name, the shape computations done at import, and run in float equal to
// PyTorch within 1e-5 (goldens: scripts/goldens/gen_transformer_models.py).
// RUN: quant-translate --import-onnx %S/Inputs/encoder_op13.onnx --onnx-dim=batch=2,seq=16 | FileCheck %s --check-prefix=IMPORT
// RUN: quant-run %S/Inputs/encoder_op13.onnx --onnx-dim=batch=2,seq=16 --input=%S/Inputs/encoder_ids.npy --output=%t.13.npy
// RUN: %python %S/Inputs/compare_float.py %t.13.npy %S/Inputs/encoder_expected.npy | FileCheck %s --check-prefix=SAME
// RUN: quant-run %S/Inputs/encoder_op17.onnx --onnx-dim=seq=16 --onnx-batch=2 --input=%S/Inputs/encoder_ids.npy --output=%t.17.npy
// RUN: %python %S/Inputs/compare_float.py %t.17.npy %S/Inputs/encoder_expected.npy | FileCheck %s --check-prefix=SAME
// With Quanta's float kernels (the Linear layers' FMA tiles): the same.
// RUN: quant-run %S/Inputs/encoder_op13.onnx --onnx-dim=batch=2,seq=16 --input=%S/Inputs/encoder_ids.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.13k.npy
// RUN: %python %S/Inputs/compare_float.py %t.13k.npy %S/Inputs/encoder_expected.npy | FileCheck %s --check-prefix=SAME
// RUN: quant-run %S/Inputs/causal_op14.onnx --onnx-dim=batch=2,seq=16 --input=%S/Inputs/encoder_ids.npy --output=%t.14.npy
// RUN: %python %S/Inputs/compare_float.py %t.14.npy %S/Inputs/causal_expected.npy | FileCheck %s --check-prefix=SAME
// Token ids out of the vocabulary (100, 5000, -1, -100) read the nearest
// row (negative ones count from the end, as ONNX defines), never memory
// outside the table: guard pages after every buffer would fault.
// RUN: quant-run %S/Inputs/encoder_op13.onnx --onnx-dim=batch=2,seq=16 --input=%S/Inputs/encoder_ids_out_of_range.npy --guard-pages=after --output=%t.far.npy
// RUN: %python %S/Inputs/compare_float.py %t.far.npy %S/Inputs/encoder_out_of_range_expected.npy | FileCheck %s --check-prefix=SAME
// A shorter sequence is another binding of the same model.
// RUN: quant-translate --import-onnx %S/Inputs/causal_op14.onnx --onnx-dim=batch=1,seq=8 | FileCheck %s --check-prefix=SEQ8

// IMPORT-LABEL: func.func @main(%arg0: tensor<2x16xi64> {onnx.name = "ids"}) -> (tensor<2x10xf32> {onnx.name = "logits"})
// The embedding: a gather of the table at clamped ids.
// IMPORT: linalg.generic
// IMPORT: arith.index_cast
// IMPORT: arith.maxsi
// IMPORT: arith.minsi
// IMPORT: tensor.extract %{{.*}} : tensor<100x32xf32>
// No shape computation is left to run time.
// IMPORT-NOT: tensor.concat
// IMPORT-NOT: xi64>
// IMPORT: math.erf
// IMPORT: return
// SAME: within 1e-05 relative
// SEQ8: func.func @main(%arg0: tensor<1x8xi64> {onnx.name = "ids"}) -> (tensor<1x10xf32> {onnx.name = "logits"})

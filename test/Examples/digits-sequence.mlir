// The sequence models of the digits example (examples/digits/
// train_sequence.py: a 2-layer transformer encoder and an LSTM reading an
// image as its 8 rows), calibrated on the 8 training batches at batch 32
// and applied at the held-out set's size (400): int8 accuracy within one
// point of float. Their Linear layers (Q/K/V, output projection,
// feed-forward, head), the transformer's attention products (Q.K^T and
// softmax(.).V of both layers: quanta.qbatch_matmul) and the LSTM's
// projection and recurrent product are int8 GEMMs; what stays float
// (elementwise ops and reductions) is listed by report-float-ops.
// RUN: %python -c "import glob; print(','.join(sorted(glob.glob('%quanta_src_root/examples/digits/calibration/batch*.npy'))))" > %t.data
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_transformer.onnx --onnx-batch=32 --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=x86 --quanta-calibrate="data=$(cat %t.data) quiet" --quanta-export-statistics=file=%t.transformer.json -o /dev/null
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_transformer.onnx --onnx-batch=400 --mlir-print-debuginfo -o %t.transformer.mlir
// RUN: quant-opt %t.transformer.mlir --quanta-prepare=qconfig=x86 --quanta-import-statistics=files=%t.transformer.json --quanta-freeze-qparams --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o %t.transformer.int8.mlir 2>&1 | FileCheck %s --check-prefix=TRANSFORMER
// RUN: grep -c quanta.qbatch_matmul %t.transformer.int8.mlir | FileCheck %s --check-prefix=PRODUCTS
// RUN: quant-run %t.transformer.mlir --input=%quanta_src_root/examples/digits/test_images.npy --output=%t.transformer.float.npy
// RUN: quant-run %t.transformer.int8.mlir --input=%quanta_src_root/examples/digits/test_images.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.transformer.int8.npy
// RUN: %python %S/Inputs/compare_accuracy.py %t.transformer.float.npy %t.transformer.int8.npy %quanta_src_root/examples/digits/test_labels.npy | FileCheck %s --check-prefix=ACCURACY
// PyTorch 1.13's own static quantization of the same float transformer
// (examples/digits/torch_sequence_ptq_goldens.py: FX, the x86 qconfig on
// its Linear layers, which is what FX quantizes of a transformer; the same
// 8 calibration batches): Quanta's int8 model, whose attention products,
// residual adds and GELU are integer too, is no less accurate.
// RUN: %python -c "import sys, numpy as np; q = np.load(sys.argv[1]); t = np.load(sys.argv[2]); labels = np.load(sys.argv[3]); quanta = (q.argmax(1) == labels).mean() * 100; torch = float(t['accuracy']) * 100; print(f'quanta {quanta:.2f}% pytorch fx {torch:.2f}%:', 'at least as accurate' if quanta >= torch else 'LESS accurate')" %t.transformer.int8.npy %S/Inputs/digits_transformer_fx.npz %quanta_src_root/examples/digits/test_labels.npy | FileCheck %s --check-prefix=VS-PYTORCH
//
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_lstm.onnx --onnx-batch=32 --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=x86 --quanta-calibrate="data=$(cat %t.data) quiet" --quanta-export-statistics=file=%t.lstm.json -o /dev/null
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_lstm.onnx --onnx-batch=400 --mlir-print-debuginfo -o %t.lstm.mlir
// RUN: quant-opt %t.lstm.mlir --quanta-prepare=qconfig=x86 --quanta-import-statistics=files=%t.lstm.json --quanta-freeze-qparams --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o %t.lstm.int8.mlir 2>&1 | FileCheck %s --check-prefix=LSTM
// RUN: quant-run %t.lstm.mlir --input=%quanta_src_root/examples/digits/test_images.npy --output=%t.lstm.float.npy
// RUN: quant-run %t.lstm.int8.mlir --input=%quanta_src_root/examples/digits/test_images.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.lstm.int8.npy
// RUN: %python %S/Inputs/compare_accuracy.py %t.lstm.float.npy %t.lstm.int8.npy %quanta_src_root/examples/digits/test_labels.npy | FileCheck %s --check-prefix=ACCURACY

// TRANSFORMER-NOT: matmul
// TRANSFORMER: remark: stays float between dequantize and quantize: quanta-quantize has no integer form for 'linalg.generic' yet
// TRANSFORMER-NOT: matmul
// TRANSFORMER: remark: quanta-quantize: 9 float compute op(s) left: linalg.generic x9{{$}}
// PRODUCTS: 4
// LSTM: remark: quanta-quantize: 3 float compute op(s) left: linalg.generic x3
// ACCURACY: within 1 point
// VS-PYTORCH: quanta {{[0-9.]+}}% pytorch fx 98.50%: at least as accurate

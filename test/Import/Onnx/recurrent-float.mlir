// Recurrent networks as PyTorch 1.13 exports them: a 2-layer
// bidirectional batch_first LSTM, a GRU from a given initial state
// (linear_before_reset, PyTorch's form), a ReLU RNN returning its whole
// sequence. Each direction imports as one input projection for every step
// and an scf.for over time; the float outputs equal PyTorch's within 1e-5
// (goldens: scripts/goldens/gen_recurrent_models.py).
// RUN: quant-translate --import-onnx %S/Inputs/lstm_op14.onnx --onnx-dim=batch=2,seq=5 | FileCheck %s --check-prefix=IMPORT
// RUN: quant-run %S/Inputs/lstm_op14.onnx --onnx-dim=batch=2,seq=5 --input=%S/Inputs/recurrent_x.npy --output=%t.lstm.npy
// RUN: %python %S/Inputs/compare_float.py %t.lstm.npy %S/Inputs/lstm_expected.npy | FileCheck %s --check-prefix=SAME
// RUN: quant-run %S/Inputs/gru_op14.onnx --onnx-dim=batch=2,seq=5 --input=%S/Inputs/recurrent_x.npy --input=%S/Inputs/recurrent_h0.npy --output=%t.gru.npy
// RUN: %python %S/Inputs/compare_float.py %t.gru.npy %S/Inputs/gru_expected.npy | FileCheck %s --check-prefix=SAME
// RUN: quant-run %S/Inputs/rnn_op14.onnx --input=%S/Inputs/recurrent_x_seq_first.npy --output=%t.rnn_y.npy --output=%t.rnn_h.npy
// RUN: %python %S/Inputs/compare_float.py %t.rnn_y.npy %S/Inputs/rnn_expected_y.npy | FileCheck %s --check-prefix=SAME
// RUN: %python %S/Inputs/compare_float.py %t.rnn_h.npy %S/Inputs/rnn_expected_h.npy | FileCheck %s --check-prefix=SAME
//
// Static int8: the projections and the recurrent products become int8
// GEMMs inside the loop; the gates stay float (listed).
// RUN: %python -c "import numpy as np; [np.save('%t.cal%%d.npy' %% i, np.random.default_rng(i).standard_normal((2, 5, 8)).astype(np.float32)) for i in range(3)]"
// RUN: quant-translate --import-onnx %S/Inputs/lstm_op14.onnx --onnx-dim=batch=2,seq=5 --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: quant-run %t.ptq.mlir --input=%S/Inputs/recurrent_x.npy --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-x86)' --output=%t.lstm_int8.npy
// RUN: %python %S/Inputs/compare_float.py %t.lstm_int8.npy %S/Inputs/lstm_expected.npy 0.05 | FileCheck %s --check-prefix=INT8
//
// Bad input: weights that do not match the input, sequence_lens shorter
// than the sequence.
// RUN: not quant-translate --import-onnx %S/Inputs/lstm_bad_weights.onnx 2>&1 | FileCheck %s --check-prefix=WEIGHTS
// RUN: not quant-translate --import-onnx %S/Inputs/lstm_short_rows.onnx 2>&1 | FileCheck %s --check-prefix=ROWS

// IMPORT-LABEL: func.func @main(%arg0: tensor<2x5x8xf32> {onnx.name = "x"}) -> (tensor<2x4xf32> {onnx.name = "y"})
// The input projection of all 5 steps of the first direction, then its loop.
// IMPORT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<10x8xf32>, tensor<8x64xf32>)
// IMPORT: scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}, %{{.*}} = %{{.*}}) -> (tensor<2x16xf32>, tensor<2x16xf32>, tensor<5x2x16xf32>)
// IMPORT: linalg.matmul ins(%{{.*}}, %{{.*}} : tensor<2x16xf32>, tensor<16x64xf32>)
// IMPORT: math.tanh
// IMPORT: tensor.insert_slice
// IMPORT: scf.yield
// SAME: within 1e-05 relative
// REMARK: remark: quanta-quantize: 9 float compute op(s) left: linalg.generic x9{{$}}
// INT8: within 0.05 relative
// WEIGHTS: lstm_bad_weights.onnx:0:0: error: LSTM node 'lstm': W has shape 'tensor<1x64x7xf32>'; expected [1, 64, 8] (directions, gates x hidden_size, ...)
// ROWS: error: LSTM node 'lstm': sequence_lens other than 5 for every batch row is not supported

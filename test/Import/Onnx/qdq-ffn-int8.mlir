// A transformer's feed-forward block as ONNX Runtime's quantize_static
// writes it in QDQ form (qdq_ffn.onnx): MatMul of a [batch, 8, 16]
// activation by per-channel s8 weights, the bias Add after it, Relu, a
// second MatMul, a residual Add, Q/DQ around every activation. The MatMuls
// are GEMMs of the activation's rows: quanta-quantize collapses the
// quantized activation itself, so both Linear layers become int8 GEMMs and
// the residual an integer add, with no calibration: 0 float ops, within
// one output step of the QDQ model run in float.
//
// RUN: quant-translate --import-onnx %S/Inputs/qdq_ffn.onnx --onnx-batch=2 | FileCheck %s --check-prefix=IMPORT
// IMPORT: tensor.collapse_shape %{{.*}} : tensor<2x8x16xf32> into tensor<16x16xf32>
// IMPORT: linalg.matmul
//
// RUN: quant-translate --import-onnx %S/Inputs/qdq_ffn.onnx --onnx-batch=2 -o %t.mlir
// RUN: quant-opt %t.mlir --quanta-freeze-qparams --quanta-quantize=report-float-ops --quanta-propagate-layout -o %t.int8.mlir 2>&1 | FileCheck %s --check-prefix=INT8
// INT8-NOT: stays float
// INT8: remark: quanta-quantize: 0 float compute op(s) left
// RUN: FileCheck %s --check-prefix=GEMMS < %t.int8.mlir
// GEMMS-COUNT-2: quanta.qmatmul
//
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(5).uniform(-2, 2, (2, 8, 16)).astype(np.float32))"
// RUN: quant-run %t.mlir --input=%t.x.npy --output=%t.ref.npy
// RUN: quant-run %t.int8.mlir --input=%t.x.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.int.npy
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('max difference', int(np.round(np.abs(a - b).max() / 0.04)), 'steps of', a.size)" %t.int.npy %t.ref.npy | FileCheck %s --check-prefix=EXEC
// EXEC: max difference {{0|1}} steps of 256

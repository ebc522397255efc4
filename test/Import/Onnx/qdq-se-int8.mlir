// An EfficientNet-style block from a QDQ model: a 5x5 depthwise
// convolution and squeeze-excite (global average pool, a 1x1 convolution,
// a sigmoid, and the block's output scaled by it through a broadcasting
// Mul). All of it int8, within one output step of the q/dq model in float.
//
// RUN: quant-translate --import-onnx %S/Inputs/qdq_se.onnx -o %t.qdq.mlir
// RUN: quant-opt %t.qdq.mlir --quanta-freeze-qparams --quanta-quantize=report-float-ops --quanta-propagate-layout --mlir-print-op-on-diagnostic=false -o %t.int8.mlir 2>&1 | FileCheck %s
// CHECK-NOT: stays float
// CHECK: remark: quanta-quantize: 0 float compute op(s) left
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(8).uniform(-2.5, 2.5, (1, 4, 7, 7)).astype(np.float32))"
// RUN: quant-run %t.qdq.mlir --input=%t.x.npy --output=%t.float.npy
// RUN: quant-run %t.int8.mlir --pass-pipeline='builtin.module(quanta-lower-cpu)' --input=%t.x.npy --output=%t.int8.npy
// RUN: %python -c "import numpy as np; f, q = np.load('%t.float.npy'), np.load('%t.int8.npy'); d = np.abs(f - q).max() / 0.02; print('steps', round(d)); assert d <= 1.001, d"

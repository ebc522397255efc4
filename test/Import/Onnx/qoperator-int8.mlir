// ONNX Runtime's QOperator format: its contrib ops (domain com.microsoft)
// QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu, QLinearConcat
// and QLinearGlobalAveragePool around a QLinearConv import as the QDQ
// nodes they stand for (DequantizeLinear of each input, the float op,
// QuantizeLinear), and QGemm (weights per output channel, transB, an i32
// bias) as Gemm between dequantized operands, so quanta-quantize makes the
// whole model integer code: two int8 GEMMs.
// A quantized tensor read by two consumers (here the leaky relu's output,
// by the mul and the concat) keeps one fake quantization.
//
// RUN: quant-translate --import-onnx %S/Inputs/qoperator.onnx -o %t.qdq.mlir
// RUN: FileCheck %s < %t.qdq.mlir
// CHECK-COUNT-11: quanta.fake_quant
// CHECK-NOT: quanta.fake_quant
// CHECK: return
//
// RUN: quant-opt %t.qdq.mlir --quanta-freeze-qparams --quanta-quantize=report-float-ops --quanta-propagate-layout --mlir-print-op-on-diagnostic=false -o %t.int8.mlir 2>&1 | FileCheck %s --check-prefix=INT8
// INT8-NOT: stays float
// INT8: remark: quanta-quantize: 0 float compute op(s) left
// RUN: FileCheck %s --check-prefix=GEMMS < %t.int8.mlir
// GEMMS-COUNT-2: quanta.qmatmul
//
// The int8 model against the q/dq model run in float: within one output
// step (0.05).
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(7).uniform(-2.5, 2.5, (1, 4, 6, 6)).astype(np.float32))"
// RUN: quant-run %t.qdq.mlir --input=%t.x.npy --output=%t.float.npy
// RUN: quant-run %t.int8.mlir --pass-pipeline='builtin.module(quanta-lower-cpu)' --input=%t.x.npy --output=%t.int8.npy
// RUN: %python -c "import numpy as np; f, q = np.load('%t.float.npy'), np.load('%t.int8.npy'); d = np.abs(f - q).max() / 0.05; print('steps', round(d)); assert d <= 1.001, d"
//
// What the importer cannot take says so.
// RUN: not quant-translate --import-onnx %S/Inputs/qoperator_nhwc.onnx 2>&1 | FileCheck %s --check-prefix=NHWC
// NHWC: error: QLinearGlobalAveragePool node 'gq': channels_last = 1 is not supported

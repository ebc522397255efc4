// QLinearMatMul with u8 weights and a zero point (ONNX Runtime's QOperator
// format; QLinearConv's weights in ONNX's own tests): the importer takes
// them as the s8 weights with the same values (every integer and the zero
// point 128 lower), which the integer GEMM takes.
//
// RUN: quant-translate --import-onnx %S/Inputs/qlinear_u8.onnx | FileCheck %s
// CHECK: quanta.fake_quant %{{.*}} {quant_max = 127 : i64, quant_min = -128 : i64, scale = array<f32: 0.00999999977>, zero_point = array<i64: -8>} : tensor<6x5xf32>
//
// RUN: quant-translate --import-onnx %S/Inputs/qlinear_u8.onnx | quant-opt --quanta-freeze-qparams --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o %t.int8.mlir 2>&1 | FileCheck %s --check-prefix=INT8
// INT8-NOT: stays float
// INT8: remark: quanta-quantize: 0 float compute op(s) left
// RUN: FileCheck %s --check-prefix=GEMM < %t.int8.mlir
// GEMM: quanta.qmatmul {{.*}}weight_zero_points = array<i32: -8>
//
// The int8 model against the q/dq model run in float: within one output
// step (0.1).
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(6).uniform(-2.5, 2.5, (3, 6)).astype(np.float32))"
// RUN: quant-translate --import-onnx %S/Inputs/qlinear_u8.onnx -o %t.qdq.mlir
// RUN: quant-run %t.qdq.mlir --input=%t.x.npy --output=%t.float.npy
// RUN: quant-run %t.int8.mlir --pass-pipeline='builtin.module(quanta-lower-cpu)' --input=%t.x.npy --output=%t.int8.npy
// RUN: %python -c "import numpy as np; f, q = np.load('%t.float.npy'), np.load('%t.int8.npy'); d = np.abs(f - q).max() / 0.1; print('steps', round(d)); assert d <= 1.001, d"

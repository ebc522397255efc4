// The two layers of ONNX Runtime's QDQ output that used to stay float: a
// depthwise convolution, whose [C, 1, 3, 3] weights the importer reshapes
// to [C, 3, 3], and Gemm with transB=1 (every nn.Linear), whose [N, K]
// weights it transposes. Both are done on the quantized constant at
// import, its quantized dimension moved along (the transposed Gemm
// weights are per channel on axis 1), so quanta-quantize finds quantized
// constant weights and both become int8 GEMMs.
//
// RUN: quant-translate --import-onnx %S/Inputs/qdq_head.onnx | FileCheck %s
// CHECK-LABEL: func.func @main
// CHECK: quanta.fake_quant %{{.*}} {axis = 0 : i64, {{.*}}} : tensor<4x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw
// CHECK: quanta.fake_quant %{{.*}} {axis = 1 : i64, {{.*}}} : tensor<4x3xf32>
// CHECK-NOT: linalg.transpose
// CHECK: linalg.matmul
//
// RUN: quant-translate --import-onnx %S/Inputs/qdq_head.onnx | quant-opt --quanta-freeze-qparams --quanta-quantize=report-float-ops --quanta-propagate-layout -o %t.int8.mlir 2>&1 | FileCheck %s --check-prefix=INT8
// INT8-NOT: stays float
// INT8: remark: quanta-quantize: 0 float compute op(s) left
// RUN: FileCheck %s --check-prefix=GEMMS < %t.int8.mlir
// GEMMS-COUNT-2: quanta.qmatmul
//
// The int8 model against the q/dq model run in float: within one output
// step (0.05), the requantizations rounding once where float rounds at
// each layer.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.random.default_rng(5).uniform(-2, 2, (1, 4, 6, 6)).astype(np.float32))"
// RUN: quant-translate --import-onnx %S/Inputs/qdq_head.onnx -o %t.qdq.mlir
// RUN: quant-run %t.qdq.mlir --input=%t.x.npy --output=%t.float.npy
// RUN: quant-run %t.int8.mlir --pass-pipeline='builtin.module(quanta-lower-cpu)' --input=%t.x.npy --output=%t.int8.npy
// RUN: %python -c "import numpy as np; f, q = np.load('%t.float.npy'), np.load('%t.int8.npy'); d = np.abs(f - q).max() / 0.05; print('steps', round(d)); assert d <= 1.001, d"
//
// The same with symmetric s8 activations (zero point 0), as TensorRT's
// quantizer writes them: fully int8 too, within one step of float.
// RUN: quant-translate --import-onnx %S/Inputs/qdq_head_s8.onnx -o %t.s8.qdq.mlir
// RUN: quant-opt %t.s8.qdq.mlir --quanta-freeze-qparams --quanta-quantize=report-float-ops --quanta-propagate-layout -o %t.s8.int8.mlir 2>&1 | FileCheck %s --check-prefix=INT8
// RUN: FileCheck %s --check-prefix=GEMMS < %t.s8.int8.mlir
// RUN: quant-run %t.s8.qdq.mlir --input=%t.x.npy --output=%t.s8.float.npy
// RUN: quant-run %t.s8.int8.mlir --pass-pipeline='builtin.module(quanta-lower-cpu)' --input=%t.x.npy --output=%t.s8.int8.npy
// RUN: %python -c "import numpy as np; f, q = np.load('%t.s8.float.npy'), np.load('%t.s8.int8.npy'); d = np.abs(f - q).max() / 0.05; print('steps', round(d)); assert d <= 1.001, d"

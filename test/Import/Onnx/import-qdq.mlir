// RUN: quant-translate --import-onnx %S/Inputs/qdq.onnx | FileCheck %s
// RUN: quant-translate --import-onnx %S/Inputs/qdq.onnx | quant-opt --quanta-freeze-qparams --quanta-quantize 2>&1 | FileCheck %s --check-prefix=INT8
// Canonicalize, the first pass anyone runs, keeps the quantization: it
// folds a quant.qcast -> quant.dcast pair into nothing, but not a
// quanta.fake_quant.
// RUN: quant-translate --import-onnx %S/Inputs/qdq.onnx | quant-opt --canonicalize | quant-opt --quanta-freeze-qparams --quanta-quantize 2>&1 | FileCheck %s --check-prefix=INT8

// A QDQ model as ONNX Runtime's quantizer writes it: u8 activations per
// tensor, s8 weights per output channel, the i32 bias. QuantizeLinear ->
// DequantizeLinear and DequantizeLinear of constant weights become
// quanta.fake_quant with the model's own scales and zero points (the
// weights' of their float values); quanta-freeze-qparams then makes them
// quant.qcast -> quant.dcast pairs with !quant.uniform types (for weights
// the quantized float constant it writes for calibrated ones), which
// quanta-quantize takes. The i32 bias is dequantized at import.

// CHECK-LABEL: func.func @main
// CHECK: %[[X:.*]] = quanta.fake_quant %arg0 {quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 2.000000e-02>, zero_point = array<i64: 128>} : tensor<1x3x6x6xf32>
// CHECK: %[[W:.*]] = quanta.fake_quant %{{.*}} {axis = 0 : i64, quant_max = 127 : i64, quant_min = -128 : i64, scale = array<f32: {{.*}}>, zero_point = array<i64: 0, 0, 0, 0>} : tensor<4x3x3x3xf32>
// CHECK: tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: quanta.fake_quant %{{.*}} {quant_max = 255 : i64, quant_min = 0 : i64, scale = array<f32: 5.000000e-02>, zero_point = array<i64: 0>}
// CHECK-NOT: quant.
// CHECK: return

// quanta-quantize with no calibration: the convolution, its bias and relu
// become one int8 GEMM; its padding (the input's zero point) moved onto
// the storage integers.
// INT8-NOT: remark
// INT8: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// INT8: tensor.yield %{{.*}} : i8
// INT8: quanta.qmatmul
// INT8-NOT: linalg.conv

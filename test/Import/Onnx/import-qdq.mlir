// RUN: quant-translate --import-onnx %S/Inputs/qdq.onnx | FileCheck %s
// RUN: quant-translate --import-onnx %S/Inputs/qdq.onnx | quant-opt --quanta-quantize 2>&1 | FileCheck %s --check-prefix=INT8

// A QDQ model as ONNX Runtime's quantizer writes it: the model's own
// scales and zero points become !quant.uniform types, u8 activations per
// tensor, s8 weights per output channel (DequantizeLinear of a constant:
// its float values quantized, the form quanta-freeze-qparams writes), the
// i32 bias dequantized at import; QuantizeLinear -> DequantizeLinear is
// qcast -> dcast (no storage casts between them, which canonicalize would
// fold into nothing).

// CHECK-LABEL: func.func @main
// CHECK: %[[Q:.*]] = quant.qcast %arg0 : tensor<1x3x6x6xf32> to tensor<1x3x6x6x!quant.uniform<u8:f32, 0.019999999552965164:128>>
// CHECK: %[[X:.*]] = quant.dcast %[[Q]]
// CHECK: %[[WF:.*]] = arith.constant dense<{{.*}}> : tensor<4x3x3x3xf32>
// CHECK: %[[WQ:.*]] = quant.qcast %[[WF]] : tensor<4x3x3x3xf32> to tensor<4x3x3x3x!quant.uniform<i8:f32:0, {{.*}}>>
// CHECK: %[[W:.*]] = quant.dcast %[[WQ]]
// CHECK: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// CHECK: tensor.pad %[[X]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: linalg.conv_2d_nchw_fchw
// CHECK: quant.qcast %{{.*}} : tensor<1x4x6x6xf32> to tensor<1x4x6x6x!quant.uniform<u8:f32, 0.05000000074505806>>
// CHECK-NOT: quant.scast
// CHECK: return

// quanta-quantize with no calibration: the convolution, its bias and relu
// become one int8 GEMM; its padding (the input's zero point) moved onto
// the storage integers.
// INT8-NOT: remark
// INT8: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// INT8: tensor.yield %{{.*}} : i8
// INT8: quanta.qmatmul
// INT8-NOT: linalg.conv

// Pass options quanta-quantize-dynamic refuses, with the values it takes.
// RUN: not quant-opt %s --quanta-quantize-dynamic=engine=fbgemm 2>&1 | FileCheck %s --check-prefix=ENGINE
// ENGINE: error: quanta-quantize-dynamic: unknown engine 'fbgemm' (expected onednn, qnnpack or onnx)
// RUN: not quant-opt %s --quanta-quantize-dynamic=qconfig=x86 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: quanta-quantize-dynamic: qconfig 'x86' is no dynamic qconfig (expected default_dynamic, per_channel_dynamic, float16_dynamic, weight_only_bf16, bf16_dot, weight_only_int8, weight_only_int4 or int4_dynamic)
// RUN: not quant-opt %s --quanta-quantize-dynamic=qconfig=float_qparams_weight_only 2>&1 | FileCheck %s --check-prefix=EMBEDDING
// EMBEDDING: error: quanta-quantize-dynamic: qconfig 'float_qparams_weight_only' is no dynamic qconfig
// RUN: not quant-opt %s --quanta-quantize-dynamic="qconfig=weight_only_int4 group-size=0" 2>&1 | FileCheck %s --check-prefix=GROUP
// GROUP: error: quanta-quantize-dynamic: group-size must be positive and even (4-bit weights are stored two per byte), got 0
// RUN: not quant-opt %s --quanta-quantize-dynamic="qconfig=weight_only_int4 group-size=33" 2>&1 | FileCheck %s --check-prefix=ODD
// ODD: error: quanta-quantize-dynamic: group-size must be positive and even (4-bit weights are stored two per byte), got 33
// RUN: quant-opt %s --quanta-quantize-dynamic="int4-asymmetric=true" 2>&1 | FileCheck %s --check-prefix=INT4-OPTION
// INT4-OPTION: warning: quanta-quantize-dynamic: int4-asymmetric and int4-f16-scales apply to weight_only_int4 and int4_dynamic layers; none here (qconfig=default_dynamic)
func.func @f(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  return %x : tensor<1x1xf32>
}

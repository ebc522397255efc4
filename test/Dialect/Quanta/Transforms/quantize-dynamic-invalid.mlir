// Pass options quanta-quantize-dynamic refuses, with the values it takes.
// RUN: not quant-opt %s --quanta-quantize-dynamic=engine=fbgemm 2>&1 | FileCheck %s --check-prefix=ENGINE
// ENGINE: error: quanta-quantize-dynamic: unknown engine 'fbgemm' (expected onednn or qnnpack)
// RUN: not quant-opt %s --quanta-quantize-dynamic=qconfig=x86 2>&1 | FileCheck %s --check-prefix=STATIC
// STATIC: error: quanta-quantize-dynamic: qconfig 'x86' is no dynamic qconfig (expected default_dynamic or per_channel_dynamic)
// RUN: not quant-opt %s --quanta-quantize-dynamic=qconfig=float16_dynamic 2>&1 | FileCheck %s --check-prefix=FP16
// FP16: error: quanta-quantize-dynamic: qconfig 'float16_dynamic' is no dynamic qconfig
func.func @f(%x: tensor<1x1xf32>) -> tensor<1x1xf32> {
  return %x : tensor<1x1xf32>
}

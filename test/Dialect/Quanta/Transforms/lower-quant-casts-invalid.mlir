// RUN: quant-opt %s -split-input-file --quanta-lower-quant-casts -verify-diagnostics

func.func @f16_expressed(%x: tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>> {
  // expected-error @+1 {{lowers float32 values only, got 'f16'}}
  %0 = quant.qcast %x : tensor<4xf16> to tensor<4x!quant.uniform<i8:f16, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f16, 0.5>>
}

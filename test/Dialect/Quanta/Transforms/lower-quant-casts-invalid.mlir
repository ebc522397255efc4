// RUN: quant-opt %s -split-input-file --quanta-lower-quant-casts -verify-diagnostics

func.func @f16_expressed(%x: tensor<4xf16>) -> tensor<4x!quant.uniform<i8:f16, 0.5>> {
  // expected-error @+1 {{lowers float32 values only, got 'f16'}}
  %0 = quant.qcast %x : tensor<4xf16> to tensor<4x!quant.uniform<i8:f16, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f16, 0.5>>
}

// -----

// The pattern driver does not visit unreachable blocks: what is left there
// is an error, not a silently float op.
func.func @unreachable(%x: tensor<4xf32>) -> tensor<4x!quant.uniform<i8:f32, 0.5>> {
  %0 = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %0 : tensor<4x!quant.uniform<i8:f32, 0.5>>
^dead:
  // expected-error @+1 {{is in an unreachable block, which the lowering does not visit}}
  %1 = quant.qcast %x : tensor<4xf32> to tensor<4x!quant.uniform<i8:f32, 0.5>>
  return %1 : tensor<4x!quant.uniform<i8:f32, 0.5>>
}

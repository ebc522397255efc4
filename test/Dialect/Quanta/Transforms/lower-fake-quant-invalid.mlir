// RUN: quant-opt %s -split-input-file --quanta-lower-fake-quant -verify-diagnostics

func.func @no_qparams(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has no known qparams to lower with: calibrate or set 'scale' and 'zero_point'}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<>, observer_enabled = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// The pattern driver does not visit unreachable blocks: what is left there
// is an error, not a silently float op.
func.func @unreachable(%x: tensor<4xf32>) -> tensor<4xf32> {
  return %x : tensor<4xf32>
^dead:
  // expected-error @+1 {{is in an unreachable block, which the lowering does not visit}}
  %0 = quanta.fake_quant %x {scale = array<f32: 0.1>, zero_point = array<i64: 3>, quant_min = 0, quant_max = 255} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

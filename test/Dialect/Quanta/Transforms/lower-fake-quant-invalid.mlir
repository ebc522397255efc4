// RUN: quant-opt %s -split-input-file --quanta-lower-fake-quant -verify-diagnostics

func.func @no_qparams(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{has no known qparams to lower with: calibrate or set 'scale' and 'zero_point'}}
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<>, observer_enabled = true} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

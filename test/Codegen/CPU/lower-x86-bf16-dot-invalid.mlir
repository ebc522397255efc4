// RUN: quant-opt %s --quanta-lower-x86=isa=avx512vnni -verify-diagnostics
// RUN: quant-opt %s --quanta-lower-neon=features=i8mm -verify-diagnostics

// bf16 activations (qconfig bf16_dot) need AVX512-BF16's vdpbf16ps: a
// target without it (the avx512vnni level has none; AArch64's bfdot is not
// used) gets a located error, never a silent fallback to other numerics.
func.func @bf16_dot(%x: tensor<3x4xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'quanta.weight_only_matmul' op bf16_activations needs AVX512-BF16 (vdpbf16ps), which the target lacks; bf16 weights without it (qconfig weight_only_bf16) keep the activations f32 on any CPU}}
  %y = quanta.weight_only_matmul %x {weights = dense<1.0> : tensor<4x2xbf16>, bf16_activations} : tensor<3x4xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

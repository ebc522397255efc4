// RUN: quant-opt %s --split-input-file --quanta-lower-x86 -verify-diagnostics

// Weights held in a resource blob cannot be packed at compile time.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
module attributes {quanta.target = "x86_64+avx2+fma"} {
func.func @resource(%a: tensor<2x2x!in>) -> tensor<2x2x!out> {
  // expected-error @below {{quanta-lower-x86 needs weights whose values can be read, got dense_resource<w> : tensor<2x2xi8>}}
  %r = quanta.qmatmul %a {weights = dense_resource<w> : tensor<2x2xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0>, multipliers = array<i32: 0, 0>, shifts = array<i32: 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x2x!in> -> tensor<2x2x!out>
  return %r : tensor<2x2x!out>
}
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x0100000001020304"
    }
  }
#-}

// -----

// A module recorded for AArch64 (quant-compile --target-triple=aarch64-...)
// given to the x86 lowering.
// expected-error @+1 {{quanta-lower-x86: the target, the module's quanta.target, is aarch64+neon+dotprod, not x86_64; lower it with quanta-lower-neon, or give quanta-lower-x86 a isa}}
module attributes {quanta.target = "aarch64+neon+dotprod"} {
}

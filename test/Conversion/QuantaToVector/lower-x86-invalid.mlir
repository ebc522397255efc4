// RUN: quant-opt %s --quanta-lower-x86=isa=avx2 -verify-diagnostics

// Weights held in a resource blob cannot be packed at compile time.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @resource(%a: tensor<2x2x!in>) -> tensor<2x2x!out> {
  // expected-error @below {{quanta-lower-x86 needs weights whose values can be read, got dense_resource<w> : tensor<2x2xi8>}}
  %r = quanta.qmatmul %a {weights = dense_resource<w> : tensor<2x2xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0>, multipliers = array<i32: 0, 0>, shifts = array<i32: 0, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<2x2x!in> -> tensor<2x2x!out>
  return %r : tensor<2x2x!out>
}

{-#
  dialect_resources: {
    builtin: {
      w: "0x0100000001020304"
    }
  }
#-}

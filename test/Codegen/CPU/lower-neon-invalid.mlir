// RUN: quant-opt %s --split-input-file --quanta-lower-neon -verify-diagnostics
// RUN: not quant-opt %s --split-input-file --quanta-lower-neon=features=sve 2>&1 | FileCheck %s --check-prefix=LEVEL
// RUN: not quant-opt %s --split-input-file --quanta-lower-neon=features=host 2>&1 | FileCheck %s --check-prefix=HOST

// What quanta-lower-neon cannot take. A level it does not know:
// LEVEL: error: quanta-lower-neon: unknown features 'sve' (expected target, host, i8mm, dotprod, baseline)
// This machine (x86-64 here) as the target:
// HOST: error: quanta-lower-neon: the target, this machine, is {{.*}}, not aarch64; lower it with quanta-lower-x86, or give quanta-lower-neon a features

// A module recorded for another architecture.
// expected-error @+1 {{quanta-lower-neon: the target, the module's quanta.target, is x86_64+avx2+fma, not aarch64; lower it with quanta-lower-x86, or give quanta-lower-neon a features}}
module attributes {quanta.target = "x86_64+avx2+fma"} {
}

// -----

// Weights held in a resource blob cannot be packed at compile time.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
module attributes {quanta.target = "aarch64+neon+dotprod"} {
func.func @resource(%a: tensor<2x2x!in>) -> tensor<2x2x!out> {
  // expected-error @below {{quanta-lower-neon needs weights whose values can be read, got dense_resource<w> : tensor<2x2xi8>}}
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

// RUN: quant-opt %s --split-input-file --quanta-approximate-math="functions=erf,exp" | FileCheck %s
// RUN: quant-opt %s --split-input-file --quanta-approximate-math | FileCheck %s --check-prefix=NONE
// RUN: not quant-opt %s --quanta-approximate-math="functions=erf,gelu" 2>&1 | FileCheck %s --check-prefix=BAD

// The functions named become arithmetic (fma, floor, bit operations, no
// math.erf or math.exp left), on scalars as on vectors; tanh, not named,
// stays a math op for libm. With no functions nothing changes.

// CHECK-LABEL: func.func @gelu_and_softmax
// CHECK-NOT: math.erf
// CHECK-NOT: math.exp
// CHECK: math.fma
// CHECK: math.tanh
// CHECK: return
// NONE-LABEL: func.func @gelu_and_softmax
// NONE: math.erf
// NONE: math.exp
// NONE: math.tanh
// BAD: error: quanta-approximate-math: no approximation of 'gelu' (expected one of acos, asin, atan, atan2, cbrt, cos, erf, erfc, exp, expm1, log, log1p, log2, sin, tanh)
func.func @gelu_and_softmax(%x: f32, %v: vector<8xf32>) -> (f32, vector<8xf32>, f32) {
  %e = math.erf %x : f32
  %w = math.exp %v : vector<8xf32>
  %t = math.tanh %x : f32
  return %e, %w, %t : f32, vector<8xf32>, f32
}

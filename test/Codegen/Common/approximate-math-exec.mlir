// The polynomial approximations quanta-lower-to-llvm uses for erf, exp and
// tanh (quanta-approximate-math), run through quant-run's JIT on 4096
// points of [-12, 12] and special values: within 4 units in the last place
// of the correctly rounded result wherever it is a normal float (glibc's
// erff, expf and tanhf: 1 to 2), infinities and NaN where libm gives them.
// Results below the smallest normal float flush to zero (exp(-104)).
// RUN: %python %S/Inputs/math_ulp_error.py input %t.x.npy
// RUN: quant-run %S/Inputs/math_functions.mlir --input=%t.x.npy --output=%t.erf.npy --output=%t.exp.npy --output=%t.tanh.npy
// RUN: %python %S/Inputs/math_ulp_error.py %t.erf.npy %t.exp.npy %t.tanh.npy | FileCheck %s
// CHECK: erf: max {{[0-4]}} ulp, non-finite same
// CHECK: exp: max {{[0-4]}} ulp, non-finite same
// CHECK: tanh: max {{[0-4]}} ulp, non-finite same

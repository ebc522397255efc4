// A known crash in Debian's libMLIR 22, not in Quanta: linalg.transpose's
// custom parser, given a byte the lexer rejects inside its permutation,
// goes on with a null attribute and dereferences it (mlir-opt crashes the
// same way). Quanta cannot fix upstream's parser; its IR fuzzer mutates the
// generic form (scripts/run-fuzzers.sh) so as not to stop on it. This test
// expects the error a fixed parser would give, so it starts passing, and
// fails as XPASS, when the upstream fix arrives: then drop the XFAIL.
// XFAIL: *
// RUN: printf 'func.func @f(%%x: tensor<2x3xf32>) -> tensor<3x2xf32> {\n  %%e = tensor.empty() : tensor<3x2xf32>\n  %%t = linalg.transpose ins(%%x : tensor<2x3xf32>) outs(%%e : tensor<3x2xf32>) permutation = [1, \377 0]\n  return %%t : tensor<3x2xf32>\n}\n' > %t.mlir
// RUN: not quant-opt %t.mlir 2>&1 | FileCheck %s
// CHECK: error: unexpected character
// CHECK-NOT: Stack dump

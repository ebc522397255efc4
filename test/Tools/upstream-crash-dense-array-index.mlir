// A known crash in Debian's libMLIR 22, not in Quanta: a dense array of
// `index` (array<index: 1>) makes the attribute parser ask `index` for its
// bit width (mlir-opt crashes the same way). Quanta cannot fix upstream's
// parser; its IR fuzzer skips such inputs (fuzz/IrFuzzer.cpp). This test
// expects the error a fixed parser would give, so it fails as XPASS when the
// upstream fix arrives: then drop the XFAIL and the fuzzer's skip.
// XFAIL: *
// RUN: not quant-opt %s 2>&1 | FileCheck %s
// CHECK: error:
// CHECK-NOT: Stack dump

func.func @f() attributes {sizes = array<index: 1>} {
  return
}

// RUN: quant-opt %s --quanta-order-constants | FileCheck %s

// The constant globals one-shot bufferization made (__constant_*) are
// numbered in the order of their first read, functions in module order, and
// placed first in that order; one nothing reads is erased. Other globals
// (a mutable one, one of another name) keep their names and places.

// CHECK: memref.global "private" constant @__quanta_constant_0 : memref<2xf32> = dense<[3.000000e+00, 4.000000e+00]>
// CHECK-NEXT: memref.global "private" constant @__quanta_constant_1 : memref<2xf32> = dense<[1.000000e+00, 2.000000e+00]>
// CHECK-NEXT: memref.global "private" @arena : memref<8xi8>
// CHECK-NEXT: memref.global "private" constant @weights : memref<2xf32>
// CHECK-NOT: __constant_
memref.global "private" constant @__constant_2xf32 : memref<2xf32> = dense<[1.0, 2.0]> {alignment = 64 : i64}
memref.global "private" @arena : memref<8xi8> = uninitialized
memref.global "private" constant @__constant_2xf32_0 : memref<2xf32> = dense<[3.0, 4.0]> {alignment = 64 : i64}
memref.global "private" constant @weights : memref<2xf32> = dense<[5.0, 6.0]>
memref.global "private" constant @__constant_2xf32_1 : memref<2xf32> = dense<[7.0, 8.0]> {alignment = 64 : i64}

// CHECK-LABEL: func.func @main(
// CHECK: memref.get_global @__quanta_constant_0
// CHECK: memref.get_global @weights
func.func @main() -> (memref<2xf32>, memref<2xf32>, memref<2xf32>) {
  %a = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  %w = memref.get_global @weights : memref<2xf32>
  %b = call @kernel() : () -> memref<2xf32>
  return %a, %w, %b : memref<2xf32>, memref<2xf32>, memref<2xf32>
}

// CHECK-LABEL: func.func private @kernel(
// CHECK: memref.get_global @__quanta_constant_1
// CHECK: memref.get_global @__quanta_constant_0
func.func private @kernel() -> memref<2xf32> {
  %b = memref.get_global @__constant_2xf32 : memref<2xf32>
  %a = memref.get_global @__constant_2xf32_0 : memref<2xf32>
  return %b : memref<2xf32>
}

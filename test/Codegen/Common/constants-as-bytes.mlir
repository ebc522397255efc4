// RUN: quant-opt %s --quanta-constants-as-bytes=min-bytes=16 | FileCheck %s

// A float constant of 24 bytes becomes its little-endian bytes, 64-byte
// aligned, read through a view in the original type; splats, i8 data and
// constants under min-bytes stay.

// CHECK: memref.global "private" constant @weights : memref<24xi8> = dense<[0, 0, -128, 63, 0, 0, 0, 64, 0, 0, 64, 64, 0, 0, -128, 64, 0, 0, -96, 64, 0, 0, -64, 64]>
// CHECK-SAME: {alignment = 64 : i64}
// CHECK: memref.global "private" constant @splat : memref<8xf32> = dense<1.500000e+00>
// CHECK: memref.global "private" constant @bytes : memref<32xi8>
// CHECK: memref.global "private" constant @small : memref<2xf32>
memref.global "private" constant @weights : memref<2x3xf32> = dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]>
memref.global "private" constant @splat : memref<8xf32> = dense<1.5>
memref.global "private" constant @bytes : memref<32xi8> = dense<[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31]>
memref.global "private" constant @small : memref<2xf32> = dense<[1.0, 2.0]>

// CHECK-LABEL: func.func @read
// CHECK: %[[BYTES:.*]] = memref.get_global @weights : memref<24xi8>
// CHECK: %[[ZERO:.*]] = arith.constant 0 : index
// CHECK: %[[VIEW:.*]] = memref.view %[[BYTES]][%[[ZERO]]][] : memref<24xi8> to memref<2x3xf32>
// CHECK: memref.load %[[VIEW]]
func.func @read(%i: index, %j: index) -> f32 {
  %w = memref.get_global @weights : memref<2x3xf32>
  %v = memref.load %w[%i, %j] : memref<2x3xf32>
  return %v : f32
}

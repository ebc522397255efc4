// RUN: quant-opt %s --quanta-expand-strided-copies | FileCheck %s

// Copies the LLVM lowering would send to the runtime's memrefCopy: where the
// trailing dimensions of both sides are contiguous, a loop nest over the
// leading ones copying contiguous blocks (memcpy); otherwise linalg.copy.
// Contiguous copies stay memref.copy (a memcpy).

// CHECK-LABEL: func.func @copies
// CHECK: memref.copy %arg0, %arg1 : memref<5x7xi8> to memref<5x7xi8>
// The padded interior: one row of 7 per iteration.
// CHECK: %[[SUB:.*]] = memref.subview %arg2[0, 0] [5, 7] [1, 1]
// CHECK: scf.for %[[I:.*]] = %c0 to %c5 step %c1 {
// CHECK:   %[[FROM:.*]] = memref.subview %arg0[%[[I]], 0] [1, 7] [1, 1] : memref<5x7xi8> to memref<1x7xi8, strided<[7, 1], offset: ?>>
// CHECK:   %[[TO:.*]] = memref.subview %[[SUB]][%[[I]], 0] [1, 7] [1, 1] : memref<5x7xi8, strided<[8, 1]>> to memref<1x7xi8, strided<[8, 1], offset: ?>>
// CHECK:   memref.copy %[[FROM]], %[[TO]]
// CHECK: }
// CHECK: memref.copy %{{.*}}, %arg1 : memref<5x7xi8, strided<[7, 1]>> to memref<5x7xi8>
// Every other byte (innermost stride 2): no contiguous block, a loop per
// element.
// CHECK: linalg.copy ins(%{{.*}} : memref<5x4xi8, strided<[8, 2], offset: 1>>) outs(%{{.*}} : memref<5x4xi8, strided<[8, 2]>>)
func.func @copies(%a: memref<5x7xi8>, %b: memref<5x7xi8>, %padded: memref<5x8xi8>, %flat: memref<35xi8>) {
  memref.copy %a, %b : memref<5x7xi8> to memref<5x7xi8>
  %sub = memref.subview %padded[0, 0] [5, 7] [1, 1] : memref<5x8xi8> to memref<5x7xi8, strided<[8, 1]>>
  memref.copy %a, %sub : memref<5x7xi8> to memref<5x7xi8, strided<[8, 1]>>
  %view = memref.reinterpret_cast %flat to offset: [0], sizes: [5, 7], strides: [7, 1] : memref<35xi8> to memref<5x7xi8, strided<[7, 1]>>
  memref.copy %view, %b : memref<5x7xi8, strided<[7, 1]>> to memref<5x7xi8>
  %odd = memref.subview %padded[0, 1] [5, 4] [1, 2] : memref<5x8xi8> to memref<5x4xi8, strided<[8, 2], offset: 1>>
  %even = memref.subview %padded[0, 0] [5, 4] [1, 2] : memref<5x8xi8> to memref<5x4xi8, strided<[8, 2]>>
  memref.copy %odd, %even : memref<5x4xi8, strided<[8, 2], offset: 1>> to memref<5x4xi8, strided<[8, 2]>>
  return
}

// The interior of a padded NHWC tensor, as tensor.pad of a 3x3 convolution
// bufferizes: one W x C row (4 x 8 bytes) per (n, h).

// CHECK-LABEL: func.func @nhwc_interior
// CHECK: scf.for %[[N:.*]] = %c0 to %c2 step %c1 {
// CHECK:   scf.for %[[H:.*]] = %c0 to %c3 step %c1 {
// CHECK:     %[[FROM:.*]] = memref.subview %arg0[%[[N]], %[[H]], 0, 0] [1, 1, 4, 8] [1, 1, 1, 1]
// CHECK:     %[[TO:.*]] = memref.subview %{{.*}}[%[[N]], %[[H]], 0, 0] [1, 1, 4, 8] [1, 1, 1, 1] : memref<2x3x4x8xi8, strided<[240, 48, 8, 1], offset: 56>> to memref<1x1x4x8xi8, strided<[240, 48, 8, 1], offset: ?>>
// CHECK:     memref.copy %[[FROM]], %[[TO]]
// CHECK-NOT: linalg.copy
func.func @nhwc_interior(%x: memref<2x3x4x8xi8>, %padded: memref<2x5x6x8xi8>) {
  %interior = memref.subview %padded[0, 1, 1, 0] [2, 3, 4, 8] [1, 1, 1, 1] : memref<2x5x6x8xi8> to memref<2x3x4x8xi8, strided<[240, 48, 8, 1], offset: 56>>
  memref.copy %x, %interior : memref<2x3x4x8xi8> to memref<2x3x4x8xi8, strided<[240, 48, 8, 1], offset: 56>>
  return
}

// RUN: quant-opt %s --quanta-expand-strided-copies | FileCheck %s

// Copies the LLVM lowering would send to the runtime's memrefCopy become
// linalg.copy; contiguous ones stay memref.copy (a memcpy).

// CHECK-LABEL: func.func @copies
// CHECK: memref.copy %arg0, %arg1 : memref<5x7xi8> to memref<5x7xi8>
// CHECK: linalg.copy ins(%arg0 : memref<5x7xi8>) outs(%{{.*}} : memref<5x7xi8, strided<[8, 1]>>)
// CHECK: memref.copy %{{.*}}, %arg1 : memref<5x7xi8, strided<[7, 1]>> to memref<5x7xi8>
func.func @copies(%a: memref<5x7xi8>, %b: memref<5x7xi8>, %padded: memref<5x8xi8>, %flat: memref<35xi8>) {
  memref.copy %a, %b : memref<5x7xi8> to memref<5x7xi8>
  %sub = memref.subview %padded[0, 0] [5, 7] [1, 1] : memref<5x8xi8> to memref<5x7xi8, strided<[8, 1]>>
  memref.copy %a, %sub : memref<5x7xi8> to memref<5x7xi8, strided<[8, 1]>>
  %view = memref.reinterpret_cast %flat to offset: [0], sizes: [5, 7], strides: [7, 1] : memref<35xi8> to memref<5x7xi8, strided<[7, 1]>>
  memref.copy %view, %b : memref<5x7xi8, strided<[7, 1]>> to memref<5x7xi8>
  return
}

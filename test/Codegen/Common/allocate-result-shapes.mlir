// RUN: quant-opt %s --split-input-file --quanta-allocate-result-shapes | FileCheck %s

// A result computed as a matrix and returned as an image: the buffer is
// allocated as the image, the computation writes through a collapsed view
// of it, and the function returns the allocation itself.

// CHECK-LABEL: func.func @expanded
// CHECK:      %[[BUF:.*]] = memref.alloc() {alignment = 64 : i64} : memref<1x2x3x4xi8>
// CHECK-NEXT: %[[VIEW:.*]] = memref.collapse_shape %[[BUF]] {{\[\[}}0, 1, 2], [3]] : memref<1x2x3x4xi8> into memref<6x4xi8>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : i8) outs(%[[VIEW]] : memref<6x4xi8>)
// CHECK-NOT:  memref.expand_shape
// CHECK:      return %[[BUF]] : memref<1x2x3x4xi8>
func.func @expanded() -> memref<1x2x3x4xi8> {
  %c7 = arith.constant 7 : i8
  %m = memref.alloc() {alignment = 64 : i64} : memref<6x4xi8>
  linalg.fill ins(%c7 : i8) outs(%m : memref<6x4xi8>)
  %e = memref.expand_shape %m [[0, 1, 2], [3]] output_shape [1, 2, 3, 4] : memref<6x4xi8> into memref<1x2x3x4xi8>
  return %e : memref<1x2x3x4xi8>
}

// -----

// The other direction, and a result returned twice.

// CHECK-LABEL: func.func @collapsed
// CHECK:      %[[BUF:.*]] = memref.alloc() : memref<6x4xi8>
// CHECK-NEXT: %[[VIEW:.*]] = memref.expand_shape %[[BUF]] {{\[\[}}0, 1, 2], [3]] output_shape [1, 2, 3, 4] : memref<6x4xi8> into memref<1x2x3x4xi8>
// CHECK-NEXT: linalg.fill ins(%{{.*}} : i8) outs(%[[VIEW]] : memref<1x2x3x4xi8>)
// CHECK-NEXT: return %[[BUF]], %[[BUF]] : memref<6x4xi8>, memref<6x4xi8>
func.func @collapsed() -> (memref<6x4xi8>, memref<6x4xi8>) {
  %c7 = arith.constant 7 : i8
  %m = memref.alloc() : memref<1x2x3x4xi8>
  linalg.fill ins(%c7 : i8) outs(%m : memref<1x2x3x4xi8>)
  %c = memref.collapse_shape %m [[0, 1, 2], [3]] : memref<1x2x3x4xi8> into memref<6x4xi8>
  return %c, %c : memref<6x4xi8>, memref<6x4xi8>
}

// -----

// Left alone: a reshape of a function argument, a reshape of an allocation
// of dynamic shape, and a reshape that is not returned.

// CHECK-LABEL: func.func @unchanged
// CHECK:      memref.expand_shape %arg0
// CHECK:      %[[DYN:.*]] = memref.alloc(%{{.*}}) : memref<?x4xi8>
// CHECK:      memref.expand_shape %[[DYN]]
// CHECK:      %[[LOCAL:.*]] = memref.alloc() : memref<6x4xi8>
// CHECK-NEXT: memref.expand_shape %[[LOCAL]]
func.func @unchanged(%arg0: memref<6x4xi8>, %n: index) -> (memref<1x2x3x4xi8>, memref<?x2x4xi8>, memref<6x4xi8>) {
  %a = memref.expand_shape %arg0 [[0, 1, 2], [3]] output_shape [1, 2, 3, 4] : memref<6x4xi8> into memref<1x2x3x4xi8>
  %d = memref.alloc(%n) : memref<?x4xi8>
  %h = arith.divui %n, %n : index
  %de = memref.expand_shape %d [[0, 1], [2]] output_shape [%h, 2, 4] : memref<?x4xi8> into memref<?x2x4xi8>
  %l = memref.alloc() : memref<6x4xi8>
  %le = memref.expand_shape %l [[0, 1, 2], [3]] output_shape [1, 2, 3, 4] : memref<6x4xi8> into memref<1x2x3x4xi8>
  memref.copy %le, %a : memref<1x2x3x4xi8> to memref<1x2x3x4xi8>
  return %a, %de, %l : memref<1x2x3x4xi8>, memref<?x2x4xi8>, memref<6x4xi8>
}

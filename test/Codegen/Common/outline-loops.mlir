// RUN: quant-opt %s --quanta-outline-loops=min-ops=4 | FileCheck %s

// Each top-level loop nest of at least min-ops ops moves into a private
// noinline function with its parent's LLVM attributes. The arena view it
// writes and the constants it reads are recomputed inside (LLVM still sees
// the global behind the view); the function argument and the value
// computed at run time before it are passed; a loop's result is returned.
// A loop nest under min-ops stays.

memref.global "private" @__quanta_arena_f : memref<64xi8> = uninitialized

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>, %[[N:.*]]: index
// CHECK: %[[M:.*]] = arith.addi %[[N]], %[[N]]
// CHECK: call @f__quanta_loop0(%[[X]], %[[M]]) : (memref<4xf32>, index) -> ()
// CHECK: %[[S:.*]] = call @f__quanta_loop1(%[[X]]) : (memref<4xf32>) -> f32
// CHECK: scf.for
// CHECK: return %[[S]]
func.func @f(%x: memref<4xf32>, %n: index) -> f32 attributes {passthrough = [["min-legal-vector-width", "256"]]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %zero = arith.constant 0.0 : f32
  %arena = memref.get_global @__quanta_arena_f : memref<64xi8>
  %buffer = memref.view %arena[%c0][] : memref<64xi8> to memref<4xf32>
  %m = arith.addi %n, %n : index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    %j = arith.addi %i, %m : index
    memref.store %w, %buffer[%i] : memref<4xf32>
  }
  %sum = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %zero) -> f32 {
    %v = memref.load %x[%i] : memref<4xf32>
    %a = arith.addf %acc, %v : f32
    %b = arith.mulf %a, %a : f32
    scf.yield %b : f32
  }
  scf.for %i = %c0 to %c4 step %c1 {
    memref.store %zero, %x[%i] : memref<4xf32>
  }
  return %sum : f32
}

// CHECK-LABEL: func.func private @f__quanta_loop0(
// CHECK-SAME: %[[X0:.*]]: memref<4xf32>, %[[M0:.*]]: index)
// CHECK-SAME: attributes {passthrough = {{\[\[}}"min-legal-vector-width", "256"], "noinline"]}
// CHECK: %[[ARENA:.*]] = memref.get_global @__quanta_arena_f
// CHECK: %[[BUFFER:.*]] = memref.view %[[ARENA]]
// CHECK: scf.for
// CHECK: memref.load %[[X0]]
// CHECK: arith.addi %{{.*}}, %[[M0]]
// CHECK: memref.store %{{.*}}, %[[BUFFER]]
// CHECK: return
// CHECK-LABEL: func.func private @f__quanta_loop1(
// CHECK-SAME: %{{.*}}: memref<4xf32>) -> f32
// CHECK: %[[R:.*]] = scf.for
// CHECK: return %[[R]] : f32

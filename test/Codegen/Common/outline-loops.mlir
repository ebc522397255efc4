// RUN: quant-opt %s --quanta-outline-loops=min-ops=4 --split-input-file | FileCheck %s

// Each top-level loop nest of at least min-ops ops moves into a private
// noinline function with its parent's LLVM attributes. The arena buffer it
// writes, which nothing else it uses overlaps, is passed and listed as
// noalias (its aligned pointer is LLVM argument 7, after the 5 fields of
// the 1-D memref before it, the index and its allocated pointer); the constants it reads are recomputed inside; the function
// argument and the value computed at run time before it are passed; a
// loop's result is returned. A loop nest under min-ops stays.

memref.global "private" @__quanta_arena_f : memref<64xi8> = uninitialized

// CHECK-LABEL: func.func @f(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>, %[[N:.*]]: index
// CHECK: %[[BUFFER:.*]] = memref.view
// CHECK: %[[M:.*]] = arith.addi %[[N]], %[[N]]
// CHECK: call @f__quanta_loop0(%[[X]], %[[M]], %[[BUFFER]]) : (memref<4xf32>, index, memref<4xf32>) -> ()
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
// CHECK-SAME: %[[X0:.*]]: memref<4xf32>, %[[M0:.*]]: index, %[[BUFFER0:.*]]: memref<4xf32>)
// CHECK-SAME: attributes {passthrough = {{\[\[}}"min-legal-vector-width", "256"], "noinline"], quanta.noalias_arguments = array<i64: 7>}
// CHECK-NOT: memref.get_global
// CHECK: scf.for
// CHECK: memref.load %[[X0]]
// CHECK: arith.addi %{{.*}}, %[[M0]]
// CHECK: memref.store %{{.*}}, %[[BUFFER0]]
// CHECK: return
// CHECK-LABEL: func.func private @f__quanta_loop1(
// CHECK-SAME: %{{.*}}: memref<4xf32>) -> f32
// CHECK: %[[R:.*]] = scf.for
// CHECK: return %[[R]] : f32

// -----

// A softmax's row maximum: the rows (bytes 0..64 of the arena) and the
// maxima (bytes 64..80, read and written at every step) are distinct
// buffers, both noalias (LLVM arguments 1 and 8 after the 2-D memref's 7
// fields); the constant table stays recomputed inside. Two views of the
// same bytes, or a loop that views the arena itself, are not noalias: they
// are recomputed as before, and so is a buffer beside the base of another
// (which may reach the whole arena).

memref.global "private" @__quanta_arena_g : memref<96xi8> = uninitialized
memref.global "private" constant @table : memref<4xf32> = dense<1.0>

// CHECK-LABEL: func.func @g(
// CHECK: %[[ROWS:.*]] = memref.view %{{.*}}[%c0{{.*}}][] : memref<96xi8> to memref<4x4xf32>
// CHECK: %[[MAX:.*]] = memref.view %{{.*}}[%c64{{.*}}][] : memref<96xi8> to memref<4xf32>
// CHECK: call @g__quanta_loop0(%[[ROWS]], %[[MAX]])
// CHECK: call @g__quanta_loop1()
// CHECK: call @g__quanta_loop2(%{{.*}})
// CHECK: call @g__quanta_loop3()
// CHECK: %[[CHOSEN:.*]] = arith.select
// CHECK: call @g__quanta_loop4(%[[CHOSEN]])
func.func @g(%i0: index, %flag: i1) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %c64 = arith.constant 64 : index
  %c68 = arith.constant 68 : index
  %arena = memref.get_global @__quanta_arena_g : memref<96xi8>
  %table = memref.get_global @table : memref<4xf32>
  %rows = memref.view %arena[%c0][] : memref<96xi8> to memref<4x4xf32>
  %max = memref.view %arena[%c64][] : memref<96xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    scf.for %j = %c0 to %c4 step %c1 {
      %v = memref.load %rows[%i, %j] : memref<4x4xf32>
      %t = memref.load %table[%j] : memref<4xf32>
      %s = arith.addf %v, %t : f32
      %m = memref.load %max[%i] : memref<4xf32>
      %n = arith.maximumf %s, %m : f32
      memref.store %n, %max[%i] : memref<4xf32>
    }
  }
  // Bytes 64..80 and 68..84 overlap.
  %shifted = memref.view %arena[%c68][] : memref<96xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %max[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    %u = arith.mulf %w, %v : f32
    memref.store %u, %shifted[%i] : memref<4xf32>
  }
  // The arena itself, viewed inside at a run-time offset.
  scf.for %i = %c0 to %c4 step %c1 {
    %inner = memref.view %arena[%i0][] : memref<96xi8> to memref<4xf32>
    %v = memref.load %max[%i] : memref<4xf32>
    %w = arith.addf %v, %v : f32
    memref.store %w, %inner[%i] : memref<4xf32>
  }
  // The base of a buffer may reach the whole arena.
  %base, %offset, %size, %stride = memref.extract_strided_metadata %max : memref<4xf32> -> memref<f32>, index, index, index
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %rows[%i, %i] : memref<4x4xf32>
    %w = arith.addf %v, %v : f32
    %u = arith.mulf %w, %v : f32
    memref.store %u, %base[] : memref<f32>
  }
  // A buffer chosen at run time may be any.
  %chosen = arith.select %flag, %max, %shifted : memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %rows[%i, %i] : memref<4x4xf32>
    %w = arith.addf %v, %v : f32
    %u = arith.mulf %w, %v : f32
    memref.store %u, %chosen[%i] : memref<4xf32>
  }
  return
}

// CHECK-LABEL: func.func private @g__quanta_loop0(
// CHECK-SAME: %[[ROWS0:.*]]: memref<4x4xf32>, %[[MAX0:.*]]: memref<4xf32>)
// CHECK-SAME: quanta.noalias_arguments = array<i64: 1, 8>
// CHECK: %[[TABLE:.*]] = memref.get_global @table
// CHECK: memref.load %[[ROWS0]]
// CHECK: memref.load %[[TABLE]]
// CHECK: memref.store %{{.*}}, %[[MAX0]]
// CHECK-LABEL: func.func private @g__quanta_loop1()
// CHECK-NOT: quanta.noalias_arguments
// CHECK: memref.get_global @__quanta_arena_g
// CHECK-LABEL: func.func private @g__quanta_loop2(
// CHECK-SAME: %{{.*}}: index)
// CHECK-NOT: quanta.noalias_arguments
// CHECK: memref.get_global @__quanta_arena_g
// CHECK-LABEL: func.func private @g__quanta_loop3()
// CHECK-NOT: quanta.noalias_arguments
// CHECK: memref.extract_strided_metadata
// CHECK-LABEL: func.func private @g__quanta_loop4(
// CHECK-NOT: quanta.noalias_arguments
// CHECK: memref.view

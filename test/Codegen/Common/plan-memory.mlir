// RUN: quant-opt %s --quanta-plan-memory=report -split-input-file -verify-diagnostics | FileCheck %s

// Three buffers: %a lives while %b is written, %c only after %a's last
// use, so %c takes %a's bytes. Arena = liveness lower bound = 3072 bytes.

// CHECK: module attributes {quanta.memory_plan = {chain = {arena_bytes = 3072 : i64, buffers = 3 : i64, buffers_left = 0 : i64, lower_bound_bytes = 3072 : i64}}}
// CHECK: memref.global "private" @__quanta_arena_chain : memref<3072xi8> = uninitialized {alignment = 64 : i64}
// CHECK-LABEL: func.func @chain
// CHECK-NOT: memref.alloc
// CHECK: %[[ARENA_A:.*]] = memref.get_global @__quanta_arena_chain
// CHECK: %[[AT_A:.*]] = arith.constant 2048 : index
// CHECK: %[[A:.*]] = memref.view %[[ARENA_A]][%[[AT_A]]][] : memref<3072xi8> to memref<256xf32>
// CHECK: %[[AT_B:.*]] = arith.constant 0 : index
// CHECK: memref.view %{{.*}}[%[[AT_B]]][] : memref<3072xi8> to memref<512xf32>
// CHECK: %[[AT_C:.*]] = arith.constant 2048 : index
// CHECK: memref.view %{{.*}}[%[[AT_C]]][] : memref<3072xi8> to memref<16x16xf32>
// expected-remark @+1 {{quanta-plan-memory: arena 3072 bytes for 3 buffers, 1.00x the liveness lower bound (3072 bytes); 0 allocations per call}}
func.func @chain(%in: memref<256xf32>, %out: memref<256xf32>) {
  %a = memref.alloc() : memref<256xf32>
  memref.copy %in, %a : memref<256xf32> to memref<256xf32>
  %b = memref.alloc() : memref<512xf32>
  %low = memref.subview %b[0] [256] [1] : memref<512xf32> to memref<256xf32, strided<[1]>>
  memref.copy %a, %low : memref<256xf32> to memref<256xf32, strided<[1]>>
  %c = memref.alloc() : memref<16x16xf32>
  %flat = memref.collapse_shape %c [[0, 1]] : memref<16x16xf32> into memref<256xf32>
  memref.copy %low, %flat : memref<256xf32, strided<[1]>> to memref<256xf32>
  memref.copy %flat, %out : memref<256xf32> to memref<256xf32>
  return
}

// -----

// A buffer used inside a loop lives for the whole loop: %t is reused by
// every iteration and overlaps %u, written after the loop from %t.
// CHECK-LABEL: func.func @loop
// CHECK: memref.get_global @__quanta_arena_loop
// CHECK-NEXT: arith.constant 0 : index
// CHECK-NEXT: memref.view
// CHECK: scf.for
// CHECK-NEXT: memref.get_global @__quanta_arena_loop
// CHECK-NEXT: arith.constant 64 : index
// CHECK-NEXT: memref.view
// expected-remark @+1 {{arena 128 bytes for 2 buffers, 1.00x the liveness lower bound (128 bytes); 0 allocations per call}}
func.func @loop(%in: memref<16xf32>, %out: memref<16xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %u = memref.alloc() : memref<16xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %t = memref.alloc() : memref<16xf32>
    memref.copy %in, %t : memref<16xf32> to memref<16xf32>
    memref.copy %t, %u : memref<16xf32> to memref<16xf32>
  }
  memref.copy %u, %out : memref<16xf32> to memref<16xf32>
  return
}

// -----

// Left to the allocator: a dynamic shape, a buffer per parallel iteration,
// and one yielded out of a loop.
// CHECK-LABEL: func.func @left
// CHECK-COUNT-3: memref.alloc
// expected-remark @+1 {{arena 0 bytes for 0 buffers; 3 allocations per call}}
func.func @left(%n: index, %in: memref<16xf32>) -> memref<16xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %dynamic = memref.alloc(%n) : memref<?xf32>
  scf.parallel (%i) = (%c0) to (%n) step (%c1) {
    %private = memref.alloc() : memref<16xf32>
    memref.copy %in, %private : memref<16xf32> to memref<16xf32>
    scf.reduce
  }
  %init = memref.get_global @zeros : memref<16xf32>
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%current = %init) -> memref<16xf32> {
    %next = memref.alloc() : memref<16xf32>
    memref.copy %current, %next : memref<16xf32> to memref<16xf32>
    scf.yield %next : memref<16xf32>
  }
  return %r : memref<16xf32>
}
memref.global "private" constant @zeros : memref<16xf32> = dense<0.0>

// RUN: quant-opt %s --quanta-inline-kernels | FileCheck %s

// Each call of a quanta.kernel function becomes a copy of its body, with
// the call's operands for its arguments (the weights of each layer here);
// the kernels are erased. The kernel's memory plan (its own arena) is added
// to its caller's and leaves quanta.memory_plan; other functions and calls
// stay as they are.

// CHECK: module attributes {quanta.memory_plan = {main = {arena_bytes = 96 : i64, buffers = 3 : i64, buffers_left = 0 : i64, lower_bound_bytes = 80 : i64}, other = {arena_bytes = 8 : i64, buffers = 1 : i64, buffers_left = 0 : i64, lower_bound_bytes = 8 : i64}}}
module attributes {quanta.memory_plan = {
    main = {arena_bytes = 64 : i64, lower_bound_bytes = 48 : i64, buffers = 2 : i64, buffers_left = 0 : i64},
    main__quanta_kernel0 = {arena_bytes = 32 : i64, lower_bound_bytes = 32 : i64, buffers = 1 : i64, buffers_left = 0 : i64},
    other = {arena_bytes = 8 : i64, lower_bound_bytes = 8 : i64, buffers = 1 : i64, buffers_left = 0 : i64}}} {
  memref.global "private" constant @w0 : memref<4xf32> = dense<1.0>
  memref.global "private" constant @w1 : memref<4xf32> = dense<2.0>
  memref.global "private" @__quanta_arena_main__quanta_kernel0 : memref<32xi8> = uninitialized

  // CHECK-LABEL: func.func @main(
  // CHECK-SAME: %[[X:.*]]: memref<4xf32>, %[[Y:.*]]: memref<4xf32>
  // CHECK: %[[W0:.*]] = memref.get_global @w0
  // CHECK: %[[ARENA0:.*]] = memref.get_global @__quanta_arena_main__quanta_kernel0
  // CHECK: %[[T0:.*]] = memref.view %[[ARENA0]]
  // CHECK: scf.for
  // CHECK: memref.load %[[X]]
  // CHECK: memref.load %[[W0]]
  // CHECK: memref.store %{{.*}}, %[[T0]]
  // CHECK: memref.copy %[[T0]], %[[Y]]
  // CHECK: %[[W1:.*]] = memref.get_global @w1
  // CHECK: %[[ARENA1:.*]] = memref.get_global @__quanta_arena_main__quanta_kernel0
  // CHECK: %[[T1:.*]] = memref.view %[[ARENA1]]
  // CHECK: memref.load %[[Y]]
  // CHECK: memref.load %[[W1]]
  // CHECK: memref.copy %[[T1]], %[[X]]
  // CHECK-NOT: call
  // CHECK: return
  func.func @main(%x: memref<4xf32>, %y: memref<4xf32>) {
    %w0 = memref.get_global @w0 : memref<4xf32>
    call @main__quanta_kernel0(%x, %w0, %y) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    %w1 = memref.get_global @w1 : memref<4xf32>
    call @main__quanta_kernel0(%y, %w1, %x) : (memref<4xf32>, memref<4xf32>, memref<4xf32>) -> ()
    return
  }

  // CHECK-LABEL: func.func @other(
  // CHECK: call @helper
  func.func @other(%x: memref<4xf32>) {
    call @helper(%x) : (memref<4xf32>) -> ()
    return
  }

  // CHECK: func.func private @helper(
  func.func private @helper(%x: memref<4xf32>) {
    return
  }

  // CHECK-NOT: @main__quanta_kernel0
  func.func private @main__quanta_kernel0(%in: memref<4xf32>, %w: memref<4xf32>, %out: memref<4xf32>) attributes {quanta.kernel} {
    %c0 = arith.constant 0 : index
    %c1 = arith.constant 1 : index
    %c4 = arith.constant 4 : index
    %arena = memref.get_global @__quanta_arena_main__quanta_kernel0 : memref<32xi8>
    %t = memref.view %arena[%c0][] : memref<32xi8> to memref<4xf32>
    scf.for %i = %c0 to %c4 step %c1 {
      %v = memref.load %in[%i] : memref<4xf32>
      %s = memref.load %w[%i] : memref<4xf32>
      %p = arith.mulf %v, %s : f32
      memref.store %p, %t[%i] : memref<4xf32>
    }
    memref.copy %t, %out : memref<4xf32> to memref<4xf32>
    return
  }
}

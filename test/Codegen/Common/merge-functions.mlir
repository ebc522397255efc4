// RUN: quant-opt %s --quanta-merge-functions | FileCheck %s

// Two layers' loop nests, the same ops on other weights (globals), another
// scale (a scalar constant) and another buffer offset: one function remains,
// taking the values that differ as arguments appended to its own; the
// constants they share stay inside. A nest with another op, one with a
// vector constant of another value, one whose constant differs where an
// intrinsic takes it (LLVM may require an immediate), a function called
// twice and a public one stay as they are.

memref.global "private" constant @w0 : memref<4xf32> = dense<1.0>
memref.global "private" constant @w1 : memref<4xf32> = dense<2.0>
memref.global "private" @arena : memref<64xi8> = uninitialized

// CHECK-LABEL: func.func @model(
// CHECK-SAME: %[[X:.*]]: memref<4xf32>
// CHECK: %[[S0:.*]] = arith.constant 5.000000e-01 : f32
// CHECK: %[[W0:.*]] = memref.get_global @w0
// CHECK: %[[O0:.*]] = arith.constant 0 : index
// CHECK: call @layer0(%[[X]], %[[S0]], %[[W0]], %[[O0]])
// CHECK: %[[S1:.*]] = arith.constant 2.500000e-01 : f32
// CHECK: %[[W1:.*]] = memref.get_global @w1
// CHECK: %[[O1:.*]] = arith.constant 16 : index
// CHECK: call @layer0(%[[X]], %[[S1]], %[[W1]], %[[O1]])
// CHECK: call @other(%[[X]])
// CHECK: call @vector0(%[[X]])
// CHECK: call @vector1(%[[X]])
// CHECK: call @intrinsic0(%[[X]])
// CHECK: call @intrinsic1(%[[X]])
// CHECK: call @twice(%[[X]])
// CHECK: call @twice(%[[X]])
// CHECK: call @public(%[[X]])
func.func @model(%x: memref<4xf32>) {
  call @layer0(%x) : (memref<4xf32>) -> ()
  call @layer1(%x) : (memref<4xf32>) -> ()
  call @other(%x) : (memref<4xf32>) -> ()
  call @vector0(%x) : (memref<4xf32>) -> ()
  call @vector1(%x) : (memref<4xf32>) -> ()
  call @intrinsic0(%x) : (memref<4xf32>) -> ()
  call @intrinsic1(%x) : (memref<4xf32>) -> ()
  call @twice(%x) : (memref<4xf32>) -> ()
  call @twice(%x) : (memref<4xf32>) -> ()
  call @public(%x) : (memref<4xf32>) -> ()
  return
}

// CHECK-LABEL: func.func private @layer0(
// CHECK-SAME: %[[X0:.*]]: memref<4xf32>, %[[SCALE:.*]]: f32, %[[W:.*]]: memref<4xf32>, %[[OFFSET:.*]]: index)
// CHECK-SAME: attributes {passthrough = ["noinline"]}
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[ARENA:.*]] = memref.get_global @arena
// CHECK: %[[BUFFER:.*]] = memref.view %[[ARENA]][%[[OFFSET]]][]
// CHECK: scf.for %{{.*}} = %{{.*}} to %[[C4]]
// CHECK: memref.load %[[W]]
// CHECK: arith.mulf %{{.*}}, %[[SCALE]]
// CHECK: memref.store %{{.*}}, %[[BUFFER]]
func.func private @layer0(%x: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %scale = arith.constant 0.5 : f32
  %w = memref.get_global @w0 : memref<4xf32>
  %arena = memref.get_global @arena : memref<64xi8>
  %offset = arith.constant 0 : index
  %buffer = memref.view %arena[%offset][] : memref<64xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %u = memref.load %w[%i] : memref<4xf32>
    %p = arith.mulf %v, %u : f32
    %q = arith.mulf %p, %scale : f32
    memref.store %q, %buffer[%i] : memref<4xf32>
  }
  return
}
// CHECK-NOT: func.func private @layer1
func.func private @layer1(%x: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %scale = arith.constant 0.25 : f32
  %w = memref.get_global @w1 : memref<4xf32>
  %arena = memref.get_global @arena : memref<64xi8>
  %offset = arith.constant 16 : index
  %buffer = memref.view %arena[%offset][] : memref<64xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %u = memref.load %w[%i] : memref<4xf32>
    %p = arith.mulf %v, %u : f32
    %q = arith.mulf %p, %scale : f32
    memref.store %q, %buffer[%i] : memref<4xf32>
  }
  return
}

// CHECK-LABEL: func.func private @other(
// CHECK: arith.addf
func.func private @other(%x: memref<4xf32>) attributes {passthrough = ["noinline"]} {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %scale = arith.constant 0.5 : f32
  %w = memref.get_global @w0 : memref<4xf32>
  %arena = memref.get_global @arena : memref<64xi8>
  %offset = arith.constant 0 : index
  %buffer = memref.view %arena[%offset][] : memref<64xi8> to memref<4xf32>
  scf.for %i = %c0 to %c4 step %c1 {
    %v = memref.load %x[%i] : memref<4xf32>
    %u = memref.load %w[%i] : memref<4xf32>
    %p = arith.addf %v, %u : f32
    %q = arith.mulf %p, %scale : f32
    memref.store %q, %buffer[%i] : memref<4xf32>
  }
  return
}

// CHECK-LABEL: func.func private @vector0(
// CHECK: dense<1.000000e+00> : vector<4xf32>
// CHECK-LABEL: func.func private @vector1(
// CHECK: dense<2.000000e+00> : vector<4xf32>
func.func private @vector0(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %k = arith.constant dense<1.0> : vector<4xf32>
  %v = vector.transfer_read %x[%c0], %pad : memref<4xf32>, vector<4xf32>
  %w = arith.mulf %v, %k : vector<4xf32>
  vector.transfer_write %w, %x[%c0] : vector<4xf32>, memref<4xf32>
  return
}
func.func private @vector1(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %pad = arith.constant 0.0 : f32
  %k = arith.constant dense<2.0> : vector<4xf32>
  %v = vector.transfer_read %x[%c0], %pad : memref<4xf32>, vector<4xf32>
  %w = arith.mulf %v, %k : vector<4xf32>
  vector.transfer_write %w, %x[%c0] : vector<4xf32>, memref<4xf32>
  return
}

// CHECK-LABEL: func.func private @intrinsic0(
// CHECK: arith.constant 1 : i32
// CHECK-LABEL: func.func private @intrinsic1(
// CHECK: arith.constant 2 : i32
func.func private @intrinsic0(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant 1 : i32
  %v = memref.load %x[%c0] : memref<4xf32>
  %w = llvm.call_intrinsic "llvm.x86.sse41.round.ss"(%v, %k) : (f32, i32) -> f32
  memref.store %w, %x[%c0] : memref<4xf32>
  return
}
func.func private @intrinsic1(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant 2 : i32
  %v = memref.load %x[%c0] : memref<4xf32>
  %w = llvm.call_intrinsic "llvm.x86.sse41.round.ss"(%v, %k) : (f32, i32) -> f32
  memref.store %w, %x[%c0] : memref<4xf32>
  return
}

// CHECK-LABEL: func.func private @twice(
// CHECK-SAME: %{{.*}}: memref<4xf32>)
// CHECK: arith.constant 3.000000e+00
func.func private @twice(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant 3.0 : f32
  %v = memref.load %x[%c0] : memref<4xf32>
  %w = arith.mulf %v, %k : f32
  memref.store %w, %x[%c0] : memref<4xf32>
  return
}

// CHECK-LABEL: func.func @public(
// CHECK-SAME: %{{.*}}: memref<4xf32>)
// CHECK: arith.constant 4.000000e+00
func.func @public(%x: memref<4xf32>) {
  %c0 = arith.constant 0 : index
  %k = arith.constant 4.0 : f32
  %v = memref.load %x[%c0] : memref<4xf32>
  %w = arith.mulf %v, %k : f32
  memref.store %w, %x[%c0] : memref<4xf32>
  return
}

// RUN: quant-opt %s --quanta-outline-kernels=min-ops=4 --split-input-file | FileCheck %s
// RUN: quant-opt %s --quanta-outline-kernels=min-ops=4 --quanta-merge-functions --cse --split-input-file | FileCheck %s --check-prefix=MERGED

// Two layers' kernels, the same loops on other weights (constant tensors):
// each moves into a private function marked quanta.kernel, with its weights
// and the tensor.empty it fills inside, the tensor it reads passed and its
// result returned; quanta-merge-functions then makes one of them, taking
// the weights as an argument. A loop nest under min-ops stays.

// CHECK-LABEL: func.func @model(
// CHECK-SAME: %[[X:.*]]: tensor<4xf32>
// CHECK: %[[Y:.*]] = call @model__quanta_kernel0(%[[X]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: %[[Z:.*]] = call @model__quanta_kernel1(%[[Y]]) : (tensor<4xf32>) -> tensor<4xf32>
// CHECK: scf.for
// CHECK-LABEL: func.func private @model__quanta_kernel0(
// CHECK-SAME: %[[IN:.*]]: tensor<4xf32>) -> tensor<4xf32>
// CHECK-SAME: attributes {passthrough = ["noinline"], quanta.kernel}
// CHECK-DAG: %[[W:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]> : tensor<4xf32>
// CHECK-DAG: tensor.empty() : tensor<4xf32>
// CHECK: scf.for
// CHECK: tensor.extract %[[IN]]
// CHECK: tensor.extract %[[W]]
// CHECK-LABEL: func.func private @model__quanta_kernel1(
// CHECK: arith.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]> : tensor<4xf32>

// MERGED-LABEL: func.func @model(
// MERGED-SAME: %[[X:.*]]: tensor<4xf32>
// MERGED: %[[W0:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, 3.000000e+00, 4.000000e+00]>
// MERGED: %[[Y:.*]] = call @model__quanta_kernel0(%[[X]], %[[W0]])
// MERGED: %[[W1:.*]] = arith.constant dense<[5.000000e+00, 6.000000e+00, 7.000000e+00, 8.000000e+00]>
// MERGED: call @model__quanta_kernel0(%[[Y]], %[[W1]])
// MERGED-NOT: @model__quanta_kernel1
// MERGED-LABEL: func.func private @model__quanta_kernel0(
// MERGED-SAME: %{{.*}}: tensor<4xf32>, %[[W:.*]]: tensor<4xf32>) -> tensor<4xf32>
// MERGED: tensor.extract %[[W]]
func.func @model(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %w0 = arith.constant dense<[1.0, 2.0, 3.0, 4.0]> : tensor<4xf32>
  %w1 = arith.constant dense<[5.0, 6.0, 7.0, 8.0]> : tensor<4xf32>
  %init = tensor.empty() : tensor<4xf32>
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %w = tensor.extract %w0[%i] : tensor<4xf32>
    %p = arith.mulf %v, %w : f32
    %r = tensor.insert %p into %acc[%i] : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  }
  %z = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %v = tensor.extract %y[%i] : tensor<4xf32>
    %w = tensor.extract %w1[%i] : tensor<4xf32>
    %p = arith.mulf %v, %w : f32
    %r = tensor.insert %p into %acc[%i] : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  }
  %small = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %z) -> tensor<4xf32> {
    scf.yield %acc : tensor<4xf32>
  }
  return %small : tensor<4xf32>
}

// -----

// What stays in place: a nest reading a slice (a strided buffer once
// bufferized, which an identity-layout argument would copy), one reading a
// quantized tensor, one whose result has a dynamic shape, one without
// tensor results, and every nest of a private function.

// CHECK-LABEL: func.func @kept(
// CHECK-NOT: call
// CHECK: return
func.func @kept(%x: tensor<8xf32>, %q: tensor<4x!quant.uniform<i8:f32, 0.5>>, %n: index, %m: memref<4xf32>) -> (tensor<4xf32>, tensor<4xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = tensor.empty() : tensor<4xf32>
  %slice = tensor.extract_slice %x[2] [4] [1] : tensor<8xf32> to tensor<4xf32>
  %a = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %v = tensor.extract %slice[%i] : tensor<4xf32>
    %p = arith.addf %v, %v : f32
    %r = tensor.insert %p into %acc[%i] : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  }
  %b = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %e = tensor.extract %q[%i] : tensor<4x!quant.uniform<i8:f32, 0.5>>
    %p = arith.constant 1.0 : f32
    %s = arith.addf %p, %p : f32
    %r = tensor.insert %s into %acc[%i] : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  }
  %dynamic = tensor.empty(%n) : tensor<?xf32>
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %dynamic) -> tensor<?xf32> {
    %v = tensor.extract %x[%c0] : tensor<8xf32>
    %p = arith.addf %v, %v : f32
    %r = tensor.insert %p into %acc[%i] : tensor<?xf32>
    scf.yield %r : tensor<?xf32>
  }
  scf.for %i = %c0 to %c4 step %c1 {
    %v = tensor.extract %x[%i] : tensor<8xf32>
    %p = arith.addf %v, %v : f32
    memref.store %p, %m[%i] : memref<4xf32>
  }
  return %a, %b, %c : tensor<4xf32>, tensor<4xf32>, tensor<?xf32>
}

// CHECK-LABEL: func.func private @helper(
// CHECK-NOT: call
// CHECK: return
func.func private @helper(%x: tensor<4xf32>) -> tensor<4xf32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c4 = arith.constant 4 : index
  %init = tensor.empty() : tensor<4xf32>
  %y = scf.for %i = %c0 to %c4 step %c1 iter_args(%acc = %init) -> tensor<4xf32> {
    %v = tensor.extract %x[%i] : tensor<4xf32>
    %p = arith.addf %v, %v : f32
    %r = tensor.insert %p into %acc[%i] : tensor<4xf32>
    scf.yield %r : tensor<4xf32>
  }
  return %y : tensor<4xf32>
}

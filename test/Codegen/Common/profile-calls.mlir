// RUN: quant-opt %s --split-input-file --quanta-profile-calls | FileCheck %s

// A module marked for profiling: each call of a private function with a
// body in a public function is numbered, in order, between
// quanta_profile_begin and quanta_profile_end; the sites name the callee
// and the call's location (an ONNX node's name; else the location). A call
// of an external function (a runtime callback), a call in a private
// function, and a call of a public function are not sites.

// CHECK: module attributes {quanta.profile, quanta.profile_sites = [{kernel = "layer0", location = "conv1"}, {kernel = "layer1", location = "conv2"}, {kernel = "layer0", location = "{{.*}}profile-calls.mlir{{.*}}"}]}
// CHECK-DAG: func.func private @quanta_profile_begin(i64)
// CHECK-DAG: func.func private @quanta_profile_end(i64)
// CHECK-LABEL: func.func @model(
// CHECK: %[[ID0:.*]] = arith.constant 0 : i64
// CHECK-NEXT: call @quanta_profile_begin(%[[ID0]])
// CHECK-NEXT: call @layer0(
// CHECK-NEXT: call @quanta_profile_end(%[[ID0]])
// CHECK: %[[ID1:.*]] = arith.constant 1 : i64
// CHECK-NEXT: call @quanta_profile_begin(%[[ID1]])
// CHECK-NEXT: call @layer1(
// CHECK-NEXT: call @quanta_profile_end(%[[ID1]])
// CHECK-NEXT: call @callback(
// CHECK-NEXT: call @other(
// CHECK: %[[ID2:.*]] = arith.constant 2 : i64
// CHECK-NEXT: call @quanta_profile_begin(%[[ID2]])
// CHECK-NEXT: call @layer0(
// CHECK-NEXT: call @quanta_profile_end(%[[ID2]])
// CHECK-LABEL: func.func private @layer1(
// CHECK-NEXT: call @layer0(
// CHECK-NEXT: return
module attributes {quanta.profile} {
  func.func @model(%x: memref<4xf32>) {
    call @layer0(%x) : (memref<4xf32>) -> () loc("conv1")
    call @layer1(%x) : (memref<4xf32>) -> () loc("conv2")
    call @callback(%x) : (memref<4xf32>) -> ()
    call @other(%x) : (memref<4xf32>) -> ()
    call @layer0(%x) : (memref<4xf32>) -> ()
    return
  }
  func.func private @layer0(%x: memref<4xf32>) {
    return
  }
  func.func private @layer1(%x: memref<4xf32>) {
    call @layer0(%x) : (memref<4xf32>) -> ()
    return
  }
  func.func private @callback(memref<4xf32>)
  func.func @other(%x: memref<4xf32>) {
    return
  }
}

// -----

// Without quanta.profile the pass changes nothing.

// CHECK-LABEL: module {
// CHECK-NOT: quanta_profile
// CHECK: func.func @model(
// CHECK-NEXT: call @layer0(
// CHECK-NEXT: return
module {
  func.func @model(%x: memref<4xf32>) {
    call @layer0(%x) : (memref<4xf32>) -> ()
    return
  }
  func.func private @layer0(%x: memref<4xf32>) {
    return
  }
}

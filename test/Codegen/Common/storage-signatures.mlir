// RUN: quant-opt %s --quanta-storage-signatures | FileCheck %s
// RUN: quant-opt %s --quanta-storage-signatures --canonicalize | FileCheck %s --check-prefix=CANON

// Quantized arguments and results become their storage type, with
// quant.scast at the entry, before the return and around calls; the pairs
// cancel under canonicalization. Declarations keep their signature.

!u8 = !quant.uniform<u8:f32, 0.5:7>
!i8 = !quant.uniform<i8<-127:127>:f32:0, {0.25, 0.5}>

// CHECK-LABEL: func.func @callee(%arg0: tensor<2x3xi8>, %arg1: tensor<2xf32>) -> (tensor<2x3xi8>, tensor<2xf32>)
// CHECK-NEXT: %[[Q:.*]] = quant.scast %arg0 : tensor<2x3xi8> to tensor<2x3x!quant.uniform<i8<-127:127>:f32:0, {2.500000e-01,5.000000e-01}>>
// CHECK-NEXT: %[[S:.*]] = quant.scast %[[Q]] : {{.*}} to tensor<2x3xi8>
// CHECK-NEXT: return %[[S]], %arg1
func.func @callee(%q: tensor<2x3x!i8>, %f: tensor<2xf32>) -> (tensor<2x3x!i8>, tensor<2xf32>) {
  return %q, %f : tensor<2x3x!i8>, tensor<2xf32>
}

// CHECK-LABEL: func.func @caller(%arg0: tensor<2x3xf32>) -> tensor<2x3xi8>
// CHECK: %[[Q:.*]] = quant.qcast %arg0
// CHECK: %[[IN:.*]] = quant.scast %[[Q]] : tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:7>> to tensor<2x3xi8>
// CHECK: %[[OUT:.*]] = call @other(%[[IN]]) : (tensor<2x3xi8>) -> tensor<2x3xi8>
// CHECK: %[[R:.*]] = quant.scast %[[OUT]] : tensor<2x3xi8> to tensor<2x3x!quant.uniform<u8:f32, 5.000000e-01:7>>
// CHECK: %[[S:.*]] = quant.scast %[[R]] : {{.*}} to tensor<2x3xi8>
// CHECK: return %[[S]]
// CANON-LABEL: func.func @caller
// CANON: %[[Q:.*]] = quant.qcast %arg0
// CANON: %[[IN:.*]] = quant.scast %[[Q]]
// CANON: %[[OUT:.*]] = call @other(%[[IN]])
// CANON-NEXT: return %[[OUT]] : tensor<2x3xi8>
func.func @caller(%x: tensor<2x3xf32>) -> tensor<2x3x!u8> {
  %q = quant.qcast %x : tensor<2x3xf32> to tensor<2x3x!u8>
  %r = call @other(%q) : (tensor<2x3x!u8>) -> tensor<2x3x!u8>
  return %r : tensor<2x3x!u8>
}

// CHECK-LABEL: func.func private @other(%arg0: tensor<2x3xi8>) -> tensor<2x3xi8>
func.func private @other(%q: tensor<2x3x!u8>) -> tensor<2x3x!u8> {
  return %q : tensor<2x3x!u8>
}

// CHECK-LABEL: func.func private @external(tensor<4x!quant.uniform<u8:f32, 5.000000e-01:7>>)
func.func private @external(tensor<4x!u8>)

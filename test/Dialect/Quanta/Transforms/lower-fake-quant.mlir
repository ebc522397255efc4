// RUN: quant-opt %s -split-input-file --quanta-lower-fake-quant | FileCheck %s

// Per tensor, 8-bit: everything in float32 (exact for these ranges), the
// reciprocal of the scale folded at compile time, round half to even.

// CHECK-LABEL: func @per_tensor
// CHECK-DAG: %[[INV:.*]] = arith.constant 1.000000e+01 : f32
// CHECK-DAG: %[[ZP:.*]] = arith.constant 3.000000e+00 : f32
// CHECK-DAG: %[[SCALE:.*]] = arith.constant 1.000000e-01 : f32
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel"]
// CHECK: ^bb0(%[[IN:.*]]: f32, %{{.*}}: f32):
// CHECK: %[[MUL:.*]] = arith.mulf %[[IN]], %[[INV]] : f32
// CHECK: %[[ROUND:.*]] = math.roundeven %[[MUL]] : f32
// CHECK: %[[SHIFT:.*]] = arith.addf %[[ZP]], %[[ROUND]] : f32
// CHECK: arith.cmpf oge, %[[SHIFT]]
// CHECK: arith.cmpf olt, %[[SHIFT]]
// CHECK: arith.maxnumf %[[SHIFT]]
// CHECK: arith.minnumf
// CHECK: %[[CLAMPED:.*]] = arith.select
// CHECK: %[[SUB:.*]] = arith.subf %[[CLAMPED]], %[[ZP]] : f32
// CHECK: %[[OUT:.*]] = arith.mulf %[[SUB]], %[[SCALE]] : f32
// CHECK: linalg.yield %[[OUT]] : f32
// CHECK-NOT: quanta.fake_quant
func.func @per_tensor(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quanta.fake_quant %x {scale = array<f32: 0.1>, zero_point = array<i64: 3>, quant_min = 0, quant_max = 255} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

// -----

// Per channel: one constant per channel, indexed by the channel axis;
// dynamic sizes are kept.

// CHECK-DAG: #[[ID:.*]] = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-DAG: #[[CH:.*]] = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func @per_channel
// CHECK-DAG: %[[INV:.*]] = arith.constant dense<[1.000000e+01, 5.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[ZP:.*]] = arith.constant dense<[0.000000e+00, -3.000000e+00]> : tensor<2xf32>
// CHECK-DAG: %[[SCALE:.*]] = arith.constant dense<[1.000000e-01, 2.000000e-01]> : tensor<2xf32>
// CHECK: %[[DIM:.*]] = tensor.dim
// CHECK: %[[INIT:.*]] = tensor.empty(%[[DIM]]) : tensor<?x2xf32>
// CHECK: linalg.generic {indexing_maps = [#[[ID]], #[[CH]], #[[CH]], #[[CH]], #[[ID]]]
// CHECK-SAME: ins(%{{.*}}, %[[INV]], %[[ZP]], %[[SCALE]] :
func.func @per_channel(%x: tensor<?x2xf32>) -> tensor<?x2xf32> {
  %0 = quanta.fake_quant %x {axis = -1, scale = array<f32: 0.1, 0.2>, zero_point = array<i64: 0, -3>, quant_min = -128, quant_max = 127} : tensor<?x2xf32>
  return %0 : tensor<?x2xf32>
}

// -----

// qint32 ranges are not exact in float32: the clamp and the dequantization
// are done in f64 as PyTorch's std::fmin/fmax do.

// CHECK-LABEL: func @qint32
// CHECK: arith.extf %{{.*}} : f32 to f64
// CHECK: arith.maxnumf %{{.*}} : f64
// CHECK: arith.minnumf %{{.*}} : f64
// CHECK: arith.subf %{{.*}} : f64
// CHECK: arith.mulf %{{.*}} : f64
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @qint32(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quanta.fake_quant %x {scale = array<f32: 0.001>, zero_point = array<i64: 0>, quant_min = -2147483648, quant_max = 2147483647} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// Float zero points: one fused multiply-add, as PyTorch's AVX2 kernel.

// CHECK-LABEL: func @float_zero_point
// CHECK: %[[FMA:.*]] = math.fma
// CHECK: math.roundeven %[[FMA]] : f32
// CHECK: arith.truncf %{{.*}} : f64 to f32
func.func @float_zero_point(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %0 = quanta.fake_quant %x {axis = 0, scale = array<f32: 0.1, 0.2>, float_zero_point = array<f32: 1.5, 20.25>, quant_min = 0, quant_max = 255} : tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

// fake_quant_enabled = false: the op is its input.

// CHECK-LABEL: func @disabled
// CHECK-SAME: (%[[X:.*]]: tensor<4xf32>)
// CHECK-NEXT: return %[[X]]
func.func @disabled(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quanta.fake_quant %x {fake_quant_enabled = false, scale = array<f32: 0.1>, zero_point = array<i64: 0>, quant_min = 0, quant_max = 255} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

// A FakeQuantize module with known qparams fake-quantizes to the range it
// forwards to its observer: reduce_range halves 0..255 to 0..127.

// CHECK-LABEL: func @module_range
// CHECK-DAG: arith.constant 0.000000e+00 : f32
// CHECK-DAG: arith.constant 1.270000e+02 : f32
func.func @module_range(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quanta.fake_quant %x {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<reduce_range = true>, quant_min = 0, quant_max = 255>, scale = array<f32: 0.5>, zero_point = array<i64: 1>} : tensor<4xf32>
  return %0 : tensor<4xf32>
}

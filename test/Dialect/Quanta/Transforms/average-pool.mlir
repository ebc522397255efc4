// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers{qconfig=qnnpack})' | FileCheck %s
// RUN: %python -c "import numpy as np; np.save('%t.npy', np.linspace(-1.0, 2.0, 128, dtype=np.float32).reshape(1, 4, 4, 8))"
// RUN: quant-opt %s -split-input-file --quanta-ptq='qconfig=qnnpack data=%t.npy quiet' --quanta-quantize -verify-diagnostics | FileCheck %s --check-prefix=PTQ

// Average pooling as tosa-to-linalg lowers avg_pool2d without padding: a
// sum pooling, then a division by the window size. Like PyTorch's
// avg_pool2d it shares its input's qparams, observed after the division:
// the sum itself, 16 times larger than its inputs, must not be quantized
// with them.
// CHECK-LABEL: func.func @average
// CHECK: %[[IN:.*]] = quanta.observe %arg0 {name = "arg0"
// CHECK: %[[SUM:.*]] = linalg.pooling_nhwc_sum {{.*}} ins(%[[IN]],
// CHECK-NOT: quanta.observe %[[SUM]]
// CHECK: %[[AVG:.*]] = linalg.generic {{.*}} ins(%[[SUM]] :
// CHECK: arith.divf
// CHECK: quanta.observe %[[AVG]] {name = "pooling_nhwc_sum_0.output", observer = #quanta.reuse_input}

// After calibration and freezing, the average has the input's type, and
// quanta-quantize makes it integer: i32 sums of q - zi over each window in
// the pooling's own loops, then requantized by 1/16 (2^30 * 2^-34) back
// into the input's zero point and range.
// PTQ-DAG: #[[PIXEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 + d4, d2 + d5, d3)>
// PTQ-DAG: #[[WINDOW:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d4, d5)>
// PTQ-LABEL: func.func @average
// PTQ: %[[Q:.*]] = quant.qcast %arg0 : tensor<1x4x4x8xf32> to tensor<1x4x4x8x!quant.uniform<u8:f32, [[SCALE:.*]]:[[ZP:[0-9]+]]>>
// PTQ: %[[S:.*]] = quant.scast %[[Q]]
// PTQ: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[PIXEL]], #[[WINDOW]], #{{.*}}], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%[[S]], %{{.*}} : tensor<1x4x4x8xi8>, tensor<4x4xf32>)
// PTQ: arith.extui
// PTQ: arith.subi %{{.*}}, %c[[ZP]]_i32
// PTQ: linalg.generic {{.*}} ins(%[[SUMS]] : tensor<1x1x1x8xi32>)
// PTQ: arith.constant 1073741824 : i32
// PTQ: arith.constant -3 : i32
// PTQ: arith.constant [[ZP]] : i64
// PTQ: quant.scast %{{.*}} : tensor<1x1x1x8xi8> to tensor<1x1x1x8x!quant.uniform<u8:f32, [[SCALE]]:[[ZP]]>>
// PTQ-NOT: linalg.pooling_nhwc_sum
func.func @average(%x: tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %size = arith.constant 1.600000e+01 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x1x1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %window = tensor.empty() : tensor<4x4xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %window : tensor<1x4x4x8xf32>, tensor<4x4xf32>) outs(%init : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %e2 = tensor.empty() : tensor<1x1x1x8xf32>
  %avg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x1x1x8xf32>) outs(%e2 : tensor<1x1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %size : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x8xf32>
  return %avg : tensor<1x1x1x8xf32>
}

// -----

// The same average as a multiplication by 1 / 16.
// CHECK-LABEL: func.func @average_by_reciprocal
// CHECK: %[[SUM:.*]] = linalg.pooling_nhwc_sum
// CHECK-NOT: quanta.observe %[[SUM]]
// CHECK: %[[AVG:.*]] = linalg.generic {{.*}} ins(%[[SUM]] :
// CHECK: quanta.observe %[[AVG]] {{.*}}observer = #quanta.reuse_input}
// PTQ-LABEL: func.func @average_by_reciprocal
// PTQ: linalg.generic {{.*}}outs(%{{.*}} : tensor<1x1x1x8xi32>)
// PTQ-NOT: linalg.pooling_nhwc_sum
func.func @average_by_reciprocal(%x: tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %inverse = arith.constant 6.250000e-02 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x1x1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %window = tensor.empty() : tensor<4x4xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %window : tensor<1x4x4x8xf32>, tensor<4x4xf32>) outs(%init : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %e2 = tensor.empty() : tensor<1x1x1x8xf32>
  %avg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x1x1x8xf32>) outs(%e2 : tensor<1x1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %inverse : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x8xf32>
  return %avg : tensor<1x1x1x8xf32>
}

// -----

// A sum pooling divided by anything but its window size is no average:
// PyTorch quantizes no such op, so it stays float, unobserved.
// CHECK-LABEL: func.func @sum_divided_by_other
// CHECK-NOT: quanta.observe
// CHECK: return
// PTQ-LABEL: func.func @sum_divided_by_other
// PTQ-NOT: quant.qcast
// PTQ: return
func.func @sum_divided_by_other(%x: tensor<1x4x4x8xf32>) -> tensor<1x1x1x8xf32> {
  %size = arith.constant 8.000000e+00 : f32
  %zero = arith.constant 0.000000e+00 : f32
  %e = tensor.empty() : tensor<1x1x1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %window = tensor.empty() : tensor<4x4xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<1> : vector<2xi64>} ins(%x, %window : tensor<1x4x4x8xf32>, tensor<4x4xf32>) outs(%init : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %e2 = tensor.empty() : tensor<1x1x1x8xf32>
  %avg = linalg.generic {indexing_maps = [affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>, affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x1x1x8xf32>) outs(%e2 : tensor<1x1x1x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %size : f32
    linalg.yield %r : f32
  } -> tensor<1x1x1x8xf32>
  return %avg : tensor<1x1x1x8xf32>
}

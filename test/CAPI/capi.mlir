// The C API (quanta-c/Quanta.h) end to end from a C program: prepare,
// calibrate on two batches made in memory, freeze, convert and lower the
// kernels for this machine, compile and call the int8 model; then malformed
// calls are error diagnostics, not crashes.
// RUN: quanta-capi-test %s quanta-prepare f 2x4 quanta-compile 2>%t.err | FileCheck %s
// RUN: FileCheck %s --check-prefix=DIAG < %t.err

// The 2x3 result, one value per line: the same as quant-opt
// --quanta-prepare, --quanta-calibrate on the same two batches (written as
// .npy), --quanta-compile and quant-run give.
// CHECK: bad options rejected
// CHECK-NEXT: result 0: 2x3
// CHECK-NEXT: 0.604096
// CHECK-NEXT: 0.906144
// CHECK-NEXT: 0.246113
// CHECK-NEXT: 0.503413
// CHECK-NEXT: 1.42074
// CHECK-NEXT: 0.0447478
// CHECK-NEXT: bad call rejected
// CHECK-NEXT: null data rejected
// DIAG: for the --threads option: 'many' value invalid for long argument!
// DIAG: error: quantaCalibrate: options 'threads=many': an option's value is invalid
// DIAG: error: quantaCompiledFunctionCall: 'f' takes 1 argument(s), 2 given
// DIAG: error: quantaCompiledFunctionCall: input 0: null data for a tensor of (2, 4)

#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>
func.func @f(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 0.5], [-4.0, 3.0, 0.0], [0.5, 0.5, 0.25], [0.0, 1.0, 0.5]]> : tensor<4x3xf32>
  %b = arith.constant dense<[0.1, 0.2, 0.3]> : tensor<3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%fill : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc1")
  %biased = linalg.generic {indexing_maps = [#map, #bias, #map], iterator_types = ["parallel", "parallel"]} ins(%mm, %b : tensor<2x3xf32>, tensor<3xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<2x3xf32>
  %relu = linalg.generic {indexing_maps = [#map, #map], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<2x3xf32>) outs(%init : tensor<2x3xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x3xf32>
  return %relu : tensor<2x3xf32>
}

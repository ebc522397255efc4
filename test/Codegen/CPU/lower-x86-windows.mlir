// RUN: quant-opt %s --split-input-file --quanta-lower-x86 | FileCheck %s
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=float=false | FileCheck %s --check-prefix=NOFLOAT

// Which window reductions become loop nests over their outputs
// (LowerWindows.cpp; their values: Tools/quant-run-window.mlir).

// A padding another op also reads stays, and the pool reads the padded
// tensor; float=false leaves float pools as they are.
// CHECK-LABEL: func.func @shared_padding
// CHECK: %[[PADDED:.*]] = tensor.pad
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// CHECK: tensor.extract %[[PADDED]]
// CHECK-NOT: arith.select
// CHECK: linalg.yield
// CHECK: return %{{.*}}, %[[PADDED]]
// NOFLOAT-LABEL: func.func @shared_padding
// NOFLOAT: linalg.pooling_nhwc_max
func.func @shared_padding(%x: tensor<1x4x4x8xf32>) -> (tensor<1x2x2x8xf32>, tensor<1x6x6x8xf32>) {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x4x4x8xf32> to tensor<1x6x6x8xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %empty = tensor.empty() : tensor<1x2x2x8xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%padded, %window : tensor<1x6x6x8xf32>, tensor<3x3xf32>) outs(%init : tensor<1x2x2x8xf32>) -> tensor<1x2x2x8xf32>
  return %y, %padded : tensor<1x2x2x8xf32>, tensor<1x6x6x8xf32>
}

// -----

// More taps than are worth unrolling (a 9x9 window: 81 > 64) stay in the
// op's loops.
// CHECK-LABEL: func.func @large_window
// CHECK: linalg.pooling_nhwc_sum
func.func @large_window(%x: tensor<1x9x9x8xf32>) -> tensor<1x1x1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %window = tensor.empty() : tensor<9x9xf32>
  %empty = tensor.empty() : tensor<1x1x1x8xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  %y = linalg.pooling_nhwc_sum {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %window : tensor<1x9x9x8xf32>, tensor<9x9xf32>) outs(%init : tensor<1x1x1x8xf32>) -> tensor<1x1x1x8xf32>
  return %y : tensor<1x1x1x8xf32>
}

// -----

// A reduction along the input's innermost dimension (a softmax's row max)
// is no window: its parallel dimension is not the one the input's values
// are contiguous along.
// CHECK-LABEL: func.func @row_max
// CHECK: linalg.generic
// CHECK-SAME: iterator_types = ["parallel", "reduction"]
#rows = affine_map<(i, j) -> (i, j)>
#row = affine_map<(i, j) -> (i)>
func.func @row_max(%x: tensor<4x8xf32>, %init: tensor<4xf32>) -> tensor<4xf32> {
  %y = linalg.generic {indexing_maps = [#rows, #row], iterator_types = ["parallel", "reduction"]}
         ins(%x : tensor<4x8xf32>) outs(%init : tensor<4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %max = arith.maximumf %in, %out : f32
    linalg.yield %max : f32
  } -> tensor<4xf32>
  return %y : tensor<4xf32>
}

// -----

// Integer pools (the int8 model's) are lowered with float=false too.
// NOFLOAT-LABEL: func.func @integer_pool
// NOFLOAT: linalg.generic
// NOFLOAT-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// NOFLOAT-COUNT-4: arith.maxsi
#image = affine_map<(n, h, w, c, kh, kw) -> (n, h + kh, w + kw, c)>
#window = affine_map<(n, h, w, c, kh, kw) -> (kh, kw)>
#output = affine_map<(n, h, w, c, kh, kw) -> (n, h, w, c)>
func.func @integer_pool(%x: tensor<1x3x3x16xi8>, %init: tensor<1x2x2x16xi8>) -> tensor<1x2x2x16xi8> {
  %window = tensor.empty() : tensor<2x2xf32>
  %y = linalg.generic {indexing_maps = [#image, #window, #output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
         ins(%x, %window : tensor<1x3x3x16xi8>, tensor<2x2xf32>) outs(%init : tensor<1x2x2x16xi8>) {
  ^bb0(%in: i8, %unused: f32, %out: i8):
    %max = arith.maxsi %in, %out : i8
    linalg.yield %max : i8
  } -> tensor<1x2x2x16xi8>
  return %y : tensor<1x2x2x16xi8>
}

// RUN: quant-opt %s --quanta-quantize -split-input-file -verify-diagnostics | FileCheck %s

// A TOSA fully connected layer after tosa-to-linalg: batch-1 batch_matmul,
// a collapse to [M, N] before the bias add, then relu. One int8 GEMM; its
// [M, N] result is the collapsed shape already.
!x = !quant.uniform<u8:f32, 0.05:10>
!w = !quant.uniform<i8:f32, 0.01>
!o = !quant.uniform<u8:f32, 0.02>
#id = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (0, d1)>
// CHECK-LABEL: func.func @fc_collapse_bias_relu
// CHECK: %[[Q:.*]] = quanta.qmatmul %{{.*}} : tensor<2x3x!quant.uniform<u8:f32, 5.000000e-02:10>> -> tensor<2x2x!quant.uniform<u8:f32, 2.000000e-02>>
// CHECK-NOT: linalg.
// CHECK: return %[[Q]]
func.func @fc_collapse_bias_relu(%x: tensor<1x2x3x!x>) -> tensor<2x2x!o> {
  %xd = quant.dcast %x : tensor<1x2x3x!x> to tensor<1x2x3xf32>
  %wf = arith.constant dense<[[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]]> : tensor<1x3x2xf32>
  %wq = quant.qcast %wf : tensor<1x3x2xf32> to tensor<1x3x2x!w>
  %wd = quant.dcast %wq : tensor<1x3x2x!w> to tensor<1x3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %mm = linalg.batch_matmul ins(%xd, %wd : tensor<1x2x3xf32>, tensor<1x3x2xf32>) outs(%init : tensor<1x2x2xf32>) -> tensor<1x2x2xf32>
  %flat = tensor.collapse_shape %mm [[0, 1], [2]] : tensor<1x2x2xf32> into tensor<2x2xf32>
  %b = arith.constant dense<[[0.25, -0.5]]> : tensor<1x2xf32>
  %e2 = tensor.empty() : tensor<2x2xf32>
  %biased = linalg.generic {indexing_maps = [#id, #bias, #id], iterator_types = ["parallel", "parallel"]} ins(%flat, %b : tensor<2x2xf32>, tensor<1x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<2x2xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%biased : tensor<2x2xf32>) outs(%e2 : tensor<2x2xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %r = quant.qcast %relu : tensor<2x2xf32> to tensor<2x2x!o>
  return %r : tensor<2x2x!o>
}

// -----

// The same layer with the reshape after the activation: [M, N] expanded
// back to the output's [1, M, N].
!x = !quant.uniform<u8:f32, 0.05:10>
!w = !quant.uniform<i8:f32, 0.01>
!o = !quant.uniform<u8:f32, 0.02>
#id = affine_map<(d0, d1) -> (d0, d1)>
// CHECK-LABEL: func.func @fc_expand_after_relu
// CHECK: %[[Q:.*]] = quanta.qmatmul
// CHECK: %[[S:.*]] = quant.scast %[[Q]] : tensor<2x2x!quant.uniform<u8:f32, 2.000000e-02>> to tensor<2x2xi8>
// CHECK: tensor.expand_shape %[[S]] {{\[}}[0, 1], [2]] output_shape [1, 2, 2] : tensor<2x2xi8> into tensor<1x2x2xi8>
func.func @fc_expand_after_relu(%x: tensor<2x3x!x>) -> tensor<1x2x2x!o> {
  %xd = quant.dcast %x : tensor<2x3x!x> to tensor<2x3xf32>
  %wf = arith.constant dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]> : tensor<3x2xf32>
  %wq = quant.qcast %wf : tensor<3x2xf32> to tensor<3x2x!w>
  %wd = quant.dcast %wq : tensor<3x2x!w> to tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul ins(%xd, %wd : tensor<2x3xf32>, tensor<3x2xf32>) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%mm : tensor<2x2xf32>) outs(%e : tensor<2x2xf32>) {
  ^bb0(%p: f32, %o: f32):
    %m = arith.maximumf %p, %zero : f32
    linalg.yield %m : f32
  } -> tensor<2x2xf32>
  %up = tensor.expand_shape %relu [[0, 1], [2]] output_shape [1, 2, 2] : tensor<2x2xf32> into tensor<1x2x2xf32>
  %r = quant.qcast %up : tensor<1x2x2xf32> to tensor<1x2x2x!o>
  return %r : tensor<1x2x2x!o>
}

// -----

// A matmul of a 3-D activation's rows (ONNX's MatMul of [B, S, K] by a
// constant [K, N], as a QDQ transformer's Linear imports): the collapse of
// the dequantized input becomes a collapse of the quantized one, read by
// the int8 GEMM.
!x = !quant.uniform<u8:f32, 0.05:10>
!w = !quant.uniform<i8:f32, 0.01>
!o = !quant.uniform<u8:f32, 0.02>
// CHECK-LABEL: func.func @rows_of_activation
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<2x2x3x!quant.uniform<u8:f32, 5.000000e-02:10>> to tensor<2x2x3xi8>
// CHECK: %[[C:.*]] = tensor.collapse_shape %[[S]] {{\[}}[0, 1], [2]] : tensor<2x2x3xi8> into tensor<4x3xi8>
// CHECK: %[[Q:.*]] = quant.scast %[[C]] : tensor<4x3xi8> to tensor<4x3x!quant.uniform<u8:f32, 5.000000e-02:10>>
// CHECK: quanta.qmatmul %[[Q]]
// CHECK-NOT: linalg.matmul
func.func @rows_of_activation(%x: tensor<2x2x3x!x>) -> tensor<4x2x!o> {
  %xd = quant.dcast %x : tensor<2x2x3x!x> to tensor<2x2x3xf32>
  %rows = tensor.collapse_shape %xd [[0, 1], [2]] : tensor<2x2x3xf32> into tensor<4x3xf32>
  %wf = arith.constant dense<[[0.1, -0.2], [0.3, 0.4], [-0.5, 0.6]]> : tensor<3x2xf32>
  %wq = quant.qcast %wf : tensor<3x2xf32> to tensor<3x2x!w>
  %wd = quant.dcast %wq : tensor<3x2x!w> to tensor<3x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<4x2xf32>) -> tensor<4x2xf32>
  %mm = linalg.matmul ins(%rows, %wd : tensor<4x3xf32>, tensor<3x2xf32>) outs(%init : tensor<4x2xf32>) -> tensor<4x2xf32>
  %r = quant.qcast %mm : tensor<4x2xf32> to tensor<4x2x!o>
  return %r : tensor<4x2x!o>
}

// -----

// A reshape after a convolution is no fully connected layer: it stays
// float, and says why.
!x = !quant.uniform<u8:f32, 0.05:10>
!w = !quant.uniform<i8:f32, 0.01>
!o = !quant.uniform<u8:f32, 0.02>
func.func @conv_then_reshape(%x: tensor<1x3x3x1x!x>) -> tensor<4x1x!o> {
  %xd = quant.dcast %x : tensor<1x3x3x1x!x> to tensor<1x3x3x1xf32>
  %wf = arith.constant dense<0.5> : tensor<1x2x2x1xf32>
  %wq = quant.qcast %wf : tensor<1x2x2x1xf32> to tensor<1x2x2x1x!w>
  %wd = quant.dcast %wq : tensor<1x2x2x1x!w> to tensor<1x2x2x1xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x1xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  %c = linalg.conv_2d_nhwc_fhwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xd, %wd : tensor<1x3x3x1xf32>, tensor<1x2x2x1xf32>) outs(%init : tensor<1x2x2x1xf32>) -> tensor<1x2x2x1xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a reshape between the core and its quantization is supported for fully connected layers only}}
  %flat = tensor.collapse_shape %c [[0, 1, 2], [3]] : tensor<1x2x2x1xf32> into tensor<4x1xf32>
  %r = quant.qcast %flat : tensor<4x1xf32> to tensor<4x1x!o>
  return %r : tensor<4x1x!o>
}

// -----

// linalg.transpose between tensors of one quantized type: a transpose of
// the storage integers.
!a = !quant.uniform<i8:f32, 0.1:-3>
// CHECK-LABEL: func.func @transpose
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<2x3x!quant.uniform<i8:f32, 1.000000e-01:-3>> to tensor<2x3xi8>
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[S]] : tensor<2x3xi8>) outs(%{{.*}} : tensor<3x2xi8>) permutation = [1, 0]
// CHECK: quant.scast %[[T]] : tensor<3x2xi8> to tensor<3x2x!quant.uniform<i8:f32, 1.000000e-01:-3>>
// CHECK-NOT: quant.dcast
func.func @transpose(%x: tensor<2x3x!a>) -> tensor<3x2x!a> {
  %xd = quant.dcast %x : tensor<2x3x!a> to tensor<2x3xf32>
  %e = tensor.empty() : tensor<3x2xf32>
  %t = linalg.transpose ins(%xd : tensor<2x3xf32>) outs(%e : tensor<3x2xf32>) permutation = [1, 0]
  %r = quant.qcast %t : tensor<3x2xf32> to tensor<3x2x!a>
  return %r : tensor<3x2x!a>
}

// -----

// NCHW max pooling with its own -inf padding (ONNX's pads): the padding
// moves onto the storage integers as the storage minimum (0 for u8), the
// pool becomes an unsigned integer max with the pool's indexing maps.
!a = !quant.uniform<u8:f32, 0.1:20>
// CHECK-LABEL: func.func @max_pool_nchw_padded
// CHECK: %[[S:.*]] = quant.scast %{{.*}} : tensor<1x1x3x3x!quant.uniform<u8:f32, 1.000000e-01:20>> to tensor<1x1x3x3xi8>
// CHECK: %[[MIN:.*]] = arith.constant 0 : i8
// CHECK: tensor.pad %[[S]] low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: tensor.yield %[[MIN]] : i8
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map2], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<1x1x5x5xi8>, tensor<2x2xf32>) outs(%{{.*}} : tensor<1x1x2x2xi8>)
// CHECK: arith.maxui
// CHECK-NOT: arith.maximumf
func.func @max_pool_nchw_padded(%x: tensor<1x1x3x3x!a>) -> tensor<1x1x2x2x!a> {
  %xd = quant.dcast %x : tensor<1x1x3x3x!a> to tensor<1x1x3x3xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %p = tensor.pad %xd low[0, 0, 1, 1] high[0, 0, 1, 1] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<1x1x3x3xf32> to tensor<1x1x5x5xf32>
  %w = tensor.empty() : tensor<2x2xf32>
  %e = tensor.empty() : tensor<1x1x2x2xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%e : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %m = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%p, %w : tensor<1x1x5x5xf32>, tensor<2x2xf32>) outs(%init : tensor<1x1x2x2xf32>) -> tensor<1x1x2x2xf32>
  %r = quant.qcast %m : tensor<1x1x2x2xf32> to tensor<1x1x2x2x!a>
  return %r : tensor<1x1x2x2x!a>
}

// -----

// An NCHW depthwise convolution (ONNX's group == channels): the input
// transposed to NHWC, quanta.qmatmul's depthwise form (the [C, KH, KW]
// filter as the K = KH * KW taps x C matrix), the output transposed back.
!x = !quant.uniform<u8:f32, 0.05:10>
!w = !quant.uniform<i8:f32:0, {0.01, 0.02}>
!o = !quant.uniform<u8:f32, 0.02:5>
// CHECK-LABEL: func.func @depthwise_nchw
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x2x3x3xi8>) outs(%{{.*}} : tensor<1x3x3x2xi8>) permutation = [0, 2, 3, 1]
// CHECK: quanta.qmatmul {{.*}}depthwise{{.*}}weights = dense<{{\[\[}}10, 25], [20, -30], [30, 35], [-40, 40]]> : tensor<4x2xi8>, window = array<i64: 2, 2, 1, 1, 1, 1>} : tensor<1x3x3x2x!quant.uniform<u8:f32, 5.000000e-02:10>> -> tensor<4x2x!quant.uniform<u8:f32, 2.000000e-02:5>>
// CHECK: linalg.transpose ins(%{{.*}} : tensor<1x2x2x2xi8>) outs(%{{.*}} : tensor<1x2x2x2xi8>) permutation = [0, 3, 1, 2]
// CHECK-NOT: linalg.depthwise
func.func @depthwise_nchw(%x: tensor<1x2x3x3x!x>) -> tensor<1x2x2x2x!o> {
  %xd = quant.dcast %x : tensor<1x2x3x3x!x> to tensor<1x2x3x3xf32>
  %wf = arith.constant dense<[[[0.1, 0.2], [0.3, -0.4]], [[0.5, -0.6], [0.7, 0.8]]]> : tensor<2x2x2xf32>
  %wq = quant.qcast %wf : tensor<2x2x2xf32> to tensor<2x2x2x!w>
  %wd = quant.dcast %wq : tensor<2x2x2x!w> to tensor<2x2x2xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<1x2x2x2xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %c = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%xd, %wd : tensor<1x2x3x3xf32>, tensor<2x2x2xf32>) outs(%init : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %r = quant.qcast %c : tensor<1x2x2x2xf32> to tensor<1x2x2x2x!o>
  return %r : tensor<1x2x2x2x!o>
}

// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers)' | FileCheck %s
// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers{qconfig=qnnpack})' | FileCheck %s --check-prefix=QNNPACK
// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers{qconfig=x86_qat})' | FileCheck %s --check-prefix=QAT
// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers{fold-constant-weights=false})' | FileCheck %s --check-prefix=NOFOLD
// RUN: quant-opt %s -split-input-file --pass-pipeline='builtin.module(quanta-insert-observers{fuse-clamps=true})' | FileCheck %s --check-prefix=FUSE

#map = affine_map<(d0, d1) -> (d0, d1)>
#bias = affine_map<(d0, d1) -> (d1)>

// Linear + bias + relu is observed once, after the relu (PyTorch fuses
// linear-relu and the bias is part of the linear). The weight gets the
// per-channel weight observer on its output-channel axis (N = 1 of KxN) and
// statistics computed now from the constant.

// CHECK-LABEL: func @linear_bias_relu
// CHECK-SAME: (%[[X:.*]]: tensor<2x4xf32>)
// CHECK: %[[XO:.*]] = quanta.observe %[[X]] {name = "arg0", observer = #quanta.histogram<reduce_range = true>}
// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<4x3xf32>
// CHECK: %[[WO:.*]] = quanta.observe %[[W]] {name = "fc1.weight", observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>, stats = #quanta.min_max_stats<min = [-4.0, -2.0, 0.0], max = [1.0, 3.0, 0.5], num_batches = 1>}
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[XO]], %[[WO]] :
// CHECK-NOT: quanta.observe
// CHECK: arith.addf
// CHECK-NOT: quanta.observe
// CHECK: %[[RELU:.*]] = linalg.generic
// CHECK-NEXT: ^bb0
// CHECK-NEXT: arith.maximumf
// CHECK: quanta.observe %[[RELU]] {name = "fc1.output", observer = #quanta.histogram<reduce_range = true>}

// QNNPACK-LABEL: func @linear_bias_relu
// QNNPACK: quanta.observe %{{.*}} {name = "arg0", observer = #quanta.histogram<>}
// QNNPACK: quanta.observe %{{.*}} {name = "fc1.weight", observer = #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>, stats = #quanta.min_max_stats<min = [-4.0], max = [3.0], num_batches = 1>}

// QAT-LABEL: func @linear_bias_relu
// QAT: quanta.fake_quant %{{.*}} {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<reduce_range = true>, quant_min = 0, quant_max = 255, fused = true>, name = "arg0", observer_enabled = true}
// QAT: quanta.fake_quant %{{.*}} {axis = 1 : i64, fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>, quant_min = -128, quant_max = 127, fused = true>, name = "fc1.weight", observer_enabled = true, stats = #quanta.min_max_stats<min = [-4.0, -2.0, 0.0], max = [1.0, 3.0, 0.5], num_batches = 1>}

// NOFOLD-LABEL: func @linear_bias_relu
// NOFOLD: quanta.observe %{{.*}} {name = "fc1.weight", observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>} : tensor<4x3xf32>
func.func @linear_bias_relu(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
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

// -----

// A value used by two quantized ops is observed once; add + relu is fused;
// a matmul of two activations observes both as activations.

// CHECK-LABEL: func @shared_input_add_relu_and_activation_matmul
// CHECK-SAME: (%[[A:.*]]: tensor<4x4xf32>, %[[B:.*]]: tensor<4x4xf32>)
// CHECK: %[[AO:.*]] = quanta.observe %[[A]] {name = "arg0",
// CHECK-NEXT: %[[BO:.*]] = quanta.observe %[[B]] {name = "arg1",
// CHECK: %[[MM:.*]] = linalg.matmul ins(%[[AO]], %[[BO]] :
// CHECK: %[[MMO:.*]] = quanta.observe %[[MM]] {name = "matmul_0.output",
// CHECK: linalg.add ins(%[[AO]], %[[MMO]] :
// CHECK-NOT: quanta.observe
// CHECK: %[[RELU:.*]] = linalg.max
// CHECK: quanta.observe %[[RELU]] {name = "add_0.output",
// CHECK-NOT: quanta.observe
func.func @shared_input_add_relu_and_activation_matmul(%a: tensor<4x4xf32>, %b: tensor<4x4xf32>) -> tensor<4x4xf32> {
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %mm = linalg.matmul ins(%a, %b : tensor<4x4xf32>, tensor<4x4xf32>) outs(%fill : tensor<4x4xf32>) -> tensor<4x4xf32>
  %sum = linalg.add ins(%a, %mm : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  %relu = linalg.max ins(%sum, %fill : tensor<4x4xf32>, tensor<4x4xf32>) outs(%init : tensor<4x4xf32>) -> tensor<4x4xf32>
  return %relu : tensor<4x4xf32>
}

// -----

// Convolutions: the filter's output channels are F (axis 3 of HWCF, axis 0
// of FCHW); depthwise HWC filters use C. Pooling, reshapes and transposes
// share their input's observer; tanh gets PyTorch's fixed [-1, 1] qparams.

// CHECK-LABEL: func @conv_layouts_and_shared_ops
// CHECK: quanta.observe %{{.*}} {name = "hwcf.weight", observer = #quanta.per_channel_min_max<ch_axis = 3, dtype = qint8, qscheme = per_channel_symmetric>, stats = #quanta.min_max_stats<min = [1.0, -1.0], max = [1.0, -1.0], num_batches = 1>}
// CHECK: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf
// CHECK: quanta.observe %[[CONV]] {name = "hwcf.output", observer = #quanta.histogram<reduce_range = true>}
// CHECK: quanta.observe %{{.*}} {name = "dw.weight", observer = #quanta.per_channel_min_max<ch_axis = 2, dtype = qint8, qscheme = per_channel_symmetric>
// CHECK: %[[DW:.*]] = linalg.depthwise_conv_2d_nhwc_hwc
// CHECK: quanta.observe %[[DW]] {name = "dw.output",
// CHECK: %[[POOL:.*]] = linalg.pooling_nhwc_max
// CHECK: quanta.observe %[[POOL]] {name = "pooling_nhwc_max_0.output", observer = #quanta.reuse_input}
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK: quanta.observe %[[T]] {name = "transpose_0.output", observer = #quanta.reuse_input}
// CHECK: quanta.observe %{{.*}} {name = "fchw.weight", observer = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>
// CHECK: %[[NCHW:.*]] = linalg.conv_2d_nchw_fchw
// CHECK: quanta.observe %[[NCHW]] {name = "fchw.output",
// CHECK: %[[C:.*]] = tensor.collapse_shape
// CHECK: quanta.observe %[[C]] {name = "collapse_shape_0.output", observer = #quanta.reuse_input}
// CHECK: %[[TANH:.*]] = linalg.tanh
// CHECK: quanta.observe %[[TANH]] {name = "tanh_0.output", observer = #quanta.fixed_qparams<scale = 0.0078125, zero_point = 128>}
func.func @conv_layouts_and_shared_ops(%x: tensor<1x6x6x3xf32>) -> tensor<1x8xf32> {
  %zero = arith.constant 0.0 : f32
  %w = arith.constant dense<[[[[1.0, -1.0], [1.0, -1.0], [1.0, -1.0]]]]> : tensor<1x1x3x2xf32>
  %i0 = tensor.empty() : tensor<1x6x6x2xf32>
  %f0 = linalg.fill ins(%zero : f32) outs(%i0 : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x6x6x3xf32>, tensor<1x1x3x2xf32>) outs(%f0 : tensor<1x6x6x2xf32>) -> tensor<1x6x6x2xf32> loc("hwcf")
  %dww = arith.constant dense<0.5> : tensor<3x3x2xf32>
  %i1 = tensor.empty() : tensor<1x4x4x2xf32>
  %f1 = linalg.fill ins(%zero : f32) outs(%i1 : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %dw = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%conv, %dww : tensor<1x6x6x2xf32>, tensor<3x3x2xf32>) outs(%f1 : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("dw")
  %window = tensor.empty() : tensor<2x2xf32>
  %i2 = tensor.empty() : tensor<1x2x2x2xf32>
  %f2 = linalg.fill ins(%zero : f32) outs(%i2 : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} ins(%dw, %window : tensor<1x4x4x2xf32>, tensor<2x2xf32>) outs(%f2 : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %i3 = tensor.empty() : tensor<1x2x2x2xf32>
  %nchw = linalg.transpose ins(%pool : tensor<1x2x2x2xf32>) outs(%i3 : tensor<1x2x2x2xf32>) permutation = [0, 3, 1, 2]
  %w2 = arith.constant dense<0.25> : tensor<2x2x1x1xf32>
  %i4 = tensor.empty() : tensor<1x2x2x2xf32>
  %f4 = linalg.fill ins(%zero : f32) outs(%i4 : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32>
  %conv2 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%nchw, %w2 : tensor<1x2x2x2xf32>, tensor<2x2x1x1xf32>) outs(%f4 : tensor<1x2x2x2xf32>) -> tensor<1x2x2x2xf32> loc("fchw")
  %flat = tensor.collapse_shape %conv2 [[0], [1, 2, 3]] : tensor<1x2x2x2xf32> into tensor<1x8xf32>
  %i5 = tensor.empty() : tensor<1x8xf32>
  %tanh = linalg.tanh ins(%flat : tensor<1x8xf32>) outs(%i5 : tensor<1x8xf32>) -> tensor<1x8xf32>
  return %tanh : tensor<1x8xf32>
}

// -----

// Per-op qconfig: an op's quanta.qconfig attribute ("none" keeps it in
// float) wins over the pass option. The input of a quantized op is observed
// even when a float op produces it, with the consumer's qconfig.

// CHECK-LABEL: func @per_op_qconfig
// CHECK-SAME: (%[[X:.*]]: tensor<2x2xf32>)
// CHECK: %[[W:.*]] = quanta.observe %{{.*}} {name = "matmul_1.weight", observer = #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>
// CHECK: %[[FLOAT:.*]] = linalg.matmul {quanta.qconfig = "none"} ins(%[[X]], %[[W]] :
// CHECK-NEXT: %[[IN:.*]] = quanta.observe %[[FLOAT]] {name = "matmul_0.output", observer = #quanta.min_max<quant_min = 0, quant_max = 127>}
// CHECK-NEXT: %[[Q:.*]] = linalg.matmul {quanta.qconfig = "default"} ins(%[[IN]], %[[W]] :
// CHECK-NEXT: quanta.observe %[[Q]] {name = "matmul_1.output", observer = #quanta.min_max<quant_min = 0, quant_max = 127>}
func.func @per_op_qconfig(%x: tensor<2x2xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<1.0> : tensor<2x2xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = linalg.matmul {quanta.qconfig = "none"} ins(%x, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%fill : tensor<2x2xf32>) -> tensor<2x2xf32>
  %1 = linalg.matmul {quanta.qconfig = "default"} ins(%0, %w : tensor<2x2xf32>, tensor<2x2xf32>) outs(%fill : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %1 : tensor<2x2xf32>
}

// -----

// Shape-only ops over constants compute weights: they are not observed as
// activations, and the weight observer sits on the matmul operand.

// CHECK-LABEL: func @transposed_constant_weight
// CHECK: %[[T:.*]] = linalg.transpose
// CHECK-NEXT: quanta.observe %[[T]] {name = "matmul_0.weight", observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>} : tensor<3x2xf32>
func.func @transposed_constant_weight(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]]> : tensor<2x3xf32>
  %ti = tensor.empty() : tensor<3x2xf32>
  %wt = linalg.transpose ins(%w : tensor<2x3xf32>) outs(%ti : tensor<3x2xf32>) permutation = [1, 0]
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %0 = linalg.matmul ins(%x, %wt : tensor<2x3xf32>, tensor<3x2xf32>) outs(%fill : tensor<2x2xf32>) -> tensor<2x2xf32>
  return %0 : tensor<2x2xf32>
}

// -----

// Ops PyTorch does not quantize (here exp) stay float; their output is
// observed only because the sigmoid that consumes it is quantized. sigmoid
// as tosa-to-linalg spells it gets the fixed [0, 1] qparams.

// CHECK-LABEL: func @float_op_and_sigmoid
// CHECK: linalg.exp
// CHECK-NEXT: quanta.observe %{{.*}} {name = "exp_0.output", observer = #quanta.histogram<reduce_range = true>}
// CHECK: %[[SIG:.*]] = linalg.generic
// CHECK: math.exp
// CHECK: quanta.observe %[[SIG]] {name = "sigmoid_0.output", observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>}
// Under QAT, PyTorch's FixedQParamsFakeQuantize, its qparams set when built.
// QAT-LABEL: func @float_op_and_sigmoid
// QAT: %[[SIG:.*]] = linalg.generic
// QAT: quanta.fake_quant %[[SIG]] {fake_quantize = #quanta.fake_quantize<observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>>, name = "sigmoid_0.output", observer_enabled = true, scale = array<f32: 3.906250e-03>, zero_point = array<i64: 0>}
#id = affine_map<(d0) -> (d0)>
func.func @float_op_and_sigmoid(%x: tensor<8xf32>) -> tensor<8xf32> {
  %one = arith.constant 1.0 : f32
  %init = tensor.empty() : tensor<8xf32>
  %e = linalg.exp ins(%x : tensor<8xf32>) outs(%init : tensor<8xf32>) -> tensor<8xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel"]} ins(%e : tensor<8xf32>) outs(%init : tensor<8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %n = arith.negf %in : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<8xf32>
  return %s : tensor<8xf32>
}

// -----

// PyTorch's Linear holds its weights as [out, in]: a matmul reading them
// through a transposed B map observes them per channel along axis 0 (the
// default, not printed).

// CHECK-LABEL: func @linear_transposed_weights
// CHECK: quanta.observe %{{.*}} {name = "fc_t.weight", observer = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>, stats = #quanta.min_max_stats<min = [-2.0, 0.0], max = [1.0, 3.0], num_batches = 1>}
func.func @linear_transposed_weights(%x: tensor<2x3xf32>) -> tensor<2x2xf32> {
  %w = arith.constant dense<[[1.0, -2.0, 0.5], [0.0, 3.0, 0.5]]> : tensor<2x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x2xf32>) -> tensor<2x2xf32>
  %mm = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>] ins(%x, %w : tensor<2x3xf32>, tensor<2x3xf32>) outs(%fill : tensor<2x2xf32>) -> tensor<2x2xf32> loc("fc_t")
  return %mm : tensor<2x2xf32>
}

// -----

// A clamp after a fused chain (relu6, ONNX's Clip) shares the chain's
// qparams, as in PyTorch FX: the chain is observed before it. With
// fuse-clamps it ends the chain, as TFLite fuses RELU6: the output is
// observed after it. A clamp after an add behaves the same way.

// FUSE-LABEL: func @conv_bias_relu6_and_add_clamp
// FUSE: %[[CONV:.*]] = linalg.conv_2d_nhwc_hwcf
// FUSE-NOT: quanta.observe %[[CONV]]
// FUSE: %[[BIASED:.*]] = linalg.generic
// FUSE-NOT: quanta.observe %[[BIASED]]
// FUSE: %[[RELU6:.*]] = linalg.generic
// FUSE: %[[RELU6_OBS:.*]] = quanta.observe %[[RELU6]] {name = "conv.output", observer = #quanta.histogram<reduce_range = true>}
// FUSE: %[[SUM:.*]] = linalg.add
// FUSE-NOT: quanta.observe %[[SUM]]
// FUSE: %[[CLIP:.*]] = linalg.generic
// FUSE: quanta.observe %[[CLIP]] {name = "add_0.output", observer = #quanta.histogram<reduce_range = true>}
// FUSE-NOT: reuse_input

// CHECK-LABEL: func @conv_bias_relu6_and_add_clamp
// CHECK: %[[BIASED:.*]] = linalg.generic
// CHECK: quanta.observe %[[BIASED]] {name = "conv.output", observer = #quanta.histogram<reduce_range = true>}
// CHECK: %[[RELU6:.*]] = linalg.generic
// CHECK: quanta.observe %[[RELU6]] {{{.*}}observer = #quanta.reuse_input}
// CHECK: %[[SUM:.*]] = linalg.add
// CHECK: quanta.observe %[[SUM]] {name = "add_0.output", observer = #quanta.histogram<reduce_range = true>}
// CHECK: %[[CLIP:.*]] = linalg.generic
// CHECK: quanta.observe %[[CLIP]] {{{.*}}observer = #quanta.reuse_input}
#map4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
#chan = affine_map<(d0, d1, d2, d3) -> (d3)>
func.func @conv_bias_relu6_and_add_clamp(%x: tensor<1x4x4x2xf32>, %y: tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> {
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %lo = arith.constant -1.0 : f32
  %hi = arith.constant 1.0 : f32
  %w = arith.constant dense<[[[[1.0, -1.0], [0.5, 2.0]]]]> : tensor<1x1x2x2xf32>
  %b = arith.constant dense<[0.25, -0.5]> : tensor<2xf32>
  %init = tensor.empty() : tensor<1x4x4x2xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %conv = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %w : tensor<1x4x4x2xf32>, tensor<1x1x2x2xf32>) outs(%fill : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32> loc("conv")
  %biased = linalg.generic {indexing_maps = [#map4, #chan, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%conv, %b : tensor<1x4x4x2xf32>, tensor<2xf32>) outs(%init : tensor<1x4x4x2xf32>) {
  ^bb0(%in: f32, %bias: f32, %out: f32):
    %s = arith.addf %in, %bias : f32
    linalg.yield %s : f32
  } -> tensor<1x4x4x2xf32>
  %relu6 = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%biased : tensor<1x4x4x2xf32>) outs(%init : tensor<1x4x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    %c = arith.minimumf %m, %six : f32
    linalg.yield %c : f32
  } -> tensor<1x4x4x2xf32>
  %sum = linalg.add ins(%relu6, %y : tensor<1x4x4x2xf32>, tensor<1x4x4x2xf32>) outs(%init : tensor<1x4x4x2xf32>) -> tensor<1x4x4x2xf32>
  %clip = linalg.generic {indexing_maps = [#map4, #map4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x4x4x2xf32>) outs(%init : tensor<1x4x4x2xf32>) {
  ^bb0(%in: f32, %out: f32):
    %c = arith.minimumf %in, %hi : f32
    %m = arith.maximumf %c, %lo : f32
    linalg.yield %m : f32
  } -> tensor<1x4x4x2xf32>
  return %clip : tensor<1x4x4x2xf32>
}

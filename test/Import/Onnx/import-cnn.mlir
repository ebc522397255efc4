// RUN: quant-translate --import-onnx %S/Inputs/cnn.onnx --onnx-batch=2 --mlir-elide-elementsattrs-if-larger=16 | FileCheck %s
// RUN: quant-translate --import-onnx %S/Inputs/cnn.onnx --onnx-batch=2 | quant-opt --quanta-prepare=qconfig=x86 | FileCheck %s --check-prefix=OBSERVED

// The ONNX CNN of Inputs/ (gen_onnx_test_models.py) in the forms
// quanta-quantize recognizes: conv into a zero fill, then a bias add
// broadcast along the channels, relu as a max with a constant outside the
// body; pads as tensor.pad (-inf for max pooling); Gemm's transB weights
// transposed at import; the graph's names on the signature.

// CHECK-LABEL: func.func @main(%{{.*}}: tensor<2x1x8x8xf32> {onnx.name = "x"}) -> (tensor<2x10xf32> {onnx.name = "y"})
// CHECK: %[[W1:.*]] = arith.constant dense_resource<__elided__> : tensor<4x1x3x3xf32>
// CHECK: %[[B1:.*]] = arith.constant dense<{{.*}}> : tensor<4xf32>
// CHECK: %[[P1:.*]] = tensor.pad %{{.*}} low[0, 0, 1, 1] high[0, 0, 1, 1]
// CHECK: %[[Z1:.*]] = linalg.fill
// CHECK: %[[C1:.*]] = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%[[P1]], %[[W1]] : tensor<2x1x10x10xf32>, tensor<4x1x3x3xf32>) outs(%[[Z1]] :
// CHECK: linalg.generic {indexing_maps = [#map, #map1, #map]{{.*}} ins(%[[C1]], %[[B1]] : tensor<2x4x8x8xf32>, tensor<4xf32>)
// CHECK: arith.addf
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: linalg.generic
// CHECK: arith.maximumf %{{.*}}, %[[ZERO]] : f32
// CHECK: %[[NEGINF:.*]] = arith.constant 0xFF800000 : f32
// CHECK: linalg.fill ins(%[[NEGINF]] : f32)
// CHECK: linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} {{.*}} -> tensor<2x4x4x4xf32>
// group = 2: input and weights split into groups.
// CHECK: tensor.expand_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] output_shape [2, 2, 2, 6, 6]
// CHECK: linalg.conv_2d_ngchw_gfchw {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>} {{.*}} -> tensor<2x2x4x2x2xf32>
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2], [3], [4]] : tensor<2x2x4x2x2xf32> into tensor<2x8x2x2xf32>
// group = channels: depthwise, its weights [8, 1, 3, 3] reshaped at import.
// CHECK: arith.constant dense_resource<__elided__> : tensor<8x3x3xf32>
// CHECK: linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<2x8x2x2xf32>
// Global average pool: a sum over the whole window, divided by its size.
// CHECK: linalg.pooling_nchw_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x8x2x2xf32>, tensor<2x2xf32>) {{.*}} -> tensor<2x8x1x1xf32>
// CHECK: arith.constant 4.000000e+00 : f32
// CHECK: arith.divf
// CHECK: tensor.collapse_shape %{{.*}} {{\[}}[0], [1, 2, 3]] : tensor<2x8x1x1xf32> into tensor<2x8xf32>
// CHECK: %[[W4:.*]] = arith.constant dense_resource<__elided__> : tensor<8x10xf32>
// CHECK: linalg.matmul ins(%{{.*}}, %[[W4]] : tensor<2x8xf32>, tensor<8x10xf32>)
// Softmax: max, exp(x - max), sum, division.
// CHECK: arith.maximumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
// CHECK-NOT: tensor<10x8xf32>

// PyTorch's prepare() on the import: weights observed per channel (axis 0
// of the NCHW and depthwise filters, axis 1 of the transposed Gemm
// weights), activations by histograms.
// OBSERVED-DAG: quanta.observe {{.*}}observer = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>{{.*}} : tensor<4x1x3x3xf32>
// OBSERVED-DAG: quanta.observe {{.*}}observer = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>{{.*}} : tensor<8x3x3xf32>
// OBSERVED-DAG: quanta.observe {{.*}}observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8, qscheme = per_channel_symmetric>{{.*}} : tensor<8x10xf32>

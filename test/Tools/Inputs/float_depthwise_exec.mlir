// f32 depthwise convolutions for quant-run-float-depthwise.mlir: NCHW and
// NHWC, 3x3 and 5x5, strides 1 and 2, a dilation, odd sizes, batch 2, and
// an init tensor that is not zero (a bias). The filter is an argument.

func.func @nchw_3x3_s1(%x: tensor<1x19x11x13xf32>, %w: tensor<19x3x3xf32>) -> tensor<1x19x9x11xf32> {
  %init = arith.constant dense<0.375> : tensor<1x19x9x11xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<1x19x11x13xf32>, tensor<19x3x3xf32>) outs(%init : tensor<1x19x9x11xf32>) -> tensor<1x19x9x11xf32>
  return %y : tensor<1x19x9x11xf32>
}

func.func @nchw_5x5_s2_dilated(%x: tensor<2x8x21x17xf32>, %w: tensor<8x5x5xf32>) -> tensor<2x8x7x5xf32> {
  %zero = arith.constant 0.0 : f32
  %empty = tensor.empty() : tensor<2x8x7x5xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<2x8x7x5xf32>) -> tensor<2x8x7x5xf32>
  %y = linalg.depthwise_conv_2d_nchw_chw {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<2x8x21x17xf32>, tensor<8x5x5xf32>) outs(%init : tensor<2x8x7x5xf32>) -> tensor<2x8x7x5xf32>
  return %y : tensor<2x8x7x5xf32>
}

func.func @nhwc_3x3_s2(%x: tensor<1x15x15x37xf32>, %w: tensor<3x3x37xf32>) -> tensor<1x7x7x37xf32> {
  %init = arith.constant dense<-1.5> : tensor<1x7x7x37xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%x, %w : tensor<1x15x15x37xf32>, tensor<3x3x37xf32>) outs(%init : tensor<1x7x7x37xf32>) -> tensor<1x7x7x37xf32>
  return %y : tensor<1x7x7x37xf32>
}

func.func @nhwc_5x5_s1(%x: tensor<2x9x10x16xf32>, %w: tensor<5x5x16xf32>) -> tensor<2x5x6x16xf32> {
  %init = arith.constant dense<0.0> : tensor<2x5x6x16xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}
         ins(%x, %w : tensor<2x9x10x16xf32>, tensor<5x5x16xf32>) outs(%init : tensor<2x5x6x16xf32>) -> tensor<2x5x6x16xf32>
  return %y : tensor<2x5x6x16xf32>
}

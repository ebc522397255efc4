// Window reductions for quant-run-window.mlir: pools and depthwise
// convolutions, named and generic (the integer forms quanta-quantize
// writes), some behind a tensor.pad the lowering reads through: asymmetric
// padding, strides, a dilation, odd sizes, batch 2.

#image = affine_map<(n, h, w, c, kh, kw) -> (n, h * 2 + kh, w * 2 + kw, c)>
#window = affine_map<(n, h, w, c, kh, kw) -> (kh, kw)>
#output = affine_map<(n, h, w, c, kh, kw) -> (n, h, w, c)>

// ResNet's max pool: -inf padding, 3x3 at stride 2.
func.func @max_pool_padded(%x: tensor<2x9x11x19xf32>) -> tensor<2x5x6x19xf32> {
  %ninf = arith.constant 0xFF800000 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %ninf : f32
  } : tensor<2x9x11x19xf32> to tensor<2x11x13x19xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %empty = tensor.empty() : tensor<2x5x6x19xf32>
  %init = linalg.fill ins(%ninf : f32) outs(%empty : tensor<2x5x6x19xf32>) -> tensor<2x5x6x19xf32>
  %y = linalg.pooling_nhwc_max {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%padded, %window : tensor<2x11x13x19xf32>, tensor<3x3xf32>) outs(%init : tensor<2x5x6x19xf32>) -> tensor<2x5x6x19xf32>
  return %y : tensor<2x5x6x19xf32>
}

// A sum pool (an average pool before its division) with a dilation and
// zero padding on one side only.
func.func @sum_pool_dilated(%x: tensor<1x8x8x33xf32>) -> tensor<1x5x4x33xf32> {
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %x low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : f32
  } : tensor<1x8x8x33xf32> to tensor<1x9x9x33xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %empty = tensor.empty() : tensor<1x5x4x33xf32>
  %init = linalg.fill ins(%zero : f32) outs(%empty : tensor<1x5x4x33xf32>) -> tensor<1x5x4x33xf32>
  %y = linalg.pooling_nhwc_sum {dilations = dense<[2, 1]> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>}
         ins(%padded, %window : tensor<1x9x9x33xf32>, tensor<3x3xf32>) outs(%init : tensor<1x5x4x33xf32>) -> tensor<1x5x4x33xf32>
  return %y : tensor<1x5x4x33xf32>
}

// MobileNetV2's depthwise convolution as the importer leaves it: zero
// padding, a bias in the init; the padding value 0.5 here, so that reading
// it where the image is (or the image where it is) would show.
func.func @depthwise_padded(%x: tensor<1x10x9x24xf32>, %w: tensor<3x3x24xf32>) -> tensor<1x5x5x24xf32> {
  %half = arith.constant 0.5 : f32
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 0, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %half : f32
  } : tensor<1x10x9x24xf32> to tensor<1x11x11x24xf32>
  %init = arith.constant dense<0.25> : tensor<1x5x5x24xf32>
  %y = linalg.depthwise_conv_2d_nhwc_hwc {dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}
         ins(%padded, %w : tensor<1x11x11x24xf32>, tensor<3x3x24xf32>) outs(%init : tensor<1x5x5x24xf32>) -> tensor<1x5x5x24xf32>
  return %y : tensor<1x5x5x24xf32>
}

// quanta-quantize's max pool of u8 storage (an unsigned max of i8 values)
// behind its padding with the storage minimum.
func.func @u8_max_pool(%x: tensor<2x7x9x40xi8>) -> tensor<2x4x5x40xi8> {
  %zero = arith.constant 0 : i8
  %padded = tensor.pad %x low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %zero : i8
  } : tensor<2x7x9x40xi8> to tensor<2x9x11x40xi8>
  %window = tensor.empty() : tensor<3x3xf32>
  %empty = tensor.empty() : tensor<2x4x5x40xi8>
  %init = linalg.fill ins(%zero : i8) outs(%empty : tensor<2x4x5x40xi8>) -> tensor<2x4x5x40xi8>
  %y = linalg.generic {indexing_maps = [#image, #window, #output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
         ins(%padded, %window : tensor<2x9x11x40xi8>, tensor<3x3xf32>) outs(%init : tensor<2x4x5x40xi8>) {
  ^bb0(%in: i8, %unused: f32, %out: i8):
    %max = arith.maxui %in, %out : i8
    linalg.yield %max : i8
  } -> tensor<2x4x5x40xi8>
  return %y : tensor<2x4x5x40xi8>
}

// quanta-quantize's average pool sums of s8 storage: i32 sums of q - zp.
func.func @s8_pool_sums(%x: tensor<1x9x9x20xi8>) -> tensor<1x4x4x20xi32> {
  %zero = arith.constant 0 : i32
  %zp = arith.constant -3 : i32
  %window = tensor.empty() : tensor<3x3xf32>
  %empty = tensor.empty() : tensor<1x4x4x20xi32>
  %init = linalg.fill ins(%zero : i32) outs(%empty : tensor<1x4x4x20xi32>) -> tensor<1x4x4x20xi32>
  %y = linalg.generic {indexing_maps = [#image, #window, #output], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]}
         ins(%x, %window : tensor<1x9x9x20xi8>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x20xi32>) {
  ^bb0(%in: i8, %unused: f32, %out: i32):
    %wide = arith.extsi %in : i8 to i32
    %centred = arith.subi %wide, %zp : i32
    %sum = arith.addi %out, %centred : i32
    linalg.yield %sum : i32
  } -> tensor<1x4x4x20xi32>
  return %y : tensor<1x4x4x20xi32>
}

// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=YMM
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefix=ZMM
// RUN: quant-opt %s --split-input-file --quanta-lower-x86="isa=avx2 float=false" | FileCheck %s --check-prefix=OFF

// An f32 matmul with constant weights: packed into strips (K x 64 padded
// columns, 64 = the widest tile), 6 x 2 ymm tiles (8 x 2 zmm) then one-row
// tiles, each accumulator read from the init tensor and updated by one FMA
// per k.

// YMM-LABEL: func.func @constant_weights
// YMM-SAME: passthrough = {{\[\[}}"min-legal-vector-width", "256"]]
// YMM: arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<320xf32>
// YMM: scf.for
// YMM: vector.transfer_read %{{.*}} : tensor<7x10xf32>, vector<8xf32>
// YMM: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<320xf32>, vector<8xf32>
// YMM: tensor.extract %arg0
// YMM: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// YMM: vector.fma %{{.*}} : vector<8xf32>
// YMM: vector.transfer_write %{{.*}} : vector<8xf32>, tensor<7x10xf32>
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM-NOT: linalg.matmul

// ZMM-LABEL: func.func @constant_weights
// ZMM-SAME: passthrough = {{\[\[}}"prefer-vector-width", "512"], ["min-legal-vector-width", "512"]]
// ZMM: tensor<320xf32>
// ZMM: vector.fma %{{.*}} : vector<16xf32>
// ZMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// ZMM-NOT: linalg.matmul

// OFF-LABEL: func.func @constant_weights
// OFF-NOT: vector.fma
// OFF: linalg.matmul
func.func @constant_weights(%a: tensor<7x5xf32>, %init: tensor<7x10xf32>) -> tensor<7x10xf32> {
  %w = arith.constant dense<1.5> : tensor<5x10xf32>
  %r = linalg.matmul ins(%a, %w : tensor<7x5xf32>, tensor<5x10xf32>) outs(%init : tensor<7x10xf32>) -> tensor<7x10xf32>
  return %r : tensor<7x10xf32>
}

// -----

// Other element types and a transposed input stay as they are
// (transposed weights are packed like any others:
// quant-run-float-matmul.mlir); weights that are not constants, or
// constants that differ per batch, are packed at run time
// (quant-run-float-matmul.mlir runs them). With avx512vnni every function
// still asks LLVM for zmm in the loops it vectorizes
// (prefer-vector-width), with avx2 none does.

// YMM-LABEL: func.func @left_alone
// YMM-NOT: vector.fma
// YMM-NOT: passthrough
// YMM-COUNT-2: linalg.matmul
// YMM-NOT: linalg.batch_matmul
// ZMM-LABEL: func.func @left_alone
// ZMM-SAME: passthrough = {{\[\[}}"prefer-vector-width", "512"], ["min-legal-vector-width", "512"]]
// ZMM-NOT: vector.fma
// ZMM-COUNT-2: linalg.matmul
// ZMM-NOT: linalg.batch_matmul
func.func @left_alone(%h: tensor<4x8xf16>, %hc: tensor<4x16xf16>, %at: tensor<8x4xf32>,
                      %c: tensor<4x16xf32>) -> (tensor<4x16xf16>, tensor<4x16xf32>) {
  %w16 = arith.constant dense<1.0> : tensor<8x16xf16>
  %1 = linalg.matmul ins(%h, %w16 : tensor<4x8xf16>, tensor<8x16xf16>) outs(%hc : tensor<4x16xf16>) -> tensor<4x16xf16>
  %w = arith.constant dense<2.0> : tensor<8x16xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (k, m)>, affine_map<(m, n, k) -> (k, n)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%at, %w : tensor<8x4xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %1, %2 : tensor<4x16xf16>, tensor<4x16xf32>
}

// -----

// Products whose B is not one constant GEMM's: an argument, constants that
// differ per batch. B (16 columns) is packed to the widest tile's 64 by a
// generic over the packed layout, every batch's before the batch loop,
// which the threads share.

// YMM-LABEL: func.func @packed_at_run_time
// YMM-SAME: passthrough = {{\[\[}}"min-legal-vector-width", "256"]]
// YMM: tensor.extract %arg1
// YMM: tensor.collapse_shape {{.*}} : tensor<8x8x1x8x1xf32> into tensor<512xf32>
// YMM: vector.fma
// YMM: tensor.extract %{{.*}} : tensor<2x8x16xf32>
// YMM: tensor.collapse_shape {{.*}} : tensor<2x8x8x1x8x1xf32> into tensor<2x512xf32>
// YMM: scf.for
// YMM: tensor.extract_slice %{{.*}} : tensor<2x512xf32> to tensor<512xf32>
// YMM: vector.fma
// YMM: tensor.insert_slice
// YMM: {quanta.parallel}
// YMM-NOT: linalg.batch_matmul
// ZMM-LABEL: func.func @packed_at_run_time
// ZMM: vector.fma %{{.*}} : vector<16xf32>
// OFF-LABEL: func.func @packed_at_run_time
// OFF: linalg.matmul
// OFF: linalg.batch_matmul
func.func @packed_at_run_time(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
                              %ba: tensor<2x4x8xf32>, %bc: tensor<2x4x16xf32>) -> (tensor<4x16xf32>, tensor<2x4x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %wb = arith.constant dense<2.0> : tensor<2x8x16xf32>
  %1 = linalg.batch_matmul ins(%ba, %wb : tensor<2x4x8xf32>, tensor<2x8x16xf32>) outs(%bc : tensor<2x4x16xf32>) -> tensor<2x4x16xf32>
  return %0, %1 : tensor<4x16xf32>, tensor<2x4x16xf32>
}

// -----

// An NHWC convolution with a constant filter is the GEMM of its implicit
// im2col matrix: the input flattened, each tile row at its pixel
// ((n * 5 + oh) * 6 + ow * 2) * 3 (stride [1, 2]; OH = 4, OW = 3), every
// k at a table's offset from it (tap (kh, kw) moves (kh * 6 + kw) pixels
// of 3 channels, then c), the init tensor collapsed to M x F and the
// result expanded back. linalg bounds the loops by the output: a smaller
// output (2 x 2) computes that corner only. A convolution whose filter is
// not a constant stays.
// YMM-DAG: #[[PIXEL:.*]] = affine_map<(d0) -> ((((d0 floordiv 12) * 5 + (d0 mod 12) floordiv 3) * 6 + (d0 mod 3) * 2) * 3)>
// YMM-DAG: #[[CORNER:.*]] = affine_map<(d0) -> ((((d0 floordiv 4) * 5 + (d0 mod 4) floordiv 2) * 6 + (d0 mod 2) * 2) * 3)>
// YMM-LABEL: func.func @convolution
// YMM: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : tensor<2x5x6x3xf32> into tensor<180xf32>
// YMM: %[[INIT:.*]] = tensor.collapse_shape %arg1 {{\[\[}}0, 1, 2], [3]] : tensor<2x4x3x4xf32> into tensor<24x4xf32>
// YMM: %[[TABLE:.*]] = arith.constant dense<[0, 1, 2, 3, 4, 5, 18, 19, 20, 21, 22, 23]> : tensor<12xindex>
// YMM: %[[BASE:.*]] = affine.apply #[[PIXEL]]
// YMM: %[[OFFSET:.*]] = tensor.extract %[[TABLE]]
// YMM: %[[AT:.*]] = arith.addi %[[BASE]], %[[OFFSET]]
// YMM: tensor.extract %[[FLAT]][%[[AT]]] : tensor<180xf32>
// YMM: vector.fma
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: tensor.expand_shape %{{.*}} {{\[\[}}0, 1, 2], [3]] output_shape [2, 4, 3, 4] : tensor<24x4xf32> into tensor<2x4x3x4xf32>
// YMM: affine.apply #[[CORNER]]
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: linalg.conv_2d_nhwc_hwcf
// ZMM-LABEL: func.func @convolution
// ZMM-COUNT-2: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// ZMM: linalg.conv_2d_nhwc_hwcf
// OFF-LABEL: func.func @convolution
// OFF-COUNT-3: linalg.conv_2d_nhwc_hwcf
func.func @convolution(%x: tensor<2x5x6x3xf32>, %init: tensor<2x4x3x4xf32>, %corner: tensor<2x2x2x4xf32>, %w: tensor<2x2x3x4xf32>) -> (tensor<2x4x3x4xf32>, tensor<2x2x2x4xf32>, tensor<2x4x3x4xf32>) {
  %filter = arith.constant dense<0.5> : tensor<2x2x3x4xf32>
  %0 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %filter : tensor<2x5x6x3xf32>, tensor<2x2x3x4xf32>) outs(%init : tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32>
  %1 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %filter : tensor<2x5x6x3xf32>, tensor<2x2x3x4xf32>) outs(%corner : tensor<2x2x2x4xf32>) -> tensor<2x2x2x4xf32>
  %2 = linalg.conv_2d_nhwc_hwcf {dilations = dense<1> : tensor<2xi64>, strides = dense<[1, 2]> : tensor<2xi64>} ins(%x, %w : tensor<2x5x6x3xf32>, tensor<2x2x3x4xf32>) outs(%init : tensor<2x4x3x4xf32>) -> tensor<2x4x3x4xf32>
  return %0, %1, %2 : tensor<2x4x3x4xf32>, tensor<2x2x2x4xf32>, tensor<2x4x3x4xf32>
}

// -----

// An NCHW convolution: its input and init transposed to NHWC (as vector
// tiles, lower-x86-transpose.mlir), the same kernel, the result
// transposed back.
// YMM-LABEL: func.func @nchw
// YMM: tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<1x3x5x6xf32> into tensor<1x3x30xf32>
// YMM: vector.transpose
// YMM: tensor.collapse_shape %arg1 {{\[\[}}0], [1], [2, 3]] : tensor<1x4x4x5xf32> into tensor<1x4x20xf32>
// YMM: vector.transpose
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: tensor.expand_shape %{{.*}} output_shape [1, 4, 5, 4] : tensor<20x4xf32> into tensor<1x4x5x4xf32>
// YMM: tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<1x4x5x4xf32> into tensor<1x20x4xf32>
// YMM: vector.transpose
// YMM: tensor.expand_shape %{{.*}} output_shape [1, 4, 4, 5] : tensor<1x4x20xf32> into tensor<1x4x4x5xf32>
// YMM-NOT: linalg.conv_2d
// YMM-NOT: linalg.transpose
// ZMM-LABEL: func.func @nchw
// ZMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// OFF-LABEL: func.func @nchw
// OFF: linalg.conv_2d_nchw_fchw
func.func @nchw(%x: tensor<1x3x5x6xf32>, %init: tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32> {
  %filter = arith.constant dense<0.25> : tensor<4x3x2x2xf32>
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %filter : tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) outs(%init : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  return %0 : tensor<1x4x4x5xf32>
}

// -----

// Elementwise ops after a float kernel run in its epilogue only where the
// kernel's value is theirs alone: a product also returned keeps its ReLU
// as a loop nest, and so does an op that reads its init (an accumulation
// into an argument). The fused one (the last product's) is a vector
// maximum after the FMA loop.
#id = affine_map<(d0, d1) -> (d0, d1)>
// YMM-LABEL: func.func @epilogues
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: linalg.generic
// YMM: arith.maximumf %{{.*}}, %{{.*}} : f32
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: linalg.generic
// YMM: arith.addf %{{.*}}, %{{.*}} : f32
// YMM: vector.fma
// YMM: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM-NOT: linalg.generic
// YMM: return
func.func @epilogues(%x: tensor<4x8xf32>, %acc: tensor<4x8xf32>) -> (tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>) {
  %w = arith.constant dense<0.5> : tensor<8x8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<4x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %relu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  %m2 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m2 : tensor<4x8xf32>) outs(%acc : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %m3 = linalg.matmul ins(%x, %w : tensor<4x8xf32>, tensor<8x8xf32>) outs(%f : tensor<4x8xf32>) -> tensor<4x8xf32>
  %fused = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%m3 : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.maximumf %in, %zero : f32
    linalg.yield %r : f32
  } -> tensor<4x8xf32>
  return %m, %relu, %sum, %fused : tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>, tensor<4x8xf32>
}

// -----

// NCHW ops the float kernels cannot take stay as they are: a convolution
// whose filter is an argument (no constant to pack), a pool of an image
// that no transpose produces (converting it would add two).
// YMM-LABEL: func.func @stays_nchw
// YMM: linalg.conv_2d_nchw_fchw
// YMM: linalg.pooling_nchw_max
// YMM-NOT: linalg.transpose
// YMM: return
func.func @stays_nchw(%x: tensor<1x3x5x6xf32>, %filter: tensor<4x3x2x2xf32>, %init: tensor<1x4x4x5xf32>, %pool_init: tensor<1x3x4x5xf32>) -> (tensor<1x4x4x5xf32>, tensor<1x3x4x5xf32>) {
  %0 = linalg.conv_2d_nchw_fchw {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %filter : tensor<1x3x5x6xf32>, tensor<4x3x2x2xf32>) outs(%init : tensor<1x4x4x5xf32>) -> tensor<1x4x4x5xf32>
  %window = tensor.empty() : tensor<2x2xf32>
  %1 = linalg.pooling_nchw_max {dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>} ins(%x, %window : tensor<1x3x5x6xf32>, tensor<2x2xf32>) outs(%pool_init : tensor<1x3x4x5xf32>) -> tensor<1x3x4x5xf32>
  return %0, %1 : tensor<1x4x4x5xf32>, tensor<1x3x4x5xf32>
}

// -----

// An ONNX MatMul of a [B, S, K] input as the importer writes it (its bias
// added to the M x N product, then expanded to [B, S, N]) followed by
// GELU's chain and a residual add over the 3-D shape: all of it runs in
// the kernel's epilogue (the residual read as the M x N matrix of the
// kernel's rows), the expansion moved after it.
#row2 = affine_map<(d0, d1) -> (d0, d1)>
#col2 = affine_map<(d0, d1) -> (d1)>
#row3 = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// YMM-LABEL: func.func @expanded_rows
// YMM: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1], [2]] : tensor<2x3x8xf32> into tensor<6x8xf32>
// YMM: arith.addf %{{.*}} : vector<8xf32>
// YMM: math.erf %{{.*}} : vector<8xf32>
// YMM: arith.addf %{{.*}} : vector<8xf32>
// YMM: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}
// YMM: tensor.expand_shape %{{.*}} output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
// YMM-NOT: linalg.generic
// YMM: return
func.func @expanded_rows(%x: tensor<6x8xf32>, %residual: tensor<2x3x8xf32>) -> tensor<2x3x8xf32> {
  %w = arith.constant dense<0.5> : tensor<8x8xf32>
  %bias = arith.constant dense<0.25> : tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<6x8xf32>
  %f = linalg.fill ins(%zero : f32) outs(%e : tensor<6x8xf32>) -> tensor<6x8xf32>
  %m = linalg.matmul ins(%x, %w : tensor<6x8xf32>, tensor<8x8xf32>) outs(%f : tensor<6x8xf32>) -> tensor<6x8xf32>
  %biased = linalg.generic {indexing_maps = [#row2, #col2, #row2], iterator_types = ["parallel", "parallel"]} ins(%m, %bias : tensor<6x8xf32>, tensor<8xf32>) outs(%e : tensor<6x8xf32>) {
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  } -> tensor<6x8xf32>
  %b3 = tensor.expand_shape %biased [[0, 1], [2]] output_shape [2, 3, 8] : tensor<6x8xf32> into tensor<2x3x8xf32>
  %init = tensor.empty() : tensor<2x3x8xf32>
  %c = arith.constant 0.707106769 : f32
  %half = arith.constant 0.5 : f32
  %one = arith.constant 1.0 : f32
  %gelu = linalg.generic {indexing_maps = [#row3, #row3, #row3], iterator_types = ["parallel", "parallel", "parallel"]} ins(%b3, %residual : tensor<2x3x8xf32>, tensor<2x3x8xf32>) outs(%init : tensor<2x3x8xf32>) {
  ^bb0(%in: f32, %r: f32, %out: f32):
    %d = arith.mulf %in, %c : f32
    %erf = math.erf %d : f32
    %p = arith.addf %erf, %one : f32
    %g = arith.mulf %in, %p : f32
    %h = arith.mulf %g, %half : f32
    %s = arith.addf %h, %r : f32
    linalg.yield %s : f32
  } -> tensor<2x3x8xf32>
  return %gelu : tensor<2x3x8xf32>
}

// RUN: quant-opt %s --quanta-quantize -split-input-file -verify-diagnostics --mlir-print-elementsattrs-with-hex-if-larger=1000 | FileCheck %s
// RUN: quant-opt %s --quanta-quantize=keep-float=softmax,layer-norm -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=FLOAT

// A softmax of a dequantized 8-bit activation: the row maximum, the i32 sum
// of expTable[max - q] (exp(-0.5 d) in 2^24 units: 8 * 2^24 fits in i32)
// and the float32 output step, all on the storage integers.
!in = !quant.uniform<u8:f32, 0.5:7>
!out = !quant.uniform<u8:f32, 0.00390625>
// CHECK-LABEL: func.func @rows
// CHECK-SAME: (%[[ARG:.*]]: tensor<4x8x!quant.uniform
// CHECK: %[[Q:.*]] = quant.scast %[[ARG]] {{.*}} to tensor<4x8xi8>
// CHECK: %[[TABLE:.*]] = arith.constant dense<[16777216, 10175896, 6171993, 3743503, {{.*}}]> : tensor<256xi32>
// CHECK: %[[MAX:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[Q]] : tensor<4x8xi8>) outs(%{{.*}} : tensor<4xi32>)
// CHECK:   arith.extui
// CHECK:   arith.maxsi
// CHECK: %[[SUM:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[Q]], %[[MAX]] : tensor<4x8xi8>, tensor<4xi32>) outs(%{{.*}} : tensor<4xi32>)
// CHECK:   arith.subi
// CHECK:   tensor.extract %[[TABLE]]
// CHECK:   arith.addi
// CHECK: %[[OUT:.*]] = linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[Q]], %[[MAX]], %[[SUM]] : tensor<4x8xi8>, tensor<4xi32>, tensor<4xi32>) outs(%{{.*}} : tensor<4x8xi8>)
// CHECK:   arith.divf
// CHECK:   tensor.extract %[[TABLE]]
// CHECK:   math.roundeven
// CHECK:   arith.fptosi
// CHECK:   arith.trunci
// CHECK-NOT: linalg.softmax
// CHECK: quant.scast %[[OUT]] : tensor<4x8xi8> to tensor<4x8x!quant.uniform<u8:f32, 3.906250e-03>>
// FLOAT: quantize-normalization.mlir:[[# @LINE + 4]]:8: remark: stays float between dequantize and quantize: softmax is kept float (quanta-quantize's keep-float)
func.func @rows(%q: tensor<4x8x!in>) -> tensor<4x8x!out> {
  %x = quant.dcast %q : tensor<4x8x!in> to tensor<4x8xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) -> tensor<4x8xf32>
  %r = quant.qcast %s : tensor<4x8xf32> to tensor<4x8x!out>
  return %r : tensor<4x8x!out>
}

// -----

// Along the first dimension of a signed input into PyTorch's qint8 fixed
// qparams: the maximum starts at -128 (extsi), the rows are the columns,
// and 1.0 (256 steps above -128) is clamped to 127. Rows of 600 leave
// 21 fraction bits (600 * 2^22 > 2^31 - 1).
!in = !quant.uniform<i8:f32, 0.25:-3>
!out = !quant.uniform<i8:f32, 0.00390625:-128>
// CHECK-LABEL: func.func @columns
// CHECK: arith.constant dense<[2097152, 1633264, 1271987, {{.*}}]> : tensor<256xi32>
// CHECK: arith.constant -128 : i32
// CHECK: linalg.generic {indexing_maps = [#{{.*}}, #[[COLUMN:.*]]], iterator_types = ["reduction", "parallel"]} ins(%{{.*}} : tensor<600x3xi8>) outs(%{{.*}} : tensor<3xi32>)
// CHECK:   arith.extsi
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK: arith.constant -1.280000e+02 : f32
func.func @columns(%q: tensor<600x3x!in>) -> tensor<600x3x!out> {
  %x = quant.dcast %q : tensor<600x3x!in> to tensor<600x3xf32>
  %e = tensor.empty() : tensor<600x3xf32>
  %s = linalg.softmax dimension(0) ins(%x : tensor<600x3xf32>) outs(%e : tensor<600x3xf32>) -> tensor<600x3xf32>
  %r = quant.qcast %s : tensor<600x3xf32> to tensor<600x3x!out>
  return %r : tensor<600x3x!out>
}

// -----

// Inputs and outputs with no integer form stay float, and say why.
!in = !quant.uniform<u8:f32, 0.5:7>
!out = !quant.uniform<u8:f32, 0.00390625>
!wide = !quant.uniform<i16:f32, 0.0001>
// CHECK-LABEL: func.func @float_input
// CHECK: linalg.softmax
func.func @float_input(%x: tensor<8xf32>) -> tensor<8x!out> {
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the softmax's input is not dequantized from an 8-bit per-tensor type}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!out>
  return %r : tensor<8x!out>
}

// CHECK-LABEL: func.func @wide_output
// CHECK: linalg.softmax
func.func @wide_output(%q: tensor<8x!in>) -> tensor<8x!wide> {
  %x = quant.dcast %q : tensor<8x!in> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the output is not quantized to an 8-bit per-tensor type}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!wide>
  return %r : tensor<8x!wide>
}

// CHECK-LABEL: func.func @used_twice
// CHECK: linalg.softmax
func.func @used_twice(%q: tensor<8x!in>) -> (tensor<8x!out>, tensor<8xf32>) {
  %x = quant.dcast %q : tensor<8x!in> to tensor<8xf32>
  %e = tensor.empty() : tensor<8xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a float result of the softmax has other users}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<8xf32>) outs(%e : tensor<8xf32>) -> tensor<8xf32>
  %r = quant.qcast %s : tensor<8xf32> to tensor<8x!out>
  return %r, %s : tensor<8x!out>, tensor<8xf32>
}

// Rows too long for 12 fraction bits, and output steps so small that a
// row's factor is no finite float: the numeric library's messages.
// CHECK-LABEL: func.func @long_rows
// CHECK: linalg.softmax
func.func @long_rows(%q: tensor<600000x!in>) -> tensor<600000x!out> {
  %x = quant.dcast %q : tensor<600000x!in> to tensor<600000xf32>
  %e = tensor.empty() : tensor<600000xf32>
  // expected-remark @below {{stays float between dequantize and quantize: softmax row length must be in [1, 2^19], got 600000}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<600000xf32>) outs(%e : tensor<600000xf32>) -> tensor<600000xf32>
  %r = quant.qcast %s : tensor<600000xf32> to tensor<600000x!out>
  return %r : tensor<600000x!out>
}

!tiny = !quant.uniform<u8:f32, 1.0e-44>
// CHECK-LABEL: func.func @tiny_output_scale
// CHECK: linalg.softmax
func.func @tiny_output_scale(%q: tensor<524288x!in>) -> tensor<524288x!tiny> {
  %x = quant.dcast %q : tensor<524288x!in> to tensor<524288xf32>
  %e = tensor.empty() : tensor<524288xf32>
  // expected-remark @below {{stays float between dequantize and quantize: softmax output scale 9.80908925e-45 is too small for a finite row factor}}
  %s = linalg.softmax dimension(0) ins(%x : tensor<524288xf32>) outs(%e : tensor<524288xf32>) -> tensor<524288xf32>
  %r = quant.qcast %s : tensor<524288xf32> to tensor<524288x!tiny>
  return %r : tensor<524288x!tiny>
}

// -----

// The ONNX importer's translation of Softmax (axis -1): a max reduction
// from -inf, exp(x - max) and a sum read through keep-dims expand_shapes,
// and a division; the observed output qparams (not PyTorch's fixed ones)
// are the integer form's output type.
!in = !quant.uniform<u8<0:127>:f32, 0.044:65>
!out = !quant.uniform<u8<0:127>:f32, 7.5e-4>
#id = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
#rows = affine_map<(d0, d1, d2) -> (d0, d1)>
#bcast = affine_map<(d0, d1, d2) -> (d0, d1, 0)>
// CHECK-LABEL: func.func @onnx_softmax
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}} : tensor<2x3x16xi8>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x3x16xi8>, tensor<2x3xi32>) outs(%{{.*}} : tensor<2x3xi32>)
// CHECK: arith.constant 7.500000e-04 : f32
// CHECK: arith.constant 1.270000e+02 : f32
// CHECK-NOT: math.exp
// CHECK-NOT: arith.divf %{{.*}}, %{{.*}} : f32
// CHECK: return
// FLOAT: quantize-normalization.mlir:[[# @LINE + 27]]:10: remark: stays float between dequantize and quantize: softmax is kept float (quanta-quantize's keep-float)
func.func @onnx_softmax(%q: tensor<2x3x16x!in>) -> tensor<2x3x16x!out> {
  %x = quant.dcast %q : tensor<2x3x16x!in> to tensor<2x3x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<2x3xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %max = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel", "reduction"]} ins(%x : tensor<2x3x16xf32>) outs(%m0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maximumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %maxk = tensor.expand_shape %max [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %e1 = tensor.empty() : tensor<2x3x16xf32>
  %exp = linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%x, %maxk : tensor<2x3x16xf32>, tensor<2x3x1xf32>) outs(%e1 : tensor<2x3x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<2x3xf32>) -> tensor<2x3xf32>
  %sum = linalg.generic {indexing_maps = [#id, #rows], iterator_types = ["parallel", "parallel", "reduction"]} ins(%exp : tensor<2x3x16xf32>) outs(%s0 : tensor<2x3xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<2x3xf32>
  %sumk = tensor.expand_shape %sum [[0], [1, 2]] output_shape [2, 3, 1] : tensor<2x3xf32> into tensor<2x3x1xf32>
  %div = linalg.generic {indexing_maps = [#id, #bcast, #id], iterator_types = ["parallel", "parallel", "parallel"]} ins(%exp, %sumk : tensor<2x3x16xf32>, tensor<2x3x1xf32>) outs(%e1 : tensor<2x3x16xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<2x3x16xf32>
  %r = quant.qcast %div : tensor<2x3x16xf32> to tensor<2x3x16x!out>
  return %r : tensor<2x3x16x!out>
}

// A decomposed softmax (row values read through projections, maxnumf)
// whose exponentials something else reads stays float, explained once, at
// the division.
// CHECK-LABEL: func.func @shared_exp
// CHECK: math.exp
func.func @shared_exp(%q: tensor<4x16x!in>) -> (tensor<4x16x!out>, tensor<4x16xf32>) {
  %x = quant.dcast %q : tensor<4x16x!in> to tensor<4x16xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty() : tensor<4xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %max = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x16xf32>) outs(%m0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.maxnumf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  %e1 = tensor.empty() : tensor<4x16xf32>
  %exp = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%x, %max : tensor<4x16xf32>, tensor<4xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %m: f32, %o: f32):
    %d = arith.subf %in, %m : f32
    %r = math.exp %d : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<4xf32>) -> tensor<4xf32>
  %sum = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>], iterator_types = ["parallel", "reduction"]} ins(%exp : tensor<4x16xf32>) outs(%s0 : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %r = arith.addf %in, %acc : f32
    linalg.yield %r : f32
  } -> tensor<4xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a float result of the softmax has other users}}
  %div = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%exp, %sum : tensor<4x16xf32>, tensor<4xf32>) outs(%e1 : tensor<4x16xf32>) {
  ^bb0(%in: f32, %s: f32, %o: f32):
    %r = arith.divf %in, %s : f32
    linalg.yield %r : f32
  } -> tensor<4x16xf32>
  %r = quant.qcast %div : tensor<4x16xf32> to tensor<4x16x!out>
  return %r, %exp : tensor<4x16x!out>, tensor<4x16xf32>
}

// -----

// Layer norm as the ONNX importer translates LayerNormalization: one
// reduction of the exact sums of q - zi and of its square, then one generic
// with the row's statistics (N * sum(c^2) - sum(c)^2 in i64, one sqrt) and
// a float multiply-add per value reading gamma and beta as the float op did.
!in = !quant.uniform<u8<0:127>:f32, 0.07:62>
!out = !quant.uniform<u8<0:127>:f32, 0.066:62>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
#kept = affine_map<(d0, d1) -> (d0, 0)>
#col = affine_map<(d0, d1) -> (d1)>
// CHECK-LABEL: func.func @layer_norm
// CHECK-DAG: %[[GAMMA:.*]] = arith.constant dense<[1.000000e+00, 2.000000e+00, {{.*}}]> : tensor<8xf32>
// CHECK-DAG: %[[BETA:.*]] = arith.constant dense<5.000000e-01> : tensor<8xf32>
// CHECK: %[[SUMS:.*]]:2 = linalg.generic {{.*}} iterator_types = ["parallel", "reduction"]} ins(%[[Q:.*]] : tensor<4x8xi8>) outs(%{{.*}}, %{{.*}} : tensor<4xi32>, tensor<4xi32>)
// CHECK:   arith.subi
// CHECK:   arith.muli
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%[[Q]], %[[SUMS]]#0, %[[SUMS]]#1, %[[GAMMA]], %[[BETA]] : tensor<4x8xi8>, tensor<4xi32>, tensor<4xi32>, tensor<8xf32>, tensor<8xf32>) outs(%{{.*}} : tensor<4x8xi8>)
// CHECK:   arith.muli %{{.*}} : i64
// CHECK:   math.sqrt
// CHECK:   math.roundeven
// CHECK-NOT: tensor<4x8xf32>
// CHECK: return
// FLOAT: quantize-normalization.mlir:[[# @LINE + 48]]:8: remark: stays float between dequantize and quantize: layer norm is kept float (quanta-quantize's keep-float)
func.func @layer_norm(%q: tensor<4x8x!in>) -> tensor<4x8x!out> {
  %x = quant.dcast %q : tensor<4x8x!in> to tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 8.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %gamma = arith.constant dense<[1.0, 2.0, 0.5, 1.0, 1.0, 1.0, 1.0, 3.0]> : tensor<8xf32>
  %beta = arith.constant dense<0.5> : tensor<8xf32>
  %er = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %ek = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %sumk = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %mu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sumk : tensor<4x1xf32>) outs(%ek : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  %c = linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mu : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %c2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c2 : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %vark = tensor.expand_shape %var [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %inv = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vark : tensor<4x1xf32>) outs(%ek : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    %p = arith.addf %m, %eps : f32
    %r = math.sqrt %p : f32
    %i = arith.divf %one, %r : f32
    linalg.yield %i : f32
  } -> tensor<4x1xf32>
  %y = linalg.generic {indexing_maps = [#id, #kept, #col, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %inv, %gamma, %beta : tensor<4x8xf32>, tensor<4x1xf32>, tensor<8xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %r: f32, %g: f32, %b: f32, %o: f32):
    %m1 = arith.mulf %v, %r : f32
    %m2 = arith.mulf %m1, %g : f32
    %m3 = arith.addf %m2, %b : f32
    linalg.yield %m3 : f32
  } -> tensor<4x8xf32>
  %r = quant.qcast %y : tensor<4x8xf32> to tensor<4x8x!out>
  return %r : tensor<4x8x!out>
}

// The same layer norm whose mean is also a result of the function (ONNX's
// optional Mean output) stays float, explained once, at its last op.
// CHECK-LABEL: func.func @mean_used
// CHECK: math.sqrt
func.func @mean_used(%q: tensor<4x8x!in>) -> (tensor<4x8x!out>, tensor<4x1xf32>) {
  %x = quant.dcast %q : tensor<4x8x!in> to tensor<4x8xf32>
  %zero = arith.constant 0.0 : f32
  %count = arith.constant 8.0 : f32
  %eps = arith.constant 1.0e-05 : f32
  %one = arith.constant 1.0 : f32
  %gamma = arith.constant dense<1.5> : tensor<8xf32>
  %er = tensor.empty() : tensor<4xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%er : tensor<4xf32>) -> tensor<4xf32>
  %ek = tensor.empty() : tensor<4x1xf32>
  %e = tensor.empty() : tensor<4x8xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %sumk = tensor.expand_shape %sum [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %mu = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sumk : tensor<4x1xf32>) outs(%ek : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  } -> tensor<4x1xf32>
  %c = linalg.generic {indexing_maps = [#id, #kept, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %mu : tensor<4x8xf32>, tensor<4x1xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %m: f32, %o: f32):
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %c2 = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%c : tensor<4x8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  } -> tensor<4x8xf32>
  %var = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%c2 : tensor<4x8xf32>) outs(%zeros : tensor<4xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %a = arith.addf %in, %acc : f32
    linalg.yield %a : f32
  } -> tensor<4xf32>
  %vark = tensor.expand_shape %var [[0, 1]] output_shape [4, 1] : tensor<4xf32> into tensor<4x1xf32>
  %inv = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%vark : tensor<4x1xf32>) outs(%ek : tensor<4x1xf32>) {
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    %p = arith.addf %m, %eps : f32
    %r = math.sqrt %p : f32
    %i = arith.divf %one, %r : f32
    linalg.yield %i : f32
  } -> tensor<4x1xf32>
  // expected-remark @below {{stays float between dequantize and quantize: a float result of the layer norm has other users}}
  %y = linalg.generic {indexing_maps = [#id, #kept, #col, #id], iterator_types = ["parallel", "parallel"]} ins(%c, %inv, %gamma : tensor<4x8xf32>, tensor<4x1xf32>, tensor<8xf32>) outs(%e : tensor<4x8xf32>) {
  ^bb0(%v: f32, %r: f32, %g: f32, %o: f32):
    %m1 = arith.mulf %v, %r : f32
    %m2 = arith.mulf %m1, %g : f32
    linalg.yield %m2 : f32
  } -> tensor<4x8xf32>
  %r = quant.qcast %y : tensor<4x8xf32> to tensor<4x8x!out>
  return %r, %mu : tensor<4x8x!out>, tensor<4x1xf32>
}

// -----

// A row length known only at run time has no table size: float.
!in = !quant.uniform<u8:f32, 0.5:7>
!out = !quant.uniform<u8:f32, 0.00390625>
// CHECK-LABEL: func.func @dynamic_rows
// CHECK: linalg.softmax
func.func @dynamic_rows(%q: tensor<4x?x!in>, %n: index) -> tensor<4x?x!out> {
  %x = quant.dcast %q : tensor<4x?x!in> to tensor<4x?xf32>
  %e = tensor.empty(%n) : tensor<4x?xf32>
  // expected-remark @below {{stays float between dequantize and quantize: the softmax's shape is not static}}
  %s = linalg.softmax dimension(1) ins(%x : tensor<4x?xf32>) outs(%e : tensor<4x?xf32>) -> tensor<4x?xf32>
  %r = quant.qcast %s : tensor<4x?xf32> to tensor<4x?x!out>
  return %r : tensor<4x?x!out>
}

// -----

// An unknown name for keep-float is an error.
// RUN: not quant-opt %s --quanta-quantize=keep-float=gelu -split-input-file 2>&1 | FileCheck %s --check-prefix=UNKNOWN
// UNKNOWN: error: quanta-quantize: keep-float names 'gelu'; it takes softmax and layer-norm
func.func @nothing() {
  return
}

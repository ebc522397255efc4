// Float ops between dq/q pairs that quanta-quantize turns into integer ops
// on the storage values (QuantizeElementwise.cpp); run as written they are
// the float reference.
!a = !quant.uniform<u8:f32, 0.031:131>
!b = !quant.uniform<u8:f32, 0.047:77>
!o = !quant.uniform<u8<0:127>:f32, 0.05:40>
!sa = !quant.uniform<i8:f32, 0.023:-9>
!sb = !quant.uniform<i8:f32, 0.041:5>
!so = !quant.uniform<i8:f32, 0.09:-3>
!sig = !quant.uniform<u8:f32, 0.00390625>
!th = !quant.uniform<i8:f32, 0.0078125>
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (0, d1)>

// add with a broadcast operand, then relu6 (fused), into u8<0:127>.
func.func @add_relu6(%x: tensor<7x33xf32>, %y: tensor<1x33xf32>) -> tensor<7x33x!o> {
  %xq = quant.qcast %x : tensor<7x33xf32> to tensor<7x33x!a>
  %xd = quant.dcast %xq : tensor<7x33x!a> to tensor<7x33xf32>
  %yq = quant.qcast %y : tensor<1x33xf32> to tensor<1x33x!b>
  %yd = quant.dcast %yq : tensor<1x33x!b> to tensor<1x33xf32>
  %e = tensor.empty() : tensor<7x33xf32>
  %sum = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%xd, %yd : tensor<7x33xf32>, tensor<1x33xf32>) outs(%e : tensor<7x33xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.addf %q, %p : f32
    linalg.yield %s : f32
  } -> tensor<7x33xf32>
  %zero = arith.constant 0.0 : f32
  %six = arith.constant 6.0 : f32
  %e2 = tensor.empty() : tensor<7x33xf32>
  %act = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%sum : tensor<7x33xf32>) outs(%e2 : tensor<7x33xf32>) {
  ^bb0(%p: f32, %o: f32):
    %lo = arith.maximumf %p, %zero : f32
    %hi = arith.minimumf %lo, %six : f32
    linalg.yield %hi : f32
  } -> tensor<7x33xf32>
  %r = quant.qcast %act : tensor<7x33xf32> to tensor<7x33x!o>
  return %r : tensor<7x33x!o>
}

// s8 mul.
func.func @mul_s8(%x: tensor<7x33xf32>, %y: tensor<7x33xf32>) -> tensor<7x33x!so> {
  %xq = quant.qcast %x : tensor<7x33xf32> to tensor<7x33x!sa>
  %xd = quant.dcast %xq : tensor<7x33x!sa> to tensor<7x33xf32>
  %yq = quant.qcast %y : tensor<7x33xf32> to tensor<7x33x!sb>
  %yd = quant.dcast %yq : tensor<7x33x!sb> to tensor<7x33xf32>
  %e = tensor.empty() : tensor<7x33xf32>
  %m = linalg.generic {indexing_maps = [#id, #id, #id], iterator_types = ["parallel", "parallel"]} ins(%xd, %yd : tensor<7x33xf32>, tensor<7x33xf32>) outs(%e : tensor<7x33xf32>) {
  ^bb0(%p: f32, %q: f32, %o: f32):
    %s = arith.mulf %p, %q : f32
    linalg.yield %s : f32
  } -> tensor<7x33xf32>
  %r = quant.qcast %m : tensor<7x33xf32> to tensor<7x33x!so>
  return %r : tensor<7x33x!so>
}

// sigmoid as TOSA lowers it, and tanh: lookup tables.
func.func @sigmoid_tanh(%x: tensor<7x33xf32>, %y: tensor<7x33xf32>) -> (tensor<7x33x!sig>, tensor<7x33x!th>) {
  %xq = quant.qcast %x : tensor<7x33xf32> to tensor<7x33x!a>
  %xd = quant.dcast %xq : tensor<7x33x!a> to tensor<7x33xf32>
  %one = arith.constant 1.0 : f32
  %e = tensor.empty() : tensor<7x33xf32>
  %s = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%xd : tensor<7x33xf32>) outs(%e : tensor<7x33xf32>) {
  ^bb0(%p: f32, %o: f32):
    %n = arith.negf %p : f32
    %x1 = math.exp %n : f32
    %d = arith.addf %x1, %one : f32
    %r = arith.divf %one, %d : f32
    linalg.yield %r : f32
  } -> tensor<7x33xf32>
  %sq = quant.qcast %s : tensor<7x33xf32> to tensor<7x33x!sig>
  %yq = quant.qcast %y : tensor<7x33xf32> to tensor<7x33x!sa>
  %yd = quant.dcast %yq : tensor<7x33x!sa> to tensor<7x33xf32>
  %e2 = tensor.empty() : tensor<7x33xf32>
  %t = linalg.generic {indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel"]} ins(%yd : tensor<7x33xf32>) outs(%e2 : tensor<7x33xf32>) {
  ^bb0(%p: f32, %o: f32):
    %r = math.tanh %p : f32
    linalg.yield %r : f32
  } -> tensor<7x33xf32>
  %tq = quant.qcast %t : tensor<7x33xf32> to tensor<7x33x!th>
  return %sq, %tq : tensor<7x33x!sig>, tensor<7x33x!th>
}

// pad, max pool 3x3 stride 2, reshape and concat, all in one s8 type.
func.func @pool_concat(%x: tensor<1x9x9x4xf32>, %y: tensor<1x9x9x4xf32>) -> tensor<2x64x!sa> {
  %xq = quant.qcast %x : tensor<1x9x9x4xf32> to tensor<1x9x9x4x!sa>
  %xd = quant.dcast %xq : tensor<1x9x9x4x!sa> to tensor<1x9x9x4xf32>
  %lowest = arith.constant -3.40282347E+38 : f32
  %padded = tensor.pad %xd low[0, 0, 0, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %lowest : f32
  } : tensor<1x9x9x4xf32> to tensor<1x10x10x4xf32>
  %pq = quant.qcast %padded : tensor<1x10x10x4xf32> to tensor<1x10x10x4x!sa>
  %pd = quant.dcast %pq : tensor<1x10x10x4x!sa> to tensor<1x10x10x4xf32>
  %e = tensor.empty() : tensor<1x4x4x4xf32>
  %init = linalg.fill ins(%lowest : f32) outs(%e : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %pool = linalg.pooling_nhwc_max {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%pd, %window : tensor<1x10x10x4xf32>, tensor<3x3xf32>) outs(%init : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %poolq = quant.qcast %pool : tensor<1x4x4x4xf32> to tensor<1x4x4x4x!sa>
  %poold = quant.dcast %poolq : tensor<1x4x4x4x!sa> to tensor<1x4x4x4xf32>
  %flat = tensor.collapse_shape %poold [[0], [1, 2, 3]] : tensor<1x4x4x4xf32> into tensor<1x64xf32>
  %flatq = quant.qcast %flat : tensor<1x64xf32> to tensor<1x64x!sa>
  %flatd = quant.dcast %flatq : tensor<1x64x!sa> to tensor<1x64xf32>
  %yq = quant.qcast %y : tensor<1x9x9x4xf32> to tensor<1x9x9x4x!sa>
  %yd = quant.dcast %yq : tensor<1x9x9x4x!sa> to tensor<1x9x9x4xf32>
  %slice = tensor.extract_slice %yd[0, 2, 3, 0] [1, 4, 4, 4] [1, 1, 1, 1] : tensor<1x9x9x4xf32> to tensor<1x4x4x4xf32>
  %sq = quant.qcast %slice : tensor<1x4x4x4xf32> to tensor<1x4x4x4x!sa>
  %sd = quant.dcast %sq : tensor<1x4x4x4x!sa> to tensor<1x4x4x4xf32>
  %sflat = tensor.collapse_shape %sd [[0], [1, 2, 3]] : tensor<1x4x4x4xf32> into tensor<1x64xf32>
  %sflatq = quant.qcast %sflat : tensor<1x64xf32> to tensor<1x64x!sa>
  %sflatd = quant.dcast %sflatq : tensor<1x64x!sa> to tensor<1x64xf32>
  %cat = tensor.concat dim(0) %flatd, %sflatd : (tensor<1x64xf32>, tensor<1x64xf32>) -> tensor<2x64xf32>
  %r = quant.qcast %cat : tensor<2x64xf32> to tensor<2x64x!sa>
  return %r : tensor<2x64x!sa>
}

// Average pooling as tosa-to-linalg emits it: a sum pooling of the
// zero-padded input (the padding counts, count_include_pad=True) divided
// by the window size, into the input's own type as PyTorch's avg_pool2d
// keeps it; then 2x2 windows multiplied by 1/4 into another type.
#pool4 = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>
func.func @average_pools(%x: tensor<1x9x9x4xf32>, %y: tensor<1x9x9x4xf32>) -> (tensor<1x5x5x4x!a>, tensor<1x4x4x4x!so>) {
  %xq = quant.qcast %x : tensor<1x9x9x4xf32> to tensor<1x9x9x4x!a>
  %xd = quant.dcast %xq : tensor<1x9x9x4x!a> to tensor<1x9x9x4xf32>
  %zero = arith.constant 0.0 : f32
  %padded = tensor.pad %xd low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  } : tensor<1x9x9x4xf32> to tensor<1x11x11x4xf32>
  %pq = quant.qcast %padded : tensor<1x11x11x4xf32> to tensor<1x11x11x4x!a>
  %pd = quant.dcast %pq : tensor<1x11x11x4x!a> to tensor<1x11x11x4xf32>
  %e = tensor.empty() : tensor<1x5x5x4xf32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %window = tensor.empty() : tensor<3x3xf32>
  %sum = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%pd, %window : tensor<1x11x11x4xf32>, tensor<3x3xf32>) outs(%init : tensor<1x5x5x4xf32>) -> tensor<1x5x5x4xf32>
  %nine = arith.constant 9.0 : f32
  %avg = linalg.generic {indexing_maps = [#pool4, #pool4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum : tensor<1x5x5x4xf32>) outs(%e : tensor<1x5x5x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.divf %in, %nine : f32
    linalg.yield %r : f32
  } -> tensor<1x5x5x4xf32>
  %r1 = quant.qcast %avg : tensor<1x5x5x4xf32> to tensor<1x5x5x4x!a>
  %yq = quant.qcast %y : tensor<1x9x9x4xf32> to tensor<1x9x9x4x!sa>
  %yd = quant.dcast %yq : tensor<1x9x9x4x!sa> to tensor<1x9x9x4xf32>
  %e2 = tensor.empty() : tensor<1x4x4x4xf32>
  %init2 = linalg.fill ins(%zero : f32) outs(%e2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %window2 = tensor.empty() : tensor<2x2xf32>
  %sum2 = linalg.pooling_nhwc_sum {dilations = dense<1> : vector<2xi64>, strides = dense<2> : vector<2xi64>} ins(%yd, %window2 : tensor<1x9x9x4xf32>, tensor<2x2xf32>) outs(%init2 : tensor<1x4x4x4xf32>) -> tensor<1x4x4x4xf32>
  %quarter = arith.constant 0.25 : f32
  %avg2 = linalg.generic {indexing_maps = [#pool4, #pool4], iterator_types = ["parallel", "parallel", "parallel", "parallel"]} ins(%sum2 : tensor<1x4x4x4xf32>) outs(%e2 : tensor<1x4x4x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %r = arith.mulf %in, %quarter : f32
    linalg.yield %r : f32
  } -> tensor<1x4x4x4xf32>
  %r2 = quant.qcast %avg2 : tensor<1x4x4x4xf32> to tensor<1x4x4x4x!so>
  return %r1, %r2 : tensor<1x5x5x4x!a>, tensor<1x4x4x4x!so>
}

// concat of inputs quantized differently (u8 with scales 0.031 and 0.047,
// zero points 131 and 77) into u8<0:127> (0.05, 40): each input requantized
// on integers, clamped to the output's range.
func.func @concat_requantize(%x: tensor<7x33xf32>, %y: tensor<7x33xf32>) -> tensor<14x33x!o> {
  %xq = quant.qcast %x : tensor<7x33xf32> to tensor<7x33x!a>
  %xd = quant.dcast %xq : tensor<7x33x!a> to tensor<7x33xf32>
  %yq = quant.qcast %y : tensor<7x33xf32> to tensor<7x33x!b>
  %yd = quant.dcast %yq : tensor<7x33x!b> to tensor<7x33xf32>
  %c = tensor.concat dim(0) %xd, %yd : (tensor<7x33xf32>, tensor<7x33xf32>) -> tensor<14x33xf32>
  %r = quant.qcast %c : tensor<14x33xf32> to tensor<14x33x!o>
  return %r : tensor<14x33x!o>
}

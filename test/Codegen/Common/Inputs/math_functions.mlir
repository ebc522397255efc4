// erf, exp and tanh of every element, as GELU, softmax and the recurrent
// gates use them (approximate-math-exec.mlir).
func.func @main(%x: tensor<4112xf32>) -> (tensor<4112xf32>, tensor<4112xf32>, tensor<4112xf32>) {
  %e = tensor.empty() : tensor<4112xf32>
  %erf, %exp, %tanh = linalg.generic {indexing_maps = [affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>, affine_map<(d0) -> (d0)>], iterator_types = ["parallel"]} ins(%x : tensor<4112xf32>) outs(%e, %e, %e : tensor<4112xf32>, tensor<4112xf32>, tensor<4112xf32>) {
  ^bb0(%a: f32, %o0: f32, %o1: f32, %o2: f32):
    %0 = math.erf %a : f32
    %1 = math.exp %a : f32
    %2 = math.tanh %a : f32
    linalg.yield %0, %1, %2 : f32, f32, f32
  } -> (tensor<4112xf32>, tensor<4112xf32>, tensor<4112xf32>)
  return %erf, %exp, %tanh : tensor<4112xf32>, tensor<4112xf32>, tensor<4112xf32>
}

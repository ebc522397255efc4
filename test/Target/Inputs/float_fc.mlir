// A float fully connected layer: the float kernel lowering turns it into
// vector FMAs, which name no target instruction.
func.func @fc(%x: tensor<4x16xf32>) -> tensor<4x8xf32> {
  %w = arith.constant dense<0.5> : tensor<16x8xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<4x8xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<4x8xf32>) -> tensor<4x8xf32>
  %y = linalg.matmul ins(%x, %w : tensor<4x16xf32>, tensor<16x8xf32>) outs(%fill : tensor<4x8xf32>) -> tensor<4x8xf32>
  return %y : tensor<4x8xf32>
}

func.func @a(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}
func.func @b(%x: tensor<2xf32>) -> tensor<2xf32> {
  return %x : tensor<2xf32>
}

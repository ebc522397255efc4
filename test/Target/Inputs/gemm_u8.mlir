!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
func.func @gemm_u8(%a: tensor<9x40x!in>) -> tensor<9x12x!out> {
  %r = quanta.qmatmul %a {weights = dense<3> : tensor<40x12xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<9x40x!in> -> tensor<9x12x!out>
  return %r : tensor<9x12x!out>
}

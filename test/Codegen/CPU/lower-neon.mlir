// RUN: quant-opt %s --split-input-file --quanta-lower-neon=features=dotprod | FileCheck %s --check-prefix=DOT
// RUN: quant-opt %s --split-input-file --quanta-lower-neon=features=i8mm | FileCheck %s --check-prefix=I8MM
// RUN: quant-opt %s --split-input-file --quanta-lower-neon=features=baseline | FileCheck %s --check-prefix=BASE
// The level comes from the module's target when no option names one.
// RUN: quant-opt %s --split-input-file --pass-pipeline='builtin.module(quanta-lower-neon)' | FileCheck %s --check-prefix=TARGET
// The same through quanta-lower-cpu, which picks the architecture from the target.
// RUN: quant-opt %s --split-input-file --pass-pipeline='builtin.module(quanta-lower-cpu)' | FileCheck %s --check-prefix=TARGET

// u8 activations: sdot and smull read s8, so the input's sign bit is
// flipped (x - 128) and 128 times each column's weight sum (40 * 3) is
// added to its offset (5 + 15360); usmmla reads u8 as it is. sdot: the
// 16-byte load of a row gives 4 k groups, each a 32-bit lane broadcast
// into the by-element sdot; the 10 groups of K = 40 take 2 steps of 4 and
// a tail of 2 single groups. smmla: the rows are packed in pairs (9 rows:
// 5 pairs, the last one row 8 twice), each k group of 8 bytes of one row
// next to the other's, and the accumulators hold 2 x 2 blocks. smull: 16 k
// per step, 4 partial sums per column (4 x 4 accumulators), added up
// pairwise after the k loop. No function attribute: the vector width is an
// x86 matter.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// DOT-LABEL: func.func @gemm_u8
// DOT-NOT: passthrough
// 12 columns padded to 24, the width of the one-row tile (6 strips).
// DOT: arith.constant dense<[15365, {{.*}}, 15365, 0, {{.*}}, 0]> : tensor<24xi32>
// DOT: arith.xori %{{.*}}, %c-128_i8 : i8
// DOT: scf.for %{{.*}} = %c0{{.*}} to %c8{{.*}} step %c4
// DOT: %[[ROW:.*]] = vector.transfer_read %{{.*}} : tensor<9x40xi8>, vector<16xi8>
// DOT: %[[WORDS:.*]] = vector.bitcast %[[ROW]] : vector<16xi8> to vector<4xi32>
// DOT: %[[LANE:.*]] = vector.extract %[[WORDS]][0] : i32 from vector<4xi32>
// DOT: %[[SPLAT:.*]] = vector.broadcast %[[LANE]] : i32 to vector<4xi32>
// DOT: %[[LHS:.*]] = vector.bitcast %[[SPLAT]] : vector<4xi32> to vector<16xi8>
// DOT: arm_neon.intr.sdot %{{.*}}, %{{.*}}, %[[LHS]] : vector<16xi8>, vector<16xi8> to vector<4xi32>
// DOT: vector.extract %{{.*}}[3] : i32 from vector<4xi32>
// DOT: scf.yield
// DOT: scf.for %{{.*}} = %c8{{.*}} to %c10{{.*}} step %c1
// DOT: vector.transfer_read %{{.*}} : tensor<9x40xi8>, vector<4xi8>
// DOT: arm_neon.intr.sdot
// DOT: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
// I8MM-LABEL: func.func @gemm_u8
// I8MM-NOT: arith.xori
// I8MM: scf.for %[[PAIR:.*]] = %c0 to %c5 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (tensor<400xi8>)
// I8MM: %[[SECOND:.*]] = arith.minui %{{.*}}, %c8
// I8MM: vector.transfer_read %{{.*}}[%{{.*}}, %{{.*}}], %{{.*}} {in_bounds = [true]} : tensor<9x40xi8>, vector<8xi8>
// I8MM: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] : vector<8xi8>, vector<8xi8>
// I8MM: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5, 2, 3, 6, 7] : vector<4xi32>, vector<4xi32>
// I8MM: vector.transfer_read %{{.*}} : tensor<400xi8>, vector<16xi8>
// I8MM: arm_neon.intr.usmmla %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi8> to vector<4xi32>
// I8MM: arm_neon.intr.usmmla %{{.*}}, %{{.*}}, %{{.*}} : vector<16xi8> to vector<4xi32>
// I8MM: vector.shuffle %{{.*}}, %{{.*}} [0, 1, 4, 5] : vector<8xi32>, vector<8xi32>
// I8MM: vector.shuffle %{{.*}}, %{{.*}} [2, 3, 6, 7] : vector<8xi32>, vector<8xi32>
// I8MM: {quanta.dot_step = "usmmla"{{(, quanta.parallel)?}}}
// BASE-LABEL: func.func @gemm_u8
// BASE: arith.xori %{{.*}}, %c-128_i8 : i8
// BASE: vector.insert %{{.*}}, %{{.*}} [3] : vector<4xi32> into vector<4x4xi32>
// BASE: %[[LOW:.*]] = arm_neon.intr.smull %{{.*}}, %{{.*}} : vector<8xi8> to vector<8xi16>
// BASE: quanta.intrinsic "llvm.aarch64.neon.saddlp"(%[[LOW]]) : (vector<8xi16>) -> vector<4xi32>
// BASE: arm_neon.intr.smull
// BASE: quanta.intrinsic "llvm.aarch64.neon.saddlp"
// BASE: vector.shuffle %{{.*}}, %{{.*}} [0, 2, 4, 6] : vector<4xi32>, vector<4xi32>
// BASE: vector.shuffle %{{.*}}, %{{.*}} [1, 3, 5, 7] : vector<4xi32>, vector<4xi32>
// BASE: {quanta.dot_step = "smull+sadalp"{{(, quanta.parallel)?}}}
// TARGET-LABEL: func.func @gemm_u8
// TARGET: arm_neon.intr.sdot
// TARGET: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
module attributes {quanta.target = "aarch64+neon+dotprod"} {
func.func @gemm_u8(%a: tensor<9x40x!in>) -> tensor<9x12x!out> {
  %r = quanta.qmatmul %a {weights = dense<3> : tensor<40x12xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<9x40x!in> -> tensor<9x12x!out>
  return %r : tensor<9x12x!out>
}
}

// -----

// s8 activations: sdot reads them as they are (no flip, offsets kept),
// smmla (not usmmla) for i8mm.

!in = !quant.uniform<i8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// DOT-LABEL: func.func @gemm_s8
// DOT-NOT: arith.xori
// DOT: arith.constant dense<[5, {{.*}}, 5, 0, {{.*}}, 0]> : tensor<24xi32>
// DOT: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
// I8MM-LABEL: func.func @gemm_s8
// I8MM: arm_neon.intr.smmla
// I8MM-NOT: usmmla
// I8MM: {quanta.dot_step = "smmla"{{(, quanta.parallel)?}}}
// TARGET-LABEL: func.func @gemm_s8
// TARGET: arm_neon.intr.smmla
// TARGET: {quanta.dot_step = "smmla"{{(, quanta.parallel)?}}}
module attributes {quanta.target = "aarch64+neon+dotprod+i8mm"} {
func.func @gemm_s8(%a: tensor<9x40x!in>) -> tensor<9x12x!out> {
  %r = quanta.qmatmul %a {weights = dense<3> : tensor<40x12xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<9x40x!in> -> tensor<9x12x!out>
  return %r : tensor<9x12x!out>
}
}

// -----

// A single row (a GEMV): smmla would multiply a row pair, one of them a
// copy, so i8mm takes dotprod's sdot by-element kernel: the one-row tile of
// 6 strips and 2 accumulator sets, 8 k groups a step (K = 64 padded to 24
// columns). Without dotprod, smmla stays.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// DOT-LABEL: func.func @gemv
// DOT: scf.for %{{.*}} = %c0{{.*}} to %c16{{.*}} step %c8
// DOT-COUNT-48: arm_neon.intr.sdot
// DOT-NOT: arm_neon.intr.sdot
// DOT: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
// I8MM-LABEL: func.func @gemv
// I8MM-NOT: smmla
// I8MM: arm_neon.intr.sdot
// I8MM-NOT: smmla
// I8MM: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
// TARGET-LABEL: func.func @gemv
// TARGET: arm_neon.intr.usmmla
// TARGET: {quanta.dot_step = "usmmla"{{(, quanta.parallel)?}}}
module attributes {quanta.target = "aarch64+neon+i8mm"} {
func.func @gemv(%a: tensor<1x64x!in>) -> tensor<1x8x!out> {
  %r = quanta.qmatmul %a {weights = dense<3> : tensor<64x8xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 5, 5, 5, 5, 5, 5, 5, 5>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<1x64x!in> -> tensor<1x8x!out>
  return %r : tensor<1x8x!out>
}
}

// -----

// A 3x3 convolution over a zero-point-padded image (padding value 3 of a u8
// input): sdot reads the image in place, skipping the padding's taps by
// class as the x86 kernels do, each class starting from what its skipped
// taps would add: (3 - 128) times their weights (flipped to s8). smmla
// packs its row pairs through the window from the padded image.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// DOT-LABEL: func.func @conv_pad
// DOT: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<1x4x4x16xi8> into tensor<256xi8>
// DOT: scf.for %[[CLASS:.*]] = %c0{{.*}} to %c9{{.*}} step %c1
// DOT: arm_neon.intr.sdot
// DOT: {quanta.dot_step = "sdot"{{(, quanta.parallel)?}}}
// I8MM-LABEL: func.func @conv_pad
// I8MM: tensor.pad %{{.*}} low[0, 1, 1, 0] high[0, 1, 1, 0]
// I8MM: scf.for %{{.*}} = %c0 to %c8 step %c1 iter_args(%{{.*}} = %{{.*}}) -> (tensor<2304xi8>)
// I8MM: arm_neon.intr.usmmla
// I8MM-NOT: scf.for %{{.*}} = %c0{{.*}} to %c9{{.*}} step %c1
// I8MM: {quanta.dot_step = "usmmla"{{(, quanta.parallel)?}}}
// TARGET-LABEL: func.func @conv_pad
// TARGET: arm_neon.intr.smull
module attributes {quanta.target = "aarch64+neon"} {
func.func @conv_pad(%image: tensor<1x4x4x16x!in>) -> tensor<16x8x!out> {
  %storage = quant.scast %image : tensor<1x4x4x16x!in> to tensor<1x4x4x16xi8>
  %c3 = arith.constant 3 : i8
  %padded = tensor.pad %storage low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %c3 : i8
  } : tensor<1x4x4x16xi8> to tensor<1x6x6x16xi8>
  %q = quant.scast %padded : tensor<1x6x6x16xi8> to tensor<1x6x6x16x!in>
  %r = quanta.qmatmul %q {window = array<i64: 3, 3, 1, 1, 1, 1>, weights = dense<2> : tensor<144x8xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<1x6x6x16x!in> -> tensor<16x8x!out>
  return %r : tensor<16x8x!out>
}
}

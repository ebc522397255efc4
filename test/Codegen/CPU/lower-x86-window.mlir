// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefix=VNNI
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=AVX2

// A quanta.qmatmul with a window reads its NHWC image in place: the image
// (2x5x6, 3 channels) padded to whole k groups of channels (4) and
// flattened; each row's input starts at pixel
// ((b * 5 + oh * SH) * 6 + ow * SW) with (b, oh, ow) from the row
// (OH = OW = 2, SH = SW = 2), of 4 channels, a table's entry; one k loop
// over the 6 groups (KH * KW = 6 taps of one group of 4 channels), each at
// a table's offset from the row: tap (kh, kw) moves (kh * DH * 6 + kw * DW)
// pixels of 4 channels (DH = 1, DW = 2): 0, 8, 24, 32, 48, 56.

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// VNNI-LABEL: func.func @window
// VNNI: %[[PADDED:.*]] = tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 1]
// VNNI: %[[FLAT:.*]] = tensor.collapse_shape %[[PADDED]] {{\[\[}}0, 1, 2, 3]] : tensor<2x5x6x4xi8> into tensor<240xi8>
// VNNI: %[[TABLE:.*]] = arith.constant dense<[0, 8, 24, 32, 48, 56]> : tensor<6xindex>
// VNNI: %[[BASES:.*]] = arith.constant dense<[0, 8, 48, 56, 120, 128, 168, 176]> : tensor<8xindex>
// VNNI: %[[BASE:.*]] = tensor.extract %[[BASES]]
// VNNI: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1
// VNNI: %[[BEGIN:.*]] = tensor.extract %{{.*}}[%[[J]]]
// VNNI: %[[END:.*]] = tensor.extract %{{.*}}[%[[J]]]
// VNNI: scf.for %[[GROUP:.*]] = %[[BEGIN]] to %[[END]] step %c1
// VNNI: %[[OFFSET:.*]] = tensor.extract %[[TABLE]][%[[GROUP]]] : tensor<6xindex>
// VNNI: %[[AT:.*]] = arith.addi %[[BASE]], %[[OFFSET]]
// VNNI: vector.transfer_read %[[FLAT]][%[[AT]]], %{{.*}} : tensor<240xi8>, vector<4xi8>
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"
// VNNI: {quanta.dot_step = "vpdpbusd.512"{{(, quanta.parallel)?}}}
// AVX2-LABEL: func.func @window
// AVX2: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<2x5x6x4xi8> into tensor<240xi8>
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"{{(, quanta.parallel)?}}}
func.func @window(%a: tensor<2x5x6x3x!in>) -> tensor<8x20x!out> {
  %r = quanta.qmatmul %a {weights = dense<1> : tensor<18x20xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 10 : i32, output_max = 255 : i32, window = array<i64: 3, 2, 2, 2, 1, 2>} : tensor<2x5x6x3x!in> -> tensor<8x20x!out>
  return %r : tensor<8x20x!out>
}

// -----

// Weight zero points need each row's input sum: over the row's window, in
// a linalg.generic whose unread [KH, KW, C] operand bounds the taps. The
// exact AVX2 path widens the image (not an im2col copy) to i16, its
// channels padded to whole pairs.
!in = !quant.uniform<i8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// VNNI-DAG: #[[PIXEL:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1 * 2 + d3, d2 * 2 + d4 * 2, d5)>
// VNNI-DAG: #[[FILTER:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d3, d4, d5)>
// VNNI-DAG: #[[SUM:.*]] = affine_map<(d0, d1, d2, d3, d4, d5) -> (d0, d1, d2)>
// VNNI-LABEL: func.func @window_weight_zero_point
// VNNI: %[[SUMS:.*]] = linalg.generic {indexing_maps = [#[[PIXEL]], #[[FILTER]], #[[SUM]]], iterator_types = ["parallel", "parallel", "parallel", "reduction", "reduction", "reduction"]} ins(%{{.*}}, %{{.*}} : tensor<2x5x6x3xi8>, tensor<3x2x3xi8>) outs(%{{.*}} : tensor<2x2x2xi32>)
// VNNI: tensor.collapse_shape %[[SUMS]] {{\[\[}}0, 1, 2]] : tensor<2x2x2xi32> into tensor<8xi32>
// AVX2-LABEL: func.func @window_weight_zero_point
// AVX2: arith.extsi %{{.*}} : i8 to i16
// AVX2: tensor.pad %{{.*}} low[0, 0, 0, 0] high[0, 0, 0, 1]
// AVX2: tensor.collapse_shape %{{.*}} {{\[\[}}0, 1, 2, 3]] : tensor<2x5x6x4xi16> into tensor<240xi16>
// AVX2: {quanta.dot_step = "vpmaddwd"{{(, quanta.parallel)?}}}
func.func @window_weight_zero_point(%a: tensor<2x5x6x3x!in>) -> tensor<8x20x!out> {
  %r = quanta.qmatmul %a {weights = dense<100> : tensor<18x20xi8>, weight_zero_points = array<i32: -3>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 10 : i32, output_max = 255 : i32, window = array<i64: 3, 2, 2, 2, 1, 2>} : tensor<2x5x6x3x!in> -> tensor<8x20x!out>
  return %r : tensor<8x20x!out>
}

// -----

// An image padded by a constant (here 3, the zero point) is read unpadded:
// each output pixel reads only its taps inside the 4x4 image. The 16
// pixels fall in 9 classes by those taps (rows table, class by class:
// corner (3, 3) first, whose taps are kh, kw in [0, 2), centre (0, 0)
// last), each a run list over the 9 taps (one k group each); a row's input
// starts at pixel ((oh - 1) * 4 + ow - 1), of 4 channels, a table's
// entry. Classes this small leave less to one-row tiles with the 6 x 4
// main tile than with the 8 x 2 one: a class of 2 or 3 rows makes a half
// tile (3 rows; with 2 rows, the last repeats), the centre's 4 rows a half
// tile and a one-row tile, a class of one row a one-row tile. A skipped tap would have added 3 * (4 channels of weight
// 1): a corner's accumulators start 5 * 12 = 60 (0x3C) higher.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// VNNI-LABEL: func.func @window_padding
// VNNI: %[[FLAT:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : tensor<1x4x4x4xi8> into tensor<64xi8>
// VNNI-DAG: %[[ROWS:.*]] = arith.constant dense<[15, 13, 14, 12, 7, 11, 5, 6, 9, 10, 4, 8, 3, 1, 2, 0]> : tensor<16xindex>
// VNNI-DAG: %[[BASES:.*]] = arith.constant dense<[40, 32, 36, 28, 8, 24, 0, 4, 16, 20, -4, 12, -8, -16, -12, -20]> : tensor<16xindex>
// VNNI-DAG: %[[BEGINS:.*]] = arith.constant dense<[0, 1, 3, 4, 6, 10, 12, 13, 15]> : tensor<9xindex>
// VNNI-DAG: %[[ENDS:.*]] = arith.constant dense<[1, 3, 4, 6, 10, 12, 13, 15, 16]> : tensor<9xindex>
// VNNI-DAG: %[[WHOLE_ENDS:.*]] = arith.constant dense<[0, 1, 3, 4, 6, 10, 12, 13, 15]> : tensor<9xindex>
// VNNI-DAG: %[[HALF_ENDS:.*]] = arith.constant dense<[0, 4, 3, 7, 9, 13, 12, 16, 15]> : tensor<9xindex>
// VNNI-DAG: %[[SINGLE_STARTS:.*]] = arith.constant dense<[0, 3, 3, 6, 9, 12, 12, 15, 15]> : tensor<9xindex>
// VNNI-DAG: %[[LAST_ROWS:.*]] = arith.constant dense<[0, 2, 3, 5, 9, 11, 12, 14, 15]> : tensor<9xindex>
// VNNI-DAG: %[[RUN_BEGINS:.*]] = arith.constant dense<[0, 3, 0, 1, 4, 0, 3, 6, 0, 1, 4, 7, 3, 6, 3, 4, 7]> : tensor<17xindex>
// VNNI-DAG: %[[RUN_ENDS:.*]] = arith.constant dense<[2, 5, 6, 3, 6, 2, 5, 8, 9, 3, 6, 9, 5, 8, 9, 6, 9]> : tensor<17xindex>
// VNNI-DAG: %[[START_OFFSETS:.*]] = arith.constant dense<"0x3C0000003C000000{{.*}}"> : tensor<576xi32>
// VNNI: scf.for %[[CLASS:.*]] = %c0 to %c9 step %c1
// VNNI: %[[WHOLE_END:.*]] = tensor.extract %[[WHOLE_ENDS]][%[[CLASS]]]
// VNNI: %[[HALF_END:.*]] = tensor.extract %[[HALF_ENDS]][%[[CLASS]]]
// VNNI: scf.for %{{.*}} = %{{.*}} to %[[WHOLE_END]] step %c6
// VNNI: %[[LAST:.*]] = arith.minui %{{.*}}, %{{.*}} : index
// VNNI: tensor.extract %[[ROWS]][%[[LAST]]] : tensor<16xindex>
// VNNI: tensor.extract %[[BASES]][%[[LAST]]] : tensor<16xindex>
// VNNI: vector.transfer_read %[[START_OFFSETS]]
// VNNI: scf.for %[[J:.*]] = %{{.*}} to %{{.*}} step %c1
// VNNI: %[[BEGIN:.*]] = tensor.extract %[[RUN_BEGINS]][%[[J]]]
// VNNI: %[[END:.*]] = tensor.extract %[[RUN_ENDS]][%[[J]]]
// VNNI: scf.for %{{.*}} = %[[BEGIN]] to %[[END]] step %c1
// VNNI: vector.transfer_read %[[FLAT]]
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"
// VNNI: scf.for %{{.*}} = %[[WHOLE_END]] to %[[HALF_END]] step %c3
// AVX2-LABEL: func.func @window_padding
// AVX2: tensor.collapse_shape %arg0 {{\[\[}}0, 1, 2, 3]] : tensor<1x4x4x4xi8> into tensor<64xi8>
// AVX2: arith.constant dense<[15, 13, 14, 12, 7, 11, 5, 6, 9, 10, 4, 8, 3, 1, 2, 0]> : tensor<16xindex>
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"{{(, quanta.parallel)?}}}
func.func @window_padding(%a: tensor<1x4x4x4xi8>) -> tensor<16x16x!out> {
  %pad = arith.constant 3 : i8
  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pad : i8
  } : tensor<1x4x4x4xi8> to tensor<1x6x6x4xi8>
  %q = quant.scast %p : tensor<1x6x6x4xi8> to tensor<1x6x6x4x!in>
  %r = quanta.qmatmul %q {weights = dense<1> : tensor<36x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 10 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<1x6x6x4x!in> -> tensor<16x16x!out>
  return %r : tensor<16x16x!out>
}

// -----

// A 3x3 image of 128 channels: every class is one row, and the weights'
// strips (K = 1152) exceed L1, so the tiles loop over one tap at a time.
// The partial sums start as each class's (the padding's sum), each tap's
// rows add its 32 k groups (4, 6, ..., 4 rows: the taps inside their
// windows), then every row finishes from them.
!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// VNNI-LABEL: func.func @window_by_tap
// VNNI: %[[OUT:.*]] = tensor.empty() : tensor<9x16xi8>
// VNNI: %[[PARTIAL:.*]] = tensor.empty() : tensor<9x64xi32>
// VNNI: %[[STARTED:.*]] = scf.for %{{.*}} = %c0 to %c9 step %c1 iter_args(%{{.*}} = %[[PARTIAL]]) -> (tensor<9x64xi32>)
// VNNI-NOT: vpdpbusd
// VNNI: vector.transfer_write {{.*}} : vector<16xi32>, tensor<9x64xi32>
// VNNI-DAG: arith.constant dense<[0, 4, 10, 14, 20, 29, 35, 39, 45]> : tensor<9xindex>
// VNNI-DAG: arith.constant dense<[4, 10, 14, 20, 29, 35, 39, 45, 49]> : tensor<9xindex>
// VNNI-DAG: arith.constant dense<[0, 32, 64, 96, 128, 160, 192, 224, 256]> : tensor<9xindex>
// VNNI-DAG: arith.constant dense<[32, 64, 96, 128, 160, 192, 224, 256, 288]> : tensor<9xindex>
// VNNI: %[[SUMS:.*]] = scf.for %{{.*}} iter_args(%{{.*}} = %[[STARTED]]) -> (tensor<9x64xi32>)
// VNNI: vector.transfer_read {{.*}} : tensor<9x64xi32>, vector<16xi32>
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"
// VNNI: vector.transfer_write {{.*}} : vector<16xi32>, tensor<9x64xi32>
// VNNI: scf.for {{.*}} iter_args(%{{.*}} = %[[OUT]]) -> (tensor<9x16xi8>)
// VNNI-NOT: vpdpbusd
// VNNI: vector.transfer_read %[[SUMS]]
// VNNI: quanta.intrinsic "llvm.x86.avx512.packuswb.512"
func.func @window_by_tap(%a: tensor<1x3x3x128xi8>) -> tensor<9x16x!out> {
  %pad = arith.constant 3 : i8
  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %pad : i8
  } : tensor<1x3x3x128xi8> to tensor<1x5x5x128xi8>
  %q = quant.scast %p : tensor<1x5x5x128xi8> to tensor<1x5x5x128x!in>
  %r = quanta.qmatmul %q {weights = dense<1> : tensor<1152x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 10 : i32, output_max = 255 : i32, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<1x5x5x128x!in> -> tensor<9x16x!out>
  return %r : tensor<9x16x!out>
}

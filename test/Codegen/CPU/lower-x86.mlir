// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=AVX2
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefix=VNNI
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avxvnni | FileCheck %s --check-prefix=AVXVNNI
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=generic | FileCheck %s --check-prefix=GENERIC
// RUN: not quant-opt %s --split-input-file --quanta-lower-x86=isa=sse2 2>&1 | FileCheck %s --check-prefix=BAD

// 7-bit activations (reduce_range, u8<0:127>): vpmaddubsw cannot saturate,
// so AVX2 uses it; VNNI uses vpdpbusd. Every shift is t = 31 + 8 >= 33:
// the epilogue keeps the high words of the 64-bit products of the even and
// the odd lanes, adds the rounding 2^(t-33) and the output zero point
// 10 * 2^(t-32) to them (1344) and shifts them by t - 32 in i32. Two
// vpackssdw and a vpackuswb then saturate four strips' outputs to u8 (the
// full output range: no clamp), and a vpermq puts each pair of strips'
// bytes together; the generic path clamps and truncates each strip.

!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// AVX2-LABEL: func.func @seven_bit
// AVX2-SAME: attributes {passthrough = {{\[\[}}"min-legal-vector-width", "256"{{\]\]}}}
// AVX2: %[[ROUNDING:.*]] = arith.constant dense<[1344, 1344,
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.ub.sw"({{.*}}) : (vector<32xi8>, vector<32xi8>) -> vector<16xi16>
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.wd"({{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// AVX2: arith.muli {{.*}} : vector<4xi64>
// AVX2-NOT: arith.addi {{.*}} : vector<4xi64>
// AVX2: arith.muli {{.*}} : vector<4xi64>
// AVX2-NOT: arith.addi {{.*}} : vector<4xi64>
// AVX2: %[[HIGH:.*]] = vector.shuffle {{.*}} [1, 9, 3, 11, 5, 13, 7, 15] : vector<8xi32>, vector<8xi32>
// AVX2: %[[R:.*]] = vector.transfer_read %[[ROUNDING]]
// AVX2: %[[ROUNDED:.*]] = arith.addi %[[HIGH]], %[[R]] : vector<8xi32>
// AVX2: %[[SHIFTED:.*]] = arith.shrsi %[[ROUNDED]], %{{.*}} : vector<8xi32>
// AVX2: %[[WORDS:.*]] = quanta.intrinsic "llvm.x86.avx2.packssdw"(%[[SHIFTED]], %{{.*}}) : (vector<8xi32>, vector<8xi32>) -> vector<16xi16>
// AVX2: %[[BYTES:.*]] = quanta.intrinsic "llvm.x86.avx2.packuswb"(%[[WORDS]], %{{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<32xi8>
// AVX2-NOT: arith.maxui
// AVX2: %[[PIECES:.*]] = vector.bitcast %[[BYTES]] : vector<32xi8> to vector<4xi64>
// AVX2: vector.shuffle %[[PIECES]], %[[PIECES]] [0, 2, 1, 3] : vector<4xi64>, vector<4xi64>
// AVX2-NOT: vector<8xi64>
// AVX2: vector.transfer_write {{.*}} : vector<16xi8>, tensor<6x16xi8>
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"{{(, quanta.parallel)?}}}
// VNNI-LABEL: func.func @seven_bit
// VNNI-SAME: attributes {passthrough = {{\[\[}}"prefer-vector-width", "512"], ["min-legal-vector-width", "512"{{\]\]}}}
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// VNNI: arith.muli {{.*}} : vector<8xi64>
// VNNI: vector.shuffle {{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31] : vector<16xi32>, vector<16xi32>
// VNNI: quanta.intrinsic "llvm.x86.avx512.packssdw.512"({{.*}}) : (vector<16xi32>, vector<16xi32>) -> vector<32xi16>
// VNNI: quanta.intrinsic "llvm.x86.avx512.packuswb.512"({{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<64xi8>
// VNNI: vector.shuffle {{.*}} [0, 2, 4, 6, 1, 3, 5, 7] : vector<8xi64>, vector<8xi64>
// VNNI: vector.transfer_write {{.*}} : vector<16xi8>, tensor<6x16xi8>
// VNNI: {quanta.dot_step = "vpdpbusd.512"{{(, quanta.parallel)?}}}
// AVXVNNI-LABEL: func.func @seven_bit
// AVXVNNI-SAME: attributes {passthrough = {{\[\[}}"min-legal-vector-width", "256"{{\]\]}}}
// AVXVNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// AVXVNNI: {quanta.dot_step = "vpdpbusd"{{(, quanta.parallel)?}}}
// GENERIC-LABEL: func.func @seven_bit
// GENERIC-NOT: quanta.intrinsic
// GENERIC: vector.shuffle
// GENERIC: %[[LOW:.*]] = arith.maxsi
// GENERIC: %[[CLAMPED:.*]] = arith.minsi %[[LOW]]
// GENERIC: arith.trunci %[[CLAMPED]] : vector<8xi32> to vector<8xi8>
// GENERIC: {quanta.dot_step = "generic"{{(, quanta.parallel)?}}}
func.func @seven_bit(%a: tensor<6x8x!in>) -> tensor<6x16x!out> {
  %r = quanta.qmatmul %a {weights = dense<-128> : tensor<8x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<6x8x!in> -> tensor<6x16x!out>
  return %r : tensor<6x16x!out>
}

// -----

// Full-range u8 activations with weights of -128: a vpmaddubsw pair could
// reach 2 * 255 * -128 and saturate, so AVX2 takes the exact vpmaddwd
// path on i16 pairs (the weights packed as i16 at compile time).

!in = !quant.uniform<u8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// AVX2-LABEL: func.func @full_range
// AVX2-NOT: pmadd.ub.sw
// AVX2: arith.extui {{.*}} : i8 to i16
// AVX2: arith.constant dense<"0x80FF80FF{{.*}}"> : tensor<256xi16>
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.wd"({{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<8xi32>
// AVX2: {quanta.dot_step = "vpmaddwd"{{(, quanta.parallel)?}}}
// VNNI-LABEL: func.func @full_range
// VNNI: llvm.x86.avx512.vpdpbusd.512
func.func @full_range(%a: tensor<6x8x!in>) -> tensor<6x16x!out> {
  %r = quanta.qmatmul %a {weights = dense<-128> : tensor<8x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<6x8x!in> -> tensor<6x16x!out>
  return %r : tensor<6x16x!out>
}

// -----

// Full-range activations but small weights (|w0| + |w1| <= 128 for every
// pair): vpmaddubsw is exact again. s8 inputs are flipped to u8.

!in = !quant.uniform<i8:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// AVX2-LABEL: func.func @small_weights
// AVX2: arith.xori
// AVX2: llvm.x86.avx2.pmadd.ub.sw
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"{{(, quanta.parallel)?}}}
func.func @small_weights(%a: tensor<6x8x!in>) -> tensor<6x16x!out> {
  %r = quanta.qmatmul %a {weights = dense<64> : tensor<8x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<6x8x!in> -> tensor<6x16x!out>
  return %r : tensor<6x16x!out>
}

// -----

// One column with a real multiplier of 0.5 (shift 0, t = 31 < 32): the
// high words would drop product bits, so the whole epilogue shifts in
// 64-bit lanes and saturates to i32. The function's other passthrough
// entries stay, and so does the larger vector width it already requires.

!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// AVX2-LABEL: func.func @wide_shift
// AVX2-SAME: attributes {passthrough = ["noinline", {{\[}}"min-legal-vector-width", "512"{{\]\]}}}
// AVX2: arith.muli {{.*}} : vector<8xi64>
// AVX2: arith.shrsi {{.*}} : vector<8xi64>
// AVX2: arith.trunci {{.*}} : vector<8xi64> to vector<8xi32>
func.func @wide_shift(%a: tensor<6x8x!in>) -> tensor<6x16x!out> attributes {passthrough = ["noinline", ["min-legal-vector-width", "512"]]} {
  %r = quanta.qmatmul %a {weights = dense<-128> : tensor<8x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, 0>, output_min = 0 : i32, output_max = 255 : i32} : tensor<6x8x!in> -> tensor<6x16x!out>
  return %r : tensor<6x16x!out>
}

// -----

// The x86 packs interleave four strips' outputs within 128-bit lanes, so
// each pair of strips computes its columns in that order: column c of the
// weights, the multipliers and the offsets moves to where its byte lands
// (TiledGemm::columnAt), and the bytes come out in column order. An s8
// output narrower than its storage (relu-like [-10, 100]) saturates with
// vpacksswb and is clamped on the bytes.

!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!out = !quant.uniform<i8:f32, 0.1:-10>
// AVX2-LABEL: func.func @paired_columns
// AVX2: arith.constant dense<[1073741824, 1073741825, 1073741826, 1073741827, 1073741832, 1073741833, 1073741834, 1073741835, 1073741828, 1073741829, 1073741830, 1073741831, 1073741836, 1073741837, 1073741838, 1073741839,
// AVX2: arith.constant dense<"0x0000000001010101020202020303030308080808090909090A0A0A0A0B0B0B0B040404040505050506060606070707070C0C0C0C0D0D0D0D0E0E0E0E0F0F0F0F
// AVX2: quanta.intrinsic "llvm.x86.avx2.packsswb"({{.*}}) : (vector<16xi16>, vector<16xi16>) -> vector<32xi8>
// AVX2: %[[LOW:.*]] = arith.maxsi %{{.*}}, %{{.*}} : vector<32xi8>
// AVX2: arith.minsi %[[LOW]], %{{.*}} : vector<32xi8>
// VNNI-LABEL: func.func @paired_columns
// VNNI: arith.constant dense<"0x0000000001010101020202020303030308080808090909090A0A0A0A0B0B0B0B0000000000000000000000000000000000000000000000000000000000000000040404040505050506060606070707070C0C0C0C0D0D0D0D0E0E0E0E0F0F0F0F0000000000000000000000000000000000000000000000000000000000000000
// VNNI: quanta.intrinsic "llvm.x86.avx512.packsswb.512"({{.*}}) : (vector<32xi16>, vector<32xi16>) -> vector<64xi8>
// VNNI: arith.maxsi {{.*}} : vector<64xi8>
// VNNI: arith.minsi {{.*}} : vector<64xi8>
// GENERIC-LABEL: func.func @paired_columns
// GENERIC: arith.constant dense<[1073741824, 1073741825, 1073741826, 1073741827, 1073741828, 1073741829, 1073741830, 1073741831, 1073741832, 1073741833, 1073741834, 1073741835, 1073741836, 1073741837, 1073741838, 1073741839,
func.func @paired_columns(%a: tensor<6x4x!in>) -> tensor<6x16x!out> {
  %r = quanta.qmatmul %a {weights = dense<[[0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15], [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15]]> : tensor<4x16xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741825, 1073741826, 1073741827, 1073741828, 1073741829, 1073741830, 1073741831, 1073741832, 1073741833, 1073741834, 1073741835, 1073741836, 1073741837, 1073741838, 1073741839>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = -10 : i32, output_max = 100 : i32} : tensor<6x4x!in> -> tensor<6x16x!out>
  return %r : tensor<6x16x!out>
}

// -----

// The VNNI kernel has two main tiles, 8 x 2 and 6 x 4 accumulators, and
// takes the one that leaves less work to the smaller tiles: 8 x 2 for 16
// rows (6 x 4 would leave a half and a one-row tile), 6 x 4 for 12 (8 x 2
// would leave a half tile), 8 x 2 for 20, whose last 4 rows make a half
// tile of 4 strips (6 x 4 would compute 24 rows).

!in = !quant.uniform<u8<0:127>:f32, 0.05:3>
!out = !quant.uniform<u8:f32, 0.1:10>
// VNNI-LABEL: func.func @sixteen_rows
// VNNI: scf.for %{{.*}} = %{{.*}} to %c16 step %c8
// VNNI-COUNT-16: llvm.x86.avx512.vpdpbusd.512
// VNNI-NOT: llvm.x86.avx512.vpdpbusd.512
// VNNI: scf.yield
func.func @sixteen_rows(%a: tensor<16x8x!in>) -> tensor<16x64x!out> {
  %r = quanta.qmatmul %a {weights = dense<1> : tensor<8x64xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<16x8x!in> -> tensor<16x64x!out>
  return %r : tensor<16x64x!out>
}

// VNNI-LABEL: func.func @twelve_rows
// VNNI: scf.for %{{.*}} = %{{.*}} to %c12 step %c6
// VNNI-COUNT-24: llvm.x86.avx512.vpdpbusd.512
// VNNI-NOT: llvm.x86.avx512.vpdpbusd.512
// VNNI: scf.yield
func.func @twelve_rows(%a: tensor<12x8x!in>) -> tensor<12x64x!out> {
  %r = quanta.qmatmul %a {weights = dense<1> : tensor<8x64xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<12x8x!in> -> tensor<12x64x!out>
  return %r : tensor<12x64x!out>
}

// VNNI-LABEL: func.func @twenty_rows
// VNNI: scf.for %{{.*}} = %{{.*}} to %c16 step %c8
// VNNI-COUNT-16: llvm.x86.avx512.vpdpbusd.512
// VNNI-NOT: llvm.x86.avx512.vpdpbusd.512
// VNNI: scf.yield
// VNNI: scf.for %{{.*}} = %c16 to %c20 step %c4
// VNNI-COUNT-16: llvm.x86.avx512.vpdpbusd.512
// VNNI-NOT: llvm.x86.avx512.vpdpbusd.512
// VNNI: scf.yield
func.func @twenty_rows(%a: tensor<20x8x!in>) -> tensor<20x64x!out> {
  %r = quanta.qmatmul %a {weights = dense<1> : tensor<8x64xi8>, weight_zero_points = array<i32: 0>, column_offsets = array<i32: 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0>, multipliers = array<i32: 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824, 1073741824>, shifts = array<i32: -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8, -8>, output_min = 0 : i32, output_max = 255 : i32} : tensor<20x8x!in> -> tensor<20x64x!out>
  return %r : tensor<20x64x!out>
}

// BAD: error: quanta-lower-x86: unknown isa 'sse2' (expected target, host, avx512vnni, avxvnni, avx2, generic)

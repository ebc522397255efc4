// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=AVX2
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefix=VNNI
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avxvnni | FileCheck %s --check-prefix=AVXVNNI
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=generic | FileCheck %s --check-prefix=GENERIC
// RUN: not quant-opt %s --split-input-file --quanta-lower-x86=isa=sse2 2>&1 | FileCheck %s --check-prefix=BAD

// 7-bit activations (reduce_range, u8<0:127>): vpmaddubsw cannot saturate,
// so AVX2 uses it; VNNI uses vpdpbusd. Every shift is t = 31 + 8 >= 33:
// the epilogue keeps the high words of the 64-bit products of the even and
// the odd lanes, adds the rounding 2^(t-33) and the output zero point
// 10 * 2^(t-32) to them (1344) and shifts them by t - 32 in i32; the clamp
// then needs no zero point.

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
// AVX2: %[[LOW:.*]] = arith.maxsi %[[SHIFTED]]
// AVX2: %[[CLAMPED:.*]] = arith.minsi %[[LOW]]
// AVX2: arith.trunci %[[CLAMPED]] : vector<8xi32> to vector<8xi8>
// AVX2-NOT: vector<8xi64>
// AVX2: vector.transfer_write {{.*}} : vector<8xi8>, tensor<6x16xi8>
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"}
// VNNI-LABEL: func.func @seven_bit
// VNNI-SAME: attributes {passthrough = {{\[\[}}"prefer-vector-width", "512"], ["min-legal-vector-width", "512"{{\]\]}}}
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// VNNI: arith.muli {{.*}} : vector<8xi64>
// VNNI: vector.shuffle {{.*}} [1, 17, 3, 19, 5, 21, 7, 23, 9, 25, 11, 27, 13, 29, 15, 31] : vector<16xi32>, vector<16xi32>
// VNNI: vector.transfer_write {{.*}} : vector<16xi8>, tensor<6x16xi8>
// VNNI: {quanta.dot_step = "vpdpbusd.512"}
// AVXVNNI-LABEL: func.func @seven_bit
// AVXVNNI-SAME: attributes {passthrough = {{\[\[}}"min-legal-vector-width", "256"{{\]\]}}}
// AVXVNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// AVXVNNI: {quanta.dot_step = "vpdpbusd"}
// GENERIC-LABEL: func.func @seven_bit
// GENERIC-NOT: quanta.intrinsic
// GENERIC: vector.shuffle
// GENERIC: {quanta.dot_step = "generic"}
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
// AVX2: {quanta.dot_step = "vpmaddwd"}
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
// AVX2: {quanta.dot_step = "vpmaddubsw+vpmaddwd"}
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

// BAD: error: quanta-lower-x86: unknown isa 'sse2' (expected host, avx512vnni, avxvnni, avx2 or generic)

// RUN: quant-opt %s --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefixes=CHECK,VNNI512
// RUN: quant-opt %s --quanta-lower-x86=isa=avxvnni | FileCheck %s --check-prefixes=CHECK,VNNI
// RUN: quant-opt %s --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: quant-opt %s --quanta-lower-x86=isa=generic | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: quant-opt %s --quanta-lower-neon=features=dotprod | FileCheck %s --check-prefixes=CHECK,SDOT
// RUN: quant-opt %s --quanta-lower-neon=features=baseline | FileCheck %s --check-prefixes=CHECK,GENERIC

// 4-bit weights with int8_activations (qconfig int4_dynamic): the input
// quantized per row and group of 8 (the largest magnitude; per group once
// the scale amax / 127 or NaN and 127 / amax where finite, else 0; per
// value a multiply, clamp and round half to even, no division; each
// group's sum, -8 x which each block starts from), then the integer steps
// on weights stored + 8, a
// mask and a shift of 32-bit lanes apart: per lane, byte j holds k value
// j in its low nibble and j + 4 in its high one (column 0: 1, 7, 3, 2
// -> 9, 15, 11, 10, twice: 0x99 0xFF 0xBB 0xAA; column 1: -8, 0, -1, 2
// -> 0x00 0x88 0x77 0xAA; padded columns 0 -> 0x88).
// CHECK-LABEL: func.func @int4_dynamic
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins(%{{.*}} : tensor<3x2x8xf32>)
// CHECK: math.absf
// CHECK: arith.maximumf
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel"]{{.*}}outs(%{{.*}}, %{{.*}} : tensor<3x2xf32>, tensor<3x2xf32>)
// CHECK: arith.cmpf olt
// CHECK: arith.divf
// CHECK: arith.constant 0x7FC00000 : f32
// CHECK: arith.select
// CHECK: arith.divf
// CHECK: arith.cmpf olt
// CHECK: arith.select
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel"]
// CHECK-NOT: arith.divf
// CHECK: arith.mulf
// CHECK: arith.maxnumf
// CHECK: arith.minnumf
// CHECK: math.roundeven
// CHECK: arith.fptosi %{{.*}} : f32 to i8
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins(%{{.*}} : tensor<3x2x8xi8>)
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.addi
// CHECK: arith.constant dense<"0x99FFBBAA008877AA8888
// CHECK: arith.muli %{{.*}}, %c-8_i32 : i32
// VNNI512: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.512"({{.*}}) : (vector<16xi32>, vector<64xi8>, vector<64xi8>) -> vector<16xi32>
// VNNI512: quanta.dot_step = "nibbles+vpdpbusd.512"
// VNNI: quanta.intrinsic "llvm.x86.avx512.vpdpbusd.256"({{.*}}) : (vector<8xi32>, vector<32xi8>, vector<32xi8>) -> vector<8xi32>
// VNNI: quanta.dot_step = "nibbles+vpdpbusd"
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.ub.sw"
// AVX2: quanta.intrinsic "llvm.x86.avx2.pmadd.wd"
// AVX2: quanta.dot_step = "nibbles+vpmaddubsw"
// SDOT: arm_neon.intr.sdot
// SDOT: quanta.dot_step = "nibbles+sdot"
// GENERIC: quanta.dot_step = "nibbles+generic"
func.func @int4_dynamic(%x: tensor<3x16xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<[[1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<16x2xi4>, scales = array<f32: 0.25, 0.5, 1.0, 2.0>, group_size = 8, int8_activations, bias = array<f32: 1.0, -1.0>} : tensor<3x16xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Asymmetric weights (zero_points) with int8_activations: each block
// starts from -(zero point + 8) x the row's group sum, per column (a
// widened i8 table times the broadcast sum).
// CHECK-LABEL: func.func @int4_dynamic_asymmetric
// CHECK: arith.extsi %{{.*}} : i8 to i32
// CHECK: arith.addi
// CHECK-NOT: %c-8_i32
// CHECK: arith.extsi %{{.*}} : vector<{{[0-9]+}}xi8> to vector<{{[0-9]+}}xi32>
// CHECK: arith.muli %{{.*}} : vector<{{[0-9]+}}xi32>
func.func @int4_dynamic_asymmetric(%x: tensor<3x16xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<[[1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<16x2xi4>, scales = array<f32: 0.25, 0.5, 1.0, 2.0>, group_size = 8, int8_activations, zero_points = array<i8: -8, 0, 7, 3>} : tensor<3x16xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

// Asymmetric weights with f32 activations: the row's group sums (f32, in
// k order), each block starting from -zero point x the sum, per column;
// the inner loop the symmetric one.
// CHECK-LABEL: func.func @int4_asymmetric
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "reduction"]{{.*}}ins(%{{.*}} : tensor<3x2x8xf32>)
// CHECK: arith.addf
// CHECK: arith.extsi %{{.*}} : vector<{{[0-9]+}}xi8> to vector<{{[0-9]+}}xi32>
// CHECK: arith.sitofp %{{.*}} : vector<{{[0-9]+}}xi32> to vector<{{[0-9]+}}xf32>
// CHECK: arith.mulf %{{.*}} : vector<{{[0-9]+}}xf32>
// f16_scales: the scales a table of f16, widened where a block is scaled.
// CHECK: arith.extf %{{.*}} : vector<{{[0-9]+}}xf16> to vector<{{[0-9]+}}xf32>
func.func @int4_asymmetric(%x: tensor<3x16xf32>) -> tensor<3x2xf32> {
  %y = quanta.weight_only_matmul %x {weights = dense<[[1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2], [1, -8], [7, 0], [3, -1], [2, 2]]> : tensor<16x2xi4>, scales = array<f32: 0.25, 0.5, 1.0, 2.0>, group_size = 8, zero_points = array<i8: -8, 0, 7, 3>, f16_scales} : tensor<3x16xf32> -> tensor<3x2xf32>
  return %y : tensor<3x2xf32>
}

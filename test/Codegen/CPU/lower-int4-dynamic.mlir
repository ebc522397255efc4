// RUN: quant-opt %s --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefixes=CHECK,VNNI512
// RUN: quant-opt %s --quanta-lower-x86=isa=avxvnni | FileCheck %s --check-prefixes=CHECK,VNNI
// RUN: quant-opt %s --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefixes=CHECK,AVX2
// RUN: quant-opt %s --quanta-lower-x86=isa=generic | FileCheck %s --check-prefixes=CHECK,GENERIC
// RUN: quant-opt %s --quanta-lower-neon=features=dotprod | FileCheck %s --check-prefixes=CHECK,SDOT
// RUN: quant-opt %s --quanta-lower-neon=features=baseline | FileCheck %s --check-prefixes=CHECK,GENERIC

// 4-bit weights with int8_activations (qconfig int4_dynamic): the input
// quantized per row and group of 8 (the largest magnitude; per group once
// the scale amax / 127 or NaN and 127 / amax where finite, else 0; per
// value a multiply, clamp and round half to even, no division; -8 x each
// group's sum), then the integer steps on weights stored + 8, a
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
// CHECK: arith.muli %{{.*}}, %c8_i32 : i32
// CHECK: arith.subi
// CHECK: arith.constant dense<"0x99FFBBAA008877AA8888
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

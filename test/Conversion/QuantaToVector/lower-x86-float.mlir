// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=YMM
// RUN: quant-opt %s --split-input-file --quanta-lower-x86=isa=avx512vnni | FileCheck %s --check-prefix=ZMM
// RUN: quant-opt %s --split-input-file --quanta-lower-x86="isa=avx2 float=false" | FileCheck %s --check-prefix=OFF

// An f32 matmul with constant weights: packed into strips (K x 64 padded
// columns, 64 = the widest tile), 6 x 2 ymm tiles (8 x 2 zmm) then one-row
// tiles, each accumulator read from the init tensor and updated by one FMA
// per k.

// YMM-LABEL: func.func @constant_weights
// YMM-SAME: passthrough = {{\[\[}}"min-legal-vector-width", "256"]]
// YMM: arith.constant dense<"0x{{[0-9A-F]+}}"> : tensor<320xf32>
// YMM: scf.for
// YMM: vector.transfer_read %{{.*}} : tensor<7x10xf32>, vector<8xf32>
// YMM: vector.transfer_read %{{.*}} {in_bounds = [true]} : tensor<320xf32>, vector<8xf32>
// YMM: tensor.extract %arg0
// YMM: vector.broadcast %{{.*}} : f32 to vector<8xf32>
// YMM: vector.fma %{{.*}} : vector<8xf32>
// YMM: vector.transfer_write %{{.*}} : vector<8xf32>, tensor<7x10xf32>
// YMM: {quanta.dot_step = "fma"}
// YMM-NOT: linalg.matmul

// ZMM-LABEL: func.func @constant_weights
// ZMM-SAME: passthrough = {{\[\[}}"min-legal-vector-width", "512"]]
// ZMM: tensor<320xf32>
// ZMM: vector.fma %{{.*}} : vector<16xf32>
// ZMM: {quanta.dot_step = "fma"}
// ZMM-NOT: linalg.matmul

// OFF-LABEL: func.func @constant_weights
// OFF-NOT: vector.fma
// OFF: linalg.matmul
func.func @constant_weights(%a: tensor<7x5xf32>, %init: tensor<7x10xf32>) -> tensor<7x10xf32> {
  %w = arith.constant dense<1.5> : tensor<5x10xf32>
  %r = linalg.matmul ins(%a, %w : tensor<7x5xf32>, tensor<5x10xf32>) outs(%init : tensor<7x10xf32>) -> tensor<7x10xf32>
  return %r : tensor<7x10xf32>
}

// -----

// Weights that are not constants, other element types and transposed
// operands stay linalg.matmul.

// YMM-LABEL: func.func @left_alone
// YMM-NOT: vector.fma
// YMM-NOT: passthrough
// YMM-COUNT-3: linalg.matmul
// ZMM-LABEL: func.func @left_alone
// ZMM-NOT: vector.fma
// ZMM-COUNT-3: linalg.matmul
func.func @left_alone(%a: tensor<4x8xf32>, %b: tensor<8x16xf32>, %c: tensor<4x16xf32>,
                      %h: tensor<4x8xf16>, %hc: tensor<4x16xf16>) -> (tensor<4x16xf32>, tensor<4x16xf16>, tensor<4x16xf32>) {
  %0 = linalg.matmul ins(%a, %b : tensor<4x8xf32>, tensor<8x16xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  %w16 = arith.constant dense<1.0> : tensor<8x16xf16>
  %1 = linalg.matmul ins(%h, %w16 : tensor<4x8xf16>, tensor<8x16xf16>) outs(%hc : tensor<4x16xf16>) -> tensor<4x16xf16>
  %wt = arith.constant dense<2.0> : tensor<16x8xf32>
  %2 = linalg.matmul indexing_maps = [affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, affine_map<(m, n, k) -> (m, n)>]
         ins(%a, %wt : tensor<4x8xf32>, tensor<16x8xf32>) outs(%c : tensor<4x16xf32>) -> tensor<4x16xf32>
  return %0, %1, %2 : tensor<4x16xf32>, tensor<4x16xf16>, tensor<4x16xf32>
}

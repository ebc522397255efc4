// RUN: quant-opt %s --quanta-lower-x86=isa=avx2 | FileCheck %s
// RUN: %python -c "import numpy as np; r = np.random.default_rng(5); np.save('%t.a.npy', r.integers(-128, 128, (2, 20, 7, 5)).astype(np.int8)); np.save('%t.b.npy', r.standard_normal((3, 4, 9, 18)).astype(np.float32))"
// RUN: for isa in avx2 generic; do \
// RUN:   quant-run %s --entry=nchw_to_nhwc --input=%t.a.npy --output=%t.a.ref.npy && \
// RUN:   quant-run %s --entry=nchw_to_nhwc --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" --input=%t.a.npy --output=%t.a.$isa.npy && \
// RUN:   cmp %t.a.ref.npy %t.a.$isa.npy && \
// RUN:   quant-run %s --entry=nhwc_to_nchw --input=%t.b.npy --output=%t.b.ref.npy && \
// RUN:   quant-run %s --entry=nhwc_to_nchw --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" --input=%t.b.npy --output=%t.b.$isa.npy && \
// RUN:   cmp %t.b.ref.npy %t.b.$isa.npy && echo "$isa equal" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=EXEC
// REQUIRES: avx2

// The layout transposes around NCHW convolutions become 2-D transposes of
// each image in 16x16 vector tiles: [N, C, H * W] -> [N, H * W, C] and
// back. Whole tiles move with in-bounds transfers; the edges (20 and 35
// are no multiples of 16) with masked ones. Both results equal the
// linalg.transpose loops' byte for byte.
// CHECK-LABEL: func.func @nchw_to_nhwc
// CHECK: %[[IN:.*]] = tensor.collapse_shape %arg0 {{\[\[}}0], [1], [2, 3]] : tensor<2x20x7x5xi8> into tensor<2x20x35xi8>
// CHECK: %[[OUT:.*]] = tensor.collapse_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] : tensor<2x7x5x20xi8> into tensor<2x35x20xi8>
// CHECK: vector.transfer_read %[[IN]][{{.*}}], %{{.*}} {in_bounds = [true, true]} : tensor<2x20x35xi8>, vector<16x16xi8>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xi8> to vector<16x16xi8>
// CHECK: vector.transfer_write %{{.*}} {in_bounds = [true, true]} : vector<16x16xi8>, tensor<2x35x20xi8>
// CHECK: vector.transfer_read %[[IN]][{{.*}}], %{{.*}} : tensor<2x20x35xi8>, vector<16x16xi8>
// CHECK: vector.transfer_write
// CHECK: tensor.expand_shape %{{.*}} {{\[\[}}0], [1, 2], [3]] output_shape [2, 7, 5, 20] : tensor<2x35x20xi8> into tensor<2x7x5x20xi8>
// CHECK-LABEL: func.func @nhwc_to_nchw
// CHECK: tensor.collapse_shape %arg0 {{\[\[}}0], [1, 2], [3]] : tensor<3x4x9x18xf32> into tensor<3x36x18xf32>
// CHECK: vector.transpose %{{.*}}, [1, 0] : vector<16x16xf32> to vector<16x16xf32>
// CHECK: tensor.expand_shape %{{.*}} output_shape [3, 18, 4, 9]
// CHECK-LABEL: func.func @other_permutation
// CHECK: linalg.transpose
// EXEC: avx2 equal
// EXEC: generic equal

func.func @nchw_to_nhwc(%x: tensor<2x20x7x5xi8>) -> tensor<2x7x5x20xi8> {
  %e = tensor.empty() : tensor<2x7x5x20xi8>
  %t = linalg.transpose ins(%x : tensor<2x20x7x5xi8>) outs(%e : tensor<2x7x5x20xi8>) permutation = [0, 2, 3, 1]
  return %t : tensor<2x7x5x20xi8>
}

func.func @nhwc_to_nchw(%x: tensor<3x4x9x18xf32>) -> tensor<3x18x4x9xf32> {
  %e = tensor.empty() : tensor<3x18x4x9xf32>
  %t = linalg.transpose ins(%x : tensor<3x4x9x18xf32>) outs(%e : tensor<3x18x4x9xf32>) permutation = [0, 3, 1, 2]
  return %t : tensor<3x18x4x9xf32>
}

// Any other permutation stays a linalg.transpose.
func.func @other_permutation(%x: tensor<2x3x4x5xi8>) -> tensor<3x2x4x5xi8> {
  %e = tensor.empty() : tensor<3x2x4x5xi8>
  %t = linalg.transpose ins(%x : tensor<2x3x4x5xi8>) outs(%e : tensor<3x2x4x5xi8>) permutation = [1, 0, 2, 3]
  return %t : tensor<3x2x4x5xi8>
}

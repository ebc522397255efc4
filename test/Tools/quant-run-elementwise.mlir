// RUN: %python -c "import numpy as np; r = np.random.default_rng(11); [np.save('%t.' + n + '.npy', (r.standard_normal(s) * 2.5).astype(np.float32)) for n, s in [('x', (7, 33)), ('y', (1, 33)), ('z', (7, 33)), ('u', (1, 9, 9, 4)), ('v', (1, 9, 9, 4))]]"
// RUN: quant-opt %S/Inputs/elementwise_exec.mlir --quanta-quantize --canonicalize | FileCheck %s

// Each function as written (float between its dq/q pairs: the reference)
// and through quanta-quantize (integer ops on the storage values).
// RUN: for p in "" "--pass-pipeline=builtin.module(quanta-quantize)"; do \
// RUN:   tag=$([ -z "$p" ] && echo ref || echo int); \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=add_relu6 --input=%t.x.npy --input=%t.y.npy --output=%t.add.$tag.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=mul_s8 --input=%t.x.npy --input=%t.z.npy --output=%t.mul.$tag.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=sigmoid_tanh --input=%t.x.npy --input=%t.z.npy --output=%t.sig.$tag.npy --output=%t.tanh.$tag.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=pool_concat --input=%t.u.npy --input=%t.v.npy --output=%t.pool.$tag.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=average_pools --input=%t.u.npy --input=%t.v.npy --output=%t.avg.$tag.npy --output=%t.avg2.$tag.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir --guard-pages=after $p --entry=concat_requantize --input=%t.x.npy --input=%t.z.npy --output=%t.cat.$tag.npy || exit 1; \
// RUN: done
// RUN: for f in add mul sig tanh pool avg avg2 cat; do %python %S/Inputs/compare_quantized.py %t.$f.int.npy %t.$f.ref.npy; done | FileCheck %s --check-prefix=EXEC

// No float compute and no dequantization is left.
// CHECK-NOT: arith.addf
// CHECK-NOT: arith.mulf
// CHECK-NOT: arith.maximumf
// CHECK-NOT: math.
// CHECK-NOT: quant.dcast
// CHECK-LABEL: func.func @pool_concat
// CHECK: linalg.generic {{.*}}ins(%{{.*}}, %{{.*}} : tensor<1x10x10x4xi8>, tensor<3x3xf32>)
// CHECK: arith.max{{si|ui}}
// CHECK: tensor.concat dim(0) {{.*}} : (tensor<1x64xi8>, tensor<1x64xi8>) -> tensor<2x64xi8>
// CHECK-LABEL: func.func @average_pools
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x5x5x4xi32>)
// CHECK: linalg.generic {{.*}}iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction", "reduction"]{{.*}} outs(%{{.*}} : tensor<1x4x4x4xi32>)
// CHECK-NOT: linalg.pooling_nhwc_sum
// CHECK-LABEL: func.func @concat_requantize
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<7x33xi8>) outs(%{{.*}} : tensor<7x33xi8>)
// CHECK: linalg.generic {{.*}} ins(%{{.*}} : tensor<7x33xi8>) outs(%{{.*}} : tensor<7x33xi8>)
// CHECK: tensor.concat dim(0) {{.*}} : (tensor<7x33xi8>, tensor<7x33xi8>) -> tensor<14x33xi8>

// Add and mul within 1 LSB of the float reference (one rounding each);
// lookup tables, max pooling and data movement equal it.
// EXEC: of 231 equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values
// EXEC: of 231 equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values
// EXEC: 231 of 231 equal, max difference 0 LSB, {{[1-9][0-9]+}} distinct values
// EXEC: 231 of 231 equal, max difference 0 LSB, {{[1-9][0-9]+}} distinct values
// EXEC: 128 of 128 equal, max difference 0 LSB, {{[1-9][0-9]+}} distinct values
// The average pools: within 1 LSB (the integer average rounds once, the
// float one after summing dequantized values in float).
// EXEC: of 100 equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values
// EXEC: of 64 equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values
// The requantizing concat: within 1 LSB (one integer rounding of each
// input against the float requantization of its dequantized value).
// EXEC: of 462 equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values

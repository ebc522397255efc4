// A float NCHW graph as the ONNX importer writes one (padded convolution,
// bias add, clamp, depthwise convolution at stride 2, 1x1 convolution with
// bias and residual add, max pool, global sum pool, flatten, matmul and
// bias), lowered whole: its convolutions and pools run NHWC with one
// transpose in and one before the flatten, the bias adds, the clamp and
// the residual add in the kernels' epilogues, the pools as loop nests over
// their outputs (taps unrolled, channels innermost). Outputs bit-identical to
// NumPy's int64 evaluation (scripts/goldens/gen_float_graph_exec.py: small
// integers, every sum exact) on this machine's level, AVX2, the generic
// path, the ops' own loops (float=false) and AArch64 under qemu.
//
// REQUIRES: avx2
// RUN: for entry in block narrow; do \
// RUN:   for pipeline in 'quanta-lower-x86' 'quanta-lower-x86{isa=avx2}' 'quanta-lower-x86{isa=generic}' 'quanta-lower-x86{float=false}'; do \
// RUN:     quant-run %S/Inputs/float_graph_exec.mlir --guard-pages=after --entry=$entry --pass-pipeline="builtin.module($pipeline)" \
// RUN:       --input=%S/Inputs/float_graph_${entry}_input.npy --output=%t.$entry.npy || exit 1; \
// RUN:     cmp %t.$entry.npy %S/Inputs/float_graph_${entry}_expected.npy && echo "$entry $pipeline identical" || exit 1; \
// RUN:   done; \
// RUN:   quant-run %S/Inputs/float_graph_exec.mlir --entry=$entry --target-triple=aarch64-linux-gnu --mcpu=cortex-a72 \
// RUN:     --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%S/Inputs/float_graph_${entry}_input.npy --output=%t.$entry.neon.npy || exit 1; \
// RUN:   cmp %t.$entry.neon.npy %S/Inputs/float_graph_${entry}_expected.npy && echo "$entry neon identical" || exit 1; \
// RUN: done | FileCheck %s
// RUN: quant-opt %S/Inputs/float_graph_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=LOWERED
//
// CHECK-COUNT-4: block {{.*}} identical
// CHECK: block neon identical
// CHECK-COUNT-4: narrow {{.*}} identical
// CHECK: narrow neon identical

// The image transposed once on the way in (a 2-D vector transpose per
// tile), the 3x3 convolution's kernel applying the bias add and the clamp
// to its accumulators, the depthwise loop nest its bias, the 1x1 kernel
// its bias and the residual add, the pools NHWC, one transpose before the
// flatten, the matmul's kernel its bias: no elementwise generic is left.
// LOWERED-LABEL: func.func @block
// LOWERED: vector.transpose
// LOWERED-NOT: linalg.generic
// LOWERED: arith.maximumf %{{.*}}, %{{.*}} : vector<8xf32>
// LOWERED: arith.minimumf %{{.*}}, %{{.*}} : vector<8xf32>
// LOWERED: quanta.dot_step = "fma"
// LOWERED: linalg.generic
// LOWERED-SAME: outs(%{{.*}} : tensor<2x5x6x16xf32>)
// LOWERED-COUNT-9: arith.mulf
// LOWERED: tensor.extract %{{.*}} : tensor<16xf32>
// LOWERED-NEXT: arith.addf
// LOWERED-NEXT: linalg.yield
// LOWERED-NOT: linalg.generic
// LOWERED: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// LOWERED: arith.addf %{{.*}}, %{{.*}} : vector<8xf32>
// LOWERED: quanta.dot_step = "fma"
// LOWERED-NOT: linalg.pooling
// LOWERED: linalg.generic
// LOWERED-SAME: outs(%{{.*}} : tensor<2x4x5x16xf32>)
// LOWERED-COUNT-4: arith.maximumf %{{.*}}, %{{.*}} : f32
// LOWERED-NEXT: linalg.yield
// LOWERED: linalg.generic
// LOWERED-SAME: outs(%{{.*}} : tensor<2x1x1x16xf32>)
// LOWERED-COUNT-20: arith.addf %{{.*}}, %{{.*}} : f32
// LOWERED-NEXT: linalg.yield
// LOWERED: vector.transpose
// LOWERED-NOT: linalg.generic
// LOWERED: quanta.dot_step = "fma"
// LOWERED-NOT: linalg.generic
// LOWERED: return

// RUN: %python %S/Inputs/random_arguments.py %S/Inputs/float_depthwise_exec.mlir %t
// RUN: for e in nchw_3x3_s1 nchw_5x5_s2_dilated nhwc_3x3_s2 nhwc_5x5_s1; do \
// RUN:   quant-run %S/Inputs/float_depthwise_exec.mlir --guard-pages=after --entry=$e --input=%t.$e.0.npy --input=%t.$e.1.npy --pass-pipeline="builtin.module(quanta-lower-x86{float=false})" --output=%t.$e.loops.npy && \
// RUN:   quant-run %S/Inputs/float_depthwise_exec.mlir --guard-pages=after --entry=$e --input=%t.$e.0.npy --input=%t.$e.1.npy --pass-pipeline="builtin.module(quanta-lower-x86)" --output=%t.$e.lowered.npy && \
// RUN:   cmp %t.$e.loops.npy %t.$e.lowered.npy && echo "$e equal" || exit 1; \
// RUN: done | FileCheck %s
// RUN: quant-opt %S/Inputs/float_depthwise_exec.mlir --quanta-lower-x86 | FileCheck %s --check-prefix=LOWERED

// f32 depthwise convolutions lowered by quanta-lower-x86 (one loop nest
// over the NHWC outputs, taps unrolled; an NCHW one between transposes, its
// CHW filter transposed to HWC) give the same bytes as the op's own loops
// on random inputs: the same sums in the same order.
// CHECK: nchw_3x3_s1 equal
// CHECK: nchw_5x5_s2_dilated equal
// CHECK: nhwc_3x3_s2 equal
// CHECK: nhwc_5x5_s1 equal

// LOWERED-LABEL: func.func @nchw_3x3_s1
// LOWERED-NOT: linalg.depthwise
// LOWERED: linalg.transpose ins(%arg1 : tensor<19x3x3xf32>) outs(%{{.*}} : tensor<3x3x19xf32>) permutation = [1, 2, 0]
// LOWERED: linalg.generic
// LOWERED-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// LOWERED-SAME: outs(%{{.*}} : tensor<1x9x11x19xf32>)
// LOWERED-COUNT-9: arith.mulf
// LOWERED: linalg.yield
// LOWERED-LABEL: func.func @nhwc_5x5_s1
// LOWERED-NOT: linalg.depthwise
// LOWERED-COUNT-25: arith.mulf

// REQUIRES: avx2
// RUN: for e in fhwc_3x3 hwcf_s2_dilated fhwc_1x1_c1 hwcf_5x5_s3 nchw_3x3_s2_dilated; do \
// RUN:   for isa in avx2 generic; do \
// RUN:     quant-run %S/Inputs/float_conv_exec.mlir --guard-pages=after --entry=$e --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" --input=%S/Inputs/float_conv_${e}_input.npy --output=%t.$isa.$e.npy && \
// RUN:     cmp %t.$isa.$e.npy %S/Inputs/float_conv_${e}_expected.npy && echo "$e $isa equal" || exit 1; \
// RUN:   done; \
// RUN:   quant-run %S/Inputs/float_conv_exec.mlir --guard-pages=after --entry=$e --input=%S/Inputs/float_conv_${e}_input.npy --output=%t.scalar.$e.npy && \
// RUN:   cmp %t.scalar.$e.npy %S/Inputs/float_conv_${e}_expected.npy && echo "$e scalar equal" || exit 1; \
// RUN: done | FileCheck %s
// RUN: quant-opt %S/Inputs/float_conv_exec.mlir --quanta-lower-x86=isa=avx2 | FileCheck %s --check-prefix=LOWERED

// Execution of f32 NHWC convolutions lowered by quanta-lower-x86 to the
// tiled FMA kernel reading the implicit im2col matrix in place, on ymm
// and in generic vectors, and of the convolutions as written (the scalar
// loops of the default lowering): outputs byte-identical to NumPy's int64
// evaluation (scripts/goldens/gen_float_conv_exec.py; small integers, so
// every partial sum is exact): strides, dilations, batch 2, one channel,
// 1x1, 20 and 33 filters (masked strips), a bias in the init tensor, and
// an NCHW convolution (transposed to NHWC around the kernel).
// CHECK-COUNT-15: {{[a-z0-9_]+}} {{avx2|generic|scalar}} equal

// Every convolution became a tile loop of FMAs.
// LOWERED-NOT: linalg.conv_2d
// LOWERED-COUNT-5: {quanta.dot_step = "fma"{{(, quanta.parallel)?}}}

// REQUIRES: avx2
// RUN: %python -c "import numpy as np; r = np.random.default_rng(7); [np.save('%t.' + n + '.npy', (r.standard_normal(s) * 1.5).astype(np.float32)) for n, s in [('a', (1, 9, 9, 5)), ('b', (2, 5, 8, 7)), ('c', (1, 6, 6, 8)), ('d', (3, 6, 5, 3)), ('e', (2, 7, 9, 6)), ('f', (1, 11, 10, 3))]]"
// RUN: quant-opt %S/Inputs/conv_exec.mlir --quanta-quantize | FileCheck %s

// Each function as written (float between its dq/q pairs: the reference)
// and through quanta-quantize (quanta.qmatmul over im2col; the depthwise
// convolutions in their own integer loops) for every ISA.
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_3x3_s2_pad_relu --input=%t.a.npy --output=%t.a.ref.npy
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=nchw_3x3_dilated --input=%t.b.npy --output=%t.b.ref.npy
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_1x1_relu6 --input=%t.c.npy --output=%t.c.ref.npy
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_2x2_s2_dilated --input=%t.d.npy --output=%t.d.ref.npy
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=depthwise_3x3_pad_relu6 --input=%t.e.npy --output=%t.e.ref.npy
// RUN: quant-run %S/Inputs/conv_exec.mlir --entry=depthwise_m2_s2_dilated --input=%t.f.npy --output=%t.f.ref.npy
// RUN: for isa in avx2 generic; do \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_3x3_s2_pad_relu --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.a.npy --output=%t.a.$isa.npy && \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=nchw_3x3_dilated --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.b.npy --output=%t.b.$isa.npy && \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_1x1_relu6 --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.c.npy --output=%t.c.$isa.npy && \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=nhwc_2x2_s2_dilated --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.d.npy --output=%t.d.$isa.npy && \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=depthwise_3x3_pad_relu6 --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.e.npy --output=%t.e.$isa.npy && \
// RUN:   quant-run %S/Inputs/conv_exec.mlir --entry=depthwise_m2_s2_dilated --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" --input=%t.f.npy --output=%t.f.$isa.npy || exit 1; \
// RUN: done
// RUN: for isa in avx2 generic; do for f in a b c d e f; do \
// RUN:   %python %S/Inputs/compare_quantized.py %t.$f.$isa.npy %t.$f.ref.npy; \
// RUN: done; done | FileCheck %s --check-prefix=EXEC

// Every chain became integer code: the comparison is not float against
// float.
// CHECK-COUNT-4: quanta.qmatmul
// CHECK-NOT: linalg.conv_2d
// CHECK-NOT: linalg.depthwise_conv_2d
// CHECK-NOT: -> tensor<{{[0-9x]+}}xf32>

// The integer results equal the float reference between the dq/q pairs
// within 1 LSB (bias and requantization round once each); the reference
// outputs are not constant.
// EXEC-COUNT-12: of {{[0-9]+}} equal, max difference {{0|1}} LSB, {{[1-9][0-9]+}} distinct values

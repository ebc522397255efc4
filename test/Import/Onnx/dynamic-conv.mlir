// REQUIRES: avx2
// ONNX Runtime's quantize_dynamic on a CNN writes each Conv as
// DynamicQuantizeLinear, ConvInteger (per-tensor weights, the Conv's
// window), Cast, Mul by input scale x weight scale, and the bias added
// through a Reshape to [1, -1, 1, 1]. The importer reads each chain as one
// quanta.dynamic_qmatmul with a window: the input quantized once with
// DynamicQuantizeLinear's qparams, the int8 GEMM reading the image where
// it lies. Outputs byte-identical to the graph's node-by-node values,
// which are ONNX Runtime 1.30's own (gen_onnx_dynamic_models.py --ort), on
// x86 (AVX2, generic) and the three AArch64 levels under qemu, with int8
// weights (QInt8, the default) and uint8 ones with zero points (QUInt8).
// x [2, 3, 9, 11]: a 3x3 Conv with bias and padding 1, Relu, a 3x3 Conv
// without bias of strides [2, 1], dilations [1, 2], pads [1, 0, 1, 2],
// then a 1x1 Conv with bias.
//
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_conv_s8.onnx -o %t.s8.mlir
// RUN: FileCheck %s < %t.s8.mlir
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {bias = array<f32: {{[^}]*}}>, weight_scales = array<f32: {{[^,}]*}}>, weights = {{.*}} : tensor<27x8xi8>, window = array<i64: 3, 3, 1, 1, 1, 1>} : tensor<2x11x13x3xf32> -> tensor<198x8xf32>
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {weight_scales = {{.*}} : tensor<72x12xi8>, window = array<i64: 3, 3, 2, 1, 1, 2>} : tensor<2x11x13x8xf32> -> tensor<90x12xf32>
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {bias = {{.*}} : tensor<12x6xi8>, window = array<i64: 1, 1, 1, 1, 1, 1>} : tensor<2x5x9x12xf32> -> tensor<90x6xf32>
// CHECK-NOT: linalg.conv
// CHECK-NOT: math.roundeven
//
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_conv_u8.onnx -o %t.u8.mlir
// RUN: FileCheck %s --check-prefix=U8 < %t.u8.mlir
// U8-COUNT-3: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {{.*}}weight_zero_points = array<i32: {{-?[0-9]+}}>
// U8-NOT: linalg.conv
//
// RUN: for model in s8 u8; do \
// RUN:   for isa in avx2 generic; do \
// RUN:     quant-run %t.$model.mlir --guard-pages=after --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/dynamic_conv_x.npy --output=%t.npy || exit 1; \
// RUN:     cmp %t.npy %S/Inputs/dynamic_conv_${model}_expected.npy && echo "$isa $model identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86: avx2 s8 identical
// X86: generic s8 identical
// X86: avx2 u8 identical
// X86: generic u8 identical
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   for model in s8 u8; do \
// RUN:     quant-run %t.$model.mlir --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:       --pass-pipeline="builtin.module(quanta-lower-neon)" \
// RUN:       --input=%S/Inputs/dynamic_conv_x.npy --output=%t.$step.npy || exit 1; \
// RUN:     cmp %t.$step.npy %S/Inputs/dynamic_conv_${model}_expected.npy && echo "$step $model identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON: smull s8 identical
// NEON: smull u8 identical
// NEON: sdot s8 identical
// NEON: sdot u8 identical
// NEON: smmla s8 identical
// NEON: smmla u8 identical
//
// A grouped ConvInteger (a depthwise layer's, and one of 2 groups) is no
// GEMM: it stays the graph's ops, its convolution computed in f32 where
// every partial sum is an integer below 2^24 (taps * 255 * max |w - zp|:
// here 9 and 18 taps), which is exact in any order and runs on the float
// window kernels; then converted to i32, the same values as ConvInteger's.
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_grouped_conv_u8.onnx -o %t.grouped.mlir
// RUN: FileCheck %s --check-prefix=GROUPED < %t.grouped.mlir
// GROUPED-NOT: dynamic_qmatmul
// GROUPED: linalg.depthwise_conv_2d_nchw_chw {{.*}} -> tensor<1x4x6x7xf32>
// GROUPED: arith.fptosi
// GROUPED: linalg.conv_2d_ngchw_gfchw {{.*}} -> tensor<1x2x3x2x3xf32>
// GROUPED: arith.fptosi
// RUN: quant-run %t.grouped.mlir --input=%S/Inputs/dynamic_grouped_conv_x.npy --output=%t.grouped.npy
// RUN: cmp %t.grouped.npy %S/Inputs/dynamic_grouped_conv_u8_expected.npy
// RUN: quant-run %t.grouped.mlir --pass-pipeline="builtin.module(quanta-lower-x86{float})" \
// RUN:   --input=%S/Inputs/dynamic_grouped_conv_x.npy --output=%t.grouped-float.npy
// RUN: cmp %t.grouped-float.npy %S/Inputs/dynamic_grouped_conv_u8_expected.npy
// 2 groups of 300 channels (2700 taps, 2700 * 255 * 127 >= 2^24): the
// convolution stays in i32.
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_wide_grouped_conv_u8.onnx -o %t.wide.mlir
// RUN: FileCheck %s --check-prefix=WIDE < %t.wide.mlir
// WIDE-NOT: fptosi
// WIDE: linalg.conv_2d_ngchw_gfchw {{.*}} -> tensor<1x2x1x1x1xi32>
// RUN: quant-run %t.wide.mlir --input=%S/Inputs/dynamic_wide_grouped_conv_x.npy --output=%t.wide.npy
// RUN: cmp %t.wide.npy %S/Inputs/dynamic_wide_grouped_conv_u8_expected.npy
//
// A chain whose window does not fit its image: a located error naming the
// ConvInteger node (DynamicQuantizeConv: the chain as the importer reads it).
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_conv_window_too_large.onnx 2>&1 | FileCheck %s --check-prefix=TOO-LARGE
// TOO-LARGE: dynamic_conv_window_too_large.onnx{{.*}}error: DynamicQuantizeConv node 'conv2_quant': the window does not fit the input 'tensor<2x8x2x2xf32>'

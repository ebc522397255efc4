// REQUIRES: avx2
// ONNX Runtime's dynamic quantization (what its quantize_dynamic writes:
// DynamicQuantizeLinear, MatMulInteger, Cast, Mul by input scale x weight
// scale, then the model's bias Add; and its fused DynamicQuantizeMatMul)
// runs on the int8 kernels with ONNX Runtime's numerics: outputs
// byte-identical to the graph's node-by-node float32 values, which are
// ONNX Runtime 1.30's own (scripts/goldens/gen_onnx_dynamic_models.py
// checked them with --ort), on x86 (VNNI, AVX2, generic) and the three
// AArch64 levels under qemu. x [2, 5, 24] feeds two MatMuls (one
// DynamicQuantizeLinear, shared), whose sum feeds a third without a bias.
//
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_matmul_s8.onnx | FileCheck %s
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {bias = array<f32: {{[^}]*}}>, weight_scales = array<f32: {{[^,}]*}}>, weights = {{.*}} : tensor<24x16xi8>} : tensor<10x24xf32> -> tensor<10x16xf32>
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {bias =
// CHECK: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {weight_scales = {{.*}} : tensor<16x10xi8>} : tensor<10x16xf32> -> tensor<10x10xf32>
// CHECK-NOT: linalg.matmul
// CHECK-NOT: math.roundeven
//
// Per-column weight scales (per_channel=True): more than one.
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_matmul_per_channel.onnx | FileCheck %s --check-prefix=PER-CHANNEL
// PER-CHANNEL-COUNT-3: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {{.*}}weight_scales = array<f32: {{[-+.e0-9]+(, [-+.e0-9]+)+}}>
//
// u8 weights with zero points whose B - zero point leaves int8 (weight_type
// QUInt8) run on the kernels too: stored as w - 128 with zero points
// zp - 128, whose term the kernels subtract (sum_k a times each).
// RUN: quant-translate --import-onnx %S/Inputs/dynamic_matmul_u8.onnx | FileCheck %s --check-prefix=U8
// U8-COUNT-3: quanta.dynamic_qmatmul %{{.*}} engine(onnx) {{.*}}weight_zero_points = array<i32: {{-?[0-9]+}}>
// U8-NOT: linalg.matmul
//
// RUN: for model in dynamic_matmul_s8 dynamic_matmul_per_channel dynamic_quantize_matmul dynamic_matmul_u8 dynamic_quantize_matmul_wide_zero_point; do \
// RUN:   quant-translate --import-onnx %S/Inputs/$model.onnx -o %t.$model.mlir || exit 1; \
// RUN:   for isa in avx2 generic; do \
// RUN:     quant-run %t.$model.mlir --guard-pages=after --pass-pipeline="builtin.module(quanta-lower-x86{isa=$isa})" \
// RUN:       --input=%S/Inputs/dynamic_matmul_x.npy --output=%t.npy || exit 1; \
// RUN:     cmp %t.npy %S/Inputs/${model}_expected.npy && echo "$isa $model identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=X86
// X86-COUNT-10: {{avx2|generic}} {{[a-z_0-9]+}} identical
//
// RUN: for config in smull:cortex-a72:cortex-a72 sdot:neoverse-n1:neoverse-n1 smmla:neoverse-v1:max; do \
// RUN:   step=${config%%%%:*} rest=${config#*:}; cpu=${rest%%%%:*} qemu=${rest#*:}; \
// RUN:   quant-run %t.dynamic_matmul_s8.mlir --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu \
// RUN:     --pass-pipeline="builtin.module(quanta-lower-neon)" \
// RUN:     --input=%S/Inputs/dynamic_matmul_x.npy --output=%t.$step.npy || exit 1; \
// RUN:   cmp %t.$step.npy %S/Inputs/dynamic_matmul_s8_expected.npy && echo "$step identical" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=NEON
// NEON: smull identical
// NEON: sdot identical
// NEON: smmla identical
//
// ONNX Runtime's fused node with constants the kernels cannot take:
// located errors (B a graph input, a weight scale of 0, a bias of 3 values
// for 16 columns). Zero points of -128, B - zero point outside int8, run
// (above: dynamic_quantize_matmul_wide_zero_point).
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_quantize_matmul_runtime_b.onnx 2>&1 | FileCheck %s --check-prefix=RUNTIME-B
// RUNTIME-B: dynamic_quantize_matmul_runtime_b.onnx{{.*}}error: DynamicQuantizeMatMul node 'fc1_fused': B (the weights) must be a constant
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_quantize_matmul_zero_scale.onnx 2>&1 | FileCheck %s --check-prefix=ZERO-SCALE
// ZERO-SCALE: error: DynamicQuantizeMatMul node 'fc1_fused': weight scale 0.000000 is not a positive normal float
// RUN: not quant-translate --import-onnx %S/Inputs/dynamic_quantize_matmul_short_bias.onnx 2>&1 | FileCheck %s --check-prefix=SHORT-BIAS
// SHORT-BIAS: error: DynamicQuantizeMatMul node 'fc1_fused': the bias must be 16 f32 values, got tensor<3xf32>

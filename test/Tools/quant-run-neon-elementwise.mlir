// RUN: %python -c "import numpy as np; r = np.random.default_rng(11); [np.save('%t.' + n + '.npy', (r.standard_normal(s) * 2.5).astype(np.float32)) for n, s in [('x', (7, 33)), ('y', (1, 33)), ('z', (7, 33)), ('u', (1, 9, 9, 4)), ('v', (1, 9, 9, 4))]]"

// The integer elementwise code of quanta-quantize (QNNPACK's add and mul,
// 256-entry tables, max pooling, data movement, average pooling as i32
// window sums) after quanta-lower-neon, which leaves it to LLVM's
// vectorizer for the target: on each AArch64 CPU under qemu, its outputs
// are byte-identical to the x86 outputs of the same code (the JIT on this
// machine), which quant-run-elementwise.mlir checks against the float
// reference.
// RUN: for target in x86 cortex-a72:cortex-a72 neoverse-n1:neoverse-n1 neoverse-v1:max; do \
// RUN:   if [ $target = x86 ]; then flags="--pass-pipeline=builtin.module(quanta-quantize,quanta-lower-x86)"; \
// RUN:   else flags="--target-triple=aarch64-linux-gnu --mcpu=${target%%%%:*} --qemu-cpu=${target#*:} --pass-pipeline=builtin.module(quanta-quantize,quanta-lower-neon)"; fi; \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir $flags --entry=add_relu6 --input=%t.x.npy --input=%t.y.npy --output=%t.add.$target.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir $flags --entry=mul_s8 --input=%t.x.npy --input=%t.z.npy --output=%t.mul.$target.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir $flags --entry=sigmoid_tanh --input=%t.x.npy --input=%t.z.npy --output=%t.sig.$target.npy --output=%t.tanh.$target.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir $flags --entry=pool_concat --input=%t.u.npy --input=%t.v.npy --output=%t.pool.$target.npy && \
// RUN:   quant-run %S/Inputs/elementwise_exec.mlir $flags --entry=average_pools --input=%t.u.npy --input=%t.v.npy --output=%t.avg.$target.npy --output=%t.avg2.$target.npy || exit 1; \
// RUN:   for f in add mul sig tanh pool avg avg2; do \
// RUN:     [ $target = x86 ] || { cmp %t.$f.$target.npy %t.$f.x86.npy && echo "$target $f identical" || exit 1; }; \
// RUN:   done; \
// RUN: done | FileCheck %s

// CHECK-COUNT-7: cortex-a72:cortex-a72 {{[a-z0-9]+}} identical
// CHECK-COUNT-7: neoverse-n1:neoverse-n1 {{[a-z0-9]+}} identical
// CHECK-COUNT-7: neoverse-v1:max {{[a-z0-9]+}} identical

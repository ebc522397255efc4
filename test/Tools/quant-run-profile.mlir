// quant-run --profile: the digits CNN (imported with its node names) run
// with each kernel call timed, grouped by ONNX node: every layer named,
// shares adding up, the same output bytes as without profiling. Under
// emulation it is refused, as --benchmark is.

// REQUIRES: avx2
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_cnn.onnx --onnx-batch=8 --mlir-print-debuginfo -o %t.mlir
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.load('%quanta_src_root/examples/digits/test_images.npy')[:8])"
// RUN: quant-run %t.mlir --input=%t.x.npy --output=%t.plain.npy --pass-pipeline='builtin.module(quanta-lower-x86)'
// RUN: quant-run %t.mlir --input=%t.x.npy --output=%t.profiled.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --profile --benchmark=5 --profile-rows=0 | FileCheck %s
// RUN: cmp %t.plain.npy %t.profiled.npy
// RUN: quant-run %t.mlir --input=%t.x.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --profile --profile-rows=2 | FileCheck %s --check-prefix=ROWS
// RUN: not quant-run %t.mlir --input=%t.x.npy --profile --target-triple=aarch64-linux-gnu 2>&1 | FileCheck %s --check-prefix=EMULATED
// RUN: quant-run %t.mlir --input=%t.x.npy --benchmark=1 | FileCheck %s --check-prefix=UNLOWERED

// Timed without a kernel lowering, the model runs its ops' generic loops:
// quant-run says so (and not when the kernels ran: CHECK-NOT below).
// UNLOWERED: main: 1 calls, best
// UNLOWERED: main: note: no kernel lowering ran: these are the generic loops of its matmuls, convolutions and pools (add quanta-lower-x86, or quanta-lower-neon, to --pass-pipeline for this CPU's kernels)

// CHECK: main: 5 calls, best
// CHECK-NOT: note: no kernel lowering
// CHECK: main: profile of 5 call(s), {{[0-9.]+}} ms per call; {{[0-9]+}} kernel call site(s) in 6 layer(s) take {{[0-9.]+}}%
// CHECK-NEXT: share   ms/call  layer  (kernel functions)
// CHECK-DAG: % {{ *[0-9.]+}}  /conv1/Conv  (main__quanta_loop{{[0-9]+}}
// CHECK-DAG: % {{ *[0-9.]+}}  /pool/MaxPool  (
// CHECK-DAG: % {{ *[0-9.]+}}  /depthwise/Conv  (
// CHECK-DAG: % {{ *[0-9.]+}}  /pointwise/Conv  (
// CHECK-DAG: % {{ *[0-9.]+}}  /fc/Gemm  (
// CHECK: % {{ *[0-9.]+}}  the rest

// ROWS: main: profile of 1 call(s)
// ROWS-NEXT: share
// ROWS-NEXT: %
// ROWS-NEXT: %
// ROWS-NEXT: ... 4 more layer(s)
// ROWS-NEXT: % {{ *[0-9.]+}}  the rest

// EMULATED: error: --profile times code on this machine's architecture only: under emulation the times mean nothing

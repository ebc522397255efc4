// RUN: for e in fhwc_3x3 hwcf_s2_dilated nchw_3x3_s2_dilated; do \
// RUN:   for threads in 2 3 0; do \
// RUN:     quant-run %S/Inputs/float_conv_exec.mlir --guard-pages=after --entry=$e --num-threads=$threads --pass-pipeline="builtin.module(quanta-lower-x86)" --input=%S/Inputs/float_conv_${e}_input.npy --output=%t.$threads.$e.npy && \
// RUN:     cmp %t.$threads.$e.npy %S/Inputs/float_conv_${e}_expected.npy && echo "$e $threads equal" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s --check-prefix=FLOAT

// A fully connected layer of 4 rows and 512 columns (the threads share its
// column groups: lower-x86-parallel.mlir): the same bytes on 1, 2 and 3
// threads, equal to NumPy's product in float64 within float32 rounding.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(0); w = r.integers(-8, 8, (1024, 512)).astype(np.float32); np.save('%t.fc.npy', r.standard_normal((4, 1024)).astype(np.float32)); np.save('%t.fc.w.npy', w); open('%t.fc.mlir', 'w').write('func.func @fc(%%a: tensor<4x1024xf32>) -> tensor<4x512xf32> {\n %%w = arith.constant dense<\"0x' + w.tobytes().hex() + '\"> : tensor<1024x512xf32>\n %%e = tensor.empty() : tensor<4x512xf32>\n %%z = arith.constant 0.0 : f32\n %%f = linalg.fill ins(%%z : f32) outs(%%e : tensor<4x512xf32>) -> tensor<4x512xf32>\n %%r = linalg.matmul ins(%%a, %%w : tensor<4x1024xf32>, tensor<1024x512xf32>) outs(%%f : tensor<4x512xf32>) -> tensor<4x512xf32>\n return %%r : tensor<4x512xf32>\n}\n')"
// RUN: for threads in 1 2 3; do \
// RUN:   quant-run %t.fc.mlir --guard-pages=after --num-threads=$threads --pass-pipeline="builtin.module(quanta-lower-x86)" --input=%t.fc.npy --output=%t.fc.$threads.npy || exit 1; \
// RUN: done
// RUN: cmp %t.fc.1.npy %t.fc.2.npy
// RUN: cmp %t.fc.1.npy %t.fc.3.npy
// RUN: %python -c "import numpy as np; a = np.load('%t.fc.npy').astype(np.float64); w = np.load('%t.fc.w.npy').astype(np.float64); y = np.load('%t.fc.2.npy'); assert np.allclose(y, a @ w, rtol=1e-5, atol=1e-3), abs(y - a @ w).max()"

// The digits CNN (ONNX; convolution, max pool, depthwise convolution,
// relu6, average pool, fully connected) calibrated on 1 and on 2 threads
// gives the same statistics; quantized, on 1, 2, 3 and the runtime's
// number of threads, the same output bytes.
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_cnn.onnx --onnx-batch=32 --mlir-print-debuginfo -o %t.cnn32.mlir
// RUN: quant-opt %t.cnn32.mlir --quanta-prepare=qconfig=x86 --quanta-calibrate='data=%quanta_src_root/examples/digits/calibration/batch0.npy,%quanta_src_root/examples/digits/calibration/batch1.npy quiet' --quanta-export-statistics=file=%t.1.json -o /dev/null
// RUN: quant-opt %t.cnn32.mlir --quanta-prepare=qconfig=x86 --quanta-calibrate='data=%quanta_src_root/examples/digits/calibration/batch0.npy,%quanta_src_root/examples/digits/calibration/batch1.npy quiet threads=2' --quanta-export-statistics=file=%t.2.json -o /dev/null
// RUN: cmp %t.1.json %t.2.json
// RUN: quant-translate --import-onnx %quanta_src_root/examples/digits/digits_cnn.onnx --onnx-batch=400 --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=x86 --quanta-import-statistics=files=%t.1.json --quanta-freeze-qparams --quanta-quantize --quanta-propagate-layout -o %t.int8.mlir
// RUN: for threads in 1 2 3 0; do \
// RUN:   quant-run %t.int8.mlir --guard-pages=after --num-threads=$threads --input=%quanta_src_root/examples/digits/test_images.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.out.$threads.npy || exit 1; \
// RUN: done
// RUN: cmp %t.out.1.npy %t.out.2.npy
// RUN: cmp %t.out.1.npy %t.out.3.npy
// RUN: cmp %t.out.1.npy %t.out.0.npy

// Kernels large enough for the threads to share (threads_kernels.py): a
// padded convolution whose row classes the chunks share by rows, one
// whose column groups they share (blocked by tap), a GEMM with rows and
// columns left to the last chunk, a depthwise convolution: the same bytes
// on 1, 2 and 3 threads (3: chunks of unequal sizes), and the kernels do
// run on threads (the OpenMP runtime is called).
// RUN: %python %S/Inputs/threads_kernels.py > %t.kernels.mlir
// RUN: %python %S/Inputs/random_arguments.py %t.kernels.mlir %t.kernels
// RUN: for e in conv_rows conv_columns gemm_rows_left depthwise; do \
// RUN:   for threads in 1 2 3; do \
// RUN:     quant-run %t.kernels.mlir --guard-pages=after --entry=$e --num-threads=$threads --pass-pipeline="builtin.module(quanta-lower-x86)" --input=%t.kernels.$e.0.npy --output=%t.kernels.$e.$threads.npy || exit 1; \
// RUN:   done; \
// RUN:   cmp %t.kernels.$e.1.npy %t.kernels.$e.2.npy && cmp %t.kernels.$e.1.npy %t.kernels.$e.3.npy && echo "$e same bytes" || exit 1; \
// RUN: done | FileCheck %s --check-prefix=KERNELS
// RUN: quant-compile %t.kernels.mlir --num-threads=2 --pass-pipeline="builtin.module(quanta-lower-x86)" -o %t.kernels.o
// RUN: llvm-nm %t.kernels.o | FileCheck %s --check-prefix=FORKS

// Negative: a thread count below 0, and threads under emulation.
// RUN: not quant-run %t.int8.mlir --num-threads=-1 --input=%quanta_src_root/examples/digits/test_images.npy 2>&1 | FileCheck %s --check-prefix=NEGATIVE
// RUN: not quant-run %t.int8.mlir --num-threads=2 --target-triple=aarch64-linux-gnu --input=%quanta_src_root/examples/digits/test_images.npy 2>&1 | FileCheck %s --check-prefix=EMULATED
// RUN: not quant-opt %t.cnn32.mlir --quanta-prepare --quanta-calibrate='data=%quanta_src_root/examples/digits/calibration/batch0.npy threads=-2' -o /dev/null 2>&1 | FileCheck %s --check-prefix=CALIBRATE

// FLOAT-COUNT-9: {{[a-z0-9_]+}} {{[023]}} equal
// KERNELS: conv_rows same bytes
// KERNELS: conv_columns same bytes
// KERNELS: gemm_rows_left same bytes
// KERNELS: depthwise same bytes
// FORKS: U __kmpc_fork_call
// FORKS-COUNT-4: omp_par
// NEGATIVE: quant-run: error: --num-threads must be >= 0, got -1
// EMULATED: error: --num-threads: there is no OpenMP runtime for aarch64-unknown-linux-gnu to link the emulated program with; run it with --num-threads=1
// CALIBRATE: error: quanta-calibrate: threads must be >= 0, got -2

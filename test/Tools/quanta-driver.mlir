// The quanta driver: a float model and calibration data to an object file
// and header, with a one-line summary per phase, the check against the
// float model and the float ops left with their reasons.
//
// RUN: rm -rf %t && mkdir -p %t/data
// RUN: %python -c "import numpy as np; rng = np.random.default_rng(0); [np.save('%t/data/batch%%d.npy' %% i, rng.standard_normal((4, 8)).astype(np.float32)) for i in range(12)]"
// RUN: quanta %s --data=%t/data -o %t/out/head.o | FileCheck %s
// CHECK: quanta: import       {{.*}}quanta-driver.mlir: head(2x8xf32) -> (2xf32)
// Files of twice the model's batch are two batches each; the last file
// (batch11.npy, in natural order) is held out.
// CHECK-NEXT: quanta: calibration  22 batch(es) from 11 file(s), qconfig x86
// CHECK-NEXT: quanta: conversion   int8, 1 float compute op(s) left
// CHECK-NEXT: quanta: float ops    'head': 1 float compute op(s) left (linalg.generic x1)
// CHECK-NEXT:   1 x stays float between dequantize and quantize: quanta-quantize has no integer form for 'linalg.generic' yet
// CHECK-NEXT: quanta: check        int8 vs float on {{.*}}batch11.npy, held out
// A result of rank 1 has no classes: no top-1 agreement.
// CHECK-NEXT:   SQNR {{[0-9]+\.[0-9]}} dB, max |error| {{[0-9.e+-]+}}{{$}}
// CHECK-NEXT: quanta: code         {{.*}}head.o, {{.*}}head.h for x86_64
// RUN: FileCheck %s --check-prefix=HEADER < %t/out/head.h
// HEADER: static inline void head_run(const float *arg0, float *result0)
//
// The per-layer report of the Python package, on the same data.
// RUN: quanta %s --data=%t/data -o %t/report.o --report=%t/report | FileCheck %s --check-prefix=REPORT
// REPORT: quanta: report       {{.*}}report/index.html
// RUN: FileCheck %s --check-prefix=PAGE < %t/report/index.html
// PAGE: quantization report
//
// The int8 IR before the kernels, and the q/dq model.
// RUN: quanta %s --data=%t/data --emit=mlir -o %t/head.int8.mlir | FileCheck %s --check-prefix=EMIT
// EMIT: quanta: output       {{.*}}head.int8.mlir (the int8 IR)
// RUN: FileCheck %s --check-prefix=INT8 < %t/head.int8.mlir
// INT8: quanta.qmatmul
// RUN: quanta %s --data=%t/data --emit=qdq-mlir -o %t/head.qdq.mlir --qconfig=qnnpack | FileCheck %s --check-prefix=QDQ
// QDQ: qconfig qnnpack
// QDQ: quanta: output       {{.*}}head.qdq.mlir (the q/dq model)
// RUN: FileCheck %s --check-prefix=QDQ-IR < %t/head.qdq.mlir
// QDQ-IR: quant.qcast
// QDQ-IR-NOT: quanta.qmatmul
//
// Globs and held-out data of one's own; every file then calibrates.
// RUN: quanta %s --data='%t/data/batch1*.npy' --check-data=%t/data/batch0.npy -o %t/glob.o | FileCheck %s --check-prefix=GLOB
// GLOB: calibration  6 batch(es) from 3 file(s)
// GLOB: check        int8 vs float on --check-data
//
// One file only: calibrated and checked on, and said so.
// RUN: quanta %s --data=%t/data/batch0.npy -o %t/one.o | FileCheck %s --check-prefix=ONE
// ONE: batch0.npy, also calibrated on: give --check-data for a held-out check
//
// An ONNX model's function is named after the file; the symbolic batch is
// 1 unless --onnx-batch says otherwise; an .npz of many arrays is a batch
// per array (np.savez(path, *batches)).
// RUN: %python -c "import numpy as np; np.savez('%t/many.npz', *[np.full((2, 1, 8, 8), i / 7, np.float32) for i in range(3)])"
// RUN: quanta %quanta_src_root/examples/digits/digits_cnn.onnx --data=%t/many.npz --onnx-batch=2 -o %t/digits.o | FileCheck %s --check-prefix=ONNX
// ONNX: digits_cnn(2x1x8x8xf32) -> (2x10xf32)
// ONNX: calibration  3 batch(es) from 1 file(s)
// ONNX: top-1 agreement {{[0-9.]+}}% of 6 rows
// RUN: FileCheck %s --check-prefix=ONNX-HEADER < %t/digits.h
// ONNX-HEADER: digits_cnn_run(
//
// A pre-quantized (QDQ) model keeps its own qparams: no observers, no
// calibration; every data file checks it, and the int8 model computes
// what its fake quantizations do.
// RUN: %python -c "import numpy as np; [np.save('%t/qdq%%d.npy' %% i, np.random.default_rng(i).uniform(-2, 2, (1, 3, 6, 6)).astype(np.float32)) for i in range(2)]"
// RUN: quanta %quanta_src_root/test/Import/Onnx/Inputs/qdq.onnx --data='%t/qdq*.npy' -o %t/qdq.o | FileCheck %s --check-prefix=QDQ-MODEL
// QDQ-MODEL: quanta: calibration  none: the model is pre-quantized (QDQ), its own qparams are used
// QDQ-MODEL: quanta: conversion   int8, 0 float compute op(s) left
// QDQ-MODEL: quanta: check        int8 vs float on {{.*}}qdq0.npy, {{.*}}qdq1.npy (
//
// A transformer: its symbolic dimensions bound by name, int64 token ids as
// calibration data (arrays of 2 batches of 1); every Linear becomes int8
// (the Q/K/V projection too, whose bias add follows a reshape at batch 1),
// and so are the attention products; what stays float is listed.
// RUN: %python -c "import numpy as np; [np.save('%t/ids%%d.npy' %% i, np.random.default_rng(i).integers(0, 100, (2, 16))) for i in range(3)]"
// RUN: quanta %quanta_src_root/test/Import/Onnx/Inputs/encoder_op17.onnx --onnx-dim=batch=1,seq=16 --data='%t/ids*.npy' -o %t/encoder.o | FileCheck %s --check-prefix=ENCODER
// ENCODER: encoder_op17(1x16xi64) -> (1x10xf32)
// ENCODER: calibration  4 batch(es) from 2 file(s)
// ENCODER: float ops    'encoder_op17': {{[0-9]+}} float compute op(s) left (linalg.generic x{{[0-9]+}})
// ENCODER: SQNR {{[0-9.]+}} dB
// RUN: FileCheck %s --check-prefix=ENCODER-HEADER < %t/encoder.h
// ENCODER-HEADER: encoder_op17_run(const int64_t *

#map = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @head(%x: tensor<2x8xf32>) -> tensor<2xf32> {
  %w = arith.constant dense<[[0.5, -0.25, 0.125, 1.0], [0.25, 0.5, -1.0, 0.75],
                             [-0.5, 0.25, 0.5, -0.125], [1.0, -0.75, 0.25, 0.5],
                             [0.125, 0.5, -0.25, 1.0], [-1.0, 0.25, 0.75, -0.5],
                             [0.5, 0.5, -0.5, 0.25], [0.75, -0.25, 0.125, -1.0]]>
      : tensor<8x4xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x4xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x4xf32>) -> tensor<2x4xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x8xf32>, tensor<8x4xf32>)
                      outs(%fill : tensor<2x4xf32>) -> tensor<2x4xf32>
  %rows = tensor.empty() : tensor<2xf32>
  %rowsFill = linalg.fill ins(%zero : f32) outs(%rows : tensor<2xf32>) -> tensor<2xf32>
  // A sum of exponentials: no integer form, so it stays float.
  %sum = linalg.generic {indexing_maps = [#map, #row],
                         iterator_types = ["parallel", "reduction"]}
      ins(%mm : tensor<2x4xf32>) outs(%rowsFill : tensor<2xf32>) {
  ^bb0(%in: f32, %acc: f32):
    %e = math.exp %in : f32
    %s = arith.addf %e, %acc : f32
    linalg.yield %s : f32
  } -> tensor<2xf32>
  return %sum : tensor<2xf32>
}

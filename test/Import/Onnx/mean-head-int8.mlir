// A classifier head with ReduceMean over H and W (how many exporters
// write global average pooling): the mean imports as an average pooling, so
// the whole model ends as integer code (conv + relu and the fully
// connected layer as int8 GEMMs, the mean as i32 window sums requantized
// once), within 1 LSB of the q/dq model run in float.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(4); [np.save('%t.cal%d.npy' % i, r.standard_normal((2, 3, 5, 5)).astype(np.float32)) for i in range(4)]"
// RUN: quant-translate --import-onnx %S/Inputs/mean_head.onnx | FileCheck %s --check-prefix=IMPORT
// RUN: quant-translate --import-onnx %S/Inputs/mean_head.onnx --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy,%t.cal3.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --output=%t.ref.npy
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-x86)' --output=%t.int.npy
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); step = np.diff(np.unique(np.concatenate([a.ravel(), b.ravel()]))).min(); print('max difference', int(np.round(np.abs(a - b).max() / step)), 'steps of', a.size)" %t.int.npy %t.ref.npy | FileCheck %s --check-prefix=EXEC

// IMPORT: linalg.pooling_nchw_sum {{.*}} ins(%{{.*}}, %{{.*}} : tensor<2x6x5x5xf32>, tensor<5x5xf32>) {{.*}} -> tensor<2x6x1x1xf32>
// IMPORT: arith.constant 2.500000e+01 : f32
// IMPORT: arith.divf
// REMARK: remark: quanta-quantize: 0 float compute op(s) left
// REMARK-NOT: stays float
// EXEC: max difference {{0|1}} steps of 8

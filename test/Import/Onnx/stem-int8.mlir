// ResNet's stem (conv 7x7/2, relu, max pool 3x3/2 with its own -inf
// padding, conv): the pool shares the relu's observer through its padding
// (which PyTorch never observes), everything ends as integer code, equal
// to the q/dq model run in float.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(6); [np.save('%t.cal%d.npy' % i, r.standard_normal((1, 3, 16, 16)).astype(np.float32)) for i in range(3)]"
// RUN: quant-translate --import-onnx %S/Inputs/stem.onnx --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=x86 | FileCheck %s --check-prefix=OBSERVED
// RUN: quant-translate --import-onnx %S/Inputs/stem.onnx --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --output=%t.ref.npy
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --pass-pipeline='builtin.module(quanta-quantize,quanta-propagate-layout,quanta-lower-x86)' --output=%t.int.npy
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('equal' if np.array_equal(a, b) else 'DIFFERENT', a.size)" %t.int.npy %t.ref.npy | FileCheck %s --check-prefix=EXEC

// No observer on the pads; the pool's output reuses the relu's.
// OBSERVED-NOT: name = "{{.*}}pad{{.*}}"
// OBSERVED: name = "conv1.output", observer = #quanta.histogram<reduce_range = true>
// OBSERVED: name = "maxpool.pooling_nchw_max.output", observer = #quanta.reuse_input
// REMARK: remark: quanta-quantize: 0 float compute op(s) left
// REMARK-NOT: stays float
// EXEC: equal 128

// Activations after convolutions, as ONNX writes them: PTQ gives each the
// observer PyTorch 1.13's backend config does (HardSwish and LeakyRelu their
// own, Sigmoid and HardSigmoid fixed qparams in [0, 1], Tanh in [-1, 1]),
// and quanta-quantize turns each into a 256-entry table: no float compute
// left, and the int8 model equals the q/dq model run in float.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(2); [np.save('%t.cal%d.npy' % i, r.standard_normal((2, 1, 6, 6)).astype(np.float32)) for i in range(4)]"
// RUN: quant-translate --import-onnx %S/Inputs/activations.onnx --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=qnnpack | FileCheck %s --check-prefix=OBSERVED
// RUN: quant-translate --import-onnx %S/Inputs/activations.onnx --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=qnnpack data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy,%t.cal3.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --output=%t.ref.npy
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-x86)' --output=%t.int.npy
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('equal' if np.array_equal(a, b) else 'DIFFERENT', a.size, len(np.unique(b)) > 10)" %t.int.npy %t.ref.npy | FileCheck %s --check-prefix=EXEC

// OBSERVED: name = "hswish.output", observer = #quanta.histogram<>
// OBSERVED: name = "leaky.output", observer = #quanta.histogram<>
// OBSERVED: name = "sigmoid.output", observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>
// OBSERVED: name = "hsigmoid.output", observer = #quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>
// OBSERVED: name = "tanh.output", observer = #quanta.fixed_qparams<scale = 0.0078125, zero_point = 128
// REMARK: remark: quanta-quantize: 0 float compute op(s) left
// REMARK-NOT: stays float
// EXEC: equal 288 True

// nn.LayerNorm exported before opset 17 (ReduceMean, Sub, Pow 2,
// ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta) imports as the
// LayerNormalization node it writes out, over the same trailing axes (one
// or two), named as an opset-17 export names it; a decomposition whose
// centered values are read elsewhere (a graph output here) stays node by
// node. The float model equals NumPy's float64 layer norm within 1e-5.
// Calibration observes the layer norm's output only, as PyTorch observes
// a LayerNorm module's: not its row sums, which one per-tensor scale
// would round to 0 for rows 100x smaller than the others (the second
// image of the input), whose int8 outputs would be noise.
// RUN: quant-translate --import-onnx %S/Inputs/layer_norm13.onnx --mlir-print-debuginfo | FileCheck %s --check-prefix=IMPORT
// RUN: quant-translate --import-onnx %S/Inputs/layer_norm13.onnx --mlir-print-debuginfo | quant-opt --quanta-prepare=qconfig=x86 | FileCheck %s --check-prefix=OBSERVED
// RUN: quant-run %S/Inputs/layer_norm13.onnx --input=%S/Inputs/layer_norm13_x.npy --output=%t.y1.npy --output=%t.y2.npy --output=%t.y3.npy --output=%t.d.npy
// RUN: %python -c "import sys, numpy as np; e = np.load(sys.argv[1]); y = [np.load(p) for p in sys.argv[2:]]; print('float', *('equal' if np.allclose(a, b, rtol=1e-5, atol=1e-5) else 'DIFFERENT' for a, b in zip(y, e)))" %S/Inputs/layer_norm13_expected.npy %t.y1.npy %t.y2.npy | FileCheck %s --check-prefix=FLOAT
// RUN: %python -c "import numpy as np; r = np.random.default_rng(4); x = np.load('%S/Inputs/layer_norm13_x.npy'); [np.save('%t.cal%d.npy' % i, (x * r.uniform(0.5, 2, (2, 1, 1))).astype(np.float32)) for i in range(4)]"
// RUN: quant-translate --import-onnx %S/Inputs/layer_norm13.onnx --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy,%t.cal3.npy quiet' --quanta-quantize -o %t.int8.mlir
// RUN: quant-run %t.int8.mlir --input=%S/Inputs/layer_norm13_x.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.q1.npy --output=%t.q2.npy --output=%t.q3.npy --output=%t.qd.npy
// RUN: %python -c "import sys, numpy as np; f, q = np.load(sys.argv[1]), np.load(sys.argv[2]); s = [10 * np.log10((f[i] ** 2).sum() / ((f[i] - q[i]) ** 2).sum()) for i in range(2)]; print('int8 sqnr per image', 'above 20 dB' if min(s) > 20 else 'TOO LOW %%s' %% s)" %t.y1.npy %t.q1.npy | FileCheck %s --check-prefix=INT8

// IMPORT-NOT: loc("/ln/Pow"
// IMPORT-NOT: loc("/ln2/Pow"
// IMPORT-DAG: loc("/ln/LayerNormalization"
// IMPORT-DAG: loc("/ln2/LayerNormalization"
// IMPORT-DAG: loc("/ln3/Pow"

// OBSERVED: name = "/ln/LayerNormalization.output"
// OBSERVED-NOT: /ln/LayerNormalization.output_1
// OBSERVED: name = "/ln2/LayerNormalization.output"
// OBSERVED-NOT: /ln2/LayerNormalization.output_1
// OBSERVED: name = "/ln3/ReduceMean_1.output"

// FLOAT: float equal equal
// INT8: int8 sqnr per image above 20 dB

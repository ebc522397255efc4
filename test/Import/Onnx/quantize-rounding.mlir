// ONNX's QuantizeLinear rounds x / scale half to even; Quanta quantizes as
// PyTorch does, x * (1 / scale) rounded half to even, both in float32. The
// two differ by one step where x / scale lies within a float rounding of
// a tie: on the ties of scale 0.0235 and their float neighbours
// (Inputs/quantize_rounding_x.npy; the expected bytes are ONNX's formula),
// 54 of 1000 values, and never by more than 1. Quanta's output equals
// PyTorch's quantize_per_tensor everywhere.
// RUN: quant-run %S/Inputs/quantize_rounding.onnx --input=%S/Inputs/quantize_rounding_x.npy --output=%t.npy
// RUN: %python -c "import sys, numpy as np; x, q, onnx = (np.load(p) for p in sys.argv[1:4]); torch = np.clip(np.rint(x * (np.float32(1) / np.float32(0.0235))) + 128, 0, 255).astype(np.uint8); d = np.abs(q.astype(int) - onnx.astype(int)); print(q.dtype, int((d == 0).sum()), 'of', d.size, 'equal to ONNX, max difference', int(d.max()), '; equal to PyTorch:', bool((q == torch).all()))" %S/Inputs/quantize_rounding_x.npy %t.npy %S/Inputs/quantize_rounding_onnx.npy | FileCheck %s
// CHECK: uint8 946 of 1000 equal to ONNX, max difference 1 ; equal to PyTorch: True

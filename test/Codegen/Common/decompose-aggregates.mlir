// RUN: quant-opt %s --quanta-decompose-aggregates | FileCheck %s
// linalg.softmax (which a front end may emit; upstream decomposes it only
// through the transform dialect) becomes its max, exp(x - max), sum and
// division, so that the lowering to LLVM compiles it: before, quant-run
// failed with "LLVM Translation failed for operation:
// builtin.unrealized_conversion_cast". It runs equal to NumPy's softmax,
// a NaN spreading over its row as in PyTorch.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([[1, 2, 3, 4, np.nan], [0, -1, 5, 2, 2]], np.float32))"
// RUN: quant-run %s --input=%t.x.npy --output=%t.y.npy
// RUN: %python -c "import numpy as np; x = np.load('%t.x.npy').astype(np.float64); e = np.exp(x - x.max(1, keepdims=True)); r = e / e.sum(1, keepdims=True); y = np.load('%t.y.npy'); print('same' if np.allclose(y, r, rtol=1e-6, equal_nan=True) else 'DIFFERENT', np.isnan(y[0]).all())" | FileCheck %s --check-prefix=NUMPY
// NUMPY: same True

// CHECK-LABEL: func.func @main
// CHECK-NOT: linalg.softmax
// CHECK: arith.maxnumf
// CHECK: math.exp
// CHECK: arith.addf
// CHECK: arith.divf
func.func @main(%x: tensor<2x5xf32>) -> tensor<2x5xf32> {
  %e = tensor.empty() : tensor<2x5xf32>
  %r = linalg.softmax dimension(1) ins(%x : tensor<2x5xf32>) outs(%e : tensor<2x5xf32>) -> tensor<2x5xf32>
  return %r : tensor<2x5xf32>
}

#!/usr/bin/env python3
"""Writes the quant-run execution test of the f32 matmul lowering: a module
of linalg.matmul with constant weights (odd sizes, K = 1, N past the
one-row tile's 64 columns, an init tensor that is not zero), the inputs and
the expected outputs as .npy. The values are small integers, so every
partial sum is exact in float32 whatever the order and rounding (FMA or
not): the expectation, computed here in NumPy int64, must match bit for
bit, and any indexing, packing or masking error shows.

    /usr/bin/python3 scripts/goldens/gen_float_matmul_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import nested, write_exec_cases

CASES = [  # name, M, K, N
    ("odd", 5, 7, 3),
    ("tiles", 13, 33, 40),
    ("k1", 1, 1, 1),
    ("wide", 9, 300, 70),
    # One-row tiles only (M < 6), N = 64 + 36: a full 64-column tile and a
    # masked one.
    ("rows", 3, 17, 100),
    # M a multiple of both main tiles (6 x 2 ymm, 8 x 2 zmm), N of 16.
    ("whole", 24, 8, 32),
]


def literal(values):
    return nested([f"{float(v):.1f}" for v in values.reshape(-1)],
                  values.shape)


def case(rng, name, m, k, n):
    a = rng.integers(-8, 9, size=(m, k))
    w = rng.integers(-8, 9, size=(k, n))
    bias = rng.integers(-100, 101, size=n)
    expected = a @ w + bias
    assert np.abs(expected).max() < 2**24
    func = f"""
func.func @{name}(%a: tensor<{m}x{k}xf32>) -> tensor<{m}x{n}xf32> {{
  %w = arith.constant dense<{literal(w)}> : tensor<{k}x{n}xf32>
  %bias = arith.constant dense<{literal(bias)}> : tensor<{n}xf32>
  %e = tensor.empty() : tensor<{m}x{n}xf32>
  %init = linalg.broadcast ins(%bias : tensor<{n}xf32>) outs(%e : tensor<{m}x{n}xf32>) dimensions = [0]
  %r = linalg.matmul ins(%a, %w : tensor<{m}x{k}xf32>, tensor<{k}x{n}xf32>) outs(%init : tensor<{m}x{n}xf32>) -> tensor<{m}x{n}xf32>
  return %r : tensor<{m}x{n}xf32>
}}
"""
    return func, a.astype(np.float32), expected.astype(np.float32)


def main():
    write_exec_cases(sys.argv[1], "float_matmul", case, CASES, 20261121)


if __name__ == "__main__":
    main()

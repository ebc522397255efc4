#!/usr/bin/env python3
"""Writes the quant-run execution test of the f32 matmul lowering: a module
of linalg.matmul with constant weights (odd sizes, K = 1, N past the
one-row tile's 64 columns, an init tensor that is not zero; weights [N, K]
through a transposed map, a batch_matmul whose weights are broadcast
over the batch, and products of two arguments), the inputs and
the expected outputs as .npy. The values are small integers, so every
partial sum is exact in float32 whatever the order and rounding (FMA or
not): the expectation, computed here in NumPy int64, must match bit for
bit, and any indexing, packing or masking error shows.

    /usr/bin/python3 scripts/goldens/gen_float_matmul_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import nested, write_exec_cases

CASES = [  # name, M, K, N[, weight layout]
    ("odd", 5, 7, 3),
    ("tiles", 13, 33, 40),
    ("k1", 1, 1, 1),
    ("wide", 9, 300, 70),
    # One-row tiles only (M < 6), N = 64 + 36: a full 64-column tile and a
    # masked one.
    ("rows", 3, 17, 100),
    # M a multiple of both main tiles (6 x 2 ymm, 8 x 2 zmm), N of 16.
    ("whole", 24, 8, 32),
    # A fully connected layer's [N, K] weights (PyTorch's Linear).
    ("transposed", 7, 19, 23, "nk"),
    # Three batches of 5 rows by [K, N] weights broadcast over the batch.
    ("batch", 5, 12, 20, "batch3"),
    # Products of two arguments (attention's Q.K^T and P.V), B packed at
    # run time: a matrix, and three batches each with its own B.
    ("activations", 9, 70, 37, "argument"),
    ("activation_batch", 7, 5, 19, "argument_batch3"),
]

MAPS = {
    "nk": ("affine_map<(m, n, k) -> (m, k)>, affine_map<(m, n, k) -> (n, k)>, "
           "affine_map<(m, n, k) -> (m, n)>"),
    "batch3": ("affine_map<(b, m, n, k) -> (b, m, k)>, "
               "affine_map<(b, m, n, k) -> (k, n)>, "
               "affine_map<(b, m, n, k) -> (b, m, n)>"),
}


def literal(values):
    return nested([f"{float(v):.1f}" for v in values.reshape(-1)],
                  values.shape)


def case(rng, name, m, k, n, layout="kn"):
    batch = 3 if layout.endswith("batch3") else None
    argument = layout.startswith("argument")
    rows = (batch, m) if batch else (m,)
    a = rng.integers(-8, 9, size=rows + (k,))
    w = rng.integers(-8, 9, size=(batch, k, n) if argument and batch else
                     (k, n))
    bias = rng.integers(-100, 101, size=n)
    expected = a @ w + bias
    assert np.abs(expected).max() < 2**24
    stored = w.T if layout == "nk" else w
    a_type = "x".join(map(str, rows + (k,)))
    r_type = "x".join(map(str, rows + (n,)))
    w_type = "x".join(map(str, stored.shape))
    op = "linalg.batch_matmul" if batch else "linalg.matmul"
    maps = f" indexing_maps = [{MAPS[layout]}]" if layout in MAPS else ""
    if argument:
        weights = ""
        arguments = f"%a: tensor<{a_type}xf32>, %w: tensor<{w_type}xf32>"
        inputs = (a.astype(np.float32), w.astype(np.float32))
    else:
        weights = (f"\n  %w = arith.constant dense<{literal(stored)}> : "
                   f"tensor<{w_type}xf32>")
        arguments = f"%a: tensor<{a_type}xf32>"
        inputs = a.astype(np.float32)
    func = f"""
func.func @{name}({arguments}) -> tensor<{r_type}xf32> {{{weights}
  %bias = arith.constant dense<{literal(bias)}> : tensor<{n}xf32>
  %e = tensor.empty() : tensor<{r_type}xf32>
  %init = linalg.broadcast ins(%bias : tensor<{n}xf32>) outs(%e : tensor<{r_type}xf32>) dimensions = [{", ".join(map(str, range(len(rows))))}]
  %r = {op}{maps} ins(%a, %w : tensor<{a_type}xf32>, tensor<{w_type}xf32>) outs(%init : tensor<{r_type}xf32>) -> tensor<{r_type}xf32>
  return %r : tensor<{r_type}xf32>
}}
"""
    return func, inputs, expected.astype(np.float32)


def main():
    write_exec_cases(sys.argv[1], "float_matmul", case, CASES, 20261121)


if __name__ == "__main__":
    main()

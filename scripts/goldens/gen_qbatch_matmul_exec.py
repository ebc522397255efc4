#!/usr/bin/env python3
"""Writes the quant-run execution test of quanta.qbatch_matmul (products of
two quantized activations): a module with random batched products and their
inputs (.npz: lhs, rhs) and expected outputs (.npy), the expectation
computed here in NumPy int64 arithmetic from the op's documented semantics
(independent of Quanta's C++). The cases cover u8<0:127> operands (x86's
reduce_range, which AVX2 multiplies with vpmaddubsw), full-range u8 rhs
(whose sign bit the kernels flip), s8 operands with zero points, an s8
output narrower than its storage, odd sizes and rows at the range ends.

    /usr/bin/python3 scripts/goldens/gen_qbatch_matmul_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import write_exec_cases

STORAGE = {"u8": (0, 255), "u8<0:127>": (0, 127), "i8": (-128, 127)}

CASES = [  # name, B, M, K, N, lhs, rhs, output storage
    ("reduced_u8", 3, 5, 7, 3, "u8<0:127>", "u8<0:127>", "u8<0:127>"),
    ("full_u8", 2, 13, 33, 40, "u8", "u8", "u8"),
    ("s8", 4, 9, 64, 24, "i8", "i8", "i8"),
    ("mixed", 2, 17, 100, 70, "u8", "i8", "u8"),
    ("one", 1, 1, 1, 1, "u8", "u8", "u8"),
]


def case(rng, name, batches, m, k, n, lhs_storage, rhs_storage, out_storage):
    (alo, ahi), (blo, bhi) = STORAGE[lhs_storage], STORAGE[rhs_storage]
    olo, ohi = STORAGE[out_storage]
    a = rng.integers(alo, ahi + 1, size=(batches, m, k))
    b = rng.integers(blo, bhi + 1, size=(batches, k, n))
    a[:, 0, :] = ahi
    if m > 1:
        a[:, 1, :] = alo
    b[:, :, 0] = blo
    za = int(rng.integers(alo, ahi + 1))
    zb = int(rng.integers(blo, bhi + 1))
    zo = int(rng.integers(olo, ohi + 1))
    acc = np.einsum("bmk,bkn->bmn", a - za, b - zb)
    # A multiplier that spreads the outputs over the range, and saturates
    # some: about 4 steps per standard deviation of the accumulators.
    real = 4.0 / max(1.0, acc.std())
    mantissa, exponent = np.frexp(real)
    multiplier = min(int(round(mantissa * (1 << 31))), (1 << 31) - 1)
    shift = int(exponent)
    out_min, out_max = (olo, ohi) if out_storage != "i8" else (-100, 120)
    t = 31 - shift
    out = np.clip(((acc * multiplier + (1 << (t - 1))) >> t) + zo, out_min,
                  out_max)

    def qtype(storage, zero_point, scale):
        return f"!quant.uniform<{storage}:f32, {scale}:{zero_point}>"

    lt, rt, ot = (qtype(lhs_storage, za, 0.05), qtype(rhs_storage, zb, 0.02),
                  qtype(out_storage, zo, 0.1))
    func = f"""
func.func @{name}(%a: tensor<{batches}x{m}x{k}xi8>, %b: tensor<{batches}x{k}x{n}xi8>) -> tensor<{batches}x{m}x{n}xi8> {{
  %qa = quant.scast %a : tensor<{batches}x{m}x{k}xi8> to tensor<{batches}x{m}x{k}x{lt}>
  %qb = quant.scast %b : tensor<{batches}x{k}x{n}xi8> to tensor<{batches}x{k}x{n}x{rt}>
  %r = quanta.qbatch_matmul %qa, %qb {{multiplier = {multiplier} : i32, shift = {shift} : i32, output_min = {out_min} : i32, output_max = {out_max} : i32}} : tensor<{batches}x{m}x{k}x{lt}>, tensor<{batches}x{k}x{n}x{rt}> -> tensor<{batches}x{m}x{n}x{ot}>
  %s = quant.scast %r : tensor<{batches}x{m}x{n}x{ot}> to tensor<{batches}x{m}x{n}xi8>
  return %s : tensor<{batches}x{m}x{n}xi8>
}}
"""

    def stored(values, storage):
        return values.astype(np.int8 if storage == "i8" else np.uint8)

    # quant-run reads and writes i8 storage as int8.
    return (func,
            (stored(a, lhs_storage).view(np.int8),
             stored(b, rhs_storage).view(np.int8)),
            stored(out, out_storage).view(np.int8))


def main():
    write_exec_cases(sys.argv[1], "qbatch_matmul", case, CASES, 20261128)


if __name__ == "__main__":
    main()

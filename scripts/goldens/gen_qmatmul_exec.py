#!/usr/bin/env python3
"""Writes the quant-run execution test of quanta.qmatmul: a module with
random integer GEMMs (odd sizes, K = 1, N a multiple of one tile width only,
s8 and u8 inputs, per-channel requantization with shifts at both ends) and their inputs and expected outputs as .npy, the
expectation computed here in NumPy int64 arithmetic from the op's
documented semantics (independent of Quanta's C++). Rows of the input sit
at the range ends and the requantization saturates, to cover the edges.

    /usr/bin/python3 scripts/goldens/gen_qmatmul_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import write_exec_cases

CASES = [  # name, M, K, N, input storage
    ("odd_u8", 5, 7, 3, "u8"),
    ("tiles_s8", 13, 33, 40, "i8"),
    ("k1_u8", 1, 1, 1, "u8"),
    ("wide_u8", 9, 300, 70, "u8"),
    # N a multiple of the AVX2 tile's 16 columns but not of the 1-row
    # tile's 32 (writes past N once overwrote the next rows), K unpadded.
    ("n16_u8", 8, 8, 16, "u8"),
    ("n48_s8", 6, 16, 48, "i8"),
    # The extreme shifts of the high-word epilogue: t = 62 and t = 32.
    ("shift_ends_u8", 6, 40, 24, "u8", [-31, -1, -1, -20]),
    # Real multipliers of 0.5 and above (t <= 31, up to t = 1 whose product
    # saturates i32) force the 64-bit epilogue; small weights keep most
    # outputs inside the range.
    ("wide_shift_s8", 7, 3, 24, "i8", [-1, 0, 1, 30], 2),
    # Every t >= 33: the rounding added to the high words, t = 33 (a
    # rounding of 1) among them; with t = 62 the zero point 250 * 2^30 does
    # not fit the rounding constant and is added after the shift...
    ("high_rounding_u8", 6, 40, 24, "u8", [-2, -31, -20], 128, 250),
    # ... and with t <= 51 it does: folded into it.
    ("high_rounding_zo_u8", 6, 40, 24, "u8", [-2, -20, -10], 128, 250),
    # Fewer rows than the exact AVX2 path's tile (4): it reads s8 weights
    # and widens them in registers.
    ("rows_exact_u8", 3, 37, 24, "u8"),
    # An s8 output with a range narrower than its storage: the x86 packs
    # saturate to s8 and the bytes are clamped; N = 37 ends in a partial
    # pair of strips.
    ("s8_out_u8", 11, 29, 37, "u8", None, 128, -5, "i8"),
    # Per-column weight zero points: the epilogue subtracts zw * rowsum.
    ("weight_zp_s8", 9, 21, 40, "i8", None, 128, 7, "u8", True),
    # Single rows (GEMVs: AArch64's i8mm takes sdot's one-row tile, 6 strips
    # and 2 accumulator sets): K with groups left after the sets' steps, N
    # ending inside the tile.
    ("gemv_u8", 1, 300, 70, "u8"),
    ("gemv_s8", 1, 1030, 30, "i8"),
]


def case(rng, name, m, k, n, storage, shifts=None, weight_max=128, zo=7,
         out_storage="u8", weight_zps=False):
    lo, hi = (-128, 127) if storage == "i8" else (0, 255)
    a = rng.integers(lo, hi + 1, size=(m, k))
    a[0, :] = hi
    if m > 1:
        a[1, :] = lo
    w = rng.integers(-weight_max, weight_max, size=(k, n))
    w[:, 0] = -weight_max
    mult = rng.integers(1 << 30, (1 << 31) - 1, size=n)
    shift = (rng.integers(-16, -6, size=n) if shifts is None
             else rng.choice(shifts, size=n))
    off = rng.integers(-50000, 50000, size=n) * weight_max // 128
    out_min, out_max = (3, 250) if out_storage == "u8" else (-100, 120)
    wz = rng.integers(-20, 21, size=n) if weight_zps else np.zeros(1, int)
    acc = a @ w + off - a.sum(axis=1, keepdims=True) * wz
    t = 31 - shift
    out = np.clip(((acc * mult + (1 << (t - 1))) >> t) + zo, out_min, out_max)
    weights = "[" + ", ".join(
        "[" + ", ".join(str(v) for v in row) + "]" for row in w) + "]"

    def array(values):
        return "array<i32: " + ", ".join(str(int(v)) for v in values) + ">"

    func = f"""
func.func @{name}(%a: tensor<{m}x{k}xi8>) -> tensor<{m}x{n}xi8> {{
  %q = quant.scast %a : tensor<{m}x{k}xi8> to tensor<{m}x{k}x!quant.uniform<{storage}:f32, 0.05:3>>
  %r = quanta.qmatmul %q {{weights = dense<{weights}> : tensor<{k}x{n}xi8>, weight_zero_points = {array(wz)}, column_offsets = {array(off)}, multipliers = {array(mult)}, shifts = {array(shift)}, output_min = {out_min} : i32, output_max = {out_max} : i32}} : tensor<{m}x{k}x!quant.uniform<{storage}:f32, 0.05:3>> -> tensor<{m}x{n}x!quant.uniform<{out_storage}:f32, 0.1:{zo}>>
  %s = quant.scast %r : tensor<{m}x{n}x!quant.uniform<{out_storage}:f32, 0.1:{zo}>> to tensor<{m}x{n}xi8>
  return %s : tensor<{m}x{n}xi8>
}}
"""
    dtype = np.int8 if storage == "i8" else np.uint8
    # quant-run writes the i8 storage of the result as int8.
    out_dtype = np.int8 if out_storage == "i8" else np.uint8
    return func, a.astype(dtype), out.astype(out_dtype).view(np.int8)


def main():
    write_exec_cases(sys.argv[1], "qmatmul", case, CASES, 20261121)


if __name__ == "__main__":
    main()

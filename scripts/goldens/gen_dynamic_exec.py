#!/usr/bin/env python3
"""Generates test/Tools/Inputs/dynamic_linear_exec.mlir and its inputs and
expected outputs from PyTorch 1.13.

Run once with Debian's Python: /usr/bin/python3 scripts/goldens/gen_dynamic_exec.py

Each function is a float Linear layer in one of the forms the importers
write (a matmul from zero then a bias add, ONNX's Gemm; weights [N, K]
through transposed maps with the bias in the accumulator, PyTorch's Linear;
a [B, S, K] input collapsed, multiplied, expanded, then Add, ONNX's MatMul;
no bias). quant-run applies quanta-quantize-dynamic{engine, qconfig} and
the kernels to it; the expected outputs are those of
torch.ao.nn.quantized.dynamic.Linear (quantize_dynamic) on the same weights
and input, one file per engine (onednn, qnnpack) and qconfig
(default_dynamic, per_channel_dynamic). Where PyTorch raises (a NaN in the
input) the kernel's documented result, every output NaN, is expected.

It also writes weight_only_exec.mlir: Linear layers for
qconfig=float16_dynamic, weight_only_int8, weight_only_int4 and
weight_only_bf16 (bf16 weights rounded to nearest even, ties included;
Quanta's: PyTorch 1.13 has no such qconfig), bf16_dot (bf16
activations too, pairs summed as AVX512-BF16's vdpbf16ps does: random
inputs, the expected values that order's, bf16_dot_expected) and
int4_dynamic (4-bit weights, the input quantized to s8 per group: random
inputs, rounding ties, zero, tiny and non-finite groups, the expected
values the op's formula, int4_dynamic_expected) (PyTorch
1.13 here runs
neither: its fp16 Linear needs FBGEMM), whose values are chosen so that
every sum is exact in f32 (small integer inputs, weights multiples of 1/4
or of a power-of-two scale): the expectation, computed in NumPy, must match
bit for bit whatever the summation order, and any packing, widening or
epilogue error shows. One f16 weight lies beyond 65504, which the pass
clamps as PyTorch's fp16 prepack does.
"""
import os
import sys
import warnings
from fractions import Fraction

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(__file__))
from gen_dynamic_goldens import dynamic_linear  # noqa: E402

warnings.filterwarnings("ignore")
OUT = os.path.join(os.path.dirname(__file__), "..", "..", "test", "Tools",
                   "Inputs")
PREFIX = "dynamic_linear"
CONFIGS = [(engine, qconfig) for engine in ["onednn", "qnnpack"]
           for qconfig in ["default_dynamic", "per_channel_dynamic"]]


def hex_constant(array):
    return 'dense<"0x%s">' % np.ascontiguousarray(
        array, "<f4").tobytes().hex().upper()


def tensor(*shape):
    return "tensor<%sxf32>" % "x".join(str(s) for s in shape)


def gemm_form(name, m, k, n, weight, bias):
    """matmul of [K, N] weights from a zero fill, then a bias add."""
    body = [f"  %w = arith.constant {hex_constant(weight.T)} : {tensor(k, n)}",
            "  %zero = arith.constant 0.0 : f32",
            f"  %e = tensor.empty() : {tensor(m, n)}",
            f"  %init = linalg.fill ins(%zero : f32) outs(%e : {tensor(m, n)}) -> {tensor(m, n)}",
            f"  %mm = linalg.matmul ins(%x, %w : {tensor(m, k)}, {tensor(k, n)}) outs(%init : {tensor(m, n)}) -> {tensor(m, n)}"]
    result = "%mm"
    if bias is not None:
        body += [f"  %b = arith.constant {hex_constant(bias)} : {tensor(n)}",
                 f"  %e2 = tensor.empty() : {tensor(m, n)}",
                 "  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0, d1)>, "
                 "affine_map<(d0, d1) -> (d1)>, affine_map<(d0, d1) -> (d0, d1)>], "
                 "iterator_types = [\"parallel\", \"parallel\"]} "
                 f"ins(%mm, %b : {tensor(m, n)}, {tensor(n)}) outs(%e2 : {tensor(m, n)}) {{",
                 "  ^bb0(%a: f32, %c: f32, %o: f32):",
                 "    %s = arith.addf %a, %c : f32",
                 "    linalg.yield %s : f32",
                 f"  }} -> {tensor(m, n)}"]
        result = "%r"
    return (f"func.func @{name}(%x: {tensor(m, k)}) -> {tensor(m, n)} {{\n"
            + "\n".join(body) + f"\n  return {result} : {tensor(m, n)}\n}}\n")


def linear_form(name, m, k, n, weight, bias):
    """[N, K] weights through transposed maps, bias broadcast into the
    accumulator."""
    return f"""func.func @{name}(%x: {tensor(m, k)}) -> {tensor(m, n)} {{
  %w = arith.constant {hex_constant(weight)} : {tensor(n, k)}
  %b = arith.constant {hex_constant(bias)} : {tensor(n)}
  %e = tensor.empty() : {tensor(m, n)}
  %init = linalg.broadcast ins(%b : {tensor(n)}) outs(%e : {tensor(m, n)}) dimensions = [0]
  %r = linalg.matmul indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d2)>, affine_map<(d0, d1, d2) -> (d1, d2)>, affine_map<(d0, d1, d2) -> (d0, d1)>] ins(%x, %w : {tensor(m, k)}, {tensor(n, k)}) outs(%init : {tensor(m, n)}) -> {tensor(m, n)}
  return %r : {tensor(m, n)}
}}
"""


def matmul_add_form(name, batch, seq, k, n, weight, bias):
    """ONNX's MatMul of a [B, S, K] input, then Add."""
    m = batch * seq
    return f"""func.func @{name}(%x: {tensor(batch, seq, k)}) -> {tensor(batch, seq, n)} {{
  %w = arith.constant {hex_constant(weight.T)} : {tensor(k, n)}
  %b = arith.constant {hex_constant(bias)} : {tensor(n)}
  %zero = arith.constant 0.0 : f32
  %rows = tensor.collapse_shape %x [[0, 1], [2]] : {tensor(batch, seq, k)} into {tensor(m, k)}
  %e = tensor.empty() : {tensor(m, n)}
  %init = linalg.fill ins(%zero : f32) outs(%e : {tensor(m, n)}) -> {tensor(m, n)}
  %mm = linalg.matmul ins(%rows, %w : {tensor(m, k)}, {tensor(k, n)}) outs(%init : {tensor(m, n)}) -> {tensor(m, n)}
  %y = tensor.expand_shape %mm [[0, 1], [2]] output_shape [{batch}, {seq}, {n}] : {tensor(m, n)} into {tensor(batch, seq, n)}
  %e2 = tensor.empty() : {tensor(batch, seq, n)}
  %r = linalg.generic {{indexing_maps = [affine_map<(d0, d1, d2) -> (d0, d1, d2)>, affine_map<(d0, d1, d2) -> (d2)>, affine_map<(d0, d1, d2) -> (d0, d1, d2)>], iterator_types = ["parallel", "parallel", "parallel"]}} ins(%y, %b : {tensor(batch, seq, n)}, {tensor(n)}) outs(%e2 : {tensor(batch, seq, n)}) {{
  ^bb0(%a: f32, %c: f32, %o: f32):
    %s = arith.addf %a, %c : f32
    linalg.yield %s : f32
  }} -> {tensor(batch, seq, n)}
  return %r : {tensor(batch, seq, n)}
}}
"""


def torch_output(engine, qconfig, weight, bias, x):
    module = dynamic_linear(engine, qconfig == "per_channel_dynamic",
                            torch.from_numpy(weight),
                            None if bias is None else torch.from_numpy(bias))
    try:
        with torch.no_grad():
            return module(torch.from_numpy(x)).numpy()
    except RuntimeError:
        # Quanta's kernels have no error channel: every output NaN.
        shape = x.shape[:-1] + (weight.shape[0],)
        return np.full(shape, np.nan, np.float32)


def main():
    rng = np.random.default_rng(2033)

    def randn(*shape, scale=1.0):
        return (rng.standard_normal(shape) * scale).astype(np.float32)

    cases = []
    # (name, form, input, weight [N, K], bias)
    cases.append(("gemm", "gemm", randn(4, 64, scale=2.0),
                  randn(48, 64, scale=0.2), randn(48)))
    weight = randn(37, 100, scale=0.1)
    weight[5] *= 30  # a row far wider than the others: per-channel matters
    cases.append(("linear", "linear", randn(3, 100), weight, randn(37)))
    cases.append(("matmul_add", "matmul_add", randn(2, 5, 24, scale=0.5),
                  randn(20, 24, scale=0.3), randn(20)))
    # A decoder's GEMV: M = 1, K = 768, no bias.
    cases.append(("gemv", "gemm", randn(1, 768), randn(96, 768, scale=0.05),
                  None))
    # Inputs on the ties of onednn's reorder: [-1, 1] in steps of 1/127.5
    # (x = 1 reaches u8 128).
    ties = rng.integers(-127, 128, (2, 16)).astype(np.float32) / 127.0
    ties[0, 0], ties[0, 1] = -1.0, 1.0
    cases.append(("ties", "gemm", ties, randn(9, 16, scale=0.5), randn(9)))
    # A tiny positive range: ChooseQuantizationParams' 6.1e-5 floor with
    # min = 0.
    cases.append(("tiny", "gemm", np.abs(randn(2, 20, scale=1e-6)),
                  randn(8, 20), randn(8)))
    # K = 3072: accumulators beyond 2^24 (their rounding to float).
    cases.append(("deep", "gemm", randn(2, 3072, scale=40.0),
                  randn(16, 3072), None))
    # A NaN: PyTorch raises.
    nan_input = randn(3, 12)
    nan_input[1, 4] = np.nan
    cases.append(("nan", "gemm", nan_input, randn(5, 12), randn(5)))

    module = ["// Generated by scripts/goldens/gen_dynamic_exec.py."]
    for name, form, x, weight, bias in cases:
        n, k = weight.shape
        if form == "gemm":
            module.append(gemm_form(name, x.shape[0], k, n, weight, bias))
        elif form == "linear":
            module.append(linear_form(name, x.shape[0], k, n, weight, bias))
        else:
            module.append(matmul_add_form(name, x.shape[0], x.shape[1], k, n,
                                          weight, bias))
        np.save(os.path.join(OUT, f"{PREFIX}_{name}_input.npy"), x)
        for engine, qconfig in CONFIGS:
            expected = torch_output(engine, qconfig, weight, bias, x)
            np.save(os.path.join(
                OUT, f"{PREFIX}_{name}_{engine}_{qconfig}_expected.npy"),
                expected.astype(np.float32))
    with open(os.path.join(OUT, f"{PREFIX}_exec.mlir"), "w") as f:
        f.write("\n".join(module))


def to_bfloat16(values):
    """float32 values rounded to bfloat16 (to nearest even), as float32."""
    bits = values.astype(np.float32).view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return rounded.astype(np.uint32).view(np.float32)


def bf16_dot_expected(x, weight, bias, odd_first=True):
    """quanta.weight_only_matmul with bf16_activations: x and the weights
    [N, K] rounded to bf16, then per pair p (an odd K's last completed
    with 0) acc += a[2p + 1] * w[2p + 1], then acc += a[2p] * w[2p], each
    rounded once to f32 (vdpbf16ps's order; the bf16 products are exact,
    and so is the float64 sum of one with an f32 of these magnitudes),
    from the bias."""
    m, k = x.shape
    a = to_bfloat16(x).astype(np.float64)
    w = to_bfloat16(weight).astype(np.float64)
    if k % 2:
        a = np.pad(a, ((0, 0), (0, 1)))
        w = np.pad(w, ((0, 0), (0, 1)))
    acc = np.zeros((m, weight.shape[0]), np.float32) if bias is None \
        else np.tile(bias, (m, 1)).astype(np.float32)
    for p in range(a.shape[1] // 2):
        for j in (2 * p + 1, 2 * p) if odd_first else (2 * p, 2 * p + 1):
            acc = (acc.astype(np.float64)
                   + a[:, j:j + 1] * w[None, :, j][0]).astype(np.float32)
    return acc


def round_to_f32(value):
    """The f32 nearest to the Fraction `value`, ties to even."""
    guess = np.float32(float(value))
    candidates = [np.nextafter(guess, np.float32(-np.inf)), guess,
                  np.nextafter(guess, np.float32(np.inf))]
    return min(candidates, key=lambda c: (
        abs(Fraction(float(c)) - value),
        int(np.array(c, np.float32).view(np.uint32)) & 1))


def int4_dynamic_expected(x, q, scales, bias, group):
    """quanta.weight_only_matmul with int8_activations: each group of
    `group` values of a row quantized to s8 (127 / amax, rounded half to
    even, f32 steps), then per group acc = fma(f32(integer sum),
    ascale * scale, acc) from the bias, the fused multiply-add rounded
    once (exactly, in fractions). q: the [N, K] 4-bit values, scales
    [N, K / group]. Rows with a NaN or infinity: every output NaN."""
    m, k = x.shape
    n, groups = scales.shape
    xg = x.reshape(m, groups, group).astype(np.float32)
    with np.errstate(all="ignore"):
        amax = np.abs(xg).max(axis=2)
        inverse = np.float32(127) / amax
        inverse[~(inverse < np.inf)] = 0
        a = np.clip(np.rint(xg * inverse[:, :, None]), -127, 127)
        ascale = np.where(amax < np.inf, amax / np.float32(127),
                          np.float32(np.nan)).astype(np.float32)
    a = np.nan_to_num(a).astype(np.int64)
    qg = q.reshape(n, groups, group).astype(np.int64)
    out = np.zeros((m, n), np.float32)
    for row in range(m):
        for col in range(n):
            acc = np.float32(0 if bias is None else bias[col])
            for g in range(groups):
                scale = np.float32(ascale[row, g] * np.float32(scales[col, g]))
                if np.isnan(scale):
                    acc = np.float32(np.nan)
                    break
                total = int(a[row, g] @ qg[col, g])
                acc = round_to_f32(Fraction(total) * Fraction(float(scale))
                                   + Fraction(float(acc)))
            out[row, col] = acc
    return out


def fma_f32(a, b, c):
    """fma(a, b, c) of f32 values, rounded once."""
    return round_to_f32(Fraction(float(a)) * Fraction(float(b))
                        + Fraction(float(c)))


def int4_asymmetric_expected(x, q, zero_points, scales, bias, group):
    """quanta.weight_only_matmul with i4 weights, zero points and f32
    activations: per group g, the row's sum s (f32, in k order), the
    group's sum p from f32(-zero point) * s, fma(x, q, p) in k order, then
    acc = fma(p, scale, acc) from the bias. q: [N, K] values in -8..7,
    zero_points and scales [N, K / group]."""
    m, k = x.shape
    n, groups = scales.shape
    out = np.zeros((m, n), np.float32)
    for row in range(m):
        sums = []
        for g in range(groups):
            total = np.float32(0)
            for value in x[row, g * group:(g + 1) * group]:
                total = np.float32(total + value)
            sums.append(total)
        for col in range(n):
            acc = np.float32(0 if bias is None else bias[col])
            for g in range(groups):
                p = np.float32(np.float32(-zero_points[col, g]) * sums[g])
                for i in range(g * group, (g + 1) * group):
                    p = fma_f32(x[row, i], q[col, i], p)
                acc = fma_f32(p, scales[col, g], acc)
            out[row, col] = acc
    return out


def weight_only_cases():
    rng = np.random.default_rng(2034)
    module = ["// Generated by scripts/goldens/gen_dynamic_exec.py."]
    # name, M, K, N, scheme, bias, group (int4)
    for name, m, k, n, scheme, with_bias, group in [
            ("half", 5, 33, 20, "float16_dynamic", True, 0),
            ("half_gemv", 1, 300, 70, "float16_dynamic", False, 0),
            ("int8", 7, 19, 23, "weight_only_int8", True, 0),
            ("int8_gemv", 1, 300, 70, "weight_only_int8", False, 0),
            ("int4", 5, 64, 20, "weight_only_int4", True, 32),
            ("int4_gemv", 1, 256, 70, "weight_only_int4", False, 128),
            ("bf16", 5, 33, 20, "weight_only_bf16", True, 0),
            ("bf16_gemv", 1, 300, 70, "weight_only_bf16", False, 0),
            ("bf16_dot", 5, 37, 21, "bf16_dot", True, 0),
            ("bf16_dot_gemv", 1, 301, 70, "bf16_dot", False, 0),
            ("int4_dyn", 5, 64, 20, "int4_dynamic", True, 32),
            ("int4_dyn_gemv", 1, 256, 70, "int4_dynamic", False, 128),
            ("int4_dyn_edges", 5, 48, 21, "int4_dynamic", True, 16),
            ("int4_asym", 5, 64, 20, "weight_only_int4", True, 32),
            ("int4_asym_gemv", 1, 256, 70, "weight_only_int4", False, 128),
            ("int4_asym_order", 3, 64, 21, "weight_only_int4", True, 32),
            ("int4_dyn_asym", 5, 64, 20, "int4_dynamic", True, 32),
            ("int4_dyn_asym_gemv", 1, 256, 70, "int4_dynamic", False, 128)]:
        asymmetric = "asym" in name
        x = rng.integers(-8, 9, (m, k)).astype(np.float32)
        if scheme in ("bf16_dot", "int4_dynamic") or name == "int4_asym_order":
            # Inputs that bf16 rounds, or that int8 quantizes: the expected
            # sums follow the formula's order (bf16_dot_expected,
            # int4_dynamic_expected).
            x = rng.standard_normal((m, k)).astype(np.float32)
        if name == "int4_dyn_edges":
            # Row 0, group 0: amax 127 (127 / amax = 1), halves rounded to
            # even; group 1 all zeros; group 2 below 127 / FLT_MAX (zeros
            # too). Row 1: a NaN, row 2: -inf (every output NaN); row 3:
            # one value of 1e30 beside small ones (all but it round to 0).
            x[0, :16] = [127, 2.5, 3.5, -0.5, -1.5, 0.5, 126.5, -126.5,
                         1, -2, 4.5, -4.5, 0, 5.5, 6.5, 7.5]
            x[0, 16:32] = 0
            x[0, 32:48] = 1e-38 * rng.standard_normal(16)
            x[1, 20] = np.nan
            x[2, 40] = -np.inf
            x[3, 5] = 1e30
        bias = (rng.integers(-16, 17, n) / 2).astype(np.float32) \
            if with_bias else None
        if scheme == "float16_dynamic":
            weight = (rng.integers(-64, 65, (n, k)) / 4).astype(np.float32)
            if name == "half_gemv":
                weight[3, 7] = 1e5  # clamped to 65504
            stored = np.clip(weight, -65504, 65504).astype(np.float64)
            expected = x.astype(np.float64) @ stored.T
        elif scheme == "weight_only_bf16":
            # |w| in [1/8, 4]: bf16 keeps 8 significant bits, so every
            # product is a multiple of 2^-10 and the sums stay exact.
            weight = (rng.choice([-1, 1], (n, k))
                      * rng.uniform(0.125, 4, (n, k))).astype(np.float32)
            # Ties, rounded to even: 1 + 2^-8 down to 1, 1 + 3 * 2^-8 up.
            weight[0, 0], weight[0, 1] = 1 + 2.0 ** -8, 1 + 3 * 2.0 ** -8
            stored = to_bfloat16(weight).astype(np.float64)
            assert stored[0, 0] == 1 and stored[0, 1] == 1 + 2.0 ** -6
            expected = x.astype(np.float64) @ stored.T
        elif scheme == "bf16_dot":
            weight = (rng.standard_normal((n, k)) / 4).astype(np.float32)
            expected = bf16_dot_expected(x, weight, bias)
            # The test can fail: k order or f32 activations give other bits.
            assert not np.array_equal(
                expected, bf16_dot_expected(x, weight, bias, odd_first=False))
            assert not np.array_equal(
                expected, (x.astype(np.float64)
                           @ to_bfloat16(weight).T.astype(np.float64)
                           + (0 if bias is None else bias)).astype(np.float32))
        elif scheme in ("weight_only_int4", "int4_dynamic") and asymmetric:
            # Per group of each row: a scale 2^-e and a zero point z in
            # 0..15, the values 0..15 with 0 and 15 among them, so that
            # PyTorch's quint4x2 MinMaxObserver gives back that scale and z
            # exactly and quantize_val these values (stored minus 8).
            groups = k // group
            scales = 2.0 ** -rng.integers(1, 6, (n, groups))
            zero = rng.integers(0, 16, (n, groups))
            q = rng.integers(0, 16, (n, groups, group))
            q[:, :, 0], q[:, :, 1] = 0, 15
            dequantized = ((q - zero[:, :, None]) * scales[:, :, None]
                           ).reshape(n, k)
            weight = dequantized.astype(np.float32)
            stored, zero_points = (q - 8).reshape(n, k), zero - 8
            if scheme == "int4_dynamic":
                expected = int4_dynamic_expected(
                    x, stored - np.repeat(zero_points, group, axis=1),
                    scales.astype(np.float32), bias, group)
            else:
                expected = int4_asymmetric_expected(
                    x, stored, zero_points, scales.astype(np.float32), bias,
                    group)
                # The test can fail: the zero point applied to every
                # weight, or not at all, gives other values.
                finite = (x.astype(np.float64)
                          @ dequantized.T).astype(np.float32)
                if bias is not None:
                    finite = finite + bias
                if name == "int4_asym_order":
                    assert not np.array_equal(expected, finite)
        elif scheme in ("weight_only_int4", "int4_dynamic"):
            # Per group of each row: the largest |w| 7 * 2^-e, so the scale
            # is 2^-e and every weight a multiple of it.
            groups = k // group
            scales = 2.0 ** -rng.integers(1, 6, (n, groups))
            q = rng.integers(-7, 8, (n, groups, group)).astype(np.float64)
            q[:, :, 0] = 7 * rng.choice([-1, 1], (n, groups))
            dequantized = (q * scales[:, :, None]).reshape(n, k)
            weight = dequantized.astype(np.float32)
            expected = x.astype(np.float64) @ dequantized.T
            if scheme == "int4_dynamic":
                expected = int4_dynamic_expected(
                    x, q.reshape(n, k), scales.astype(np.float32), bias,
                    group)
                # The test can fail: f32 activations give other values.
                finite = np.isfinite(expected).all(axis=1)
                assert not np.array_equal(
                    expected[finite], (x.astype(np.float64) @ dequantized.T
                                       + (0 if bias is None else bias)
                                       ).astype(np.float32)[finite])
        else:
            # Per column: the largest |w| 127.5 * 2^-e, so the scale is 2^-e
            # and every other weight a multiple of it.
            exponents = rng.integers(2, 8, n)
            scales = 2.0 ** -exponents
            q = rng.integers(-127, 128, (n, k)).astype(np.float64)
            q[:, 0] = 127.5 * rng.choice([-1, 1], n)
            weight = (q * scales[:, None]).astype(np.float32)
            stored = np.clip(np.rint(q), -128, 127)
            expected = (x.astype(np.float64) @ stored.T) * scales
        if bias is not None and scheme not in ("bf16_dot", "int4_dynamic") \
                and not asymmetric:
            expected = expected + bias
        module.append(gemm_form(name, m, k, n, weight, bias))
        np.save(os.path.join(OUT, f"weight_only_{name}_input.npy"), x)
        np.save(os.path.join(OUT, f"weight_only_{name}_expected.npy"),
                expected.astype(np.float32))
    with open(os.path.join(OUT, "weight_only_exec.mlir"), "w") as f:
        f.write("\n".join(module))


if __name__ == "__main__":
    main()
    weight_only_cases()

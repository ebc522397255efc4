#!/usr/bin/env python3
"""Generates test/Import/Onnx/Inputs/matmul_nbits_*.onnx, their inputs and
expected outputs: ONNX Runtime's com.microsoft.MatMulNBits (the node its
4-bit weight quantizers write; 4 bits, a scale per block of block_size k
values of each column, zero points 8 by default).

Run once with Debian's Python:
    /usr/bin/python3 scripts/goldens/gen_onnx_matmul_nbits.py [--ort DIR]

- matmul_nbits_exact.onnx: A [2, 3, 64], N = 20, block 32, a bias,
  accuracy_level 0 (f32 activations: quanta.weight_only_matmul's i4
  formula); small integer inputs and power-of-two scales, so every sum is
  exact and any order gives the same bits: ONNX Runtime's included.
- matmul_nbits_exact_level4.onnx: the same with accuracy_level 4 (A
  quantized to int8 per block: int8_activations) and inputs whose blocks
  quantize exactly (each block's largest magnitude 127 * 2^-e, the others
  multiples of 2^-e).
- matmul_nbits_level4.onnx: A [1, 256] of random floats, N = 70, block 64,
  accuracy_level 4, no bias, explicit zero points (all 8): the expected
  values follow the op's int8_activations formula
  (gen_dynamic_exec.int4_dynamic_expected); ONNX Runtime sums in its own
  order, so its output is compared within a tolerance only.
- matmul_nbits_asymmetric_exact.onnx: matmul_nbits_exact's shapes with a
  zero point per block (0..15, packed two per byte: the asymmetric form
  ONNX Runtime's quantizer writes by default), exact sums again.
- matmul_nbits_asymmetric_level4.onnx: matmul_nbits_level4's shapes and
  kind of input with random zero points (int4_dynamic_expected of the
  weights minus their zero points).
- matmul_nbits_{float_zero_points,bits,g_idx,zero_scale,short_bias,
  partial_block}.onnx: f32 zero points, bits = 2, a g_idx input, a scale
  of 0, a bias of 3 values for 70 columns, K = 200 (no whole blocks of
  64): refused by the importer.
With --ort (a directory where `make ort` installed onnxruntime-node) each
model runs in ONNX Runtime too, and the script asserts that the exact
models give the same bits there and prints the largest difference of the
random one.
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from gen_dynamic_exec import int4_dynamic_expected  # noqa: E402
from gen_onnx_dynamic_models import ort_output  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "test", "Import", "Onnx", "Inputs")
f32 = np.float32


def pack_blocks(q, block):
    """q [N, K] in -8..7 as MatMulNBits' B [N, K / block, block / 2]:
    q + 8, k value 2j in the low nibble of byte j, 2j + 1 in the high."""
    n, k = q.shape
    u = (q + 8).astype(np.uint8)
    packed = u[:, 0::2] | (u[:, 1::2] << 4)
    return packed.reshape(n, k // block, block // 2)


def model(name, a_shape, q, scales, block, level, bias=None, zeros=None,
          bits=4, g_idx=False, out=OUT):
    """Writes <out>/<name>.onnx: one MatMulNBits of A (a_shape) with the
    [N, K] 4-bit values q and scales [N, K / block]; returns its path."""
    n, k = q.shape
    inits = [numpy_helper.from_array(pack_blocks(q, block), "B"),
             numpy_helper.from_array(scales.reshape(-1).astype(f32),
                                     "scales")]
    inputs = ["A", "B", "scales", "", "", ""]
    if zeros is not None:
        inits.append(numpy_helper.from_array(zeros, "zero_points"))
        inputs[3] = "zero_points"
    if g_idx:
        inits.append(numpy_helper.from_array(
            (np.arange(k) // block).astype(np.int32), "g_idx"))
        inputs[4] = "g_idx"
    if bias is not None:
        inits.append(numpy_helper.from_array(bias.astype(f32), "bias"))
        inputs[5] = "bias"
    while inputs[-1] == "":
        inputs.pop()
    node = helper.make_node("MatMulNBits", inputs, ["Y"],
                            domain="com.microsoft", K=k, N=n, bits=bits,
                            block_size=block, accuracy_level=level)
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("A", TensorProto.FLOAT, a_shape)],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT,
                                       list(a_shape[:-1]) + [n])], inits)
    result = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    path = os.path.join(out, name + ".onnx")
    onnx.save(result, path)
    return path


def weights(rng, n, k, block):
    """4-bit values with some +-8 or +-7 and power-of-two scales."""
    q = rng.integers(-8, 8, (n, k)).astype(np.int64)
    scales = (2.0 ** -rng.integers(1, 6, (n, k // block))).astype(f32)
    return q, scales


def pack_zero_points(zero_points):
    """zero_points [N, K / block] in 0..15 as MatMulNBits' zero_points:
    two per byte, block 2j in the low nibble, each column's run rounded up
    to whole bytes."""
    n, blocks = zero_points.shape
    padded = np.zeros((n, blocks + blocks % 2), np.uint8)
    padded[:, :blocks] = zero_points
    return (padded[:, 0::2] | (padded[:, 1::2] << 4)).astype(np.uint8)


def exact_output(a, q, scales, block, bias, zero_points=None):
    """q [N, K] in -8..7 (MatMulNBits' values - 8); zero_points [N,
    K / block] in 0..15 (default 8)."""
    if zero_points is not None:
        q = q - np.repeat(zero_points - 8, block, axis=1)
    w = q * np.repeat(scales, block, axis=1).astype(np.float64)
    y = a.astype(np.float64).reshape(-1, q.shape[1]) @ w.T
    if bias is not None:
        y = y + bias
    return y.astype(f32).reshape(a.shape[:-1] + (q.shape[0],))


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ort", help="where make ort installed "
                        "onnxruntime-node (build/ort)")
    args = parser.parse_args()
    rng = np.random.default_rng(44)
    n, k, block = 20, 64, 32
    q, scales = weights(rng, n, k, block)
    bias = (rng.integers(-16, 17, n) / 4).astype(f32)
    checks = []

    a = rng.integers(-8, 9, (2, 3, k)).astype(f32)
    path = model("matmul_nbits_exact", [2, 3, k], q, scales, block, 0, bias)
    expected = exact_output(a, q, scales, block, bias)
    np.save(os.path.join(OUT, "matmul_nbits_exact_input.npy"), a)
    np.save(os.path.join(OUT, "matmul_nbits_exact_expected.npy"), expected)
    checks.append((path, a, expected, True))

    # Per block of 32 of each row: integers up to 127 times 2^-e, one of
    # magnitude 127.
    exponents = rng.integers(0, 4, (2, 3, k // block))
    ints = rng.integers(-127, 128, (2, 3, k // block, block))
    ints[..., 0] = 127 * rng.choice([-1, 1], (2, 3, k // block))
    a4 = (ints * (2.0 ** -exponents)[..., None]).reshape(2, 3, k).astype(f32)
    path = model("matmul_nbits_exact_level4", [2, 3, k], q, scales, block, 4,
                 bias)
    expected = exact_output(a4, q, scales, block, bias)
    assert np.array_equal(
        expected.reshape(-1, n),
        int4_dynamic_expected(a4.reshape(-1, k), q, scales, bias, block))
    np.save(os.path.join(OUT, "matmul_nbits_exact_level4_input.npy"), a4)
    np.save(os.path.join(OUT, "matmul_nbits_exact_level4_expected.npy"),
            expected)
    checks.append((path, a4, expected, True))

    n2, k2, block2 = 70, 256, 64
    q2, scales2 = weights(rng, n2, k2, block2)
    scales2 = (scales2 * rng.uniform(0.5, 1, scales2.shape)).astype(f32)
    zeros = np.full((n2, (k2 // block2 + 1) // 2), 0x88, np.uint8)
    x = rng.standard_normal((1, k2)).astype(f32)
    path = model("matmul_nbits_level4", [1, k2], q2, scales2, block2, 4,
                 zeros=zeros)
    expected = int4_dynamic_expected(x, q2, scales2, None, block2)
    np.save(os.path.join(OUT, "matmul_nbits_level4_input.npy"), x)
    np.save(os.path.join(OUT, "matmul_nbits_level4_expected.npy"), expected)
    checks.append((path, x, expected, False))

    model("matmul_nbits_float_zero_points", [1, k2], q2, scales2, block2, 0,
          zeros=np.full((n2, k2 // block2), 8, f32))
    model("matmul_nbits_bits", [1, k2], q2, scales2, block2, 0, bits=2)
    model("matmul_nbits_g_idx", [1, k2], q2, scales2, block2, 0, g_idx=True)
    zero_scale = scales2.copy()
    zero_scale[5, 1] = 0
    model("matmul_nbits_zero_scale", [1, k2], q2, zero_scale, block2, 0)
    model("matmul_nbits_short_bias", [1, k2], q2, scales2, block2, 0,
          bias=np.ones(3, f32))
    # K = 200 on B and scales of K = 256: no whole blocks.
    path = model("matmul_nbits_partial_block", [1, k2], q2, scales2, block2,
                 0)
    partial = onnx.load(path)
    next(a for a in partial.graph.node[0].attribute if a.name == "K").i = 200
    onnx.save(partial, path)

    # Asymmetric: a zero point per block, 0..15.
    zero_points = rng.integers(0, 16, (n, k // block))
    path = model("matmul_nbits_asymmetric_exact", [2, 3, k], q, scales, block,
                 0, bias, zeros=pack_zero_points(zero_points))
    expected = exact_output(a, q, scales, block, bias, zero_points)
    np.save(os.path.join(OUT, "matmul_nbits_asymmetric_exact_input.npy"), a)
    np.save(os.path.join(OUT, "matmul_nbits_asymmetric_exact_expected.npy"),
            expected)
    checks.append((path, a, expected, True))

    zero_points2 = rng.integers(0, 16, (n2, k2 // block2))
    path = model("matmul_nbits_asymmetric_level4", [1, k2], q2, scales2,
                 block2, 4, zeros=pack_zero_points(zero_points2))
    expected = int4_dynamic_expected(
        x, q2 - np.repeat(zero_points2 - 8, block2, axis=1), scales2, None,
        block2)
    np.save(os.path.join(OUT, "matmul_nbits_asymmetric_level4_input.npy"), x)
    np.save(os.path.join(OUT, "matmul_nbits_asymmetric_level4_expected.npy"),
            expected)
    checks.append((path, x, expected, False))

    if args.ort:
        for path, x, expected, exact in checks:
            got = ort_output(args.ort, path, x).reshape(expected.shape)
            diff = np.abs(got.astype(np.float64) - expected).max()
            name = os.path.basename(path)
            if exact:
                assert np.array_equal(got.view(np.uint32),
                                      expected.view(np.uint32)), (name, diff)
                print(f"{name}: ONNX Runtime's output is the same bits")
            else:
                print(f"{name}: ONNX Runtime's output within {diff:.3g} "
                      f"(largest |output| {np.abs(expected).max():.3g})")


if __name__ == "__main__":
    main()

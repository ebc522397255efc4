"""Module.quantize_dynamic: the compiler's dynamic Linear equals the numeric
library's quanta.dynamic_linear (itself PyTorch 1.13's bit for bit:
unittests/Numerics/DynamicTest.cpp) on any input, and bad options are
errors."""

import numpy as np
import pytest

import quanta
from quanta.dynamic import linear_mlir


def linear_module(m, weight, bias):
    return quanta.Module.parse(linear_mlir(weight, bias, m), "linear.mlir")


@pytest.mark.parametrize("engine", ["onednn", "qnnpack", "onnx"])
@pytest.mark.parametrize("per_channel", [False, True])
def test_compiled_equals_library(engine, per_channel):
    rng = np.random.default_rng(7)
    m, k, n = 5, 67, 29  # K and N not multiples of any tile
    weight = (rng.standard_normal((n, k)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    run = linear_module(m, weight, bias).quantize_dynamic(
        engine=engine,
        qconfig="per_channel_dynamic" if per_channel else "default_dynamic"
    ).compile()
    for scale in [1e-7, 0.5, 300.0]:
        x = (rng.standard_normal((m, k)) * scale).astype(np.float32)
        want = quanta.dynamic_linear(x, weight, bias, engine=engine,
                                     per_channel=per_channel)
        got = run(x)
        assert got.tobytes() == want.tobytes(), (engine, per_channel, scale)


def test_nan_input_gives_nan():
    """PyTorch raises (and the library too); compiled code has no error
    channel: every output is NaN."""
    weight = np.ones((3, 4), np.float32)
    run = linear_module(2, weight, np.zeros(3, np.float32)) \
        .quantize_dynamic().compile()
    x = np.ones((2, 4), np.float32)
    x[1, 2] = np.nan
    with pytest.raises(ValueError):
        quanta.dynamic_linear(x, weight)
    assert np.isnan(run(x)).all()


def test_bad_options():
    module = linear_module(1, np.ones((2, 2), np.float32),
                           np.zeros(2, np.float32))
    with pytest.raises(quanta.Error, match="unknown engine 'fbgemm'"):
        module.quantize_dynamic(engine="fbgemm")
    with pytest.raises(quanta.Error, match="'x86' is no dynamic qconfig"):
        module.quantize_dynamic(qconfig="x86")


@pytest.mark.parametrize("qconfig,tolerance", [
    ("float16_dynamic", 1e-3), ("weight_only_bf16", 1e-2),
    ("weight_only_int8", 2e-2), ("weight_only_int4", 0.2),
    ("int4_dynamic", 0.2)])
def test_weight_only(qconfig, tolerance):
    """The weight-only schemes keep the input float: their outputs are the
    float Linear's within the weights' rounding (f16: 11 bits; bf16: 8;
    s8 per column; 4 bits per group of 32)."""
    rng = np.random.default_rng(3)
    m, k, n = 3, 64, 40
    weight = (rng.standard_normal((n, k)) * 0.1).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    run = linear_module(m, weight, bias).quantize_dynamic(
        qconfig=qconfig).compile()
    want = x.astype(np.float64) @ weight.T.astype(np.float64) + bias
    error = np.abs(run(x) - want).max() / np.abs(want).max()
    assert 0 < error < tolerance, (qconfig, error)


@pytest.mark.parametrize("qconfig", ["weight_only_int4", "int4_dynamic"])
def test_int4_asymmetric_fits_skewed_weights(qconfig):
    """int4_asymmetric spends the 16 levels on each group's own range:
    on weights that are all positive (ReLU-fed layers, GPTQ's case) the
    symmetric scale wastes the negative half, so the asymmetric error is
    about half the symmetric one."""
    rng = np.random.default_rng(9)
    m, k, n = 4, 128, 24
    weight = rng.uniform(0.2, 1.0, (n, k)).astype(np.float32)
    bias = rng.standard_normal(n).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    want = x.astype(np.float64) @ weight.T.astype(np.float64) + bias
    errors = []
    for asymmetric in [False, True]:
        run = linear_module(m, weight, bias).quantize_dynamic(
            qconfig=qconfig, group_size=32,
            int4_asymmetric=asymmetric).compile()
        errors.append(np.sqrt(np.mean((run(x) - want) ** 2)))
    assert errors[1] < 0.7 * errors[0], errors


def _fma32(a, b, c):
    """f32 fused multiply-add through float64: the f32 product is exact
    there, and the one rounding of the sum to f32 differs from a true FMA
    only on ties of the float64 sum (none expected in a few thousand)."""
    return (a.astype(np.float64) * b.astype(np.float64)
            + c.astype(np.float64)).astype(np.float32)


def _exact_int4_weights(rng, k, n, group):
    """[N, K] weights q * 2^e with some |q| = 7 in every group of `group`
    k values: quantize_dynamic's 4-bit schemes store exactly q and scale
    2^e. Returns q, the scales [N, K / group] and the weights."""
    q = rng.integers(-7, 8, (n, k)).astype(np.float32)
    q[:, ::group] = 7 * rng.choice([-1, 1], (n, k // group))
    scales = np.exp2(rng.integers(-6, 2, (n, k // group))).astype(np.float32)
    return q, scales, q * np.repeat(scales, group, axis=1)


@pytest.mark.parametrize("m", [1, 3, 9])
def test_int4_dynamic_formula(m):
    """weight_only_matmul's int8_activations formula (QuantaOps.td) with
    the activations the numeric library quantizes (quantize_int8_groups):
    per group, the exact integer sum, then acc = fma(sum, ascale * scale,
    acc) from the bias, on _exact_int4_weights."""
    rng = np.random.default_rng(11)
    k, n, group = 256, 37, 32
    q, scales, weight = _exact_int4_weights(rng, k, n, group)
    bias = rng.standard_normal(n).astype(np.float32)
    x = (rng.standard_normal((m, k)) * 3).astype(np.float32)
    got = linear_module(m, weight, bias).quantize_dynamic(
        qconfig="int4_dynamic", group_size=group).compile()(x)

    values, ascales = quanta.quantize_int8_groups(x, group)
    assert ascales.shape == (m, k // group)
    expected = np.tile(bias, (m, 1))
    for g in range(k // group):
        cut = slice(g * group, (g + 1) * group)
        sums = values[:, cut].astype(np.int64) @ q[:, cut].T.astype(np.int64)
        step = (ascales[:, g:g + 1] * scales[None, :, g]).astype(np.float32)
        expected = _fma32(sums.astype(np.float32), step, expected)
    assert got.tobytes() == expected.tobytes()
    # The activations were quantized: f32 activations give other values.
    assert not np.array_equal(got, (x @ weight.T + bias).astype(np.float32))


@pytest.mark.parametrize("m", [1, 3, 9])
def test_weight_only_int4_order(m):
    """weight_only_matmul's i4 formula (QuantaOps.td): per group of k
    values, the sum of input * weight in k order from 0 with FMAs, then one
    FMA with the group's scale onto the running sum from the bias. Weights
    q * 2^e with some |q| = 7 in every group quantize to exactly q and
    scale 2^e, so the expected bytes follow from the formula alone; the
    other order (each weight dequantized, one running sum) gives other
    bytes on these inputs, which the test asserts too."""
    rng = np.random.default_rng(5)
    k, n, group = 256, 37, 32
    q, scales, weight = _exact_int4_weights(rng, k, n, group)
    bias = rng.standard_normal(n).astype(np.float32)
    x = rng.standard_normal((m, k)).astype(np.float32)
    got = linear_module(m, weight, bias).quantize_dynamic(
        qconfig="weight_only_int4", group_size=group).compile()(x)

    grouped = np.tile(bias, (m, 1))
    running = np.tile(bias, (m, 1))
    for g in range(k // group):
        partial = np.zeros((m, n), np.float32)
        for kk in range(g * group, (g + 1) * group):
            partial = _fma32(x[:, kk:kk + 1], q[None, :, kk], partial)
            running = _fma32(x[:, kk:kk + 1], weight[None, :, kk], running)
        grouped = _fma32(partial, scales[None, :, g], grouped)
    assert got.tobytes() == grouped.tobytes()
    assert running.tobytes() != grouped.tobytes()

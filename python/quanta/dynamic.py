"""PyTorch's dynamic quantization, computed by Quanta's numeric library."""

import numpy as np

from ._quanta_numerics import dynamic_linear as _dynamic_linear
from ._quanta_numerics import quantize_int8_groups as _quantize_int8_groups


def dynamic_linear(x, weight, bias=None, engine="onednn", per_channel=False):
    """What torch.ao.nn.quantized.dynamic.Linear computes for float32 `x`
    [..., K] with float `weight` [N, K] and `bias` [N] after
    quantize_dynamic (per_channel: per_channel_dynamic_qconfig) on PyTorch
    1.13's `engine` ("onednn" or "qnnpack"), bit for bit: the weights
    quantized to s8, the input's qparams chosen from its min and max.
    engine="onnx" computes the activation as ONNX Runtime's dynamic MatMul
    does (DynamicQuantizeLinear's qparams, MLAS's quantization, acc *
    (input scale * weight scale) + bias) on the same weights. NaN or
    infinite inputs are a ValueError (PyTorch raises, or computes
    infinities)."""
    x = np.ascontiguousarray(x)
    weight = np.ascontiguousarray(weight)
    if bias is not None:
        bias = np.ascontiguousarray(bias)
    output = _dynamic_linear(x, weight, bias, engine, per_channel)
    return np.asarray(output, np.float32).reshape(
        x.shape[:-1] + (weight.shape[0],))


def quantize_int8_groups(x, group):
    """int4_dynamic's activations, as its kernels quantize them: each run of
    `group` values along the last dimension of float32 `x` to s8
    (round_half_even(x * (127 / amax)), clamped to +-127). Returns the
    values (x's shape, int8) and the scales (amax / 127; NaN for a group
    holding NaN or infinity), [..., K / group]."""
    x = np.ascontiguousarray(x)
    values, scales = _quantize_int8_groups(x, group)
    return (np.asarray(values, np.int8).reshape(x.shape),
            np.asarray(scales, np.float32).reshape(
                x.shape[:-1] + (x.shape[-1] // group,)))


def linear_mlir(weight, bias, rows):
    """MLIR text of a float nn.Linear of `weight` [N, K] and `bias` [N] on a
    [rows, K] input, as PyTorch's ONNX export imports (the weights through
    a transposed B, the bias broadcast into the accumulator): a module to
    try Module.quantize_dynamic on, and compare with dynamic_linear."""
    n, k = weight.shape

    def dense(array):
        return 'dense<"0x%s">' % np.ascontiguousarray(
            array, "<f4").tobytes().hex().upper()
    x, w, y = (f"tensor<{rows}x{k}xf32>", f"tensor<{n}x{k}xf32>",
               f"tensor<{rows}x{n}xf32>")
    maps = ", ".join("affine_map<(d0, d1, d2) -> (%s)>" % dims
                     for dims in ["d0, d2", "d1, d2", "d0, d1"])
    return f"""func.func @linear(%x: {x}) -> {y} {{
  %w = arith.constant {dense(weight)} : {w}
  %b = arith.constant {dense(bias)} : tensor<{n}xf32>
  %e = tensor.empty() : {y}
  %init = linalg.broadcast ins(%b : tensor<{n}xf32>) outs(%e : {y}) dimensions = [0]
  %r = linalg.matmul indexing_maps = [{maps}] ins(%x, %w : {x}, {w}) outs(%init : {y}) -> {y}
  return %r : {y}
}}
"""

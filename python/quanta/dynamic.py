"""PyTorch's dynamic quantization, computed by Quanta's numeric library."""

import numpy as np

from ._quanta_numerics import dynamic_linear as _dynamic_linear


def dynamic_linear(x, weight, bias=None, engine="onednn", per_channel=False):
    """What torch.ao.nn.quantized.dynamic.Linear computes for float32 `x`
    [..., K] with float `weight` [N, K] and `bias` [N] after
    quantize_dynamic (per_channel: per_channel_dynamic_qconfig) on PyTorch
    1.13's `engine` ("onednn" or "qnnpack"), bit for bit: the weights
    quantized to s8, the input's qparams chosen from its min and max. NaN
    or infinite inputs are a ValueError (PyTorch raises, or computes
    infinities)."""
    x = np.ascontiguousarray(x)
    weight = np.ascontiguousarray(weight)
    if bias is not None:
        bias = np.ascontiguousarray(bias)
    output = _dynamic_linear(x, weight, bias, engine, per_channel)
    return np.asarray(output, np.float32).reshape(
        x.shape[:-1] + (weight.shape[0],))

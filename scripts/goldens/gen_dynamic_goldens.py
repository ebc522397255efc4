#!/usr/bin/env python3
"""Generates unittests/Numerics/goldens/dynamic_linear.txt from PyTorch 1.13.

Run once with Debian's Python: /usr/bin/python3 scripts/goldens/gen_dynamic_goldens.py

torch.ao.nn.quantized.dynamic.Linear (quantize_dynamic with
default_dynamic_qconfig or per_channel_dynamic_qconfig) on the two quantized
engines this PyTorch has, onednn and qnnpack: the float weights, bias and
input, and what PyTorch computes from them: the quantized weights and their
scales, the activation qparams it chooses at run time
(torch._choose_qparams_per_tensor with the engine's reduce_range: onednn
honours the module's reduce_range=True, qnnpack ignores it) and the output.
Each case uses a new module called once: onednn's later calls can reuse a
cached primitive holding an earlier call's zero point
(docs/PyTorchDynamicNumerics.md, section 3c), a PyTorch bug Quanta does not
reproduce. ok 0: PyTorch raised (NaN or infinite inputs).
"""
import itertools
import os
import warnings

import torch
import torch.nn as nn
from torch.ao.quantization import (default_dynamic_qconfig,
                                   per_channel_dynamic_qconfig,
                                   quantize_dynamic)

from gen_observer_goldens import Writer

warnings.filterwarnings("ignore")

# (m, k, n): M = 1 as decoders run, K up to BERT's 768.
SHAPES = [(1, 8, 4), (4, 64, 16), (16, 32, 24), (2, 768, 8), (5, 3, 7)]
# How the input's range sits around 0.
INPUT_KINDS = ["mixed", "positive", "negative", "tiny", "zeros", "wide",
               "half_ties"]


def make_input(gen, kind, m, k):
    x = torch.randn(m, k, generator=gen)
    if kind == "positive":
        return x.abs() + 0.5
    if kind == "negative":
        return -x.abs() - 0.25
    if kind == "tiny":
        return x * 1e-6
    if kind == "zeros":
        return torch.zeros(m, k)
    if kind == "wide":
        return x * 1e4
    if kind == "half_ties":
        # Multiples of 1/254 of [-1, 1]: x * (1 / scale) lands on .5.
        steps = torch.randint(-127, 128, (m, k), generator=gen).float()
        return steps / 127.0 + 0.5 / 127.0
    return x * float(torch.empty(()).uniform_(0.1, 5, generator=gen))


def dynamic_linear(engine, per_channel, weight, bias):
    torch.backends.quantized.engine = engine
    linear = nn.Linear(weight.shape[1], weight.shape[0], bias=bias is not None)
    with torch.no_grad():
        linear.weight.copy_(weight)
        if bias is not None:
            linear.bias.copy_(bias)
    qconfig = per_channel_dynamic_qconfig if per_channel else \
        default_dynamic_qconfig
    return quantize_dynamic(nn.Sequential(linear), {nn.Linear: qconfig},
                            dtype=torch.qint8)[0]


def weight_fields(module, per_channel):
    qweight, _ = module._packed_params._weight_bias()
    scales = (qweight.q_per_channel_scales() if per_channel
              else torch.tensor([qweight.q_scale()])).float()
    return [("weight_q", qweight.int_repr().int().reshape(-1).tolist()),
            ("weight_scale", scales)]


def main():
    writer = Writer("dynamic_linear.txt",
                    "quantized::linear_dynamic of torch.ao.nn.quantized."
                    "dynamic.Linear per engine; ok0 = PyTorch raised",
                    generator="gen_dynamic_goldens.py")
    gen = torch.Generator().manual_seed(33)
    index = 0
    for engine, per_channel in itertools.product(["onednn", "qnnpack"],
                                                 [False, True]):
        for case, kind in enumerate(INPUT_KINDS):
            m, k, n = SHAPES[case % len(SHAPES)]
            weight = torch.randn(n, k, generator=gen) * 0.2
            bias = torch.randn(n, generator=gen) if case % 3 != 2 else None
            x = make_input(gen, kind, m, k)
            module = dynamic_linear(engine, per_channel, weight, bias)
            reduce_range = engine == "onednn"
            scale, zero_point = torch._choose_qparams_per_tensor(
                x, reduce_range)
            with torch.no_grad():
                y = module(x)
            fields = [("engine", engine), ("per_channel", per_channel),
                      ("m", m), ("k", k), ("n", n), ("weight", weight),
                      ("bias", bias if bias is not None else "none"),
                      ("input", x)]
            fields += weight_fields(module, per_channel)
            fields += [("ok", 1), ("input_scale", float(scale)),
                       ("input_zero_point", int(zero_point)), ("output", y)]
            writer.case("%s_%s_%s_%d" % (engine, "per_channel" if per_channel
                                          else "per_tensor", kind, index),
                        fields)
            index += 1
        # Non-finite inputs: PyTorch raises (or, onednn with -inf alone,
        # computes infinities and NaN: Quanta refuses those too).
        for special in [float("nan"), float("inf")]:
            m, k, n = SHAPES[1]
            weight = torch.randn(n, k, generator=gen) * 0.2
            x = torch.randn(m, k, generator=gen)
            x[1, 3] = special
            module = dynamic_linear(engine, per_channel, weight, None)
            try:
                with torch.no_grad():
                    module(x)
                ok = 1
            except RuntimeError:
                ok = 0
            assert ok == 0, (engine, special)
            writer.case("%s_%s_%r_%d" % (engine, "per_channel" if per_channel
                                          else "per_tensor", special, index),
                        [("engine", engine), ("per_channel", per_channel),
                         ("m", m), ("k", k), ("n", n), ("weight", weight),
                         ("bias", "none"), ("input", x), ("ok", 0)])
            index += 1
    writer.close()


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the quant-run execution test of the f32 convolution lowering: a
module of linalg.conv_2d_nhwc_fhwc / _hwcf and conv_2d_nchw_fchw with
constant filters (strides,
dilations, batch 2, a single channel, 1x1, filters past one 16-column
strip, an init tensor that is not zero), the inputs and the expected
outputs as .npy. The values are small integers, so every partial sum is
exact in float32 whatever the order and rounding: the expectation,
computed here in NumPy int64, must match bit for bit, and any indexing,
packing or masking error shows.

    /usr/bin/python3 scripts/goldens/gen_float_conv_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import nested, write_exec_cases

CASES = [  # name, layout, input NHWC, KH, KW, F, strides, dilations
    ("fhwc_3x3", "fhwc", (1, 9, 10, 5), 3, 3, 7, (1, 1), (1, 1)),
    ("hwcf_s2_dilated", "hwcf", (2, 11, 9, 3), 2, 3, 20, (2, 1), (2, 3)),
    ("fhwc_1x1_c1", "fhwc", (1, 4, 6, 1), 1, 1, 3, (1, 1), (1, 1)),
    ("hwcf_5x5_s3", "hwcf", (1, 13, 14, 8), 5, 5, 33, (3, 3), (1, 1)),
    # NCHW: the same sums, input and output transposed around the kernel.
    ("nchw_3x3_s2_dilated", "nchw", (2, 10, 11, 6), 3, 2, 17, (2, 1), (1, 2)),
]


def literal(values):
    return nested([f"{float(v):.1f}" for v in values.reshape(-1)],
                  values.shape)


def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def case(rng, name, layout, shape, kh, kw, f, strides, dilations):
    n, h, w, c = shape
    oh = (h - dilations[0] * (kh - 1) - 1) // strides[0] + 1
    ow = (w - dilations[1] * (kw - 1) - 1) // strides[1] + 1
    x = rng.integers(-6, 7, size=shape)
    filt = rng.integers(-6, 7, size=(kh, kw, c, f))  # HWCF
    bias = rng.integers(-100, 101, size=f)
    expected = np.zeros((n, oh, ow, f), dtype=np.int64) + bias
    for i in range(kh):
        for j in range(kw):
            rows = x[:, i * dilations[0]:, j * dilations[1]:, :]
            rows = rows[:, :(oh - 1) * strides[0] + 1:strides[0],
                        :(ow - 1) * strides[1] + 1:strides[1], :]
            expected += np.einsum("nhwc,cf->nhwf", rows, filt[i, j])
    assert np.abs(expected).max() < 2**24
    stored = {"hwcf": filt, "fhwc": filt.transpose(3, 0, 1, 2),
              "nchw": filt.transpose(3, 2, 0, 1)}[layout]
    out = (n, oh, ow, f)
    if layout == "nchw":
        x, expected = x.transpose(0, 3, 1, 2), expected.transpose(0, 3, 1, 2)
        shape, out = x.shape, expected.shape
    op = "conv_2d_nchw_fchw" if layout == "nchw" else f"conv_2d_nhwc_{layout}"
    broadcast = "[0, 2, 3]" if layout == "nchw" else "[0, 1, 2]"
    func = f"""
func.func @{name}(%x: {tensor(shape)}) -> {tensor(out)} {{
  %w = arith.constant dense<{literal(stored)}> : {tensor(stored.shape)}
  %bias = arith.constant dense<{literal(bias)}> : {tensor((f,))}
  %e = tensor.empty() : {tensor(out)}
  %init = linalg.broadcast ins(%bias : {tensor((f,))}) outs(%e : {tensor(out)}) dimensions = {broadcast}
  %r = linalg.{op} {{dilations = dense<[{dilations[0]}, {dilations[1]}]> : tensor<2xi64>, strides = dense<[{strides[0]}, {strides[1]}]> : tensor<2xi64>}} ins(%x, %w : {tensor(shape)}, {tensor(stored.shape)}) outs(%init : {tensor(out)}) -> {tensor(out)}
  return %r : {tensor(out)}
}}
"""
    return func, x.astype(np.float32), expected.astype(np.float32)


def main():
    write_exec_cases(sys.argv[1], "float_conv", case, CASES, 20261121)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the quant-run execution test of quanta.qmatmul's depthwise form:
a module of random integer depthwise convolutions (the image padded by a
tensor.pad of a constant on its storage, as quanta-quantize leaves it, or
not at all; channel counts that are not multiples of 8 or 16; strides,
dilations, 3x3 and 5x5; u8 and s8 inputs at their range ends; weight zero
points; every shift class of the requantization) and their inputs and
expected outputs as .npy, the expectation computed here in NumPy int64
arithmetic from the op's documented semantics (independent of Quanta's
C++).

    /usr/bin/python3 scripts/goldens/gen_qdepthwise_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import write_exec_cases

CASES = [  # name, [B, H, W, C], kernel, stride, dilation, pad [t, b, l, r],
    #          input storage, then options
    # Channels past two blocks of 8 and one of 16; interior columns not a
    # multiple of the 4 pixels per step.
    ("k3_pad1_u8", [2, 7, 9, 21], 3, 1, 1, [1, 1, 1, 1], "u8"),
    # Stride 2 with an asymmetric padding, s8 input, weight zero points.
    ("k3_s2_s8", [1, 9, 10, 40], 3, 2, 1, [0, 1, 1, 1], "i8",
     {"weight_zps": True}),
    # 5x5 dilated by 2: windows wider than the image's border.
    ("k5_d2_u8", [1, 11, 12, 16], 5, 1, 2, [3, 4, 4, 2], "u8"),
    # No padding: every pixel inside; 8 channels only.
    ("k3_valid_u8", [1, 6, 13, 8], 3, 1, 1, None, "u8"),
    # An image smaller than its window: every pixel a border pixel, and
    # the padding value is not the zero point.
    ("k3_small_u8", [1, 2, 3, 5], 3, 1, 1, [1, 1, 1, 1], "u8",
     {"pad_value": 200}),
    # Real multipliers of 0.5 and above (t <= 31): the 64-bit epilogue.
    ("k3_wide_shift_s8", [1, 5, 6, 24], 3, 1, 1, [1, 1, 1, 1], "i8",
     {"shifts": [-1, 0, 1, 30], "weight_max": 2}),
    # Every t >= 33 with the zero point folded into the rounding.
    ("k3_high_rounding_u8", [1, 5, 7, 16], 3, 1, 1, [1, 1, 1, 1], "u8",
     {"shifts": [-2, -20, -10], "zo": 250}),
]


def case(rng, name, shape, kernel, stride, dilation, pad, storage,
         options=None):
    options = options or {}
    b, h, w, c = shape
    lo, hi = (-128, 127) if storage == "i8" else (0, 255)
    x = rng.integers(lo, hi + 1, size=shape)
    x[0, 0, :, :] = hi
    x[0, -1, :, :] = lo
    weight_max = options.get("weight_max", 128)
    weights = rng.integers(-weight_max, weight_max, size=(kernel * kernel, c))
    weights[:, 0] = -weight_max
    mult = rng.integers(1 << 30, (1 << 31) - 1, size=c)
    shifts = options.get("shifts")
    shift = (rng.integers(-16, -6, size=c) if shifts is None
             else rng.choice(shifts, size=c))
    off = rng.integers(-50000, 50000, size=c) * weight_max // 128
    zo = options.get("zo", 7)
    wz = (rng.integers(-20, 21, size=c) if options.get("weight_zps")
          else np.zeros(1, int))
    za = 3
    pad_value = options.get("pad_value", za)
    top, bottom, left, right = pad or [0, 0, 0, 0]
    padded = np.full((b, h + top + bottom, w + left + right, c), pad_value)
    padded[:, top:top + h, left:left + w, :] = x
    hp, wp = padded.shape[1:3]
    oh = (hp - dilation * (kernel - 1) - 1) // stride + 1
    ow = (wp - dilation * (kernel - 1) - 1) // stride + 1
    acc = np.zeros((b, oh, ow, c), dtype=np.int64)
    sums = np.zeros((b, oh, ow, c), dtype=np.int64)
    for kh in range(kernel):
        for kw in range(kernel):
            window = padded[:, kh * dilation:kh * dilation + stride * oh:stride,
                            kw * dilation:kw * dilation + stride * ow:stride, :]
            acc += window * weights[kh * kernel + kw]
            sums += window
    acc = acc - sums * wz + off
    t = 31 - shift
    out = np.clip(((acc * mult + (1 << (t - 1))) >> t) + zo, 3, 250)

    def array(values):
        return "array<i32: " + ", ".join(str(int(v)) for v in values) + ">"

    def tensor(dims, element):
        return "tensor<" + "x".join(str(d) for d in dims) + f"x{element}>"

    literal = "[" + ", ".join(
        "[" + ", ".join(str(v) for v in row) + "]" for row in weights) + "]"
    image_type = f"!quant.uniform<{storage}:f32, 0.05:{za}>"
    out_type = f"!quant.uniform<u8:f32, 0.1:{zo}>"
    m = b * oh * ow
    source = tensor(shape, "i8")
    padded_i8 = tensor([b, hp, wp, c], "i8")
    if pad:
        pad_bits = pad_value - 256 if pad_value > 127 else pad_value
        padding = f"""  %v = arith.constant {pad_bits} : i8
  %p = tensor.pad %a low[0, {top}, {left}, 0] high[0, {bottom}, {right}, 0] {{
  ^bb0(%i: index, %j: index, %k: index, %l: index):
    tensor.yield %v : i8
  }} : {source} to {padded_i8}
"""
    else:
        padding = ""
    image = "%p" if pad else "%a"
    func = f"""
func.func @{name}(%a: {source}) -> {tensor([m, c], "i8")} {{
{padding}  %q = quant.scast {image} : {padded_i8} to {tensor([b, hp, wp, c], image_type)}
  %r = quanta.qmatmul %q {{depthwise, window = array<i64: {kernel}, {kernel}, {stride}, {stride}, {dilation}, {dilation}>, weights = dense<{literal}> : {tensor([kernel * kernel, c], "i8")}, weight_zero_points = {array(wz)}, column_offsets = {array(off)}, multipliers = {array(mult)}, shifts = {array(shift)}, output_min = 3 : i32, output_max = 250 : i32}} : {tensor([b, hp, wp, c], image_type)} -> {tensor([m, c], out_type)}
  %s = quant.scast %r : {tensor([m, c], out_type)} to {tensor([m, c], "i8")}
  return %s : {tensor([m, c], "i8")}
}}
"""
    dtype = np.int8 if storage == "i8" else np.uint8
    return (func, x.astype(dtype),
            out.reshape(m, c).astype(np.uint8).view(np.int8))


def main():
    write_exec_cases(sys.argv[1], "qdepthwise", case, CASES, 20261126)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes test/Tools/Inputs/conv_exec.mlir: float functions whose
dq -> convolution / matmul / batch matmul -> bias -> activation -> q chains
quanta-quantize turns into quanta.qmatmul (reading an implicit im2col
matrix for convolutions). The
execution test runs each function twice, as written (the float reference
between the dq/q pairs) and quantized, and compares the quantized results
within 1 LSB.

Layouts NHWC/FHWC, NHWC/HWCF and NCHW/FCHW, and depthwise NHWC/HWC and
NHWC/HWCM (depth multiplier 2, collapsed to C*M channels as
tosa-to-linalg does); strides, dilations, padding through a quantized
tensor.pad, odd sizes, u8 and s8 inputs, per-channel and per-tensor
weights (and affine per-tensor ones), bias by init broadcast and by an
add, relu and relu6; fully connected layers with [N, K] weights behind a
transposed map, and on a batch with weights broadcast over it. Output
scales come from the float results on the test input (like calibration).

    /usr/bin/python3 scripts/goldens/gen_conv_exec.py test/Tools/Inputs
"""
import os
import sys

import numpy as np


def fmt(values):
    """An MLIR dense literal of float32 values, nested like the array."""
    if np.ndim(values) == 0:
        return repr(float(np.float32(values)))
    return "[" + ", ".join(fmt(v) for v in values) + "]"


def dense(values):
    # Large constants as raw little-endian bytes: 40% of the text.
    if np.size(values) > 4096:
        raw = np.asarray(values, dtype="<f4").tobytes().hex().upper()
        return f'dense<"0x{raw}">'
    return f"dense<{fmt(values)}>"


def tensor(shape, element="f32"):
    return "tensor<" + "x".join(str(d) for d in shape) + f"x{element}>"


def weight_type(w, axis, symmetric=True):
    """Symmetric s8 weights, per channel along `axis` or per tensor (None);
    or affine s8 weights per tensor, whose zero point the integer kernels
    take out with the input's row sums."""
    if not symmetric:
        scale = np.float32((w.max() - w.min()) / 255)
        zero_point = int(-128 - np.round(w.min() / scale))
        return f"!quant.uniform<i8:f32, {float(scale)!r}:{zero_point}>"
    if axis is None:
        return f"!quant.uniform<i8<-127:127>:f32, {float(np.float32(np.abs(w).max() / 127))!r}>"
    scales = np.abs(np.moveaxis(w, axis, 0).reshape(w.shape[axis], -1)).max(1) / 127
    return f"!quant.uniform<i8<-127:127>:f32:{axis}, {{" + ",".join(
        repr(float(np.float32(s))) for s in scales) + "}>"


def out_scale(w, reduced_axes):
    """A scale for the outputs that keeps most of them in range."""
    span = np.abs(w).sum(axis=reduced_axes).max()
    return repr(float(np.float32(span * 0.7 / 255)))


def q(value, shape, qtype, name):
    return (f"  %{name}_q = quant.qcast %{value} : {tensor(shape)} to {tensor(shape, qtype)}\n"
            f"  %{name} = quant.dcast %{name}_q : {tensor(shape, qtype)} to {tensor(shape)}\n")


def conv(name, layout, x_shape, w_shape, stride, dilation, pad, in_type,
         out_zp, activation, bias_style, rng, symmetric=True):
    """One function; returns its text."""
    w = rng.standard_normal(w_shape).astype(np.float32) * 0.3
    depthwise = layout in ("nhwc_hwc", "nhwc_hwcm")
    # The weights' channel axis (None: per-tensor weights, as the HWCM
    # filter's C * M channels lie on two axes) and the axes of one dot
    # product.
    axis, reduced = {"nhwc_fhwc": (0, (1, 2, 3)), "nhwc_hwcf": (3, (0, 1, 2)),
                     "nchw_fchw": (0, (1, 2, 3)), "nhwc_hwc": (2, (0, 1)),
                     "nhwc_hwcm": (None, (0, 1))}[layout]
    channels = int(np.prod(w_shape[2:])) if depthwise else w_shape[axis]
    bias = rng.standard_normal(channels).astype(np.float32) * 0.5
    n = x_shape[0]
    # pad: one width for every side, or (top, bottom, left, right).
    top, bottom, left, right = (pad,) * 4 if isinstance(pad, int) else pad
    if layout.startswith("nhwc"):
        h, wd = x_shape[1] + top + bottom, x_shape[2] + left + right
        kh, kw = (w_shape[1], w_shape[2]) if layout == "nhwc_fhwc" else (w_shape[0], w_shape[1])
    else:
        h, wd = x_shape[2] + top + bottom, x_shape[3] + left + right
        kh, kw = w_shape[2], w_shape[3]
    oh = (h - dilation * (kh - 1) - 1) // stride + 1
    ow = (wd - dilation * (kw - 1) - 1) // stride + 1
    out_shape = [n, oh, ow, channels] if layout.startswith("nhwc") else [n, channels, oh, ow]
    core_shape = [n, oh, ow] + w_shape[2:] if layout == "nhwc_hwcm" else out_shape
    padded = ([n, h, wd, x_shape[3]] if layout.startswith("nhwc")
              else [n, x_shape[1], h, wd])
    ch_dim = 3 if layout.startswith("nhwc") else 1
    ident = "affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>"
    bcast = f"affine_map<(d0, d1, d2, d3) -> (d{ch_dim})>"
    out_type = f"!quant.uniform<u8:f32, {out_scale(w, reduced)}:{out_zp}>"
    lines = [f"func.func @{name}(%x: {tensor(x_shape)}) -> {tensor(out_shape, out_type)} {{\n"]
    lines.append(q("x", x_shape, in_type, "a"))
    src = "a"
    if pad:
        lo = [0, top, left, 0] if layout.startswith("nhwc") else [0, 0, top, left]
        hi = [0, bottom, right, 0] if layout.startswith("nhwc") else [0, 0, bottom, right]
        lines.append(f"  %zero_pad = arith.constant 0.0 : f32\n"
                     f"  %padded = tensor.pad %a low{lo} high{hi} {{\n"
                     f"  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):\n"
                     f"    tensor.yield %zero_pad : f32\n"
                     f"  }} : {tensor(x_shape)} to {tensor(padded)}\n")
        lines.append(q("padded", padded, in_type, "p"))
        src = "p"
    wtype = weight_type(w, axis, symmetric)
    lines.append(f"  %w_f = arith.constant {dense(w)} : {tensor(w_shape)}\n")
    lines.append(q("w_f", w_shape, wtype, "w"))
    lines.append(f"  %bias = arith.constant {dense(bias)} : {tensor([channels])}\n"
                 f"  %e = tensor.empty() : {tensor(out_shape)}\n")
    if bias_style == "init":
        lines.append(f"  %init = linalg.generic {{indexing_maps = [{bcast}, {ident}], iterator_types = [\"parallel\", \"parallel\", \"parallel\", \"parallel\"]}} ins(%bias : {tensor([channels])}) outs(%e : {tensor(out_shape)}) {{\n"
                     f"  ^bb0(%in: f32, %o: f32):\n    linalg.yield %in : f32\n  }} -> {tensor(out_shape)}\n")
    else:
        lines.append(f"  %zero = arith.constant 0.0 : f32\n"
                     f"  %core_e = tensor.empty() : {tensor(core_shape)}\n"
                     f"  %init = linalg.fill ins(%zero : f32) outs(%core_e : {tensor(core_shape)}) -> {tensor(core_shape)}\n")
    op = "depthwise_conv_2d_" if depthwise else "conv_2d_"
    lines.append(f"  %c = linalg.{op}{layout} {{dilations = dense<{dilation}> : tensor<2xi64>, strides = dense<{stride}> : tensor<2xi64>}} ins(%{src}, %w : {tensor(padded)}, {tensor(w_shape)}) outs(%init : {tensor(core_shape)}) -> {tensor(core_shape)}\n")
    last = "c"
    if core_shape != out_shape:
        lines.append(f"  %collapsed = tensor.collapse_shape %c [[0], [1], [2], [3, 4]] : {tensor(core_shape)} into {tensor(out_shape)}\n")
        last = "collapsed"
    lines.append(epilogue(last, out_shape, ch_dim, out_type, bias_style,
                          activation))
    return "".join(lines)


def epilogue(last, out_shape, ch_dim, out_type, bias_style, activation):
    """The ops after the core %`last`: a bias add (bias_style "add"), relu
    or relu6, the output's quant.qcast and the return."""
    rank = len(out_shape)
    dims = ", ".join(f"d{i}" for i in range(rank))
    ident = f"affine_map<({dims}) -> ({dims})>"
    bcast = f"affine_map<({dims}) -> (d{ch_dim})>"
    parallel = ", ".join(['"parallel"'] * rank)
    channels = [out_shape[ch_dim]]
    text = ""
    if bias_style == "add":
        text += (f"  %e2 = tensor.empty() : {tensor(out_shape)}\n"
                 f"  %biased = linalg.generic {{indexing_maps = [{ident}, {bcast}, {ident}], iterator_types = [{parallel}]}} ins(%{last}, %bias : {tensor(out_shape)}, {tensor(channels)}) outs(%e2 : {tensor(out_shape)}) {{\n"
                 f"  ^bb0(%in: f32, %b: f32, %o: f32):\n    %s = arith.addf %in, %b : f32\n    linalg.yield %s : f32\n  }} -> {tensor(out_shape)}\n")
        last = "biased"
    if activation:
        ops = "    %r0 = arith.maximumf %in, %lo : f32\n"
        result = "%r0"
        if activation == "relu6":
            ops += "    %r1 = arith.minimumf %r0, %hi : f32\n"
            result = "%r1"
        text += (f"  %lo = arith.constant 0.0 : f32\n  %hi = arith.constant 6.0 : f32\n"
                 f"  %e3 = tensor.empty() : {tensor(out_shape)}\n"
                 f"  %act = linalg.generic {{indexing_maps = [{ident}, {ident}], iterator_types = [{parallel}]}} ins(%{last} : {tensor(out_shape)}) outs(%e3 : {tensor(out_shape)}) {{\n"
                 f"  ^bb0(%in: f32, %o: f32):\n{ops}    linalg.yield {result} : f32\n  }} -> {tensor(out_shape)}\n")
        last = "act"
    text += f"  %y = quant.qcast %{last} : {tensor(out_shape)} to {tensor(out_shape, out_type)}\n"
    text += f"  return %y : {tensor(out_shape, out_type)}\n}}\n"
    return text


def linear(name, x_shape, n, transposed, in_type, out_zp, activation,
           bias_style, rng):
    """A fully connected layer on an [M, K] or [B, M, K] input: linalg.matmul
    or, on a batch, linalg.batch_matmul with its [K, N] weights broadcast
    over the batch; per-channel weights stored [N, K] behind a transposed
    map (PyTorch's Linear) or [K, N]; the bias by a linalg.broadcast init
    ("broadcast") or an add."""
    k = x_shape[-1]
    w = rng.standard_normal((k, n)).astype(np.float32) * 0.3
    bias = rng.standard_normal(n).astype(np.float32) * 0.5
    stored = np.ascontiguousarray(w.T) if transposed else w
    out_shape = x_shape[:-1] + [n]
    out_type = f"!quant.uniform<u8:f32, {out_scale(w, (0,))}:{out_zp}>"
    batched = len(x_shape) == 3
    loops = "(b, m, n, k)" if batched else "(m, n, k)"
    lead = "b, " if batched else ""
    rhs = "(n, k)" if transposed else ("(k, n)" if batched else None)
    maps = (f" indexing_maps = [affine_map<{loops} -> ({lead}m, k)>, "
            f"affine_map<{loops} -> {rhs}>, "
            f"affine_map<{loops} -> ({lead}m, n)>]" if rhs else "")
    lines = [f"func.func @{name}(%x: {tensor(x_shape)}) -> {tensor(out_shape, out_type)} {{\n"]
    lines.append(q("x", x_shape, in_type, "a"))
    lines.append(f"  %w_f = arith.constant {dense(stored)} : {tensor(stored.shape)}\n")
    lines.append(q("w_f", list(stored.shape), weight_type(stored, 0 if transposed else 1), "w"))
    lines.append(f"  %bias = arith.constant {dense(bias)} : {tensor([n])}\n"
                 f"  %e = tensor.empty() : {tensor(out_shape)}\n")
    if bias_style == "broadcast":
        dims = ", ".join(str(d) for d in range(len(out_shape) - 1))
        lines.append(f"  %init = linalg.broadcast ins(%bias : {tensor([n])}) outs(%e : {tensor(out_shape)}) dimensions = [{dims}]\n")
    else:
        lines.append(f"  %zero = arith.constant 0.0 : f32\n"
                     f"  %init = linalg.fill ins(%zero : f32) outs(%e : {tensor(out_shape)}) -> {tensor(out_shape)}\n")
    op = "batch_matmul" if batched else "matmul"
    lines.append(f"  %c = linalg.{op}{maps} ins(%a, %w : {tensor(x_shape)}, {tensor(stored.shape)}) outs(%init : {tensor(out_shape)}) -> {tensor(out_shape)}\n")
    lines.append(epilogue("c", out_shape, len(out_shape) - 1, out_type,
                          bias_style, activation))
    return "".join(lines)


def main():
    out_dir = sys.argv[1]
    rng = np.random.default_rng(20261121)
    funcs = [
        conv("nhwc_3x3_s2_pad_relu", "nhwc_fhwc", [1, 9, 9, 5], [4, 3, 3, 5], 2, 1, 1,
             "!quant.uniform<u8:f32, 0.025:128>", 0, "relu", "init", rng),
        conv("nchw_3x3_dilated", "nchw_fchw", [2, 5, 8, 7], [6, 5, 3, 3], 1, 2, 0,
             "!quant.uniform<i8:f32, 0.03:-5>", 120, None, "add", rng),
        conv("nhwc_1x1_relu6", "nhwc_hwcf", [1, 6, 6, 8], [1, 1, 8, 16], 1, 1, 0,
             "!quant.uniform<u8<0:127>:f32, 0.04:64>", 0, "relu6", "init", rng),
        conv("nhwc_2x2_s2_dilated", "nhwc_fhwc", [3, 6, 5, 3], [7, 2, 2, 3], 2, 2, 0,
             "!quant.uniform<u8:f32, 0.02:0>", 128, None, "none", rng),
        conv("depthwise_3x3_pad_relu6", "nhwc_hwc", [2, 7, 9, 6], [3, 3, 6], 1, 1, 1,
             "!quant.uniform<u8:f32, 0.025:128>", 0, "relu6", "init", rng),
        conv("depthwise_m2_s2_dilated", "nhwc_hwcm", [1, 11, 10, 3], [3, 3, 3, 2], 2, 2, 0,
             "!quant.uniform<i8:f32, 0.03:-5>", 120, None, "add", rng),
        conv("nhwc_3x3_pad_affine_weights", "nhwc_fhwc", [2, 6, 7, 8], [20, 3, 3, 8], 1, 1, 1,
             "!quant.uniform<i8:f32, 0.03:7>", 10, None, "init", rng, symmetric=False),
        conv("nchw_3x3_pad_7bit_relu", "nchw_fchw", [1, 6, 9, 9], [10, 6, 3, 3], 1, 1, 1,
             "!quant.uniform<u8<0:127>:f32, 0.05:60>", 0, "relu", "add", rng),
        # Uneven padding, wider than the window reaches: the first output
        # row's taps all fall in the padding (top 5, dilation 2), the last
        # column keeps one tap.
        conv("nhwc_3x3_s2_d2_uneven_pad", "nhwc_fhwc", [2, 5, 6, 4], [9, 3, 3, 4], 2, 2,
             (5, 1, 0, 4), "!quant.uniform<u8:f32, 0.02:100>", 50, None, "init", rng),
        # A small image of many channels: its classes of pixels are too few
        # rows for whole tiles and its strips of weights (K = 9 * 128)
        # larger than L1, so its tiles loop over one tap at a time.
        conv("nhwc_3x3_pad_by_tap", "nhwc_fhwc", [2, 3, 4, 128], [20, 3, 3, 128], 1, 1, 1,
             "!quant.uniform<u8:f32, 0.02:128>", 5, "relu", "init", rng, symmetric=False),
        # Fully connected layers: PyTorch's Linear ([N, K] weights), and on
        # a batch with weights broadcast over it (one GEMM of B * M rows).
        linear("linear_transposed_relu", [9, 37], 21, True,
               "!quant.uniform<u8:f32, 0.03:120>", 0, "relu", "broadcast", rng),
        linear("batch_linear", [3, 5, 24], 19, False,
               "!quant.uniform<i8:f32, 0.03:-4>", 100, None, "add", rng),
    ]
    header = ("// Generated by scripts/goldens/gen_conv_exec.py; do not edit.\n"
              "// Float chains that quanta-quantize turns into integer code.\n\n")
    with open(os.path.join(out_dir, "conv_exec.mlir"), "w") as f:
        f.write(header + "\n".join(funcs))


if __name__ == "__main__":
    main()

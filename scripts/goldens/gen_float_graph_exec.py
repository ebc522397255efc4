#!/usr/bin/env python3
"""Writes the quant-run execution test of the float lowering of a whole
NCHW graph, as the ONNX importer writes one: padded 3x3 convolution, bias
add, clamp, depthwise convolution at stride 2 and its bias, 1x1
convolution, bias and residual add, max pool, global sum pool, flatten, a
matmul and its bias. quanta-lower-x86/-neon run it NHWC between one
transpose in and one out, with the bias adds, the clamp and the residual
add fused into the kernels' epilogues. The values are small integers, so
every sum is exact in float32 whatever the order: the expectation,
computed here in NumPy int64, must match bit for bit.

    /usr/bin/python3 scripts/goldens/gen_float_graph_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import nested, write_exec_cases

# name, batch, channels, height, width, expanded channels, classes
CASES = [
    ("block", 2, 8, 10, 11, 16, 5),
    ("narrow", 1, 3, 7, 6, 4, 3),
]

CLAMP = (0, 40)


def literal(values):
    return nested([f"{float(v):.1f}" for v in values.reshape(-1)],
                  values.shape)


def tensor(shape):
    return "tensor<" + "x".join(str(d) for d in shape) + "xf32>"


def conv(x, w, stride=1):
    """NCHW x, FCHW w, no padding."""
    n, c, h, wd = x.shape
    f, _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, f, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            rows = x[:, :, i:i + (oh - 1) * stride + 1:stride,
                     j:j + (ow - 1) * stride + 1:stride]
            out += np.einsum("nchw,fc->nfhw", rows, w[:, :, i, j])
    return out


def depthwise(x, w, stride):
    """NCHW x, CHW w."""
    n, c, h, wd = x.shape
    _, kh, kw = w.shape
    oh, ow = (h - kh) // stride + 1, (wd - kw) // stride + 1
    out = np.zeros((n, c, oh, ow), dtype=np.int64)
    for i in range(kh):
        for j in range(kw):
            out += x[:, :, i:i + (oh - 1) * stride + 1:stride,
                     j:j + (ow - 1) * stride + 1:stride] * \
                w[None, :, i, j, None, None]
    return out


def pad(x):
    return np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))


def pad_op(result, source, shape, padded):
    """`%result`: `%source` zero-padded by one on height and width."""
    return f"""  %{result} = tensor.pad %{source} low[0, 0, 1, 1] high[0, 0, 1, 1] {{
  ^bb0(%i0: index, %i1: index, %i2: index, %i3: index):
    tensor.yield %zero : f32
  }} : {tensor(shape)} to {tensor(padded)}
"""


def case(rng, name, n, c, h, w, e, classes):
    x = rng.integers(-3, 4, size=(n, c, h, w))
    w1 = rng.integers(-2, 3, size=(e, c, 3, 3))
    b1 = rng.integers(-10, 11, size=e)
    w2 = rng.integers(-2, 3, size=(e, 3, 3))
    b2 = rng.integers(-10, 11, size=e)
    w3 = rng.integers(-1, 2, size=(e, e, 1, 1))
    b3 = rng.integers(-10, 11, size=e)
    w4 = rng.integers(-1, 2, size=(e, classes))
    b4 = rng.integers(-10, 11, size=classes)

    a = np.clip(conv(pad(x), w1) + b1[None, :, None, None], *CLAMP)
    d = depthwise(pad(a), w2, 2) + b2[None, :, None, None]
    r = conv(d, w3) + b3[None, :, None, None] + d
    dh, dw = r.shape[2:]
    pooled = np.maximum.reduce([r[:, :, i:i + dh - 1, j:j + dw - 1]
                                for i in range(2) for j in range(2)])
    summed = pooled.sum(axis=(2, 3))
    logits = summed @ w4 + b4
    for value in (a, d, r, summed, logits):
        assert np.abs(value).max() < 2**24
    ph, pw = dh - 1, dw - 1
    A, P = (n, e, h, w), (n, e, h + 2, w + 2)
    D, X, Q = (n, e, dh, dw), (n, c, h + 2, w + 2), (n, e, ph, pw)
    func = f"""
func.func @{name}(%x: {tensor(x.shape)}) -> {tensor((n, classes))} {{
  %zero = arith.constant 0.0 : f32
  %low = arith.constant {float(CLAMP[0]):.1f} : f32
  %high = arith.constant {float(CLAMP[1]):.1f} : f32
  %ninf = arith.constant 0xFF800000 : f32
  %w1 = arith.constant dense<{literal(w1)}> : {tensor(w1.shape)}
  %b1 = arith.constant dense<{literal(b1)}> : {tensor((e,))}
  %w2 = arith.constant dense<{literal(w2)}> : {tensor(w2.shape)}
  %b2 = arith.constant dense<{literal(b2)}> : {tensor((e,))}
  %w3 = arith.constant dense<{literal(w3)}> : {tensor(w3.shape)}
  %b3 = arith.constant dense<{literal(b3)}> : {tensor((e,))}
  %w4 = arith.constant dense<{literal(w4)}> : {tensor(w4.shape)}
  %b4 = arith.constant dense<{literal(b4)}> : {tensor((classes,))}
{pad_op("xp", "x", x.shape, X)}  %e1 = tensor.empty() : {tensor(A)}
  %f1 = linalg.fill ins(%zero : f32) outs(%e1 : {tensor(A)}) -> {tensor(A)}
  %c1 = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%xp, %w1 : {tensor(X)}, {tensor(w1.shape)}) outs(%f1 : {tensor(A)}) -> {tensor(A)}
  %g1 = linalg.generic {{indexing_maps = [#id, #channel, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c1, %b1 : {tensor(A)}, {tensor((e,))}) outs(%e1 : {tensor(A)}) {{
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  }} -> {tensor(A)}
  %a = linalg.generic {{indexing_maps = [#id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%g1 : {tensor(A)}) outs(%e1 : {tensor(A)}) {{
  ^bb0(%in: f32, %out: f32):
    %lo = arith.maximumf %in, %low : f32
    %hi = arith.minimumf %lo, %high : f32
    linalg.yield %hi : f32
  }} -> {tensor(A)}
{pad_op("ap", "a", A, P)}  %e2 = tensor.empty() : {tensor(D)}
  %f2 = linalg.fill ins(%zero : f32) outs(%e2 : {tensor(D)}) -> {tensor(D)}
  %c2 = linalg.depthwise_conv_2d_nchw_chw {{dilations = dense<1> : tensor<2xi64>, strides = dense<2> : tensor<2xi64>}} ins(%ap, %w2 : {tensor(P)}, {tensor(w2.shape)}) outs(%f2 : {tensor(D)}) -> {tensor(D)}
  %d = linalg.generic {{indexing_maps = [#id, #channel, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c2, %b2 : {tensor(D)}, {tensor((e,))}) outs(%e2 : {tensor(D)}) {{
  ^bb0(%in: f32, %b: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    linalg.yield %s : f32
  }} -> {tensor(D)}
  %c3 = linalg.conv_2d_nchw_fchw {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%d, %w3 : {tensor(D)}, {tensor(w3.shape)}) outs(%f2 : {tensor(D)}) -> {tensor(D)}
  %r = linalg.generic {{indexing_maps = [#id, #channel, #id, #id], iterator_types = ["parallel", "parallel", "parallel", "parallel"]}} ins(%c3, %b3, %d : {tensor(D)}, {tensor((e,))}, {tensor(D)}) outs(%e2 : {tensor(D)}) {{
  ^bb0(%in: f32, %b: f32, %skip: f32, %out: f32):
    %s = arith.addf %in, %b : f32
    %t = arith.addf %s, %skip : f32
    linalg.yield %t : f32
  }} -> {tensor(D)}
  %window = tensor.empty() : tensor<2x2xf32>
  %e3 = tensor.empty() : {tensor(Q)}
  %f3 = linalg.fill ins(%ninf : f32) outs(%e3 : {tensor(Q)}) -> {tensor(Q)}
  %p = linalg.pooling_nchw_max {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%r, %window : {tensor(D)}, tensor<2x2xf32>) outs(%f3 : {tensor(Q)}) -> {tensor(Q)}
  %all = tensor.empty() : tensor<{ph}x{pw}xf32>
  %e4 = tensor.empty() : {tensor((n, e, 1, 1))}
  %f4 = linalg.fill ins(%zero : f32) outs(%e4 : {tensor((n, e, 1, 1))}) -> {tensor((n, e, 1, 1))}
  %s = linalg.pooling_nchw_sum {{dilations = dense<1> : tensor<2xi64>, strides = dense<1> : tensor<2xi64>}} ins(%p, %all : {tensor(Q)}, tensor<{ph}x{pw}xf32>) outs(%f4 : {tensor((n, e, 1, 1))}) -> {tensor((n, e, 1, 1))}
  %flat = tensor.collapse_shape %s [[0], [1, 2, 3]] : {tensor((n, e, 1, 1))} into {tensor((n, e))}
  %e5 = tensor.empty() : {tensor((n, classes))}
  %f5 = linalg.fill ins(%zero : f32) outs(%e5 : {tensor((n, classes))}) -> {tensor((n, classes))}
  %m = linalg.matmul ins(%flat, %w4 : {tensor((n, e))}, {tensor(w4.shape)}) outs(%f5 : {tensor((n, classes))}) -> {tensor((n, classes))}
  %logits = linalg.generic {{indexing_maps = [#id2, #column, #id2], iterator_types = ["parallel", "parallel"]}} ins(%m, %b4 : {tensor((n, classes))}, {tensor((classes,))}) outs(%e5 : {tensor((n, classes))}) {{
  ^bb0(%in: f32, %b: f32, %out: f32):
    %t = arith.addf %in, %b : f32
    linalg.yield %t : f32
  }} -> {tensor((n, classes))}
  return %logits : {tensor((n, classes))}
}}
"""
    return func, x.astype(np.float32), logits.astype(np.float32)


def main():
    write_exec_cases(sys.argv[1], "float_graph", case, CASES, 20261129)
    path = f"{sys.argv[1]}/float_graph_exec.mlir"
    with open(path) as f:
        text = f.read()
    header, _, body = text.partition("\n")
    maps = ("#id = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2, d3)>\n"
            "#channel = affine_map<(d0, d1, d2, d3) -> (d1)>\n"
            "#id2 = affine_map<(d0, d1) -> (d0, d1)>\n"
            "#column = affine_map<(d0, d1) -> (d1)>\n")
    with open(path, "w") as f:
        f.write(header + "\n" + maps + body)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the small ONNX models of the importer's lit tests
(test/Import/Onnx/Inputs), built node by node with python3-onnx:

  cnn.onnx         conv (pads, bias) + relu, maxpool, grouped and depthwise
                   convs, global average pool, flatten, gemm (transB, as
                   PyTorch's Linear exports), softmax; symbolic batch 'N'
  qdq.onnx         a QDQ model as ONNX Runtime's quantizer writes it: u8
                   activations per tensor, s8 weights per channel, i32 bias
  qdq_head.onnx    QDQ depthwise conv + Gemm (transB, weights per channel);
                   qdq_head_s8.onnx with symmetric s8 activations
  qdq_se.onnx      QDQ 5x5 depthwise conv + squeeze-excite (EfficientNet)
  qdq_ffn.onnx     a transformer feed-forward block in QDQ form: MatMul of
                   [batch, 8, 16] by per-channel s8 weights, bias Add,
                   Relu, MatMul, residual Add
  qlinear_u8.onnx  QLinearMatMul with u8 weights and a zero point
  unary_chains.onnx  GELU and SiLU as torch 1.13 exports them (chains of
                   elementwise nodes of one tensor) between MatMuls
  layer_norm13.onnx  nn.LayerNorm as exported before opset 17 (nine
                   nodes), over one and over two trailing axes
  qoperator.onnx   ONNX Runtime's QOperator contrib ops (com.microsoft);
                   qoperator_nhwc.onnx with channels_last pooling
  opset18.onnx     an opset the importer does not take
  unsupported.onnx an op it does not translate (named node)
  dynamic_shape.onnx  Reshape whose shape is computed, not constant
  external.onnx    an initializer in external data whose file is missing
  truncated.onnx   cnn.onnx cut in half
  garbage.onnx     bytes that are no protobuf

    /usr/bin/python3 scripts/goldens/gen_onnx_test_models.py \
        test/Import/Onnx/Inputs
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

out = sys.argv[1]
rng = np.random.default_rng(7)


def init(name, array):
    return numpy_helper.from_array(np.asarray(array), name)


def save(model, name):
    onnx.checker.check_model(model)
    onnx.save(model, os.path.join(out, name))


def cnn():
    nodes = [
        helper.make_node("Conv", ["x", "w1", "b1"], ["c1"], name="conv1",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["r1"], name="relu1"),
        helper.make_node("MaxPool", ["r1"], ["p1"], name="pool1",
                         kernel_shape=[2, 2], strides=[2, 2]),
        helper.make_node("Conv", ["p1", "w2"], ["c2"], name="grouped",
                         group=2, strides=[2, 2], pads=[1, 1, 1, 1]),
        helper.make_node("Conv", ["c2", "w3", "b3"], ["c3"], name="depthwise",
                         group=8, pads=[1, 1, 1, 1]),
        helper.make_node("GlobalAveragePool", ["c3"], ["g"], name="gap"),
        helper.make_node("Flatten", ["g"], ["f"], name="flatten"),
        helper.make_node("Gemm", ["f", "w4", "b4"], ["logits"], name="fc",
                         transB=1),
        helper.make_node("Softmax", ["logits"], ["y"], name="softmax",
                         axis=1),
    ]
    f32 = np.float32
    inits = [
        init("w1", rng.normal(size=(4, 1, 3, 3)).astype(f32)),
        init("b1", rng.normal(size=4).astype(f32)),
        init("w2", rng.normal(size=(8, 2, 3, 3)).astype(f32)),
        init("w3", rng.normal(size=(8, 1, 3, 3)).astype(f32)),
        init("b3", rng.normal(size=8).astype(f32)),
        init("w4", rng.normal(size=(10, 8)).astype(f32)),
        init("b4", rng.normal(size=10).astype(f32)),
    ]
    graph = helper.make_graph(
        nodes, "cnn",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["N", 1, 8, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, ["N", 10])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def qdq():
    f32 = np.float32
    w = rng.integers(-127, 128, size=(4, 3, 3, 3)).astype(np.int8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("DequantizeLinear", ["xq", "xs", "xz"], ["xd"]),
        helper.make_node("DequantizeLinear", ["wq", "ws", "wz"], ["wd"],
                         axis=0),
        helper.make_node("DequantizeLinear", ["bq", "bs"], ["bd"], axis=0),
        helper.make_node("Conv", ["xd", "wd", "bd"], ["c"], name="conv",
                         pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c"], ["r"], name="relu"),
        helper.make_node("QuantizeLinear", ["r", "ys", "yz"], ["yq"]),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    ws = (rng.uniform(0.001, 0.01, size=4)).astype(f32)
    xs = f32(0.02)
    inits = [
        init("xs", xs), init("xz", np.uint8(128)),
        init("wq", w), init("ws", ws), init("wz", np.zeros(4, np.int8)),
        init("bq", rng.integers(-1000, 1000, size=4).astype(np.int32)),
        init("bs", (xs * ws).astype(f32)),
        init("ys", f32(0.05)), init("yz", np.uint8(0)),
    ]
    graph = helper.make_graph(
        nodes, "qdq",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, [1, 3, 6, 6])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4, 6, 6])],
        inits)
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def single(node, opset, inputs, outputs, inits=()):
    graph = helper.make_graph([node], "single", inputs, outputs, list(inits))
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", opset)])


def vi(name, shape, dtype=TensorProto.FLOAT):
    return helper.make_tensor_value_info(name, dtype, shape)


os.makedirs(out, exist_ok=True)
save(cnn(), "cnn.onnx")
save(qdq(), "qdq.onnx")
save(single(helper.make_node("Relu", ["x"], ["y"], name="relu"), 18,
            [vi("x", [2, 3])], [vi("y", [2, 3])]), "opset18.onnx")
save(single(helper.make_node("Det", ["x"], ["y"], name="mixer"), 13,
            [vi("x", [3, 3])], [vi("y", [])]), "unsupported.onnx")
shape_graph = helper.make_graph(
    [helper.make_node("Shape", ["x"], ["s"], name="shape_of_x"),
     helper.make_node("Reshape", ["x", "s"], ["y"], name="reshape")],
    "dynamic", [vi("x", [2, 3])], [vi("y", [2, 3])])
# Shape is not translated either: the reshape's shape input then is the
# first error; the test checks the op named.
onnx.save(helper.make_model(shape_graph,
                            opset_imports=[helper.make_opsetid("", 13)]),
          os.path.join(out, "dynamic_shape.onnx"))
reshape = single(helper.make_node("Reshape", ["x", "shape"], ["y"],
                                  name="reshape"), 13,
                 [vi("x", [2, 3]), vi("shape", [2], TensorProto.INT64)],
                 [vi("y", [3, 2])])
save(reshape, "runtime_shape.onnx")
external = single(helper.make_node("Add", ["x", "w"], ["y"], name="add"), 13,
                  [vi("x", [4])], [vi("y", [4])],
                  [init("w", np.arange(4, dtype=np.float32))])
tensor = external.graph.initializer[0]
tensor.ClearField("raw_data")
tensor.data_location = TensorProto.EXTERNAL
for key, value in (("location", "missing_weights.bin"), ("offset", "0"),
                   ("length", "16")):
    entry = tensor.external_data.add()
    entry.key, entry.value = key, value
onnx.save(external, os.path.join(out, "external.onnx"))
data = open(os.path.join(out, "cnn.onnx"), "rb").read()
open(os.path.join(out, "truncated.onnx"), "wb").write(data[: len(data) // 2])
open(os.path.join(out, "garbage.onnx"), "wb").write(b"\xff\xfe not a model")

# QuantizeLinear where ONNX's rounding of x / scale and PyTorch's (and
# Quanta's) x * (1 / scale) disagree: ties of x / scale and their float
# neighbours, plus random values. The expected bytes are ONNX's formula,
# saturate(round_half_even(x / scale) + zero_point), in float32 as its
# reference implementation computes it.
scale, zero = np.float32(0.0235), np.uint8(128)
ties = (np.arange(-128, 127).astype(np.float32) + np.float32(0.5)) * scale
x = np.concatenate([ties, np.nextafter(ties, np.float32(np.inf)),
                    np.nextafter(ties, np.float32(-np.inf)),
                    rng.uniform(-3.5, 3.5, 235).astype(np.float32)])
x = x.astype(np.float32)
np.save(os.path.join(out, "quantize_rounding_x.npy"), x)
onnx_q = np.clip(np.rint(x / scale) + np.float32(zero), 0, 255).astype(np.uint8)
np.save(os.path.join(out, "quantize_rounding_onnx.npy"), onnx_q)
save(single(helper.make_node("QuantizeLinear", ["x", "s", "z"], ["y"],
                             name="quantize"), 13,
            [vi("x", [x.size])], [vi("y", [x.size], TensorProto.UINT8)],
            [init("s", scale), init("z", zero)]), "quantize_rounding.onnx")

# Conv -> BatchNormalization -> Relu with constant parameters: the importer
# folds the batch norm into the convolution. The expected output is the
# unfolded float network in numpy (float64, then float32).
x = rng.normal(size=(1, 2, 5, 5)).astype(np.float32)
w = rng.normal(size=(3, 2, 3, 3)).astype(np.float32)
b = rng.normal(size=3).astype(np.float32)
gamma, beta = rng.uniform(0.5, 2, 3).astype(np.float32), rng.normal(size=3).astype(np.float32)
mean, var = rng.normal(size=3).astype(np.float32), rng.uniform(0.2, 2, 3).astype(np.float32)
padded = np.pad(x.astype(np.float64), ((0, 0), (0, 0), (1, 1), (1, 1)))
conv = np.zeros((1, 3, 5, 5))
for kh in range(3):
    for kw in range(3):
        conv += np.einsum("nchw,fc->nfhw", padded[:, :, kh:kh + 5, kw:kw + 5],
                          w[:, :, kh, kw])
conv += b[None, :, None, None]
norm = ((conv - mean[None, :, None, None]) /
        np.sqrt(var[None, :, None, None] + 1e-5) * gamma[None, :, None, None] +
        beta[None, :, None, None])
np.save(os.path.join(out, "conv_bn_x.npy"), x)
np.save(os.path.join(out, "conv_bn_expected.npy"),
        np.maximum(norm, 0).astype(np.float32))
save(helper.make_model(helper.make_graph(
    [helper.make_node("Conv", ["x", "w", "b"], ["c"], name="conv",
                      pads=[1, 1, 1, 1]),
     helper.make_node("BatchNormalization", ["c", "gamma", "beta", "mean",
                                             "var"], ["n"], name="bn"),
     helper.make_node("Relu", ["n"], ["y"], name="relu")],
    "conv_bn", [vi("x", [1, 2, 5, 5])], [vi("y", [1, 3, 5, 5])],
    [init("w", w), init("b", b), init("gamma", gamma), init("beta", beta),
     init("mean", mean), init("var", var)]),
    opset_imports=[helper.make_opsetid("", 13)]), "conv_bn.onnx")

# Activations after convolutions, each of the forms PyTorch quantizes:
# HardSwish and LeakyRelu observe their output, Sigmoid and HardSigmoid
# have fixed qparams in [0, 1], Tanh in [-1, 1].
f32 = np.float32
acts = [("HardSwish", "hswish", {}), ("LeakyRelu", "leaky", {"alpha": 0.1}),
        ("Sigmoid", "sigmoid", {}), ("HardSigmoid", "hsigmoid", {}),
        ("Tanh", "tanh", {})]
nodes, inits, previous, channels = [], [], "x", 1
for index, (op, name, attrs) in enumerate(acts):
    kernel = 3 if index < 2 else 1
    nodes.append(helper.make_node(
        "Conv", [previous, f"w{index}", f"b{index}"], [f"c{index}"],
        name=f"conv{index}", pads=[kernel // 2] * 4))
    inits += [init(f"w{index}", (rng.normal(size=(4, channels, kernel, kernel))
                                 * 0.5).astype(f32)),
              init(f"b{index}", rng.normal(size=4).astype(f32))]
    output = "y" if index == len(acts) - 1 else f"a{index}"
    nodes.append(helper.make_node(op, [f"c{index}"], [output], name=name,
                                  **attrs))
    previous, channels = output, 4
save(helper.make_model(helper.make_graph(
    nodes, "activations", [vi("x", [2, 1, 6, 6])], [vi("y", [2, 4, 6, 6])],
    inits), opset_imports=[helper.make_opsetid("", 14)]), "activations.onnx")

# A classifier head as MobileNet-style exports write it: conv, relu, the
# mean over H and W (ReduceMean, not GlobalAveragePool), fully connected.
save(helper.make_model(helper.make_graph(
    [helper.make_node("Conv", ["x", "hw", "hb"], ["c"], name="conv",
                      pads=[1, 1, 1, 1]),
     helper.make_node("Relu", ["c"], ["r"], name="relu"),
     helper.make_node("ReduceMean", ["r"], ["m"], name="mean", axes=[2, 3],
                      keepdims=0),
     helper.make_node("Gemm", ["m", "fw", "fb"], ["y"], name="fc", transB=1)],
    "mean_head", [vi("x", [2, 3, 5, 5])], [vi("y", [2, 4])],
    [init("hw", (rng.normal(size=(6, 3, 3, 3)) * 0.4).astype(f32)),
     init("hb", rng.normal(size=6).astype(f32)),
     init("fw", rng.normal(size=(4, 6)).astype(f32)),
     init("fb", rng.normal(size=4).astype(f32))]),
    opset_imports=[helper.make_opsetid("", 13)]), "mean_head.onnx")

# ResNet's stem: conv, relu, a padded max pool (its -inf padding is the
# pool's own), conv.
save(helper.make_model(helper.make_graph(
    [helper.make_node("Conv", ["x", "sw1", "sb1"], ["c1"], name="conv1",
                      strides=[2, 2], pads=[3, 3, 3, 3]),
     helper.make_node("Relu", ["c1"], ["r"], name="relu"),
     helper.make_node("MaxPool", ["r"], ["p"], name="maxpool",
                      kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1]),
     helper.make_node("Conv", ["p", "sw2", "sb2"], ["y"], name="conv2",
                      pads=[1, 1, 1, 1])],
    "stem", [vi("x", [1, 3, 16, 16])], [vi("y", [1, 8, 4, 4])],
    [init("sw1", (rng.normal(size=(8, 3, 7, 7)) * 0.2).astype(f32)),
     init("sb1", rng.normal(size=8).astype(f32)),
     init("sw2", (rng.normal(size=(8, 8, 3, 3)) * 0.2).astype(f32)),
     init("sb2", rng.normal(size=8).astype(f32))]),
    opset_imports=[helper.make_opsetid("", 13)]), "stem.onnx")

# Inputs the ONNX fuzzer (fuzz/OnnxFuzzer.cpp) found to crash the importer,
# rebuilt as small models; each is now an error (import-fuzz-findings.mlir).
# Written without onnx.checker, which rejects some of them itself.
fuzz_dir = os.path.join(out, "fuzz")
os.makedirs(fuzz_dir, exist_ok=True)


def save_unchecked(model, name):
    onnx.save(model, os.path.join(fuzz_dir, name))


# A Reshape target whose element count overflows int64.
save_unchecked(single(
    helper.make_node("Reshape", ["x", "shape"], ["y"], name="reshape"), 13,
    [vi("x", [2, 3])], [vi("y", [2 ** 40, 2 ** 40])],
    [init("shape", np.array([2 ** 40, 2 ** 40], np.int64))]),
    "reshape_overflow.onnx")
# Average pools whose pads make billions of outputs: beyond the window
# limit, and within it (the divisors then need more memory than allowed).
for name, pad in [("pool_huge_pads", 2 ** 40), ("pool_large_pads", 2 ** 20)]:
    save_unchecked(single(
        helper.make_node("AveragePool", ["x"], ["y"], name="pool",
                         kernel_shape=[3, 3], pads=[pad, pad, pad, pad],
                         count_include_pad=0), 13,
        [vi("x", [1, 1, 4, 4])], [vi("y", [1, 1, 1, 1])]), name + ".onnx")
# A DequantizeLinear whose zero point is a float tensor.
save_unchecked(single(
    helper.make_node("DequantizeLinear", ["x", "s", "z"], ["y"], name="dq"),
    13, [vi("x", [4], TensorProto.INT8)], [vi("y", [4])],
    [init("s", np.array(0.5, np.float32)), init("z", np.array(1.0, np.float32))]),
    "float_zero_point.onnx")
# A Pad whose constant_value is float64.
save_unchecked(single(
    helper.make_node("Pad", ["x", "pads", "v"], ["y"], name="pad"), 13,
    [vi("x", [2, 2])], [vi("y", [4, 4])],
    [init("pads", np.array([1, 1, 1, 1], np.int64)),
     init("v", np.array(1.0, np.float64))]), "pad_f64_value.onnx")
# A QLinearConv with 2 weight scales and a bias of 4 values.
save_unchecked(single(
    helper.make_node("QLinearConv", ["x", "xs", "xz", "w", "ws", "wz", "ys",
                                     "yz", "b"], ["y"], name="qconv"), 13,
    [vi("x", [1, 1, 3, 3], TensorProto.UINT8)],
    [vi("y", [1, 2, 3, 3], TensorProto.UINT8)],
    [init("xs", np.array(0.1, np.float32)), init("xz", np.array(0, np.uint8)),
     init("w", np.ones((2, 1, 1, 1), np.int8)),
     init("ws", np.array([0.2, 0.3], np.float32)),
     init("wz", np.zeros(2, np.int8)),
     init("ys", np.array(0.5, np.float32)), init("yz", np.array(0, np.uint8)),
     init("b", np.zeros(4, np.int32))]), "qlinearconv_bias_size.onnx")
# Pads that make a tensor of more than 2^63 elements, and a graph input of
# that many.
save_unchecked(single(
    helper.make_node("Pad", ["x", "pads"], ["y"], name="pad"), 13,
    [vi("x", [2, 2])], [vi("y", [4, 4])],
    [init("pads", np.array([2 ** 40, 0, 2 ** 40, 2 ** 40], np.int64))]),
    "pad_overflow.onnx")
save_unchecked(single(
    helper.make_node("Relu", ["x"], ["y"], name="relu"), 13,
    [vi("x", [2 ** 40, 2 ** 40])], [vi("y", [2 ** 40, 2 ** 40])]),
    "input_overflow.onnx")
# Two countable inputs whose broadcast sum is not (the check on every node
# output).
save_unchecked(single(
    helper.make_node("Add", ["a", "b"], ["y"], name="add"), 13,
    [vi("a", [2 ** 40, 1]), vi("b", [1, 2 ** 40])],
    [vi("y", [2 ** 40, 2 ** 40])]), "broadcast_overflow.onnx")

# The two layers ONNX Runtime's QDQ output left float (issue 34): a
# depthwise convolution, whose [C, 1, 3, 3] weights the importer reshapes,
# and a fully connected layer as Gemm with transB=1, whose weights it
# transposes; both with s8 weights per output channel (axis 0) and i32
# biases, u8 activations per tensor, as quantize_static writes them.
def qdq_head(activations=np.uint8):
    head_rng = np.random.default_rng(34)
    channels, classes = 4, 3
    dw = head_rng.integers(-127, 128, size=(channels, 1, 3, 3)).astype(np.int8)
    fc = head_rng.integers(-127, 128, size=(classes, channels)).astype(np.int8)
    dws = head_rng.uniform(0.002, 0.01, size=channels).astype(f32)
    fcs = head_rng.uniform(0.002, 0.01, size=classes).astype(f32)
    xs, ds, gs = f32(0.02), f32(0.03), f32(0.015)

    def qdq_pair(name, scale, zero):
        return [helper.make_node("QuantizeLinear", [name, scale, zero],
                                 [name + "_q"]),
                helper.make_node("DequantizeLinear",
                                 [name + "_q", scale, zero], [name + "_d"])]

    def weights(name, axis):
        return helper.make_node("DequantizeLinear",
                                [name + "_q", name + "_s", name + "_z"],
                                [name + "_d"], axis=axis)

    nodes = (qdq_pair("x", "xs", "xz") + [
        weights("dw", 0),
        helper.make_node("DequantizeLinear", ["dwb_q", "dwb_s"], ["dwb_d"],
                         axis=0),
        helper.make_node("Conv", ["x_d", "dw_d", "dwb_d"], ["d"],
                         name="depthwise", group=channels, pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["d"], ["r"], name="relu"),
    ] + qdq_pair("r", "ds", "dz") + [
        helper.make_node("GlobalAveragePool", ["r_d"], ["g"], name="gap"),
    ] + qdq_pair("g", "gs", "gz") + [
        helper.make_node("Flatten", ["g_d"], ["f"], name="flatten"),
    ] + qdq_pair("f", "gs", "gz") + [
        weights("fc", 0),
        helper.make_node("DequantizeLinear", ["fcb_q", "fcb_s"], ["fcb_d"],
                         axis=0),
        helper.make_node("Gemm", ["f_d", "fc_d", "fcb_d"], ["y"], name="fc",
                         transB=1),
    ] + qdq_pair("y", "ys", "yz"))
    # u8 activations as ONNX Runtime writes them (x with zero point 128);
    # s8 ones, symmetric, as TensorRT's quantizer writes them.
    x_zero = 128 if activations == np.uint8 else 0
    inits = [
        init("xs", xs), init("xz", activations(x_zero)),
        init("dw_q", dw), init("dw_s", dws),
        init("dw_z", np.zeros(channels, np.int8)),
        init("dwb_q", head_rng.integers(-500, 500, channels).astype(np.int32)),
        init("dwb_s", (xs * dws).astype(f32)),
        init("ds", ds), init("dz", activations(0)),
        init("gs", gs), init("gz", activations(0)),
        init("fc_q", fc), init("fc_s", fcs),
        init("fc_z", np.zeros(classes, np.int8)),
        init("fcb_q", head_rng.integers(-500, 500, classes).astype(np.int32)),
        init("fcb_s", (gs * fcs).astype(f32)),
        init("ys", f32(0.05)), init("yz", activations(x_zero)),
    ]
    graph = helper.make_graph(nodes, "qdq_head", [vi("x", [1, channels, 6, 6])],
                              [vi("y_d", [1, classes])], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


save(qdq_head(), "qdq_head.onnx")
save(qdq_head(np.int8), "qdq_head_s8.onnx")


# QLinearMatMul with u8 weights and a zero point (ONNX Runtime's QOperator
# format, QLinearConv's weights in the ONNX suite): the importer takes them
# as the s8 weights with the same values.
def qlinear_u8():
    u8_rng = np.random.default_rng(35)
    b = u8_rng.integers(0, 256, size=(6, 5)).astype(np.uint8)
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "xs", "xz"], ["xq"]),
        helper.make_node("QLinearMatMul",
                         ["xq", "xs", "xz", "b", "bs", "bz", "ys", "yz"],
                         ["yq"], name="matmul"),
        helper.make_node("DequantizeLinear", ["yq", "ys", "yz"], ["y"]),
    ]
    inits = [
        init("xs", f32(0.02)), init("xz", np.uint8(128)),
        init("b", b), init("bs", f32(0.01)), init("bz", np.uint8(120)),
        init("ys", f32(0.1)), init("yz", np.uint8(128)),
    ]
    graph = helper.make_graph(nodes, "qlinear_u8", [vi("x", [3, 6])],
                              [vi("y", [3, 5])], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


save(qlinear_u8(), "qlinear_u8.onnx")


# ONNX Runtime's QOperator format: its contrib ops (domain com.microsoft)
# around a QLinearConv: a residual QLinearAdd, QLinearLeakyRelu,
# QLinearSigmoid and QLinearMul (a swish), QLinearConcat,
# QLinearGlobalAveragePool and QGemm, u8 activations.
def qoperator(channels_last=0):
    op_rng = np.random.default_rng(36)
    channels = 4

    def contrib(op, inputs, output, **attrs):
        return helper.make_node(op, inputs, [output], name=output,
                                domain="com.microsoft", **attrs)

    scales = {"x": 0.02, "c": 0.04, "a": 0.05, "l": 0.05, "s": 1 / 256,
              "m": 0.03, "cat": 0.05, "g": 0.02}
    nodes = [
        helper.make_node("QuantizeLinear", ["x", "x_s", "x_z"], ["xq"]),
        helper.make_node("QLinearConv",
                         ["xq", "x_s", "x_z", "w", "w_s", "w_z", "c_s", "c_z",
                          "bias"], ["cq"], name="conv", pads=[1, 1, 1, 1]),
        contrib("QLinearAdd", ["cq", "c_s", "c_z", "xq", "x_s", "x_z", "a_s",
                               "a_z"], "aq"),
        contrib("QLinearLeakyRelu", ["aq", "a_s", "a_z", "l_s", "l_z"], "lq",
                alpha=0.1),
        contrib("QLinearSigmoid", ["lq", "l_s", "l_z", "s_s", "s_z"], "sq"),
        contrib("QLinearMul", ["sq", "s_s", "s_z", "lq", "l_s", "l_z", "m_s",
                               "m_z"], "mq"),
        contrib("QLinearConcat", ["cat_s", "cat_z", "mq", "m_s", "m_z", "lq",
                                  "l_s", "l_z"], "catq", axis=1),
        contrib("QLinearGlobalAveragePool", ["catq", "cat_s", "cat_z", "g_s",
                                             "g_z"], "gq",
                channels_last=channels_last),
        # Flatten on the quantized tensor, then QGemm (the fully connected
        # layer, weights per output channel, transB) with an i32 bias.
        helper.make_node("Flatten", ["gq"], ["fq"], name="flatten"),
        contrib("QGemm", ["fq", "g_s", "g_z", "fc", "fc_s", "fc_z", "fc_b",
                          "y_s", "y_z"], "yq", transB=1),
        helper.make_node("DequantizeLinear", ["yq", "y_s", "y_z"], ["y"]),
    ]
    classes = 3
    fcs = op_rng.uniform(0.002, 0.01, classes).astype(f32)
    ws = op_rng.uniform(0.002, 0.01, channels).astype(f32)
    inits = [init("w", op_rng.integers(-127, 128, (channels, channels, 3, 3))
                  .astype(np.int8)),
             init("w_s", ws), init("w_z", np.zeros(channels, np.int8)),
             init("bias", op_rng.integers(-300, 300, channels)
                  .astype(np.int32))]
    inits += [init("fc", op_rng.integers(-127, 128, (classes, 2 * channels))
                   .astype(np.int8)),
              init("fc_s", fcs), init("fc_z", np.zeros(classes, np.int8)),
              init("fc_b", op_rng.integers(-300, 300, classes)
                   .astype(np.int32))]
    scales["y"] = 0.05
    for name, scale in scales.items():
        inits.append(init(name + "_s", f32(scale)))
        inits.append(init(name + "_z", np.uint8(0 if name in ("s", "g")
                                                else 128)))
    graph = helper.make_graph(nodes, "qoperator",
                              [vi("x", [1, channels, 6, 6])],
                              [vi("y", [1, classes])], inits)
    return helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)])


onnx.save(qoperator(), os.path.join(out, "qoperator.onnx"))
# The same with NHWC average pooling, which the importer does not take.
onnx.save(qoperator(channels_last=1),
          os.path.join(out, "qoperator_nhwc.onnx"))


# An EfficientNet-style block in QDQ: a 5x5 depthwise convolution, then
# squeeze-excite (global average pool, a 1x1 convolution, a sigmoid, the
# block's output scaled by it with a broadcasting Mul).
def qdq_se():
    se_rng = np.random.default_rng(37)
    channels = 4

    def qdq_pair(name, scale, zero):
        return [helper.make_node("QuantizeLinear", [name, scale, zero],
                                 [name + "_q"]),
                helper.make_node("DequantizeLinear",
                                 [name + "_q", scale, zero], [name + "_d"])]

    nodes = (qdq_pair("x", "xs", "xz") + [
        helper.make_node("DequantizeLinear", ["dw_q", "dw_s", "dw_z"],
                         ["dw_d"], axis=0),
        helper.make_node("Conv", ["x_d", "dw_d"], ["d"], name="depthwise5x5",
                         group=channels, pads=[2, 2, 2, 2]),
    ] + qdq_pair("d", "ds", "dz") + [
        helper.make_node("GlobalAveragePool", ["d_d"], ["g"], name="squeeze"),
    ] + qdq_pair("g", "gs", "gz") + [
        helper.make_node("DequantizeLinear", ["fc_q", "fc_s", "fc_z"],
                         ["fc_d"], axis=0),
        helper.make_node("Conv", ["g_d", "fc_d"], ["e"], name="excite"),
    ] + qdq_pair("e", "es", "ez") + [
        helper.make_node("Sigmoid", ["e_d"], ["s"], name="gate"),
    ] + qdq_pair("s", "ss", "sz") + [
        helper.make_node("Mul", ["d_d", "s_d"], ["y"], name="scale"),
    ] + qdq_pair("y", "ys", "yz"))
    inits = [
        init("xs", f32(0.02)), init("xz", np.uint8(128)),
        init("dw_q", se_rng.integers(-127, 128, (channels, 1, 5, 5))
             .astype(np.int8)),
        init("dw_s", se_rng.uniform(0.002, 0.006, channels).astype(f32)),
        init("dw_z", np.zeros(channels, np.int8)),
        init("ds", f32(0.03)), init("dz", np.uint8(128)),
        init("gs", f32(0.01)), init("gz", np.uint8(128)),
        init("fc_q", se_rng.integers(-127, 128, (channels, channels, 1, 1))
             .astype(np.int8)),
        init("fc_s", np.full(channels, 0.01, f32)),
        init("fc_z", np.zeros(channels, np.int8)),
        init("es", f32(0.05)), init("ez", np.uint8(128)),
        init("ss", f32(1 / 256)), init("sz", np.uint8(0)),
        init("ys", f32(0.02)), init("yz", np.uint8(128)),
    ]
    graph = helper.make_graph(nodes, "qdq_se", [vi("x", [1, channels, 7, 7])],
                              [vi("y_d", [1, channels, 7, 7])], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


save(qdq_se(), "qdq_se.onnx")


# A transformer's feed-forward block as ONNX Runtime's quantize_static
# writes it in QDQ form: MatMul of a [batch, seq, d] activation by s8
# weights per output channel (axis 1 of [K, N]), a float bias Add after it,
# Q/DQ around every activation, a residual Add. Symbolic batch.
def qdq_ffn():
    ffn_rng = np.random.default_rng(35)
    d, hidden = 16, 32

    def qdq_pair(name, scale, zero):
        return [helper.make_node("QuantizeLinear", [name, scale, zero],
                                 [name + "_q"]),
                helper.make_node("DequantizeLinear",
                                 [name + "_q", scale, zero], [name + "_d"])]

    def linear(x, name, k, n):
        w = ffn_rng.integers(-127, 128, size=(k, n)).astype(np.int8)
        scales = ffn_rng.uniform(0.002, 0.01, size=n).astype(f32)
        inits = [init(name + "_q", w), init(name + "_s", scales),
                 init(name + "_z", np.zeros(n, np.int8)),
                 init(name + "_b",
                      ffn_rng.uniform(-0.1, 0.1, size=n).astype(f32))]
        nodes = [helper.make_node("DequantizeLinear",
                                  [name + "_q", name + "_s", name + "_z"],
                                  [name + "_w"], axis=1),
                 helper.make_node("MatMul", [x, name + "_w"], [name + "_mm"],
                                  name=name),
                 helper.make_node("Add", [name + "_mm", name + "_b"],
                                  [name + "_y"], name=name + "_bias")]
        return nodes, inits

    up, up_inits = linear("x_d", "up", d, hidden)
    down, down_inits = linear("r_d", "down", hidden, d)
    nodes = (qdq_pair("x", "xs", "xz") + up + qdq_pair("up_y", "us", "uz") +
             [helper.make_node("Relu", ["up_y_d"], ["r"], name="relu")] +
             qdq_pair("r", "rs", "rz") + down +
             qdq_pair("down_y", "ds", "dz") +
             [helper.make_node("Add", ["x_d", "down_y_d"], ["y"],
                               name="residual")] +
             qdq_pair("y", "ys", "yz"))
    inits = up_inits + down_inits + [
        init("xs", f32(0.02)), init("xz", np.uint8(128)),
        init("us", f32(0.04)), init("uz", np.uint8(128)),
        init("rs", f32(0.02)), init("rz", np.uint8(0)),
        init("ds", f32(0.03)), init("dz", np.uint8(128)),
        init("ys", f32(0.04)), init("yz", np.uint8(128)),
    ]
    graph = helper.make_graph(nodes, "qdq_ffn", [vi("x", ["batch", 8, d])],
                              [vi("y_d", ["batch", 8, d])], inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


save(qdq_ffn(), "qdq_ffn.onnx")


# Bad inputs of the transformer and recurrent ops: an Expand to a negative
# size, a Range whose limit is NaN, a GRU initial state of rank 2.
def save_bad(model, name):
    onnx.save(model, os.path.join(out, name))


save_bad(single(
    helper.make_node("Expand", ["x", "shape"], ["y"], name="expand"), 13,
    [vi("x", [1, 3])], [vi("y", [2, 3])],
    [init("shape", np.array([-2, 3], np.int64))]), "expand_negative.onnx")
save_bad(single(
    helper.make_node("Range", ["start", "limit", "delta"], ["y"],
                     name="range"), 13, [], [vi("y", [4])],
    [init("start", f32(0)), init("limit", f32(np.nan)),
     init("delta", f32(1))]), "range_nan.onnx")
gru_rng = np.random.default_rng(36)
save_bad(single(
    helper.make_node("GRU", ["x", "W", "R", "", "", "h0"], ["y"], name="gru",
                     hidden_size=4), 14,
    [vi("x", [3, 2, 5]), vi("h0", [2, 4])], [vi("y", None)],
    [init("W", gru_rng.standard_normal((1, 12, 5)).astype(f32)),
     init("R", gru_rng.standard_normal((1, 12, 4)).astype(f32))]),
    "gru_bad_state.onnx")


# Activations written as chains of elementwise nodes of one tensor, as
# torch 1.13 exports them: GELU (Div by sqrt 2, Erf, Add 1, Mul x, Mul 0.5)
# and SiLU (Sigmoid, Mul x), between MatMuls; and a chain whose
# intermediate value is a graph output too, which stays node by node.
chain_rng = np.random.default_rng(41)
save(helper.make_model(helper.make_graph(
    [helper.make_node("MatMul", ["x", "w"], ["h"], name="fc"),
     helper.make_node("Div", ["h", "sqrt2"], ["g0"], name="gelu_div"),
     helper.make_node("Erf", ["g0"], ["g1"], name="gelu_erf"),
     helper.make_node("Add", ["g1", "one"], ["g2"], name="gelu_add"),
     helper.make_node("Mul", ["h", "g2"], ["g3"], name="gelu_mul"),
     helper.make_node("Mul", ["g3", "half"], ["g"], name="gelu"),
     helper.make_node("MatMul", ["g", "w2"], ["gelu_fc"], name="gelu_fc"),
     helper.make_node("Sigmoid", ["h"], ["s0"], name="silu_sigmoid"),
     helper.make_node("Mul", ["h", "s0"], ["s"], name="silu"),
     helper.make_node("MatMul", ["s", "w3"], ["silu_fc"], name="silu_fc"),
     helper.make_node("Neg", ["h"], ["negated"], name="neg"),
     helper.make_node("Exp", ["negated"], ["exp"], name="exp")],
    "unary_chains", [vi("x", [4, 8])],
    [vi("gelu_fc", [4, 8]), vi("silu_fc", [4, 8]), vi("exp", [4, 8]),
     vi("negated", [4, 8])],
    [init("w", chain_rng.standard_normal((8, 8)).astype(f32)),
     init("w2", chain_rng.standard_normal((8, 8)).astype(f32)),
     init("w3", chain_rng.standard_normal((8, 8)).astype(f32)),
     init("sqrt2", f32(1.4142135)), init("one", f32(1.0)),
     init("half", f32(0.5))]),
    opset_imports=[helper.make_opsetid("", 13)]), "unary_chains.onnx")


# nn.LayerNorm as torch 1.13 exports it before opset 17 (ReduceMean, Sub,
# Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul gamma, Add beta; the exponent
# and eps as Constant nodes), over the last axis and over the last two,
# each before a MatMul; a third whose centered values are a graph output
# too, which stays node by node.
norm_rng = np.random.default_rng(43)


def layer_norm(prefix, x, axes, output):
    def const(name, value):
        return helper.make_node(
            "Constant", [], [f"{prefix}/{name}"], name=f"{prefix}/{name}",
            value=numpy_helper.from_array(f32(value), f"{prefix}/{name}"))
    return [
        helper.make_node("ReduceMean", [x], [f"{prefix}/mean"],
                         name=f"{prefix}/ReduceMean", axes=axes),
        helper.make_node("Sub", [x, f"{prefix}/mean"], [f"{prefix}/d"],
                         name=f"{prefix}/Sub"),
        const("two", 2.0),
        helper.make_node("Pow", [f"{prefix}/d", f"{prefix}/two"],
                         [f"{prefix}/sq"], name=f"{prefix}/Pow"),
        helper.make_node("ReduceMean", [f"{prefix}/sq"], [f"{prefix}/var"],
                         name=f"{prefix}/ReduceMean_1", axes=axes),
        const("eps", 1e-5),
        helper.make_node("Add", [f"{prefix}/var", f"{prefix}/eps"],
                         [f"{prefix}/v"], name=f"{prefix}/Add"),
        helper.make_node("Sqrt", [f"{prefix}/v"], [f"{prefix}/s"],
                         name=f"{prefix}/Sqrt"),
        helper.make_node("Div", [f"{prefix}/d", f"{prefix}/s"],
                         [f"{prefix}/n"], name=f"{prefix}/Div"),
        helper.make_node("Mul", [f"{prefix}/n", f"{prefix}.weight"],
                         [f"{prefix}/w"], name=f"{prefix}/Mul"),
        helper.make_node("Add", [f"{prefix}/w", f"{prefix}.bias"], [output],
                         name=f"{prefix}/Add_1")]


norm_shapes = {"/ln": [8], "/ln2": [5, 8], "/ln3": [8]}
save(helper.make_model(helper.make_graph(
    layer_norm("/ln", "x", [-1], "n1")
    + [helper.make_node("MatMul", ["n1", "w"], ["y1"], name="fc1")]
    + layer_norm("/ln2", "x", [-2, -1], "n2")
    + [helper.make_node("MatMul", ["n2", "w"], ["y2"], name="fc2")]
    + layer_norm("/ln3", "x", [-1], "y3"),
    "layer_norm13", [vi("x", [2, 5, 8])],
    [vi("y1", [2, 5, 4]), vi("y2", [2, 5, 4]), vi("y3", [2, 5, 8]),
     vi("/ln3/d", [2, 5, 8])],
    [init("w", norm_rng.standard_normal((8, 4)).astype(f32))]
    + [init(f"{prefix}.{name}",
            norm_rng.standard_normal(shape).astype(f32) * scale + offset)
       for prefix, shape in norm_shapes.items()
       for name, scale, offset in (("weight", 0.1, 1.0), ("bias", 0.1, 0.0))]),
    opset_imports=[helper.make_opsetid("", 13)]), "layer_norm13.onnx")
norm_x = norm_rng.standard_normal((2, 5, 8)).astype(f32)
norm_x[1] *= 0.01  # rows of very different scales, as a ViT's class token
np.save(os.path.join(out, "layer_norm13_x.npy"), norm_x)


def reference_norm(x, axes, weight, bias):
    x = x.astype(np.float64)
    mean = x.mean(axis=axes, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=axes, keepdims=True)
    return (x - mean) / np.sqrt(var + 1e-5) * weight + bias


norm_model = onnx.load(os.path.join(out, "layer_norm13.onnx"))
norm_params = {t.name: numpy_helper.to_array(t).astype(np.float64)
               for t in norm_model.graph.initializer}
np.save(os.path.join(out, "layer_norm13_expected.npy"), np.stack([
    reference_norm(norm_x, (-1,), norm_params["/ln.weight"],
                   norm_params["/ln.bias"]) @ norm_params["w"],
    reference_norm(norm_x, (-2, -1), norm_params["/ln2.weight"],
                   norm_params["/ln2.bias"]) @ norm_params["w"]]))

# A layer norm chain whose Mul has lost its gamma: the fusion leaves it to
# the Mul's own translation, which names the problem.
broken_norm = layer_norm("/ln", "x", [-1], "y")
broken_norm[9].input.pop()
save_unchecked(helper.make_model(helper.make_graph(
    broken_norm, "broken_norm", [vi("x", [2, 5, 8])], [vi("y", [2, 5, 8])],
    [init("/ln.bias", np.zeros(8, f32))]),
    opset_imports=[helper.make_opsetid("", 13)]), "layer_norm_one_input.onnx")

#!/usr/bin/env python3
"""Generates test/Import/Onnx/Inputs/dynamic_matmul_*.onnx, their input and
expected outputs: a small float graph quantized dynamically as ONNX
Runtime's quantize_dynamic writes it (benchmarks/ort_dynamic.py).

Run once with Debian's Python:
    /usr/bin/python3 scripts/goldens/gen_onnx_dynamic_models.py [--ort DIR]

The float graph: x [2, 5, 24] -> MatMul W1 + b1 -> Relu = h1; x -> MatMul
W3 + b3 = h3 (one DynamicQuantizeLinear of x shared by both); MatMul(h1 +
h3, W2) without a bias = y. K = 24 and N = 10 are not multiples of any
vector width. Three quantizations of it:
- dynamic_matmul_s8.onnx: int8 weights per tensor (the default);
- dynamic_matmul_per_channel.onnx: int8 weights per column;
- dynamic_matmul_u8.onnx: uint8 weights with zero points (weight_type
  QUInt8), whose B - zero point leaves int8: the importer keeps those
  MatMuls as integer linalg ops.
- dynamic_quantize_matmul.onnx: ONNX Runtime's own fused node
  (com.microsoft.DynamicQuantizeMatMul, what its graph optimizer makes of
  the chain, saved with optimizedModelFilePath) on W1 per column with b1;
  dynamic_quantize_matmul_wide_zero_point.onnx the same with zero points
  of -128, B - zero point leaving int8 (the kernels subtract them);
  dynamic_quantize_matmul_runtime_b.onnx the same with B a graph input,
  and dynamic_quantize_matmul_{zero_scale,short_bias}.onnx with a weight
  scale of 0 and a bias of 3 values, which the importer refuses.
- dynamic_conv_{s8,u8}.onnx: a float CNN (x [2, 3, 9, 11] -> 3x3 Conv with
  bias, padding 1 -> Relu -> 3x3 Conv without bias, strides [2, 1],
  dilations [1, 2], pads [1, 0, 1, 2] -> 1x1 Conv with bias = y) quantized
  as quantize_dynamic writes Conv (ConvInteger, per-tensor weights, the
  bias through a Reshape), with the default QInt8 weights and with QUInt8
  ones (asymmetric, zero point != 0: for years the only ConvInteger weights
  ONNX Runtime's CPU provider ran); dynamic_grouped_conv_u8.onnx the same
  of a depthwise 3x3 Conv with bias and a 3x3 Conv of 2 groups, stride 2
  (x [1, 4, 6, 7]); dynamic_wide_grouped_conv_u8.onnx of a 3x3 Conv of 2
  groups of 300 channels, whose sums f32 would not hold exactly;
  dynamic_conv_window_too_large.onnx dynamic_conv's model on a 2x2 image
  (conv2's window does not fit), which the importer refuses.
The expected outputs are the ONNX graph's node by node in float32 NumPy
(DynamicQuantizeLinear as ONNX Runtime computes it, exact integer products,
each Mul and Add rounded to float32), the semantics the importer and the
kernels reproduce bit for bit. With --ort (a directory where `make ort`
installed onnxruntime-node) it also runs each model in ONNX Runtime and
prints whether its output is the same bits.
"""
import argparse
import os
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
sys.path.insert(0, os.path.join(ROOT, "benchmarks"))
from ort_dynamic import dynamic_model, quantize_weights  # noqa: E402

OUT = os.path.join(ROOT, "test", "Import", "Onnx", "Inputs")
f32 = np.float32


def float_graph(rng, name, nodes, weights, x_shape, y_shape, scale=0.5):
    """An opset-13 model of `nodes` from x to y, its initializers (name,
    shape) drawn in order from rng.normal times `scale`."""
    inits = [numpy_helper.from_array(
        (rng.normal(size=shape) * scale).astype(f32), weight)
        for weight, shape in weights]
    graph = helper.make_graph(
        nodes, name,
        [helper.make_tensor_value_info("x", TensorProto.FLOAT, x_shape)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, y_shape)],
        inits)
    return helper.make_model(graph,
                             opset_imports=[helper.make_opsetid("", 13)])


def float_model(rng):
    nodes = [
        helper.make_node("MatMul", ["x", "w1"], ["m1"], "fc1"),
        helper.make_node("Add", ["m1", "b1"], ["a1"], "fc1_bias"),
        helper.make_node("Relu", ["a1"], ["h1"], "relu"),
        helper.make_node("MatMul", ["x", "w3"], ["m3"], "fc3"),
        helper.make_node("Add", ["b3", "m3"], ["h3"], "fc3_bias"),
        helper.make_node("Add", ["h1", "h3"], ["s"], "sum"),
        helper.make_node("MatMul", ["s", "w2"], ["y"], "fc2"),
    ]
    return float_graph(
        rng, "dynamic_matmul", nodes,
        [("w1", (24, 16)), ("b1", (16,)), ("w3", (24, 16)), ("b3", (16,)),
         ("w2", (16, 10))], [2, 5, 24], [2, 5, 10])


def conv_float_model(rng):
    nodes = [
        helper.make_node("Conv", ["x", "cw1", "cb1"], ["c1"], "conv1",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1]),
        helper.make_node("Relu", ["c1"], ["h"], "relu"),
        helper.make_node("Conv", ["h", "cw2"], ["c2"], "conv2",
                         kernel_shape=[3, 3], strides=[2, 1],
                         dilations=[1, 2], pads=[1, 0, 1, 2]),
        helper.make_node("Conv", ["c2", "cw3", "cb3"], ["y"], "conv3"),
    ]
    return float_graph(
        rng, "dynamic_conv", nodes,
        [("cw1", (8, 3, 3, 3)), ("cb1", (8,)), ("cw2", (12, 8, 3, 3)),
         ("cw3", (6, 12, 1, 1)), ("cb3", (6,))], [2, 3, 9, 11], [2, 6, 5, 9])


def grouped_conv_float_model(rng):
    """A depthwise 3x3 Conv with bias (group 4) and a 3x3 Conv of group 2,
    stride 2."""
    nodes = [
        helper.make_node("Conv", ["x", "gw1", "gb1"], ["g1"], "depthwise",
                         kernel_shape=[3, 3], pads=[1, 1, 1, 1], group=4),
        helper.make_node("Conv", ["g1", "gw2"], ["y"], "grouped",
                         kernel_shape=[3, 3], strides=[2, 2], group=2),
    ]
    return float_graph(
        rng, "dynamic_grouped_conv", nodes,
        [("gw1", (4, 1, 3, 3)), ("gb1", (4,)), ("gw2", (6, 2, 3, 3))],
        [1, 4, 6, 7], [1, 6, 2, 3])


def wide_grouped_conv_float_model(rng):
    """A 3x3 Conv of 2 groups of 300 channels: 2700 taps, whose sums f32
    does not hold exactly (2700 * 255 * 127 > 2^24)."""
    return float_graph(
        rng, "dynamic_wide_grouped_conv",
        [helper.make_node("Conv", ["x", "ww"], ["y"], "wide", group=2,
                          kernel_shape=[3, 3])],
        [("ww", (2, 300, 3, 3))], [1, 600, 3, 3], [1, 2, 1, 1], scale=1.0)


def conv_integer(x, w, x_zero, w_zero, attributes):
    """ONNX's ConvInteger, exactly: (x - x_zero) * (w - w_zero) summed in
    int64 over windows of x padded with x_zero, as int32; each of `group`
    groups of channels and filters on its own."""
    group = attributes.get("group", 1)
    if group > 1:
        inner = dict(attributes, group=1)
        xs = np.split(x, group, axis=1)
        ws = np.split(w, group, axis=0)
        return np.concatenate([conv_integer(xg, wg, x_zero, w_zero, inner)
                               for xg, wg in zip(xs, ws)], axis=1)
    pads = attributes.get("pads", [0, 0, 0, 0])
    sh, sw = attributes.get("strides", [1, 1])
    dh, dw = attributes.get("dilations", [1, 1])
    xp = np.pad(x.astype(np.int64) - np.int64(x_zero),
                ((0, 0), (0, 0), (pads[0], pads[2]), (pads[1], pads[3])))
    wv = w.astype(np.int64) - np.int64(w_zero)
    _, _, height, width = xp.shape
    filters, _, kh_size, kw_size = w.shape
    out_h = (height - dh * (kh_size - 1) - 1) // sh + 1
    out_w = (width - dw * (kw_size - 1) - 1) // sw + 1
    out = np.zeros((x.shape[0], filters, out_h, out_w), np.int64)
    for kh in range(kh_size):
        for kw in range(kw_size):
            patch = xp[:, :, kh * dh:kh * dh + sh * (out_h - 1) + 1:sh,
                       kw * dw:kw * dw + sw * (out_w - 1) + 1:sw]
            out += np.einsum("nchw,fc->nfhw", patch, wv[:, :, kh, kw])
    return out.astype(np.int32)


def round_half_even(x):
    return np.round(x).astype(f32)


def evaluate_node(op_type, ins):
    """DynamicQuantizeLinear as ONNX Runtime computes it: (u8 values,
    float32 scale, u8 zero point)."""
    assert op_type == "DynamicQuantizeLinear"
    lo = min(f32(ins[0].min()), f32(0))
    hi = max(f32(ins[0].max()), f32(0))
    scale = f32(1) if hi == lo else f32(f32(hi - lo) / f32(255))
    zero = round_half_even(np.clip(f32(0) - f32(lo / scale), 0, 255))
    q = np.clip(round_half_even(ins[0] / scale) + zero, 0, 255)
    return [q.astype(np.uint8), np.array(scale, f32),
            np.array(zero, np.uint8)]


def evaluate(model, x):
    """The graph node by node in float32, ONNX Runtime's formulas (NumPy's
    float32 products and sums round as ONNX Runtime's Mul and Add do)."""
    values = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values["x"] = x
    for node in model.graph.node:
        ins = [values[name] for name in node.input]
        if node.op_type == "DynamicQuantizeLinear":
            out = evaluate_node(node.op_type, ins)
        elif node.op_type == "DynamicQuantizeMatMul":
            # Its definition: the chain it fuses.
            aq, a_scale, a_zero = evaluate_node("DynamicQuantizeLinear",
                                                ins[:1])
            product = ((aq.astype(np.int64) - np.int64(a_zero))
                       @ (ins[1].astype(np.int64) - ins[3].astype(np.int64)))
            out = [(product.astype(np.int32).astype(f32)
                    * (a_scale * ins[2]).astype(f32) + ins[4]).astype(f32)]
        elif node.op_type == "MatMulInteger":
            a = ins[0].astype(np.int64) - ins[2].astype(np.int64)
            b = ins[1].astype(np.int64) - ins[3].astype(np.int64)
            out = [(a @ b).astype(np.int32)]
        elif node.op_type == "ConvInteger":
            attributes = {a.name: helper.get_attribute_value(a)
                          for a in node.attribute}
            out = [conv_integer(*ins, attributes)]
        elif node.op_type == "Reshape":
            out = [ins[0].reshape(ins[1])]
        elif node.op_type == "Cast":
            out = [ins[0].astype(f32)]
        elif node.op_type == "Mul":
            out = [(ins[0] * ins[1]).astype(f32)]
        elif node.op_type == "Add":
            out = [(ins[0] + ins[1]).astype(f32)]
        elif node.op_type == "Relu":
            out = [np.maximum(ins[0], f32(0))]
        else:
            raise ValueError(node.op_type)
        for name, value in zip(node.output, out):
            assert value.dtype != np.float64, node.op_type
            values[name] = value
    return values["y"]


def contrib_models(model):
    """ONNX Runtime's DynamicQuantizeMatMul on W1 per column with b1, and
    the same with B a graph input."""
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    values, scales, zeros = quantize_weights(inits["w1"], True, False)
    node = helper.make_node(
        "DynamicQuantizeMatMul", ["x", "w1_quantized", "w1_scale",
                                  "w1_zero_point", "b1"], ["y"],
        "fc1_fused", domain="com.microsoft")
    tensors = [numpy_helper.from_array(array, name) for name, array in [
        ("w1_quantized", values), ("w1_scale", scales),
        ("w1_zero_point", zeros), ("b1", inits["b1"])]]
    opsets = [helper.make_opsetid("", 13), helper.make_opsetid("com.microsoft", 1)]
    x = helper.make_tensor_value_info("x", TensorProto.FLOAT, [2, 5, 24])
    y = helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 5, 16])
    fused = helper.make_model(
        helper.make_graph([node], "dynamic_quantize_matmul", [x], [y],
                          tensors), opset_imports=opsets)
    runtime_b = helper.make_model(
        helper.make_graph(
            [node], "dynamic_quantize_matmul_runtime_b",
            [x, helper.make_tensor_value_info("w1_quantized", TensorProto.INT8,
                                              [24, 16])],
            [y], tensors[1:]), opset_imports=opsets)
    return fused, runtime_b


def bad_contrib_models(fused):
    """The fused model with one constant the kernels cannot take."""
    def replaced(name, array):
        model = onnx.ModelProto.FromString(fused.SerializeToString())
        for tensor in model.graph.initializer:
            if tensor.name == name:
                tensor.CopyFrom(numpy_helper.from_array(array, name))
        return model
    inits = {t.name: numpy_helper.to_array(t) for t in fused.graph.initializer}
    scales = inits["w1_scale"].copy()
    scales[3] = 0
    return {
        "zero_scale": replaced("w1_scale", scales),
        "short_bias": replaced("b1", inits["b1"][:3]),
    }, replaced("w1_zero_point", np.full_like(inits["w1_zero_point"], -128))


def ort_output(ort, path, x):
    script = os.path.join(ROOT, "benchmarks", "ort_session.js")
    with tempfile.TemporaryDirectory() as tmp:
        xin, yout = os.path.join(tmp, "x.bin"), os.path.join(tmp, "y.bin")
        x.tofile(xin)
        subprocess.run(["node", script, "time", "--model", path, "--shape",
                        ",".join(map(str, x.shape)), "--input", xin,
                        "--output", yout, "--repeats", "1", "--ort", ort],
                       check=True, capture_output=True)
        return np.fromfile(yout, f32)


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ort", help="where make ort installed "
                        "onnxruntime-node (build/ort)")
    args = parser.parse_args()
    rng = np.random.default_rng(33)
    model = float_model(rng)
    x = (rng.normal(size=(2, 5, 24)) * 1.5).astype(f32)
    np.save(os.path.join(OUT, "dynamic_matmul_x.npy"), x)
    for suffix, options in [("s8", {}), ("per_channel", {"per_channel": True}),
                            ("u8", {"unsigned_weights": True})]:
        quantized = dynamic_model(model, **options)
        path = os.path.join(OUT, f"dynamic_matmul_{suffix}.onnx")
        onnx.save(quantized, path)
        check(args, path, quantized, x, f"dynamic_matmul_{suffix}")
    fused, runtime_b = contrib_models(model)
    path = os.path.join(OUT, "dynamic_quantize_matmul.onnx")
    onnx.save(fused, path)
    check(args, path, fused, x, "dynamic_quantize_matmul")
    onnx.save(runtime_b,
              os.path.join(OUT, "dynamic_quantize_matmul_runtime_b.onnx"))
    bad_models, wide_zero_point = bad_contrib_models(fused)
    for suffix, bad in bad_models.items():
        onnx.save(bad, os.path.join(
            OUT, f"dynamic_quantize_matmul_{suffix}.onnx"))
    path = os.path.join(OUT, "dynamic_quantize_matmul_wide_zero_point.onnx")
    onnx.save(wide_zero_point, path)
    check(args, path, wide_zero_point, x,
          "dynamic_quantize_matmul_wide_zero_point")

    conv_model = conv_float_model(rng)
    x = (rng.normal(size=(2, 3, 9, 11)) * 1.5).astype(f32)
    np.save(os.path.join(OUT, "dynamic_conv_x.npy"), x)
    for suffix, unsigned in [("s8", False), ("u8", True)]:
        quantized = dynamic_model(conv_model, unsigned_weights=unsigned)
        path = os.path.join(OUT, f"dynamic_conv_{suffix}.onnx")
        onnx.save(quantized, path)
        check(args, path, quantized, x, f"dynamic_conv_{suffix}")

    grouped = dynamic_model(grouped_conv_float_model(rng),
                            unsigned_weights=True)
    x = (rng.normal(size=(1, 4, 6, 7)) * 1.5).astype(f32)
    np.save(os.path.join(OUT, "dynamic_grouped_conv_x.npy"), x)
    path = os.path.join(OUT, "dynamic_grouped_conv_u8.onnx")
    onnx.save(grouped, path)
    check(args, path, grouped, x, "dynamic_grouped_conv_u8")

    # A 3x3 window on a 2x2 image without padding: no output pixel.
    small = conv_float_model(np.random.default_rng(0))
    small.graph.input[0].type.tensor_type.shape.dim[2].dim_value = 2
    small.graph.input[0].type.tensor_type.shape.dim[3].dim_value = 2
    onnx.save(dynamic_model(small), os.path.join(
        OUT, "dynamic_conv_window_too_large.onnx"))

    wide = dynamic_model(wide_grouped_conv_float_model(rng),
                         unsigned_weights=True)
    x = (rng.normal(size=(1, 600, 3, 3)) * 1.5).astype(f32)
    np.save(os.path.join(OUT, "dynamic_wide_grouped_conv_x.npy"), x)
    path = os.path.join(OUT, "dynamic_wide_grouped_conv_u8.onnx")
    onnx.save(wide, path)
    check(args, path, wide, x, "dynamic_wide_grouped_conv_u8")


def check(args, path, model, x, name):
    """Writes the expected output; compares with ONNX Runtime's."""
    expected = evaluate(model, x)
    np.save(os.path.join(OUT, f"{name}_expected.npy"), expected)
    if args.ort:
        try:
            output = ort_output(args.ort, path, x)
        except subprocess.CalledProcessError as error:
            # Older ONNX Runtimes have no ConvInteger of int8 weights.
            print(f"{name}: ONNX Runtime refuses the model:",
                  error.stderr.decode().strip().splitlines()[-1])
            return
        same = np.array_equal(output.view(np.uint32),
                              expected.reshape(-1).view(np.uint32))
        print(f"{name}: ONNX Runtime's output",
              "identical" if same else "DIFFERS")


if __name__ == "__main__":
    main()

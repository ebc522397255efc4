#!/usr/bin/env python3
"""Generates test/Import/Onnx/Inputs/dynamic_lstm_*.onnx, their input and
ONNX Runtime's outputs: com.microsoft.DynamicQuantizeLSTM, the node ONNX
Runtime's quantize_dynamic writes for an LSTM (W [dirs, I, 4H] and R [dirs,
H, 4H], the transposes of LSTM's, quantized to int8 or uint8, a scale and
zero point per direction or per direction and column).

Run once with Debian's Python after `make ort`:
    /usr/bin/python3 scripts/goldens/gen_onnx_dynamic_lstm.py --ort build/ort

- dynamic_lstm_s8.onnx: forward, X [7, 1, 16], hidden 24, a bias, int8
  weights per tensor with zero point 0 (what quantize_dynamic writes).
- dynamic_lstm_u8.onnx: bidirectional, X [7, 2, 16], uint8 weights with
  zero point 128 and a scale per column, peepholes and initial states.
- dynamic_lstm_bad_scale.onnx, dynamic_lstm_bad_weights.onnx:
  dynamic_lstm_s8 with 3 weight scales, and with W in LSTM's own layout
  [dirs, 4H, I]: refused by the importer.

ONNX Runtime's gates use MLAS's own sigmoid and tanh approximations, so
its outputs cannot be matched bit for bit (nor summed in its order); the
test compares within a tolerance far below the quantization's own error,
which this script prints (each model's float LSTM beside it).
"""
import argparse
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

sys.path.insert(0, os.path.dirname(__file__))
from gen_onnx_dynamic_models import ort_output  # noqa: E402

ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..")
OUT = os.path.join(ROOT, "test", "Import", "Onnx", "Inputs")
f32 = np.float32


def quantize(w, unsigned, per_column):
    """w [dirs, K, N] to int8 (symmetric, zero point 0) or uint8 (zero
    point 128), a scale per direction or per direction and column."""
    axes = (1,) if per_column else (1, 2)
    amax = np.abs(w).max(axis=axes, keepdims=True)
    scale = (amax / 127).astype(f32)
    q = np.clip(np.rint(w / scale), -127, 127)
    zero = 128 if unsigned else 0
    q = (q + zero).astype(np.uint8 if unsigned else np.int8)
    scale = scale.reshape(w.shape[0], -1)
    if not per_column:
        scale = scale.reshape(-1)
    zeros = np.full(scale.shape, zero, q.dtype)
    return q, scale, zeros


def to_dynamic_quantize_lstm(float_model):
    """`float_model` with every LSTM node as ONNX Runtime's quantize_dynamic
    writes it: a DynamicQuantizeLSTM of its W and R transposed and
    quantized to int8 per tensor, symmetric (zero point 0)."""
    initializers = {i.name: i for i in float_model.graph.initializer}
    for node in float_model.graph.node:
        if node.op_type != "LSTM":
            continue
        names = list(node.input) + [""] * (8 - len(node.input))
        for index, tag in ((1, "W"), (2, "R")):
            weights = numpy_helper.to_array(initializers[names[index]])
            q, scale, zero = quantize(np.transpose(weights, (0, 2, 1)),
                                      unsigned=False, per_column=False)
            base = f"{node.name or names[index]}_{tag}"
            float_model.graph.initializer.extend([
                numpy_helper.from_array(q, base + "_quantized"),
                numpy_helper.from_array(scale, base + "_scale"),
                numpy_helper.from_array(zero, base + "_zero_point")])
            names[index] = base + "_quantized"
            names += [base + "_scale", base + "_zero_point"]
        node.op_type = "DynamicQuantizeLSTM"
        node.domain = "com.microsoft"
        del node.input[:]
        node.input.extend(names)
    float_model.opset_import.append(helper.make_opsetid("com.microsoft", 1))
    return float_model


def model(name, rng, seq, batch, inputs, hidden, directions, unsigned,
          per_column, peepholes, states):
    w = (rng.standard_normal((directions, inputs, 4 * hidden)) * 0.3)
    r = (rng.standard_normal((directions, hidden, 4 * hidden)) * 0.3)
    b = (rng.standard_normal((directions, 8 * hidden)) * 0.2).astype(f32)
    wq, ws, wz = quantize(w, unsigned, per_column)
    rq, rs, rz = quantize(r, unsigned, per_column)
    inits = [numpy_helper.from_array(wq, "W"), numpy_helper.from_array(rq, "R"),
             numpy_helper.from_array(b, "B"),
             numpy_helper.from_array(ws, "W_scale"),
             numpy_helper.from_array(wz, "W_zero_point"),
             numpy_helper.from_array(rs, "R_scale"),
             numpy_helper.from_array(rz, "R_zero_point")]
    names = ["X", "W", "R", "B", "", "", "", "", "W_scale", "W_zero_point",
             "R_scale", "R_zero_point"]
    if states:
        for index, state in ((5, "initial_h"), (6, "initial_c")):
            inits.append(numpy_helper.from_array(
                (rng.standard_normal((directions, batch, hidden)) * 0.5
                 ).astype(f32), state))
            names[index] = state
    if peepholes:
        inits.append(numpy_helper.from_array(
            (rng.standard_normal((directions, 3 * hidden)) * 0.2).astype(f32),
            "P"))
        names[7] = "P"
    node = helper.make_node(
        "DynamicQuantizeLSTM", names, ["Y"], domain="com.microsoft",
        hidden_size=hidden,
        direction="bidirectional" if directions == 2 else "forward")
    graph = helper.make_graph(
        [node], name,
        [helper.make_tensor_value_info("X", TensorProto.FLOAT,
                                       [seq, batch, inputs])],
        [helper.make_tensor_value_info("Y", TensorProto.FLOAT,
                                       [seq, directions, batch, hidden])],
        inits)
    result = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    path = os.path.join(OUT, name + ".onnx")
    onnx.save(result, path)
    # The float LSTM of the same (unquantized) weights, for the
    # quantization's own error.
    float_names = names[:8]
    float_inits = [numpy_helper.from_array(
        np.transpose(w, (0, 2, 1)).astype(f32), "W"),
        numpy_helper.from_array(np.transpose(r, (0, 2, 1)).astype(f32), "R")]
    float_inits += inits[2:3] + inits[7:]
    float_node = helper.make_node(
        "LSTM", float_names, ["Y"], hidden_size=hidden,
        direction="bidirectional" if directions == 2 else "forward")
    float_graph = helper.make_graph(
        [float_node], name + "_float", graph.input, graph.output,
        float_inits)
    float_path = os.path.join(OUT, name + "_float.onnx.tmp")
    onnx.save(helper.make_model(float_graph, opset_imports=[
        helper.make_opsetid("", 17)]), float_path)
    return path, float_path


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--ort", required=True,
                        help="where make ort installed onnxruntime-node")
    args = parser.parse_args()
    rng = np.random.default_rng(47)
    for name, batch, directions, unsigned, per_column, extras in [
            ("dynamic_lstm_s8", 1, 1, False, False, False),
            ("dynamic_lstm_u8", 2, 2, True, True, True)]:
        seq, inputs, hidden = 7, 16, 24
        path, float_path = model(name, rng, seq, batch, inputs, hidden,
                                 directions, unsigned, per_column,
                                 peepholes=extras, states=extras)
        x = rng.standard_normal((seq, batch, inputs)).astype(f32)
        y = ort_output(args.ort, path, x).reshape(
            seq, directions, batch, hidden)
        reference = ort_output(args.ort, float_path, x).reshape(y.shape)
        os.remove(float_path)
        np.save(os.path.join(OUT, name + "_input.npy"), x)
        np.save(os.path.join(OUT, name + "_expected.npy"), y)
        error = np.abs(y - reference).max() / np.abs(reference).max()
        print(f"{name}: ONNX Runtime's int8 LSTM within {error:.2e} of its "
              "float one (relative to the largest output)")
    # A scale of 3 values for one direction of 96 columns: refused.
    bad = onnx.load(os.path.join(OUT, "dynamic_lstm_s8.onnx"))
    scale = next(i for i in bad.graph.initializer if i.name == "W_scale")
    scale.CopyFrom(numpy_helper.from_array(np.ones(3, f32), "W_scale"))
    onnx.save(bad, os.path.join(OUT, "dynamic_lstm_bad_scale.onnx"))
    # W in LSTM's own layout [dirs, 4H, I] (not transposed): refused.
    bad = onnx.load(os.path.join(OUT, "dynamic_lstm_s8.onnx"))
    weights = next(i for i in bad.graph.initializer if i.name == "W")
    weights.CopyFrom(numpy_helper.from_array(
        np.transpose(numpy_helper.to_array(weights), (0, 2, 1)).copy(), "W"))
    onnx.save(bad, os.path.join(OUT, "dynamic_lstm_bad_weights.onnx"))


if __name__ == "__main__":
    main()

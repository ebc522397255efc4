"""ONNX Runtime's dynamic quantization of MatMul and Conv layers, rewritten with the
onnx package (no onnxruntime Python package exists on these machines: the
benchmarks run ONNX Runtime through npm's onnxruntime-node).

What it reproduces: the model ONNX Runtime's

    quantize_dynamic(model, out, weight_type=QuantType.QInt8,
                     per_channel=False)     (or per_channel=True,
                                             weight_type=QuantType.QUInt8)

writes for MatMul nodes whose B is an initializer (its default
MatMulConstBOnly), as its operators/matmul.py MatMulInteger does, after
its ONNXModel.replace_gemm_with_matmul (dynamic mode: each Gemm with alpha
= beta = 1 and transA = 0 becomes MatMul, its initializer B transposed in
place for transB (here into a copy, once, as a weight may be shared),
then Add of C). An Identity of an initializer (what
torch.onnx.export writes for a weight equal to another, as in cloned
layers) reads as that initializer, as after ONNX Runtime's recommended
quant_pre_process, whose optimizer removes Identity nodes:

- the input A: one DynamicQuantizeLinear per tensor, shared by all its
  quantized consumers (outputs `<A>_quantized`, `<A>_scale`,
  `<A>_zero_point`), u8;
- the weights: QInt8 symmetric in [-127, 127] (scale = max|w| / 127, zero
  point 0) or QUInt8 asymmetric in [0, 255], per tensor or, with
  per_channel, per column of B (axis 1), values round(w / scale) + zero
  point in float32 (benchmarks/ort_qdq.py's compute_scale_zp);
- MatMulInteger(A_quantized, B_quantized, A_zero_point, B_zero_point),
  Cast to float, Mul(A_scale, B_scale), and the Mul of the two writing the
  MatMul's output: the model's own bias Add stays after it.

Conv nodes with an initializer weight become, as its operators/conv.py
ConvInteger writes them, ConvInteger(A_quantized, W_quantized,
A_zero_point, W_zero_point) with the Conv's attributes, weights per tensor
(per_channel does not reach them), then Cast, Mul by the scales' product,
and a bias Add through a Reshape of the bias to [1, -1, 1, 1]. (ONNX
Runtime's CPU provider long ran ConvInteger on uint8 weights only,
weight_type QUInt8; 1.30 runs both.)

Not reproduced: the other ops of its IntegerOps registry (Gather, LSTM as
DynamicQuantizeLSTM, the contrib Attention and EmbedLayerNormalization),
reduce_range, and node order (the new nodes take the MatMul's place).
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

from ort_qdq import compute_scale_zp


def quantize_weights(weight, per_channel, unsigned):
    """ONNX Runtime's weight quantization for MatMulInteger: (values,
    float32 scales, zero points), per tensor or per column."""
    qmin, qmax = (0, 255) if unsigned else (-127, 127)
    columns = [weight[:, n] for n in range(weight.shape[1])] \
        if per_channel else [weight]
    scales, zeros = [], []
    for values in columns:
        scale, zero = compute_scale_zp(values.min(), values.max(), qmin, qmax,
                                       symmetric=not unsigned)
        scales.append(scale)
        zeros.append(zero)
    scales = np.array(scales, np.float32)
    zeros = np.array(zeros, np.int64)
    quantized = np.clip(
        np.round(weight.astype(np.float32) / scales) + zeros, qmin, qmax)
    dtype = np.uint8 if unsigned else np.int8
    if not per_channel:
        return quantized.astype(dtype), scales[0], dtype(zeros[0])
    return quantized.astype(dtype), scales, zeros.astype(dtype)


def gemm_as_matmul(graph, initializers):
    """ONNX Runtime's replace_gemm_with_matmul, with Identity nodes of
    initializers resolved first: the new node list."""
    alias = {node.output[0]: node.input[0] for node in graph.node
             if node.op_type == "Identity" and node.input[0] in initializers}
    nodes = []
    for node in graph.node:
        if node.output[0] in alias:
            continue
        node = onnx.NodeProto.FromString(node.SerializeToString())
        for index, name in enumerate(node.input):
            node.input[index] = alias.get(name, name)
        attributes = {a.name: helper.get_attribute_value(a)
                      for a in node.attribute}
        if node.op_type != "Gemm" or attributes.get("alpha", 1.0) != 1.0 or \
                attributes.get("beta", 1.0) != 1.0 or \
                attributes.get("transA", 0) != 0 or \
                node.input[1] not in initializers:
            nodes.append(node)
            continue
        b = node.input[1]
        if attributes.get("transB", 0):
            # ONNX Runtime transposes B in place, assuming no other reader:
            # cloned layers' deduplicated weights have several.
            name = f"{b}_transposed"
            if name not in initializers:
                initializers[name] = numpy_helper.from_array(
                    numpy_helper.to_array(initializers[b]).T.copy(), name)
                graph.initializer.append(initializers[name])
            b = name
        has_bias = len(node.input) > 2 and node.input[2]
        product = node.output[0] + ("_MatMul" if has_bias else "")
        nodes.append(helper.make_node("MatMul", [node.input[0], b], [product],
                                      node.name + "_MatMul"))
        if has_bias:
            nodes.append(helper.make_node("Add", [product, node.input[2]],
                                          [node.output[0]], node.name + "_Add"))
    return nodes


def dynamic_model(model, per_channel=False, unsigned_weights=False):
    """`model` (onnx.ModelProto, float) with each MatMul of a constant B
    quantized dynamically as ONNX Runtime writes it; returns a new model."""
    model = onnx.ModelProto.FromString(model.SerializeToString())
    graph = model.graph
    initializers = {tensor.name: tensor for tensor in graph.initializer}
    quantized_inputs = {}
    nodes = []
    def add_initializer(name, array):
        if name not in initializers:
            initializers[name] = numpy_helper.from_array(np.asarray(array),
                                                         name)
            graph.initializer.append(initializers[name])

    for node in gemm_as_matmul(graph, initializers):
        rank = numpy_helper.to_array(initializers[node.input[1]]).ndim \
            if len(node.input) > 1 and node.input[1] in initializers else 0
        is_conv = node.op_type == "Conv" and rank == 4
        if not is_conv and (node.op_type != "MatMul" or rank != 2):
            nodes.append(node)
            continue
        a, b = node.input[:2]
        if a not in quantized_inputs:
            quantized_inputs[a] = [f"{a}_quantized", f"{a}_scale",
                                   f"{a}_zero_point"]
            nodes.append(helper.make_node(
                "DynamicQuantizeLinear", [a], quantized_inputs[a],
                f"{a}_QuantizeLinear"))
        aq, a_scale, a_zero = quantized_inputs[a]
        weight = numpy_helper.to_array(initializers[b])
        # ConvInteger's weights are per tensor (its quantize_weight call).
        values, scales, zeros = quantize_weights(
            weight, per_channel and not is_conv, unsigned_weights)
        for name, array in [(f"{b}_quantized", values), (f"{b}_scale", scales),
                            (f"{b}_zero_point", zeros)]:
            add_initializer(name, array)
        name = node.name or node.output[0]
        product = f"{node.output[0]}_output_quantized"
        # operators/conv.py's ConvInteger: the Conv's attributes, the bias
        # added after the scaling through a Reshape to [1, -1, 1, 1].
        has_bias = is_conv and len(node.input) > 2 and node.input[2]
        scaled = node.output[0] + ("quant_scaled_output" if has_bias else "")
        integer_op = helper.make_node(
            "ConvInteger" if is_conv else "MatMulInteger",
            [aq, f"{b}_quantized", a_zero, f"{b}_zero_point"], [product],
            f"{name}_quant")
        if is_conv:
            integer_op.attribute.extend(node.attribute)
        nodes += [
            integer_op,
            helper.make_node("Cast", [product], [product + "_cast_output"],
                             product + "_cast", to=TensorProto.FLOAT),
            helper.make_node("Mul", [a_scale, f"{b}_scale"],
                             [f"{name}_quant_scales_mul:0"],
                             f"{name}_quant_scales_mul"),
            helper.make_node("Mul", [product + "_cast_output",
                                     f"{name}_quant_scales_mul:0"],
                             [scaled], f"{name}_output_scale_mul"),
        ]
        if has_bias:
            output = node.output[0]
            add_initializer(output + "_bias_reshape_shape",
                            np.array([1, -1, 1, 1], np.int64))
            nodes += [
                helper.make_node("Reshape",
                                 [node.input[2], output + "_bias_reshape_shape"],
                                 [output + "_bias_reshape_output"]),
                helper.make_node("Add",
                                 [scaled, output + "_bias_reshape_output"],
                                 [output], output + "_bias_add"),
            ]
    del graph.node[:]
    graph.node.extend(nodes)
    onnx.checker.check_model(model)
    return model

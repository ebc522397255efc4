"""ONNX Runtime's static QDQ quantization of a CNN, rewritten with the onnx
package (no onnxruntime Python package exists on these machines: the
benchmarks run ONNX Runtime through npm's onnxruntime-node).

What it reproduces: the model ONNX Runtime's

    quantize_static(model, qdq_model, reader, quant_format=QuantFormat.QDQ,
                    activation_type=QuantType.QUInt8,
                    weight_type=QuantType.QInt8, per_channel=True)

writes for the operators of torchvision's CNNs (Conv, Gemm, Relu, Clip,
MaxPool, Reshape, Add, Mul, GlobalAveragePool, AveragePool), with the
default calibration (CalibrationMethod.MinMax: the minimum and maximum of
each float tensor over all the calibration inputs, ranges given to
qdq_model here; calibration_model writes the model ONNX Runtime's
calibrator runs, its tensors as graph outputs instead of behind
ReduceMin/ReduceMax nodes) and default extra options:

- activations (the graph input and every tensor an operator quantizes):
  uint8, per tensor, asymmetric, from compute_scale_zp: rmin = min(rmin,
  0), rmax = max(rmax, 0), scale = (rmax - rmin) / (qmax - qmin) in
  float64, zero_point = round(qmin - rmin / scale) (numpy: half to even)
  from that float64 scale, then scale stored as float32 (1.0 and zero
  point 0 for an empty range);
- weights: int8, per output channel (axis 0 for Conv, for Gemm 0 with
  transB=1 else 1), symmetric in [-127, 127]: scale = max|w| / 127, zero
  point 0, q = round(w / scale) in float32;
- biases: int32, scale = input scale x weight scale (float32), zero point
  0, q = round(b / scale) in float64, dequantized with axis 0;
- QDQRemovableActivation: a Relu or Clip whose input an operator before it
  quantized, read by it alone (and not a graph input or output), is
  removed and its producer (a Conv, or an Add in ResNet) writes its output,
  with the activation's range;
- MaxPool, Reshape and AveragePool (QDQDirect8BitOp) quantize their
  output with their input's qparams when their input is quantized; Add,
  Mul and GlobalAveragePool quantize every input and their output, each
  with its own range;
- operators outside ONNX Runtime's lists stay float and untouched (here
  Flatten: the Gemm after it quantizes its output, with a range that is
  its input's, so the same qparams);
- a quantized graph output (the last Gemm's) gets its QuantizeLinear and
  a DequantizeLinear that writes the output's name: the model's output is
  float, dequantized from uint8;
- opset 13 QuantizeLinear/DequantizeLinear, per-channel ones with `axis`;
  one Q/DQ pair per tensor, shared by its consumers; ONNX Runtime's
  tensor names (`_QuantizeLinear_Output`, `_DequantizeLinear_Output`,
  `_quantized`, `_scale`, `_zero_point`).

Where it may differ from ONNX Runtime's own quantizer: quantize_static's
defaults are activation_type=QInt8 and per_channel=False (u8 activations
with s8 weights per channel are what its documentation recommends on
x86); node order (Q/DQ nodes here follow their producer, ONNX Runtime
appends them and leaves the order to its loader); recent releases enlarge
a weight's scale when input scale x weight scale would push its bias past
int32 (here a ValueError instead); and operators these CNNs do not hold
(Concat, MatMul, Softmax, Resize, Pad, Split, ...: a ValueError),
subgraphs, tensor overrides and the other extra options are not
reproduced. The ranges are ONNX Runtime's own (benchmarks/ort_session.js
ranges, graph optimizations off as in its calibration session), read as
float32 from JSON, so exact.
"""
import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

# ONNX Runtime's default op_types_to_quantize (QLinearOpsRegistry and
# QDQRegistry) that this module does not write: an error rather than a
# silently different model.
UNSUPPORTED = {"ArgMax", "Concat", "ConvTranspose", "Gather",
               "GatherElements", "InstanceNormalization",
               "LayerNormalization", "BatchNormalization", "LeakyRelu",
               "MatMul", "Pad", "Resize", "Sigmoid", "Slice", "Softmax",
               "Split", "Squeeze", "Transpose", "Unsqueeze", "Where",
               "EmbedLayerNormalization"}
SAME_AS_INPUT = {"MaxPool", "Reshape", "AveragePool"}
ALL_TENSORS = {"Add", "Mul", "GlobalAveragePool"}


def float_tensors(model):
    """Names of the float tensors (not initializers) that the model's
    nodes read or write, in graph order: what ONNX Runtime's calibrator
    observes (select_tensors_to_calibrate)."""
    inferred = onnx.shape_inference.infer_shapes(model).graph
    types = {value.name: value.type.tensor_type.elem_type
             for value in list(inferred.value_info) + list(inferred.input)
             + list(inferred.output)}
    initializers = {tensor.name for tensor in model.graph.initializer}
    names = {}
    for node in model.graph.node:
        for name in list(node.input) + list(node.output):
            if types.get(name) == TensorProto.FLOAT and name not in \
                    initializers:
                names[name] = None
    return list(names)


def calibration_model(float_path, out_path):
    """Writes the float model with every tensor ONNX Runtime's MinMax
    calibrator observes as a graph output; returns their names."""
    model = onnx.load(float_path)
    names = float_tensors(model)
    outputs = {output.name for output in model.graph.output}
    model.graph.output.extend(
        helper.make_tensor_value_info(name, TensorProto.FLOAT, None)
        for name in names if name not in outputs)
    onnx.save(model, out_path)
    return names


def compute_scale_zp(rmin, rmax, qmin, qmax, symmetric=False):
    """ONNX Runtime's quant_utils.compute_scale_zp: (float32 scale,
    integer zero point)."""
    rmin = np.minimum(np.float32(rmin), np.float32(0))
    rmax = np.maximum(np.float32(rmax), np.float32(0))
    if symmetric:
        absmax = np.maximum(np.abs(rmin), np.abs(rmax))
        rmin, rmax = -absmax, absmax
    scale = np.float64(rmax - rmin) / (np.float64(qmax) - np.float64(qmin))
    if scale < np.finfo(np.float32).tiny:
        return np.float32(1.0), 0
    zero_point = int(np.clip(np.round(qmin - rmin / scale), qmin, qmax))
    return np.float32(scale), zero_point


def quantize_weight_per_channel(weight, axis):
    """Symmetric int8 per channel along axis: (int8 values, float32
    scales)."""
    scales = np.empty(weight.shape[axis], np.float32)
    quantized = np.empty(weight.shape, np.int8)
    for channel in range(weight.shape[axis]):
        values = weight.take(channel, axis)
        scale, _ = compute_scale_zp(values.min(), values.max(), -127, 127,
                                    symmetric=True)
        scales[channel] = scale
        index = [slice(None)] * weight.ndim
        index[axis] = channel
        quantized[tuple(index)] = np.clip(
            np.round(values.astype(np.float32) / scale), -127, 127)
    return quantized, scales


def quantize_bias(bias, input_scale, weight_scales):
    """int32 bias at scale input_scale * weight_scales (zero point 0):
    (int32 values, float32 scales)."""
    scales = (np.float32(input_scale) * weight_scales).astype(np.float32)
    quantized = np.round(bias.astype(np.float64) / scales.astype(np.float64))
    limits = np.iinfo(np.int32)
    if quantized.min() < limits.min or quantized.max() > limits.max:
        raise ValueError("a bias past int32: ONNX Runtime would enlarge the "
                         "weight's scale, which is not reproduced")
    return quantized.astype(np.int32), scales


class QdqWriter:
    """ONNX Runtime's QDQQuantizer over one graph: quantize() marks the
    tensors node by node, then write() inserts the Q/DQ nodes."""

    def __init__(self, model, ranges):
        self.model = model
        self.graph = model.graph
        self.ranges = ranges
        self.initializers = {tensor.name: tensor
                             for tensor in self.graph.initializer}
        self.float_names = set(float_tensors(model))
        self.graph_inputs = {value.name for value in self.graph.input}
        self.graph_outputs = {value.name for value in self.graph.output}
        # Activation -> None (its own range) or the tensor whose qparams
        # it shares, in the order ONNX Runtime marks them.
        self.activations = {}
        self.weights = {}      # weight -> axis
        self.biases = {}       # bias -> (input, weight)
        self.removed = []

    def consumers(self, name):
        return [node for node in self.graph.node if name in node.input]

    def quantize_activation(self, name, shared=None):
        if name in self.initializers:
            raise ValueError(f"constant input {name} of an activation "
                             f"operator: not reproduced")
        if name not in self.float_names:
            return
        if shared is not None or name not in self.activations:
            self.activations[name] = shared

    def quantize_weighted(self, node, axis):
        """Conv and Gemm: input, output, per-channel weights, bias."""
        self.quantize_activation(node.input[0])
        self.quantize_activation(node.output[0])
        for constant in node.input[1:]:
            if constant not in self.initializers:
                raise ValueError(f"{node.op_type} {node.name}: {constant} "
                                 f"is not an initializer")
        self.weights[node.input[1]] = axis
        if len(node.input) > 2 and node.input[2]:
            self.biases[node.input[2]] = (node.input[0], node.input[1])

    def remove_activation(self, node):
        """QDQRemovableActivation: drops node when its producer's output
        can take its name; else quantizes its input."""
        source, name = node.input[0], node.output[0]
        if source not in self.activations and source not in self.biases:
            return
        if (name in self.ranges and len(self.consumers(source)) == 1
                and source not in self.graph_inputs
                and source not in self.graph_outputs):
            for producer in self.graph.node:
                for index, output in enumerate(producer.output):
                    if output == source:
                        producer.output[index] = name
            del self.activations[source]
            self.removed.append(node)
        else:
            self.quantize_activation(source)
        self.quantize_activation(name)

    def quantize(self):
        for node in self.graph.node:
            if node.op_type in UNSUPPORTED:
                raise ValueError(f"{node.op_type} {node.name}: ONNX "
                                 f"Runtime quantizes it, this module does "
                                 f"not")
            if node.op_type == "Conv":
                self.quantize_weighted(node, 0)
            elif node.op_type == "Gemm":
                attributes = {a.name: helper.get_attribute_value(a)
                              for a in node.attribute}
                if attributes.get("alpha", 1.0) != 1.0 or \
                        attributes.get("beta", 1.0) != 1.0:
                    raise ValueError(f"Gemm {node.name}: alpha or beta "
                                     f"other than 1")
                self.quantize_weighted(
                    node, 0 if attributes.get("transB", 0) else 1)
            elif node.op_type in ("Relu", "Clip"):
                self.remove_activation(node)
            elif node.op_type in SAME_AS_INPUT:
                if node.input[0] in self.activations:
                    self.quantize_activation(node.output[0], node.input[0])
            elif node.op_type in ALL_TENSORS:
                for name in list(node.input) + list(node.output):
                    self.quantize_activation(name)

    def qparams(self, name):
        """Scale and zero-point initializer names of an activation (its
        provider's for a shared one), made on first use."""
        while self.activations[name] is not None:
            name = self.activations[name]
        scale_name, zero_name = f"{name}_scale", f"{name}_zero_point"
        if scale_name not in self.initializers:
            low, high = self.ranges[name]
            scale, zero_point = compute_scale_zp(low, high, 0, 255)
            self.add_initializer(np.array(scale, np.float32), scale_name)
            self.add_initializer(np.array(zero_point, np.uint8), zero_name)
        return scale_name, zero_name

    def add_initializer(self, array, name):
        tensor = numpy_helper.from_array(array, name)
        self.graph.initializer.append(tensor)
        self.initializers[name] = tensor

    def activation_nodes(self, name):
        """Q and DQ of one activation; renames its uses (or, for a graph
        output, its producer's output) as ONNX Runtime does."""
        scale, zero = self.qparams(name)
        q_input, dq_output = name, f"{name}_DequantizeLinear_Output"
        if name in self.graph_outputs:
            q_input, dq_output = f"{name}_QuantizeLinear_Input", name
            for node in self.graph.node:
                for index, output in enumerate(node.output):
                    if output == name:
                        node.output[index] = q_input
        else:
            for node in self.graph.node:
                for index, value in enumerate(node.input):
                    if value == name:
                        node.input[index] = dq_output
        q_output = f"{name}_QuantizeLinear_Output"
        return [helper.make_node("QuantizeLinear", [q_input, scale, zero],
                                 [q_output], f"{name}_QuantizeLinear"),
                helper.make_node("DequantizeLinear", [q_output, scale, zero],
                                 [dq_output], f"{name}_DequantizeLinear")]

    def weight_node(self, name, axis):
        weight = numpy_helper.to_array(self.initializers[name])
        quantized, scales = quantize_weight_per_channel(weight, axis)
        self.add_initializer(quantized, f"{name}_quantized")
        self.add_initializer(scales, f"{name}_scale")
        self.add_initializer(np.zeros(len(scales), np.int8),
                             f"{name}_zero_point")
        output = f"{name}_DequantizeLinear_Output"
        for node in self.graph.node:
            for index, value in enumerate(node.input):
                if value == name:
                    node.input[index] = output
        return helper.make_node(
            "DequantizeLinear",
            [f"{name}_quantized", f"{name}_scale", f"{name}_zero_point"],
            [output], f"{name}_DequantizeLinear", axis=axis)

    def bias_node(self, name, input_name, weight_name):
        input_scale = numpy_helper.to_array(
            self.initializers[self.qparams(input_name)[0]])
        weight_scales = numpy_helper.to_array(
            self.initializers[f"{weight_name}_scale"])
        quantized, scales = quantize_bias(
            numpy_helper.to_array(self.initializers[name]), input_scale,
            weight_scales)
        prefix = f"{name}_quantized"
        self.add_initializer(quantized, prefix)
        self.add_initializer(scales, f"{prefix}_scale")
        self.add_initializer(np.zeros(len(scales), np.int32),
                             f"{prefix}_zero_point")
        return helper.make_node(
            "DequantizeLinear",
            [prefix, f"{prefix}_scale", f"{prefix}_zero_point"], [name],
            f"{name}_DequantizeLinear", axis=0)

    def write(self):
        """The graph's nodes with the Q/DQ ones: constants' DQ first, each
        activation's pair after its producer; drops the removed
        activations, the float constants now quantized and the constants
        nothing reads any more."""
        nodes = [node for node in self.graph.node
                 if node not in self.removed]
        # Quantized names before any renaming.
        produced = {output: node for node in nodes for output in node.output}
        pairs = {name: self.activation_nodes(name) for name in
                 self.activations}
        constants = [self.weight_node(name, axis)
                     for name, axis in self.weights.items()]
        constants += [self.bias_node(name, *operands)
                      for name, operands in self.biases.items()]
        ordered = constants
        for name in self.activations:
            if name not in produced:
                ordered += pairs[name]
        for node in nodes:
            ordered.append(node)
            for name, producer in produced.items():
                if producer is node and name in pairs:
                    ordered += pairs[name]
        used = {value for node in ordered for value in node.input}
        # The removed Clips' bounds (ONNXModel.remove_unused_constant).
        ordered = [node for node in ordered if node.op_type != "Constant"
                   or node.output[0] in used]
        kept = [tensor for tensor in self.graph.initializer
                if tensor.name in used and tensor.name not in self.biases]
        del self.graph.initializer[:]
        self.graph.initializer.extend(kept)
        del self.graph.node[:]
        self.graph.node.extend(ordered)


def qdq_model(float_path, ranges, out_path):
    """Writes ONNX Runtime's QDQ model of the float model at float_path
    from ranges ({tensor: (min, max)}, its MinMax calibration); returns the
    counts of Q/DQ pairs on activations, per-channel weights and int32
    biases."""
    model = onnx.load(float_path)
    writer = QdqWriter(model, ranges)
    writer.quantize()
    writer.write()
    onnx.checker.check_model(model)
    onnx.save(model, out_path)
    return len(writer.activations), len(writer.weights), len(writer.biases)

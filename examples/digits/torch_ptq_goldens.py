#!/usr/bin/env python3
"""PyTorch 1.13's own post-training quantization of the bundled digits
models, for test/Examples/digits-vs-pytorch.mlir (run once, after
train_digits.py; the files it writes are committed so that the test needs
no torch):

The float weights are read back from the exported ONNX files (the export
folded the CNN's batch norm into its depthwise convolution), so both sides
quantize the very same float network. The ONNX Flatten is written as
torch.flatten, which PyTorch 1.13 quantizes sharing its input's observer
(nn.Flatten it leaves float, observing its output anew); Quanta treats
reshapes as the former. FX prepare_fx with the engine's
default qconfig mapping, calibration on the 8 bundled batches in order,
convert_fx, then the 400 held-out images, for the engines qnnpack and
onednn. Writes test/Examples/Inputs/digits_<net>_<engine>.npz:

  logits        the int8 model's dequantized outputs [400, 10]
  scale, zero_point   the output's qparams
  activations   (scale, zero point) of every activation observer, in the
                prepared graph's order

    /usr/bin/python3 examples/digits/torch_ptq_goldens.py
"""
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torch.ao.quantization import get_default_qconfig_mapping
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "test", "Examples", "Inputs")
torch.set_num_threads(1)


def onnx_weights(path):
    """The (weight, bias) of every Conv and Gemm node, in graph order."""
    model = onnx.load(path)
    inits = {t.name: numpy_helper.to_array(t) for t in model.graph.initializer}
    return [(inits[n.input[1]], inits[n.input[2]]) for n in model.graph.node
            if n.op_type in ("Conv", "Gemm")]


class Cnn(nn.Module):
    """train_digits.Cnn with its batch norm folded, as exported."""

    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8)
        self.relu6 = nn.ReLU6()
        self.pointwise = nn.Conv2d(8, 16, 1)
        self.relu2 = nn.ReLU()
        self.avg = nn.AvgPool2d(2)
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.conv1(x)))
        x = self.depthwise(x)
        # Torch 1.13's qnnpack relu6 reads a channels_last quantized tensor
        # (what its depthwise convolution returns) as NCHW: without the copy
        # its own int8 model is at chance (8% accuracy). The copy's shared
        # observer sees the tensor once more, which moves that observer's
        # histogram qparams: the test compares them for onednn only.
        if torch.backends.quantized.engine == "qnnpack":
            x = x.contiguous()
        x = self.relu6(x)
        x = self.avg(self.relu2(self.pointwise(x)))
        return self.fc(torch.flatten(x, 1))

    def layers(self):
        return [self.conv1, self.depthwise, self.pointwise, self.fc]


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.fc1 = nn.Linear(64, 64)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(64, 32)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.relu1(self.fc1(torch.flatten(x, 1)))
        return self.fc3(self.relu2(self.fc2(x)))

    def layers(self):
        return [self.fc1, self.fc2, self.fc3]


batches = [torch.from_numpy(np.load(os.path.join(
    here, "calibration", f"batch{i}.npy"))) for i in range(8)]
images = torch.from_numpy(np.load(os.path.join(here, "test_images.npy")))
labels = np.load(os.path.join(here, "test_labels.npy"))

for name, net in (("cnn", Cnn), ("mlp", Mlp)):
    for engine in ("qnnpack", "onednn"):
        torch.backends.quantized.engine = engine
        model = net().eval()
        for layer, (weight, bias) in zip(
                model.layers(), onnx_weights(os.path.join(
                    here, f"digits_{name}.onnx"))):
            layer.weight.data = torch.from_numpy(weight.copy())
            layer.bias.data = torch.from_numpy(bias.copy())
        prepared = prepare_fx(model, get_default_qconfig_mapping(engine),
                              example_inputs=(batches[0],))
        with torch.no_grad():
            for batch in batches:
                prepared(batch)
        activations = []
        for node in prepared.graph.nodes:
            if node.op == "call_module" and "activation_post_process" in \
                    node.target:
                scale, zero_point = getattr(
                    prepared, node.target).calculate_qparams()
                activations.append((float(scale), int(zero_point)))
        quantized = convert_fx(prepared)
        with torch.no_grad():
            logits = quantized(images)
        accuracy = (logits.argmax(1).numpy() == labels).mean()
        print(f"{name} {engine}: int8 accuracy {accuracy:.4f}, "
              f"{len(activations)} activation observers")
        np.savez(os.path.join(out, f"digits_{name}_{engine}.npz"),
                 logits=logits.numpy().astype(np.float32),
                 scale=np.float32(activations[-1][0]),
                 zero_point=np.int64(activations[-1][1]),
                 activations=np.array(activations, dtype=np.float64))

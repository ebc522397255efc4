#!/usr/bin/env python3
"""PyTorch 1.13's own static post-training quantization of the digits
transformer, for test/Examples/digits-sequence.mlir (run once; the file it
writes is committed so that the test needs no torch).

The float model is train_sequence.py's, retrained from its seed (every
initializer the ONNX export kept by name is checked equal to the retrained
weights, so both sides quantize the same float network). FX cannot trace
nn.TransformerEncoderLayer (its fast-path checks branch on tensors), so the
same computation is written out with the same modules: Q/K/V and output
projections as nn.Linear (in_proj split in three), matmul/softmax
attention, GELU, LayerNorm; its float logits are checked against the
original's. prepare_fx with the x86 default qconfig (on the onednn engine)
on the Linear layers only (what FX 1.13's static quantization takes of a
transformer: attention products, softmax, LayerNorm and GELU stay float),
calibration on the 8 bundled batches in order, convert_fx, the 400
held-out images. Writes test/Examples/Inputs/digits_transformer_fx.npz:

  logits     the int8 model's outputs [400, 10]
  accuracy   its held-out accuracy

    /usr/bin/python3 examples/digits/torch_sequence_ptq_goldens.py
"""
import math
import os

import numpy as np
import onnx
import torch
from onnx import numpy_helper
from torch import nn
from torch.ao.quantization import QConfigMapping, get_default_qconfig
from torch.ao.quantization.quantize_fx import convert_fx, prepare_fx

# Run as a script, this folder is on sys.path.
from train_sequence import train

here = os.path.dirname(os.path.abspath(__file__))
out = os.path.join(here, "..", "..", "test", "Examples", "Inputs")


class Layer(nn.Module):
    """nn.TransformerEncoderLayer (post-norm, GELU, batch first) written out
    with its own modules."""

    def __init__(self, layer):
        super().__init__()
        attention = layer.self_attn
        self.heads = attention.num_heads
        dim = attention.embed_dim
        self.q, self.k, self.v = (nn.Linear(dim, dim) for _ in range(3))
        for index, projection in enumerate((self.q, self.k, self.v)):
            rows = slice(index * dim, (index + 1) * dim)
            projection.weight.data = attention.in_proj_weight.data[rows].clone()
            projection.bias.data = attention.in_proj_bias.data[rows].clone()
        self.out = nn.Linear(dim, dim)
        self.out.load_state_dict(attention.out_proj.state_dict())
        self.linear1, self.linear2 = layer.linear1, layer.linear2
        self.norm1, self.norm2 = layer.norm1, layer.norm2
        self.gelu = nn.GELU()

    def forward(self, x):
        # Sizes as constants (FX traces no shape arithmetic): 8 rows.
        s, h, d = 8, self.heads, self.out.in_features

        def split(t):
            return t.reshape(-1, s, h, d // h).transpose(1, 2)

        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        scores = torch.matmul(q, k.transpose(2, 3)) / math.sqrt(d // h)
        attended = torch.matmul(torch.softmax(scores, -1), v)
        x = self.norm1(x + self.out(attended.transpose(1, 2).reshape(-1, s, d)))
        return self.norm2(x + self.linear2(self.gelu(self.linear1(x))))


class Traceable(nn.Module):
    def __init__(self, model):
        super().__init__()
        self.tokens, self.positions, self.head = (model.tokens,
                                                  model.positions, model.head)
        self.layers = nn.ModuleList(Layer(layer)
                                    for layer in model.encoder.layers)

    def forward(self, x):
        x = self.tokens(x.reshape(-1, 8, 8)) + self.positions
        for layer in self.layers:
            x = layer(x)
        return self.head(x.mean(1))


model = train()["transformer"]
state = model.state_dict()
exported = onnx.load(os.path.join(here, "digits_transformer.onnx"))
for initializer in exported.graph.initializer:
    if initializer.name in state:
        assert np.array_equal(numpy_helper.to_array(initializer),
                              state[initializer.name].numpy()), \
            f"{initializer.name} differs from the committed model"

batches = [torch.from_numpy(np.load(os.path.join(
    here, "calibration", f"batch{i}.npy"))) for i in range(8)]
images = torch.from_numpy(np.load(os.path.join(here, "test_images.npy")))
labels = np.load(os.path.join(here, "test_labels.npy"))
traceable = Traceable(model).eval()
with torch.no_grad():
    difference = (traceable(images) - model(images)).abs().max().item()
assert difference < 1e-5, f"the traceable model differs by {difference}"

# Debian's PyTorch 1.13 has no x86 engine: the x86 qconfig (Quanta's
# default on x86) runs on onednn's kernels.
torch.backends.quantized.engine = "onednn"
mapping = QConfigMapping().set_object_type(nn.Linear,
                                           get_default_qconfig("x86"))
prepared = prepare_fx(traceable, mapping, example_inputs=(batches[0],))
with torch.no_grad():
    for batch in batches:
        prepared(batch)
    logits = convert_fx(prepared)(images).numpy().astype(np.float32)
accuracy = (logits.argmax(1) == labels).mean()
print(f"transformer x86, Linear layers int8: accuracy {accuracy:.4f}")
np.savez(os.path.join(out, "digits_transformer_fx.npz"), logits=logits,
         accuracy=np.float64(accuracy))

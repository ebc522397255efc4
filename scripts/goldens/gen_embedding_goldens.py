#!/usr/bin/env python3
"""Writes the inputs and PyTorch 1.13's outputs of quantize-embedding.mlir:
an nn.Embedding (24 rows of 12; rows of very different ranges, a constant
row, a zero row, an all-positive and an all-negative one) exported to ONNX,
ids reading every row, and the outputs of torch.ao.nn.quantized's lookups
with float_qparams_weight_only_qconfig (8 bits, Embedding) and its 4-bit
variant (quint4x2, through EmbeddingBag with one id per bag: PyTorch
1.13's 4-bit Embedding reads its packed rows as 8-bit ones and returns
D / 2 - 4 columns).

    /usr/bin/python3 scripts/goldens/gen_embedding_goldens.py \\
        test/Dialect/Quanta/Transforms/Inputs
"""
import os
import sys

import numpy as np
import torch
from torch import nn
from torch.ao import quantization as tq

ROWS, DIM = 24, 12


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(20261127)
    table = rng.standard_normal((ROWS, DIM)) * np.exp(
        rng.uniform(-4, 4, (ROWS, 1)))
    table[0] = 0.5
    table[1] = 0.0
    table[2] = np.abs(table[2]) + 0.25
    table[3] = -np.abs(table[3]) - 1.0
    weight = torch.from_numpy(table.astype(np.float32))
    ids = np.concatenate([np.arange(ROWS), rng.integers(0, ROWS, 24)])
    ids = ids.reshape(3, 16).astype(np.int64)
    np.save(os.path.join(out, "embedding_ids.npy"), ids)

    embedding = nn.Embedding(ROWS, DIM)
    embedding.weight.data = weight.clone()
    torch.onnx.export(embedding, (torch.from_numpy(ids),),
                      os.path.join(out, "embedding_table.onnx"),
                      opset_version=13, input_names=["ids"],
                      output_names=["rows"])

    embedding.qconfig = tq.float_qparams_weight_only_qconfig
    byte = torch.ao.nn.quantized.Embedding.from_float(embedding)
    np.save(os.path.join(out, "embedding_8bit_expected.npy"),
            byte(torch.from_numpy(ids)).numpy())

    bag = nn.EmbeddingBag(ROWS, DIM, mode="sum")
    bag.weight.data = weight.clone()
    bag.qconfig = tq.QConfig(activation=tq.default_placeholder_observer,
                             weight=tq.default_float_qparams_observer_4bit)
    nibble = torch.ao.nn.quantized.EmbeddingBag.from_float(bag)
    flat = torch.from_numpy(ids.reshape(-1))
    rows = nibble(flat, torch.arange(flat.numel())).numpy()
    np.save(os.path.join(out, "embedding_4bit_expected.npy"),
            rows.reshape(ids.shape + (DIM,)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Writes the transformer models of the importer's lit tests
(test/Import/Onnx/Inputs), exported by Debian's PyTorch 1.13 with its
outputs as goldens, so that the tests themselves need no torch:

  encoder_op13.onnx  BERT-style: token embedding (int64 ids) + learned
                     positions sliced to the sequence, 2 post-norm encoder
                     layers (4 heads, GELU), mean over the sequence, Linear;
                     symbolic 'batch' and 'seq' (opset 13: LayerNorm
                     decomposed into ReduceMean/Sub/Pow/Sqrt/Div)
  encoder_op17.onnx  the same model at opset 17 (LayerNormalization)
  causal_op14.onnx   GPT-style: the same blocks under a causal mask built
                     in the graph (Trilu), the last position's logits
  encoder_ids.npy    int64 token ids [2, 16], including 0 and 99
  encoder_expected.npy, causal_expected.npy  PyTorch's float outputs
  encoder_ids_out_of_range.npy  the ids with 100, 5000, -1 and -100 in
                     them; encoder_out_of_range_expected.npy: PyTorch on
                     the ids as Quanta reads them (negative ones counted
                     from the end, as ONNX defines; then clamped)

    /usr/bin/python3 scripts/goldens/gen_transformer_models.py \
        test/Import/Onnx/Inputs
"""
import os
import sys

import numpy as np
import torch
from torch import nn

out = sys.argv[1]
torch.manual_seed(0)
VOCAB, DIM, SEQ = 100, 32, 16


class Encoder(nn.Module):
    def __init__(self, causal=False):
        super().__init__()
        self.causal = causal
        self.tokens = nn.Embedding(VOCAB, DIM)
        self.positions = nn.Parameter(torch.randn(1, SEQ, DIM) * 0.1)
        layer = nn.TransformerEncoderLayer(DIM, 4, 64, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(DIM, 10)

    def forward(self, ids):
        x = self.tokens(ids) + self.positions[:, :ids.shape[1]]
        if self.causal:
            size = ids.shape[1]
            mask = torch.triu(torch.full((size, size), float("-inf")),
                              diagonal=1)
            return self.head(self.encoder(x, mask=mask)[:, -1])
        return self.head(self.encoder(x).mean(1))


def export(model, name, opset, ids):
    model.eval()
    torch.onnx.export(model, (ids,), os.path.join(out, name),
                      opset_version=opset, input_names=["ids"],
                      output_names=["logits"],
                      dynamic_axes={"ids": {0: "batch", 1: "seq"}})


ids = torch.randint(0, VOCAB, (2, SEQ))
ids[0, 0], ids[1, 5] = 0, VOCAB - 1
np.save(os.path.join(out, "encoder_ids.npy"), ids.numpy())
encoder, causal = Encoder(), Encoder(causal=True)
with torch.no_grad():
    np.save(os.path.join(out, "encoder_expected.npy"),
            encoder.eval()(ids).numpy())
    np.save(os.path.join(out, "causal_expected.npy"),
            causal.eval()(ids).numpy())
far = ids.clone()
far[0, 1], far[0, 2], far[1, 3], far[1, 4] = VOCAB, 5000, -1, -100
np.save(os.path.join(out, "encoder_ids_out_of_range.npy"), far.numpy())
clamped = torch.where(far < 0, far + VOCAB, far).clamp(0, VOCAB - 1)
with torch.no_grad():
    np.save(os.path.join(out, "encoder_out_of_range_expected.npy"),
            encoder.eval()(clamped).numpy())
export(encoder, "encoder_op13.onnx", 13, ids)
export(encoder, "encoder_op17.onnx", 17, ids)
export(causal, "causal_op14.onnx", 14, ids)

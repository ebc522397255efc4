#!/usr/bin/env python3
"""Trains the two sequence models of the digits example once, on the same
split of scikit-learn's digits as train_digits.py, each reading an 8x8
image as a sequence of its 8 rows of 8 pixels, and exports them to ONNX
(committed, so neither `make demo` nor the tests need torch):

  digits_transformer.onnx  rows -> Linear(8, 32) tokens + learned
                           positions, 2 post-norm encoder layers (4 heads,
                           GELU, feed-forward 64), mean over the rows,
                           Linear(32, 10)
  digits_lstm.onnx         a 1-layer LSTM(8, 32) over the rows, Linear(32,
                           10) on the last step

Both take the images as train_digits.py's models do, [N, 1, 8, 8] with a
symbolic batch 'N', so they share calibration/ and test_images.npy.
Deterministic: fixed seeds, one thread.

    /usr/bin/python3 examples/digits/train_sequence.py examples/digits
"""
import os
import sys

import torch
from torch import nn

# Run as a script, this folder is on sys.path: the same data, split and
# training loop as the CNN and the MLP.
from train_digits import export, fit

torch.set_num_threads(1)


class Transformer(nn.Module):
    def __init__(self):
        super().__init__()
        self.tokens = nn.Linear(8, 32)
        self.positions = nn.Parameter(torch.randn(1, 8, 32) * 0.1)
        layer = nn.TransformerEncoderLayer(32, 4, 64, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, 2,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        rows = x.reshape(x.shape[0], 8, 8)
        return self.head(self.encoder(self.tokens(rows) +
                                      self.positions).mean(1))


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 32, batch_first=True)
        self.head = nn.Linear(32, 10)

    def forward(self, x):
        return self.head(self.lstm(x.reshape(x.shape[0], 8, 8))[0][:, -1])


def train(out=None):
    """Both models trained from seed 0 (built before either trains, as the
    committed ones were), exported into `out` if given."""
    torch.manual_seed(0)
    models = (("transformer", Transformer(), 40), ("lstm", Lstm(), 60))
    for name, model, epochs in models:
        accuracy = fit(model, epochs)
        print(f"{name}: float accuracy on the held-out set {accuracy:.4f}")
        if out:
            export(model, name, out, examples=2, opset=14)
    return {name: model for name, model, _ in models}


if __name__ == "__main__":
    train(sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__))

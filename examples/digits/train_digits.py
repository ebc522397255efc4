#!/usr/bin/env python3
"""Trains the two bundled ONNX models once, on scikit-learn's digits data set
(8x8 grey images, no download), and writes what `make demo` and the tests
use (committed, so neither needs torch or scikit-learn):

  digits_cnn.onnx   conv + relu, max pool, depthwise conv + batch norm
                    (folded into the conv by the export) + relu6, 1x1 conv +
                    relu, average pool, flatten, fully connected
  digits_mlp.onnx   three fully connected layers with relus
  calibration/batch{0..7}.npy   8 batches of 32 training images [32,1,8,8]
  test_images.npy, test_labels.npy   the 400 held-out images and labels

Both models have a symbolic batch dimension 'N' (quant-translate
--onnx-batch=N fixes it). Deterministic: fixed seeds, one thread.

    /usr/bin/python3 examples/digits/train_digits.py examples/digits
"""
import os
import sys

import numpy as np
import torch
from sklearn.datasets import load_digits
from torch import nn

torch.manual_seed(0)
torch.set_num_threads(1)

# The data, the split and fit() are shared with train_sequence.py.
digits = load_digits()
images = (digits.images / 16.0).astype(np.float32)[:, None, :, :]
labels = digits.target.astype(np.int64)
order = np.random.default_rng(0).permutation(len(images))
train, test = order[:-400], order[-400:]


class Cnn(nn.Module):
    def __init__(self):
        super().__init__()
        self.conv1 = nn.Conv2d(1, 8, 3, padding=1)
        self.relu1 = nn.ReLU()
        self.pool = nn.MaxPool2d(2)
        self.depthwise = nn.Conv2d(8, 8, 3, padding=1, groups=8, bias=False)
        self.bn = nn.BatchNorm2d(8)
        self.relu6 = nn.ReLU6()
        self.pointwise = nn.Conv2d(8, 16, 1)
        self.relu2 = nn.ReLU()
        self.avg = nn.AvgPool2d(2)
        self.flatten = nn.Flatten()
        self.fc = nn.Linear(64, 10)

    def forward(self, x):
        x = self.pool(self.relu1(self.conv1(x)))
        x = self.relu6(self.bn(self.depthwise(x)))
        x = self.avg(self.relu2(self.pointwise(x)))
        return self.fc(self.flatten(x))


class Mlp(nn.Module):
    def __init__(self):
        super().__init__()
        self.flatten = nn.Flatten()
        self.fc1 = nn.Linear(64, 64)
        self.relu1 = nn.ReLU()
        self.fc2 = nn.Linear(64, 32)
        self.relu2 = nn.ReLU()
        self.fc3 = nn.Linear(32, 10)

    def forward(self, x):
        x = self.relu1(self.fc1(self.flatten(x)))
        return self.fc3(self.relu2(self.fc2(x)))


def fit(model, epochs=40):
    x = torch.from_numpy(images[train])
    y = torch.from_numpy(labels[train])
    optimizer = torch.optim.Adam(model.parameters(), lr=3e-3)
    generator = torch.Generator().manual_seed(0)
    for _ in range(epochs):
        model.train()
        for batch in torch.randperm(len(x), generator=generator).split(64):
            optimizer.zero_grad()
            loss = nn.functional.cross_entropy(model(x[batch]), y[batch])
            loss.backward()
            optimizer.step()
    model.eval()
    with torch.no_grad():
        predicted = model(torch.from_numpy(images[test])).argmax(1).numpy()
    return (predicted == labels[test]).mean()


def export(model, name, out, examples, opset):
    """Writes out/digits_<name>.onnx: an image batch of any size N in,
    logits out, traced on the first `examples` held-out images."""
    torch.onnx.export(model, torch.from_numpy(images[test[:examples]]),
                      os.path.join(out, f"digits_{name}.onnx"),
                      input_names=["image"], output_names=["logits"],
                      dynamic_axes={"image": {0: "N"}, "logits": {0: "N"}},
                      opset_version=opset, do_constant_folding=True)


def main():
    out = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(__file__)
    for name, model in (("cnn", Cnn()), ("mlp", Mlp())):
        accuracy = fit(model)
        print(f"{name}: float accuracy on the held-out set {accuracy:.4f}")
        export(model, name, out, examples=1, opset=13)

    os.makedirs(os.path.join(out, "calibration"), exist_ok=True)
    for index in range(8):
        np.save(os.path.join(out, "calibration", f"batch{index}.npy"),
                images[train[index * 32:(index + 1) * 32]])
    np.save(os.path.join(out, "test_images.npy"), images[test])
    np.save(os.path.join(out, "test_labels.npy"), labels[test])


if __name__ == "__main__":
    main()

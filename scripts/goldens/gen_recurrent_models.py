#!/usr/bin/env python3
"""Writes the recurrent models of the importer's lit tests
(test/Import/Onnx/Inputs), exported by Debian's PyTorch 1.13 with its
outputs as goldens, so that the tests themselves need no torch:

  lstm_op14.onnx  nn.LSTM(8, 16, 2 layers, bidirectional, batch_first) and
                  a Linear on the last step; symbolic 'batch' and 'seq'
  gru_op14.onnx   nn.GRU(8, 16, batch_first) from a given initial state
                  h0 (a second input) and a Linear on the last step
  rnn_op14.onnx   nn.RNN(8, 16, relu, sequence first); outputs the whole
                  sequence and the last state
  recurrent_x.npy [2, 5, 8]; recurrent_x_seq_first.npy: [5, 2, 8]
  recurrent_h0.npy [1, 2, 16]
  lstm_expected.npy, gru_expected.npy, rnn_expected_y.npy,
  rnn_expected_h.npy  PyTorch's float outputs

    /usr/bin/python3 scripts/goldens/gen_recurrent_models.py \\
        test/Import/Onnx/Inputs
"""
import os
import sys

import numpy as np
import torch
from torch import nn

out = sys.argv[1]
torch.manual_seed(0)


class Lstm(nn.Module):
    def __init__(self):
        super().__init__()
        self.lstm = nn.LSTM(8, 16, num_layers=2, batch_first=True,
                            bidirectional=True)
        self.head = nn.Linear(32, 4)

    def forward(self, x):
        return self.head(self.lstm(x)[0][:, -1])


class Gru(nn.Module):
    def __init__(self):
        super().__init__()
        self.gru = nn.GRU(8, 16, batch_first=True)
        self.head = nn.Linear(16, 4)

    def forward(self, x, h0):
        return self.head(self.gru(x, h0)[0][:, -1])


x = torch.randn(2, 5, 8)
h0 = torch.randn(1, 2, 16)
np.save(os.path.join(out, "recurrent_x.npy"), x.numpy())
np.save(os.path.join(out, "recurrent_x_seq_first.npy"),
        x.transpose(0, 1).contiguous().numpy())
np.save(os.path.join(out, "recurrent_h0.npy"), h0.numpy())
lstm, gru = Lstm().eval(), Gru().eval()
rnn = nn.RNN(8, 16, nonlinearity="relu").eval()
with torch.no_grad():
    np.save(os.path.join(out, "lstm_expected.npy"), lstm(x).numpy())
    np.save(os.path.join(out, "gru_expected.npy"), gru(x, h0).numpy())
    y, h = rnn(x.transpose(0, 1).contiguous())
    np.save(os.path.join(out, "rnn_expected_y.npy"), y.numpy())
    np.save(os.path.join(out, "rnn_expected_h.npy"), h.numpy())
sequence = {0: "batch", 1: "seq"}
torch.onnx.export(lstm, (x,), os.path.join(out, "lstm_op14.onnx"),
                  opset_version=14, input_names=["x"], output_names=["y"],
                  dynamic_axes={"x": sequence})
torch.onnx.export(gru, (x, h0), os.path.join(out, "gru_op14.onnx"),
                  opset_version=14, input_names=["x", "h0"],
                  output_names=["y"],
                  dynamic_axes={"x": sequence, "h0": {1: "batch"}})
torch.onnx.export(rnn, (x.transpose(0, 1).contiguous(),),
                  os.path.join(out, "rnn_op14.onnx"), opset_version=14,
                  input_names=["x"], output_names=["y", "h"])

# Bad inputs: an LSTM whose W does not match X's input size, and one whose
# sequence_lens cut rows short (not supported).
import onnx  # noqa: E402
from onnx import TensorProto, helper, numpy_helper  # noqa: E402


def bad_lstm(name, w_input, lengths):
    rng = np.random.default_rng(1)
    inits = [numpy_helper.from_array(
                 rng.standard_normal((1, 64, w_input)).astype(np.float32),
                 "W"),
             numpy_helper.from_array(
                 rng.standard_normal((1, 64, 16)).astype(np.float32), "R"),
             numpy_helper.from_array(np.array(lengths, np.int32), "lens")]
    node = helper.make_node("LSTM", ["x", "W", "R", "", "lens"], ["y"],
                            hidden_size=16, name="lstm")
    graph = helper.make_graph(
        [node], name, [helper.make_tensor_value_info(
            "x", TensorProto.FLOAT, [5, 2, 8])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, None)], inits)
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("",
                                                                        14)])
    onnx.save(model, os.path.join(out, name + ".onnx"))


bad_lstm("lstm_bad_weights", 7, [5, 5])
bad_lstm("lstm_short_rows", 8, [5, 3])

#!/usr/bin/env python3
"""Recurrent networks under dynamic quantization: PyTorch's quantize_dynamic
of nn.LSTM / nn.GRU against Quanta's quanta-compile-dynamic of the same
model exported to ONNX, side by side in one run.

The model: --cell (LSTM or GRU) with --input features, --hidden units,
--layers layers, over --seq steps of batch 1 (the issue's LSTM by default:
256, 512, 2 layers, 50 steps), random weights from a fixed seed, followed
by nothing (the last layer's outputs are the result). It is exported to
ONNX (opset 14) and run:

- Quanta fp32: quant-run with Quanta's float kernels;
- Quanta dynamic int8: quant-run with quanta-compile-dynamic (onednn
  numerics): each step's recurrent product and the input projection of
  the whole sequence (as ATen precomputes it) quantize their activations
  at run time; the gates stay float;
- PyTorch fp32 and PyTorch's dynamic int8 (quantize_dynamic(model,
  {nn.LSTM, nn.GRU}), its default engine).

It prints, for each --threads, the median latency of each and Quanta
dynamic's ratios, and the SQNR of both dynamic models against PyTorch's
float output. The two dynamic models are not bit-equal: the ONNX importer
adds the input and recurrent biases into the input projection, where
PyTorch adds each inside its own dynamic Linear, and the gates' sigmoid and
tanh are computed differently.

    /usr/bin/python3 benchmarks/recurrent_vs_pytorch.py [--cell lstm|gru]
        [--input 256] [--hidden 512] [--layers 2] [--seq 50]
        [--threads 1,2] [--repeats 20] [--rounds 3]

A program to read, not a test: the machine is shared and noisy.
"""
import argparse
import os
import sys
import tempfile
import warnings

import numpy as np
import torch
from torch import nn

# Run as a script, this folder is on sys.path.
from models_vs_pytorch import quant_run, sqnr, time_torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
warnings.filterwarnings("ignore")


class Outputs(nn.Module):
    """The recurrent layers' outputs alone (not their final states)."""

    def __init__(self, recurrent):
        super().__init__()
        self.recurrent = recurrent

    def forward(self, x):
        return self.recurrent(x)[0]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--cell", choices=["lstm", "gru"], default="lstm")
    parser.add_argument("--input", type=int, default=256)
    parser.add_argument("--hidden", type=int, default=512)
    parser.add_argument("--layers", type=int, default=2)
    parser.add_argument("--seq", type=int, default=50)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--rounds", type=int, default=3)
    options = parser.parse_args()

    torch.manual_seed(0)
    cell = nn.LSTM if options.cell == "lstm" else nn.GRU
    model = Outputs(cell(options.input, options.hidden,
                         options.layers)).eval()
    x = torch.randn(options.seq, 1, options.input)
    work = tempfile.mkdtemp(prefix="quanta-recurrent-")
    onnx_path = os.path.join(work, "model.onnx")
    x_path = os.path.join(work, "x.npy")
    np.save(x_path, x.numpy())
    torch.onnx.export(model, (x,), onnx_path, opset_version=14,
                      input_names=["x"], output_names=["y"])
    dynamic = torch.ao.quantization.quantize_dynamic(
        model, {nn.LSTM, nn.GRU}, dtype=torch.qint8)
    with torch.no_grad():
        reference = model(x).numpy()
        torch_dynamic = dynamic(x).numpy()
    print(f"{options.cell.upper()} input {options.input}, hidden "
          f"{options.hidden}, {options.layers} layers, {options.seq} steps, "
          f"batch 1; PyTorch engine {torch.backends.quantized.engine}")

    pipelines = {"float": "quanta-lower-cpu",
                 "dynamic": "quanta-compile-dynamic{engine=onednn}"}
    outputs = {name: os.path.join(work, f"{name}.npy") for name in pipelines}
    for name, pipeline in pipelines.items():
        _, note = quant_run(options.build, onnx_path, x_path, outputs[name],
                            pipeline, 1, 1)
        print(f"Quanta {name}: {note}")
    quanta_float = np.load(outputs["float"]).reshape(reference.shape)
    quanta_dynamic = np.load(outputs["dynamic"]).reshape(reference.shape)
    print(f"Quanta fp32 vs PyTorch fp32: max |difference| "
          f"{np.abs(quanta_float - reference).max():.2e}")
    print(f"SQNR vs PyTorch fp32: Quanta dynamic {sqnr(reference, quanta_dynamic):.1f} dB, "
          f"PyTorch dynamic {sqnr(reference, torch_dynamic):.1f} dB; "
          f"Quanta dynamic vs PyTorch dynamic {sqnr(torch_dynamic, quanta_dynamic):.1f} dB")

    print(f"\n{'threads':>7} {'Quanta dyn':>11} {'Quanta fp32':>12} "
          f"{'torch dyn':>10} {'torch fp32':>11}   Quanta dynamic vs: torch "
          f"dynamic, torch fp32, Quanta fp32 (median ms)")
    for threads in [int(t) for t in options.threads.split(",")]:
        torch.set_num_threads(threads)
        medians = [min(rounds) for rounds in zip(*(
            [quant_run(options.build, onnx_path, x_path, outputs[name],
                       pipelines[name], options.repeats, threads)[0][0]
             for name in ("dynamic", "float")]
            for _ in range(options.rounds)))]
        qd, qf = medians
        td, _ = time_torch(dynamic, x, options.repeats)
        tf, _ = time_torch(model, x, options.repeats)
        print(f"{threads:>7} {qd:>11.3f} {qf:>12.3f} {td:>10.3f} {tf:>11.3f}"
              f"   {td / qd:.2f}x {tf / qd:.2f}x {qf / qd:.2f}x")


if __name__ == "__main__":
    sys.exit(main())

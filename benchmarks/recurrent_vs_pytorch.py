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
  {nn.LSTM, nn.GRU}), its default engine);
- with --cell lstm and ONNX Runtime installed (`make ort`), the model as
  ONNX Runtime's quantize_dynamic writes it (each LSTM a
  DynamicQuantizeLSTM with int8 weights per tensor) in ONNX Runtime and in
  Quanta (`quanta-lower-x86`, its import of that node).

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
from models_vs_pytorch import find_ort, quant_run, sqnr, time_ort, time_torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
sys.path.insert(0, os.path.join(ROOT, "scripts", "goldens"))
from gen_onnx_dynamic_lstm import to_dynamic_quantize_lstm  # noqa: E402
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
    parser.add_argument("--ort", metavar="DIR",
                        help="onnxruntime-node's directory (default: "
                        "build/ort)")
    options = parser.parse_args()
    ort = find_ort(options.ort) if options.cell == "lstm" else None

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

    if ort:
        import onnx
        ort_path = os.path.join(work, "model.ort_dynamic.onnx")
        onnx.save(to_dynamic_quantize_lstm(onnx.load(onnx_path)), ort_path)
        x_bin = os.path.join(work, "x.bin")
        x.numpy().tofile(x_bin)
        ort_out = os.path.join(work, "ort_dynamic.npy")
        quant_run(options.build, ort_path, x_path, ort_out,
                  "quanta-lower-x86", 1, 1)
        _, ort_y, _ = time_ort(ort, ort_path, x.numpy(), x_bin,
                               os.path.join(work, "ort.bin"), 1, 1)
        quanta_on_ort = np.load(ort_out).reshape(reference.shape)
        print(f"ONNX Runtime's DynamicQuantizeLSTM model: SQNR vs PyTorch "
              f"fp32: ONNX Runtime {sqnr(reference, ort_y.reshape(reference.shape)):.1f} dB, "
              f"Quanta {sqnr(reference, quanta_on_ort):.1f} dB; Quanta vs "
              f"ONNX Runtime max |difference| "
              f"{np.abs(quanta_on_ort - ort_y.reshape(reference.shape)).max():.2e}")
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
        if ort:
            ours = min(quant_run(options.build, ort_path, x_path, ort_out,
                                 "quanta-lower-x86", options.repeats,
                                 threads)[0][0]
                       for _ in range(options.rounds))
            theirs = min(time_ort(ort, ort_path, x.numpy(), x_bin,
                                  os.path.join(work, "ort.bin"),
                                  options.repeats, threads)[0][0]
                         for _ in range(options.rounds))
            print(f"{threads:>7}   ONNX Runtime's DynamicQuantizeLSTM "
                  f"model: Quanta {ours:.3f} ms, ONNX Runtime {theirs:.3f} "
                  f"ms: {theirs / ours:.2f}x")


if __name__ == "__main__":
    sys.exit(main())

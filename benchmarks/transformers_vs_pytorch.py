#!/usr/bin/env python3
"""A BERT-shaped encoder: Quanta against PyTorch 1.13, side by side in one
run.

The model: token embedding of int64 ids + learned positions, --layers
post-norm nn.TransformerEncoderLayer (--dim, --heads, feed-forward 4 *
dim, GELU), mean over the sequence, a Linear head; random weights from a
fixed seed (BERT-base by default: 12 layers, d = 768, 12 heads, seq 128).
It is exported to ONNX (opset 17) with symbolic 'batch' and 'seq', and:

- Quanta float: quant-run on the .onnx (--onnx-dim), with Quanta's float
  kernels (quanta-lower-x86);
- Quanta int8: the quanta driver (qconfig x86: every Linear an int8 GEMM
  with per-channel weights, calibrated on --calibration-batches random id
  batches; what stays float is listed), lowered for this CPU;
- PyTorch fp32 (its fused encoder fast path where it takes it) and
  PyTorch's quantize_dynamic int8 of the Linear layers (a zero float mask
  disables the fast path, which the dynamic model does not support).

It prints, for each --threads, the median and best latency of each, Quanta
int8's ratio against each, the int8 models' SQNR against their float
logits over --sqnr-sequences held-out sequences, and the compile times
(import + JIT of a single-call quant-run; the driver's calibration JIT).

    /usr/bin/python3 benchmarks/transformers_vs_pytorch.py [--layers 12]
        [--dim 768] [--heads 12] [--seq 128] [--threads 1,2] [--repeats 10]

A program to read, not a test: the machine is shared and noisy, which is
why every number comes from the same run.
"""
import argparse
import os
import re
import subprocess
import sys
import tempfile
import time

import numpy as np
import torch
from torch import nn

# Run as a script, this folder is on sys.path.
from models_vs_pytorch import sqnr, time_torch

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
VOCAB = 1000


class Encoder(nn.Module):
    def __init__(self, layers, dim, heads, seq):
        super().__init__()
        self.tokens = nn.Embedding(VOCAB, dim)
        self.positions = nn.Parameter(torch.randn(1, seq, dim) * 0.02)
        layer = nn.TransformerEncoderLayer(dim, heads, 4 * dim, dropout=0.0,
                                           activation="gelu",
                                           batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, layers,
                                             enable_nested_tensor=False)
        self.head = nn.Linear(dim, 2)

    def forward(self, ids, mask=None):
        x = self.tokens(ids) + self.positions[:, :ids.shape[1]]
        return self.head(self.encoder(x, mask=mask).mean(1))


def run(command):
    start = time.perf_counter()
    result = subprocess.run(command, capture_output=True, text=True)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return result.stdout, time.perf_counter() - start


def quant_run(build, model, ids_path, out_path, extra, repeats, threads):
    stdout, _ = run([os.path.join(build, "bin", "quant-run"), model,
                     f"--input={ids_path}", f"--output={out_path}",
                     f"--benchmark={repeats}", f"--num-threads={threads}"] +
                    extra)
    match = re.search(r"best ([0-9.]+) ms, median ([0-9.]+) ms", stdout)
    return float(match.group(2)), float(match.group(1))


def held_out_sqnr(options, onnx_path, work, calibration_files, count):
    """Quanta int8 vs float logits over `count` held-out sequences: the
    driver's calibration (the same files, qconfig x86) done at batch 1, its
    statistics applied by name to the model imported at batch `count` (as
    `make demo` applies the digits' statistics to the held-out set). One
    sequence gives only the head's few logits: too few for an SQNR."""
    tool = lambda name: os.path.join(options.build, "bin", name)
    translate = lambda batch, path: run(
        [tool("quant-translate"), "--import-onnx", onnx_path,
         f"--onnx-dim=batch={batch},seq={options.seq}",
         "--mlir-print-debuginfo", "-o", path])
    stats = os.path.join(work, "statistics.json")
    one, many = (os.path.join(work, f"eval{n}.mlir") for n in (1, count))
    translate(1, one)
    run([tool("quant-opt"), one, "--quanta-prepare=qconfig=x86",
         "--quanta-calibrate=data=" + ",".join(calibration_files) + " quiet",
         f"--quanta-export-statistics=file={stats}", "-o", os.devnull])
    translate(count, many)
    int8 = os.path.join(work, f"eval{count}.int8.mlir")
    run([tool("quant-opt"), many, "--quanta-prepare=qconfig=x86",
         f"--quanta-import-statistics=files={stats}",
         "--quanta-freeze-qparams", "--quanta-quantize", "-o", int8])
    ids = np.random.default_rng(1).integers(0, VOCAB, (count, options.seq))
    ids_path = os.path.join(work, "held_out_ids.npy")
    np.save(ids_path, ids)
    outputs = []
    for model in (many, int8):
        out = model + ".npy"
        run([tool("quant-run"), model, f"--input={ids_path}",
             f"--output={out}",
             "--pass-pipeline=builtin.module(quanta-lower-x86)"])
        outputs.append(np.load(out))
    return sqnr(outputs[0], outputs[1]), ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--calibration-batches", type=int, default=32)
    parser.add_argument("--sqnr-sequences", type=int, default=16)
    options = parser.parse_args()

    torch.manual_seed(0)
    model = Encoder(options.layers, options.dim, options.heads,
                    options.seq).eval()
    rng = np.random.default_rng(0)
    work = tempfile.mkdtemp(prefix="quanta-transformers-")
    onnx_path = os.path.join(work, "encoder.onnx")
    ids = rng.integers(0, VOCAB, (1, options.seq))
    torch.onnx.export(model, (torch.from_numpy(ids),), onnx_path,
                      opset_version=17, input_names=["ids"],
                      output_names=["logits"],
                      dynamic_axes={"ids": {0: "batch", 1: "seq"}})
    ids_path = os.path.join(work, "ids.npy")
    np.save(ids_path, ids)
    data = os.path.join(work, "calibration")
    os.makedirs(data)
    for index in range(options.calibration_batches + 1):
        np.save(os.path.join(data, f"batch{index}.npy"),
                rng.integers(0, VOCAB, (1, options.seq)))
    dims = f"--onnx-dim=batch=1,seq={options.seq}"

    print(f"encoder: {options.layers} layers, d {options.dim}, "
          f"{options.heads} heads, seq {options.seq}, batch 1; "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M "
          f"parameters")
    int8_mlir = os.path.join(work, "encoder.int8.mlir")
    stdout, driver_seconds = run(
        [os.path.join(options.build, "bin", "quanta"), onnx_path, dims,
         f"--data={data}", "--emit=mlir", "-o", int8_mlir])
    calibration = re.search(r"of which ([0-9.]+) s JIT", stdout)
    left = re.search(r"int8, ([0-9]+) float compute op", stdout)
    print(f"quanta driver: {driver_seconds:.1f} s in all (calibration JIT "
          f"{calibration.group(1) if calibration else '?'} s); "
          f"{left.group(1) if left else '?'} float compute ops left")
    lower = ["--pass-pipeline=builtin.module(quanta-lower-x86)"]
    float_out = os.path.join(work, "float.npy")
    int8_out = os.path.join(work, "int8.npy")
    _, float_compile = run([os.path.join(options.build, "bin", "quant-run"),
                            onnx_path, dims, f"--input={ids_path}",
                            f"--output={float_out}"] + lower)
    _, int8_compile = run([os.path.join(options.build, "bin", "quant-run"),
                           int8_mlir, f"--input={ids_path}",
                           f"--output={int8_out}"] + lower)
    print(f"compile (import + JIT + one call): Quanta float "
          f"{float_compile:.1f} s, int8 {int8_compile:.1f} s")

    reference = model(torch.from_numpy(ids)).detach().numpy()
    dynamic = torch.ao.quantization.quantize_dynamic(model, {nn.Linear})
    zero_mask = torch.zeros(options.seq, options.seq)
    quanta_float = np.load(float_out)
    print(f"Quanta float vs PyTorch: max |difference| "
          f"{np.abs(quanta_float - reference).max():.2e}")
    calibration_files = sorted(
        os.path.join(data, name) for name in os.listdir(data))[:-1]
    quanta_sqnr, held_out = held_out_sqnr(options, onnx_path, work,
                                          calibration_files,
                                          options.sqnr_sequences)
    with torch.no_grad():
        held_out = torch.from_numpy(held_out)
        dynamic_sqnr = sqnr(model(held_out).numpy(),
                            dynamic(held_out, zero_mask).numpy())
    print(f"SQNR vs float logits over {options.sqnr_sequences} held-out "
          f"sequences: Quanta int8 (static, per-tensor activations) "
          f"{quanta_sqnr:.1f} dB, PyTorch dynamic {dynamic_sqnr:.1f} dB")

    print(f"\n{'threads':>7} {'Quanta int8':>12} {'Quanta fp32':>12} "
          f"{'torch fp32':>11} {'torch dyn':>10}   int8 vs: Quanta fp32, "
          f"torch fp32, torch dynamic (median ms)")
    for threads in [int(t) for t in options.threads.split(",")]:
        torch.set_num_threads(threads)
        q8, _ = quant_run(options.build, int8_mlir, ids_path, int8_out,
                          lower, options.repeats, threads)
        qf, _ = quant_run(options.build, onnx_path, ids_path, float_out,
                          [dims] + lower, options.repeats, threads)
        tf, _ = time_torch(model, torch.from_numpy(ids), options.repeats)
        td, _ = time_torch(lambda ids: dynamic(ids, zero_mask),
                           torch.from_numpy(ids), options.repeats)
        print(f"{threads:>7} {q8:>12.2f} {qf:>12.2f} {tf:>11.2f} {td:>10.2f}"
              f"   {qf / q8:.2f}x {tf / q8:.2f}x {td / q8:.2f}x")


if __name__ == "__main__":
    main()

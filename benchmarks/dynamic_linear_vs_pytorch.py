#!/usr/bin/env python3
"""PyTorch's dynamic Linear (quantize_dynamic) against Quanta's, side by
side in one run.

For each engine PyTorch 1.13 has here (onednn, its default, and qnnpack),
each M (1 as a decoder runs, up to 64) and K = N in --sizes, and each
--threads: the median latency of torch.ao.nn.quantized.dynamic.Linear, of
Quanta's compiled quanta-compile-dynamic{engine=...} of the same float
Linear (per-tensor weights, default_dynamic_qconfig), and of PyTorch's
fp32 nn.Linear; the ratios; and whether Quanta's outputs are the same
bits as PyTorch's (they should be: the kernels reproduce each engine's
numerics). Runs are interleaved round by round, each side's best median
kept, since the machine is shared and noisy.

Then, at M = 1 (a decoder's token) for K = N in --gemv-sizes, Quanta's
GEMVs by how their weights are stored: f32 (the float kernel),
float16_dynamic (f16), weight_only_bf16 (bf16), bf16_dot (bf16 weights
and activations, AVX512-BF16 only), weight_only_int8 (s8 per column),
dynamic int8 (onednn numerics), weight_only_int4 (4 bits, a scale per
32) and int4_dynamic (the same weights, activations quantized to s8 per
32 k values, integer dot products), both also with int4-asymmetric (a
zero point per group), and int4_dynamic with int4-f16-scales: each one's
median, the weights' bytes
per second, the read bandwidth of this machine for a buffer of the same
size measured in the same run (NumPy's max over it: a vectorised read
loop), and the speed against f32 and int8 weight-only.

    /usr/bin/python3 benchmarks/dynamic_linear_vs_pytorch.py
        [--sizes 768,3072] [--rows 1,4,16,64] [--threads 1,2]
        [--engines onednn,qnnpack] [--repeats 50] [--rounds 3]
        [--gemv-sizes 1024,2048,4096]

Needs the build's Python package: PYTHONPATH=build/python_packages. A
program to read, not a test.
"""
import argparse
import os
import sys
import time
import warnings

import numpy as np
import torch
from torch import nn
from torch.ao.quantization import default_dynamic_qconfig, quantize_dynamic

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "build", "python_packages"))
import quanta  # noqa: E402
from quanta.dynamic import linear_mlir  # noqa: E402

warnings.filterwarnings("ignore")


def median_ms(call, repeats):
    call()
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        call()
        seconds.append(time.perf_counter() - start)
    return float(np.median(seconds)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="768,3072")
    parser.add_argument("--rows", default="1,4,16,64")
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--engines", default="onednn,qnnpack")
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--gemv-sizes", default="1024,2048,4096")
    args = parser.parse_args()
    ints = lambda text: [int(v) for v in text.split(",")]  # noqa: E731
    rng = np.random.default_rng(0)
    print("%-8s %3s %5s %2s  %10s %10s %10s  %8s %8s  %s" % (
        "engine", "M", "K=N", "T", "torch dyn", "quanta", "torch f32",
        "vs dyn", "vs f32", "bits"))
    for size in ints(args.sizes):
        weight = (rng.standard_normal((size, size)) / np.sqrt(size)).astype(
            np.float32)
        bias = rng.standard_normal(size).astype(np.float32)
        linear = nn.Linear(size, size)
        with torch.no_grad():
            linear.weight.copy_(torch.from_numpy(weight))
            linear.bias.copy_(torch.from_numpy(bias))
        for engine in args.engines.split(","):
            torch.backends.quantized.engine = engine
            dynamic = quantize_dynamic(nn.Sequential(linear),
                                       {nn.Linear: default_dynamic_qconfig},
                                       dtype=torch.qint8)
            for m in ints(args.rows):
                x = rng.standard_normal((m, size)).astype(np.float32)
                xt = torch.from_numpy(x)
                for threads in ints(args.threads):
                    torch.set_num_threads(threads)
                    run = quanta.Module.parse(
                        linear_mlir(weight, bias, m), "linear.mlir"
                    ).quantize_dynamic(engine=engine).compile(threads=threads)
                    # A fresh PyTorch module per comparison: onednn's
                    # primitive cache can reuse an earlier call's zero point.
                    fresh = quantize_dynamic(
                        nn.Sequential(linear),
                        {nn.Linear: default_dynamic_qconfig},
                        dtype=torch.qint8)
                    with torch.no_grad():
                        same = fresh(xt).numpy().tobytes() == run(x).tobytes()
                    best = [float("inf")] * 3
                    with torch.no_grad():
                        for _ in range(args.rounds):
                            times = [median_ms(lambda: dynamic(xt), args.repeats),
                                     median_ms(lambda: run(x), args.repeats),
                                     median_ms(lambda: linear(xt), args.repeats)]
                            best = [min(a, b) for a, b in zip(best, times)]
                    print("%-8s %3d %5d %2d  %8.3fms %8.3fms %8.3fms  %7.2fx "
                          "%7.2fx  %s" % (engine, m, size, threads, best[0],
                                          best[1], best[2], best[0] / best[1],
                                          best[2] / best[1],
                                          "identical" if same else "DIFFER"),
                          flush=True)
    gemv(ints(args.gemv_sizes), args.repeats, args.rounds, rng)


def read_bandwidth(size, repeats):
    """GB/s of NumPy's max over a `size`-byte buffer (best of `repeats`)."""
    buffer = np.ones(max(size // 8, 1), np.uint64)
    seconds = []
    for _ in range(repeats):
        start = time.perf_counter()
        buffer.max()
        seconds.append(time.perf_counter() - start)
    return buffer.nbytes / min(seconds) / 1e9


GEMV_VARIANTS = [  # name, bytes per weight, pipeline
    ("f32", 4, "quanta-lower-cpu"),
    ("f16", 2, "quanta-compile-dynamic{qconfig=float16_dynamic}"),
    ("bf16", 2, "quanta-compile-dynamic{qconfig=weight_only_bf16}"),
    # bf16 activations too: AVX512-BF16 only (left out without it).
    ("bf16 dot", 2, "quanta-compile-dynamic{qconfig=bf16_dot}"),
    ("int8 w-only", 1, "quanta-compile-dynamic{qconfig=weight_only_int8}"),
    ("int8 dynamic", 1, "quanta-compile-dynamic{engine=onednn}"),
    # Half a byte per weight and an f32 scale per 32.
    ("int4 w-only", 0.5 + 4 / 32,
     "quanta-compile-dynamic{qconfig=weight_only_int4 group-size=32}"),
    # The same weights, the activations quantized to s8 per group of 32.
    ("int4 dynamic", 0.5 + 4 / 32,
     "quanta-compile-dynamic{qconfig=int4_dynamic group-size=32}"),
    # Asymmetric: a zero point (one byte in the kernels' table) per group.
    ("int4 asym", 0.5 + 5 / 32,
     "quanta-compile-dynamic{qconfig=weight_only_int4 group-size=32 "
     "int4-asymmetric=true}"),
    ("int4 asym dyn", 0.5 + 5 / 32,
     "quanta-compile-dynamic{qconfig=int4_dynamic group-size=32 "
     "int4-asymmetric=true}"),
    # f16 scales: 2 bytes per 32 weights.
    ("int4 dyn f16s", 0.5 + 2 / 32,
     "quanta-compile-dynamic{qconfig=int4_dynamic group-size=32 "
     "int4-f16-scales=true}"),
]


def gemv(sizes, repeats, rounds, rng):
    print("\nM = 1, one thread: median, weight bytes read per second, and "
          "the machine's read bandwidth for a buffer of the weights' size")
    print("%5s  %-13s %9s %9s %9s %7s %8s %8s" % (
        "K=N", "weights", "median", "GB/s", "read GB/s", "share",
        "vs f32", "vs int8"))
    for size in sizes:
        weight = (rng.standard_normal((size, size)) / np.sqrt(size)).astype(
            np.float32)
        bias = rng.standard_normal(size).astype(np.float32)
        x = rng.standard_normal((1, size)).astype(np.float32)
        runs, variants = [], []
        for name, width, pipeline in GEMV_VARIANTS:
            module = quanta.Module.parse(linear_mlir(weight, bias, 1),
                                         "linear.mlir")
            try:
                module.run_pipeline("builtin.module(%s)" % pipeline)
            except quanta.Error as error:
                print("%5d  %-13s left out: %s" % (
                    size, name, str(error).splitlines()[0]))
                continue
            runs.append(module.compile())
            variants.append((name, width))
        best = [float("inf")] * len(runs)
        for _ in range(rounds):
            best = [min(b, median_ms(lambda: run(x), repeats))
                    for b, run in zip(best, runs)]
        names = [name for name, _ in variants]
        int8 = best[names.index("int8 w-only")]
        for (name, width), ms in zip(variants, best):
            nbytes = int(size * size * width)
            rate = nbytes / ms / 1e6
            bandwidth = read_bandwidth(nbytes, repeats)
            print("%5d  %-13s %7.3fms %9.1f %9.1f %6.0f%% %7.2fx %7.2fx" % (
                size, name, ms, rate, bandwidth, 100 * rate / bandwidth,
                best[0] / ms, int8 / ms), flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""ONNX Runtime's 4-bit MatMulNBits against Quanta's import of the same
.onnx, side by side in one run.

For each K = N in --sizes and each M in --rows: one MatMulNBits node (4-bit
weights, a scale per 32 k values, random values; symmetric, and with a
random zero point per block: the form ONNX Runtime's quantizer writes by
default) with
accuracy_level 0 (ONNX Runtime computes with f32 activations; Quanta's
weight_only_matmul, the same formula in its own order) and 4 (A quantized
to int8 per block; Quanta's int8_activations), timed in quant-run
(`quanta-lower-x86`) and in ONNX Runtime 1.30 through ort_session.js,
medians of --repeats calls, and the largest difference of the two outputs
relative to the largest output.

Run with Debian's Python after `make ort`:
    /usr/bin/python3 benchmarks/matmul_nbits_vs_ort.py
        [--sizes 1024,4096] [--rows 1,16] [--threads 1] [--repeats 50]
"""
import argparse
import atexit
import os
import shutil
import sys
import tempfile

import numpy as np

from models_vs_pytorch import ROOT, find_ort, int_list, quanta_against_ort

sys.path.insert(0, os.path.join(ROOT, "scripts", "goldens"))
from gen_onnx_matmul_nbits import model, pack_zero_points  # noqa: E402


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", type=int_list, default=[1024, 4096])
    parser.add_argument("--rows", type=int_list, default=[1, 16])
    parser.add_argument("--threads", type=int_list, default=[1])
    parser.add_argument("--repeats", type=int, default=50)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ort", metavar="DIR")
    args = parser.parse_args()
    ort = find_ort(args.ort)
    if ort is None:
        sys.exit("ONNX Runtime not found: run `make ort` or pass --ort DIR")
    work = tempfile.mkdtemp(prefix="quanta-matmul-nbits-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    os.environ["QUANTA_CACHE_DIR"] = os.path.join(work, "compile-cache")
    rng = np.random.default_rng(0)
    block = 32
    print(f"one MatMulNBits, block {block}, median of {args.repeats} calls "
          "(best in brackets), ms")
    print(f"{'K=N':>5}{'M':>4}{'level':>6}{'zp':>5}{'threads':>8}"
          f"{'Quanta':>18}"
          f"{'ONNX Runtime':>18}{'ratio':>8}  max |diff| / max |y|")
    for size in args.sizes:
        q = rng.integers(-8, 8, (size, size))
        scales = (rng.uniform(0.5, 1, (size, size // block))
                  / np.sqrt(size)).astype(np.float32)
        zero_points = pack_zero_points(
            rng.integers(0, 16, (size, size // block)))
        for m in args.rows:
            x = rng.standard_normal((m, size)).astype(np.float32)
            x_npy, x_bin = (os.path.join(work, "x.npy"),
                            os.path.join(work, "x.bin"))
            np.save(x_npy, x)
            x.tofile(x_bin)
            for level, zeros in ((0, None), (4, None), (0, zero_points),
                                 (4, zero_points)):
                kind = "no" if zeros is None else "yes"
                path = model(f"nbits_{size}_{m}_{level}_{kind}", [m, size],
                             q, scales, block, level, zeros=zeros, out=work)
                for threads in args.threads:
                    (ours, ours_best), (theirs, theirs_best), got, \
                        expected = quanta_against_ort(
                            args.build, ort, path, x, (x_npy, x_bin), work,
                            "quanta-lower-x86", args.repeats, threads)
                    diff = (np.abs(got - expected).max()
                            / np.abs(expected).max())
                    print(f"{size:>5}{m:>4}{level:>6}{kind:>5}{threads:>8}"
                          f"{ours:>9.3f} [{ours_best:6.3f}]"
                          f"{theirs:>9.3f} [{theirs_best:6.3f}]"
                          f"{theirs / ours:>7.2f}x  {diff:.2e}", flush=True)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Dynamically quantized CNNs: Quanta against ONNX Runtime on the same .onnx.

What ONNX Runtime's quantize_dynamic writes for a CNN (benchmarks/
ort_dynamic.py: each Conv a DynamicQuantizeLinear -> ConvInteger -> Cast ->
Mul chain with per-tensor weights, the fully connected layer a
MatMulInteger one), with its default int8 weights (QInt8) and with uint8
ones (QUInt8, asymmetric), for torchvision models (random weights, batch
norms folded by the export). Quanta runs the .onnx through quant-run
(quanta-lower-x86{float}: the ConvInteger chains of one group become int8
GEMMs, depthwise ones exact f32 window loops); ONNX Runtime through
benchmarks/ort_session.js (graph optimizations on; with more than one
thread timed with spinning off and on, the faster kept). Medians of
--repeats calls after a warm-up, side by side in one run, and whether the
two outputs are the same bits.

Run with Debian's Python (torch, torchvision, onnx) after `make ort`:
    /usr/bin/python3 benchmarks/dynamic_cnn_vs_ort.py [--models resnet18]
        [--threads 1,2] [--repeats 20]
"""
import argparse
import atexit
import os
import shutil
import sys
import tempfile

import numpy as np
import onnx
import torch

from models_vs_pytorch import (ROOT, find_ort, int_list, quanta_against_ort,
                               torchvision_pair)
from ort_dynamic import dynamic_model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="resnet18,mobilenet_v2")
    parser.add_argument("--threads", type=int_list, default=[1, 2])
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ort", metavar="DIR",
                        help="where node_modules/onnxruntime-node is "
                             "(default: $QUANTA_ORT_DIR, else build/ort)")
    args = parser.parse_args()
    ort = find_ort(args.ort)
    if ort is None:
        sys.exit("ONNX Runtime not found: run `make ort` or pass --ort DIR")
    work = tempfile.mkdtemp(prefix="quanta-dynamic-cnn-")
    atexit.register(shutil.rmtree, work, ignore_errors=True)
    os.environ["QUANTA_CACHE_DIR"] = os.path.join(work, "compile-cache")
    x = np.random.default_rng(0).standard_normal((1, 3, 224, 224)).astype(
        np.float32)
    x_npy, x_bin = os.path.join(work, "x.npy"), os.path.join(work, "x.bin")
    np.save(x_npy, x)
    x.tofile(x_bin)
    print(f"batch 1, median of {args.repeats} calls (best in brackets), ms")
    print(f"{'model':<14}{'weights':<9}{'threads':>8}{'Quanta':>18}"
          f"{'ONNX Runtime':>18}{'ratio':>8}  outputs")
    for name in args.models.split(","):
        float_model, _ = torchvision_pair(name)
        float_path = os.path.join(work, f"{name}.onnx")
        torch.onnx.export(float_model, torch.zeros(1, 3, 224, 224),
                          float_path, opset_version=13,
                          do_constant_folding=True)
        for weights, unsigned in (("QInt8", False), ("QUInt8", True)):
            path = os.path.join(work, f"{name}.{weights}.onnx")
            onnx.save(dynamic_model(onnx.load(float_path),
                                    unsigned_weights=unsigned), path)
            for threads in args.threads:
                (quanta, quanta_best), (runtime, runtime_best), ours, \
                    expected = quanta_against_ort(
                        args.build, ort, path, x, (x_npy, x_bin), work,
                        "quanta-lower-x86{float}", args.repeats, threads)
                same = np.array_equal(ours.view(np.uint32),
                                      expected.view(np.uint32))
                verdict = "identical" if same else (
                    f"max |diff| {np.abs(ours - expected).max():.3g}")
                print(f"{name:<14}{weights:<9}{threads:>8}"
                      f"{quanta:>9.2f} [{quanta_best:6.2f}]"
                      f"{runtime:>9.2f} [{runtime_best:6.2f}]"
                      f"{runtime / quanta:>7.2f}x  {verdict}", flush=True)


if __name__ == "__main__":
    main()

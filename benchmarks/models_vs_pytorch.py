#!/usr/bin/env python3
"""Whole models: Quanta against PyTorch 1.13, side by side in one run.

For torchvision 0.14's ResNet-18 and MobileNetV2 (deterministic random
weights and batch-norm statistics from a fixed seed: no pretrained weights
can be downloaded) and the bundled digits CNN:

- PyTorch fp32, and PyTorch's own int8 model (torchvision.models.
  quantization's architecture with the same weights: fuse, prepare with the
  engine's default qconfig, calibrate, convert) for each --engines;
- Quanta: the model exported to ONNX, imported (quant-translate), PTQ with
  the x86 qconfig on the same calibration images (quanta-ptq), int8
  (quanta-quantize, quanta-propagate-layout, quanta-lower-x86 for this CPU),
  and Quanta's own float lowering of the ONNX model;

and prints the median and best latency of each (quant-run --benchmark for
Quanta, the same repetition count for PyTorch), Quanta int8's speed ratio
against each PyTorch model, and the agreement of each int8 model with its
float logits (SQNR, same top-1). Calibration runs Quanta's JIT with scalar
loops today, so it is slow for the large models; --calibration-images
keeps it short.

    apt-get install python3-torch python3-torchvision
    /usr/bin/python3 benchmarks/models_vs_pytorch.py [--models resnet18,...]
        [--batch 1] [--threads 1] [--calibration-images 2] [--repeats 20]

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
import torchvision
from torch.ao.quantization import get_default_qconfig

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def random_batchnorm_stats(model):
    for module in model.modules():
        if isinstance(module, torch.nn.BatchNorm2d):
            module.running_mean.uniform_(-0.1, 0.1)
            module.running_var.uniform_(0.5, 1.5)


def torchvision_pair(name):
    """The float model and the quantizable one with the same weights."""
    torch.manual_seed(0)
    float_model = getattr(torchvision.models, name)().eval()
    random_batchnorm_stats(float_model)
    quantizable = getattr(torchvision.models.quantization, name)(
        quantize=False).eval()
    quantizable.load_state_dict(float_model.state_dict())
    return float_model, quantizable


def time_torch(model, x, repeats):
    with torch.no_grad():
        model(x)
        seconds = []
        for _ in range(repeats):
            start = time.perf_counter()
            model(x)
            seconds.append(time.perf_counter() - start)
    return np.median(seconds) * 1e3, min(seconds) * 1e3


def sqnr(reference, value):
    noise = ((reference - value) ** 2).sum()
    return float("inf") if noise == 0 else 10 * np.log10(
        (reference ** 2).sum() / noise)


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return result.stdout


def quant_run(build, model, x_path, out_path, pipeline, repeats, threads):
    command = [os.path.join(build, "bin", "quant-run"), model,
               f"--input={x_path}", f"--output={out_path}",
               f"--benchmark={repeats}"]
    if pipeline:
        command.append(f"--pass-pipeline=builtin.module({pipeline})")
    stdout = run(command, env=dict(os.environ, OMP_NUM_THREADS=str(threads)))
    match = re.search(r"best ([0-9.]+) ms, median ([0-9.]+) ms", stdout)
    return float(match.group(2)), float(match.group(1))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="digits_cnn,mobilenet_v2,resnet18")
    parser.add_argument("--batch", type=int, default=1)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument("--calibration-images", type=int, default=2)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--engines", default="onednn,qnnpack")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    args = parser.parse_args()
    torch.set_num_threads(args.threads)
    work = tempfile.mkdtemp(prefix="quanta-models-")
    rng = np.random.default_rng(0)
    print(f"batch {args.batch}, {args.threads} thread(s), "
          f"{args.calibration_images} calibration image(s), median of "
          f"{args.repeats} calls (best in brackets)")

    for name in args.models.split(","):
        if name == "digits_cnn":
            onnx = os.path.join(ROOT, "examples", "digits", "digits_cnn.onnx")
            images = np.load(os.path.join(ROOT, "examples", "digits",
                                          "test_images.npy"))
            shape = (args.batch, 1, 8, 8)
            float_model = quantizable = None
        else:
            float_model, quantizable = torchvision_pair(name)
            onnx = os.path.join(work, f"{name}.onnx")
            shape = (args.batch, 3, 224, 224)
            torch.onnx.export(float_model, torch.zeros(shape), onnx,
                              opset_version=13, do_constant_folding=True)
            images = rng.standard_normal(
                (args.calibration_images + 1,) + shape[1:]).astype(np.float32)
        # Calibration batches of `batch` images, and one batch to time.
        batches = [images[i:i + args.batch]
                   for i in range(0, args.calibration_images, args.batch)]
        x = images[-args.batch:]
        x_path = os.path.join(work, f"{name}_x.npy")
        np.save(x_path, x)
        data = []
        for index, batch in enumerate(batches):
            path = os.path.join(work, f"{name}_cal{index}.npy")
            np.save(path, batch)
            data.append(path)

        # Quanta: import, PTQ, int8 and float.
        bin_dir = os.path.join(args.build, "bin")
        imported = os.path.join(work, f"{name}.mlir")
        run([os.path.join(bin_dir, "quant-translate"), "--import-onnx", onnx,
             f"--onnx-batch={args.batch}", "--mlir-print-debuginfo",
             "-o", imported])
        start = time.perf_counter()
        int8 = os.path.join(work, f"{name}.int8.mlir")
        run([os.path.join(bin_dir, "quant-opt"), imported,
             f"--quanta-ptq=qconfig=x86 data={','.join(data)} quiet",
             "--quanta-quantize", "--quanta-propagate-layout", "-o", int8])
        calibration = time.perf_counter() - start
        quanta_float = quant_run(args.build, onnx if name != "digits_cnn"
                                 else imported, x_path,
                                 os.path.join(work, "f.npy"),
                                 "quanta-lower-x86", args.repeats,
                                 args.threads)
        quanta_int8 = quant_run(args.build, int8, x_path,
                                os.path.join(work, "q.npy"),
                                "quanta-lower-x86", args.repeats, args.threads)
        reference = np.load(os.path.join(work, "f.npy"))
        quantized = np.load(os.path.join(work, "q.npy"))
        rows = [("Quanta fp32", quanta_float, None),
                ("Quanta int8", quanta_int8,
                 (sqnr(reference, quantized),
                  (reference.argmax(1) == quantized.argmax(1)).mean()))]

        if float_model is not None:
            tx = torch.from_numpy(x)
            with torch.no_grad():
                torch_reference = float_model(tx).numpy()
            rows.append(("PyTorch fp32", time_torch(float_model, tx,
                                                    args.repeats), None))
            for engine in args.engines.split(","):
                torch.backends.quantized.engine = engine
                model = getattr(torchvision.models.quantization, name)(
                    quantize=False).eval()
                model.load_state_dict(quantizable.state_dict())
                model.fuse_model()
                model.qconfig = get_default_qconfig(engine)
                torch.ao.quantization.prepare(model, inplace=True)
                with torch.no_grad():
                    for batch in batches:
                        model(torch.from_numpy(batch))
                torch.ao.quantization.convert(model, inplace=True)
                with torch.no_grad():
                    out = model(tx).numpy()
                rows.append((f"PyTorch int8 ({engine})",
                             time_torch(model, tx, args.repeats),
                             (sqnr(torch_reference, out),
                              (torch_reference.argmax(1) ==
                               out.argmax(1)).mean())))

        print(f"\n{name} (Quanta calibration + quantization: "
              f"{calibration:.1f} s)")
        int8_median = quanta_int8[0]
        for label, (median, best), agreement in rows:
            line = f"  {label:24s} {median:9.3f} ms [{best:8.3f}]"
            if label != "Quanta int8":
                line += f"  Quanta int8 is {median / int8_median:5.2f}x faster"
            if agreement:
                line += (f"  SQNR vs fp32 {agreement[0]:5.1f} dB, "
                         f"same top-1 {agreement[1] * 100:5.1f}%")
            print(line)


if __name__ == "__main__":
    main()

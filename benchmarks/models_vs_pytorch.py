#!/usr/bin/env python3
"""Whole models: Quanta against PyTorch 1.13, side by side in one run.

For torchvision 0.14's ResNet-18 and MobileNetV2 (deterministic random
weights and batch-norm statistics from a fixed seed: no pretrained weights
can be downloaded) and the bundled digits CNN:

- calibration: Quanta (the model exported to ONNX with a symbolic batch,
  imported, quanta-prepare with --qconfig (onednn), quanta-calibrate on the
  fast float kernels) against PyTorch's eager calibration (fuse, prepare
  with the onednn qconfig, forward), on the same images in the same
  batches, at the same thread count; both observe activations with
  HistogramObserver, and both after each convolution's activation:
  torchvision's quantizable MobileNetV2 replaces ReLU6 with a ReLU fused
  into the convolution, Quanta keeps ReLU6 and fuses it (quanta-prepare's
  fuse-clamps, on unless --no-fuse-clamps); Quanta calibrates twice, the
  second time from the compile cache (each run has a fresh cache of its
  own, so first compilations are measured);
- latency, for each --batches and --threads: PyTorch fp32, PyTorch's own
  int8 model (torchvision.models.quantization's architecture with the same
  weights, converted after that calibration) for each --engines, Quanta's
  int8 model (the statistics applied to the model imported at the timed
  batch, quanta-quantize, quanta-propagate-layout, quanta-lower-x86 for
  this CPU, --num-threads) and Quanta's own float lowering;
- with ONNX Runtime (npm's onnxruntime-node, run by benchmarks/
  ort_session.js), for the torchvision models: its MinMax calibration of
  the float model on the same images, the QDQ model its quantize_static
  writes from those ranges (benchmarks/ort_qdq.py: u8 activations, s8
  weights per channel), and at each batch and thread count ONNX Runtime
  fp32 (the float model), ONNX Runtime int8 (that QDQ model) and Quanta
  running the same QDQ model (imported, qparams frozen, quanta-quantize,
  quanta-propagate-layout, quanta-lower-x86); with more than one thread
  ONNX Runtime is timed with its intra-op spinning off and on, both
  printed, the ratio taken on the faster; and the float compute ops left
  in Quanta's import of the QDQ model (quanta-quantize's report-float-ops);

and prints the median and best latency of each (quant-run --benchmark for
Quanta, the same repetition count for PyTorch and ONNX Runtime), Quanta
int8's speed ratio against each (and Quanta on ONNX Runtime's QDQ model
against ONNX Runtime int8), the agreement of each int8 model with its float
logits (SQNR, same top-1), and Quanta's arena against its liveness lower
bound.

    apt-get install python3-torch python3-torchvision python3-onnx
    npm install --ignore-scripts onnxruntime-node@1.30.0   # optional
    /usr/bin/python3 benchmarks/models_vs_pytorch.py [--models resnet18,...]
        [--batches 1,32] [--threads 1,2] [--calibration-images 256]
        [--calibration-batch 1] [--repeats 20] [--ort DIR]

ONNX Runtime is looked for in DIR/node_modules/onnxruntime-node, DIR from
--ort, else $QUANTA_ORT_DIR, else build/ort; without it (or without node)
its rows are left out, which the run says in one line.

A program to read, not a test: the machine is shared and noisy, which is
why every number comes from the same run.
"""
import argparse
import atexit
import copy
import json
import os
import re
import shutil
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
# Quanta on a QDQ model: its own qparams, frozen before quantize.
QDQ_PIPELINE = ("func.func(quanta-freeze-qparams),quanta-quantize,"
                "quanta-propagate-layout,quanta-lower-x86")


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


def agreement(reference, value):
    """SQNR of value against reference logits and their same top-1 share."""
    return (sqnr(reference, value),
            (reference.argmax(1) == value.argmax(1)).mean())


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    return result.stdout


def quant_run(build, model, x_path, out_path, pipeline, repeats, threads,
              batch=None):
    command = [os.path.join(build, "bin", "quant-run"), model,
               f"--input={x_path}", f"--output={out_path}",
               f"--benchmark={repeats}", f"--num-threads={threads}"]
    if batch:
        command.append(f"--onnx-batch={batch}")
    if pipeline:
        command.append(f"--pass-pipeline=builtin.module({pipeline})")
    stdout = run(command)
    match = re.search(r"best ([0-9.]+) ms, median ([0-9.]+) ms", stdout)
    arena = re.search(r"arena .*", stdout)
    compiled = re.search(r"(compiled|loaded from the compile cache) in "
                         r"[0-9.]+ s", stdout)
    return (float(match.group(2)), float(match.group(1))), (
        arena.group(0) if arena else "") + (
        f"; JIT: {compiled.group(0)}" if compiled else "")


def float_ops_left(build, model, batch, work):
    """quanta-quantize's report-float-ops on Quanta's import of a QDQ
    model (qparams frozen first): the count of float compute ops left and
    the remarks on what stays float and why."""
    imported = os.path.join(work, os.path.basename(model) + ".mlir")
    run([os.path.join(build, "bin", "quant-translate"), "--import-onnx",
         model, f"--onnx-batch={batch}", "--mlir-print-debuginfo", "-o",
         imported])
    command = [os.path.join(build, "bin", "quant-opt"), imported,
               "--quanta-freeze-qparams", "--quanta-quantize=report-float-ops",
               "--mlir-print-op-on-diagnostic=false", "-o", os.devnull]
    result = subprocess.run(command, capture_output=True, text=True)
    count = re.search(r"quanta-quantize: (\d+) float compute op",
                      result.stderr)
    if result.returncode != 0 or not count:
        sys.exit(f"failed: {' '.join(command)}\n{result.stderr}")
    remarks = [line for line in result.stderr.splitlines()
               if "remark:" in line and "float compute op" not in line]
    return int(count.group(1)), remarks


def find_ort(option):
    """The directory whose node_modules holds onnxruntime-node: --ort if
    given, else $QUANTA_ORT_DIR, else build/ort; None without one (or
    without node)."""
    candidates = ([option] if option else
                  [os.environ.get("QUANTA_ORT_DIR"),
                   os.path.join(ROOT, "build", "ort")])
    for directory in candidates:
        if directory and shutil.which("node") and os.path.isdir(
                os.path.join(directory, "node_modules", "onnxruntime-node")):
            return os.path.abspath(directory)
    return None


def ort_session(ort, mode, model, shape, *options):
    """benchmarks/ort_session.js's JSON for one model and input shape."""
    return json.loads(run(
        ["node", os.path.join(HERE, "ort_session.js"), mode, "--ort", ort,
         "--model", model, "--shape", ",".join(str(d) for d in shape),
         *options]))


def ort_quantize(ort, onnx, images, work, threads):
    """ONNX Runtime's MinMax calibration of the float model on images (one
    run each: a minimum and a maximum do not depend on the batching) and
    the QDQ model its quantize_static writes from those ranges; returns
    the QDQ model's path, the calibration's seconds and what the model
    quantizes (activations, weights, biases)."""
    import ort_qdq  # python3-onnx: needed with ONNX Runtime only
    stem = os.path.splitext(onnx)[0]
    tensors = ort_qdq.calibration_model(onnx, f"{stem}.ort-cal.onnx")
    paths = []
    for index, image in enumerate(images):
        paths.append(f"{stem}.ort-cal{index}.bin")
        image.astype("<f4").tofile(paths[-1])
    start = time.perf_counter()
    ranges = ort_session(ort, "ranges", f"{stem}.ort-cal.onnx",
                         (1,) + images.shape[1:], "--tensors",
                         ",".join(tensors), "--threads", str(threads), *paths)
    seconds = time.perf_counter() - start
    qdq = f"{stem}.ort-qdq.onnx"
    counts = ort_qdq.qdq_model(onnx, ranges, qdq)
    return qdq, seconds, counts


def time_ort(ort, model, x, x_bin, out_path, repeats, threads):
    """ONNX Runtime's (median, best) ms on x (float32 or int64, written raw
    to x_bin by the caller) and its output; with more than one thread timed
    with intra-op spinning off and on, the faster (by median) returned and
    both named in the note."""
    timings = {}
    for spinning in ("off", "on") if threads > 1 else ("off",):
        result = ort_session(
            ort, "time", model, x.shape, "--input", x_bin, "--output",
            out_path, "--threads", str(threads), "--spinning",
            str(int(spinning == "on")), "--repeats", str(repeats),
            "--dtype", "int64" if x.dtype == np.int64 else "float32")
        timings[spinning] = (result["median_ms"], result["best_ms"])
        session_ms = result["session_ms"]
    output = np.fromfile(out_path, "<f4").reshape(result["output_shape"])
    faster = min(timings, key=lambda spinning: timings[spinning][0])
    note = f"  session {session_ms / 1e3:.2f} s" + "".join(
        f"  spinning {spinning} {median:.3f} ms [{best:.3f}]"
        for spinning, (median, best) in timings.items() if len(timings) > 1)
    return timings[faster], output, note


def quanta_against_ort(build, ort, model, x, inputs, work, pipeline, repeats,
                       threads):
    """quant-run (`pipeline`) and ONNX Runtime on the same model and input
    x (saved as inputs = (.npy, raw .bin) paths): each one's (median,
    best) ms, then Quanta's output and ONNX Runtime's, in its shape."""
    out = os.path.join(work, "quanta.npy")
    ours, _ = quant_run(build, model, inputs[0], out, pipeline, repeats,
                        threads)
    theirs, expected, _ = time_ort(ort, model, x, inputs[1],
                                   os.path.join(work, "ort.bin"), repeats,
                                   threads)
    return ours, theirs, np.load(out).reshape(expected.shape), expected


def torch_calibrated(name, quantizable, engine, batches):
    """PyTorch's own PTQ of the quantizable architecture up to convert;
    returns the calibrated model and the calibration's seconds."""
    torch.backends.quantized.engine = engine
    model = getattr(torchvision.models.quantization, name)(
        quantize=False).eval()
    model.load_state_dict(quantizable.state_dict())
    model.fuse_model()
    model.qconfig = get_default_qconfig(engine)
    torch.ao.quantization.prepare(model, inplace=True)
    start = time.perf_counter()
    with torch.no_grad():
        for batch in batches:
            model(torch.from_numpy(batch))
    return model, time.perf_counter() - start


def torch_converted(calibrated, engine):
    """A converted copy: under the thread count of the moment, since
    PyTorch 1.13's onednn int8 convolutions fail (\"could not create a
    primitive descriptor for a reorder primitive\") when the thread count
    changes after convert packed their weights."""
    torch.backends.quantized.engine = engine
    return torch.ao.quantization.convert(copy.deepcopy(calibrated))


def int_list(text):
    return [int(value) for value in text.split(",")]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--models", default="digits_cnn,mobilenet_v2,resnet18")
    parser.add_argument("--batches", type=int_list, default=[1, 32])
    parser.add_argument("--threads", type=int_list, default=[1, 2])
    parser.add_argument("--calibration-images", type=int, default=256)
    parser.add_argument("--calibration-batch", type=int, default=1)
    parser.add_argument("--repeats", type=int, default=20)
    parser.add_argument("--engines", default="onednn,qnnpack")
    parser.add_argument("--qconfig", default="onednn",
                        help="Quanta's qconfig (PyTorch's calibration "
                             "comparison uses onednn's)")
    parser.add_argument("--no-fuse-clamps", dest="fuse_clamps",
                        action="store_false",
                        help="observe ReLU6 as PyTorch FX does (sharing the "
                             "convolution's qparams) instead of after it")
    parser.add_argument("--keep", action="store_true",
                        help="keep the intermediate files (models, "
                             "calibration data, int8 MLIR)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--ort", metavar="DIR",
                        help="where node_modules/onnxruntime-node is "
                             "(default: $QUANTA_ORT_DIR, else build/ort)")
    args = parser.parse_args()
    work = tempfile.mkdtemp(prefix="quanta-models-")
    if args.keep:
        print(f"intermediate files kept in {work}")
    else:
        atexit.register(shutil.rmtree, work, ignore_errors=True)
    # A compile cache of this run's own: what a first compilation costs is
    # measured, whatever earlier runs left in the user's.
    os.environ["QUANTA_CACHE_DIR"] = os.path.join(work, "compile-cache")
    rng = np.random.default_rng(0)
    bin_dir = os.path.join(args.build, "bin")
    prepare = (f"--quanta-prepare=qconfig={args.qconfig} "
               f"fuse-clamps={str(args.fuse_clamps).lower()}")
    print(f"{args.calibration_images} calibration images in batches of "
          f"{args.calibration_batch}; latency: median of {args.repeats} "
          f"calls (best in brackets)")
    ort = find_ort(args.ort)
    if ort is None:
        print(f"ONNX Runtime: no node, or no node_modules/onnxruntime-node "
              f"in {args.ort or '$QUANTA_ORT_DIR or build/ort'}: its rows "
              f"are left out")
    else:
        with open(os.path.join(ort, "node_modules", "onnxruntime-node",
                               "package.json")) as package:
            version = json.load(package)["version"]
        print(f"ONNX Runtime {version} (onnxruntime-node in {ort}): "
              f"{args.repeats} calls after a warm-up, 1 inter-op thread")

    for name in args.models.split(","):
        # The images: calibration, then the largest timed batch.
        timed = max(args.batches)
        if name == "digits_cnn":
            onnx = os.path.join(ROOT, "examples", "digits", "digits_cnn.onnx")
            pool = np.load(os.path.join(ROOT, "examples", "digits",
                                        "test_images.npy"))
            images = pool[np.arange(args.calibration_images + timed)
                          % len(pool)]
            float_model = quantizable = None
        else:
            float_model, quantizable = torchvision_pair(name)
            onnx = os.path.join(work, f"{name}.onnx")
            torch.onnx.export(float_model, torch.zeros(1, 3, 224, 224), onnx,
                              opset_version=13, do_constant_folding=True,
                              input_names=["input"],
                              dynamic_axes={"input": {0: "batch"}})
            images = rng.standard_normal(
                (args.calibration_images + timed, 3, 224, 224)).astype(
                    np.float32)
        step = args.calibration_batch
        batches = [images[i:i + step]
                   for i in range(0, args.calibration_images, step)]
        data = []
        for index, batch in enumerate(batches):
            path = os.path.join(work, f"{name}_cal{index}.npy")
            np.save(path, batch)
            data.append(path)
        print(f"\n{name}")

        # Calibration, side by side at each thread count.
        stats = os.path.join(work, f"{name}.stats.json")
        for threads in args.threads:
            torch.set_num_threads(threads)
            calibrated = os.path.join(work, f"{name}.cal.mlir")
            run([os.path.join(bin_dir, "quant-translate"), "--import-onnx",
                 onnx, f"--onnx-batch={step}", "--mlir-print-debuginfo",
                 "-o", calibrated])
            # Twice: compiled, then from the compile cache (the same model
            # calibrated again, on other data or with other options).
            seconds = []
            for _ in range(2):
                start = time.perf_counter()
                run([os.path.join(bin_dir, "quant-opt"), calibrated,
                     prepare,
                     f"--quanta-calibrate=data={','.join(data)} quiet "
                     f"threads={threads}",
                     f"--quanta-export-statistics=file={stats}", "-o",
                     os.devnull])
                seconds.append(time.perf_counter() - start)
            line = (f"  calibration, {threads} thread(s): Quanta "
                    f"{seconds[0]:6.1f} s (JIT compilation included), "
                    f"{seconds[1]:6.1f} s (compile cache)")
            if quantizable is not None:
                _, torch_seconds = torch_calibrated(name, quantizable,
                                                    "onednn", batches)
                line += (f", PyTorch (onednn qconfig) {torch_seconds:6.1f} s:"
                         f" Quanta {torch_seconds / seconds[0]:4.2f}x / "
                         f"{torch_seconds / seconds[1]:4.2f}x faster")
            print(line)

        ort_model = None
        if ort and float_model is not None:
            threads = max(args.threads)
            ort_model, seconds, counts = ort_quantize(
                ort, onnx, images[:args.calibration_images], work, threads)
            left, remarks = float_ops_left(args.build, ort_model,
                                           args.batches[0], work)
            print(f"  ONNX Runtime MinMax calibration, {threads} thread(s): "
                  f"{seconds:6.1f} s; its QDQ model: {counts[0]} u8 "
                  f"activations, {counts[1]} s8 per-channel weights, "
                  f"{counts[2]} i32 biases; Quanta's import of it: {left} "
                  f"float compute op(s) left")
            for remark in remarks:
                print(f"    {remark}")

        calibrated_models = []
        if quantizable is not None:
            torch.set_num_threads(1)
            for engine in args.engines.split(","):
                model, _ = torch_calibrated(name, quantizable, engine, batches)
                calibrated_models.append((engine, model))

        for batch_size in args.batches:
            x = images[args.calibration_images:][:batch_size]
            x_path = os.path.join(work, f"{name}_x{batch_size}.npy")
            np.save(x_path, x)
            imported = os.path.join(work, f"{name}.{batch_size}.mlir")
            run([os.path.join(bin_dir, "quant-translate"), "--import-onnx",
                 onnx, f"--onnx-batch={batch_size}", "--mlir-print-debuginfo",
                 "-o", imported])
            int8 = os.path.join(work, f"{name}.{batch_size}.int8.mlir")
            run([os.path.join(bin_dir, "quant-opt"), imported,
                 prepare,
                 f"--quanta-import-statistics=files={stats}",
                 "--quanta-freeze-qparams", "--quanta-quantize",
                 "--quanta-propagate-layout", "-o", int8])
            for threads in args.threads:
                torch.set_num_threads(threads)
                quanta_float, _ = quant_run(
                    args.build, imported, x_path, os.path.join(work, "f.npy"),
                    "quanta-lower-x86", args.repeats, threads)
                quanta_int8, arena = quant_run(
                    args.build, int8, x_path, os.path.join(work, "q.npy"),
                    "quanta-lower-x86", args.repeats, threads)
                reference = np.load(os.path.join(work, "f.npy"))
                quantized = np.load(os.path.join(work, "q.npy"))
                rows = [("Quanta fp32", quanta_float, None, ""),
                        ("Quanta int8", quanta_int8,
                         agreement(reference, quantized), "")]
                if float_model is not None:
                    tx = torch.from_numpy(x)
                    with torch.no_grad():
                        torch_reference = float_model(tx).numpy()
                    rows.append(("PyTorch fp32",
                                 time_torch(float_model, tx, args.repeats),
                                 None, ""))
                    for engine, calibrated in calibrated_models:
                        model = torch_converted(calibrated, engine)
                        with torch.no_grad():
                            out = model(tx).numpy()
                        rows.append((f"PyTorch int8 ({engine})",
                                     time_torch(model, tx, args.repeats),
                                     agreement(torch_reference, out), ""))
                if ort_model is not None:
                    x_bin = os.path.join(work, f"{name}_x{batch_size}.bin")
                    x.astype("<f4").tofile(x_bin)
                    ort_float, ort_reference, float_note = time_ort(
                        ort, onnx, x, x_bin, os.path.join(work, "ort_f.bin"),
                        args.repeats, threads)
                    ort_int8, ort_out, int8_note = time_ort(
                        ort, ort_model, x, x_bin,
                        os.path.join(work, "ort_q.bin"), args.repeats,
                        threads)
                    quanta_qdq, _ = quant_run(
                        args.build, ort_model, x_path,
                        os.path.join(work, "qdq.npy"), QDQ_PIPELINE,
                        args.repeats, threads, batch_size)
                    qdq_out = np.load(os.path.join(work, "qdq.npy"))
                    rows += [("ORT fp32", ort_float, None, float_note),
                             ("ORT int8 (its QDQ)", ort_int8,
                              agreement(ort_reference, ort_out), int8_note),
                             ("Quanta int8 (ORT's QDQ)", quanta_qdq,
                              agreement(reference, qdq_out),
                              f"  {ort_int8[0] / quanta_qdq[0]:5.2f}x faster "
                              f"than ORT int8")]
                print(f"  batch {batch_size}, {threads} thread(s); Quanta "
                      f"int8 {arena}")
                int8_median = quanta_int8[0]
                for label, (median, best), agrees, note in rows:
                    line = f"    {label:24s} {median:9.3f} ms [{best:8.3f}]"
                    if label != "Quanta int8":
                        line += (f"  Quanta int8 is "
                                 f"{median / int8_median:5.2f}x faster")
                    if agrees:
                        line += (f"  SQNR vs fp32 {agrees[0]:5.1f} dB, "
                                 f"same top-1 {agrees[1] * 100:5.1f}%")
                    print(line + note)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""A BERT-shaped encoder (or ViT-B/16): Quanta against PyTorch 1.13, side
by side in one run.

The model: token embedding of int64 ids + learned positions, --layers
post-norm nn.TransformerEncoderLayer (--dim, --heads, feed-forward 4 *
dim, GELU), mean over the sequence, a Linear head; random weights from a
fixed seed (BERT-base by default: 12 layers, d = 768, 12 heads, seq 128).
It is exported to ONNX (opset 17) with symbolic 'batch' and 'seq', and:

- Quanta float: quant-run on the .onnx (--onnx-dim), with Quanta's float
  kernels (quanta-lower-x86);
- Quanta int8: the quanta driver (qconfig x86: every Linear an int8 GEMM
  with per-channel weights, calibrated on --calibration-batches random id
  batches; what stays float is listed), lowered for this CPU; and the same
  with softmax, then layer norm kept float (--keep-float), to measure
  their integer forms both ways;
- PyTorch fp32 (its fused encoder fast path where it takes it) and
  PyTorch's quantize_dynamic int8 of the Linear layers (a zero float mask
  disables the fast path, which the dynamic model does not support);
- ONNX Runtime fp32 on the same .onnx where `make ort` installed it (or
  --ort DIR; the column is left out without it): every graph
  optimization (its attention, GELU and LayerNorm fusions), one inter-op
  thread, spinning on and off with two threads, the faster kept;
- ONNX Runtime's dynamic int8 model (its quantize_dynamic: every MatMul
  with constant weights as DynamicQuantizeLinear + MatMulInteger, written
  by benchmarks/ort_dynamic.py) in ONNX Runtime and in Quanta (quant-run
  on that .onnx: the importer takes each such chain as one dynamic int8
  GEMM with ONNX Runtime's numerics); the model is written without ONNX
  Runtime too, the ONNX Runtime column needs it.

With --model vit the model is torchvision's vit_b_16 on one 224 x 224
image (random weights; its class token and head drawn at random, as
trained ones are, not at torchvision's zeros) and --opset chooses the
export's opset (13 writes LayerNorm out node by node).

It prints this core's int8 and fp32 instruction-mix peaks
(quanta-isa-peaks: how far ahead of float int8 GEMMs can be here), then,
for each --threads, the median latency of each (Quanta's the best median
of --rounds interleaved rounds), Quanta int8's
ratio against each, the int8 models' SQNR against their float logits over
--sqnr-sequences held-out sequences, and the compile times (import + JIT
of a single-call quant-run; the driver's calibration JIT).

    /usr/bin/python3 benchmarks/transformers_vs_pytorch.py [--layers 12]
        [--dim 768] [--heads 12] [--seq 128] [--threads 1,2] [--repeats 10]
        [--ort DIR]

A program to read, not a test: the machine is shared and noisy, which is
why every number comes from the same run.
"""
import argparse
import atexit
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time

import numpy as np
import onnx
import torch
import torchvision
from torch import nn

# Run as a script, this folder is on sys.path.
from models_vs_pytorch import find_ort, sqnr, time_ort, time_torch
from ort_dynamic import dynamic_model

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


class Workload:
    """The model and its inputs: --model bert (the Encoder above, int64
    ids) or vit (torchvision's vit_b_16 on 224 x 224 images)."""

    def __init__(self, options):
        self.options = options
        self.vit = options.model == "vit"
        if self.vit:
            self.model = torchvision.models.vit_b_16().eval()
            # torchvision starts the class token and the head at zero: a
            # random ViT's class token then stays ~100x below its patches
            # in the residual stream, under any per-tensor 8-bit step, as
            # no trained ViT's does. Drawn as the positions are instead.
            nn.init.normal_(self.model.class_token, std=1.0)
            nn.init.normal_(self.model.heads.head.weight, std=0.02)
            self.input_name, self.dims = "image", "--onnx-dim=batch=1"
            self.axes = {"image": {0: "batch"}}
        else:
            self.model = Encoder(options.layers, options.dim, options.heads,
                                 options.seq).eval()
            self.input_name = "ids"
            self.dims = f"--onnx-dim=batch=1,seq={options.seq}"
            self.axes = {"ids": {0: "batch", 1: "seq"}}

    def inputs(self, rng, count):
        if self.vit:
            return rng.standard_normal((count, 3, 224, 224)).astype(
                np.float32)
        return rng.integers(0, VOCAB, (count, self.options.seq))

    def dims_for(self, batch):
        return self.dims.replace("batch=1", f"batch={batch}")

    def dynamic_call(self, dynamic):
        """The dynamic model's forward: the encoder's fast path must be off
        (a zero float mask), which quantize_dynamic does not support."""
        if self.vit:
            return dynamic
        zero_mask = torch.zeros(self.options.seq, self.options.seq)
        return lambda inputs: dynamic(inputs, zero_mask)


# The int8 variants measured: everything integer, then softmax and layer
# norm each kept float (quanta-quantize's keep-float; "none" keeps nothing).
KEPT_FLOAT = ("none", "softmax", "layer-norm")


def keep_float_option(kept, prefix):
    """`prefix`keep-float=`kept`, or "" for "none"."""
    return "" if kept == "none" else f"{prefix}keep-float={kept}"


def print_isa_peaks(build):
    """This core's int8 and fp32 instruction-mix peaks (quanta-isa-peaks):
    on GEMM-bound models int8 cannot be further ahead of float than their
    ratio."""
    tool = os.path.join(build, "bin", "quanta-isa-peaks")
    if not os.path.exists(tool):
        print("(no quanta-isa-peaks in the build: instruction peaks not "
              "measured)")
        return
    stdout, _ = run([tool])
    peaks = dict(line.rsplit(" ", 1) for line in stdout.splitlines())
    listed = ", ".join(f"{name} {float(value):.0f}"
                       for name, value in peaks.items()
                       if name != "int8/fp32" and float(value) > 0)
    print(f"this core's peaks (GOPS): {listed}; int8 GEMMs at most "
          f"{float(peaks['int8/fp32']):.2f}x fp32 ones")


def held_out_sqnr(options, workload, onnx_path, work, calibration_files,
                  count):
    """Quanta int8 vs float logits over `count` held-out sequences, with
    integer softmax and layer norm and with each kept float (one SQNR per
    KEPT_FLOAT entry): the
    driver's calibration (the same files, qconfig x86) done at batch 1, its
    statistics applied by name to the model imported at batch `count` (as
    `make demo` applies the digits' statistics to the held-out set). One
    sequence gives only the head's few logits: too few for an SQNR."""
    tool = lambda name: os.path.join(options.build, "bin", name)
    translate = lambda batch, path: run(
        [tool("quant-translate"), "--import-onnx", onnx_path,
         workload.dims_for(batch), "--mlir-print-debuginfo", "-o", path])
    stats = os.path.join(work, "statistics.json")
    one, many = (os.path.join(work, f"eval{n}.mlir") for n in (1, count))
    translate(1, one)
    run([tool("quant-opt"), one, "--quanta-prepare=qconfig=x86",
         "--quanta-calibrate=data=" + ",".join(calibration_files) + " quiet",
         f"--quanta-export-statistics=file={stats}", "-o", os.devnull])
    translate(count, many)
    models = [many]
    for kept in KEPT_FLOAT:
        models.append(os.path.join(work, f"eval{count}.int8.{kept}.mlir"))
        run([tool("quant-opt"), many, "--quanta-prepare=qconfig=x86",
             f"--quanta-import-statistics=files={stats}",
             "--quanta-freeze-qparams",
             "--quanta-quantize" + keep_float_option(kept, "="), "-o",
             models[-1]])
    ids = workload.inputs(np.random.default_rng(1), count)
    ids_path = os.path.join(work, "held_out.npy")
    np.save(ids_path, ids)
    outputs = []
    for model in models:
        out = model + ".npy"
        run([tool("quant-run"), model, f"--input={ids_path}",
             f"--output={out}",
             "--pass-pipeline=builtin.module(quanta-lower-x86)"])
        outputs.append(np.load(out))
    return [sqnr(outputs[0], out) for out in outputs[1:]], ids


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", action="store_true",
                        help="keep the intermediate files (models, "
                             "calibration data, int8 MLIR)")
    parser.add_argument("--build", default=os.path.join(ROOT, "build"))
    parser.add_argument("--layers", type=int, default=12)
    parser.add_argument("--dim", type=int, default=768)
    parser.add_argument("--heads", type=int, default=12)
    parser.add_argument("--seq", type=int, default=128)
    parser.add_argument("--threads", default="1,2")
    parser.add_argument("--repeats", type=int, default=10)
    parser.add_argument("--rounds", type=int, default=3,
                        help="interleaved rounds of Quanta's timings")
    parser.add_argument("--calibration-batches", type=int, default=32)
    parser.add_argument("--sqnr-sequences", type=int, default=16)
    parser.add_argument("--model", choices=["bert", "vit"], default="bert")
    parser.add_argument("--opset", type=int, default=17)
    parser.add_argument("--ort", metavar="DIR",
                        help="where node_modules/onnxruntime-node is "
                             "(default $QUANTA_ORT_DIR, else build/ort)")
    options = parser.parse_args()

    torch.manual_seed(0)
    workload = Workload(options)
    model = workload.model
    rng = np.random.default_rng(0)
    work = tempfile.mkdtemp(prefix="quanta-transformers-")
    if options.keep:
        print(f"intermediate files kept in {work}")
    else:
        atexit.register(shutil.rmtree, work, ignore_errors=True)
    onnx_path = os.path.join(work, "encoder.onnx")
    ids = workload.inputs(rng, 1)
    torch.onnx.export(model, (torch.from_numpy(ids),), onnx_path,
                      opset_version=options.opset,
                      input_names=[workload.input_name],
                      output_names=["logits"], dynamic_axes=workload.axes)
    ort_dynamic_path = os.path.join(work, "encoder.ort_dynamic.onnx")
    onnx.save(dynamic_model(onnx.load(onnx_path)), ort_dynamic_path)
    ids_path = os.path.join(work, "ids.npy")
    np.save(ids_path, ids)
    data = os.path.join(work, "calibration")
    os.makedirs(data)
    for index in range(options.calibration_batches + 1):
        np.save(os.path.join(data, f"batch{index:03d}.npy"),
                workload.inputs(rng, 1))
    dims = workload.dims

    shape = ("torchvision vit_b_16 (12 layers, d 768, 12 heads, 197 "
             "tokens)" if workload.vit else
             f"encoder: {options.layers} layers, d {options.dim}, "
             f"{options.heads} heads, seq {options.seq}")
    print(f"{shape}, batch 1, opset {options.opset}; "
          f"{sum(p.numel() for p in model.parameters()) / 1e6:.1f} M "
          f"parameters")
    print_isa_peaks(options.build)
    int8_models = {}
    for kept in KEPT_FLOAT:
        int8_models[kept] = os.path.join(work, f"encoder.int8.{kept}.mlir")
        stdout, seconds = run(
            [os.path.join(options.build, "bin", "quanta"), onnx_path, dims,
             f"--data={data}", "--emit=mlir", "-o", int8_models[kept]] +
            [keep_float_option(kept, "--")] * (kept != "none"))
        left = re.search(r"int8, ([0-9]+) float compute op", stdout)
        left = left.group(1) if left else "?"
        if kept == "none":
            calibration = re.search(r"of which ([0-9.]+) s JIT", stdout)
            print(f"quanta driver: {seconds:.1f} s in all (calibration JIT "
                  f"{calibration.group(1) if calibration else '?'} s); "
                  f"{left} float compute ops left")
        else:
            print(f"  with --keep-float={kept}: {left} float compute ops left")
    int8_mlir = int8_models["none"]
    lower = ["--pass-pipeline=builtin.module(quanta-lower-x86)"]
    dynamic_pipeline = ["--pass-pipeline=builtin.module("
                        "quanta-compile-dynamic{engine=onednn})"]
    float_out = os.path.join(work, "float.npy")
    int8_out = os.path.join(work, "int8.npy")
    dynamic_out = os.path.join(work, "dynamic.npy")
    ort_dynamic_out = os.path.join(work, "ort_dynamic.npy")
    _, float_compile = run([os.path.join(options.build, "bin", "quant-run"),
                            onnx_path, dims, f"--input={ids_path}",
                            f"--output={float_out}"] + lower)
    _, int8_compile = run([os.path.join(options.build, "bin", "quant-run"),
                           int8_mlir, f"--input={ids_path}",
                           f"--output={int8_out}"] + lower)
    _, dynamic_compile = run([os.path.join(options.build, "bin", "quant-run"),
                              onnx_path, dims, f"--input={ids_path}",
                              f"--output={dynamic_out}"] + dynamic_pipeline)
    _, ort_dynamic_compile = run(
        [os.path.join(options.build, "bin", "quant-run"), ort_dynamic_path,
         dims, f"--input={ids_path}", f"--output={ort_dynamic_out}"] + lower)
    print(f"compile (import + JIT + one call): Quanta float "
          f"{float_compile:.1f} s, int8 {int8_compile:.1f} s, dynamic "
          f"{dynamic_compile:.1f} s, ONNX Runtime's dynamic model "
          f"{ort_dynamic_compile:.1f} s")

    reference = model(torch.from_numpy(ids)).detach().numpy()
    dynamic = workload.dynamic_call(
        torch.ao.quantization.quantize_dynamic(model, {nn.Linear}))
    quanta_float = np.load(float_out)
    print(f"Quanta float vs PyTorch: max |difference| "
          f"{np.abs(quanta_float - reference).max():.2e}")
    # Each Linear Quanta quantizes is PyTorch's dynamic one bit for bit, but
    # Quanta quantizes every product with constant weights, attention's
    # projections included, where quantize_dynamic leaves
    # nn.MultiheadAttention's in_proj (no nn.Linear) and out_proj
    # (NonDynamicallyQuantizableLinear) float: the outputs differ by that.
    with torch.no_grad():
        torch_dynamic = dynamic(torch.from_numpy(ids)).numpy()
    print(f"Quanta dynamic (onednn) vs PyTorch dynamic: max |difference| "
          f"{np.abs(np.load(dynamic_out) - torch_dynamic).max():.2e}, "
          f"SQNR to float {sqnr(reference, np.load(dynamic_out)):.1f} dB "
          f"(PyTorch's {sqnr(reference, torch_dynamic):.1f} dB)")
    calibration_files = sorted(
        os.path.join(data, name) for name in os.listdir(data))[:-1]
    quanta_sqnr, held_out = held_out_sqnr(options, workload, onnx_path, work,
                                          calibration_files,
                                          options.sqnr_sequences)
    with torch.no_grad():
        held_out = torch.from_numpy(held_out)
        dynamic_sqnr = sqnr(model(held_out).numpy(),
                            dynamic(held_out).numpy())
    print(f"SQNR vs float logits over {options.sqnr_sequences} held-out "
          f"inputs: Quanta int8 (static, per-tensor activations) "
          f"{quanta_sqnr[0]:.2f} dB, with float softmax "
          f"{quanta_sqnr[1]:.2f} dB, with float layer norm "
          f"{quanta_sqnr[2]:.2f} dB; PyTorch dynamic {dynamic_sqnr:.1f} dB")

    ort = find_ort(options.ort)
    ids_bin = os.path.join(work, "ids.bin")
    ids.tofile(ids_bin)
    if ort is None:
        print("ONNX Runtime: not installed (make ort): its column is left "
              "out")

    print(f"\n{'threads':>7} {'Quanta int8':>12} {'fl. softmax':>12} "
          f"{'fl. LN':>8} {'Quanta fp32':>12} {'torch fp32':>11} "
          f"{'torch dyn':>10} {'Quanta dyn':>11}   int8 vs: int8 with float "
          f"softmax, with float LN, Quanta fp32, torch fp32, torch dynamic; "
          f"Quanta dynamic vs torch dynamic (median ms)")
    for threads in [int(t) for t in options.threads.split(",")]:
        torch.set_num_threads(threads)
        # Quanta's four models in --rounds interleaved rounds, the best
        # median of each kept: this machine drifts by more than the
        # variants differ within the minutes one block of repeats takes.
        runs = [(model, int8_out, lower) for model in
                (int8_models[kept] for kept in KEPT_FLOAT)]
        runs.append((onnx_path, float_out, [dims] + lower))
        runs.append((onnx_path, dynamic_out, [dims] + dynamic_pipeline))
        runs.append((ort_dynamic_path, ort_dynamic_out, [dims] + lower))
        medians = [min(rounds) for rounds in zip(*(
            [quant_run(options.build, model, ids_path, out, extra,
                       options.repeats, threads)[0]
             for model, out, extra in runs]
            for _ in range(options.rounds)))]
        q8, q8s, q8n, qf, qd, qod = medians
        tf, _ = time_torch(model, torch.from_numpy(ids), options.repeats)
        td, _ = time_torch(dynamic, torch.from_numpy(ids), options.repeats)
        print(f"{threads:>7} {q8:>12.2f} {q8s:>12.2f} {q8n:>8.2f} "
              f"{qf:>12.2f} {tf:>11.2f} {td:>10.2f} {qd:>11.2f}   "
              f"{q8s / q8:.2f}x {q8n / q8:.2f}x {qf / q8:.2f}x {tf / q8:.2f}x "
              f"{td / q8:.2f}x; {td / qd:.2f}x")
        if ort is not None:
            (of, _), ort_out, note = time_ort(
                ort, onnx_path, ids, ids_bin, os.path.join(work, "ort.bin"),
                options.repeats, threads)
            print(f"{'':>7} ONNX Runtime fp32 {of:.2f} ms: Quanta fp32 "
                  f"{of / qf:.2f}x, Quanta int8 {of / q8:.2f}x faster; "
                  f"max |ORT - PyTorch| "
                  f"{np.abs(ort_out.reshape(reference.shape) - reference).max():.2e}"
                  f"{note}")
            (od, _), ort_out, note = time_ort(
                ort, ort_dynamic_path, ids, ids_bin,
                os.path.join(work, "ort_dynamic.bin"), options.repeats,
                threads)
            quanta_out = np.load(ort_dynamic_out)
            print(f"{'':>7} ONNX Runtime dynamic int8 (its quantize_dynamic "
                  f"model) {od:.2f} ms, Quanta on that model {qod:.2f} ms: "
                  f"{od / qod:.2f}x; max |Quanta - ORT| "
                  f"{np.abs(ort_out.reshape(quanta_out.shape) - quanta_out).max():.2e}, "
                  f"SQNR to float {sqnr(reference, quanta_out):.1f} dB"
                  f"{note}")
        else:
            print(f"{'':>7} Quanta on ONNX Runtime's dynamic model "
                  f"{qod:.2f} ms")


if __name__ == "__main__":
    main()

"""Per-layer quantization reports: an HTML page with PNG plots.

    >>> observed = quanta.Module.load("model.mlir")
    >>> float_model = observed.clone()
    >>> observed.prepare(); observed.calibrate(batches)
    >>> quanta.report.write(observed, batches[:4], "report/",
    ...                     float_model=float_model)

or from the shell (prepare, calibrate and report in one go):

    python3 -m quanta.report model.mlir --data a.npy,b.npy -o report/

For every observed activation the report shows the float tensors' histogram
(the batches given, as the float model computes them) with the range its
qparams can represent, the fraction of values clipped, and the SQNR and
largest error of quantizing that tensor with its qparams: the layer whose
error explodes is the red bar of the summary plot. Weights get their range
per channel. Given the float model, the int8 model's outputs are compared
with it too (end to end; the per-layer numbers are each tensor's own
quantization error, not the error accumulated up to it).
"""

import argparse
import html
import json
import math
import os
import re
import sys
import tempfile

import numpy as np

from ._quanta_numerics import compare_outputs, fake_quantize_per_tensor_affine
from .compiler import Module

__all__ = ["write", "sqnr"]

TOSA_TO_LINALG = ("builtin.module(tosa-to-linalg-pipeline,"
                  "func.func(tosa-to-tensor,tosa-to-arith),canonicalize)")


def _compare(reference, approximation):
    """numerics::OutputComparison (what the quanta driver's check prints) of
    two arrays, as float32."""
    return compare_outputs(
        np.ascontiguousarray(reference, np.float32).ravel(),
        np.ascontiguousarray(approximation, np.float32).ravel())


def sqnr(reference, approximation):
    """Signal-to-quantization-noise ratio in dB (inf when equal)."""
    return _compare(reference, approximation)["sqnr_db"]


def _file_stem(name):
    # As quanta-calibrate names recordings.
    return re.sub(r"[^A-Za-z0-9._-]", "_", name)


def _qparams(module):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "qparams.json")
        module.run_pipeline(
            "builtin.module(quanta-report-qparams{format=json output=%s})"
            % path)
        with open(path) as f:
            return json.load(f)["observers"]


def _recorded(directory, name):
    """The tensors recorded under `name`, in batch order."""
    stem = _file_stem(name)
    pattern = re.compile(re.escape(stem) + r"\.(\d+)\.npy$")
    files = sorted((int(m.group(1)), f) for f in os.listdir(directory)
                   for m in [pattern.match(f)] if m)
    return [np.load(os.path.join(directory, f)) for _, f in files]


def _layer_metrics(entry, tensors):
    """What one activation observer's qparams do to the tensors it saw."""
    values = np.concatenate([t.ravel() for t in tensors]).astype(np.float32)
    scale = np.float32(entry["scale"][0])
    zero_point = int(entry["zero_point"][0])
    quant_min, quant_max = entry["quant_min"], entry["quant_max"]
    quantized = np.asarray(fake_quantize_per_tensor_affine(
        values, float(scale), zero_point, quant_min, quant_max), np.float32)
    low = float((quant_min - zero_point) * scale)
    high = float((quant_max - zero_point) * scale)
    # Clipped: farther outside the range than rounding would move a value.
    half_step = 0.5 * float(scale)
    clipped = float(np.mean((values < low - half_step) |
                            (values > high + half_step)))
    comparison = _compare(values, quantized)
    return {
        "name": entry["name"], "observer": entry["observer"],
        "scale": float(scale), "zero_point": zero_point,
        "quant_min": quant_min, "quant_max": quant_max,
        "range": [low, high], "clipped_fraction": clipped,
        "sqnr_db": comparison["sqnr_db"],
        "max_error": comparison["max_error"],
        "elements": int(values.size),
    }, values


def _plot_histogram(path, metrics, values):
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(6, 3.2))
    low, high = metrics["range"]
    span = [min(values.min(), low), max(values.max(), high)]
    axes.hist(values, bins=128, range=span, color="#4878a8", log=True)
    for edge in (low, high):
        axes.axvline(edge, color="#c03030", linestyle="--", linewidth=1)
    axes.set_title("%s: SQNR %.1f dB, %.3f%% clipped"
                   % (metrics["name"], metrics["sqnr_db"],
                      100 * metrics["clipped_fraction"]), fontsize=9)
    axes.set_xlabel("value (dashed: the representable range)")
    axes.set_ylabel("count")
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def _plot_summary(path, layers):
    import matplotlib.pyplot as plt

    names = [layer["name"] for layer in layers]
    finite = [layer["sqnr_db"] for layer in layers
              if math.isfinite(layer["sqnr_db"])]
    cap = (max(finite) + 10) if finite else 100.0
    values = [min(layer["sqnr_db"], cap) for layer in layers]
    worst = int(np.argmin(values)) if values else -1
    colors = ["#c03030" if i == worst else "#4878a8"
              for i in range(len(values))]
    figure, axes = plt.subplots(figsize=(max(6, 0.5 * len(names) + 2), 3.5))
    axes.bar(range(len(values)), values, color=colors)
    axes.set_xticks(range(len(values)))
    axes.set_xticklabels(names, rotation=60, ha="right", fontsize=8)
    axes.set_ylabel("SQNR (dB)")
    axes.set_title("Quantization error per observed tensor (red: worst)",
                   fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def _plot_weights(path, entry):
    import matplotlib.pyplot as plt

    low, high = np.asarray(entry["min"]), np.asarray(entry["max"])
    channels = np.arange(low.size)
    figure, axes = plt.subplots(figsize=(6, 2.8))
    axes.vlines(channels, low, high, color="#4878a8", linewidth=3)
    axes.axhline(0, color="#888888", linewidth=0.5)
    axes.set_xlabel("channel" if low.size > 1 else "tensor")
    axes.set_ylabel("range")
    axes.set_title("%s: %s" % (entry["name"], entry["observer"]), fontsize=9)
    figure.tight_layout()
    figure.savefig(path, dpi=80)
    plt.close(figure)


def _end_to_end(observed, float_model, batches):
    """The int8 model's outputs against the float model's."""
    quantized = observed.clone()
    quantized.convert()
    reference = float_model.clone()
    reference.run_pipeline(TOSA_TO_LINALG)
    run_int8, run_float = quantized.compile(), reference.compile()
    want, got = [], []
    for batch in batches:
        arguments = batch if isinstance(batch, (tuple, list)) else (batch,)
        want.append(np.asarray(run_float(*arguments)))
        got.append(np.asarray(run_int8(*arguments)))
    comparison = _compare(np.concatenate([w.ravel() for w in want]),
                          np.concatenate([g.ravel() for g in got]))
    return {"sqnr_db": comparison["sqnr_db"],
            "max_error": comparison["max_error"]}


def _format_db(value):
    return "exact" if math.isinf(value) else "%.1f dB" % value


def write(observed, batches, directory, float_model=None, title="Quanta"):
    """Writes `directory`/index.html and its PNGs for the calibrated
    observed module `observed` on `batches` (a few; every tensor of every
    batch is kept in memory). Returns the numbers behind the plots:
    {"layers": [...], "weights": [...], "output": {...} or None,
    "html": path}."""
    batches = list(batches)
    os.makedirs(directory, exist_ok=True)
    entries = _qparams(observed)
    with tempfile.TemporaryDirectory() as recordings:
        observed.clone().calibrate(batches, record_dir=recordings,
                                   record_observed=True, progress=False)
        layers, weights = [], []
        for entry in entries:
            tensors = _recorded(recordings, entry["name"]) if entry["name"] \
                else []
            if tensors and "axis" not in entry and "quant_min" in entry:
                metrics, values = _layer_metrics(entry, tensors)
                metrics["plot"] = "hist_%d.png" % len(layers)
                _plot_histogram(os.path.join(directory, metrics["plot"]),
                                metrics, values)
                layers.append(metrics)
            elif not tensors and "min" in entry:
                weight = {key: entry[key] for key in
                          ("name", "observer", "min", "max", "scale")}
                weight["plot"] = "weights_%d.png" % len(weights)
                _plot_weights(os.path.join(directory, weight["plot"]), entry)
                weights.append(weight)
    if layers:
        _plot_summary(os.path.join(directory, "summary.png"), layers)
    output = (_end_to_end(observed, float_model, batches)
              if float_model is not None else None)
    path = os.path.join(directory, "index.html")
    with open(path, "w") as f:
        f.write(_html(title, layers, weights, output))
    return {"layers": layers, "weights": weights, "output": output,
            "html": path}


def _html(title, layers, weights, output):
    e = html.escape
    parts = ["<!DOCTYPE html><html><head><meta charset='utf-8'>",
             "<title>%s quantization report</title>" % e(title),
             "<style>body{font-family:sans-serif;margin:2em}"
             "td,th{padding:2px 8px;text-align:right}"
             "td:first-child,th:first-child{text-align:left}"
             "tr.worst{background:#fbe3e3}</style></head><body>",
             "<h1>%s quantization report</h1>" % e(title)]
    if output is not None:
        parts.append("<p>int8 model vs float model, end to end: SQNR %s, "
                     "max |error| %.4g</p>"
                     % (_format_db(output["sqnr_db"]), output["max_error"]))
    if layers:
        worst = min(layers, key=lambda layer: layer["sqnr_db"])
        parts.append("<p>Worst tensor: <b>%s</b> (%s, %.3f%% clipped)</p>"
                     % (e(worst["name"]), _format_db(worst["sqnr_db"]),
                        100 * worst["clipped_fraction"]))
        parts.append("<img src='summary.png' alt='SQNR per tensor'>")
        parts.append("<h2>Activations</h2><table><tr><th>tensor</th>"
                     "<th>observer</th><th>scale</th><th>zero point</th>"
                     "<th>range</th><th>clipped</th><th>SQNR</th>"
                     "<th>max error</th><th>histogram</th></tr>")
        for layer in layers:
            parts.append(
                "<tr%s><td>%s</td><td>%s</td><td>%.6g</td><td>%d</td>"
                "<td>[%.4g, %.4g]</td><td>%.3f%%</td><td>%s</td><td>%.4g</td>"
                "<td><a href='%s'><img src='%s' height='60'></a></td></tr>"
                % (" class='worst'" if layer is worst else "",
                   e(layer["name"]), e(layer["observer"]), layer["scale"],
                   layer["zero_point"], layer["range"][0], layer["range"][1],
                   100 * layer["clipped_fraction"],
                   _format_db(layer["sqnr_db"]), layer["max_error"],
                   layer["plot"], layer["plot"]))
        parts.append("</table>")
    if weights:
        parts.append("<h2>Weights (range per channel)</h2>")
        for weight in weights:
            parts.append("<img src='%s' alt='%s'>"
                         % (weight["plot"], e(weight["name"])))
    parts.append("</body></html>\n")
    return "\n".join(parts)


def main(argv=None):
    parser = argparse.ArgumentParser(
        prog="quanta-report",
        description="Prepare and calibrate a float model, then write a "
                    "per-layer quantization report (HTML + PNG).")
    parser.add_argument("model", help="a float model (.mlir or .onnx)")
    parser.add_argument("--data", required=True,
                        help="calibration batches: comma-separated "
                             "directories, globs, .npy or .npz files")
    parser.add_argument("--report-batches", type=int, default=2,
                        help="batches the report's plots are made from")
    parser.add_argument("--qconfig", default="x86")
    parser.add_argument("--override", action="append", default=[],
                        help="<op or location name>=<qconfig>, repeatable")
    parser.add_argument("--fuse-clamps", action="store_true")
    parser.add_argument("--onnx-batch", type=int, default=0)
    parser.add_argument("--onnx-dim", default="",
                        help="symbolic dimensions' sizes: name=N,...")
    parser.add_argument("-o", "--output", required=True,
                        help="the report's directory")
    options = parser.parse_args(argv)

    # Read as quanta.quantize and the quanta driver read them.
    from .ptq import _as_batches
    batches = _as_batches([path for path in options.data.split(",") if path])
    dims = dict((name, int(size)) for name, size in
                (entry.split("=") for entry in options.onnx_dim.split(",")
                 if entry))
    float_model = Module.load(options.model, onnx_batch=options.onnx_batch,
                              onnx_dims=dims)
    observed = float_model.clone()
    observed.prepare(qconfig=options.qconfig, overrides=options.override,
                     fuse_clamps=options.fuse_clamps)
    observed.calibrate(batches, progress=False)
    # Arrays of several of the model's batches are split as calibration
    # split them.
    plotted = float_model.entry_batches(batches)[:options.report_batches]
    result = write(observed, plotted, options.output,
                   float_model=float_model,
                   title=os.path.basename(options.model))
    print("quanta-report: %s" % result["html"])
    return 0


if __name__ == "__main__":
    sys.exit(main())

"""Post-training quantization in one call, as the quanta driver does it.

    >>> import quanta
    >>> model = quanta.quantize("model.onnx", "calibration/")  # or arrays
    >>> print(model.check)             # int8 vs float on a held-out batch
    >>> logits = model(images)         # the int8 model, JIT for this CPU
    >>> model.save_object("model.o", header="model.h")
    >>> model.report("report/")        # per-layer HTML report

Over the C++ API (quanta/API/Quantize.h): PyTorch's prepare() with the
target's default qconfig, calibration in the JIT, convert() to int8.
"""

import numpy as np

from ._quanta_compiler import expand_calibration_data
from .compiler import Module, _progress_bar

__all__ = ["quantize", "QuantizedModel"]


def _load_file(path):
    """A batch from a file: an .npz's arrays in order, or one .npy array."""
    if path.endswith(".npz"):
        with np.load(path) as archive:
            return tuple(archive[key] for key in archive.files)
    return np.load(path)


def _as_batches(data):
    """A list of batches (arrays or tuples of arrays) from paths, or the
    batches as given; None stays None."""
    if data is None:
        return None
    if isinstance(data, str):
        data = [data]
    if isinstance(data, (list, tuple)) and data and all(
            isinstance(item, str) for item in data):
        return [_load_file(path) for path in expand_calibration_data(data)]
    return data


class QuantizedModel:
    """What quanta.quantize returns.

    `module` is the int8 IR for any target (print it, or run your own
    pipeline on a clone); `calibrated` the observed model with its
    statistics; `pre_quantized` whether the model carried its own qparams
    (QDQ: no calibration); `check` one dict per result (sqnr_db, max_error,
    top1_agreement, rows) or None without held-out data; `float_ops` the
    float compute left per function and `float_reasons` why.
    """

    def __init__(self, float_model, result, check, report_batches):
        self.float_model = float_model
        self.calibrated = result["calibrated"]
        self.module = result["converted"]
        self.qconfig = result["qconfig"]
        self.pre_quantized = result["pre_quantized"]
        self.float_ops = result["float_ops"]
        self.float_reasons = result["float_reasons"]
        self.check = check
        self._report_batches = report_batches
        self._function = None

    def __call__(self, *inputs):
        """The int8 model on numpy arrays, JIT-compiled for this machine at
        the first call."""
        if self._function is None:
            lowered = self.module.clone()
            lowered.lower()
            self._function = lowered.compile()
        return self._function(*inputs)

    def save_object(self, path, header=None, triple="", cpu="", features=""):
        """An object file (and C header) for a target, default this
        machine, as the quanta driver writes them."""
        self.module.save_object(path, header or "", triple, cpu, features)

    def report(self, directory, batches=None):
        """quanta.report's per-layer HTML report; `batches` default to the
        first two calibration batches."""
        from . import report
        batches = self._report_batches if batches is None else \
            self.float_model.entry_batches(_as_batches(batches))[:2]
        return report.write(self.calibrated, batches, directory,
                            float_model=self.float_model)


def quantize(model, data, qconfig=None, target=None, onnx_batch=1,
             check_data=None, progress=True, onnx_dims=None,
             keep_float=()):
    """Prepares, calibrates and converts a float model to int8.

    `model`: a path (.onnx, .mlir) or a quanta.Module (not modified).
    `data`: calibration batches: a directory, a glob or .npy/.npz paths
    (one batch per file, or arrays of k times the model's batch), or an
    iterable of arrays / tuples of arrays. The last of several batches is
    held out for the check unless `check_data` (the same forms) is given.
    `qconfig`: a preset name, default PyTorch's for the target (x86 on
    x86-64, qnnpack on AArch64). `target`: None for this machine, or a
    dict of triple, cpu, features. `onnx_batch` sizes an ONNX model's
    symbolic first dimension, `onnx_dims` ({'seq': 128}) its symbolic
    dimensions by name; its function is named after the file, as the
    quanta driver names it. `progress` as for Module.calibrate.
    `keep_float` (["softmax", "layer-norm"]) keeps those ops float instead
    of their integer forms (quanta-quantize's keep-float).
    """
    if isinstance(model, Module):
        float_model = model.clone()
    else:
        float_model = Module.load(model, onnx_batch=onnx_batch,
                                  onnx_dims=onnx_dims or {})
        if model.endswith(".onnx"):
            float_model.name_after_file(model)
    batches = _as_batches(data)
    check = _as_batches(check_data)
    if check is None and isinstance(batches, (list, tuple)) \
            and len(batches) > 1:
        batches, check = list(batches[:-1]), [batches[-1]]
    if isinstance(batches, (list, tuple)):
        report_batches = float_model.entry_batches(batches[:1])[:2]
    else:
        report_batches = []
    if progress is True:
        progress = _progress_bar()
    target = target or {}
    result = float_model._quantize(
        batches, qconfig or "", target.get("triple", ""),
        target.get("cpu", ""), target.get("features", ""),
        len(batches) if hasattr(batches, "__len__") else None,
        progress or None, list(keep_float))
    comparison = None
    if check is not None:
        comparison = float_model.compare_with_float(result["converted"], check)
    return QuantizedModel(float_model, result, comparison, report_batches)

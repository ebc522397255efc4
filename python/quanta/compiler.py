"""Quanta's compiler from Python: the C++ API of quanta/API/Quanta.h.

    >>> import quanta
    >>> model = quanta.Module.load("model.onnx", onnx_batch=8)
    >>> reference = model.clone()
    >>> model.prepare(qconfig="x86")                  # PyTorch's prepare()
    >>> model.calibrate(batch for batch in loader)   # streamed, JIT
    >>> model.convert()                  # quanta-compile: int8, this CPU
    >>> run = model.compile()
    >>> logits = run(images)                         # numpy in, numpy out

    >>> model = quanta.Module.load("bert.onnx")     # or quantize_dynamic:
    >>> run = model.quantize_dynamic(engine="onednn").compile()

Every error (malformed IR, a bad pass option, a batch of the wrong shape or
dtype, NaN in an observed tensor) raises quanta.Error, a ValueError whose
message holds MLIR's diagnostics with their locations.
"""

import sys
import time

from ._quanta_compiler import Error, Function, Module  # noqa: F401

__all__ = ["Error", "Function", "Module"]

# Each method's keyword arguments are the options of the pass or pipeline it
# runs (quant-opt's names with "-" as "_"), passed through as quant-opt's
# option text and parsed by the pass itself; these keywords name an option
# differently. tests/test_options.py checks both sides agree.
OPTION_ALIASES = {
    "quanta-prepare": {"overrides": "override"},
    "quanta-calibrate": {},
    "quanta-compile": {"float_kernels": "float"},
    "quanta-compile-dynamic": {"float_kernels": "float"},
}


def _option_text(pipeline, options):
    """`options` (None: the pass's default) as "name=value ..." text."""
    aliases = OPTION_ALIASES[pipeline]
    parts = []
    for key, value in options.items():
        if value is None:
            continue
        name = aliases.get(key, key.replace("_", "-"))
        if isinstance(value, bool):
            text = "true" if value else "false"
        elif isinstance(value, (list, tuple)):
            text = "{%s}" % ",".join(str(item) for item in value)
        else:
            text = str(value)
            if any(c in text for c in " ,{}'\""):
                text = "{%s}" % text
        parts.append("%s=%s" % (name, text))
    return " ".join(parts)


def _run_named(module, pipeline, options):
    text = _option_text(pipeline, options)
    module.run_pipeline("builtin.module(%s%s)"
                        % (pipeline, "{%s}" % text if text else ""))
    return module


def _prepare(self, qconfig=None, overrides=None, fold_constant_weights=None,
             fuse_clamps=None):
    """PyTorch's prepare(): observers where it puts them (quanta-prepare).

    `qconfig`: a preset name (x86, fbgemm, qnnpack, onednn, ...) or a
    #quanta.qconfig attribute; `overrides`: "<op or location name>=<qconfig>"
    each. An option left None is the pass's default. Returns the module.
    """
    return _run_named(self, "quanta-prepare", {
        "qconfig": qconfig, "overrides": overrides,
        "fold_constant_weights": fold_constant_weights,
        "fuse_clamps": fuse_clamps})


def _convert(self, triple="", cpu="", features="", report_float_ops=None,
             float_kernels=None, keep_float=None):
    """Calibrated observers to int8 code for a target (default: this
    machine): freeze, quantize, propagate layouts, lower the kernels
    (quanta-compile). `keep_float` (["softmax", "layer-norm"]) keeps those
    ops float instead of their integer forms. Returns the module; compile()
    then runs it.
    """
    self.set_target(triple, cpu, features)
    return _run_named(self, "quanta-compile", {
        "report_float_ops": report_float_ops, "float_kernels": float_kernels,
        "keep_float": keep_float})


def _quantize_dynamic(self, engine=None, qconfig=None, group_size=None,
                      int4_asymmetric=None, int4_f16_scales=None, triple="",
                      cpu="", features="", float_kernels=None):
    """PyTorch's quantize_dynamic(model, {nn.Linear}) and the kernels for a
    target (default: this machine), in one step (quanta-compile-dynamic):
    every Linear layer (a matmul with constant weights, its bias) gets int8
    weights quantized now and activations quantized at every call from
    their own min and max, its output float; no observers, no calibration.
    `engine`: "onednn" (default) or "qnnpack", whose numerics the kernels
    reproduce bit for bit, or "onnx" (ONNX Runtime's dynamic MatMul
    numerics on the same weights); `qconfig`: "default_dynamic" (weights per
    tensor) or "per_channel_dynamic", or a weight-only scheme whose
    activations stay float: "float16_dynamic" (f16 weights),
    "weight_only_bf16" (bf16 weights), "weight_only_int8" (s8 per column) or
    "weight_only_int4" (4 bits, a scale per `group_size` k values, 32 by
    default); "int4_dynamic" has the same 4-bit weights and quantizes the
    activations to s8 per group at run time (integer dot products; group
    sizes that are multiples of 8). `int4_asymmetric`: the 4-bit groups
    get a scale and a zero point each (PyTorch's quint4x2 MinMaxObserver)
    instead of a symmetric scale; `int4_f16_scales`: their scales rounded
    to f16 and stored so (a tenth fewer bytes at groups of 32). Returns
    the module; compile() then runs it.
    """
    self.set_target(triple, cpu, features)
    return _run_named(self, "quanta-compile-dynamic", {
        "engine": engine, "qconfig": qconfig, "group_size": group_size,
        "int4_asymmetric": int4_asymmetric,
        "int4_f16_scales": int4_f16_scales, "float_kernels": float_kernels})


class _PlainProgress:
    """A progress line on stderr, for machines without tqdm."""

    def __init__(self, stream=sys.stderr):
        self._stream = stream
        self._last = 0.0
        # A log gets the last line only, not a line rewritten in place.
        self._rewrite = hasattr(stream, "isatty") and stream.isatty()

    def __call__(self, batches, total, compile_seconds, run_seconds):
        if batches == 0:
            self._stream.write(
                "quanta.calibrate: compiled in %.1f s\n" % compile_seconds)
            return
        now = time.monotonic()
        if (now - self._last < 0.5 or not self._rewrite) and batches != total:
            return
        self._last = now
        rate = batches / max(run_seconds, 1e-9)
        self._stream.write("%squanta.calibrate: %d/%s batches, %.1f batches/s"
                           % ("\r" if self._rewrite else "", batches,
                              "?" if total is None else total, rate))
        if batches == total or not self._rewrite:
            self._stream.write("\n")
        self._stream.flush()


class _TqdmProgress:
    def __init__(self, tqdm):
        self._tqdm = tqdm
        self._bar = None

    def __call__(self, batches, total, compile_seconds, run_seconds):
        if batches == 0:
            self._bar = self._tqdm(total=total, unit="batch",
                                   desc="quanta.calibrate")
            return
        self._bar.update(batches - self._bar.n)
        if batches == total:
            self._bar.close()


def _progress_bar():
    try:
        from tqdm import tqdm
    except ImportError:
        return _PlainProgress()
    return _TqdmProgress(tqdm)


def _calibrate(self, batches, entry=None, batch_limit=None, threads=None,
               float_kernels=None, record_dir=None, record_observed=None,
               progress=True):
    """Runs the observed module on `batches` through the JIT and folds the
    observers' statistics into it (quanta-calibrate).

    `batches` is any iterable of numpy arrays (one argument) or of tuples of
    arrays (one per argument), float32 in the entry's shapes; it is read one
    batch at a time, so a generator over a data set larger than memory
    works. `progress`: True for a progress bar (tqdm when installed), False
    for none, or a callable(batches, total, compile_seconds, run_seconds).
    `record_dir`: where RecordingObservers write their tensors (and, with
    `record_observed`, every calibrated observer: <name>.<batch>.npy).
    Calibration continues from statistics already in the module; an option
    left None is quanta-calibrate's default. Returns the module.
    """
    total = len(batches) if hasattr(batches, "__len__") else None
    if progress is True:
        progress = _progress_bar()
    options = _option_text("quanta-calibrate", {
        "entry": entry, "batch_limit": batch_limit, "threads": threads,
        "float_kernels": float_kernels, "record_dir": record_dir,
        "record_observed": record_observed})
    self._calibrate(batches, options, total, progress or None)
    return self


Module.prepare = _prepare
Module.calibrate = _calibrate
Module.convert = _convert
Module.quantize_dynamic = _quantize_dynamic

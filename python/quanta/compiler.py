"""Quanta's compiler from Python: the C++ API of quanta/API/Quanta.h.

    >>> import quanta
    >>> model = quanta.Module.load("model.onnx", onnx_batch=8)
    >>> reference = model.clone()
    >>> model.prepare(qconfig="x86")                  # PyTorch's prepare()
    >>> model.calibrate(batch for batch in loader)   # streamed, JIT
    >>> model.run_pipeline("builtin.module(func.func(quanta-freeze-qparams),"
    ...                    "quanta-quantize)")
    >>> model.lower()                                # kernels for this CPU
    >>> run = model.compile()
    >>> logits = run(images)                         # numpy in, numpy out

Every error (malformed IR, a bad pass option, a batch of the wrong shape or
dtype, NaN in an observed tensor) raises quanta.Error, a ValueError whose
message holds MLIR's diagnostics with their locations.
"""

import sys
import time

from ._quanta_compiler import Error, Function, Module  # noqa: F401

__all__ = ["Error", "Function", "Module", "FREEZE_AND_CONVERT"]

# The pipeline from calibrated observers to integer code.
FREEZE_AND_CONVERT = (
    "builtin.module(func.func(quanta-freeze-qparams),quanta-quantize)")


class _PlainProgress:
    """A progress line on stderr, for machines without tqdm."""

    def __init__(self, stream=sys.stderr):
        self._stream = stream
        self._last = 0.0

    def __call__(self, batches, total, compile_seconds, run_seconds):
        if batches == 0:
            self._stream.write(
                "quanta.calibrate: compiled in %.1f s\n" % compile_seconds)
            return
        now = time.monotonic()
        if now - self._last < 0.5 and batches != total:
            return
        self._last = now
        rate = batches / max(run_seconds, 1e-9)
        self._stream.write("\rquanta.calibrate: %d/%s batches, %.1f batches/s"
                           % (batches, "?" if total is None else total, rate))
        if batches == total:
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


def _calibrate(self, batches, entry="", batch_limit=0, threads=1,
               float_kernels=True, record_dir="", record_observed=False,
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
    Calibration continues from statistics already in the module; returns
    the module.
    """
    total = len(batches) if hasattr(batches, "__len__") else None
    if progress is True:
        progress = _progress_bar()
    self._calibrate(batches, entry, batch_limit, threads, float_kernels,
                    record_dir, record_observed, total, progress or None)
    return self


Module.calibrate = _calibrate

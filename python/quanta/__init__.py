"""Quanta: PyTorch-exact quantization numerics from Python.

The functions and observers here are a binding of Quanta's C++ numeric
library, the same code the compiler passes use, so what a script computes is
what the compiler computes. Observers follow torch.ao.quantization's names,
arguments and defaults; tensors are float32 C-contiguous buffers (numpy
arrays, array.array("f"), ...).

    >>> import quanta
    >>> obs = quanta.HistogramObserver(reduce_range=True)
    >>> obs(numpy_batch)
    >>> scale, zero_point = obs.calculate_qparams()

The compiler side (quanta.compiler) calls the same C++ API as the tools:

    >>> model = quanta.Module.load("model.onnx", onnx_batch=32)
    >>> model.prepare(); model.calibrate(batches)
    >>> model.run_pipeline(quanta.FREEZE_AND_CONVERT); model.lower()
    >>> outputs = model.compile()(inputs)

Per-layer reports: quanta.report (import quanta.report; or
python3 -m quanta.report). Calibration on a Dask cluster:
quanta.calibrate_distributed.
"""

from ._quanta_compiler import import_onnx  # noqa: F401
from .compiler import FREEZE_AND_CONVERT, Error, Function, Module  # noqa: F401
from .distributed import calibrate_distributed  # noqa: F401
from ._quanta_numerics import (  # noqa: F401
    Observer,
    calculate_qparams,
    fake_quantize_per_tensor_affine,
    qrange,
    validate_observer,
)


class _ObserverModule:
    """Callable like a torch observer module: obs(x) updates and returns x."""

    _kind = None
    _defaults = {}

    def __init__(self, **kwargs):
        options = dict(self._defaults)
        options.update(kwargs)
        self._observer = Observer(self._kind, **options)

    def __call__(self, x):
        self._observer.forward(x)
        return x

    forward = __call__

    def calculate_qparams(self):
        return self._observer.calculate_qparams()

    @property
    def min_val(self):
        return self._observer.min_max[0]

    @property
    def max_val(self):
        return self._observer.min_max[1]


def _observer_class(name, kind, **defaults):
    cls = type(name, (_ObserverModule,), {"_kind": kind, "_defaults": defaults})
    cls.__doc__ = "torch.ao.quantization.%s, computed by Quanta." % name
    return cls


MinMaxObserver = _observer_class("MinMaxObserver", "MinMaxObserver")
MovingAverageMinMaxObserver = _observer_class(
    "MovingAverageMinMaxObserver", "MovingAverageMinMaxObserver")
PerChannelMinMaxObserver = _observer_class(
    "PerChannelMinMaxObserver", "PerChannelMinMaxObserver",
    qscheme="per_channel_affine")
MovingAveragePerChannelMinMaxObserver = _observer_class(
    "MovingAveragePerChannelMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver", qscheme="per_channel_affine")
HistogramObserver = _observer_class("HistogramObserver", "HistogramObserver")
HistogramObserver.histogram = property(lambda self: self._observer.histogram)

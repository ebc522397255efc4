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

Post-training quantization in one call (what the quanta driver does):

    >>> model = quanta.quantize("model.onnx", "calibration/")
    >>> logits = model(images); model.save_object("model.o", "model.h")

The compiler side (quanta.compiler) calls the same C++ API as the tools:

    >>> model = quanta.Module.load("model.onnx", onnx_batch=32)
    >>> model.prepare(); model.calibrate(batches)
    >>> model.convert()
    >>> outputs = model.compile()(inputs)

Per-layer reports: quanta.report (import quanta.report; or
python3 -m quanta.report). Calibration on a Dask cluster:
quanta.calibrate_distributed.
"""

from ._quanta_compiler import import_onnx  # noqa: F401
from .compiler import Error, Function, Module  # noqa: F401
from .distributed import calibrate_distributed  # noqa: F401
from .dynamic import dynamic_linear, quantize_int8_groups  # noqa: F401
from .ptq import QuantizedModel, quantize  # noqa: F401
from ._quanta_numerics import (  # noqa: F401
    Observer,
    calculate_qparams,
    fake_quantize_per_tensor_affine,
    qrange,
    validate_observer,
)
from .observers import (  # noqa: F401
    FakeQuantize,
    FixedQParamsFakeQuantize,
    FixedQParamsObserver,
    FusedMovingAvgObsFakeQuantize,
    HistogramObserver,
    MinMaxObserver,
    MovingAverageMinMaxObserver,
    MovingAveragePerChannelMinMaxObserver,
    NoopObserver,
    OneFlowMinMaxObserver,
    PerChannelMinMaxObserver,
    PlaceholderObserver,
    RecordingObserver,
    ReuseInputObserver,
    default_fixed_qparams_range_0to1_fake_quant,
    default_fixed_qparams_range_0to1_observer,
    default_fixed_qparams_range_neg1to1_fake_quant,
    default_fixed_qparams_range_neg1to1_observer,
    default_histogram_fake_quant,
)

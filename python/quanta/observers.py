"""torch.ao.quantization's observers and fake-quant modules, and OneFlow's
MinMaxObserver, computed by Quanta's numeric library (the code the passes
call), with PyTorch's names, arguments and defaults. Their options are
checked by the rules the IR verifier applies to the corresponding
attributes (one validation, in the library): what Python accepts, the
compiler accepts.
"""

import numpy as np

from ._quanta_numerics import (
    FakeQuantizeModule,
    Observer,
    oneflow_min_max_observer,
    validate_fixed_qparams,
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


class FakeQuantize:
    """torch.ao.quantization.FakeQuantize: observes (when enabled), refreshes
    scale/zero_point from the observer and fake-quantizes (when enabled).
    `observer` is one of the four min/max observer classes here."""

    _fused = False

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None,
                 quant_max=None, **observer_kwargs):
        kind = getattr(observer, "_kind", None)
        if kind not in ("MinMaxObserver", "MovingAverageMinMaxObserver",
                        "PerChannelMinMaxObserver",
                        "MovingAveragePerChannelMinMaxObserver"):
            raise ValueError("%s takes one of the min/max observer classes, "
                             "not %r" % (type(self).__name__, observer))
        options = dict(observer._defaults)
        options.update(observer_kwargs)
        # As PyTorch: the range reaches the observer only when both are set.
        if quant_min is not None and quant_max is not None:
            options.update(quant_min=quant_min, quant_max=quant_max)
        self._module = FakeQuantizeModule(self._fused, kind, **options)
        self.quant_min, self.quant_max = self._module.quant_range

    def __call__(self, x):
        # float32 only (the binding says so otherwise), C order.
        x = np.ascontiguousarray(x)
        return np.asarray(self._module.forward(x), np.float32).reshape(x.shape)

    forward = __call__

    def calculate_qparams(self):
        return self._module.qparams

    @property
    def scale(self):
        return self._module.qparams[0]

    @property
    def zero_point(self):
        return self._module.qparams[1]

    @property
    def min_max(self):
        return self._module.min_max

    def enable_fake_quant(self, enabled=True):
        self._module.enable_fake_quant(enabled)

    def disable_fake_quant(self):
        self._module.enable_fake_quant(False)

    def enable_observer(self, enabled=True):
        self._module.enable_observer(enabled)

    def disable_observer(self):
        self._module.enable_observer(False)


class FusedMovingAvgObsFakeQuantize(FakeQuantize):
    """torch.ao.quantization.FusedMovingAvgObsFakeQuantize (PyTorch 1.13's
    default QAT fake-quant): quant_min 0 and quant_max 255 by default."""

    _fused = True

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=0,
                 quant_max=255, **observer_kwargs):
        if getattr(observer, "_kind", None) not in (
                "MovingAverageMinMaxObserver",
                "MovingAveragePerChannelMinMaxObserver"):
            raise ValueError("Fused observer+fake_quant module only works "
                             "with MovingAverageMinMaxObserver")
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)


class FixedQParamsObserver:
    """torch.ao.quantization.FixedQParamsObserver: fixed scale/zero point."""

    def __init__(self, scale, zero_point, dtype="quint8",
                 qscheme="per_tensor_affine", quant_min=0, quant_max=255):
        validate_fixed_qparams(scale, zero_point, qscheme, quant_min,
                               quant_max)
        self.scale = float(np.float32(scale))
        self.zero_point = int(zero_point)
        self.dtype, self.qscheme = dtype, qscheme
        self.quant_min, self.quant_max = quant_min, quant_max

    def __call__(self, x):
        return x

    forward = __call__

    def calculate_qparams(self):
        return [self.scale], [self.zero_point]


class _PassThrough:
    """An observer that only carries configuration: forward returns its
    input and calculate_qparams raises, as in PyTorch."""

    def __call__(self, x):
        return x

    forward = __call__

    def calculate_qparams(self):
        raise Exception("calculate_qparams should not be called for %s"
                        % type(self).__name__)


class PlaceholderObserver(_PassThrough):
    def __init__(self, dtype="float32", custom_op_name="",
                 compute_dtype=None):
        self.dtype, self.custom_op = dtype, custom_op_name
        self.compute_dtype = compute_dtype


class NoopObserver(_PassThrough):
    def __init__(self, dtype="float16", custom_op_name=""):
        self.dtype, self.custom_op = dtype, custom_op_name


class ReuseInputObserver(_PassThrough):
    pass


class RecordingObserver(_PassThrough):
    """Keeps a copy of every tensor it sees in tensor_val."""

    def __init__(self, dtype="quint8"):
        self.dtype = dtype
        self.tensor_val = []

    def __call__(self, x):
        self.tensor_val.append(np.array(x, copy=True))
        return x

    forward = __call__

    def get_tensor_value(self):
        return self.tensor_val


class OneFlowMinMaxObserver:
    """oneflow.nn.MinMaxObserver: called on a tensor, returns (scale,
    zero_point) as OneFlow does (per layer: one each; per channel: along
    axis 0), with its google/cambricon formulas for 2..8 bits."""

    def __init__(self, quantization_formula="google", quantization_bit=8,
                 quantization_scheme="symmetric",
                 per_layer_quantization=True):
        self._options = dict(quantization_formula=quantization_formula,
                             quantization_bit=quantization_bit,
                             quantization_scheme=quantization_scheme,
                             per_layer_quantization=per_layer_quantization)
        # The options are checked now, as OneFlow's constructor does.
        oneflow_min_max_observer(np.array([[-1.0, 1.0]], np.float32),
                                 **self._options)

    def __call__(self, x):
        return oneflow_min_max_observer(np.ascontiguousarray(x),
                                        **self._options)

    forward = __call__

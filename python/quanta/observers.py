"""torch.ao.quantization's observers and fake-quant modules, and OneFlow's
MinMaxObserver, computed by Quanta's numeric library (the code the passes
call), with PyTorch's names, arguments and defaults. Their options are
checked by the rules the IR verifier applies to the corresponding
attributes (one validation, in the library): what Python accepts, the
compiler accepts.
"""

import inspect
import operator

import numpy as np

from ._quanta_numerics import (
    FakeQuantizeModule,
    Observer,
    fake_quantize_per_tensor_affine,
    oneflow_min_max_observer,
    validate_fixed_qparams,
)

_EPS = float(np.finfo(np.float32).eps)
_UNIFORM = (("dtype", "quint8"), ("qscheme", "per_tensor_affine"),
            ("reduce_range", False), ("quant_min", None), ("quant_max", None))


class _WithArgs:
    """`cls.with_args(**kwargs)`: PyTorch's partial constructor, as qconfigs
    and FixedQParamsFakeQuantize take observers."""

    def __init__(self, cls, kwargs):
        self.cls, self.kwargs = cls, kwargs

    def __call__(self, *args, **kwargs):
        return self.cls(*args, **dict(self.kwargs, **kwargs))

    def with_args(self, **kwargs):
        return _WithArgs(self.cls, dict(self.kwargs, **kwargs))


def _with_args(cls, **kwargs):
    return _WithArgs(cls, kwargs)


def _unpartial(observer):
    """(class, preset keyword arguments) of an observer class or with_args."""
    if isinstance(observer, _WithArgs):
        return observer.cls, observer.kwargs
    return observer, {}


class _ObserverModule:
    """Callable like a torch observer module: obs(x) updates and returns x.
    Each class takes exactly its PyTorch constructor's arguments, in its
    order (a TypeError for any other, as PyTorch raises), plus Quanta's
    keyword-only extensions where it lists them."""

    _kind = None
    _signature = None

    def __init__(self, *args, **kwargs):
        self._observer = Observer(self._kind, **self._options(*args, **kwargs))

    @classmethod
    def _options(cls, *args, **kwargs):
        """The binding's options for these constructor arguments."""
        try:
            bound = cls._signature.bind(*args, **kwargs)
        except TypeError as error:
            raise TypeError("%s.__init__() %s" % (cls.__name__, error)) \
                from None
        bound.apply_defaults()
        options = dict(bound.arguments)
        # The device and dtype of PyTorch's buffers: nothing to choose here.
        options.pop("factory_kwargs", None)
        return options

    with_args = classmethod(_with_args)

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


def _observer_class(name, kind, parameters, keyword_only=()):
    """An observer class taking `parameters` ((name, default) in PyTorch's
    order) and the `keyword_only` ones."""
    positional = inspect.Parameter.POSITIONAL_OR_KEYWORD
    signature = inspect.Signature(
        [inspect.Parameter(n, positional, default=d) for n, d in parameters] +
        [inspect.Parameter(n, inspect.Parameter.KEYWORD_ONLY, default=d)
         for n, d in keyword_only])
    cls = type(name, (_ObserverModule,), {
        "_kind": kind, "_signature": signature, "__signature__": signature})
    cls.__doc__ = "torch.ao.quantization.%s%s, computed by Quanta." % (
        name, signature)
    return cls


# PyTorch 1.13's signatures; the moving-average observers' **kwargs reach
# MinMaxObserver, which takes only factory_kwargs.
MinMaxObserver = _observer_class(
    "MinMaxObserver", "MinMaxObserver",
    _UNIFORM + (("factory_kwargs", None), ("eps", _EPS)))
MovingAverageMinMaxObserver = _observer_class(
    "MovingAverageMinMaxObserver", "MovingAverageMinMaxObserver",
    (("averaging_constant", 0.01),) + _UNIFORM + (("eps", _EPS),),
    keyword_only=(("factory_kwargs", None),))
_PER_CHANNEL = (("dtype", "quint8"), ("qscheme", "per_channel_affine")) + \
    _UNIFORM[2:]
PerChannelMinMaxObserver = _observer_class(
    "PerChannelMinMaxObserver", "PerChannelMinMaxObserver",
    (("ch_axis", 0),) + _PER_CHANNEL +
    (("factory_kwargs", None), ("eps", _EPS)))
MovingAveragePerChannelMinMaxObserver = _observer_class(
    "MovingAveragePerChannelMinMaxObserver",
    "MovingAveragePerChannelMinMaxObserver",
    (("averaging_constant", 0.01), ("ch_axis", 0)) + _PER_CHANNEL +
    (("eps", _EPS),), keyword_only=(("factory_kwargs", None),))
# Quanta's extensions (see #quanta.histogram): PyTorch's binning bug fixed,
# and the percentile/MSE calibrations of TensorRT and ONNX Runtime.
HistogramObserver = _observer_class(
    "HistogramObserver", "HistogramObserver",
    (("bins", 2048), ("upsample_rate", 128)) + _UNIFORM +
    (("factory_kwargs", None), ("eps", _EPS)),
    keyword_only=(("exact_histc_range", False), ("calibration", "pytorch"),
                  ("percentile", 99.99)))
HistogramObserver.histogram = property(lambda self: self._observer.histogram)


class FakeQuantize:
    """torch.ao.quantization.FakeQuantize: observes (when enabled), refreshes
    scale/zero_point from the observer and fake-quantizes (when enabled).
    `observer` is one of the four min/max observer classes here or
    HistogramObserver (default_histogram_fake_quant), or one of them
    with_args."""

    _fused = False
    with_args = classmethod(_with_args)

    def __init__(self, observer=MovingAverageMinMaxObserver, quant_min=None,
                 quant_max=None, **observer_kwargs):
        cls, preset = _unpartial(observer)
        kind = getattr(cls, "_kind", None)
        if kind is None:
            raise ValueError("%s takes one of the min/max observer classes "
                             "or HistogramObserver, not %r"
                             % (type(self).__name__, observer))
        # The observer's own TypeError for arguments it does not take.
        options = cls._options(**dict(preset, **observer_kwargs))
        if options.pop("calibration", "pytorch") != "pytorch":
            raise ValueError("%s computes qparams as PyTorch's "
                             "HistogramObserver does; the percentile and MSE "
                             "calibrations are for observers"
                             % type(self).__name__)
        options.pop("percentile", None)
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

    @property
    def histogram(self):
        return self._module.histogram

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
        if getattr(_unpartial(observer)[0], "_kind", None) not in (
                "MovingAverageMinMaxObserver",
                "MovingAveragePerChannelMinMaxObserver"):
            raise ValueError("Fused observer+fake_quant module only works "
                             "with MovingAverageMinMaxObserver")
        super().__init__(observer, quant_min, quant_max, **observer_kwargs)


class FixedQParamsObserver:
    """torch.ao.quantization.FixedQParamsObserver: fixed scale/zero point.
    As PyTorch, which keeps zero_point in an int32 buffer, a float zero
    point is truncated toward zero (2.7 is 2)."""

    def __init__(self, scale, zero_point, dtype="quint8",
                 qscheme="per_tensor_affine", quant_min=0, quant_max=255):
        if isinstance(zero_point, (float, np.floating)):
            if not np.isfinite(zero_point):
                raise ValueError("zero_point must be finite, not %r"
                                 % zero_point)
            zero_point = int(zero_point)
        zero_point = operator.index(zero_point)
        validate_fixed_qparams(scale, zero_point, qscheme, quant_min,
                               quant_max)
        self.scale = float(np.float32(scale))
        self.zero_point = zero_point
        self.dtype, self.qscheme = dtype, qscheme
        self.quant_min, self.quant_max = quant_min, quant_max

    with_args = classmethod(_with_args)

    def __call__(self, x):
        return x

    forward = __call__

    def calculate_qparams(self):
        return [self.scale], [self.zero_point]


class FixedQParamsFakeQuantize:
    """torch.ao.quantization.FixedQParamsFakeQuantize: fake-quantizes (when
    enabled) with the scale, zero point and range of its
    FixedQParamsObserver, given as PyTorch gives it: the class with its
    arguments (FixedQParamsObserver.with_args(scale=..., zero_point=...))."""

    with_args = classmethod(_with_args)

    def __init__(self, observer):
        cls, _ = _unpartial(observer)
        if cls is not FixedQParamsObserver:
            raise ValueError("FixedQParamsFakeQuantize takes a "
                             "FixedQParamsObserver, not %r" % (observer,))
        self.activation_post_process = observer()
        post = self.activation_post_process
        self.scale, self.zero_point = post.scale, post.zero_point
        self.quant_min, self.quant_max = post.quant_min, post.quant_max
        self.dtype, self.qscheme = post.dtype, post.qscheme
        self.fake_quant_enabled = True
        self.observer_enabled = True

    def __call__(self, x):
        if not self.fake_quant_enabled:
            return x
        x = np.ascontiguousarray(x)
        return np.asarray(fake_quantize_per_tensor_affine(
            x, self.scale, self.zero_point, self.quant_min, self.quant_max),
            np.float32).reshape(x.shape)

    forward = __call__

    def calculate_qparams(self):
        return self.activation_post_process.calculate_qparams()

    def enable_fake_quant(self, enabled=True):
        self.fake_quant_enabled = enabled

    def disable_fake_quant(self):
        self.fake_quant_enabled = False

    # The observer is fixed: these only record the flag, as in PyTorch.
    def enable_observer(self, enabled=True):
        self.observer_enabled = enabled

    def disable_observer(self):
        self.observer_enabled = False


# torch.ao.quantization.default_histogram_fake_quant.
default_histogram_fake_quant = FakeQuantize.with_args(
    observer=HistogramObserver, quant_min=0, quant_max=255, dtype="quint8",
    qscheme="per_tensor_affine", reduce_range=True)

# torch.ao.quantization's observers and fake-quant modules of the fixed
# output ranges (sigmoid and softmax: 0..1; tanh: -1..1).
default_fixed_qparams_range_0to1_observer = FixedQParamsObserver.with_args(
    scale=1.0 / 256.0, zero_point=0, dtype="quint8", quant_min=0,
    quant_max=255)
default_fixed_qparams_range_neg1to1_observer = FixedQParamsObserver.with_args(
    scale=2.0 / 256.0, zero_point=128, dtype="quint8", quant_min=0,
    quant_max=255)
default_fixed_qparams_range_0to1_fake_quant = FixedQParamsFakeQuantize.with_args(
    observer=default_fixed_qparams_range_0to1_observer)
default_fixed_qparams_range_neg1to1_fake_quant = \
    FixedQParamsFakeQuantize.with_args(
        observer=default_fixed_qparams_range_neg1to1_observer)
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

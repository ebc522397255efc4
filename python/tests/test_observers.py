"""The binding's observers and fake quantization apply the same rules as the
IR verifier: one validation in the numeric library, the same message."""

import inspect

import numpy as np
import pytest

import quanta
import quanta.goldens


def verifier_message(attribute):
    """The IR verifier's error for an observer attribute."""
    with pytest.raises(quanta.Error) as error:
        quanta.Module.parse(
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = quanta.observe %x {observer = " + attribute +
            "} : tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>\n}")
    return str(error.value)


@pytest.mark.parametrize("constant", [2.0, 0.0, -0.5, float("nan")])
def test_averaging_constant(constant):
    with pytest.raises(ValueError) as python:
        quanta.MovingAverageMinMaxObserver(averaging_constant=constant)
    assert "averaging_constant must be in (0, 1]" in str(python.value)
    if constant == constant:  # NaN has no IR literal
        ir = verifier_message(
            "#quanta.moving_average_min_max<averaging_constant = %r>"
            % constant)
        assert str(python.value) in ir
    with pytest.raises(ValueError, match="averaging_constant"):
        quanta.MovingAveragePerChannelMinMaxObserver(
            averaging_constant=constant)


def test_valid_averaging_constant():
    observer = quanta.MovingAverageMinMaxObserver(averaging_constant=1.0)
    observer(np.array([1.0, -2.0], np.float32))
    assert observer.min_val == -2.0 and observer.max_val == 1.0


@pytest.mark.parametrize("scale", [0.0, -1.0, float("inf"), float("nan")])
def test_fake_quantize_scale(scale):
    x = np.linspace(-1, 1, 8, dtype=np.float32)
    with pytest.raises(ValueError, match="scale must be finite and positive"):
        quanta.fake_quantize_per_tensor_affine(x, scale, 0, -128, 127)


def test_fake_quantize_scale_message_is_the_verifiers():
    with pytest.raises(ValueError) as python:
        quanta.fake_quantize_per_tensor_affine(
            np.zeros(4, np.float32), 0.0, 0, -128, 127)
    with pytest.raises(quanta.Error) as ir:
        quanta.Module.parse(
            "func.func @f(%x: tensor<4xf32>) -> tensor<4xf32> {\n"
            "  %0 = quanta.fake_quant %x {scale = array<f32: 0.0>, "
            "zero_point = array<i64: 0>, quant_min = -128, quant_max = 127}"
            " : tensor<4xf32>\n"
            "  return %0 : tensor<4xf32>\n}")
    assert str(python.value) in str(ir.value)


GOLDENS = "unittests/Numerics/goldens"


def f32(tokens):
    return np.array([float.fromhex(t) for t in tokens], np.float32)


def same_bits(a, b):
    return np.array_equal(np.asarray(a, np.float32).view(np.uint32),
                          np.asarray(b, np.float32).view(np.uint32))


def test_fake_quantize_modules_match_pytorch(source_dir):
    """PyTorch 1.13's FakeQuantize and FusedMovingAvgObsFakeQuantize step
    sequences (goldens generated with torch), bit for bit."""
    cases = quanta.goldens.read_cases(source_dir / GOLDENS / "fake_quant_modules.txt")
    counts = {"fake_quantize": 0, "fused": 0, "histogram": 0}
    for case in cases:
        kind = case["kind"][0]
        observer = getattr(quanta, kind + "Observer")
        quant = [None if case[k][0] == "none" else int(case[k][0])
                 for k in ("quant_min", "quant_max")]
        options = dict(dtype=case["dtype"][0], qscheme=case["qscheme"][0],
                       reduce_range=case["reduce_range"][0] == "1")
        if "eps" in case:
            options["eps"] = float(f32(case["eps"])[0])
        if kind.startswith("MovingAverage"):
            options["averaging_constant"] = float.fromhex(
                case["averaging_constant"][0])
        if "PerChannel" in kind:
            options["ch_axis"] = int(case["ch_axis"][0])
        if kind == "Histogram":
            options.update(bins=int(case["bins"][0]),
                           upsample_rate=int(case["upsample_rate"][0]))
        cls = (quanta.FusedMovingAvgObsFakeQuantize
               if case["module"][0] == "fused" else quanta.FakeQuantize)
        module = cls(observer, quant[0], quant[1], **options)
        counts[case["module"][0]] += 1
        counts["histogram"] += kind == "Histogram"
        for step in range(int(case["steps"][0])):
            n = str(step)
            module.enable_observer(case["observer_enabled" + n][0] == "1")
            module.enable_fake_quant(case["fake_quant_enabled" + n][0] == "1")
            x = f32(case["input" + n]).reshape(
                [int(d) for d in case["shape" + n]])
            if case["ok" + n][0] == "3":
                # PyTorch could not allocate a histogram combination that
                # Quanta computes without it.
                module(x)
                break
            if case["ok" + n][0] != "1":
                with pytest.raises(ValueError):
                    module(x)
                break
            out = module(x)
            assert same_bits(out.ravel(), f32(case["output" + n])), \
                (case["name"], step)
            scale, zero_point = module.calculate_qparams()
            if "qparams_size" + n not in case:
                assert same_bits(scale, f32(case["scale" + n]))
                if case["qscheme"][0] == "per_channel_affine_float_qparams":
                    assert same_bits(zero_point, f32(case["zero_point" + n]))
                else:
                    assert list(zero_point) == [
                        int(v) for v in case["zero_point" + n]]
            low, high = module.min_max
            assert same_bits(np.ravel(low), f32(case["min" + n]))
            assert same_bits(np.ravel(high), f32(case["max" + n]))
    assert counts["fake_quantize"] > 10 and counts["fused"] > 10
    assert counts["histogram"] >= 6


def test_fake_quantize_rules():
    with pytest.raises(ValueError, match="min/max observer classes or "
                       "HistogramObserver"):
        quanta.FakeQuantize(observer=quanta.FixedQParamsObserver)
    with pytest.raises(ValueError, match="percentile and MSE"):
        quanta.FakeQuantize(observer=quanta.HistogramObserver,
                            calibration="percentile")
    with pytest.raises(ValueError, match="only works with MovingAverage"):
        quanta.FusedMovingAvgObsFakeQuantize(observer=quanta.MinMaxObserver)
    with pytest.raises(ValueError, match="averaging_constant"):
        quanta.FusedMovingAvgObsFakeQuantize(averaging_constant=3.0)
    with pytest.raises(ValueError, match="quant_min"):
        quanta.FakeQuantize(quant_min=10, quant_max=5)
    with pytest.raises(TypeError, match="float32"):
        quanta.FakeQuantize()(np.zeros(4))
    module = quanta.FusedMovingAvgObsFakeQuantize()
    assert (module.quant_min, module.quant_max) == (0, 255)


def test_fixed_qparams_observer():
    observer = quanta.FixedQParamsObserver(1.0 / 256, 0)
    x = np.ones(3, np.float32)
    assert observer(x) is x
    assert observer.calculate_qparams() == ([1.0 / 256], [0])
    for scale, zero_point, qscheme, message in [
            (0.0, 0, "per_tensor_affine", "scale must be finite"),
            (0.1, 300, "per_tensor_affine", "zero_point .300. must lie"),
            (0.1, 0, "per_channel_affine", "per-tensor")]:
        with pytest.raises(ValueError, match=message) as python:
            quanta.FixedQParamsObserver(scale, zero_point, qscheme=qscheme)
        assert str(python.value) in verifier_message(
            "#quanta.fixed_qparams<scale = %r, zero_point = %d, qscheme = %s>"
            % (scale, zero_point, qscheme))


# PyTorch 1.13's constructor parameters, in order (inspect.signature of
# torch.ao.quantization's classes; the moving-average observers pass
# **kwargs to MinMaxObserver, which takes factory_kwargs only).
UNIFORM = ["dtype", "qscheme", "reduce_range", "quant_min", "quant_max"]
PYTORCH_PARAMETERS = {
    "MinMaxObserver": UNIFORM + ["factory_kwargs", "eps"],
    "MovingAverageMinMaxObserver":
        ["averaging_constant"] + UNIFORM + ["eps", "factory_kwargs"],
    "PerChannelMinMaxObserver":
        ["ch_axis"] + UNIFORM + ["factory_kwargs", "eps"],
    "MovingAveragePerChannelMinMaxObserver":
        ["averaging_constant", "ch_axis"] + UNIFORM + ["eps",
                                                       "factory_kwargs"],
    "HistogramObserver": ["bins", "upsample_rate"] + UNIFORM +
        ["factory_kwargs", "eps", "exact_histc_range", "calibration",
         "percentile"],
}


@pytest.mark.parametrize("name", sorted(PYTORCH_PARAMETERS))
def test_observer_takes_pytorchs_arguments(name):
    cls = getattr(quanta, name)
    assert list(inspect.signature(cls).parameters) == \
        PYTORCH_PARAMETERS[name]
    # What PyTorch rejects is a TypeError here too, not silently ignored.
    for foreign in ["averaging_constant", "ch_axis", "bins", "scale"]:
        if foreign not in PYTORCH_PARAMETERS[name]:
            with pytest.raises(TypeError, match="%s.__init__.. got an "
                               "unexpected keyword argument '%s'"
                               % (name, foreign)):
                cls(**{foreign: 1})
    with pytest.raises(TypeError, match=name):
        cls(*range(12))
    cls(factory_kwargs={"device": "cpu"})


def test_fake_quantize_passes_its_arguments_to_the_observer():
    with pytest.raises(TypeError, match="MinMaxObserver.__init__.. got an "
                       "unexpected keyword argument 'averaging_constant'"):
        quanta.FakeQuantize(observer=quanta.MinMaxObserver,
                            averaging_constant=0.5)
    # PyTorch 1.13: scale 0x1.83060cp-6, zero point 85.
    module = quanta.FakeQuantize(
        observer=quanta.MovingAverageMinMaxObserver.with_args(
            averaging_constant=0.5), quant_min=0, quant_max=127)
    module(np.array([1.0, -2.0], np.float32))
    assert same_bits(module.scale, [float.fromhex("0x1.83060cp-6")])
    assert module.zero_point == [85]


def test_positional_arguments_in_pytorchs_order():
    observer = quanta.MinMaxObserver("qint8")
    observer(np.array([1.0, -2.0], np.float32))
    assert observer.calculate_qparams()[1] == [42]
    assert quanta.HistogramObserver(64, 4)._observer is not None


def test_histogram_of_empty_batches_has_its_bins():
    # PyTorch: a buffer of `bins` zeros, min +inf, max -inf, qparams (1, 0).
    observer = quanta.HistogramObserver(bins=16)
    observer(np.zeros(0, np.float32))
    assert observer.histogram == [0.0] * 16
    assert observer.min_val == np.inf and observer.max_val == -np.inf
    assert observer.calculate_qparams() == ([1.0], [0])


@pytest.mark.parametrize("zero_point, expected",
                         [(2.7, 2), (-2.7, -2), (np.float32(3.9), 3), (5, 5)])
def test_fixed_qparams_float_zero_point_truncates_as_pytorch(zero_point,
                                                             expected):
    # PyTorch keeps zero_point in an int32 buffer.
    observer = quanta.FixedQParamsObserver(
        0.1, zero_point, dtype="qint8", quant_min=-128, quant_max=127)
    assert observer.zero_point == expected
    assert type(observer.zero_point) is int


@pytest.mark.parametrize("zero_point", [float("nan"), float("inf"), "3"])
def test_fixed_qparams_zero_point_that_is_no_number(zero_point):
    with pytest.raises((ValueError, TypeError)):
        quanta.FixedQParamsObserver(0.1, zero_point)


def test_fixed_qparams_fake_quantize():
    module = quanta.default_fixed_qparams_range_0to1_fake_quant()
    assert (module.scale, module.zero_point) == (1.0 / 256, 0)
    assert (module.quant_min, module.quant_max) == (0, 255)
    # PyTorch 1.13's output for the same input.
    x = np.array([0.5, 1.2, -0.1, 1.0 / 512], np.float32)
    assert same_bits(module(x), [0.5, 255.0 / 256, 0.0, 0.0])
    module.disable_observer()
    assert same_bits(module(x), [0.5, 255.0 / 256, 0.0, 0.0])
    module.disable_fake_quant()
    assert module(x) is x
    tanh = quanta.default_fixed_qparams_range_neg1to1_fake_quant()
    assert tanh.calculate_qparams() == ([2.0 / 256], [128])
    custom = quanta.FixedQParamsFakeQuantize(
        quanta.FixedQParamsObserver.with_args(scale=0.5, zero_point=1,
                                              quant_min=0, quant_max=3))
    assert same_bits(custom(np.array([-1.0, 0.2, 9.0], np.float32)),
                     [-0.5, 0.0, 1.0])
    with pytest.raises(ValueError, match="takes a FixedQParamsObserver"):
        quanta.FixedQParamsFakeQuantize(quanta.MinMaxObserver)


@pytest.mark.parametrize("cls", [quanta.PlaceholderObserver,
                                 quanta.NoopObserver,
                                 quanta.ReuseInputObserver,
                                 quanta.RecordingObserver])
def test_configuration_only_observers(cls):
    observer = cls()
    x = np.arange(4, dtype=np.float32)
    assert observer(x) is x
    with pytest.raises(Exception, match="should not be called for "
                       + cls.__name__):
        observer.calculate_qparams()


def test_recording_observer_keeps_copies():
    observer = quanta.RecordingObserver()
    x = np.arange(4, dtype=np.float32)
    observer(x)
    x[0] = 7
    assert observer.get_tensor_value()[0][0] == 0


def test_oneflow_min_max_observer():
    x = np.array([[-1.0, 0.5], [2.0, -4.0]], np.float32)
    scale, zero_point = quanta.OneFlowMinMaxObserver()(x)
    assert same_bits(scale, [np.float32(4.0) / np.float32(127)])
    assert zero_point == [0.0]
    scale, zero_point = quanta.OneFlowMinMaxObserver(
        quantization_scheme="affine", per_layer_quantization=False)(x)
    assert len(scale) == 2 and len(zero_point) == 2
    with pytest.raises(ValueError) as python:
        quanta.OneFlowMinMaxObserver(quantization_bit=9)
    assert str(python.value) in verifier_message(
        "#quanta.oneflow_min_max<quantization_bit = 9>")


def test_dynamic_linear_matches_pytorch(source_dir):
    """PyTorch 1.13's dynamic Linear on onednn and qnnpack (goldens generated
    with torch), bit for bit; NaN and infinities refused."""
    cases = quanta.goldens.read_cases(
        source_dir / GOLDENS / "dynamic_linear.txt")
    compared = 0
    for case in cases:
        m, k, n = (int(case[key][0]) for key in ("m", "k", "n"))
        x = f32(case["input"]).reshape(m, k)
        weight = f32(case["weight"]).reshape(n, k)
        bias = None if case["bias"][0] == "none" else f32(case["bias"])
        options = dict(engine=case["engine"][0],
                       per_channel=case["per_channel"][0] == "1")
        if case["ok"][0] == "0":
            with pytest.raises(ValueError, match="NaN|infinity"):
                quanta.dynamic_linear(x, weight, bias, **options)
            continue
        y = quanta.dynamic_linear(x, weight, bias, **options)
        assert y.shape == (m, n)
        assert same_bits(y.ravel(), f32(case["output"])), case["name"]
        compared += 1
    assert compared >= 28


def test_dynamic_linear_arguments():
    x = np.ones((2, 3), np.float32)
    with pytest.raises(ValueError, match="weights .N, K."):
        quanta.dynamic_linear(x, np.ones((4, 2), np.float32))
    with pytest.raises(ValueError, match="unknown engine"):
        quanta.dynamic_linear(x, np.ones((4, 3), np.float32), engine="fbgemm")
    with pytest.raises(ValueError, match="bias of 4 values"):
        quanta.dynamic_linear(x, np.ones((4, 3), np.float32),
                              np.ones(3, np.float32))
    # K = 0: acc is 0 and the output the bias (qnnpack adds it exactly).
    assert np.array_equal(
        quanta.dynamic_linear(np.ones((2, 0), np.float32),
                              np.ones((3, 0), np.float32),
                              np.array([1.5, -2.0, 0.25], np.float32),
                              engine="qnnpack"),
        np.tile(np.array([1.5, -2.0, 0.25], np.float32), (2, 1)))
    # Leading dimensions are kept, as PyTorch keeps them.
    assert quanta.dynamic_linear(np.ones((2, 5, 3), np.float32),
                                 np.ones((4, 3), np.float32)).shape == (2, 5, 4)

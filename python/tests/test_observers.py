"""The binding's observers and fake quantization apply the same rules as the
IR verifier: one validation in the numeric library, the same message."""

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
    counts = {"fake_quantize": 0, "fused": 0}
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
        cls = (quanta.FusedMovingAvgObsFakeQuantize
               if case["module"][0] == "fused" else quanta.FakeQuantize)
        module = cls(observer, quant[0], quant[1], **options)
        counts[case["module"][0]] += 1
        for step in range(int(case["steps"][0])):
            n = str(step)
            module.enable_observer(case["observer_enabled" + n][0] == "1")
            module.enable_fake_quant(case["fake_quant_enabled" + n][0] == "1")
            x = f32(case["input" + n]).reshape(
                [int(d) for d in case["shape" + n]])
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


def test_fake_quantize_rules():
    with pytest.raises(ValueError, match="min/max observer"):
        quanta.FakeQuantize(observer=quanta.HistogramObserver)
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

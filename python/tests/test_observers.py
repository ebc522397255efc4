"""The binding's observers and fake quantization apply the same rules as the
IR verifier: one validation in the numeric library, the same message."""

import numpy as np
import pytest

import quanta


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

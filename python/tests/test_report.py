"""quanta.report: the numbers behind the plots, and valid images."""

import math
import re

import numpy as np
import pytest

import quanta
import quanta.report

PNG_MAGIC = b"\x89PNG\r\n\x1a\n"


@pytest.fixture
def report(tiny_cnn, calibration_batches, tmp_path):
    float_model = quanta.Module.load(str(tiny_cnn))
    observed = float_model.clone()
    observed.prepare()
    observed.calibrate(calibration_batches, progress=False)
    return quanta.report.write(observed, calibration_batches[:2],
                               str(tmp_path / "report"),
                               float_model=float_model), tmp_path / "report"


def test_layer_numbers(report, calibration_batches):
    result, _ = report
    names = [layer["name"] for layer in result["layers"]]
    assert names[0] == "arg0" and "conv1.output" in names
    first = result["layers"][0]
    # Recomputed with numpy from the model's input (observed as is):
    # PyTorch's fake quantization, round half to even.
    x = np.concatenate([b.ravel() for b in calibration_batches[:2]])
    assert first["elements"] == x.size
    scale, zero_point = np.float32(first["scale"]), first["zero_point"]
    q = np.clip(np.rint(x * (np.float32(1) / scale)) + zero_point,
                first["quant_min"], first["quant_max"])
    fake = ((q - zero_point) * scale).astype(np.float32)
    assert first["sqnr_db"] == pytest.approx(quanta.report.sqnr(x, fake),
                                             abs=1e-6)
    assert first["max_error"] == pytest.approx(np.abs(x - fake).max())
    low, high = first["range"]
    half = scale / 2
    assert first["clipped_fraction"] == pytest.approx(
        np.mean((x < low - half) | (x > high + half)))
    for layer in result["layers"]:
        assert 20 < layer["sqnr_db"] < 60
        assert 0 <= layer["clipped_fraction"] < 0.01


def test_weights_and_output(report):
    result, _ = report
    assert [w["name"] for w in result["weights"]] == [
        "conv1.weight", "dw.weight", "conv2.weight", "fc.weight"]
    conv1 = result["weights"][0]
    assert len(conv1["min"]) == len(conv1["max"]) == 8
    assert all(lo <= hi for lo, hi in zip(conv1["min"], conv1["max"]))
    assert 30 < result["output"]["sqnr_db"] < 80
    assert result["output"]["max_error"] < 0.05


def test_sqnr():
    assert quanta.report.sqnr([1.0, 2.0], [1.0, 2.0]) == math.inf
    assert quanta.report.sqnr([3.0, 4.0], [3.0, 3.0]) == pytest.approx(
        10 * math.log10(25.0))


def test_compare_outputs():
    # The quanta driver's comparison, bound: rows of 2 values.
    from quanta._quanta_numerics import compare_outputs
    reference = np.array([1, 2, 3, 4], np.float32)
    result = compare_outputs(reference,
                             np.array([1.5, 1.5, 2.5, 4.5], np.float32), 2)
    assert result["rows"] == 2 and result["top1_agreement"] == 0.5
    assert result["max_error"] == 0.5
    assert result["sqnr_db"] == pytest.approx(10 * math.log10(30.0))
    with pytest.raises(ValueError, match="differ in number"):
        compare_outputs(reference, reference[:3])
    with pytest.raises(ValueError, match="rows of 3 do not tile 4 values"):
        compare_outputs(reference, reference, 3)


def test_page_and_images(report):
    import matplotlib.image

    result, directory = report
    page = (directory / "index.html").read_text()
    images = re.findall(r"src='([^']+)'", page)
    assert "summary.png" in images
    assert len(set(images)) == 1 + len(result["layers"]) + len(
        result["weights"])
    for image in set(images):
        data = (directory / image).read_bytes()
        assert data.startswith(PNG_MAGIC)
        pixels = matplotlib.image.imread(str(directory / image))
        assert pixels.ndim == 3 and pixels.shape[0] > 100
    for layer in result["layers"]:
        assert layer["name"] in page
    assert "Worst tensor" in page and "end to end" in page


def test_command_line(tiny_cnn, source_dir, tmp_path, capsys):
    data = ",".join(str(p) for p in sorted(
        (source_dir / "examples" / "calibration").glob("batch*.npy"))[:3])
    assert quanta.report.main([str(tiny_cnn), "--data", data,
                               "-o", str(tmp_path / "r")]) == 0
    assert (tmp_path / "r" / "index.html").exists()
    assert "quanta-report: " in capsys.readouterr().out

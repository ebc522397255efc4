"""quanta.quantize: post-training quantization in one call, against the
quanta driver that does the same from the shell."""

import subprocess

import numpy as np
import pytest

import quanta


@pytest.fixture
def digits(source_dir):
    return source_dir / "examples" / "digits"


def test_quantize_files(digits, build_dir, tmp_path):
    model = quanta.quantize(str(digits / "digits_cnn.onnx"),
                            str(digits / "calibration"), progress=False)
    assert model.qconfig == "x86"
    # The last of the 8 files is held out: 32 rows of 10 classes.
    (check,) = model.check
    assert check["rows"] == 32 and check["sqnr_db"] > 25
    assert check["top1_agreement"] == 1.0
    assert [ops["total"] for ops in model.float_ops] == [0]

    images = np.load(digits / "test_images.npy")
    logits = np.concatenate([model(image[None]) for image in images[:16]])
    assert logits.shape == (16, 10)

    # The driver on the same model and data makes the same int8 IR: the
    # same logits, byte for byte.
    subprocess.run([str(build_dir / "bin" / "quanta"),
                    str(digits / "digits_cnn.onnx"),
                    "--data=%s" % (digits / "calibration"), "--emit=mlir",
                    "-o", str(tmp_path / "driver.mlir")],
                   check=True, capture_output=True)
    driver = quanta.Module.load(str(tmp_path / "driver.mlir"))
    driver.lower()
    run = driver.compile()
    expected = np.concatenate([run(image[None]) for image in images[:16]])
    assert logits.tobytes() == expected.tobytes()

    model.save_object(str(tmp_path / "model.o"),
                      header=str(tmp_path / "model.h"))
    assert (tmp_path / "model.o").stat().st_size > 0
    # Named after the file, as the driver names it.
    assert "digits_cnn_run(" in (tmp_path / "model.h").read_text()


def test_quantize_arrays(tiny_cnn, calibration_batches, tmp_path):
    # A list: the last batch is held out; arrays of several batches split.
    seen = []
    model = quanta.quantize(
        str(tiny_cnn), [np.concatenate(calibration_batches[:4]),
                        np.concatenate(calibration_batches[4:7]),
                        calibration_batches[7]],
        qconfig="qnnpack", progress=lambda *state: seen.append(state[0]))
    assert seen[-1] == 7
    assert model.qconfig == "qnnpack"
    assert model.check[0]["rows"] == 1
    html = model.report(str(tmp_path / "report"))["html"]
    assert html.endswith("index.html")

    # A generator is read once: no batch left to check on.
    streamed = quanta.quantize(str(tiny_cnn), iter(calibration_batches),
                               progress=False)
    assert streamed.check is None
    checked = quanta.quantize(str(tiny_cnn), iter(calibration_batches),
                              check_data=calibration_batches[:2],
                              progress=False)
    assert checked.check[0]["rows"] == 2


def test_quantize_pre_quantized(source_dir):
    # A QDQ model keeps its qparams: no calibration, whatever the data.
    qdq = source_dir / "test" / "Import" / "Onnx" / "Inputs" / "qdq.onnx"
    x = np.random.default_rng(2).uniform(-2, 2, (2, 1, 3, 6, 6))
    model = quanta.quantize(str(qdq), list(x.astype(np.float32)),
                            progress=False)
    assert model.pre_quantized
    assert [ops["total"] for ops in model.float_ops] == [0]


def test_quantize_module_is_not_modified(tiny_cnn, calibration_batches):
    module = quanta.Module.load(str(tiny_cnn))
    before = str(module)
    quanta.quantize(module, calibration_batches, progress=False)
    assert str(module) == before


def test_quantize_errors(digits, tiny_cnn, tmp_path):
    with pytest.raises(quanta.Error, match="does not exist"):
        quanta.quantize(str(tiny_cnn), str(tmp_path / "missing"))
    np.save(tmp_path / "wrong.npy", np.zeros((1, 16, 16, 4), np.float32))
    with pytest.raises(quanta.Error,
                       match=r"expects shape \(1, 16, 16, 3\), found "
                             r"\(1, 16, 16, 4\)[\s\S]*note: next: give "
                             r"arrays of the model input's shape"):
        quanta.quantize(str(tiny_cnn), str(tmp_path / "wrong.npy"),
                        progress=False)
    with pytest.raises(quanta.Error, match="unknown qconfig 'x68'"):
        quanta.quantize(str(tiny_cnn), str(tmp_path / "wrong.npy"),
                        qconfig="x68", progress=False)
    with pytest.raises(ValueError, match="unknown CPU 'nope'"):
        quanta.quantize(str(digits / "digits_cnn.onnx"),
                        str(digits / "calibration"), target={"cpu": "nope"},
                        progress=False)


def test_quantize_transformer_token_ids(source_dir):
    """A transformer takes int64 token ids: as calibration data and as the
    quantized model's input; its symbolic dimensions are bound by name."""
    inputs = source_dir / "test" / "Import" / "Onnx" / "Inputs"
    rng = np.random.default_rng(0)
    batches = [rng.integers(0, 100, (2, 16)) for _ in range(3)]
    model = quanta.quantize(str(inputs / "encoder_op17.onnx"), batches,
                            onnx_dims={"batch": 2, "seq": 16},
                            progress=False)
    (check,) = model.check
    assert check["sqnr_db"] > 15
    ids = np.load(inputs / "encoder_ids.npy")
    expected = np.load(inputs / "encoder_expected.npy")
    logits = model(ids)
    assert logits.shape == expected.shape
    assert (logits.argmax(1) == expected.argmax(1)).all()
    with pytest.raises(quanta.Error, match="expects int64 data"):
        quanta.quantize(str(inputs / "encoder_op17.onnx"),
                        [b.astype(np.float32) for b in batches],
                        onnx_dims={"batch": 2, "seq": 16}, progress=False)


def test_quantize_normalizations_both_ways(digits):
    # The digits transformer's two softmaxes (4 float ops each as the
    # importer translates them) and its quantized layer norms are integer
    # by default; keep_float keeps them float, for measuring both ways: the
    # same logits within a fraction of a dB.
    held_out = np.load(digits / "test_images.npy")[:64]
    models = [quanta.quantize(str(digits / "digits_transformer.onnx"),
                              str(digits / "calibration"), progress=False,
                              check_data=[held_out], keep_float=keep)
              for keep in ((), ["softmax"], ["softmax", "layer-norm"])]
    totals = [sum(ops["total"] for ops in m.float_ops) for m in models]
    assert totals[1] == totals[0] + 2 * 4
    assert totals[2] > totals[1]
    sqnr = [m.check[0]["sqnr_db"] for m in models]
    assert sqnr[0] > 20 and max(sqnr) - min(sqnr) < 0.5
    with pytest.raises(quanta.Error, match="keep-float names 'gelu'"):
        quanta.quantize(str(digits / "digits_transformer.onnx"),
                        str(digits / "calibration"), progress=False,
                        keep_float=["gelu"])

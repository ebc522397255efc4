"""The compiler API: what it computes equals what the tools compute, and
every bad input is a quanta.Error with a location."""

import subprocess
import weakref

import numpy as np
import pytest

import quanta

TOSA_TO_LINALG = ("builtin.module(tosa-to-linalg-pipeline,"
                  "func.func(tosa-to-tensor,tosa-to-arith),canonicalize)")


def test_parse_error_has_its_location():
    with pytest.raises(quanta.Error, match=r"bad\.mlir:1:\d+: error: "):
        quanta.Module.parse("func.func @f(", "bad.mlir")


def test_missing_file():
    with pytest.raises(FileNotFoundError, match="no-such.mlir"):
        quanta.Module.load("/nonexistent/no-such.mlir")


def test_bad_pipeline_names_it(tiny_cnn):
    module = quanta.Module.load(str(tiny_cnn))
    with pytest.raises(quanta.Error, match="bad pass pipeline"):
        module.run_pipeline("no-such-pass")
    with pytest.raises(quanta.Error, match="unknown qconfig 'x87'"):
        module.prepare(qconfig="x87")


def test_overrides(tiny_cnn):
    """An override keeps the layer it names in float; one that names
    nothing is an error with the closest name, not a silent no-op."""
    everything = quanta.Module.load(str(tiny_cnn))
    everything.prepare()
    without_fc = quanta.Module.load(str(tiny_cnn))
    without_fc.prepare(overrides=["fc=none"])
    assert 'name = "fc.weight"' in str(everything)
    assert 'name = "fc.weight"' not in str(without_fc)
    with pytest.raises(quanta.Error,
                       match="override 'fc9' names no op and no location of "
                             "the module; did you mean 'fc'"):
        quanta.Module.load(str(tiny_cnn)).prepare(overrides=["fc9=none"])


def test_calibration_equals_quant_opt(tiny_cnn, calibration_batches,
                                      build_dir, source_dir):
    """The same statistics, bit for bit, as quanta-calibrate on the files."""
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    module.calibrate(calibration_batches, progress=False)
    files = ",".join(str(p) for p in sorted(
        (source_dir / "examples" / "calibration").glob("batch*.npy")))
    expected = subprocess.run(
        [str(build_dir / "bin" / "quant-opt"), str(tiny_cnn),
         "--quanta-prepare",
         "--quanta-calibrate=data=%s quiet=true" % files],
        check=True, capture_output=True, text=True).stdout
    assert str(module) == expected.rstrip("\n") + "\n"


def test_int8_model_runs_as_quant_run(tiny_cnn, calibration_batches,
                                      build_dir, tmp_path):
    """Calibrate, convert (quanta-compile) and call from Python: the int8
    output is quant-run's with the same named pipeline, byte for byte, and
    within a few steps of the float model's."""
    model = quanta.Module.load(str(tiny_cnn))
    reference = model.clone()
    reference.run_pipeline(TOSA_TO_LINALG)
    model.prepare()
    model.calibrate(iter(calibration_batches), progress=False)
    calibrated_path = tmp_path / "calibrated.mlir"
    calibrated_path.write_text(model.to_text())
    model.convert()
    run = model.compile()
    assert run.name == "tiny_cnn"

    x = calibration_batches[0]
    got = run(x)
    np.save(tmp_path / "x.npy", x)
    subprocess.run([str(build_dir / "bin" / "quant-run"), str(calibrated_path),
                    "--pass-pipeline=builtin.module(quanta-compile)",
                    "--input=%s" % (tmp_path / "x.npy"),
                    "--output=%s" % (tmp_path / "y.npy")], check=True)
    assert np.array_equal(got, np.load(tmp_path / "y.npy"))
    want = reference.compile()(x)
    assert got.shape == want.shape == (1, 10)
    assert np.abs(got - want).max() < 4 / 256


def test_batches_are_streamed(tiny_cnn):
    """A generator is read one batch at a time: earlier batches are freed."""
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    alive = []
    most_alive = 0

    def batches():
        nonlocal most_alive
        rng = np.random.default_rng(0)
        for _ in range(64):
            batch = rng.standard_normal((1, 16, 16, 3), dtype=np.float32)
            alive.append(weakref.ref(batch))
            most_alive = max(most_alive, sum(r() is not None for r in alive))
            yield batch
            del batch

    seen = []
    module.calibrate(batches(), progress=lambda *state: seen.append(state))
    assert most_alive == 1
    assert [s[0] for s in seen] == list(range(65))
    assert all(s[1] is None for s in seen)  # a generator has no length


def test_progress_knows_the_total(tiny_cnn, calibration_batches):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    seen = []
    module.calibrate(calibration_batches, batch_limit=3,
                     progress=lambda *state: seen.append(state[:2]))
    assert seen == [(0, 3), (1, 3), (2, 3), (3, 3)]


@pytest.mark.parametrize("batch, error, message", [
    (np.zeros((1, 16, 16, 3)), quanta.Error,
     r"batch 0: argument 0 expects float32 data, found float64"),
    (np.zeros((2, 16, 16, 4), np.float32), quanta.Error,
     r"batch 0: argument 0 expects shape \(1, 16, 16, 3\), found "
     r"\(2, 16, 16, 4\)\n.*note: next: give arrays of the model input's "
     r"shape, or of k times its first dimension for k batches"),
    ([1.0, 2.0], TypeError, r"batch 0 argument 0: expected a numpy array"),
    ((np.zeros((1, 16, 16, 3), np.float32),) * 2, quanta.Error,
     r"calibration batch 0 holds 2 arrays but the entry takes 1 arguments"),
    (np.full((1, 16, 16, 3), np.nan, np.float32), quanta.Error,
     r"tiny_cnn\.mlir:\d+:\d+: error: 'quanta\.observe' op calibration "
     r"batch 0 \(batch 0\): HistogramObserver input contains NaN"),
])
def test_bad_batches(tiny_cnn, batch, error, message):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    before = str(module)
    with pytest.raises(error, match=message):
        module.calibrate([batch], progress=False)
    assert str(module) == before  # nothing half-calibrated


def test_batches_of_several(tiny_cnn):
    # Arrays of k times the model's batch are k batches, in order: the
    # statistics equal those of the single batches.
    rng = np.random.default_rng(3)
    batches = [rng.standard_normal((1, 16, 16, 3), np.float32)
               for _ in range(4)]
    whole = quanta.Module.load(str(tiny_cnn))
    whole.prepare()
    seen = []
    whole.calibrate([np.concatenate(batches[:2]), np.concatenate(batches[2:])],
                    progress=lambda *state: seen.append(state[:2]))
    assert seen == [(0, 4), (1, 4), (2, 4), (3, 4), (4, 4)]
    single = quanta.Module.load(str(tiny_cnn))
    single.prepare()
    single.calibrate(batches, progress=False)
    assert str(whole) == str(single)


def test_no_batches(tiny_cnn):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    with pytest.raises(quanta.Error, match="no calibration batches"):
        module.calibrate([], progress=False)


def test_compile_errors(tiny_cnn):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    with pytest.raises(quanta.Error,
                       match="before calibration and freezing: run quanta-ptq"):
        module.compile()
    with pytest.raises(quanta.Error, match="no function named 'nope'"):
        module.compile(entry="nope")
    with pytest.raises(ValueError, match="threads must be >= 0"):
        module.compile(threads=-1)


def test_call_errors(tiny_cnn):
    module = quanta.Module.load(str(tiny_cnn))
    module.run_pipeline(TOSA_TO_LINALG)
    run = module.compile()
    with pytest.raises(quanta.Error, match=r"'tiny_cnn' takes 1 argument\(s\), 0 given"):
        run()
    with pytest.raises(quanta.Error, match=r"argument 0 expects shape"):
        run(np.zeros((16, 16, 3), np.float32))
    # A strided view is copied to C order, not misread.
    x = np.random.default_rng(1).standard_normal((1, 16, 16, 6), np.float32)
    assert np.array_equal(run(x[..., ::2]), run(np.ascontiguousarray(x[..., ::2])))


def test_unknown_target():
    module = quanta.Module.parse("module {}")
    with pytest.raises(ValueError, match="pentium9"):
        module.lower(cpu="pentium9")


def test_exceptions_of_the_batches_propagate(tiny_cnn, calibration_batches):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare()
    before = str(module)

    def failing():
        yield calibration_batches[0]
        raise KeyError("no such shard")

    with pytest.raises(KeyError, match="no such shard"):
        module.calibrate(failing(), progress=False)

    def interrupt(batches, *_):
        if batches == 2:
            raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        module.calibrate(calibration_batches, progress=interrupt)
    assert str(module) == before

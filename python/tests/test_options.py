"""Every option a Python method takes is an option of the pass or pipeline
it runs, and the other way round: the methods pass their keywords through
as quant-opt's option text, which the passes parse themselves, so a name
that drifted on either side fails here."""

import inspect

import pytest

import quanta
from quanta.compiler import OPTION_ALIASES

# Python's own arguments, which are not pass options: the data and its
# progress report (the pass's data= and quiet), and the target.
NOT_OPTIONS = {"self", "batches", "progress", "triple", "cpu", "features"}
# Options a method leaves out because its own arguments replace them.
LEFT_OUT = {"quanta-calibrate": {"data", "quiet"}}

METHODS = [
    (quanta.Module.prepare, "quanta-prepare"),
    (quanta.Module.calibrate, "quanta-calibrate"),
    (quanta.Module.convert, "quanta-compile"),
]


@pytest.mark.parametrize("method,pipeline", METHODS,
                         ids=[name for _, name in METHODS])
def test_python_options_are_the_pass_options(method, pipeline):
    aliases = OPTION_ALIASES[pipeline]
    python = {aliases.get(name, name.replace("_", "-"))
              for name in inspect.signature(method).parameters
              if name not in NOT_OPTIONS}
    passes = set(quanta.option_names(pipeline)) - LEFT_OUT.get(pipeline,
                                                               set())
    assert python == passes


def test_pipelines_take_their_passes_options():
    """quanta-ptq takes exactly quanta-insert-observers' and
    quanta-calibrate's options (record-observed included), quanta-prepare
    exactly quanta-insert-observers' (no threads it would ignore)."""
    prepare = set(quanta.option_names("quanta-insert-observers"))
    calibrate = set(quanta.option_names("quanta-calibrate"))
    assert set(quanta.option_names("quanta-prepare")) == prepare
    assert set(quanta.option_names("quanta-ptq")) == prepare | calibrate
    assert "record-observed" in quanta.option_names("quanta-ptq")
    assert "threads" not in quanta.option_names("quanta-prepare")
    assert set(quanta.option_names("quanta-compile")) == (
        set(quanta.option_names("quanta-quantize"))
        | set(quanta.option_names("quanta-lower-cpu")))
    assert quanta.option_names("no-such-pass") == []


def test_unknown_option_is_an_error(tiny_cnn):
    module = quanta.Module.load(str(tiny_cnn))
    with pytest.raises(quanta.Error, match="unknown option 'threads'"):
        module.run_pipeline("builtin.module(quanta-prepare{threads=2})")

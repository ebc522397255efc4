"""Every option a Python method takes is an option of the pass or pipeline
it runs, and the other way round. The methods pass their keywords through
as quant-opt's option text, which the passes parse themselves, so a name
that drifts on either side fails here: the passes' own names are read from
quant-opt --help."""

import inspect
import re
import subprocess

import pytest

import quanta
from quanta.compiler import OPTION_ALIASES

# Python's own arguments, which are not pass options: the data and its
# progress report (the pass's data= and quiet), and the target.
NOT_OPTIONS = {"self", "batches", "progress", "triple", "cpu", "features"}
# Options a method leaves out because its own arguments replace them.
LEFT_OUT = {"quanta-calibrate": {"data", "quiet"}}
# The passes whose options each named pipeline takes.
PIPELINE_PASSES = {
    "quanta-prepare": ["quanta-insert-observers"],
    "quanta-calibrate": ["quanta-calibrate"],
    "quanta-compile": ["quanta-quantize", "quanta-lower-cpu"],
    "quanta-compile-dynamic": ["quanta-quantize-dynamic", "quanta-lower-cpu"],
}
METHODS = [
    (quanta.Module.prepare, "quanta-prepare"),
    (quanta.Module.calibrate, "quanta-calibrate"),
    (quanta.Module.convert, "quanta-compile"),
    (quanta.Module.quantize_dynamic, "quanta-compile-dynamic"),
]


@pytest.fixture
def pass_options(build_dir):
    """Pass name -> its option names, as quant-opt --help lists them."""
    text = subprocess.run([str(build_dir / "bin" / "quant-opt"), "--help"],
                          check=True, capture_output=True, text=True).stdout
    options, current = {}, None
    for line in text.splitlines():
        match = re.match(r"^      --([\w-]+)", line)
        if match:
            current = options.setdefault(match.group(1), set())
            continue
        match = re.match(r"^        --([\w-]+)", line)
        if match and current is not None:
            current.add(match.group(1))
        elif not line.startswith("         "):
            current = None
    return options


@pytest.mark.parametrize("method,pipeline", METHODS,
                         ids=[name for _, name in METHODS])
def test_python_options_are_the_pass_options(method, pipeline, pass_options):
    aliases = OPTION_ALIASES[pipeline]
    python = {aliases.get(name, name.replace("_", "-"))
              for name in inspect.signature(method).parameters
              if name not in NOT_OPTIONS}
    passes = set().union(*(pass_options[name]
                           for name in PIPELINE_PASSES[pipeline]))
    assert passes, "quant-opt --help lists no option of %s" % pipeline
    assert python == passes - LEFT_OUT.get(pipeline, set())


def test_every_option_reaches_its_pass(tiny_cnn):
    """Options given in Python arrive at the pass (a bad value is the pass's
    error), and a name no pass has is an error naming the pipeline."""
    module = quanta.Module.load(str(tiny_cnn))
    with pytest.raises(quanta.Error, match="unknown qconfig 'x87'"):
        module.prepare(qconfig="x87")
    with pytest.raises(quanta.Error,
                       match="quanta-prepare: none of its passes takes "
                             "'threads=2'"):
        module.run_pipeline("builtin.module(quanta-prepare{threads=2})")
    module.prepare(overrides=["fc=none", "conv1=qnnpack"], fuse_clamps=True)
    with pytest.raises(ValueError, match="batch-limit"):
        module.calibrate([], batch_limit="many", progress=False)

"""pytest fixtures of the quanta package's tests (run by make check with
PYTHONPATH=<build>/python_packages and QUANTA_BUILD_DIR=<build>)."""

import os
import pathlib

import pytest

SOURCE_DIR = pathlib.Path(__file__).resolve().parents[2]


@pytest.fixture
def source_dir():
    return SOURCE_DIR


@pytest.fixture
def build_dir():
    path = os.environ.get("QUANTA_BUILD_DIR")
    if not path:
        pytest.fail("QUANTA_BUILD_DIR is not set (make check sets it)")
    return pathlib.Path(path)


@pytest.fixture
def tiny_cnn(source_dir):
    return source_dir / "examples" / "tiny_cnn.mlir"


@pytest.fixture
def calibration_batches(source_dir):
    """The 8 bundled calibration batches of the tiny CNN, as arrays."""
    import numpy as np

    return [np.load(path) for path in
            sorted((source_dir / "examples" / "calibration").glob("batch*.npy"))]

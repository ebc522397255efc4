"""Writes the inputs of approximate-math-exec.mlir (`input` mode), or
prints how far each result (.npy, in the order erf, exp, tanh) is from
the correctly rounded float32 of Python's double-precision function, in
units in the last place, and whether the non-finite and special inputs
give what libm gives."""
import math
import sys

import numpy as np

SPECIAL = [0.0, -0.0, np.inf, -np.inf, np.nan, 1e-40, -1e-40, 1e-30,
           88.7, -87.3, 89.0, -104.0, 3.4e38, -3.4e38, 0.5, -0.5]


def inputs():
    return np.concatenate([np.linspace(-12, 12, 4096, dtype=np.float32),
                           np.array(SPECIAL, dtype=np.float32)])


def ordered(values):
    bits = values.view(np.int32).astype(np.int64)
    return np.where(bits < 0, -(bits & 0x7FFFFFFF), bits)


def reference(function, x):
    out = []
    for value in x.astype(np.float64):
        try:
            out.append(function(value))
        except OverflowError:
            out.append(math.inf)
    with np.errstate(over="ignore"):
        return np.array(out).astype(np.float32)


if sys.argv[1] == "input":
    np.save(sys.argv[2], inputs())
    sys.exit()
x = inputs()
for name, function, path in zip(("erf", "exp", "tanh"),
                                (math.erf, math.exp, math.tanh), sys.argv[1:]):
    result, expected = np.load(path), reference(function, x)
    finite = np.isfinite(expected) & (np.abs(expected) >= 1.2e-38)
    ulps = np.abs(ordered(result[finite]) - ordered(expected[finite])).max()
    nonfinite = ~np.isfinite(expected)
    same = np.array_equal(result[nonfinite], expected[nonfinite],
                          equal_nan=True)
    print(f"{name}: max {ulps} ulp, non-finite {'same' if same else 'DIFFER'}")

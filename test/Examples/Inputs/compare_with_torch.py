"""Compares the outputs of Quanta's int8 model (one .npy per image) with
PyTorch's (one stacked .npy): prints how many are equal and the largest
difference, in steps of the output type (scale 1/256, the fixed qparams of
a quantized sigmoid)."""
import sys

import numpy as np

expected = np.load(sys.argv[1])
actual = np.stack([np.load(path) for path in sys.argv[2:]])
if actual.shape != expected.shape:
    sys.exit(f"shapes differ: {actual.shape} and {expected.shape}")
steps = np.abs(np.round((actual.astype(np.float64) - expected) * 256))
print(f"{int((steps == 0).sum())} of {steps.size} outputs equal, "
      f"max difference {int(steps.max())} steps")

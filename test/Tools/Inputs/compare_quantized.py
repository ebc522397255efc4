"""Compares two .npy files of quantized values (the integer and the float
path of the same function): prints how many are equal and the largest
difference in steps of the quantized type (LSB)."""
import sys

import numpy as np

integer, reference = (np.load(path).astype(np.int64) for path in sys.argv[1:3])
if integer.shape != reference.shape:
    sys.exit(f"shapes differ: {integer.shape} and {reference.shape}")
difference = np.abs(integer - reference)
print(f"{int((difference == 0).sum())} of {difference.size} equal, "
      f"max difference {int(difference.max())} LSB, "
      f"{len(np.unique(reference))} distinct values")

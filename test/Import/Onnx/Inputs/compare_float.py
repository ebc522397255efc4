"""Compares a float result with a reference (.npy files): prints whether
every element is within `tolerance` relative to the reference's largest
magnitude, and the largest such error."""
import sys

import numpy as np

result, reference = (np.load(path) for path in sys.argv[1:3])
tolerance = float(sys.argv[3]) if len(sys.argv) > 3 else 1e-5
if result.shape != reference.shape:
    sys.exit(f"shapes differ: {result.shape} and {reference.shape}")
error = np.abs(result.astype(np.float64) - reference).max() / \
    max(np.abs(reference).max(), 1e-30)
print(f"{'within' if error <= tolerance else 'NOT within'} {tolerance:g} "
      f"relative (max {error:.2e}) of {reference.size}")

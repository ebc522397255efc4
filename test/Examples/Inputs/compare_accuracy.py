"""Held-out accuracy of a float and an int8 model's logits (.npy) against
the labels, and whether int8 is within one point of float.

    compare_accuracy.py float.npy int8.npy labels.npy
"""
import sys

import numpy as np

float_logits, int8_logits, labels = (np.load(path) for path in sys.argv[1:4])
accuracy = [(logits.argmax(1) == labels).mean() * 100
            for logits in (float_logits, int8_logits)]
within = abs(accuracy[0] - accuracy[1]) <= 1.0
print(f"float {accuracy[0]:.2f}% int8 {accuracy[1]:.2f}%: "
      f"{'within' if within else 'NOT within'} 1 point")

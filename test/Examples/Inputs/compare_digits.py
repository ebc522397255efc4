"""Compares Quanta's int8 digits model with PyTorch 1.13's own PTQ of it
(examples/digits/torch_ptq_goldens.py): held-out accuracy of both, the
outputs in steps of the output scale, and, given Quanta's
--quanta-report-qparams output, whether the activation qparams (scale as
float32, zero point) are the same set as PyTorch's observers'.

    compare_digits.py golden.npz quanta_logits.npy labels.npy [qparams.txt]
"""
import re
import sys

import numpy as np

golden = np.load(sys.argv[1])
logits = np.load(sys.argv[2])
labels = np.load(sys.argv[3])
expected = golden["logits"]
if logits.shape != expected.shape:
    sys.exit(f"shapes differ: {logits.shape} and {expected.shape}")
accuracy = lambda x: (x.argmax(1) == labels).mean() * 100
print(f"accuracy: quanta {accuracy(logits):.2f}%, torch {accuracy(expected):.2f}%")
steps = np.round(np.abs(logits.astype(np.float64) - expected) /
                 float(golden["scale"])).astype(np.int64)
print(f"outputs: {int((steps == 0).sum())} of {steps.size} equal, max "
      f"difference {int(steps.max())} steps")
if len(sys.argv) > 4:
    quanta = set()
    for line in open(sys.argv[4]):
        match = re.match(r"(\S+): \S+ scale=\[([^\]]*)\] zero_point=\[([^\]]*)\]",
                         line)
        if match and not match.group(1).endswith(".weight"):
            quanta.add((np.float32(match.group(2)), int(match.group(3))))
    torch = {(np.float32(s), int(z)) for s, z in golden["activations"]}
    # A torch pair Quanta lacks is matched with Quanta's of the same zero
    # point and nearest scale, at a distance in float32 ulps.
    ulps = []
    for scale, zero in sorted(torch - quanta):
        candidates = [s for s, z in quanta - torch if z == zero]
        if not candidates:
            ulps.append(None)
            continue
        nearest = min(candidates, key=lambda s: abs(float(s) - float(scale)))
        ulps.append(abs(int(nearest.view(np.int32)) -
                        int(scale.view(np.int32))))
    print(f"activation qparams: {len(torch & quanta)} of {len(torch)} "
          f"distinct pairs identical" +
          "".join(f", 1 with a scale {u} float32 ulp(s) apart" if u is not None
                  else ", 1 with no counterpart" for u in ulps))

"""Writes one random float32 .npy per argument of every function of a
module: <prefix>.<function>.<argument index>.npy, shaped like the argument
(static tensor<...xf32> arguments only)."""
import re
import sys

import numpy as np

module, prefix = sys.argv[1:3]
rng = np.random.default_rng(11)
text = open(module).read()
for name, arguments in re.findall(r"func\.func @(\w+)\(([^)]*)\)", text):
    shapes = re.findall(r"tensor<([0-9x]+)xf32>", arguments)
    for index, shape in enumerate(shapes):
        dims = [int(d) for d in shape.split("x")]
        np.save(f"{prefix}.{name}.{index}.npy",
                (rng.standard_normal(dims) * 1.5).astype(np.float32))

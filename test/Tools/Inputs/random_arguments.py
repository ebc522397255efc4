"""Writes one random float32 .npy per argument of every function of a
module: <prefix>.<function>.<argument index>.npy, shaped like the argument
(static tensor<...xf32> arguments: normal, scaled by 1.5; tensor<...xi8>:
every value of int8 equally likely)."""
import re
import sys

import numpy as np

module, prefix = sys.argv[1:3]
rng = np.random.default_rng(11)
text = open(module).read()
for name, arguments in re.findall(r"func\.func @(\w+)\(([^)]*)\)", text):
    shapes = re.findall(r"tensor<([0-9x]+)x(f32|i8)>", arguments)
    for index, (shape, element) in enumerate(shapes):
        dims = [int(d) for d in shape.split("x")]
        values = ((rng.standard_normal(dims) * 1.5).astype(np.float32)
                  if element == "f32" else
                  rng.integers(-128, 128, dims).astype(np.int8))
        np.save(f"{prefix}.{name}.{index}.npy", values)

#!/usr/bin/env python3
"""Writes the Einsum models of test/Import/Onnx/einsum.mlir: one ONNX model
per equation (opset 13, float32 inputs), its inputs (.npz) and NumPy's
einsum of them in float64 as the expected output (ONNX defines Einsum as
numpy.einsum). Also einsum_bad_sizes.onnx, whose letter j has two sizes,
and einsum_bad_ellipsis.onnx, whose output drops a '...' of 2 dimensions.

    /usr/bin/python3 scripts/goldens/gen_einsum_models.py test/Import/Onnx/Inputs
"""
import os
import sys

import numpy as np
import onnx
from onnx import TensorProto, helper

CASES = [  # name, equation, input shapes
    ("attention", "bhqd,bhkd->bhqk", [(2, 3, 4, 5), (2, 3, 6, 5)]),
    ("batch_matmul", "bij, bjk -> bik", [(5, 2, 3), (5, 3, 4)]),
    ("transpose", "ij->ji", [(3, 4)]),
    ("sum", "ij->i", [(3, 4)]),
    ("diagonal", "...ii->...i", [(3, 5, 5)]),
    ("broadcast", "...ij,...jk->...ik", [(2, 1, 3, 4), (5, 4, 2)]),
    ("inner_implicit", "i,i", [(7,), (7,)]),
    ("matmul_implicit", "kj,ji", [(3, 4), (4, 2)]),
    ("chain", "ij,jk,kl->il", [(2, 3), (3, 4), (4, 5)]),
]


def model(equation, shapes, output_shape):
    names = [f"x{i}" for i in range(len(shapes))]
    node = helper.make_node("Einsum", names, ["y"], equation=equation,
                            name="einsum")
    graph = helper.make_graph(
        [node], "einsum",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, s)
         for n, s in zip(names, shapes)],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, output_shape)])
    return helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)])


def main():
    out = sys.argv[1]
    rng = np.random.default_rng(20261127)
    for name, equation, shapes in CASES:
        inputs = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        expected = np.einsum(equation.replace(" ", ""),
                             *[x.astype(np.float64) for x in inputs])
        onnx.save(model(equation, shapes, list(expected.shape)),
                  os.path.join(out, f"einsum_{name}.onnx"))
        np.savez(os.path.join(out, f"einsum_{name}_input.npz"), *inputs)
        np.save(os.path.join(out, f"einsum_{name}_expected.npy"),
                np.asarray(expected, dtype=np.float32))
    onnx.save(model("ij,jk->ik", [(2, 3), (4, 5)], [2, 5]),
              os.path.join(out, "einsum_bad_sizes.onnx"))
    # NumPy (and so ONNX) does not sum over '...': an output without it.
    onnx.save(model("...i->i", [(2, 3, 4)], [4]),
              os.path.join(out, "einsum_bad_ellipsis.onnx"))


if __name__ == "__main__":
    main()

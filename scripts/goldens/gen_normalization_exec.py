#!/usr/bin/env python3
"""Writes the quant-run execution tests of quanta-quantize's integer softmax
and layer norm: modules with the float ops between quant.dcast and
quant.qcast (linalg.softmax; layer norm as the ONNX importer translates
it), their 8-bit inputs (.npy) and expected outputs (.npy), the
expectation computed here in NumPy from the documented algorithms
(IntegerSoftmax and IntegerLayerNorm in
include/quanta/Numerics/IntegerKernels.h), independent of Quanta's C++.
Before writing, it checks every expected output against the float64
softmax or layer norm of the dequantized row, quantized: within one step.

Softmax (softmax_*): an exp table in 2^F units, exact integer row sums,
float32 row factor and rounding; x86's reduce_range u8<0:127> input along
the last dimension (attention), an s8 input along dimension 0 with an s8
output (PyTorch's qint8 fixed qparams), a ViT row of 197 and a single value
(1.0 clamps to 255). Layer norm (layer_norm_*): exact integer sums of
q - zi and its square, the statistics and each value in float32 in the
documented order; BERT's rows of 768 (u8<0:127>, with beta), s8 in and out
without beta, and a constant row (variance 0: epsilon alone).

    /usr/bin/python3 scripts/goldens/gen_normalization_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import short_float, write_exec_cases

STORAGE = {"u8": (0, 255), "u8<0:127>": (0, 127), "i8": (-128, 127)}

CASES = [  # name, shape, dimension, input storage, scale, zp, output
    ("attention", (2, 3, 128), 2, "u8<0:127>", 0.08, 64, "u8"),
    ("signed_axis0", (10, 6), 0, "i8", 0.3, -5, "i8"),
    ("vit_row", (1, 197), 1, "u8", 0.05, 130, "u8"),
    ("one", (1, 1), 1, "u8", 0.1, 0, "u8"),
]
OUTPUT_ZERO_POINT = {"u8": 0, "i8": -128}


def stored(values, kind):
    """Storage values as quant-run reads and writes them: int8."""
    return values.astype(np.int8 if kind == "i8" else np.uint8).view(np.int8)


def integer_softmax(q, dimension, s_in, s_out, zo, lo, hi):
    n = q.shape[dimension]
    bits = 24
    while n << bits > 2**31 - 1:
        bits -= 1
    s_in = float(np.float32(s_in))
    table = np.rint(np.exp(-s_in * np.arange(256)) * 2.0**bits).astype(np.int64)
    e = table[q.max(axis=dimension, keepdims=True) - q]
    total = e.sum(axis=dimension, keepdims=True)
    assert total.max() <= 2**31 - 1
    factor = np.float32(1) / (total.astype(np.float32) * np.float32(s_out))
    y = np.rint(e.astype(np.float32) * factor) + np.float32(zo)
    return np.clip(y, lo, hi).astype(np.int64)


def case(rng, name, shape, dimension, storage, s_in, zi, out_storage):
    lo, hi = STORAGE[storage]
    q = rng.integers(lo, hi + 1, size=shape)
    q.flat[0] = hi
    q.flat[-1] = lo
    s_out, zo = 1.0 / 256, OUTPUT_ZERO_POINT[out_storage]
    olo, ohi = STORAGE[out_storage]
    out = integer_softmax(q, dimension, s_in, s_out, zo, olo, ohi)

    x = (q - zi) * float(np.float32(s_in))
    x = np.exp(x - x.max(axis=dimension, keepdims=True))
    real = np.clip(x / x.sum(axis=dimension, keepdims=True) / s_out + zo, olo,
                   ohi)
    assert np.abs(out - real).max() <= 1.0, name
    print(f"softmax {name}: {np.mean(out == np.rint(real)):.4f} of the "
          "outputs equal to the rounded float softmax, the rest one step away")

    it = f"!quant.uniform<{storage}:f32, {s_in}:{zi}>"
    ot = f"!quant.uniform<{out_storage}:f32, {s_out}:{zo}>"
    dims = "x".join(map(str, shape))
    func = f"""
func.func @{name}(%a: tensor<{dims}xi8>) -> tensor<{dims}xi8> {{
  %q = quant.scast %a : tensor<{dims}xi8> to tensor<{dims}x{it}>
  %x = quant.dcast %q : tensor<{dims}x{it}> to tensor<{dims}xf32>
  %e = tensor.empty() : tensor<{dims}xf32>
  %s = linalg.softmax dimension({dimension}) ins(%x : tensor<{dims}xf32>) outs(%e : tensor<{dims}xf32>) -> tensor<{dims}xf32>
  %r = quant.qcast %s : tensor<{dims}xf32> to tensor<{dims}x{ot}>
  %o = quant.scast %r : tensor<{dims}x{ot}> to tensor<{dims}xi8>
  return %o : tensor<{dims}xi8>
}}
"""

    return func, stored(q, storage), stored(out, out_storage)


LAYER_NORM_CASES = [  # name, shape, input storage, scale, zp, output, beta
    ("bert", (2, 5, 768), "u8<0:127>", 0.07, 62, "u8<0:127>", True),
    ("signed", (3, 40), "i8", 0.03, -4, "i8", False),
    ("constant_row", (1, 16), "u8", 0.1, 9, "u8", True),
]
LAYER_NORM_OUTPUT = {"u8<0:127>": (0.066, 62), "i8": (0.04, 1), "u8": (0.05, 128)}
EPSILON = 1e-5


def integer_layer_norm(q, zi, s_in, gamma, beta, s_out, zo, lo, hi):
    f32 = np.float32
    n = q.shape[-1]
    c = q - zi
    total = c.sum(axis=-1, keepdims=True)
    squares = (c * c).sum(axis=-1, keepdims=True)
    spread = n * squares - total * total
    mean = total.astype(f32) / f32(n)
    variance = spread.astype(f32) / f32(n * n)
    scaled = variance * (f32(s_in) * f32(s_in))
    factor = f32(s_in) / np.sqrt(scaled + f32(EPSILON))
    y = (c.astype(f32) - mean) * factor * gamma
    if beta is not None:
        y = y + beta
    out = np.rint(y * (f32(1) / f32(s_out))) + f32(zo)
    return np.clip(out, lo, hi).astype(np.int64)


def layer_norm_case(rng, name, shape, storage, s_in, zi, out_storage,
                    has_beta):
    lo, hi = STORAGE[storage]
    q = rng.integers(lo, hi + 1, size=shape)
    if name == "constant_row":
        q[:] = 77
    s_out, zo = LAYER_NORM_OUTPUT[out_storage]
    olo, ohi = STORAGE[out_storage]
    n = shape[-1]
    gamma = rng.normal(1.0, 0.3, n).astype(np.float32)
    beta = rng.normal(0.0, 0.3, n).astype(np.float32) if has_beta else None
    out = integer_layer_norm(q, zi, s_in, gamma, beta, s_out, zo, olo, ohi)

    x = (q - zi) * float(np.float32(s_in))
    centred = x - x.mean(axis=-1, keepdims=True)
    y = centred / np.sqrt((centred ** 2).mean(axis=-1, keepdims=True)
                          + np.float32(EPSILON)) * gamma
    if beta is not None:
        y = y + beta
    real = np.clip(y / s_out + zo, olo, ohi)
    assert np.abs(out - real).max() <= 1.0, name
    print(f"layer norm {name}: {np.mean(out == np.rint(real)):.4f} of the "
          "outputs equal to the rounded float layer norm, the rest one step "
          "away")

    it = f"!quant.uniform<{storage}:f32, {s_in}:{zi}>"
    ot = f"!quant.uniform<{out_storage}:f32, {s_out}:{zo}>"
    rank = len(shape)
    dims = "x".join(map(str, shape))
    rows = "x".join(map(str, shape[:-1]))
    kept = rows + "x1"
    d = ", ".join(f"d{i}" for i in range(rank))
    identity = f"affine_map<({d}) -> ({d})>"
    row = f"affine_map<({d}) -> ({', '.join(f'd{i}' for i in range(rank - 1))})>"
    bcast = (f"affine_map<({d}) -> "
             f"({', '.join(f'd{i}' for i in range(rank - 1))}, 0)>")
    column = f"affine_map<({d}) -> (d{rank - 1})>"
    reassociation = ", ".join(f"[{i}]" for i in range(rank - 2))
    reassociation = (reassociation + ", " if reassociation else "") + \
        f"[{rank - 2}, {rank - 1}]"
    par = ", ".join(['"parallel"'] * rank)
    red = ", ".join(['"parallel"'] * (rank - 1) + ['"reduction"'])

    def floats(values):
        return ", ".join(short_float(v) for v in values)

    weights = [f"%gamma = arith.constant dense<[{floats(gamma)}]> : "
               f"tensor<{n}xf32>"]
    if beta is not None:
        weights.append(f"%beta = arith.constant dense<[{floats(beta)}]> : "
                       f"tensor<{n}xf32>")
    affine_ins = "%c, %inv, %gamma" + (", %beta" if beta is not None else "")
    affine_types = (f"tensor<{dims}xf32>, tensor<{kept}xf32>, "
                    f"tensor<{n}xf32>" +
                    (f", tensor<{n}xf32>" if beta is not None else ""))
    affine_maps = (f"{identity}, {bcast}, {column}" +
                   (f", {column}" if beta is not None else "") +
                   f", {identity}")
    affine_args = ("%v: f32, %r: f32, %g: f32" +
                   (", %b: f32" if beta is not None else "") + ", %o: f32")
    affine_body = ("    %m1 = arith.mulf %v, %r : f32\n"
                   "    %m2 = arith.mulf %m1, %g : f32\n" +
                   ("    %m3 = arith.addf %m2, %b : f32\n"
                    "    linalg.yield %m3 : f32" if beta is not None else
                    "    linalg.yield %m2 : f32"))

    def mean(name, of):
        return f"""  %{name}_sum = linalg.generic {{indexing_maps = [{identity}, {row}], iterator_types = [{red}]}} ins(%{of} : tensor<{dims}xf32>) outs(%zeros : tensor<{rows}xf32>) {{
  ^bb0(%in: f32, %acc: f32):
    %t = arith.addf %in, %acc : f32
    linalg.yield %t : f32
  }} -> tensor<{rows}xf32>
  %{name}_kept = tensor.expand_shape %{name}_sum [{reassociation}] output_shape [{", ".join(map(str, shape[:-1]))}, 1] : tensor<{rows}xf32> into tensor<{kept}xf32>"""

    func = f"""
func.func @{name}(%a: tensor<{dims}xi8>) -> tensor<{dims}xi8> {{
  %q = quant.scast %a : tensor<{dims}xi8> to tensor<{dims}x{it}>
  %x = quant.dcast %q : tensor<{dims}x{it}> to tensor<{dims}xf32>
  %zero = arith.constant 0.0 : f32
  %count = arith.constant {short_float(n)} : f32
  %eps = arith.constant {short_float(EPSILON)} : f32
  %one = arith.constant 1.0 : f32
  {chr(10).join("  " + w for w in weights).strip()}
  %er = tensor.empty() : tensor<{rows}xf32>
  %zeros = linalg.fill ins(%zero : f32) outs(%er : tensor<{rows}xf32>) -> tensor<{rows}xf32>
  %ek = tensor.empty() : tensor<{kept}xf32>
  %e = tensor.empty() : tensor<{dims}xf32>
{mean("mu", "x")}
  %mu = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{par}]}} ins(%mu_kept : tensor<{kept}xf32>) outs(%ek : tensor<{kept}xf32>) {{
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    linalg.yield %m : f32
  }} -> tensor<{kept}xf32>
  %c = linalg.generic {{indexing_maps = [{identity}, {bcast}, {identity}], iterator_types = [{par}]}} ins(%x, %mu : tensor<{dims}xf32>, tensor<{kept}xf32>) outs(%e : tensor<{dims}xf32>) {{
  ^bb0(%v: f32, %m: f32, %o: f32):
    %s = arith.subf %v, %m : f32
    linalg.yield %s : f32
  }} -> tensor<{dims}xf32>
  %c2 = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{par}]}} ins(%c : tensor<{dims}xf32>) outs(%e : tensor<{dims}xf32>) {{
  ^bb0(%v: f32, %o: f32):
    %s = arith.mulf %v, %v : f32
    linalg.yield %s : f32
  }} -> tensor<{dims}xf32>
{mean("var", "c2")}
  %inv = linalg.generic {{indexing_maps = [{identity}, {identity}], iterator_types = [{par}]}} ins(%var_kept : tensor<{kept}xf32>) outs(%ek : tensor<{kept}xf32>) {{
  ^bb0(%in: f32, %o: f32):
    %m = arith.divf %in, %count : f32
    %p = arith.addf %m, %eps : f32
    %r = math.sqrt %p : f32
    %i = arith.divf %one, %r : f32
    linalg.yield %i : f32
  }} -> tensor<{kept}xf32>
  %y = linalg.generic {{indexing_maps = [{affine_maps}], iterator_types = [{par}]}} ins({affine_ins} : {affine_types}) outs(%e : tensor<{dims}xf32>) {{
  ^bb0({affine_args}):
{affine_body}
  }} -> tensor<{dims}xf32>
  %r = quant.qcast %y : tensor<{dims}xf32> to tensor<{dims}x{ot}>
  %o = quant.scast %r : tensor<{dims}x{ot}> to tensor<{dims}xi8>
  return %o : tensor<{dims}xi8>
}}
"""

    return func, stored(q, storage), stored(out, out_storage)


def main():
    script = "gen_normalization_exec.py"
    write_exec_cases(sys.argv[1], "softmax", case, CASES, 20261128, script)
    write_exec_cases(sys.argv[1], "layer_norm", layer_norm_case,
                     LAYER_NORM_CASES, 20261128, script)


if __name__ == "__main__":
    main()

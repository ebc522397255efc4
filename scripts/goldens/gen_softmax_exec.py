#!/usr/bin/env python3
"""Writes the quant-run execution test of quanta-quantize's integer softmax:
a module with float softmaxes between quant.dcast and quant.qcast, their
8-bit inputs (.npy) and expected outputs (.npy), the expectation computed
here in NumPy from the documented algorithm (IntegerSoftmax in
include/quanta/Numerics/IntegerKernels.h: an exp table in 2^F units, exact
integer row sums, float32 row factor and rounding), independent of
Quanta's C++. Before writing, it checks every expected output against the
float64 softmax of the dequantized row, quantized: within one step.
Cases: x86's reduce_range u8<0:127> input along the last dimension
(attention), an s8 input along dimension 0 with an s8 output (PyTorch's
qint8 fixed qparams), a ViT row of 197 and a single value (1.0 clamps to
255).

    /usr/bin/python3 scripts/goldens/gen_softmax_exec.py test/Tools/Inputs
"""
import sys

import numpy as np

from mlir_literals import write_exec_cases

STORAGE = {"u8": (0, 255), "u8<0:127>": (0, 127), "i8": (-128, 127)}

CASES = [  # name, shape, dimension, input storage, scale, zp, output
    ("attention", (2, 3, 128), 2, "u8<0:127>", 0.08, 64, "u8"),
    ("signed_axis0", (10, 6), 0, "i8", 0.3, -5, "i8"),
    ("vit_row", (1, 197), 1, "u8", 0.05, 130, "u8"),
    ("one", (1, 1), 1, "u8", 0.1, 0, "u8"),
]
OUTPUT_ZERO_POINT = {"u8": 0, "i8": -128}


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
    print(f"{name}: {np.mean(out == np.rint(real)):.4f} of the outputs equal "
          "to the rounded float softmax, the rest one step away")

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

    def stored(values, kind):
        return values.astype(np.int8 if kind == "i8" else np.uint8).view(
            np.int8)

    # quant-run reads and writes i8 storage as int8.
    return func, stored(q, storage), stored(out, out_storage)


def main():
    write_exec_cases(sys.argv[1], "softmax", case, CASES, 20261128)


if __name__ == "__main__":
    main()

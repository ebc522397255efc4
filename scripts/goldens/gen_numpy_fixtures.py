#!/usr/bin/env python3
"""Writes the .npy/.npz fixtures of unittests/Runtime with the real numpy.

Run once with Debian's Python: /usr/bin/python3 scripts/goldens/gen_numpy_fixtures.py
"""
import io
import os

import numpy as np

OUT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "unittests", "Runtime", "data")
os.makedirs(OUT, exist_ok=True)
values = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5


def write(name, array, version=None):
    with open(os.path.join(OUT, name), "wb") as f:
        np.lib.format.write_array(f, array, version=version)


write("f32_v1.npy", values, (1, 0))
write("f32_v2.npy", values, (2, 0))
write("f32_v3.npy", values, (3, 0))
write("f32_scalar.npy", np.float32(7.5).reshape(()), (1, 0))
write("f32_empty.npy", np.zeros((0, 4), np.float32), (1, 0))
write("f64.npy", values.astype(np.float64), (1, 0))
write("u8.npy", np.arange(5, dtype=np.uint8), (1, 0))
write("fortran.npy", np.asfortranarray(values), (1, 0))
write("big_endian.npy", values.astype(">f4"), (1, 0))
with open(os.path.join(OUT, "f32_v1.npy"), "rb") as f:
    whole = f.read()
with open(os.path.join(OUT, "truncated.npy"), "wb") as f:
    f.write(whole[:-4])
with open(os.path.join(OUT, "bad_magic.npy"), "wb") as f:
    f.write(b"\x93NUMPX" + whole[6:])
with open(os.path.join(OUT, "bad_version.npy"), "wb") as f:
    f.write(whole[:6] + b"\x04\x00" + whole[8:])
np.savez(os.path.join(OUT, "stored.npz"), x=values, y=np.arange(3, dtype=np.float32))
np.savez_compressed(os.path.join(OUT, "compressed.npz"), values, values * 2)
# numpy.savez() of nothing: only the end of the central directory.
np.savez(os.path.join(OUT, "empty.npz"))

"""Runs the observers of calibrate-histogram-methods.mlir through the Python
binding on the same batches and prints qparams as quanta-report-qparams does.
Reads the float32 .npy batches without numpy (not needed by the tests)."""
import array
import ast
import os
import sys

import quanta


def read_npy(path):
    with open(path, "rb") as f:
        data = f.read()
    header_length = int.from_bytes(data[8:10], "little")
    header = ast.literal_eval(data[10:10 + header_length].decode("latin1"))
    assert header["descr"] == "<f4" and not header["fortran_order"]
    values = array.array("f")
    values.frombytes(data[10 + header_length:])
    return values


batches = [read_npy(os.path.join(sys.argv[1], "x%d.npy" % i)) for i in range(5)]
for name, options in (("pytorch", {}), ("entropy", {"calibration": "entropy"}),
                      ("percentile", {"calibration": "percentile", "percentile": 99.0}),
                      ("mse", {"calibration": "mse"})):
    observer = quanta.HistogramObserver(bins=256, **options)
    for batch in batches:
        observer(batch)
    scale, zero_point = observer.calculate_qparams()
    print("%s: HistogramObserver scale=[%s] zero_point=[%s]" % (
        name, ", ".join("%.9g" % s for s in scale),
        ", ".join(str(z) for z in zero_point)))

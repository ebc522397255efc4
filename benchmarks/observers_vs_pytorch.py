#!/usr/bin/env python3
"""Observer throughput of Quanta's numeric library against PyTorch 1.13.

Feeds the same float32 batches to PyTorch's observers and to Quanta's (the
C++ library through the `quanta` binding), side by side in one process, and
prints per observer family the throughput of each, their ratio, and whether
the qparams are bit-identical. Needs Debian's numpy and torch:

    apt-get install python3-numpy python3-torch
    PYTHONPATH=build/python_packages /usr/bin/python3 benchmarks/observers_vs_pytorch.py

This is a program to read, not a test: timings on a shared machine are
noisy, which is why both sides run interleaved in the same run.
"""
import argparse
import struct
import time

import numpy as np
import torch
from torch.ao.quantization import observer as tq

import quanta

torch.set_num_threads(1)

FAMILIES = [
    ("MinMaxObserver", tq.MinMaxObserver, quanta.MinMaxObserver, {}),
    ("MovingAverageMinMaxObserver", tq.MovingAverageMinMaxObserver,
     quanta.MovingAverageMinMaxObserver, {}),
    ("PerChannelMinMaxObserver", tq.PerChannelMinMaxObserver,
     quanta.PerChannelMinMaxObserver, {"ch_axis": 1}),
    ("MovingAveragePerChannelMinMaxObserver",
     tq.MovingAveragePerChannelMinMaxObserver,
     quanta.MovingAveragePerChannelMinMaxObserver, {"ch_axis": 1}),
    ("HistogramObserver", tq.HistogramObserver, quanta.HistogramObserver, {}),
]


def run(observer, batches, to_input):
    start = time.perf_counter()
    for batch in batches:
        observer(to_input(batch))
    qparams = observer.calculate_qparams()
    return time.perf_counter() - start, qparams


def as_lists(qparams):
    scale, zero_point = qparams
    if isinstance(scale, torch.Tensor):
        return scale.tolist(), zero_point.tolist()
    return list(scale), list(zero_point)


def identical(a, b):
    (sa, za), (sb, zb) = as_lists(a), as_lists(b)
    bits = lambda values: [struct.pack("<f", v) for v in values]
    return bits(sa) == bits(sb) and [int(z) for z in za] == [int(z) for z in zb]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 22,
                        help="float32 values per batch (default 4M)")
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3,
                        help="best of N runs per side")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    channels = 64
    batches = [(rng.standard_normal((args.elements // channels, channels))
                * (1 + i)).astype(np.float32) for i in range(args.batches)]
    gigabytes = sum(b.nbytes for b in batches) / 1e9

    print("%d batches of %d float32 (%.2f GB in all), one thread"
          % (args.batches, args.elements, gigabytes))
    print("%-40s %12s %12s %8s %s" % ("observer", "torch GB/s", "quanta GB/s",
                                       "ratio", "qparams"))
    for name, torch_cls, quanta_cls, kwargs in FAMILIES:
        torch_time = quanta_time = float("inf")
        for _ in range(args.repeats):
            t, torch_qparams = run(torch_cls(**kwargs), batches, torch.from_numpy)
            torch_time = min(torch_time, t)
            t, quanta_qparams = run(quanta_cls(**kwargs), batches, lambda b: b)
            quanta_time = min(quanta_time, t)
        print("%-40s %12.2f %12.2f %7.1fx %s" % (
            name, gigabytes / torch_time, gigabytes / quanta_time,
            torch_time / quanta_time,
            "identical" if identical(torch_qparams, quanta_qparams) else "DIFFERENT"))


if __name__ == "__main__":
    main()

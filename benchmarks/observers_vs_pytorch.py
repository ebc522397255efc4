#!/usr/bin/env python3
"""Observer throughput of Quanta's numeric library against PyTorch 1.13.

Feeds the same float32 batches to PyTorch's observers and to Quanta's (the
C++ library through the `quanta` binding), side by side in one process, and
prints per observer family the throughput of each, their ratio, Quanta's
share of the single-core streaming read bandwidth, and whether the qparams
are bit-identical. Needs Debian's numpy and torch:

    apt-get install python3-numpy python3-torch
    PYTHONPATH=build/python_packages /usr/bin/python3 benchmarks/observers_vs_pytorch.py

The bandwidth is measured in the same run, over the same batches (so from
the same level of the memory hierarchy as the observers read them): the
faster of numpy's add.reduce over their uint64 view and maximum.reduce over
their int32 view, both one thread of integer loads bound by memory, not by
arithmetic. --dram-gb also streams a fresh array of that size, for the
bandwidth from DRAM when the batches fit in the last-level cache.

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
]


def as_uint64(array):
    """The float32 array's bytes as uint64 (an odd last element left out)."""
    flat = array.reshape(-1)
    return flat[:flat.size // 2 * 2].view(np.uint64)


def warm(batches, passes=3):
    """Reads the batches a few times: the large temporaries of the previous
    run (PyTorch's per-channel copies, for instance) push them out of the
    last-level cache, and a single pass does not bring them all back."""
    for _ in range(passes):
        for batch in batches:
            np.add.reduce(as_uint64(batch))


def run(observer, batches, to_input):
    # Both sides start with the batches as warm as for the bandwidth
    # measurement.
    warm(batches)
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


def read_bandwidth(arrays, repeats):
    """Best single-thread read rate (GB/s) over `arrays` and its method."""
    nbytes = sum(a.nbytes for a in arrays)
    methods = [
        ("np.add.reduce(uint64 view)", lambda a: np.add.reduce(as_uint64(a))),
        ("np.maximum.reduce(int32 view)",
         lambda a: np.maximum.reduce(a.reshape(-1).view(np.int32))),
    ]
    best = (0.0, "")
    for name, reduce in methods:
        for _ in range(repeats):
            start = time.perf_counter()
            for a in arrays:
                reduce(a)
            best = max(best, (nbytes / (time.perf_counter() - start) / 1e9,
                              name))
    return best


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elements", type=int, default=1 << 22,
                        help="float32 values per batch (default 4M)")
    parser.add_argument("--batches", type=int, default=4)
    parser.add_argument("--repeats", type=int, default=3,
                        help="best of N runs per side")
    parser.add_argument("--dram-gb", type=float, default=0,
                        help="also measure the read bandwidth over a fresh "
                        "array of this many GB")
    args = parser.parse_args()

    rng = np.random.default_rng(0)
    channels = 64
    # The range doubles, triples, ... from batch to batch: every batch
    # merges the running histogram into a wider one.
    batches = [(rng.standard_normal((args.elements // channels, channels))
                * (1 + i)).astype(np.float32) for i in range(args.batches)]
    # Draws from one distribution, as calibration data usually is: after the
    # first batch the range rarely moves.
    stationary = [rng.standard_normal((args.elements // channels, channels))
                  .astype(np.float32) for _ in range(args.batches)]
    gigabytes = sum(b.nbytes for b in batches) / 1e9

    print("%d batches of %d float32 (%.2f GB in all), one thread"
          % (args.batches, args.elements, gigabytes))
    bandwidth, method = read_bandwidth(batches, max(args.repeats, 5))
    print("single-core streaming read over the batches: %.2f GB/s (%s)"
          % (bandwidth, method))
    if args.dram_gb > 0:
        big = np.ones(int(args.dram_gb * 1e9) // 8, dtype=np.uint64)
        print("single-core streaming read over %.2f GB: %.2f GB/s (%s)"
              % ((big.nbytes / 1e9,) + read_bandwidth([big], 3)))
        del big
    print("%-41s %10s %11s %7s %9s %s" % (
        "observer", "torch GB/s", "quanta GB/s", "ratio", "quanta/bw",
        "qparams"))
    histogram = (tq.HistogramObserver, quanta.HistogramObserver, {})
    rows = [(name, batches) + tuple(rest) for name, *rest in FAMILIES]
    rows += [("HistogramObserver, range growing", batches) + histogram,
             ("HistogramObserver, one distribution", stationary) + histogram]
    for name, data, torch_cls, quanta_cls, kwargs in rows:
        torch_time = quanta_time = float("inf")
        for _ in range(args.repeats):
            t, torch_qparams = run(torch_cls(**kwargs), data, torch.from_numpy)
            torch_time = min(torch_time, t)
            t, quanta_qparams = run(quanta_cls(**kwargs), data, lambda b: b)
            quanta_time = min(quanta_time, t)
        print("%-41s %10.2f %11.2f %6.1fx %8.0f%% %s" % (
            name, gigabytes / torch_time, gigabytes / quanta_time,
            torch_time / quanta_time,
            100 * gigabytes / quanta_time / bandwidth,
            "identical" if identical(torch_qparams, quanta_qparams) else "DIFFERENT"))


if __name__ == "__main__":
    main()

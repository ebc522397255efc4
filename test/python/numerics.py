# The Python binding computes what the C++ library (and so the passes)
# computes: PyTorch 1.13's goldens, bit for bit, without torch installed.
# RUN: %python %s %quanta_src_root/unittests/Numerics/goldens | FileCheck %s

# CHECK: calculate_qparams: {{[1-9][0-9]*}} cases match, 0 mismatches
# CHECK: calculate_qparams errors: {{[1-9][0-9]*}} rejected, 0 accepted
# CHECK: HistogramObserver: {{[1-9][0-9]*}} runs match, 0 mismatches
# CHECK: HistogramObserver errors: {{[1-9][0-9]*}} rejected, 0 accepted
# CHECK: options: ok

import array
import math
import os
import struct
import sys

import quanta
import quanta.goldens

GOLDENS = sys.argv[1]


def read_goldens(name):
    return quanta.goldens.read_cases(os.path.join(GOLDENS, name))


def f32(token):
    return struct.unpack("<f", struct.pack("<f", float.fromhex(token)))[0]


def same_float(a, b):
    return struct.pack("<f", a) == struct.pack("<f", b)


def options(case):
    opt = lambda key: None if case[key][0] == "none" else int(case[key][0])
    return dict(dtype=case["dtype"][0], qscheme=case["qscheme"][0],
                reduce_range=case["reduce_range"][0] == "1",
                quant_min=opt("quant_min"), quant_max=opt("quant_max"),
                eps=f32(case["eps"][0]))


# calculate_qparams on every per-tensor (min, max) pair of the goldens.
matched = mismatched = rejected = accepted = 0
for case in read_goldens("qparams.txt"):
    if case["qscheme"][0].startswith("per_channel") or "ok" not in case:
        continue
    for i, ok in enumerate(case["ok"]):
        lo, hi = f32(case["min"][i]), f32(case["max"][i])
        try:
            scale, zero_point = quanta.calculate_qparams([lo], [hi], **options(case))
        except ValueError:
            if ok == "1":
                mismatched += 1
            else:
                rejected += 1
            continue
        if ok != "1":
            accepted += 1
        elif (same_float(scale[0], f32(case["scale"][i]))
              and zero_point[0] == int(case["zero_point"][i])):
            matched += 1
        else:
            mismatched += 1
print("calculate_qparams: %d cases match, %d mismatches" % (matched, mismatched))
print("calculate_qparams errors: %d rejected, %d accepted" % (rejected, accepted))

# HistogramObserver runs, batch by batch, through the Python observer class.
matched = mismatched = rejected = accepted = 0
for case in read_goldens("histogram_observer.txt"):
    obs = quanta.HistogramObserver(bins=int(case["bins"][0]),
                                   upsample_rate=int(case["upsample_rate"][0]),
                                   exact_histc_range=case["exact_histc_range"][0] == "1",
                                   **options(case))
    try:
        for b in range(int(case["batches"][0])):
            obs(array.array("f", [f32(t) for t in case.get("batch_%d" % b, [])]))
        scale, zero_point = obs.calculate_qparams()
    except ValueError:
        if "error_batch" in case:
            rejected += 1
        else:
            mismatched += 1
        continue
    if "error_batch" in case:
        accepted += 1
    elif same_float(scale[0], f32(case["scale"][0])) and zero_point[0] == int(case["zero_point"][0]):
        matched += 1
    else:
        mismatched += 1
print("HistogramObserver: %d runs match, %d mismatches" % (matched, mismatched))
print("HistogramObserver errors: %d rejected, %d accepted" % (rejected, accepted))

# Option validation and ranges behave as PyTorch's constructors.
assert quanta.qrange("qint8", reduce_range=True) == (-64, 63)
assert quanta.qrange("quint8", quant_min=0, quant_max=255, reduce_range=True) == (0, 127)
for bad in (dict(quant_min=1, quant_max=10), dict(qscheme="per_tensor_symmetric", reduce_range=True)):
    try:
        quanta.validate_observer("MinMaxObserver", **bad)
        raise AssertionError("accepted %r" % bad)
    except ValueError:
        pass
try:
    quanta.MinMaxObserver()(array.array("d", [1.0]))
    raise AssertionError("accepted a float64 buffer")
except TypeError:
    pass
print("options: ok")

"""Runs a command twice, with data={data} replaced by a few and by many
.npy batches, and prints whether the peak resident memory of the second
run stays within 8 MiB of the first's (the batches are distinct files of
the same shape, 64 KiB each).

    peak_rss.py <workdir> <few> <many> <command...>
"""
import os
import resource
import subprocess
import sys

import numpy as np

workdir, few, many, command = (sys.argv[1], int(sys.argv[2]),
                               int(sys.argv[3]), sys.argv[4:])
os.makedirs(workdir, exist_ok=True)
rng = np.random.default_rng(0)
paths = []
for index in range(many):
    path = os.path.join(workdir, f"batch{index}.npy")
    np.save(path, rng.standard_normal((64, 256)).astype(np.float32))
    paths.append(path)


def peak_kib(count):
    data = ",".join(paths[:count])
    argv = [arg.replace("{data}", data) for arg in command]
    # Each measurement in a child of its own: RUSAGE_CHILDREN is the
    # largest peak of any waited-for child.
    code = ("import resource, subprocess, sys; "
            "subprocess.run(sys.argv[1:], check=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)")
    result = subprocess.run([sys.executable, "-c", code] + argv, check=True,
                            capture_output=True, text=True)
    return int(result.stdout.split()[-1])


small, large = peak_kib(few), peak_kib(many)
verdict = "within" if large - small <= 8 * 1024 else "NOT within"
print(f"peak RSS of {many} batches {verdict} 8 MiB of {few} batches "
      f"({large} KiB against {small} KiB)")

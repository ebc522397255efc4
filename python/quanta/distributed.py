"""Calibration sharded over a Dask cluster.

    >>> from dask.distributed import Client
    >>> client = Client("tcp://scheduler:8786")      # or LocalCluster()
    >>> shards = [lambda i=i: load_shard(i) for i in range(64)]
    >>> quanta.calibrate_distributed(model, shards, client)

The observed module travels to the workers as text; each worker calibrates
one shard through its own JIT and returns the observers' statistics (the
quanta-statistics JSON of quanta-export-statistics), which are merged into
`model` by quanta-import-statistics: the same merge as for files, exact for
min/max observers, PyTorch's histogram combination for HistogramObserver.
Moving averages depend on the order of the batches and cannot be merged:
such a module is refused (calibrate the shards in turn instead, or use the
file path below).

Clusters without Dask (a Slurm job array) use the same steps through files:
every task runs
    quant-opt observed.mlir --quanta-calibrate=data=<its shard> \\
        --quanta-export-statistics=file=stats.$SLURM_ARRAY_TASK_ID.json
and one final step
    quant-opt observed.mlir --quanta-import-statistics=files=stats.*.json
"""

import os
import tempfile

__all__ = ["calibrate_distributed"]


def _export_statistics(module):
    with tempfile.TemporaryDirectory() as directory:
        path = os.path.join(directory, "statistics.json")
        module.run_pipeline("builtin.module(quanta-export-statistics{file=%s})"
                            % path)
        with open(path) as f:
            return f.read()


def _calibrate_shard(text, shard, options):
    """On a worker: calibrates `shard` (batches, or a callable returning
    them) from the observed module `text`; returns its statistics."""
    from .compiler import Module

    module = Module.parse(text, "observed module")
    batches = shard() if callable(shard) else shard
    module.calibrate(batches, progress=False, **options)
    return _export_statistics(module)


def calibrate_distributed(module, shards, client, **options):
    """Calibrates the observed `module` on `shards` with the workers of the
    dask.distributed `client`, one task per shard, and sets the merged
    statistics on `module` (which is returned).

    A shard is an iterable of batches (as for Module.calibrate, sent to the
    worker) or a callable that returns one on the worker (e.g. reading the
    shard's files there, so no data crosses the network). `options` are
    Module.calibrate's (entry, batch_limit, threads, float_kernels).
    Raises quanta.Error where a shard's calibration or the merge fails.
    """
    text = module.to_text(debug_info=True)
    futures = [client.submit(_calibrate_shard, text, shard, options,
                             pure=False) for shard in shards]
    if not futures:
        raise ValueError("calibrate_distributed: no shards")
    statistics = client.gather(futures)
    with tempfile.TemporaryDirectory() as directory:
        paths = []
        for index, contents in enumerate(statistics):
            path = os.path.join(directory, "shard%d.json" % index)
            with open(path, "w") as f:
                f.write(contents)
            paths.append(path)
        module.run_pipeline(
            "builtin.module(quanta-import-statistics{files=%s})"
            % ",".join(paths))
    return module

"""calibrate_distributed on a real Dask cluster: a LocalCluster of two
worker processes on loopback."""

import logging

import pytest
from distributed import Client, LocalCluster

import quanta

MOVING_AVERAGE = ("#quanta.qconfig<activation = #quanta.moving_average_min_max"
                  "<reduce_range = true>, weight = #quanta.min_max<dtype = "
                  "qint8, qscheme = per_tensor_symmetric>>")


@pytest.fixture(scope="module")
def client():
    cluster = LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                           host="127.0.0.1", dashboard_address=None,
                           silence_logs=logging.ERROR)
    client = Client(cluster)
    yield client
    client.close()
    cluster.close()


def observed(tiny_cnn, qconfig):
    module = quanta.Module.load(str(tiny_cnn))
    module.prepare(qconfig=qconfig)
    return module


def shards_of(batches):
    return [batches[:3], batches[3:5], batches[5:]]


def test_min_max_merge_equals_one_process(client, tiny_cnn,
                                          calibration_batches):
    """Min/max statistics merge exactly: the same qparams as calibrating
    every batch in one process."""
    single = observed(tiny_cnn, "default")
    single.calibrate(calibration_batches, progress=False)
    sharded = observed(tiny_cnn, "default")
    quanta.calibrate_distributed(sharded, shards_of(calibration_batches),
                                 client)
    for module in (single, sharded):
        module.convert()
    assert str(sharded) == str(single)
    assert "quant.uniform" in str(single)


def test_histograms_merge_as_files_do(client, tiny_cnn, calibration_batches,
                                      tmp_path):
    """Histograms combine as PyTorch's HistogramObserver does (not exactly
    the one-process histogram): the workers' result equals the file path of
    quanta-export-statistics/quanta-import-statistics in this process."""
    shards = shards_of(calibration_batches)
    sharded = observed(tiny_cnn, "x86")
    # Shards given as callables run on the workers.
    quanta.calibrate_distributed(
        sharded, [lambda shard=shard: iter(shard) for shard in shards], client)
    local = observed(tiny_cnn, "x86")
    files = []
    for index, shard in enumerate(shards):
        module = local.clone()
        module.calibrate(shard, progress=False)
        path = tmp_path / ("shard%d.json" % index)
        module.run_pipeline(
            "builtin.module(quanta-export-statistics{file=%s})" % path)
        files.append(str(path))
    local.run_pipeline("builtin.module(quanta-import-statistics{files=%s})"
                       % ",".join(files))
    assert str(sharded) == str(local)
    assert "#quanta.histogram_stats" in str(sharded)


def test_moving_averages_are_refused(client, tiny_cnn, calibration_batches):
    module = observed(tiny_cnn, MOVING_AVERAGE)
    with pytest.raises(quanta.Error, match="cannot merge"):
        quanta.calibrate_distributed(module, shards_of(calibration_batches),
                                     client)


def test_a_failing_shard_is_reported(client, tiny_cnn, calibration_batches):
    module = observed(tiny_cnn, "default")
    bad = [calibration_batches[0].astype("float64")]
    with pytest.raises(quanta.Error, match="expects float32 data"):
        quanta.calibrate_distributed(
            module, [calibration_batches[:2], bad], client)


def test_no_shards(client, tiny_cnn):
    with pytest.raises(ValueError, match="no shards"):
        quanta.calibrate_distributed(observed(tiny_cnn, "default"), [], client)

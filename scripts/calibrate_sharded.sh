#!/usr/bin/env bash
# Calibrates an observed model on more data than one process should hold:
# the batches are split into shards, each shard is calibrated by its own
# quant-opt process (here in parallel on this machine; on a cluster, run the
# `shard` step as a Slurm array / Ray task / Kubernetes Job indexed by the
# shard number), and the shard statistics are merged into the model.
#
#   scripts/calibrate_sharded.sh OBSERVED.mlir OUT.mlir SHARDS BATCH.npy...
#
# Min/max observers merge exactly (the result equals one run over all
# batches); histograms merge with PyTorch's combine algorithm (approximate);
# moving averages depend on batch order and are reported as errors: for
# them, calibrate the shards one after the other
# (quant-opt --quanta-calibrate=data=<shard 1> | quant-opt --quanta-calibrate=data=<shard 2> ...).
set -euo pipefail
if [[ $# -lt 4 ]]; then
  sed -n '2,16p' "$0" >&2
  exit 2
fi
quant_opt=${QUANT_OPT:-build/bin/quant-opt}
model=$1 out=$2 shards=$3
shift 3
batches=("$@")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# shard K takes every SHARDS-th batch starting at K.
shard() {
  local k=$1 files=() i
  for ((i = k; i < ${#batches[@]}; i += shards)); do files+=("${batches[i]}"); done
  local list
  list=$(IFS=,; echo "${files[*]}")
  "$quant_opt" "$model" --quanta-calibrate="data=$list quiet" \
    --quanta-export-statistics="file=$work/shard$k.json" -o /dev/null
}

pids=()
for ((k = 0; k < shards; k++)); do
  shard "$k" &
  pids+=($!)
done
for pid in "${pids[@]}"; do wait "$pid"; done

files=$(ls "$work"/shard*.json | paste -sd, -)
"$quant_opt" "$model" --quanta-import-statistics="files=$files" -o "$out"
echo "calibrate_sharded: merged $shards shards of ${#batches[@]} batches into $out" >&2

#!/usr/bin/env bash
# Runs each libFuzzer target of a `make fuzz` build with a fixed seed,
# starting from its seed corpus (copied, so the repository is not written),
# for a bounded time or, with --ci, for the fixed number of inputs listed
# below (the same inputs on every machine: what CI runs, so that a faster
# machine does not fuzz further than a slower one). Prints per target the
# executions and whether it found a crash (the input is kept in
# <build>/fuzz-artifacts/); exits non-zero if any did: each crash becomes a
# regression test.
#   run-fuzzers.sh <build dir> <seconds per target>
#   run-fuzzers.sh <build dir> --ci
set -uo pipefail
build_dir=$1
bound_arg=$2
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts="$build_dir/fuzz-artifacts"
mkdir -p "$artifacts"
# Instrumented code and Debian's uninstrumented LLVM share LLVM's inline
# allocators, which poison memory only on the instrumented side: manual
# poisoning off (it would report every BumpPtrAllocator use as a bug).
export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
# Sizes Quanta checks before allocating are checked against 512 MiB, below
# the fuzzers' 1 GiB allocation limit: a rejected size is not a finding.
export QUANTA_MEMORY_LIMIT_MB=512
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# Seeds of the IR target: every lit test and example up to 16 KiB, split at
# the `// -----` markers as -split-input-file does, in MLIR's generic form
# (verified or not). The generic form keeps the mutations away from the
# ops' custom parsers, which are upstream's (libMLIR 22's linalg.transpose
# parser crashes on a stray byte in its permutation: see
# test/Tools/upstream-crash-*.mlir) and on what Quanta
# adds: its attributes' parsers, the verifiers and the pipelines.
split_dir="$work/split" ir_seeds="$work/ir-seeds"
mkdir -p "$split_dir" "$ir_seeds"
find "$root/test" "$root/examples" -name '*.mlir' -size -16k | sort |
  while read -r file; do
    awk -v out="$split_dir/$(basename "$file" .mlir)" \
      '/^\/\/ -----/ { n++; next } { print > (out "." n ".mlir") }' n=0 "$file"
  done
for file in "$split_dir"/*.mlir; do
  "$build_dir/bin/quant-opt" "$file" --mlir-print-op-generic \
    --mlir-very-unsafe-disable-verifier-on-parsing -o "$ir_seeds/${file##*/}" \
    > /dev/null 2>&1 || rm -f "$ir_seeds/${file##*/}"
done
# Seeds of the ONNX target: the test and example models up to 16 KiB.
# Each input is imported whole, so one 100 KiB transformer made the CI
# count of inputs take 10 minutes instead of 30 s.
onnx_seeds="$work/onnx-seeds"
mkdir -p "$onnx_seeds"
find "$root/test/Import/Onnx/Inputs" "$root/examples/digits" -name '*.onnx' \
  -size -16k -exec cp {} "$onnx_seeds"/ \;

# target, seed directory, inputs per CI run (about 30 s each on a 2-core
# Xeon; each count is below what a 60 s run with the same seed executes
# without a finding, so CI replays inputs known to pass until code changes).
fuzzers=(
  "quanta-numpy-fuzzer $root/unittests/Runtime/data 2000000"
  "quanta-statistics-fuzzer $root/fuzz/seeds/statistics 90000"
  "quanta-onnx-fuzzer $onnx_seeds 200000"
  "quanta-ir-fuzzer $ir_seeds 60000"
)
status=0
for entry in "${fuzzers[@]}"; do
  read -r name seeds ci_runs <<< "$entry"
  bound=(-max_total_time="$bound_arg")
  [[ "$bound_arg" == --ci ]] && bound=(-runs="$ci_runs")
  corpus="$work/$name"
  mkdir -p "$corpus"
  cp "$seeds"/* "$corpus"/
  log="$work/$name.log"
  start=$SECONDS
  "$build_dir/bin/$name" "$corpus" -seed=1 "${bound[@]}" \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
    > "$log" 2>&1
  code=$?
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
  if [[ $code -eq 0 ]]; then
    echo "fuzz $name: ${execs:-?} executions in $((SECONDS - start)) s, no crash"
  else
    status=1
    echo "fuzz $name: FAILED after ${execs:-?} executions (exit $code):"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -n 5
  fi
done
exit $status

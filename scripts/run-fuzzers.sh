#!/usr/bin/env bash
# Runs each libFuzzer target of a `make fuzz` build with a fixed seed,
# starting from its seed corpus (copied, so the repository is not
# written), for a bounded time or, given a run count, for exactly that
# many inputs (the same inputs on every machine: what CI uses, so that a
# faster machine does not fuzz further than a slower one). Prints per
# target the executions and whether it found a crash (the input is kept in
# <build>/fuzz-artifacts/); exits non-zero if any did: each crash becomes a
# regression test.
#   run-fuzzers.sh <build dir> <seconds per target> [<runs per target>]
set -uo pipefail
build_dir=$1
seconds=$2
runs=${3:-}
bound=(-max_total_time="$seconds")
[[ -n "$runs" ]] && bound=(-runs="$runs")
root=$(cd "$(dirname "$0")/.." && pwd)
artifacts="$build_dir/fuzz-artifacts"
mkdir -p "$artifacts"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# target name, seed directory
fuzzers=(
  "quanta-numpy-fuzzer $root/unittests/Runtime/data"
)
status=0
for entry in "${fuzzers[@]}"; do
  read -r name seeds <<< "$entry"
  corpus="$work/$name"
  mkdir -p "$corpus"
  cp "$seeds"/* "$corpus"/
  log="$work/$name.log"
  "$build_dir/bin/$name" "$corpus" -seed=1 "${bound[@]}" \
    -rss_limit_mb=2048 -malloc_limit_mb=1024 -timeout=10 \
    -print_final_stats=1 -artifact_prefix="$artifacts/$name-" \
    > "$log" 2>&1
  code=$?
  execs=$(sed -nE 's/^stat::number_of_executed_units: *([0-9]+)/\1/p' "$log")
  if [[ $code -eq 0 ]]; then
    echo "fuzz $name: ${execs:-?} executions, no crash"
  else
    status=1
    echo "fuzz $name: FAILED after ${execs:-?} executions (exit $code):"
    grep -E "ERROR|SUMMARY|Test unit written" "$log" | head -n 5
  fi
done
exit $status

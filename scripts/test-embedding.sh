#!/usr/bin/env bash
# Installs Quanta into a temporary prefix (cmake --install), builds
# examples/embedding against that tree alone (find_package(Quanta)), and runs
# it: my-opt with Quanta's and its own passes, quantize-in-memory (the C++
# API end to end) and a C program linking the object file it wrote. Prints
# "embedding: N passed, M failed" (counted by run-tests.sh).
set -uo pipefail
build_dir=$(realpath "${1:-build}")
llvm_prefix=${LLVM_PREFIX:-/usr/lib/llvm-22}
source_dir=$(realpath "$(dirname "$0")/..")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
passed=0 failed=0
check() { # $1: name; the rest: the command
  local name=$1
  shift
  if "$@" > "$work/$name.log" 2>&1; then
    passed=$((passed + 1))
    echo "PASS: embedding :: $name"
  else
    failed=$((failed + 1))
    echo "FAIL: embedding :: $name"
    sed 's/^/  /' "$work/$name.log" | tail -n 30
  fi
}

install_and_build() {
  cmake --install "$build_dir" --prefix "$work/prefix" &&
    cmake -G Ninja -S "$source_dir/examples/embedding" -B "$work/build" \
      -DCMAKE_BUILD_TYPE=Release \
      -DCMAKE_CXX_COMPILER="$llvm_prefix/bin/clang++" \
      -DCMAKE_PREFIX_PATH="$work/prefix" &&
    ninja -C "$work/build"
}
# (Output captured first: grep -q would close the pipe at its match, and
# with pipefail my-opt's SIGPIPE on a later line failed the check.)
count_observers() {
  local out
  out=$("$work/build/my-opt" "$source_dir/examples/tiny_cnn.mlir" \
    --quanta-prepare --my-count-observers \
    --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1) &&
    grep -q "remark: 16 observers" <<<"$out" || {
    echo "$out"
    return 1
  }
}
# Quanta's patterns in my-opt's own driver: no quant cast is left, and the
# int8 arithmetic is there.
lower_quant_casts() {
  local out
  out=$("$work/build/my-opt" "$source_dir/examples/tiny_cnn.mlir" \
    --quanta-ptq="data=$source_dir/examples/calibration/batch0.npy quiet" \
    --my-lower-quant-casts) &&
    ! grep -qE "quant\.(qcast|dcast)" <<<"$out" &&
    grep -q "arith.fptosi" <<<"$out"
}
# Quanta's quantize and kernel patterns in my-opt's own driver give the
# same int8 output, byte for byte, as quanta-compile.
quantize_patterns() {
  local bin="$build_dir/bin" data="$source_dir/examples/calibration/batch0.npy"
  "$work/build/my-opt" "$source_dir/examples/tiny_cnn.mlir" \
    --quanta-ptq="data=$data quiet" -o "$work/frozen.mlir" &&
    "$work/build/my-opt" "$work/frozen.mlir" --my-quantize-for-host \
      -o "$work/patterns.mlir" &&
    ! grep -q "quanta.qmatmul" "$work/patterns.mlir" &&
    "$bin/quant-run" "$work/patterns.mlir" --input="$data" \
      --output="$work/patterns.npy" &&
    "$bin/quant-run" "$work/frozen.mlir" --input="$data" \
      --pass-pipeline='builtin.module(quanta-compile)' \
      --output="$work/compile.npy" &&
    cmp "$work/patterns.npy" "$work/compile.npy"
}
quantize() {
  mkdir -p "$work/out" &&
    "$work/build/quantize-in-memory" "$source_dir/examples/tiny_cnn.mlir" \
      "$work/out" && test -s "$work/out/model.o" && test -s "$work/out/model.h"
}
call_object() {
  "$llvm_prefix/bin/clang" -O2 -I"$work/out" \
    "$source_dir/examples/embedding/call-model.c" "$work/out/model.o" \
    -o "$work/call-model" && "$work/call-model" "$work/out"
}

check install-and-build install_and_build
check my-opt count_observers
check my-opt-patterns lower_quant_casts
check my-opt-quantize-patterns quantize_patterns
check quantize-in-memory quantize
check call-object-file call_object
echo "embedding: $passed passed, $failed failed"
[[ $failed -eq 0 ]]

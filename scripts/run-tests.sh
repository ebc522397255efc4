#!/usr/bin/env bash
# Runs the lit suite, the GoogleTest suites, ONNX's own backend node tests
# (quanta-onnx-conformance over Debian's libonnx-testdata) and the embedding
# example built against an installed Quanta and the Python package's pytest
# suite, then prints one
# summary line "N passed, M failed" (the line CI reads). Exits non-zero on
# any failure.
set -uo pipefail
build_dir=${1:-build}
# A sanitizer build (QUANTA_SANITIZE, make check-sanitize): LLVM's inline
# allocators poison memory only on the instrumented side, so manual
# poisoning is off; UBSan's reports get a stack.
if [[ -x "$build_dir/bin/python-sanitized" ]]; then
  export ASAN_OPTIONS="allow_user_poisoning=0${ASAN_OPTIONS:+:$ASAN_OPTIONS}"
  export UBSAN_OPTIONS="print_stacktrace=1${UBSAN_OPTIONS:+:$UBSAN_OPTIONS}"
fi
log_dir=$(mktemp -d)
trap 'rm -rf "$log_dir"' EXIT
# Every suite compiles into one fresh compile cache: each run compiles
# every module once, whatever a previous run left.
export QUANTA_CACHE_DIR="$log_dir/compile-cache"

ninja -C "$build_dir" check-quanta-lit 2>&1 | tee "$log_dir/lit.log"
lit_status=${PIPESTATUS[0]}
"$build_dir/bin/QuantaUnitTests" --gtest_brief=1 2>&1 | tee "$log_dir/gtest.log"
gtest_status=${PIPESTATUS[0]}
"$build_dir/bin/quanta-onnx-conformance" \
  --expected-skips="$(dirname "$0")/../test/Import/Onnx/conformance-expected-skips.txt" \
  2>&1 | tee "$log_dir/onnx.log"
onnx_status=${PIPESTATUS[0]}

"$(dirname "$0")/test-embedding.sh" "$build_dir" 2>&1 | tee "$log_dir/embedding.log"
embedding_status=${PIPESTATUS[0]}

build_path=$(realpath "$build_dir")
python=${PYTHON:-/usr/bin/python3}
[[ -x "$build_path/bin/python-sanitized" ]] && python="$build_path/bin/python-sanitized"
QUANTA_BUILD_DIR="$build_path" PYTHONPATH="$build_path/python_packages" \
  "$python" -m pytest -q -p no:cacheprovider \
  "$(dirname "$0")/../python/tests" 2>&1 | tee "$log_dir/pytest.log"
pytest_status=${PIPESTATUS[0]}

count() { # $1: log, $2: regex with one number group
  sed -nE "s/$2/\1/p" "$1" | tail -n 1
}
lit_passed=$(count "$log_dir/lit.log" '^ *Passed *: *([0-9]+).*')
lit_failed=$(count "$log_dir/lit.log" '^ *Failed *: *([0-9]+).*')
lit_xfailed=$(count "$log_dir/lit.log" '^ *Expectedly Failed *: *([0-9]+).*')
unit_passed=$(count "$log_dir/gtest.log" '^\[  PASSED  \] ([0-9]+) tests?\..*')
unit_failed=$(count "$log_dir/gtest.log" '^\[  FAILED  \] ([0-9]+) tests?, listed below.*')
onnx_passed=$(count "$log_dir/onnx.log" '^onnx conformance: ([0-9]+) passed.*')
onnx_failed=$(count "$log_dir/onnx.log" '^onnx conformance: [0-9]+ passed, ([0-9]+) failed.*')
embedding_passed=$(count "$log_dir/embedding.log" '^embedding: ([0-9]+) passed.*')
embedding_failed=$(count "$log_dir/embedding.log" '^embedding: [0-9]+ passed, ([0-9]+) failed.*')
# pytest's last line: "3 failed, 24 passed, 1 warning in 6.6s".
pytest_summary=$(grep -E ' in [0-9.]+s' "$log_dir/pytest.log" | tail -n 1)
pytest_count() { grep -oE "[0-9]+ $1" <<<"$pytest_summary" | grep -oE '^[0-9]+'; }
pytest_passed=$(pytest_count passed)
pytest_failed=$(( $(pytest_count failed || echo 0) + $(pytest_count 'errors?' || echo 0) ))

passed=$(( ${lit_passed:-0} + ${lit_xfailed:-0} + ${unit_passed:-0} + ${onnx_passed:-0} + ${embedding_passed:-0} + ${pytest_passed:-0} ))
failed=$(( ${lit_failed:-0} + ${unit_failed:-0} + ${onnx_failed:-0} + ${embedding_failed:-0} + ${pytest_failed:-0} ))
# A suite that crashed or printed no summary counts as a failure.
if [[ $lit_status -ne 0 && ${lit_failed:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
if [[ $gtest_status -ne 0 && ${unit_failed:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
if [[ $onnx_status -ne 0 && ${onnx_failed:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
if [[ $embedding_status -ne 0 && ${embedding_failed:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
if [[ $pytest_status -ne 0 && ${pytest_failed:-0} -eq 0 ]]; then failed=$((failed + 1)); fi
if [[ -z "$lit_passed" || -z "$unit_passed" || -z "$onnx_passed" || -z "$embedding_passed" || -z "$pytest_passed" ]]; then failed=$((failed + 1)); fi

echo "lit: ${lit_passed:-0} passed, ${lit_failed:-0} failed; unit: ${unit_passed:-0} passed, ${unit_failed:-0} failed; onnx conformance: ${onnx_passed:-0} passed, ${onnx_failed:-0} failed; embedding: ${embedding_passed:-0} passed, ${embedding_failed:-0} failed; pytest: ${pytest_passed:-0} passed, ${pytest_failed:-0} failed"
echo "$passed passed, $failed failed"
[[ $failed -eq 0 ]]

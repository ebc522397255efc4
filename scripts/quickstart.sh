#!/usr/bin/env bash
# Runs the README's quickstart literally: the shell commands between the
# <!-- quickstart --> markers, one by one, then the Python between the
# <!-- quickstart-python --> markers. It runs in a scratch directory that
# sees the repository's Makefile, scripts and examples and the build
# directory as `build`, so the README's relative paths hold for any build
# directory and nothing is written into the repository. make demo and
# test/Examples/quickstart.mlir run it, so the README cannot drift from
# what works.
#   scripts/quickstart.sh [build-dir (build)] [work-dir (<build-dir>/quickstart)]
set -euo pipefail
repo=$(cd "$(dirname "$0")/.." && pwd)
build_dir=$(realpath "${1:-build}")
work=${2:-$build_dir/quickstart}
rm -rf "$work"
mkdir -p "$work"
for entry in Makefile scripts examples; do
  ln -s "$repo/$entry" "$work/$entry"
done
ln -s "$build_dir" "$work/build"

# The lines of the fenced blocks between <!-- $1 --> and <!-- /$1 -->.
extract() {
  awk -v begin="<!-- $1 -->" -v end="<!-- /$1 -->" \
    '$0 == begin { inside = 1; next } $0 == end { inside = 0 }
     inside && !/^```/' "$repo/README.md"
}
commands=$(extract quickstart)
python_code=$(extract quickstart-python)
if [[ -z $commands || -z $python_code ]]; then
  echo "quickstart.sh: README.md has no quickstart blocks" >&2
  exit 1
fi

cd "$work"
while IFS= read -r line; do
  if [[ $line == \#* ]]; then
    echo "$line"
  elif [[ -n $line ]]; then
    echo "\$ $line"
    bash -euo pipefail -c "$line"
  fi
done <<<"$commands"

# A sanitizer build's extension modules need its interpreter wrapper.
python=${PYTHON:-/usr/bin/python3}
[[ -x build/bin/python-sanitized ]] && python=build/bin/python-sanitized
echo "\$ PYTHONPATH=build/python_packages $python  # the README's Python"
PYTHONPATH=build/python_packages "$python" - <<<"$python_code"

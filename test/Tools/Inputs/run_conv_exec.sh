#!/bin/bash
# Runs every function of conv_exec.mlir as written (the float reference
# between its dq/q pairs) and through quanta-quantize and a kernel lowering
# for each target given, and prints compare_quantized.py's line for every
# function and target. A target is an x86 isa of quanta-lower-x86 (run in
# the JIT), or aarch64:<cpu>:<qemu cpu> (quanta-lower-neon for that CPU, run
# under qemu), whose outputs are also compared byte for byte with those of
# the first target: "identical to <first>" or "DIFFERENT from <first>".
#
#   run_conv_exec.sh TMP_PREFIX PYTHON TARGET...
set -eu -o pipefail
prefix=$1 python=$2
shift 2
inputs=$(dirname "$0")
module=$inputs/conv_exec.mlir
# One random input per function, shaped like its argument.
entries=$("$python" - "$module" "$prefix" <<'PY'
import re, sys
import numpy as np
module, prefix = sys.argv[1:3]
rng = np.random.default_rng(7)
for name, shape in re.findall(r"func\.func @(\w+)\(%x: tensor<([0-9x]+)xf32>",
                              open(module).read()):
    shape = [int(d) for d in shape.split("x")]
    np.save(f"{prefix}.{name}.npy",
            (rng.standard_normal(shape) * 1.5).astype(np.float32))
    print(name)
PY
)
first=$1
for entry in $entries; do
  quant-run "$module" --entry="$entry" --input="$prefix.$entry.npy" \
    --output="$prefix.$entry.ref.npy"
  for target in "$@"; do
    case $target in
      aarch64:*)
        IFS=: read -r _ cpu qemu <<<"$target"
        quant-run "$module" --entry="$entry" --input="$prefix.$entry.npy" \
          --target-triple=aarch64-linux-gnu --mcpu="$cpu" --qemu-cpu="$qemu" \
          --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-neon)" \
          --output="$prefix.$entry.$target.npy" ;;
      *)
        quant-run "$module" --entry="$entry" --input="$prefix.$entry.npy" \
          --guard-pages=after --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$target})" \
          --output="$prefix.$entry.$target.npy" ;;
    esac
    echo -n "$entry $target: "
    "$python" "$inputs/compare_quantized.py" "$prefix.$entry.$target.npy" \
      "$prefix.$entry.ref.npy"
    if [ "$target" != "$first" ]; then
      if cmp -s "$prefix.$entry.$target.npy" "$prefix.$entry.$first.npy"; then
        echo "$entry $target: identical to $first"
      else
        echo "$entry $target: DIFFERENT from $first"
      fi
    fi
  done
done

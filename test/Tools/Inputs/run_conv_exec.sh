#!/bin/bash
# Runs every function of conv_exec.mlir as written (the float reference
# between its dq/q pairs) and through quanta-quantize and quanta-lower-x86
# for each ISA given, and prints compare_quantized.py's line for every
# function and ISA.
#
#   run_conv_exec.sh TMP_PREFIX PYTHON ISA...
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
for entry in $entries; do
  quant-run "$module" --entry="$entry" --input="$prefix.$entry.npy" \
    --output="$prefix.$entry.ref.npy"
  for isa in "$@"; do
    quant-run "$module" --entry="$entry" --input="$prefix.$entry.npy" \
      --pass-pipeline="builtin.module(quanta-quantize,quanta-lower-x86{isa=$isa})" \
      --output="$prefix.$entry.$isa.npy"
    echo -n "$entry $isa: "
    "$python" "$inputs/compare_quantized.py" "$prefix.$entry.$isa.npy" \
      "$prefix.$entry.ref.npy"
  done
done

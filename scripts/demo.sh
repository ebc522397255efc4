#!/usr/bin/env bash
# The main job on the bundled example: PyTorch's prepare() on a small CNN
# given in TOSA (examples/tiny_cnn.mlir), with the observers of its constant
# weights evaluated at compile time. Prints the observed IR and the weight
# quantization parameters, which equal PyTorch 1.13's bit for bit
# (test/Examples/tiny-cnn-qparams.mlir checks them against torch's values).
set -euo pipefail
build_dir=${1:-build}
quant_opt="$build_dir/bin/quant-opt"
model=examples/tiny_cnn.mlir
qconfig=${QCONFIG:-x86}
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
observed="$out_dir/tiny_cnn.observed.mlir"

echo "== quant-opt $model --quanta-prepare=qconfig=$qconfig"
echo "   (TOSA -> linalg with the upstream pipeline, then observer insertion)"
"$quant_opt" "$model" --quanta-prepare="qconfig=$qconfig" -o "$observed"
echo
echo "== Observed IR (constants elided; full IR in $observed)"
"$quant_opt" "$observed" --mlir-elide-elementsattrs-if-larger=8
echo
echo "== Quantization parameters known at compile time (quanta-report-qparams)"
"$quant_opt" "$observed" --quanta-report-qparams -o /dev/null
echo
echo "Activation observers get their statistics from calibration data;"
echo "try QCONFIG=qnnpack make demo for per-tensor weights."

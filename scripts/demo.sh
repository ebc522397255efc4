#!/usr/bin/env bash
# The main job on the bundled example: post-training quantization of a small
# CNN given in TOSA (examples/tiny_cnn.mlir) with PyTorch's semantics.
#  1. prepare():   observers where PyTorch puts them; the observers of the
#                  constant weights are evaluated at compile time.
#  2. calibrate:   the model runs in the JIT on 8 bundled batches; every
#                  observer's statistics are folded into the IR.
#  3. freeze:      observers become quant.qcast/quant.dcast pairs.
# The weight qparams equal PyTorch 1.13's bit for bit
# (test/Examples/tiny-cnn-qparams.mlir checks them against torch's values).
set -euo pipefail
build_dir=${1:-build}
quant_opt="$build_dir/bin/quant-opt"
model=examples/tiny_cnn.mlir
qconfig=${QCONFIG:-x86}
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
data=$(ls examples/calibration/batch*.npy | paste -sd, -)

echo "== 1. quant-opt $model --quanta-prepare=qconfig=$qconfig"
echo "   (TOSA -> linalg with the upstream pipeline, then observer insertion)"
"$quant_opt" "$model" --quanta-prepare="qconfig=$qconfig" \
  -o "$out_dir/tiny_cnn.observed.mlir"
"$quant_opt" "$out_dir/tiny_cnn.observed.mlir" --mlir-elide-elementsattrs-if-larger=8
echo
echo "== Weight qparams known at compile time (quanta-report-qparams)"
"$quant_opt" "$out_dir/tiny_cnn.observed.mlir" --quanta-report-qparams -o /dev/null

echo
echo "== 2. quant-opt --quanta-calibrate (JIT, 8 batches from examples/calibration)"
"$quant_opt" "$out_dir/tiny_cnn.observed.mlir" --quanta-calibrate="data=$data" \
  -o "$out_dir/tiny_cnn.calibrated.mlir"
echo "== qparams of every observer after calibration"
"$quant_opt" "$out_dir/tiny_cnn.calibrated.mlir" --quanta-report-qparams -o /dev/null

echo
echo "== 3. quant-opt --quanta-freeze-qparams: the q/dq pairs"
"$quant_opt" "$out_dir/tiny_cnn.calibrated.mlir" --quanta-freeze-qparams \
  -o "$out_dir/tiny_cnn.quantized.mlir"
grep -E "quant\.qcast" "$out_dir/tiny_cnn.quantized.mlir" | sed -E 's/^ +//'
echo
echo "The same in one pass pipeline:"
echo "  quant-opt $model --quanta-ptq=\"qconfig=$qconfig data=<batches>\""
echo "Outputs: $out_dir/tiny_cnn.{observed,calibrated,quantized}.mlir"
echo "(QCONFIG=qnnpack make demo uses per-tensor weights.)"

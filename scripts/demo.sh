#!/usr/bin/env bash
# First the README's quickstart, literally (scripts/quickstart.sh): the
# digits CNN from ONNX to an int8 object in one command, called from C and
# from Python. Then the same job phase by phase on the bundled example:
# post-training quantization of a small CNN given in TOSA
# (examples/tiny_cnn.mlir) with PyTorch's semantics.
#  1. prepare():   observers where PyTorch puts them; the observers of the
#                  constant weights are evaluated at compile time.
#  2. calibrate:   the model runs in the JIT on 8 bundled batches; every
#                  observer's statistics are folded into the IR.
#  3. freeze:      observers become quant.qcast/quant.dcast pairs.
#  4. quantize:    convolutions and the fully connected layer become int8
#                  GEMMs (quanta.qmatmul), every other op integer code
#                  on the storage values; lowered for this CPU.
#  5. run:         the float reference and the int8 model on one batch.
#  6. compile:     an object file and a C header of the int8 model.
#  7. AArch64:     the int8 model for three Arm CPUs (ARMv8.0, dotprod,
#                  i8mm), run under qemu: the same bytes as on x86.
#  8. ONNX:        a CNN, an MLP, a transformer and an LSTM trained on
#                  scikit-learn's digits
#                  (examples/digits), imported from ONNX, calibrated on 8
#                  training batches, quantized and lowered for this CPU:
#                  float vs int8 accuracy on the 400 held-out images.
#  9. report:      quanta.report (Python) writes an HTML page with PNG
#                  plots of every layer's quantization error.
# The weight qparams equal PyTorch 1.13's bit for bit
# (test/Examples/tiny-cnn-qparams.mlir checks them against torch's values),
# and with the qnnpack qconfig the int8 model's outputs equal those of
# PyTorch's own quantized model (test/Examples/tiny-cnn-vs-pytorch.mlir).
set -euo pipefail
build_dir=${1:-build}
quant_opt="$build_dir/bin/quant-opt"
model=examples/tiny_cnn.mlir
qconfig=${QCONFIG:-x86}
out_dir="$build_dir/demo"
mkdir -p "$out_dir"
data=$(ls examples/calibration/batch*.npy | paste -sd, -)

echo "== The README's quickstart (scripts/quickstart.sh, in $build_dir/quickstart)"
scripts/quickstart.sh "$build_dir"
echo
echo "== The same job phase by phase, on examples/tiny_cnn.mlir"

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
echo "== 4. quant-opt --quanta-quantize: int8 where it has an integer form"
remarks=$("$quant_opt" "$out_dir/tiny_cnn.quantized.mlir" --quanta-quantize \
  -o "$out_dir/tiny_cnn.int8.mlir" 2>&1)
# The remarks say what stays float, and why.
if [ -n "$remarks" ]; then grep -o "remark: .*" <<<"$remarks" | sort | uniq -c; fi
count() { grep -cE "$1" "$out_dir/tiny_cnn.int8.mlir" || true; }
echo "   $(count "quanta.qmatmul") layers run as quanta.qmatmul;" \
  "$(count '= (linalg\.[a-z_]+|tensor\.(pad|collapse_shape|expand_shape|reshape|concat)) .*xi8>( |$)') integer ops on storage values" \
  "(depthwise conv, add, tables, max pool, pad, reshapes);" \
  "$(count '= linalg\.[a-z_0-9]+ .*-> tensor<[0-9x]*xf32>') float linalg ops left"

echo
echo "== 5. quant-run: the q/dq model in float vs the int8 model (quanta-lower-x86 for this CPU)"
batch=examples/calibration/batch0.npy
quant_run="$build_dir/bin/quant-run"
"$quant_run" "$out_dir/tiny_cnn.quantized.mlir" --input="$batch" \
  --output="$out_dir/reference.npy"
"$quant_run" "$out_dir/tiny_cnn.int8.mlir" --input="$batch" \
  --pass-pipeline='builtin.module(quanta-lower-x86)' \
  --output="$out_dir/int8.npy"
${PYTHON:-/usr/bin/python3} - "$out_dir" <<'PY'
import sys
import numpy as np
out = sys.argv[1]
ref, int8 = np.load(out + "/reference.npy"), np.load(out + "/int8.npy")
print("   float reference:", np.array2string(ref[0], precision=4))
print("   int8 model:     ", np.array2string(int8[0], precision=4))
print(f"   largest difference: {np.abs(ref - int8).max() * 256:.0f} output step(s) of 1/256")
PY

echo
echo "== 6. quant-compile: object file + C header of the int8 model"
"$build_dir/bin/quant-compile" "$out_dir/tiny_cnn.int8.mlir" \
  --pass-pipeline='builtin.module(quanta-lower-x86)' \
  -o "$out_dir/tiny_cnn.o" --header="$out_dir/tiny_cnn.h"
grep -E "^(void|static inline)" "$out_dir/tiny_cnn.h"

echo
echo "== 7. The int8 model for AArch64 (quanta-lower-neon), run under qemu-aarch64"
echo "   on batch0: the same bytes as the x86 model of step 5"
for config in "cortex-a72 cortex-a72 ARMv8.0: smull+sadalp" \
              "neoverse-n1 neoverse-n1 dotprod: sdot" \
              "neoverse-v1 max i8mm: smmla"; do
  read -r cpu qemu kernel <<<"$config"
  "$quant_run" "$out_dir/tiny_cnn.int8.mlir" --input="$batch" \
    --target-triple=aarch64-linux-gnu --mcpu="$cpu" --qemu-cpu="$qemu" \
    --pass-pipeline='builtin.module(quanta-lower-neon)' \
    --output="$out_dir/int8.$cpu.npy"
  if cmp -s "$out_dir/int8.$cpu.npy" "$out_dir/int8.npy"; then
    echo "   --mcpu=$cpu ($kernel), qemu -cpu $qemu: identical to x86"
  else
    echo "   --mcpu=$cpu ($kernel), qemu -cpu $qemu: DIFFERENT from x86" >&2
    exit 1
  fi
done
"$build_dir/bin/quant-compile" "$out_dir/tiny_cnn.int8.mlir" \
  --target-triple=aarch64-linux-gnu --mcpu=neoverse-n1 \
  --pass-pipeline='builtin.module(quanta-lower-neon)' \
  -o "$out_dir/tiny_cnn.aarch64.o" --header="$out_dir/tiny_cnn.aarch64.h"
echo "   object for a Neoverse N1: $out_dir/tiny_cnn.aarch64.o"

echo
echo "== 8. Real models from ONNX: examples/digits/digits_{cnn,mlp,transformer,lstm}.onnx"
echo "   (trained once on scikit-learn's digits by examples/digits/train_digits.py"
echo "   and train_sequence.py: the transformer and the LSTM read an image as 8 rows)"
digits=examples/digits
digits_data=$(ls $digits/calibration/batch*.npy | paste -sd, -)
for net in cnn mlp transformer lstm; do
  onnx="$digits/digits_$net.onnx"
  # Calibrate at the batches' size (32), then apply the statistics to the
  # model at the held-out set's size (400): the observers are named after
  # the ONNX nodes (the locations --mlir-print-debuginfo keeps in the text).
  "$build_dir/bin/quant-translate" --import-onnx "$onnx" --onnx-batch=32 \
    --mlir-print-debuginfo |
    "$quant_opt" --quanta-prepare="qconfig=$qconfig" \
      --quanta-calibrate="data=$digits_data quiet" \
      --quanta-export-statistics="file=$out_dir/digits_$net.stats.json" \
      -o /dev/null
  "$build_dir/bin/quant-translate" --import-onnx "$onnx" --onnx-batch=400 \
    --mlir-print-debuginfo -o "$out_dir/digits_$net.mlir"
  "$quant_opt" "$out_dir/digits_$net.mlir" --quanta-prepare="qconfig=$qconfig" \
    --quanta-import-statistics="files=$out_dir/digits_$net.stats.json" \
    --quanta-freeze-qparams -o "$out_dir/digits_$net.quantized.mlir"
  remarks=$("$quant_opt" "$out_dir/digits_$net.quantized.mlir" --quanta-quantize \
    --quanta-propagate-layout \
    -o "$out_dir/digits_$net.int8.mlir" 2>&1)
  if [ -n "$remarks" ]; then grep -o "remark: .*" <<<"$remarks" | sort | uniq -c; fi
  "$quant_run" "$out_dir/digits_$net.mlir" --input=$digits/test_images.npy \
    --output="$out_dir/digits_$net.float.npy"
  "$quant_run" "$out_dir/digits_$net.int8.mlir" --input=$digits/test_images.npy \
    --pass-pipeline='builtin.module(quanta-lower-x86)' \
    --output="$out_dir/digits_$net.int8.npy"
  ${PYTHON:-/usr/bin/python3} - "$out_dir/digits_$net" "$digits" "$net" \
    "$(grep -c quanta.qmatmul "$out_dir/digits_$net.int8.mlir")" \
    "$(grep -c quanta.qbatch_matmul "$out_dir/digits_$net.int8.mlir")" <<'PY'
import sys
import numpy as np
prefix, digits, model, gemms, products = sys.argv[1:]
labels = np.load(digits + "/test_labels.npy")
f, q = np.load(prefix + ".float.npy"), np.load(prefix + ".int8.npy")
accuracy = lambda logits: (logits.argmax(1) == labels).mean() * 100
agree = (f.argmax(1) == q.argmax(1)).mean() * 100
sqnr = 10 * np.log10((f ** 2).sum() / ((f - q) ** 2).sum())
products = f" and {products} attention products" if products != "0" else ""
print(f"   {model}: {gemms} int8 GEMM layers{products}; held-out accuracy float "
      f"{accuracy(f):.2f}%, int8 {accuracy(q):.2f}%; same class for "
      f"{agree:.2f}% of images; logits SQNR {sqnr:.1f} dB")
PY
done

echo
echo "== 9. quanta.report: per-layer quantization error of the tiny CNN (Python package)"
PYTHONPATH="$build_dir/python_packages" ${PYTHON:-/usr/bin/python3} -m quanta.report \
  "$model" --qconfig="$qconfig" --data="$data" -o "$out_dir/report"
echo "   open $out_dir/report/index.html: each activation's histogram with its"
echo "   range, clipped fraction and SQNR; weight ranges per channel; int8 vs float"

echo
echo "The same in one pass pipeline:"
echo "  quant-opt $model --quanta-ptq=\"qconfig=$qconfig data=<batches>\""
echo "Outputs: $out_dir/tiny_cnn.{observed,calibrated,quantized,int8}.mlir, tiny_cnn.{o,h}, tiny_cnn.aarch64.{o,h}"
echo "(QCONFIG=qnnpack make demo uses per-tensor weights.)"

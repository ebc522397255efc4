// The bundled example quantized by Quanta against PyTorch 1.13 quantizing
// the same network (FX prepare/convert with the engine's default qconfig,
// calibrated on the same eight batches): outputs of both int8 models in
// steps of the output type (1/256), on the calibration batches and two
// held-out images. Expected outputs from examples/generate_tiny_cnn.py.
// onednn requantizes in float (one rounding of acc * float multiplier),
// which moves a few outputs by one step (4 or 5 of 100 when measured).

// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=qnnpack data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy,%quanta_src_root/examples/calibration/batch4.npy,%quanta_src_root/examples/calibration/batch5.npy,%quanta_src_root/examples/calibration/batch6.npy,%quanta_src_root/examples/calibration/batch7.npy quiet' --quanta-quantize -o %t.qnnpack.mlir
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch0.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.0.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch1.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.1.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch2.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.2.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch3.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.3.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch4.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.4.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch5.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.5.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch6.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.6.npy
// RUN: quant-run %t.qnnpack.mlir --input=%quanta_src_root/examples/calibration/batch7.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.7.npy
// RUN: quant-run %t.qnnpack.mlir --input=%S/Inputs/heldout0.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.8.npy
// RUN: quant-run %t.qnnpack.mlir --input=%S/Inputs/heldout1.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.qnnpack.9.npy
// RUN: %python %S/Inputs/compare_with_torch.py %S/Inputs/tiny_cnn_qnnpack_expected.npy %t.qnnpack.0.npy %t.qnnpack.1.npy %t.qnnpack.2.npy %t.qnnpack.3.npy %t.qnnpack.4.npy %t.qnnpack.5.npy %t.qnnpack.6.npy %t.qnnpack.7.npy %t.qnnpack.8.npy %t.qnnpack.9.npy | FileCheck %s --check-prefix=QNNPACK

// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=onednn data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy,%quanta_src_root/examples/calibration/batch4.npy,%quanta_src_root/examples/calibration/batch5.npy,%quanta_src_root/examples/calibration/batch6.npy,%quanta_src_root/examples/calibration/batch7.npy quiet' --quanta-quantize -o %t.onednn.mlir
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch0.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.0.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch1.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.1.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch2.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.2.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch3.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.3.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch4.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.4.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch5.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.5.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch6.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.6.npy
// RUN: quant-run %t.onednn.mlir --input=%quanta_src_root/examples/calibration/batch7.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.7.npy
// RUN: quant-run %t.onednn.mlir --input=%S/Inputs/heldout0.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.8.npy
// RUN: quant-run %t.onednn.mlir --input=%S/Inputs/heldout1.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.onednn.9.npy
// RUN: %python %S/Inputs/compare_with_torch.py %S/Inputs/tiny_cnn_onednn_expected.npy %t.onednn.0.npy %t.onednn.1.npy %t.onednn.2.npy %t.onednn.3.npy %t.onednn.4.npy %t.onednn.5.npy %t.onednn.6.npy %t.onednn.7.npy %t.onednn.8.npy %t.onednn.9.npy | FileCheck %s --check-prefix=ONEDNN

// The TOSA model leaves no float compute after quanta-quantize.
// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=qnnpack data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy quiet' --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s --check-prefix=FLOAT-OPS
// FLOAT-OPS: remark: quanta-quantize: 0 float compute op(s) left
// FLOAT-OPS-NOT: stays float

// QNNPACK: 100 of 100 outputs equal, max difference 0 steps
// ONEDNN: {{9[0-9]|100}} of 100 outputs equal, max difference {{[01]}} steps

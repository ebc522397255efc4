// Models the ONNX fuzzer (fuzz/OnnxFuzzer.cpp) found to crash or exhaust
// the importer, rebuilt small (scripts/goldens/gen_onnx_test_models.py):
// each is a located error naming the node.
// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/reshape_overflow.onnx 2>&1 | FileCheck %s --check-prefix=RESHAPE
// RESHAPE: reshape_overflow.onnx:0:0: error: Reshape node 'reshape': cannot reshape 'tensor<2x3xf32>' to a shape of more than 2^63 elements

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/pool_huge_pads.onnx 2>&1 | FileCheck %s --check-prefix=HUGEPADS
// HUGEPADS: error: AveragePool node 'pool': kernel, strides, dilations, pads and the input's spatial sizes must be below 2^31

// Pads below 2^31 that still make 2^21 x 2^21 outputs: their divisors are
// not materialised (nor counted tap by tap).
// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/pool_large_pads.onnx 2>&1 | FileCheck %s --check-prefix=LARGEPADS
// LARGEPADS: error: AveragePool node 'pool': the table of its divisors needs 17592219598864 bytes, more than the {{[0-9]+}} bytes of memory Quanta may use

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/float_zero_point.onnx 2>&1 | FileCheck %s --check-prefix=ZEROPOINT
// ZEROPOINT: error: DequantizeLinear node 'dq': the zero point must be a constant integer tensor

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/pad_f64_value.onnx 2>&1 | FileCheck %s --check-prefix=PADVALUE
// PADVALUE: error: Pad node 'pad': constant_value must be f32 or an integer

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/qlinearconv_bias_size.onnx 2>&1 | FileCheck %s --check-prefix=BIAS
// BIAS: error: QLinearConv node 'qconv': the bias has 4 values for 2 weight scales

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/pad_overflow.onnx 2>&1 | FileCheck %s --check-prefix=PADOVERFLOW
// PADOVERFLOW: error: Pad node 'pad': the padded tensor would have more than 2^63 elements

// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/input_overflow.onnx 2>&1 | FileCheck %s --check-prefix=INPUTOVERFLOW
// INPUTOVERFLOW: error: graph input 'x' has more than 2^63 elements

// Every node output is checked: two countable inputs whose broadcast sum
// is not.
// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/broadcast_overflow.onnx 2>&1 | FileCheck %s --check-prefix=BROADCAST
// BROADCAST: error: Add node 'add': output 0 ('y') would have more than 2^63 elements

// A layer-norm chain (FuseLayerNorms.cpp) whose Mul has one input: the
// fusion checks every node's arity and leaves it to the Mul's translation.
// RUN: not quant-translate --import-onnx %S/Inputs/fuzz/layer_norm_one_input.onnx 2>&1 | FileCheck %s --check-prefix=NORM
// NORM: error: Mul node '/ln/Mul': input 1 is missing

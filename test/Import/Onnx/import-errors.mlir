// Bad ONNX input: a located error naming the node and the op, no module.
// RUN: not quant-translate --import-onnx %S/Inputs/garbage.onnx 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not quant-translate --import-onnx %S/Inputs/truncated.onnx 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: .onnx:0:0: error: not a valid ONNX model: the protobuf does not parse (malformed or truncated)
// GARBAGE-NOT: module

// RUN: not quant-translate --import-onnx %S/Inputs/opset18.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// OPSET: opset18.onnx:0:0: error: the model uses opset 18; the importer takes opsets up to 17

// RUN: not quant-translate --import-onnx %S/Inputs/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP
// OP: error: Einsum node 'mixer': the importer does not translate 'Einsum' (supported: Add, AveragePool,

// RUN: not quant-translate --import-onnx %S/Inputs/runtime_shape.onnx 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: Reshape node 'reshape': input 1 (shape) must be a constant integer tensor (an initializer or a Constant node): Quanta compiles static shapes

// RUN: not quant-translate --import-onnx %S/Inputs/external.onnx 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// EXTERNAL: error: initializer 'w': cannot read its external data file '{{.*}}missing_weights.bin': No such file or directory

// RUN: not quant-translate --import-onnx %S/Inputs/cnn.onnx 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: error: graph input 'x' has the symbolic dimension 'N': give its size (batch=N; --onnx-batch=N in the tools)

// RUN: not quant-translate --import-onnx %S/Inputs/no-such-model.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: no-such-model.onnx{{.*}}No such file or directory

// quant-run and quant-compile take the model directly, with the same
// errors.
// RUN: not quant-run %S/Inputs/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not quant-compile %S/Inputs/cnn.onnx -o %t.o 2>&1 | FileCheck %s --check-prefix=BATCH

// Bad ONNX input: a located error naming the node and the op, no module.
// RUN: not quant-translate --import-onnx %S/Inputs/garbage.onnx 2>&1 | FileCheck %s --check-prefix=GARBAGE
// RUN: not quant-translate --import-onnx %S/Inputs/truncated.onnx 2>&1 | FileCheck %s --check-prefix=GARBAGE
// GARBAGE: .onnx:0:0: error: not a valid ONNX model: the protobuf does not parse (malformed or truncated)
// GARBAGE-NOT: module

// RUN: not quant-translate --import-onnx %S/Inputs/opset18.onnx 2>&1 | FileCheck %s --check-prefix=OPSET
// OPSET: opset18.onnx:0:0: error: the model uses opset 18; the importer takes opsets up to 17

// RUN: not quant-translate --import-onnx %S/Inputs/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP
// OP: error: Det node 'mixer': the importer does not translate 'Det' (supported: Abs, Add, And, AveragePool,

// RUN: not quant-translate --import-onnx %S/Inputs/runtime_shape.onnx 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: Reshape node 'reshape': input 1 (shape) must be a constant integer tensor (an initializer, a Constant node or computed from shapes and constants): Quanta compiles static shapes

// RUN: not quant-translate --import-onnx %S/Inputs/external.onnx 2>&1 | FileCheck %s --check-prefix=EXTERNAL
// EXTERNAL: error: initializer 'w': cannot read its external data file '{{.*}}missing_weights.bin': No such file or directory

// RUN: not quant-translate --import-onnx %S/Inputs/cnn.onnx 2>&1 | FileCheck %s --check-prefix=BATCH
// BATCH: error: symbolic dimensions left unbound: 'N' (dimension 0 of 'x')
// BATCH: note: next: give each its size by name (--onnx-dim=name=N,... in the tools, onnx_dims={'name': N} in Python); --onnx-batch=N sizes a first dimension the model leaves symbolic

// Every dimension left unbound is named at once; a name no input has and
// a malformed binding are errors too.
// RUN: not quant-translate --import-onnx %S/Inputs/encoder_op13.onnx --onnx-batch=1 2>&1 | FileCheck %s --check-prefix=SEQ
// SEQ: error: symbolic dimensions left unbound: 'seq' (dimension 1 of 'ids')
// RUN: not quant-translate --import-onnx %S/Inputs/encoder_op13.onnx 2>&1 | FileCheck %s --check-prefix=BOTH
// BOTH: error: symbolic dimensions left unbound: 'batch' (dimension 0 of 'ids'), 'seq' (dimension 1 of 'ids')
// RUN: not quant-translate --import-onnx %S/Inputs/encoder_op13.onnx --onnx-dim=batch=1,sequence=8 2>&1 | FileCheck %s --check-prefix=NAME
// NAME: error: no graph input has a symbolic dimension named 'sequence'
// RUN: not quant-run %S/Inputs/encoder_op13.onnx --onnx-dim=batch=1,seq=0 2>&1 | FileCheck %s --check-prefix=SYNTAX
// RUN: not quant-translate --import-onnx %S/Inputs/encoder_op13.onnx --onnx-dim=seq 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: --onnx-dim: '{{seq=0|seq}}' is not name=size with a size of at least 1 (e.g. --onnx-dim=batch=1,seq=128)

// RUN: not quant-translate --import-onnx %S/Inputs/no-such-model.onnx 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: no-such-model.onnx{{.*}}No such file or directory

// quant-run and quant-compile take the model directly, with the same
// errors.
// RUN: not quant-run %S/Inputs/unsupported.onnx 2>&1 | FileCheck %s --check-prefix=OP
// RUN: not quant-compile %S/Inputs/cnn.onnx -o %t.o 2>&1 | FileCheck %s --check-prefix=BATCH

// Transformer and recurrent ops: a negative Expand size, a Range without a
// finite length, a recurrent initial state of the wrong rank.
// RUN: not quant-translate --import-onnx %S/Inputs/expand_negative.onnx 2>&1 | FileCheck %s --check-prefix=EXPAND
// EXPAND: expand_negative.onnx:0:0: error: Expand node 'expand': the shape (-2, 3) has a negative size
// RUN: not quant-translate --import-onnx %S/Inputs/range_nan.onnx 2>&1 | FileCheck %s --check-prefix=RANGE
// RANGE: error: Range node 'range': start, limit and delta (0.000000e+00, nan, 1.000000e+00) give no finite element count
// RUN: not quant-translate --import-onnx %S/Inputs/gru_bad_state.onnx 2>&1 | FileCheck %s --check-prefix=STATE
// STATE: error: GRU node 'gru': initial state 'tensor<2x4xf32>' is not of rank 3

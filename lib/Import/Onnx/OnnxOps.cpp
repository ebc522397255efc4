//===- OnnxOps.cpp - One ONNX node to ops on tensors ----------------------===//
//
// Each translation emits the form quanta-quantize recognizes: a named
// linalg op (conv_2d_nchw_fchw, matmul, batch_matmul, pooling_nchw_*) into
// a zero fill, then a linalg.generic bias add with a broadcast constant,
// then elementwise generics whose bodies use ops the lookup-table evaluator
// knows (max/min, add, mul, div, exp, tanh) - e.g. LeakyRelu is
// max(x, 0) + alpha * min(x, 0), not a compare and select.
//
// This file holds the table of translations (op type, first opset, inputs
// that must be constants) and the helpers the op families share; the
// translations themselves are in OnnxOpsElementwise.cpp,
// OnnxOpsNormalization.cpp, OnnxOpsConv.cpp, OnnxOpsMatMul.cpp,
// OnnxOpsShape.cpp, OnnxOpsIndexing.cpp, OnnxOpsRecurrent.cpp and
// OnnxOpsQuant.cpp, declared in OnnxOps.h.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

FailureOr<int64_t> onnx_import::normalizeAxis(Graph &g, int64_t axis,
                                              int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return g.error() << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

Value onnx_import::floatConst(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

Value onnx_import::addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value onnx_import::maxF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}

namespace {
// Inputs that must be constants, as a mask.
constexpr uint32_t inputs(std::initializer_list<unsigned> indices) {
  uint32_t mask = 0;
  for (unsigned index : indices)
    mask |= 1u << index;
  return mask;
}

const llvm::StringMap<OpInfo> &opTable() {
  static const llvm::StringMap<OpInfo> table = {
      // Broadcasting as numpy since 7.
      {"Add", {translateBinary, 7, 0}},
      {"Sub", {translateBinary, 7, 0}},
      {"Mul", {translateBinary, 7, 0}},
      {"Div", {translateBinary, 7, 0}},
      // Version 1 had consumed_inputs.
      {"Relu", {translateUnary, 6, 0}},
      {"LeakyRelu", {translateUnary, 6, 0}},
      {"Sigmoid", {translateUnary, 6, 0}},
      {"Tanh", {translateUnary, 6, 0}},
      {"HardSigmoid", {translateUnary, 6, 0}},
      {"HardSwish", {translateUnary, 14, 0}},
      {"PRelu", {translatePRelu, 7, 0}},
      {"Erf", {translateMath, 9, 0}},
      {"Sqrt", {translateMath, 6, 0}},
      {"Reciprocal", {translateMath, 6, 0}},
      {"Exp", {translateMath, 6, 0}},
      {"Log", {translateMath, 6, 0}},
      {"Neg", {translateMath, 6, 0}},
      {"Abs", {translateMath, 6, 0}},
      {"Floor", {translateMath, 6, 0}},
      {"Ceil", {translateMath, 6, 0}},
      // The exponent's type became independent of the base's in 12.
      {"Pow", {translatePow, 7, 0}},
      // Variadic with broadcasting since 8.
      {"Min", {translateMinMax, 8, 0}},
      {"Max", {translateMinMax, 8, 0}},
      {"Equal", {translateCompare, 7, 0}},
      {"Less", {translateCompare, 7, 0}},
      {"Greater", {translateCompare, 7, 0}},
      {"LessOrEqual", {translateCompare, 12, 0}},
      {"GreaterOrEqual", {translateCompare, 12, 0}},
      {"Not", {translateLogical, 1, 0}},
      {"And", {translateLogical, 7, 0}},
      {"Or", {translateLogical, 7, 0}},
      {"Xor", {translateLogical, 7, 0}},
      {"Where", {translateWhere, 9, 0}},
      // `to` became an int attribute in 6.
      {"Cast", {translateCast, 6, 0}},
      // min and max became inputs in 11.
      {"Clip", {translateClip, 11, inputs({1, 2})}},
      // Before 13: coerced to 2-D at the axis.
      {"Softmax", {translateSoftmax, 1, 0}},
      {"LayerNormalization", {translateLayerNormalization, 17, 0}},
      // Axes stay an attribute up to opset 17, except ReduceSum's (13).
      {"ReduceMean", {translateReduce, 1, 0}},
      {"ReduceMax", {translateReduce, 1, 0}},
      {"ReduceMin", {translateReduce, 1, 0}},
      {"ReduceProd", {translateReduce, 1, 0}},
      {"ReduceSumSquare", {translateReduce, 1, 0}},
      {"ReduceL1", {translateReduce, 1, 0}},
      {"ReduceL2", {translateReduce, 1, 0}},
      {"ReduceSum", {translateReduce, 13, inputs({1})}},
      // Version 7 had `spatial`; 9 on is the inference formula here.
      {"BatchNormalization", {translateBatchNormalization, 9, 0}},
      {"Conv", {translateConv, 1, 0}},
      {"ConvTranspose", {translateConvTranspose, 1, 0}},
      {"MaxPool", {translatePool, 1, 0}},
      {"AveragePool", {translatePool, 1, 0}},
      {"GlobalAveragePool", {translatePool, 1, 0}},
      {"GlobalMaxPool", {translatePool, 1, 0}},
      {"MatMul", {translateMatMul, 1, 0}},
      // Version 6 had `broadcast`.
      {"Gemm", {translateGemm, 7, 0}},
      {"Einsum", {translateEinsum, 12, 0}},
      {"Identity", {translateIdentity, 1, 0}},
      {"Constant", {translateConstant, 1, 0}},
      {"Flatten", {translateReshapeLike, 1, 0}},
      // The shape became an input in 5; axes of (Un)Squeeze in 13.
      {"Reshape", {translateReshapeLike, 5, inputs({1})}},
      {"Squeeze", {translateReshapeLike, 1, inputs({1})}},
      {"Unsqueeze", {translateReshapeLike, 1, inputs({1})}},
      {"Transpose", {translateTranspose, 1, 0}},
      {"Concat", {translateConcat, 4, 0}},
      {"Split", {translateSplit, 2, inputs({1})}},
      // Starts, ends, axes and steps became inputs in 10; pads in 11.
      {"Slice", {translateSlice, 10, inputs({1, 2, 3, 4})}},
      {"Pad", {translatePad, 11, inputs({1, 2, 3})}},
      {"Shape", {translateShape, 1, 0}},
      {"Size", {translateSize, 1, 0}},
      {"ConstantOfShape", {translateConstantOfShape, 9, inputs({0})}},
      {"Range", {translateRange, 11, inputs({0, 1, 2})}},
      {"Expand", {translateExpand, 8, inputs({1})}},
      // Version 1 had `axis` and `tiles` inputs.
      {"Tile", {translateTile, 6, inputs({1})}},
      {"Gather", {translateGather, 1, 0}},
      {"GatherElements", {translateGather, 11, 0}},
      {"Trilu", {translateTrilu, 14, inputs({1})}},
      // Weights, biases, peepholes and sequence_lens are constants; layout
      // came in 14 (0 before, the default).
      {"RNN", {translateRecurrent, 7, inputs({1, 2, 3, 4})}},
      {"GRU", {translateRecurrent, 7, inputs({1, 2, 3, 4})}},
      {"LSTM", {translateRecurrent, 7, inputs({1, 2, 3, 4, 7})}},
      {"QuantizeLinear", {translateQuantizeLinear, 10, inputs({1, 2})}},
      {"DequantizeLinear", {translateDequantizeLinear, 10, inputs({1, 2})}},
      {"QLinearConv", {translateQLinear, 10, inputs({1, 2, 4, 5, 6, 7, 8})}},
      {"QLinearMatMul", {translateQLinear, 10, inputs({1, 2, 4, 5, 6, 7})}},
      {"ConvInteger", {translateIntegerProduct, 10, 0}},
      {"MatMulInteger", {translateIntegerProduct, 10, 0}},
      {"DynamicQuantizeLinear", {translateDynamicQuantizeLinear, 11, 0}},
  };
  return table;
}
} // namespace

const OpInfo *mlir::quanta::onnx_import::lookupOp(StringRef opType) {
  auto it = opTable().find(opType);
  return it == opTable().end() ? nullptr : &it->second;
}

ArrayRef<StringRef> mlir::quanta::onnx_import::supportedOps() {
  static const SmallVector<StringRef> ops = [] {
    SmallVector<StringRef> keys;
    for (const auto &entry : opTable())
      keys.push_back(entry.getKey());
    llvm::sort(keys);
    return keys;
  }();
  return ops;
}

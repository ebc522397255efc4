//===- OnnxOpsNormalization.cpp - Normalizations and reductions -----------===//
//
// Translates Softmax, LayerNormalization, the reductions (ReduceMean, Sum,
// Max, Min, Prod, SumSquare, L1, L2) and BatchNormalization (inference).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include <limits>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

/// The mean of `x` over `axes`, kept as size-1 dims. Over H and W of an
/// NCHW tensor it is a global average pooling, the form quanta-quantize
/// runs on integers.
static Value mean(Graph &g, Value x, ArrayRef<int64_t> axes) {
  RankedTensorType type = tensorType(x);
  int64_t count = 1;
  for (int64_t axis : axes)
    count *= type.getDimSize(axis);
  SmallVector<int64_t> sorted(axes);
  llvm::sort(sorted);
  Value sum;
  if (type.getRank() == 4 && sorted == SmallVector<int64_t>{2, 3}) {
    SmallVector<int64_t> one = {1, 1};
    Value window = tensor::EmptyOp::create(
        g.b, g.loc, type.getShape().drop_front(2), type.getElementType());
    auto sumType = withShape(
        x, {type.getDimSize(0), type.getDimSize(1), int64_t(1), int64_t(1)});
    sum = linalg::PoolingNchwSumOp::create(
              g.b, g.loc, TypeRange{sumType}, ValueRange{x, window},
              ValueRange{g.filled(sumType, 0.0)}, g.b.getI64TensorAttr(one),
              g.b.getI64TensorAttr(one))
              .getResult(0);
  } else {
    sum = g.reduce(x, axes, /*keepDims=*/true, 0.0, addF);
  }
  return g.elementwise({sum}, tensorType(sum),
                       [&](OpBuilder &b, Location loc, ValueRange a) {
                         return arith::DivFOp::create(
                             b, loc, a[0], floatConst(b, loc, double(count)));
                       });
}

LogicalResult onnx_import::translateSoftmax(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const int64_t rank = type.getRank();
  auto axis = normalizeAxis(g, g.intAttr("axis", g.opset >= 13 ? -1 : 1), rank);
  if (failed(axis))
    return failure();
  // Before opset 13 the input is coerced to 2-D at `axis`.
  Value input = *x;
  int64_t softmaxAxis = *axis;
  if (g.opset < 13) {
    int64_t outer = 1, inner = 1;
    for (int64_t dim = 0; dim < rank; ++dim)
      (dim < *axis ? outer : inner) *= type.getDimSize(dim);
    input = g.reshape(*x, {outer, inner});
    softmaxAxis = 1;
  }
  RankedTensorType inputType = tensorType(input);
  Value max = g.reduce(input, {softmaxAxis}, true,
                       -std::numeric_limits<double>::infinity(), maxF);
  Value exp = g.elementwise(
      {input, max}, inputType, [](OpBuilder &b, Location loc, ValueRange a) {
        return math::ExpOp::create(b, loc,
                                   arith::SubFOp::create(b, loc, a[0], a[1]));
      });
  Value sum = g.reduce(exp, {softmaxAxis}, true, 0.0, addF);
  Value result = g.elementwise(
      {exp, sum}, inputType, [](OpBuilder &b, Location loc, ValueRange a) {
        return arith::DivFOp::create(b, loc, a[0], a[1]);
      });
  g.setOutput(0, g.reshape(result, type.getShape()));
  return success();
}

LogicalResult onnx_import::translateLayerNormalization(Graph &g) {
  auto x = g.floatInput(0, "the input"), scale = g.input(1);
  if (failed(x) || failed(scale))
    return failure();
  RankedTensorType type = tensorType(*x);
  auto axis = normalizeAxis(g, g.intAttr("axis", -1), type.getRank());
  if (failed(axis))
    return failure();
  if (g.intAttr("stash_type", 1) != 1)
    return g.error() << "stash_type " << g.intAttr("stash_type", 1)
                     << " is not supported (only 1, float)";
  const float epsilon = g.floatAttr("epsilon", 1e-5f);
  SmallVector<int64_t> axes;
  for (int64_t dim = *axis; dim < type.getRank(); ++dim)
    axes.push_back(dim);
  Value mu = mean(g, *x, axes);
  Value centered = g.elementwise(
      {*x, mu}, type, [](OpBuilder &b, Location loc, ValueRange a) {
        return arith::SubFOp::create(b, loc, a[0], a[1]);
      });
  Value squared = g.elementwise(
      {centered}, type, [](OpBuilder &b, Location loc, ValueRange a) {
        return arith::MulFOp::create(b, loc, a[0], a[0]);
      });
  Value variance = mean(g, squared, axes);
  Value invStdDev = g.elementwise(
      {variance}, tensorType(variance),
      [&](OpBuilder &b, Location loc, ValueRange a) {
        Value sd = math::SqrtOp::create(
            b, loc,
            arith::AddFOp::create(b, loc, a[0], floatConst(b, loc, epsilon)));
        return arith::DivFOp::create(b, loc, floatConst(b, loc, 1), sd);
      });
  SmallVector<Value> operands = {centered, invStdDev, *scale};
  if (g.hasInput(2)) {
    auto bias = g.input(2);
    if (failed(bias))
      return failure();
    operands.push_back(*bias);
  }
  for (Value operand : ArrayRef<Value>(operands).drop_front(2)) {
    auto shape =
        broadcastShapes(type.getShape(), tensorType(operand).getShape());
    if (!shape || *shape != type.getShape())
      return g.error() << operand.getType() << " does not broadcast to the "
                       << "input " << type;
  }
  Value y = g.elementwise(
      operands, type, [](OpBuilder &b, Location loc, ValueRange a) {
        Value v = arith::MulFOp::create(
            b, loc, arith::MulFOp::create(b, loc, a[0], a[1]), a[2]);
        return a.size() > 3 ? addF(b, loc, v, a[3]) : v;
      });
  g.setOutput(0, y);
  g.setOutput(1, mu);
  g.setOutput(2, invStdDev);
  return success();
}

LogicalResult onnx_import::translateReduce(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const std::string &op = g.node->op_type();
  // ReduceSum's axes became an input in opset 13 (the others' in 18).
  std::optional<SmallVector<int64_t>> given = g.intsAttr("axes");
  if (g.hasInput(1)) {
    auto axesInput = g.constantInts(1, "axes");
    if (failed(axesInput))
      return failure();
    given = *axesInput;
  }
  if (given && given->empty())
    given.reset();
  if (!given && g.intAttr("noop_with_empty_axes", 0)) {
    g.setOutput(0, *x);
    return success();
  }
  SmallVector<int64_t> axes;
  if (given) {
    for (int64_t axis : *given) {
      auto normalized = normalizeAxis(g, axis, type.getRank());
      if (failed(normalized))
        return failure();
      if (llvm::is_contained(axes, *normalized))
        return g.error() << "axis " << axis << " appears twice";
      axes.push_back(*normalized);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  }
  auto square = [](OpBuilder &b, Location loc, ValueRange a) -> Value {
    return arith::MulFOp::create(b, loc, a[0], a[0]);
  };
  Value result;
  if (op == "ReduceMean") {
    result = mean(g, *x, axes);
  } else if (op == "ReduceMax" || op == "ReduceMin") {
    // NaN propagates, as in ONNX Runtime and numpy.
    const double inf = std::numeric_limits<double>::infinity();
    result = g.reduce(
        *x, axes, true, op == "ReduceMax" ? -inf : inf,
        op == "ReduceMax"
            ? maxF
            : [](OpBuilder &b, Location loc, Value x, Value y) {
                return Value(arith::MinimumFOp::create(b, loc, x, y));
              });
  } else if (op == "ReduceProd") {
    result = g.reduce(*x, axes, true, 1.0,
                      [](OpBuilder &b, Location loc, Value x, Value y) {
                        return Value(arith::MulFOp::create(b, loc, x, y));
                      });
  } else {
    // ReduceSum, ReduceSumSquare, ReduceL1, ReduceL2.
    Value summed = *x;
    if (op == "ReduceSumSquare" || op == "ReduceL2")
      summed = g.elementwise({*x}, type, square);
    if (op == "ReduceL1")
      summed = g.elementwise({*x}, type,
                             [](OpBuilder &b, Location loc, ValueRange a) {
                               return math::AbsFOp::create(b, loc, a[0]);
                             });
    result = g.reduce(summed, axes, true, 0.0, addF);
    if (op == "ReduceL2")
      result = g.elementwise({result}, tensorType(result),
                             [](OpBuilder &b, Location loc, ValueRange a) {
                               return math::SqrtOp::create(b, loc, a[0]);
                             });
  }
  if (!g.intAttr("keepdims", 1)) {
    SmallVector<int64_t> shape;
    for (int64_t dim = 0; dim < type.getRank(); ++dim)
      if (!llvm::is_contained(axes, dim))
        shape.push_back(type.getDimSize(dim));
    result = g.reshape(result, shape);
  }
  g.setOutput(0, result);
  return success();
}

LogicalResult onnx_import::translateBatchNormalization(Graph &g) {
  if (g.intAttr("training_mode", 0) != 0)
    return g.error() << "training_mode = 1 is not supported (inference only)";
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  if (type.getRank() < 2)
    return g.error() << "the input " << type << " has no channel dimension";
  const int64_t channels = type.getDimSize(1);
  SmallVector<Value> params = {*x};
  for (int index = 1; index <= 4; ++index) {
    auto param = g.input(index);
    if (failed(param))
      return failure();
    if (tensorType(*param).getShape() != ArrayRef<int64_t>{channels})
      return g.error() << "parameter " << index << " has type "
                       << param->getType() << ", expected " << channels
                       << " values";
    // [C] broadcast along dimension 1.
    SmallVector<int64_t> shape(type.getRank() - 1, 1);
    shape[0] = channels;
    params.push_back(g.reshape(*param, shape));
  }
  const float epsilon = g.floatAttr("epsilon", 1e-5f);
  g.setOutput(
      0, g.elementwise(
             params, type, [&](OpBuilder &b, Location loc, ValueRange a) {
               // (x - mean) / sqrt(var + eps) * scale + bias
               Value sd = math::SqrtOp::create(
                   b, loc, addF(b, loc, a[4], floatConst(b, loc, epsilon)));
               Value normalized = arith::DivFOp::create(
                   b, loc, arith::SubFOp::create(b, loc, a[0], a[3]), sd);
               return addF(b, loc,
                           arith::MulFOp::create(b, loc, normalized, a[1]),
                           a[2]);
             }));
  return success();
}

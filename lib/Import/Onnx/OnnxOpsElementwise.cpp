//===- OnnxOpsElementwise.cpp - Arithmetic and activations ----------------===//
//
// Translates Add, Sub, Mul, Div (numpy broadcasting), Relu, LeakyRelu,
// Sigmoid, Tanh, HardSigmoid, HardSwish, PRelu and Clip.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

LogicalResult onnx_import::translateBinary(Graph &g) {
  auto lhs = g.input(0), rhs = g.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  RankedTensorType lhsType = tensorType(*lhs), rhsType = tensorType(*rhs);
  if (lhsType.getElementType() != rhsType.getElementType())
    return g.error() << "operands of types " << lhsType << " and " << rhsType
                     << " differ in element type";
  auto shape = broadcastShapes(lhsType.getShape(), rhsType.getShape());
  if (!shape)
    return g.error() << "shapes of " << lhsType << " and " << rhsType
                     << " do not broadcast";
  Type element = lhsType.getElementType();
  const bool isFloat = isa<FloatType>(element);
  const bool isUnsigned = g.isUnsigned(*lhs);
  if (!isFloat && (!isa<IntegerType>(element) || element.isInteger(1)))
    return g.error() << "element type " << element << " is not supported";
  const std::string &op = g.node->op_type();
  Value result = g.elementwise(
      {*lhs, *rhs}, RankedTensorType::get(*shape, element),
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        Value x = args[0], y = args[1];
        if (op == "Add")
          return isFloat ? Value(arith::AddFOp::create(b, loc, x, y))
                         : Value(arith::AddIOp::create(b, loc, x, y));
        if (op == "Sub")
          return isFloat ? Value(arith::SubFOp::create(b, loc, x, y))
                         : Value(arith::SubIOp::create(b, loc, x, y));
        if (op == "Mul")
          return isFloat ? Value(arith::MulFOp::create(b, loc, x, y))
                         : Value(arith::MulIOp::create(b, loc, x, y));
        if (isFloat)
          return arith::DivFOp::create(b, loc, x, y);
        return isUnsigned ? Value(arith::DivUIOp::create(b, loc, x, y))
                          : Value(arith::DivSIOp::create(b, loc, x, y));
      });
  g.setOutput(0, result, isUnsigned);
  return success();
}

/// A float unary op: `body` on each element.
static LogicalResult translateUnaryWith(Graph &g, Body body) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  g.setOutput(0, g.elementwise({*x}, type, body));
  return success();
}

/// max(x, 0) + slope * min(x, 0): LeakyRelu and PRelu.
static Value leaky(OpBuilder &b, Location loc, Value x, Value slope) {
  Value zero = floatConst(b, loc, 0.0);
  Value positive = arith::MaximumFOp::create(b, loc, x, zero);
  Value negative = arith::MinimumFOp::create(b, loc, x, zero);
  return arith::AddFOp::create(b, loc, positive,
                               arith::MulFOp::create(b, loc, slope, negative));
}

/// max(0, min(1, alpha * x + beta)).
static Value hardSigmoid(OpBuilder &b, Location loc, Value x, float alpha,
                         float beta) {
  Value linear = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, floatConst(b, loc, alpha), x),
      floatConst(b, loc, beta));
  return arith::MaximumFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, linear, floatConst(b, loc, 1)),
      floatConst(b, loc, 0));
}

LogicalResult onnx_import::translateUnary(Graph &g) {
  const std::string &op = g.node->op_type();
  if (op == "Relu")
    return translateUnaryWith(g, [](OpBuilder &b, Location loc, ValueRange a) {
      return arith::MaximumFOp::create(b, loc, a[0], floatConst(b, loc, 0));
    });
  if (op == "LeakyRelu") {
    float alpha = g.floatAttr("alpha", 0.01f);
    return translateUnaryWith(g, [&](OpBuilder &b, Location loc, ValueRange a) {
      return leaky(b, loc, a[0], floatConst(b, loc, alpha));
    });
  }
  if (op == "Sigmoid")
    return translateUnaryWith(g, [](OpBuilder &b, Location loc, ValueRange a) {
      Value e =
          math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, a[0]));
      return arith::DivFOp::create(
          b, loc, floatConst(b, loc, 1),
          arith::AddFOp::create(b, loc, floatConst(b, loc, 1), e));
    });
  if (op == "Tanh")
    return translateUnaryWith(g, [](OpBuilder &b, Location loc, ValueRange a) {
      return math::TanhOp::create(b, loc, a[0]);
    });
  if (op == "HardSigmoid") {
    float alpha = g.floatAttr("alpha", 0.2f), beta = g.floatAttr("beta", 0.5f);
    return translateUnaryWith(g, [&](OpBuilder &b, Location loc, ValueRange a) {
      return hardSigmoid(b, loc, a[0], alpha, beta);
    });
  }
  // HardSwish: x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
  return translateUnaryWith(g, [](OpBuilder &b, Location loc, ValueRange a) {
    return arith::MulFOp::create(b, loc, a[0],
                                 hardSigmoid(b, loc, a[0], 1.0f / 6, 0.5f));
  });
}

LogicalResult onnx_import::translatePRelu(Graph &g) {
  auto x = g.floatInput(0, "the input"), slope = g.floatInput(1, "the slope");
  if (failed(x) || failed(slope))
    return failure();
  RankedTensorType type = tensorType(*x);
  auto shape = broadcastShapes(type.getShape(), tensorType(*slope).getShape());
  if (!shape || *shape != type.getShape())
    return g.error() << "the slope " << slope->getType()
                     << " does not broadcast to the input " << type;
  g.setOutput(0, g.elementwise({*x, *slope}, type,
                               [](OpBuilder &b, Location loc, ValueRange a) {
                                 return leaky(b, loc, a[0], a[1]);
                               }));
  return success();
}

LogicalResult onnx_import::translateClip(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  std::optional<float> lo, hi;
  for (int index : {1, 2}) {
    if (!g.hasInput(index))
      continue;
    auto bound = g.constantFloat(index, index == 1 ? "min" : "max");
    if (failed(bound))
      return failure();
    (index == 1 ? lo : hi) = *bound;
  }
  if (!lo && !hi) {
    g.setOutput(0, *x);
    return success();
  }
  g.setOutput(
      0,
      g.elementwise({*x}, type, [&](OpBuilder &b, Location loc, ValueRange a) {
        Value v = a[0];
        if (lo)
          v = arith::MaximumFOp::create(b, loc, v, floatConst(b, loc, *lo));
        if (hi)
          v = arith::MinimumFOp::create(b, loc, v, floatConst(b, loc, *hi));
        return v;
      }));
  return success();
}

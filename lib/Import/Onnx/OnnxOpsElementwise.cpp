//===- OnnxOpsElementwise.cpp - Arithmetic and activations ----------------===//
//
// Translates Add, Sub, Mul, Div (numpy broadcasting), Relu, LeakyRelu,
// Sigmoid, Tanh, HardSigmoid, HardSwish, PRelu, Clip, the math functions
// (Erf, Sqrt, Reciprocal, Exp, Log, Neg, Abs, Floor, Ceil, Pow), Min and
// Max, comparisons, logical ops, Where and Cast. On constants (shape
// computations, masks) each computes at import through foldGeneric.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

/// `product` + `bias` when `product` is a MatMul's [rows, N] GEMM result
/// the importer reshaped to [..., M, N] (a Linear of a 3-D activation, as
/// every transformer has) and `bias` a constant of N values: the add on the
/// GEMM's rows, then the reshape, so that the GEMM and its bias stay the
/// Linear form quanta-quantize makes an int8 GEMM. Else null.
static Value addBiasBeforeReshape(Graph &g, Value product, Value bias) {
  auto expand = product.getDefiningOp<tensor::ExpandShapeOp>();
  RankedTensorType biasType = tensorType(bias);
  if (!expand || !expand.getSrc().getDefiningOp<linalg::MatmulOp>() ||
      !matchPattern(bias, m_Constant()) || biasType.getRank() == 0 ||
      biasType.getRank() > tensorType(product).getRank())
    return nullptr;
  RankedTensorType rowsType = tensorType(expand.getSrc());
  const int64_t n = rowsType.getDimSize(1);
  if (biasType.getNumElements() != n || biasType.getShape().back() != n)
    return nullptr;
  Value rows = g.elementwise({expand.getSrc(), g.reshape(bias, {n})}, rowsType,
                             [](OpBuilder &b, Location loc, ValueRange a) {
                               return addF(b, loc, a[0], a[1]);
                             });
  return g.reshape(rows, tensorType(product).getShape());
}

LogicalResult onnx_import::translateBinary(Graph &g) {
  auto lhs = g.input(0), rhs = g.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  if (g.node->op_type() == "Add" && tensorType(*lhs).getElementType().isF32() &&
      tensorType(*rhs).getElementType().isF32())
    for (auto [product, bias] : {std::pair(*lhs, *rhs), std::pair(*rhs, *lhs)})
      if (Value sum = addBiasBeforeReshape(g, product, bias)) {
        g.setOutput(0, sum);
        return success();
      }
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

bool onnx_import::activationTakesAlpha(StringRef name) {
  return llvm::is_contained({"LeakyRelu", "ThresholdedRelu", "ScaledTanh",
                             "HardSigmoid", "Elu", "Affine"},
                            name);
}

bool onnx_import::activationTakesBeta(StringRef name) {
  return llvm::is_contained({"ScaledTanh", "HardSigmoid", "Affine"}, name);
}

ScalarFunction onnx_import::getActivation(StringRef name,
                                          std::optional<float> alpha,
                                          std::optional<float> beta) {
  auto c = [](OpBuilder &b, Location loc, double v) {
    return floatConst(b, loc, v);
  };
  if (name == "Relu")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return arith::MaximumFOp::create(b, loc, x, c(b, loc, 0));
    };
  if (name == "Sigmoid")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      Value e = math::ExpOp::create(b, loc, arith::NegFOp::create(b, loc, x));
      return arith::DivFOp::create(
          b, loc, c(b, loc, 1), arith::AddFOp::create(b, loc, c(b, loc, 1), e));
    };
  if (name == "Tanh")
    return [](OpBuilder &b, Location loc, Value x) -> Value {
      return math::TanhOp::create(b, loc, x);
    };
  if (name == "LeakyRelu")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return leaky(b, loc, x, c(b, loc, alpha.value_or(0.01f)));
    };
  if (name == "HardSigmoid")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return hardSigmoid(b, loc, x, alpha.value_or(0.2f), beta.value_or(0.5f));
    };
  if (name == "Affine")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return arith::AddFOp::create(
          b, loc,
          arith::MulFOp::create(b, loc, c(b, loc, alpha.value_or(1.0f)), x),
          c(b, loc, beta.value_or(0.0f)));
    };
  if (name == "ScaledTanh")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      Value scaled =
          arith::MulFOp::create(b, loc, c(b, loc, beta.value_or(1.0f)), x);
      return arith::MulFOp::create(b, loc, c(b, loc, alpha.value_or(1.0f)),
                                   math::TanhOp::create(b, loc, scaled));
    };
  if (name == "ThresholdedRelu")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      Value above = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGT, x,
                                          c(b, loc, alpha.value_or(1.0f)));
      return arith::SelectOp::create(b, loc, above, x, c(b, loc, 0));
    };
  if (name == "Elu")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      Value negative = arith::MulFOp::create(
          b, loc, c(b, loc, alpha.value_or(1.0f)),
          arith::SubFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                                c(b, loc, 1)));
      Value positive = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE,
                                             x, c(b, loc, 0));
      return arith::SelectOp::create(b, loc, positive, x, negative);
    };
  if (name == "Softsign")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return arith::DivFOp::create(
          b, loc, x,
          arith::AddFOp::create(b, loc, c(b, loc, 1),
                                math::AbsFOp::create(b, loc, x)));
    };
  if (name == "Softplus")
    return [=](OpBuilder &b, Location loc, Value x) -> Value {
      return math::LogOp::create(
          b, loc,
          arith::AddFOp::create(b, loc, math::ExpOp::create(b, loc, x),
                                c(b, loc, 1)));
    };
  return nullptr;
}

LogicalResult onnx_import::translateUnary(Graph &g) {
  const std::string &op = g.node->op_type();
  std::optional<float> alpha, beta;
  if (g.attribute("alpha"))
    alpha = g.floatAttr("alpha", 0);
  if (g.attribute("beta"))
    beta = g.floatAttr("beta", 0);
  ScalarFunction activation = op == "HardSwish"
      // x * HardSigmoid(x) with alpha = 1/6, beta = 0.5.
      ? [](OpBuilder &b, Location loc, Value x) -> Value {
    return arith::MulFOp::create(b, loc, x,
                                 hardSigmoid(b, loc, x, 1.0f / 6, 0.5f));
  }
  : getActivation(op, alpha, beta);
  return translateUnaryWith(g, [&](OpBuilder &b, Location loc, ValueRange a) {
    return activation(b, loc, a[0]);
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

/// The numpy broadcast of the inputs' shapes, or an error.
static FailureOr<SmallVector<int64_t>> broadcastInputs(Graph &g,
                                                       ValueRange inputs) {
  SmallVector<int64_t> shape;
  for (Value input : inputs) {
    auto next = broadcastShapes(shape, tensorType(input).getShape());
    if (!next)
      return g.error() << "the shapes of the inputs ("
                       << llvm::interleaved(llvm::map_range(
                              inputs, [](Value v) { return v.getType(); }))
                       << ") do not broadcast";
    shape = *next;
  }
  return shape;
}

/// The node's inputs `first` to the last, or failure.
static FailureOr<SmallVector<Value>> inputsFrom(Graph &g, int first) {
  SmallVector<Value> inputs;
  for (int i = first; i < g.node->input_size(); ++i) {
    auto value = g.input(i);
    if (failed(value))
      return failure();
    inputs.push_back(*value);
  }
  return inputs;
}

LogicalResult onnx_import::translateMath(Graph &g) {
  const std::string &op = g.node->op_type();
  auto x = g.input(0);
  if (failed(x))
    return failure();
  Type element = tensorType(*x).getElementType();
  const bool isInteger = isa<IntegerType>(element) && !element.isInteger(1);
  if (!element.isF32() && !(isInteger && (op == "Neg" || op == "Abs")))
    return g.error() << "the input has element type " << element
                     << "; the importer computes " << op << " in f32"
                     << (op == "Neg" || op == "Abs" ? " or integers" : "");
  if (isInteger && g.isUnsigned(*x))
    return g.error() << op << " of uint8 is not supported";
  g.setOutput(
      0, g.elementwise(
             {*x}, tensorType(*x),
             [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
               Value v = a[0];
               if (op == "Neg")
                 return isInteger
                            ? Value(arith::SubIOp::create(
                                  b, loc,
                                  arith::ConstantOp::create(
                                      b, loc, b.getIntegerAttr(element, 0)),
                                  v))
                            : arith::NegFOp::create(b, loc, v);
               if (op == "Abs")
                 return isInteger ? Value(math::AbsIOp::create(b, loc, v))
                                  : math::AbsFOp::create(b, loc, v);
               if (op == "Erf")
                 return math::ErfOp::create(b, loc, v);
               if (op == "Sqrt")
                 return math::SqrtOp::create(b, loc, v);
               if (op == "Exp")
                 return math::ExpOp::create(b, loc, v);
               if (op == "Log")
                 return math::LogOp::create(b, loc, v);
               if (op == "Floor")
                 return math::FloorOp::create(b, loc, v);
               if (op == "Ceil")
                 return math::CeilOp::create(b, loc, v);
               // Reciprocal.
               return arith::DivFOp::create(b, loc, floatConst(b, loc, 1), v);
             }));
  return success();
}

LogicalResult onnx_import::translatePow(Graph &g) {
  auto x = g.floatInput(0, "the base");
  auto y = g.input(1);
  if (failed(x) || failed(y))
    return failure();
  auto shape = broadcastInputs(g, {*x, *y});
  if (failed(shape))
    return failure();
  auto resultType = RankedTensorType::get(*shape, g.b.getF32Type());
  // A constant exponent as PyTorch computes it: x * x for 2 (LayerNorm's
  // variance), sqrt for 0.5, powf otherwise.
  DenseElementsAttr exponent = g.constantInput(1);
  std::optional<double> power;
  if (exponent && exponent.isSplat() && tensorType(*y).getRank() <= 1 &&
      broadcastShapes(tensorType(*x).getShape(), tensorType(*y).getShape()) ==
          SmallVector<int64_t>(tensorType(*x).getShape())) {
    Attribute value = exponent.getSplatValue<Attribute>();
    if (auto f = dyn_cast<FloatAttr>(value))
      power = f.getValueAsDouble();
    else if (auto i = dyn_cast<IntegerAttr>(value))
      power = double(i.getValue().getSExtValue());
  }
  if (power && (*power == 1 || *power == 2 || *power == 3 || *power == 0.5)) {
    g.setOutput(0, g.elementwise(
                       {*x}, resultType,
                       [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                         Value v = a[0];
                         if (*power == 0.5)
                           return math::SqrtOp::create(b, loc, v);
                         Value result = v;
                         for (int i = 1; i < int(*power); ++i)
                           result = arith::MulFOp::create(b, loc, result, v);
                         return result;
                       }));
    return success();
  }
  Type exponentElement = tensorType(*y).getElementType();
  if (!exponentElement.isF32() &&
      !(isa<IntegerType>(exponentElement) && !exponentElement.isInteger(1)))
    return g.error() << "the exponent has element type " << exponentElement
                     << "; f32 or an integer is supported";
  g.setOutput(0, g.elementwise(
                     {*x, *y}, resultType,
                     [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                       Value e = a[1];
                       if (!e.getType().isF32())
                         e = arith::SIToFPOp::create(b, loc, b.getF32Type(), e);
                       return math::PowFOp::create(b, loc, a[0], e);
                     }));
  return success();
}

LogicalResult onnx_import::translateMinMax(Graph &g) {
  auto inputs = inputsFrom(g, 0);
  if (failed(inputs))
    return failure();
  if (inputs->empty())
    return g.error() << "the op has no inputs";
  Type element = tensorType(inputs->front()).getElementType();
  const bool isUnsigned = g.isUnsigned(inputs->front());
  for (Value input : *inputs)
    if (tensorType(input).getElementType() != element ||
        g.isUnsigned(input) != isUnsigned)
      return g.error() << "the inputs differ in element type";
  if (!element.isF32() && (!isa<IntegerType>(element) || element.isInteger(1)))
    return g.error() << "element type " << element << " is not supported";
  auto shape = broadcastInputs(g, *inputs);
  if (failed(shape))
    return failure();
  const bool isMax = g.node->op_type() == "Max";
  g.setOutput(
      0,
      g.elementwise(
          *inputs, RankedTensorType::get(*shape, element),
          [&](OpBuilder &b, Location loc, ValueRange a) {
            Value result = a[0];
            for (Value v : a.drop_front()) {
              // NaN propagates, as in numpy's maximum and ONNX Runtime.
              if (element.isF32())
                result =
                    isMax ? Value(arith::MaximumFOp::create(b, loc, result, v))
                          : arith::MinimumFOp::create(b, loc, result, v);
              else if (isUnsigned)
                result = isMax
                             ? Value(arith::MaxUIOp::create(b, loc, result, v))
                             : arith::MinUIOp::create(b, loc, result, v);
              else
                result = isMax
                             ? Value(arith::MaxSIOp::create(b, loc, result, v))
                             : arith::MinSIOp::create(b, loc, result, v);
            }
            return result;
          }),
      isUnsigned);
  return success();
}

LogicalResult onnx_import::translateCompare(Graph &g) {
  auto lhs = g.input(0), rhs = g.input(1);
  if (failed(lhs) || failed(rhs))
    return failure();
  Type element = tensorType(*lhs).getElementType();
  if (element != tensorType(*rhs).getElementType() ||
      g.isUnsigned(*lhs) != g.isUnsigned(*rhs))
    return g.error() << "operands of types " << lhs->getType() << " and "
                     << rhs->getType() << " differ in element type";
  if (!element.isF32() && !isa<IntegerType>(element))
    return g.error() << "element type " << element << " is not supported";
  auto shape = broadcastInputs(g, {*lhs, *rhs});
  if (failed(shape))
    return failure();
  const std::string &op = g.node->op_type();
  const bool isUnsigned = g.isUnsigned(*lhs) || element.isInteger(1);
  // Ordered float predicates: a comparison with NaN is false, as in ONNX.
  arith::CmpFPredicate floatPredicate =
      op == "Equal"         ? arith::CmpFPredicate::OEQ
      : op == "Less"        ? arith::CmpFPredicate::OLT
      : op == "LessOrEqual" ? arith::CmpFPredicate::OLE
      : op == "Greater"     ? arith::CmpFPredicate::OGT
                            : arith::CmpFPredicate::OGE;
  arith::CmpIPredicate intPredicate =
      op == "Equal" ? arith::CmpIPredicate::eq
      : op == "Less"
          ? (isUnsigned ? arith::CmpIPredicate::ult : arith::CmpIPredicate::slt)
      : op == "LessOrEqual"
          ? (isUnsigned ? arith::CmpIPredicate::ule : arith::CmpIPredicate::sle)
      : op == "Greater"
          ? (isUnsigned ? arith::CmpIPredicate::ugt : arith::CmpIPredicate::sgt)
          : (isUnsigned ? arith::CmpIPredicate::uge
                        : arith::CmpIPredicate::sge);
  g.setOutput(
      0, g.elementwise(
             {*lhs, *rhs}, RankedTensorType::get(*shape, g.b.getI1Type()),
             [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
               if (element.isF32())
                 return arith::CmpFOp::create(b, loc, floatPredicate, a[0],
                                              a[1]);
               return arith::CmpIOp::create(b, loc, intPredicate, a[0], a[1]);
             }));
  return success();
}

LogicalResult onnx_import::translateLogical(Graph &g) {
  auto inputs = inputsFrom(g, 0);
  if (failed(inputs))
    return failure();
  for (Value input : *inputs)
    if (!tensorType(input).getElementType().isInteger(1))
      return g.error() << "input of type " << input.getType()
                       << " is not a bool tensor";
  auto shape = broadcastInputs(g, *inputs);
  if (failed(shape))
    return failure();
  const std::string &op = g.node->op_type();
  g.setOutput(
      0, g.elementwise(*inputs, RankedTensorType::get(*shape, g.b.getI1Type()),
                       [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
                         if (op == "Not")
                           return arith::XOrIOp::create(
                               b, loc, a[0],
                               arith::ConstantOp::create(b, loc,
                                                         b.getBoolAttr(true)));
                         if (op == "And")
                           return arith::AndIOp::create(b, loc, a[0], a[1]);
                         if (op == "Or")
                           return arith::OrIOp::create(b, loc, a[0], a[1]);
                         return arith::XOrIOp::create(b, loc, a[0], a[1]);
                       }));
  return success();
}

LogicalResult onnx_import::translateWhere(Graph &g) {
  auto inputs = inputsFrom(g, 0);
  if (failed(inputs))
    return failure();
  if (inputs->size() != 3)
    return g.error() << "expected 3 inputs (condition, X, Y), got "
                     << inputs->size();
  Value condition = (*inputs)[0], x = (*inputs)[1], y = (*inputs)[2];
  if (!tensorType(condition).getElementType().isInteger(1))
    return g.error() << "the condition " << condition.getType()
                     << " is not a bool tensor";
  if (tensorType(x).getElementType() != tensorType(y).getElementType() ||
      g.isUnsigned(x) != g.isUnsigned(y))
    return g.error() << "X " << x.getType() << " and Y " << y.getType()
                     << " differ in element type";
  auto shape = broadcastInputs(g, *inputs);
  if (failed(shape))
    return failure();
  g.setOutput(0,
              g.elementwise(
                  *inputs,
                  RankedTensorType::get(*shape, tensorType(x).getElementType()),
                  [](OpBuilder &b, Location loc, ValueRange a) {
                    return arith::SelectOp::create(b, loc, a[0], a[1], a[2]);
                  }),
              g.isUnsigned(x));
  return success();
}

/// `v` of element `from` (unsigned if `fromUnsigned`) converted to `to`
/// as ONNX's Cast does: floats to integers toward zero, to bool as != 0.
static Value convert(OpBuilder &b, Location loc, Value v, Type from,
                     bool fromUnsigned, Type to) {
  if (from == to)
    return v;
  const bool fromFloat = isa<FloatType>(from), toFloat = isa<FloatType>(to);
  if (to.isInteger(1)) {
    if (fromFloat)
      return arith::CmpFOp::create(
          b, loc, arith::CmpFPredicate::UNE, v,
          arith::ConstantOp::create(b, loc, b.getFloatAttr(from, 0.0)));
    return arith::CmpIOp::create(
        b, loc, arith::CmpIPredicate::ne, v,
        arith::ConstantOp::create(b, loc, b.getIntegerAttr(from, 0)));
  }
  fromUnsigned |= from.isInteger(1);
  if (fromFloat && toFloat)
    return from.getIntOrFloatBitWidth() < to.getIntOrFloatBitWidth()
               ? Value(arith::ExtFOp::create(b, loc, to, v))
               : arith::TruncFOp::create(b, loc, to, v);
  if (fromFloat)
    return arith::FPToSIOp::create(b, loc, to, v);
  if (toFloat)
    return fromUnsigned ? Value(arith::UIToFPOp::create(b, loc, to, v))
                        : arith::SIToFPOp::create(b, loc, to, v);
  const unsigned fromWidth = from.getIntOrFloatBitWidth(),
                 toWidth = to.getIntOrFloatBitWidth();
  if (fromWidth > toWidth)
    return arith::TruncIOp::create(b, loc, to, v);
  return fromUnsigned ? Value(arith::ExtUIOp::create(b, loc, to, v))
                      : arith::ExtSIOp::create(b, loc, to, v);
}

LogicalResult onnx_import::translateCast(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  const int64_t to = g.intAttr("to", 0);
  std::optional<ElementKind> kind = getElementKind(g.b.getContext(), to);
  Type from = tensorType(*x).getElementType();
  // f64 only where a constant is folded: the compiled code is f32.
  bool constant = bool(g.constantInput(0));
  if (!kind || (kind->type.isF64() && !constant) || (from.isF64() && !constant))
    return g.error() << "Cast from " << from << " to "
                     << dataTypeName(int32_t(to))
                     << " is not supported (f32, int8, uint8, int32, int64 "
                     << "and bool are)";
  const bool fromUnsigned = g.isUnsigned(*x);
  if (from == kind->type && fromUnsigned == kind->isUnsigned) {
    g.setOutput(0, *x, fromUnsigned);
    return success();
  }
  Value result = g.elementwise({*x}, tensorType(*x).clone(kind->type),
                               [&](OpBuilder &b, Location loc, ValueRange a) {
                                 return convert(b, loc, a[0], from,
                                                fromUnsigned, kind->type);
                               });
  g.setOutput(0, result, kind->isUnsigned);
  return success();
}

//===- OnnxOps.cpp - One ONNX node to ops on tensors ----------------------===//
//
// Each translation emits the form quanta-quantize recognizes: a named
// linalg op (conv_2d_nchw_fchw, matmul, batch_matmul, pooling_nchw_*) into
// a zero fill, then a linalg.generic bias add with a broadcast constant,
// then elementwise generics whose bodies use ops the lookup-table evaluator
// knows (max/min, add, mul, div, exp, tanh) - e.g. LeakyRelu is
// max(x, 0) + alpha * min(x, 0), not a compare and select.
//
//===----------------------------------------------------------------------===//

#include "OnnxGraph.h"

#include "quanta/Utils/MemoryLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>
#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::quanta::onnx_import;

namespace {
using Body = function_ref<Value(OpBuilder &, Location, ValueRange)>;

RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

RankedTensorType withShape(Value value, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, tensorType(value).getElementType());
}

/// An axis attribute or input normalized to [0, rank).
FailureOr<int64_t> normalizeAxis(Graph &g, int64_t axis, int64_t rank) {
  if (axis < -rank || axis >= std::max<int64_t>(rank, 1))
    return g.error() << "axis " << axis << " is out of range for rank " << rank;
  return axis < 0 ? axis + rank : axis;
}

Value floatConst(OpBuilder &b, Location loc, double value) {
  return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
}

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

LogicalResult translateBinary(Graph &g) {
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
LogicalResult translateUnaryWith(Graph &g, Body body) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  g.setOutput(0, g.elementwise({*x}, type, body));
  return success();
}

/// max(x, 0) + slope * min(x, 0): LeakyRelu and PRelu.
Value leaky(OpBuilder &b, Location loc, Value x, Value slope) {
  Value zero = floatConst(b, loc, 0.0);
  Value positive = arith::MaximumFOp::create(b, loc, x, zero);
  Value negative = arith::MinimumFOp::create(b, loc, x, zero);
  return arith::AddFOp::create(b, loc, positive,
                               arith::MulFOp::create(b, loc, slope, negative));
}

/// max(0, min(1, alpha * x + beta)).
Value hardSigmoid(OpBuilder &b, Location loc, Value x, float alpha,
                  float beta) {
  Value linear = arith::AddFOp::create(
      b, loc, arith::MulFOp::create(b, loc, floatConst(b, loc, alpha), x),
      floatConst(b, loc, beta));
  return arith::MaximumFOp::create(
      b, loc, arith::MinimumFOp::create(b, loc, linear, floatConst(b, loc, 1)),
      floatConst(b, loc, 0));
}

LogicalResult translateUnary(Graph &g) {
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

LogicalResult translatePRelu(Graph &g) {
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

LogicalResult translateClip(Graph &g) {
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

//===----------------------------------------------------------------------===//
// Normalizations and reductions
//===----------------------------------------------------------------------===//

Value addF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::AddFOp::create(b, loc, x, y);
}
Value maxF(OpBuilder &b, Location loc, Value x, Value y) {
  return arith::MaximumFOp::create(b, loc, x, y);
}

/// The mean of `x` over `axes`, kept as size-1 dims. Over H and W of an
/// NCHW tensor it is a global average pooling, the form quanta-quantize
/// runs on integers.
Value mean(Graph &g, Value x, ArrayRef<int64_t> axes) {
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

LogicalResult translateSoftmax(Graph &g) {
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

LogicalResult translateLayerNormalization(Graph &g) {
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

LogicalResult translateReduceMean(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  SmallVector<int64_t> axes;
  if (auto given = g.intsAttr("axes")) {
    for (int64_t axis : *given) {
      auto normalized = normalizeAxis(g, axis, type.getRank());
      if (failed(normalized))
        return failure();
      axes.push_back(*normalized);
    }
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  }
  Value result = mean(g, *x, axes);
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

LogicalResult translateBatchNormalization(Graph &g) {
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

//===----------------------------------------------------------------------===//
// Convolution and pooling (2-D, NCHW)
//===----------------------------------------------------------------------===//

/// An NCL tensor as NCHW of height 1 (1-D windows run as 2-D ones).
Value toImage(Graph &g, Value ncl) {
  ArrayRef<int64_t> shape = tensorType(ncl).getShape();
  return g.reshape(ncl, {shape[0], shape[1], 1, shape[2]});
}

/// The NCHW result of height 1 of a 1-D window as NCL.
Value fromImage(Graph &g, Value image) {
  ArrayRef<int64_t> shape = tensorType(image).getShape();
  return g.reshape(image, {shape[0], shape[1], shape[3]});
}

/// The window geometry of Conv, ConvTranspose and the pools along H and W.
struct Window {
  SmallVector<int64_t, 2> kernel, strides, dilations, padLow, padHigh;
};

/// Reads kernel_shape (or `kernel`), strides, dilations, pads and auto_pad
/// for the 2-D spatial input `inputHW`.
FailureOr<Window> readWindow(Graph &g, ArrayRef<int64_t> inputHW,
                             ArrayRef<int64_t> kernel, bool oneD) {
  // A 1-D window (NCL) is a 2-D one of height 1: its attributes give W.
  auto attr =
      [&](StringRef name,
          SmallVector<int64_t> default2D) -> FailureOr<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> given = g.intsAttr(name);
    if (!given)
      return default2D;
    const size_t expected = default2D.size() / (oneD ? 2 : 1);
    if (given->size() != expected)
      return g.error() << name << " has " << given->size() << " values, "
                       << "expected " << expected << " (the importer takes "
                       << "1-D and 2-D windows)";
    if (!oneD)
      return *given;
    if (name == "pads") // [begin, end] -> [0, begin, 0, end]
      return SmallVector<int64_t>{0, (*given)[0], 0, (*given)[1]};
    return SmallVector<int64_t>{1, (*given)[0]};
  };
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  if (g.attribute("kernel_shape")) {
    auto given = attr("kernel_shape", {1, 1});
    if (failed(given))
      return failure();
    w.kernel.assign(given->begin(), given->end());
  }
  if (w.kernel.size() != 2)
    return g.error() << "the importer takes 1-D and 2-D windows only";
  auto strides = attr("strides", {1, 1});
  auto dilations = attr("dilations", {1, 1});
  auto pads = attr("pads", {0, 0, 0, 0});
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  w.strides.assign(strides->begin(), strides->end());
  w.dilations.assign(dilations->begin(), dilations->end());
  w.padLow = {(*pads)[0], (*pads)[1]};
  w.padHigh = {(*pads)[2], (*pads)[3]};
  // Below 2^31 (as ONNX Runtime's int32 window arithmetic), so that the
  // window arithmetic on int64 cannot overflow.
  constexpr int64_t kWindowLimit = int64_t(1) << 31;
  for (int64_t i = 0; i < 2; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 ||
        w.padLow[i] < 0 || w.padHigh[i] < 0)
      return g.error() << "kernel, strides and dilations must be positive "
                       << "and pads non-negative";
    if (llvm::any_of(ArrayRef<int64_t>{w.kernel[i], w.strides[i],
                                       w.dilations[i], w.padLow[i],
                                       w.padHigh[i], inputHW[i]},
                     [&](int64_t v) { return v >= kWindowLimit; }))
      return g.error() << "kernel, strides, dilations, pads and the input's "
                       << "spatial sizes must be below 2^31";
  }
  const std::string autoPad = g.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.padLow = {0, 0};
    w.padHigh = {0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < 2; ++i) {
      const int64_t out = (inputHW[i] + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
                 inputHW[i]);
      const int64_t small = total / 2;
      w.padLow[i] = autoPad == "SAME_UPPER" ? small : total - small;
      w.padHigh[i] = total - w.padLow[i];
    }
  } else if (autoPad != "NOTSET") {
    return g.error() << "auto_pad '" << autoPad << "' is not one of NOTSET, "
                     << "SAME_UPPER, SAME_LOWER, VALID";
  }
  return w;
}

/// Output size along one spatial dim (floor, or ceil for ceil_mode pools).
int64_t windowOutput(const Window &w, int64_t i, int64_t in, bool ceil) {
  const int64_t span =
      in + w.padLow[i] + w.padHigh[i] - (w.kernel[i] - 1) * w.dilations[i] - 1;
  if (span < 0)
    return 0;
  int64_t out =
      (ceil ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) +
      1;
  // A window may not start in the end padding (as PyTorch and ONNX
  // Runtime round ceil_mode).
  if (ceil && (out - 1) * w.strides[i] >= in + w.padLow[i])
    --out;
  return out;
}

/// `value` padded for the window, with extra end padding so that `out`
/// windows fit (ceil_mode).
Value padForWindow(Graph &g, Value value, const Window &w,
                   ArrayRef<int64_t> out, double padValue) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  SmallVector<int64_t> low = {0, 0, w.padLow[0], w.padLow[1]};
  SmallVector<int64_t> high = {0, 0, w.padHigh[0], w.padHigh[1]};
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t needed =
        (out[i] - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1;
    high[2 + i] = std::max(high[2 + i], needed - shape[2 + i] - low[2 + i]);
  }
  return g.pad(value, low, high, padValue);
}

/// `core` into a zero fill, of result shape `shape`.
template <typename OpTy>
Value windowOp(Graph &g, ValueRange inputs, ArrayRef<int64_t> shape,
               const Window &w) {
  auto type = withShape(inputs[0], shape);
  return OpTy::create(g.b, g.loc, TypeRange{type}, inputs,
                      ValueRange{g.filled(type, 0.0)},
                      g.b.getI64TensorAttr(w.strides),
                      g.b.getI64TensorAttr(w.dilations))
      .getResult(0);
}

/// out[n, c, ...] += bias[c]: the generic bias add quanta-quantize fuses.
Value addChannelBias(Graph &g, Value value, Value bias) {
  RankedTensorType type = tensorType(value);
  MLIRContext *context = g.b.getContext();
  const int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      g.b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, getAffineDimExpr(1, context)),
      g.b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             g.b, g.loc, type, ValueRange{value, bias}, g.emptyLike(type), maps,
             iterators,
             [](OpBuilder &b, Location loc, ValueRange a) {
               linalg::YieldOp::create(b, loc, addF(b, loc, a[0], a[1]));
             })
      .getResult(0);
}

/// A 2-D float convolution of `x` [N,C,H,W] with `weight` [M,C/group,KH,KW].
FailureOr<Value> convolution(Graph &g, Value x, Value weight,
                             std::optional<Value> bias, int64_t group) {
  // A 1-D convolution (NCL, weights [M, C/group, K]) runs as 2-D of
  // height 1.
  const bool oneD =
      tensorType(x).getRank() == 3 && tensorType(weight).getRank() == 3;
  if (oneD) {
    x = toImage(g, x);
    weight = toImage(g, weight);
  }
  RankedTensorType xType = tensorType(x), wType = tensorType(weight);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return g.error() << "input " << xType << " and weight " << wType
                     << ": the importer takes 1-D and 2-D convolutions (NCL, "
                     << "NCHW) only";
  const int64_t channels = xType.getDimSize(1), m = wType.getDimSize(0);
  if (group < 1 || channels % group || m % group ||
      wType.getDimSize(1) * group != channels)
    return g.error() << "group " << group << " does not fit input " << xType
                     << " and weight " << wType;
  auto window = readWindow(g, xType.getShape().drop_front(2),
                           wType.getShape().drop_front(2), oneD);
  if (failed(window))
    return failure();
  Window &w = *window;
  SmallVector<int64_t> out = {xType.getDimSize(0), m,
                              windowOutput(w, 0, xType.getDimSize(2), false),
                              windowOutput(w, 1, xType.getDimSize(3), false)};
  if (out[2] <= 0 || out[3] <= 0)
    return g.error() << "the window does not fit the input " << xType;
  Value padded = padForWindow(g, x, w, {out[2], out[3]}, 0.0);
  Value result;
  if (group == 1) {
    result = windowOp<linalg::Conv2DNchwFchwOp>(g, {padded, weight}, out, w);
  } else if (group == channels && m == channels) {
    Value filter = g.reshape(weight, {channels, w.kernel[0], w.kernel[1]});
    result =
        windowOp<linalg::DepthwiseConv2DNchwChwOp>(g, {padded, filter}, out, w);
  } else {
    ArrayRef<int64_t> p = tensorType(padded).getShape();
    Value grouped =
        g.reshape(padded, {p[0], group, channels / group, p[2], p[3]});
    Value filter = g.reshape(
        weight, {group, m / group, channels / group, w.kernel[0], w.kernel[1]});
    Value conv = windowOp<linalg::Conv2DNgchwGfchwOp>(
        g, {grouped, filter}, {out[0], group, m / group, out[2], out[3]}, w);
    result = g.reshape(conv, out);
  }
  if (bias) {
    if (tensorType(*bias).getShape() != ArrayRef<int64_t>{m})
      return g.error() << "the bias " << bias->getType() << " does not have "
                       << m << " values";
    result = addChannelBias(g, result, *bias);
  }
  return oneD ? fromImage(g, result) : result;
}

LogicalResult translateConv(Graph &g) {
  auto x = g.floatInput(0, "the input"), weight = g.floatInput(1, "the weight");
  if (failed(x) || failed(weight))
    return failure();
  std::optional<Value> bias;
  if (g.hasInput(2)) {
    auto value = g.input(2);
    if (failed(value))
      return failure();
    bias = *value;
  }
  auto result = convolution(g, *x, *weight, bias, g.intAttr("group", 1));
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// ConvTranspose as a convolution: the input dilated by the strides (zeros
/// in between), padded by dilation * (k - 1) - pad, convolved with the
/// weight flipped in space and with its two channel dims swapped.
LogicalResult translateConvTranspose(Graph &g) {
  auto x = g.floatInput(0, "the input"), weight = g.floatInput(1, "the weight");
  if (failed(x) || failed(weight))
    return failure();
  // 1-D (NCL) runs as 2-D of height 1.
  const bool oneD =
      tensorType(*x).getRank() == 3 && tensorType(*weight).getRank() == 3;
  Value image = oneD ? toImage(g, *x) : *x;
  Value filterImage = oneD ? toImage(g, *weight) : *weight;
  RankedTensorType xType = tensorType(image), wType = tensorType(filterImage);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return g.error() << "the importer takes 1-D and 2-D transposed "
                     << "convolutions (NCL, NCHW) only";
  if (g.intAttr("group", 1) != 1)
    return g.error() << "group " << g.intAttr("group", 1)
                     << " is not supported (only 1)";
  if (wType.getDimSize(0) != xType.getDimSize(1))
    return g.error() << "the weight " << wType << " does not fit the input "
                     << xType;
  if (g.attribute("output_shape"))
    return g.error() << "output_shape is not supported; give pads instead";
  const std::string autoPad = g.stringAttr("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID")
    return g.error() << "auto_pad '" << autoPad
                     << "' is not supported for ConvTranspose";
  auto window = readWindow(g, xType.getShape().drop_front(2),
                           wType.getShape().drop_front(2), oneD);
  if (failed(window))
    return failure();
  Window w = *window;
  SmallVector<int64_t> outputPadding =
      g.intsAttr("output_padding")
          .value_or(SmallVector<int64_t>(oneD ? 1 : 2, 0));
  if (outputPadding.size() != (oneD ? 1u : 2u))
    return g.error() << "output_padding must have " << (oneD ? 1 : 2)
                     << " value(s)";
  if (oneD)
    outputPadding.insert(outputPadding.begin(), 0);
  // Zeros between the input's pixels.
  const int64_t h = xType.getDimSize(2), wd = xType.getDimSize(3);
  SmallVector<int64_t> dilatedShape = {xType.getDimSize(0), xType.getDimSize(1),
                                       (h - 1) * w.strides[0] + 1,
                                       (wd - 1) * w.strides[1] + 1};
  Value dilated = g.filled(withShape(image, dilatedShape), 0.0);
  SmallVector<int64_t> strides = {1, 1, w.strides[0], w.strides[1]};
  MLIRContext *context = g.b.getContext();
  dilated = tensor::InsertSliceOp::create(
      g.b, g.loc, image, dilated,
      getAsIndexOpFoldResult(context, SmallVector<int64_t>{0, 0, 0, 0}),
      getAsIndexOpFoldResult(context, xType.getShape()),
      getAsIndexOpFoldResult(context, strides));
  Window conv;
  conv.kernel = w.kernel;
  conv.strides = {1, 1};
  conv.dilations = w.dilations;
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t reach = w.dilations[i] * (w.kernel[i] - 1);
    if (w.padLow[i] > reach || w.padHigh[i] > reach + outputPadding[i])
      return g.error() << "pads larger than dilation * (kernel - 1) are not "
                       << "supported";
    conv.padLow.push_back(reach - w.padLow[i]);
    conv.padHigh.push_back(reach - w.padHigh[i] + outputPadding[i]);
  }
  // weight [C, M, KH, KW] -> [M, C, KH, KW], flipped in KH and KW.
  SmallVector<int64_t> filterShape = {wType.getDimSize(1), wType.getDimSize(0),
                                      w.kernel[0], w.kernel[1]};
  AffineExpr d0 = getAffineDimExpr(0, context),
             d1 = getAffineDimExpr(1, context),
             d2 = getAffineDimExpr(2, context),
             d3 = getAffineDimExpr(3, context);
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {d1, d0, w.kernel[0] - 1 - d2, w.kernel[1] - 1 - d3},
                     context),
      g.b.getMultiDimIdentityMap(4)};
  auto filterType = withShape(filterImage, filterShape);
  Value filter =
      linalg::GenericOp::create(
          g.b, g.loc, filterType, filterImage, g.emptyLike(filterType), maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange a) {
            linalg::YieldOp::create(b, loc, a[0]);
          })
          .getResult(0);
  SmallVector<int64_t> out = {dilatedShape[0], filterShape[0],
                              windowOutput(conv, 0, dilatedShape[2], false),
                              windowOutput(conv, 1, dilatedShape[3], false)};
  Value padded = padForWindow(g, dilated, conv, {out[2], out[3]}, 0.0);
  Value result =
      windowOp<linalg::Conv2DNchwFchwOp>(g, {padded, filter}, out, conv);
  if (g.hasInput(2)) {
    auto bias = g.input(2);
    if (failed(bias))
      return failure();
    result = addChannelBias(g, result, *bias);
  }
  g.setOutput(0, oneD ? fromImage(g, result) : result);
  return success();
}

LogicalResult translatePool(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  // 1-D pooling (NCL) runs as 2-D of height 1.
  const bool oneD = type.getRank() == 3;
  if (type.getRank() != 4 && !oneD)
    return g.error() << "the input " << type
                     << ": the importer takes 1-D and 2-D pooling (NCL, "
                     << "NCHW) only";
  Value image = oneD ? toImage(g, *x) : *x;
  RankedTensorType imageType = tensorType(image);
  auto finish = [&](Value result) {
    g.setOutput(0, oneD ? fromImage(g, result) : result);
    return success();
  };
  const std::string &op = g.node->op_type();
  const bool global = StringRef(op).starts_with("Global");
  const bool isMax = StringRef(op).ends_with("MaxPool");
  if (g.node->output_size() > 1 && !g.node->output(1).empty())
    return g.error() << "the Indices output is not supported";
  if (g.intAttr("storage_order", 0) != 0)
    return g.error() << "storage_order = 1 is not supported";
  ArrayRef<int64_t> hw = imageType.getShape().drop_front(2);
  Window w;
  if (global) {
    w = Window{{hw[0], hw[1]}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  } else {
    if (!g.attribute("kernel_shape"))
      return g.error() << "kernel_shape is required";
    auto window = readWindow(g, hw, {}, oneD);
    if (failed(window))
      return failure();
    w = *window;
  }
  const bool ceil = g.intAttr("ceil_mode", 0) != 0;
  SmallVector<int64_t> out = {imageType.getDimSize(0), imageType.getDimSize(1),
                              windowOutput(w, 0, hw[0], ceil),
                              windowOutput(w, 1, hw[1], ceil)};
  if (out[2] <= 0 || out[3] <= 0)
    return g.error() << "the window does not fit the input " << type;
  const double padValue =
      isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value padded = padForWindow(g, image, w, {out[2], out[3]}, padValue);
  SmallVector<int64_t> kernelShape = {w.kernel[0], w.kernel[1]};
  Value kernel =
      tensor::EmptyOp::create(g.b, g.loc, kernelShape, type.getElementType());
  auto outType = withShape(image, out);
  Value init = g.filled(outType, padValue);
  auto attrs = [&] {
    return std::make_pair(g.b.getI64TensorAttr(w.strides),
                          g.b.getI64TensorAttr(w.dilations));
  };
  if (isMax) {
    auto [strides, dilations] = attrs();
    return finish(
        linalg::PoolingNchwMaxOp::create(g.b, g.loc, TypeRange{outType},
                                         ValueRange{padded, kernel},
                                         ValueRange{init}, strides, dilations)
            .getResult(0));
  }
  auto [strides, dilations] = attrs();
  Value sum = linalg::PoolingNchwSumOp::create(
                  g.b, g.loc, TypeRange{outType}, ValueRange{padded, kernel},
                  ValueRange{init}, strides, dilations)
                  .getResult(0);
  // The divisor of each output: the taps inside the input, or inside the
  // padded input with count_include_pad (never the ceil_mode extension).
  const bool includePad = g.intAttr("count_include_pad", 0) != 0;
  if (failed(quanta::checkAllocatable(g.loc, out[2], out[3] * sizeof(float),
                                      g.node->op_type() + " node '" +
                                          g.nodeName +
                                          "': the table of its divisors")))
    return failure();
  SmallVector<SmallVector<int64_t>> counts(2);
  for (int64_t i = 0; i < 2; ++i) {
    // Taps t in [0, kernel) whose position start + t * dilation lies in
    // [low, high), counted without visiting them (windows may be huge).
    const int64_t low = includePad ? -w.padLow[i] : 0,
                  high = includePad ? hw[i] + w.padHigh[i] : hw[i];
    for (int64_t o = 0; o < out[2 + i]; ++o) {
      const int64_t start = o * w.strides[i] - w.padLow[i];
      const int64_t first =
          start >= low ? 0 : llvm::divideCeil(low - start, w.dilations[i]);
      const int64_t last = std::min(
          w.kernel[i] - 1,
          high - 1 < start ? int64_t(-1) : (high - 1 - start) / w.dilations[i]);
      counts[i].push_back(std::max<int64_t>(0, last - first + 1));
    }
  }
  SmallVector<float> divisors;
  for (int64_t a : counts[0])
    for (int64_t c : counts[1])
      divisors.push_back(float(a * c));
  if (llvm::all_equal(divisors)) {
    const float divisor = divisors.front();
    return finish(g.elementwise(
        {sum}, outType, [&](OpBuilder &b, Location loc, ValueRange a) {
          return arith::DivFOp::create(b, loc, a[0],
                                       floatConst(b, loc, divisor));
        }));
  }
  auto divisorType = RankedTensorType::get({out[2], out[3]}, g.b.getF32Type());
  Value divisorTensor = g.constant(
      DenseElementsAttr::get(divisorType, ArrayRef<float>(divisors)));
  return finish(g.elementwise({sum, divisorTensor}, outType,
                              [](OpBuilder &b, Location loc, ValueRange a) {
                                return arith::DivFOp::create(b, loc, a[0],
                                                             a[1]);
                              }));
}

//===----------------------------------------------------------------------===//
// Matrix products
//===----------------------------------------------------------------------===//

/// lhs [..., M, K] x rhs [..., K, N] with numpy's batch broadcasting (and
/// 1-D operands promoted and squeezed) in the element type of `acc`.
FailureOr<Value> matmul(Graph &g, Value lhs, Value rhs, Type acc) {
  RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs);
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return g.error() << "MatMul of a scalar";
  const bool lhsVector = lhsType.getRank() == 1,
             rhsVector = rhsType.getRank() == 1;
  if (lhsVector)
    lhs = g.reshape(lhs, {1, lhsType.getDimSize(0)});
  if (rhsVector)
    rhs = g.reshape(rhs, {rhsType.getDimSize(0), 1});
  lhsType = tensorType(lhs);
  rhsType = tensorType(rhs);
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  const int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();
  if (rs[rs.size() - 2] != k)
    return g.error() << "the operands " << lhsType << " and " << rhsType
                     << " do not match in K";
  auto batch = broadcastShapes(ls.drop_back(2), rs.drop_back(2));
  if (!batch)
    return g.error() << "the batch dims of " << lhsType << " and " << rhsType
                     << " do not broadcast";
  SmallVector<int64_t> resultShape(*batch);
  resultShape.append({m, n});
  int64_t batchSize = 1;
  for (int64_t dim : *batch)
    batchSize *= dim;
  Value product;
  if (rs.size() == 2) {
    // [..., M, K] x [K, N]: one GEMM with the batch folded into M.
    Value flat = g.reshape(lhs, {batchSize * m, k});
    auto type = RankedTensorType::get({batchSize * m, n}, acc);
    product = linalg::MatmulOp::create(g.b, g.loc, TypeRange{type},
                                       ValueRange{flat, rhs},
                                       ValueRange{g.filled(type, 0)})
                  .getResult(0);
  } else {
    auto broadcastTo = [&](Value value, ArrayRef<int64_t> tail) {
      SmallVector<int64_t> shape(*batch);
      shape.append(tail.begin(), tail.end());
      RankedTensorType type = tensorType(value);
      if (type.getShape() != ArrayRef<int64_t>(shape)) {
        // Missing leading dims first, then size-1 dims broadcast by a
        // generic.
        SmallVector<int64_t> padded(shape.size() - type.getRank(), 1);
        padded.append(type.getShape().begin(), type.getShape().end());
        value = g.reshape(value, padded);
        value = g.elementwise(
            {value}, withShape(value, shape),
            [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      }
      return g.reshape(value, {batchSize, tail[0], tail[1]});
    };
    Value l = broadcastTo(lhs, {m, k}), r = broadcastTo(rhs, {k, n});
    auto type = RankedTensorType::get({batchSize, m, n}, acc);
    product = linalg::BatchMatmulOp::create(g.b, g.loc, TypeRange{type},
                                            ValueRange{l, r},
                                            ValueRange{g.filled(type, 0)})
                  .getResult(0);
  }
  SmallVector<int64_t> shape(resultShape);
  if (rhsVector)
    shape.pop_back();
  if (lhsVector)
    shape.erase(shape.end() - (rhsVector ? 1 : 2));
  return g.reshape(product, shape);
}

LogicalResult translateMatMul(Graph &g) {
  auto lhs = g.floatInput(0, "A"), rhs = g.floatInput(1, "B");
  if (failed(lhs) || failed(rhs))
    return failure();
  auto result = matmul(g, *lhs, *rhs, g.b.getF32Type());
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// A constant's transpose, computed at import (weights of Gemm with
/// transB, as PyTorch's Linear exports them), else a linalg.transpose.
Value transpose2D(Graph &g, int index, Value value) {
  if (DenseElementsAttr constant = g.constantInput(index)) {
    auto type = cast<RankedTensorType>(constant.getType());
    if (type.getElementType().isF32()) {
      const int64_t rows = type.getDimSize(0), cols = type.getDimSize(1);
      SmallVector<float> values(constant.getValues<float>());
      SmallVector<float> transposed(values.size());
      for (int64_t r = 0; r < rows; ++r)
        for (int64_t c = 0; c < cols; ++c)
          transposed[c * rows + r] = values[r * cols + c];
      return g.constant(DenseElementsAttr::get(
          RankedTensorType::get({cols, rows}, type.getElementType()),
          ArrayRef<float>(transposed)));
    }
  }
  return g.transpose(value, {1, 0});
}

LogicalResult translateGemm(Graph &g) {
  auto a = g.floatInput(0, "A"), b = g.floatInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  if (tensorType(*a).getRank() != 2 || tensorType(*b).getRank() != 2)
    return g.error() << "A and B must be matrices";
  Value lhs = g.intAttr("transA", 0) ? transpose2D(g, 0, *a) : *a;
  Value rhs = g.intAttr("transB", 0) ? transpose2D(g, 1, *b) : *b;
  const float alpha = g.floatAttr("alpha", 1.0f),
              beta = g.floatAttr("beta", 1.0f);
  auto product = matmul(g, lhs, rhs, g.b.getF32Type());
  if (failed(product))
    return failure();
  Value result = *product;
  RankedTensorType type = tensorType(result);
  if (alpha != 1.0f)
    result = g.elementwise({result}, type,
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             return arith::MulFOp::create(
                                 b, loc, floatConst(b, loc, alpha), args[0]);
                           });
  if (g.hasInput(2) && beta != 0.0f) {
    Value c;
    if (DenseElementsAttr constant = g.constantInput(2);
        constant && constant.getElementType().isF32()) {
      // beta * C folded at import.
      SmallVector<float> scaled;
      for (float value : constant.getValues<float>())
        scaled.push_back(beta * value);
      c = g.constant(DenseElementsAttr::get(
          cast<ShapedType>(constant.getType()), ArrayRef<float>(scaled)));
    } else {
      auto given = g.input(2);
      if (failed(given))
        return failure();
      c = *given;
      if (beta != 1.0f)
        c = g.elementwise({c}, tensorType(c),
                          [&](OpBuilder &b, Location loc, ValueRange args) {
                            return arith::MulFOp::create(
                                b, loc, floatConst(b, loc, beta), args[0]);
                          });
    }
    auto shape = broadcastShapes(type.getShape(), tensorType(c).getShape());
    if (!shape || *shape != type.getShape())
      return g.error() << "C " << c.getType() << " does not broadcast to "
                       << type;
    result = g.elementwise({result, c}, type,
                           [](OpBuilder &b, Location loc, ValueRange args) {
                             return addF(b, loc, args[0], args[1]);
                           });
  }
  g.setOutput(0, result);
  return success();
}

//===----------------------------------------------------------------------===//
// Data movement
//===----------------------------------------------------------------------===//

LogicalResult translateIdentity(Graph &g) {
  if (DenseElementsAttr constant = g.constantInput(0)) {
    g.setOutputConstant(0, constant);
    return success();
  }
  auto x = g.input(0);
  if (failed(x))
    return failure();
  g.setOutput(0, *x, g.isUnsigned(*x));
  return success();
}

LogicalResult translateConstant(Graph &g) {
  Type f32 = g.b.getF32Type(), i64 = g.b.getI64Type();
  DenseElementsAttr result;
  if (const onnx::AttributeProto *attr = g.attribute("value")) {
    bool isUnsigned;
    auto value = decodeTensor(g.b.getContext(), g.loc, attr->t(), g.modelPath,
                              &isUnsigned);
    if (failed(value))
      return failure();
    result = *value;
    if (isUnsigned)
      g.unsignedConstants.insert(g.node->output(0));
  } else if (const onnx::AttributeProto *attr = g.attribute("value_float"))
    result = DenseElementsAttr::get(RankedTensorType::get({}, f32), attr->f());
  else if (const onnx::AttributeProto *attr = g.attribute("value_floats"))
    result = DenseElementsAttr::get(
        RankedTensorType::get({attr->floats_size()}, f32),
        ArrayRef<float>(attr->floats().data(), attr->floats_size()));
  else if (const onnx::AttributeProto *attr = g.attribute("value_int"))
    result = DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                    int64_t(attr->i()));
  else if (const onnx::AttributeProto *attr = g.attribute("value_ints"))
    result = DenseElementsAttr::get(
        RankedTensorType::get({attr->ints_size()}, i64),
        ArrayRef<int64_t>(
            reinterpret_cast<const int64_t *>(attr->ints().data()),
            attr->ints_size()));
  if (!result)
    return g.error() << "no value attribute the importer reads (value, "
                     << "value_float(s), value_int(s))";
  g.setOutputConstant(0, result);
  return success();
}

LogicalResult translateReshapeLike(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const std::string &op = g.node->op_type();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> result;
  if (op == "Flatten") {
    // axis in [-rank, rank]: the first dimension of the inner block.
    const int64_t rank = type.getRank();
    int64_t axis = g.intAttr("axis", 1);
    if (axis < -rank || axis > rank)
      return g.error() << "axis " << axis << " is out of range for rank "
                       << rank;
    if (axis < 0)
      axis += rank;
    int64_t outer = 1, inner = 1;
    for (int64_t dim = 0; dim < rank; ++dim)
      (dim < axis ? outer : inner) *= shape[dim];
    result = {outer, inner};
  } else if (op == "Reshape") {
    auto target = g.constantInts(1, "shape");
    if (failed(target))
      return failure();
    const bool allowZero = g.intAttr("allowzero", 0) != 0;
    int64_t known = 1, inferred = -1;
    for (auto [i, size] : llvm::enumerate(*target)) {
      if (size == 0 && !allowZero) {
        if (int64_t(i) >= type.getRank())
          return g.error() << "shape entry " << i << " is 0 (copy) beyond "
                           << "the input's rank";
        size = shape[i];
      }
      if (size == -1) {
        if (inferred >= 0)
          return g.error() << "the shape has more than one -1";
        inferred = i;
      } else if (size < 0) {
        return g.error() << "shape entry " << size << " is negative";
      } else if (llvm::MulOverflow(known, size, known)) {
        // More elements than int64 counts: the input cannot have them.
        return g.error() << "cannot reshape " << type << " to a shape of "
                         << "more than 2^63 elements";
      }
      result.push_back(size);
    }
    if (inferred >= 0) {
      if (known == 0 || type.getNumElements() % known)
        return g.error() << "cannot infer the -1 of the shape for " << type;
      result[inferred] = type.getNumElements() / known;
    }
  } else {
    // Squeeze / Unsqueeze: axes from the input (opset 13) or attribute.
    SmallVector<int64_t> axes;
    if (g.hasInput(1)) {
      auto given = g.constantInts(1, "axes");
      if (failed(given))
        return failure();
      axes = *given;
    } else if (auto given = g.intsAttr("axes")) {
      axes = *given;
    }
    if (op == "Squeeze") {
      SmallVector<int64_t> normalized;
      for (int64_t axis : axes) {
        auto n = normalizeAxis(g, axis, type.getRank());
        if (failed(n))
          return failure();
        if (shape[*n] != 1)
          return g.error() << "cannot squeeze dimension " << *n << " of size "
                           << shape[*n];
        normalized.push_back(*n);
      }
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        if (axes.empty() ? shape[dim] != 1
                         : !llvm::is_contained(normalized, dim))
          result.push_back(shape[dim]);
    } else {
      const int64_t rank = type.getRank() + int64_t(axes.size());
      SmallVector<bool> inserted(rank, false);
      for (int64_t axis : axes) {
        auto n = normalizeAxis(g, axis, rank);
        if (failed(n))
          return failure();
        if (inserted[*n])
          return g.error() << "axis " << axis << " appears twice";
        inserted[*n] = true;
      }
      auto it = shape.begin();
      for (int64_t dim = 0; dim < rank; ++dim)
        result.push_back(inserted[dim] ? 1 : *it++);
    }
  }
  int64_t count = 1;
  bool overflow = false;
  for (int64_t size : result)
    overflow |= llvm::MulOverflow(count, size, count) != 0;
  if (overflow || count != type.getNumElements())
    return g.error() << "cannot reshape " << type << " to "
                     << withShape(*x, result);
  g.setOutput(0, g.reshape(*x, result), g.isUnsigned(*x));
  return success();
}

LogicalResult translateTranspose(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  const int64_t rank = tensorType(*x).getRank();
  SmallVector<int64_t> permutation = g.intsAttr("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  if (!llvm::equal(sorted, llvm::seq<int64_t>(0, rank)))
    return g.error() << "perm is not a permutation of the input's " << rank
                     << " dimensions";
  g.setOutput(0, g.transpose(*x, permutation), g.isUnsigned(*x));
  return success();
}

LogicalResult translateConcat(Graph &g) {
  SmallVector<Value> inputs;
  for (int i = 0; i < g.node->input_size(); ++i) {
    auto value = g.input(i);
    if (failed(value))
      return failure();
    // Empty inputs contribute nothing.
    if (tensorType(*value).getNumElements() != 0 || g.node->input_size() == 1)
      inputs.push_back(*value);
  }
  if (inputs.empty())
    return g.error() << "every input is empty";
  RankedTensorType first = tensorType(inputs[0]);
  auto axis = normalizeAxis(g, g.intAttr("axis", 0), first.getRank());
  if (failed(axis))
    return failure();
  for (Value value : inputs) {
    RankedTensorType type = tensorType(value);
    bool fits = type.getRank() == first.getRank() &&
                type.getElementType() == first.getElementType();
    for (int64_t dim = 0; fits && dim < type.getRank(); ++dim)
      fits = dim == *axis || type.getDimSize(dim) == first.getDimSize(dim);
    if (!fits)
      return g.error() << type << " cannot be concatenated with " << first
                       << " along axis " << *axis;
  }
  g.setOutput(0,
              inputs.size() == 1
                  ? inputs[0]
                  : Value(tensor::ConcatOp::create(g.b, g.loc, *axis, inputs)),
              g.isUnsigned(inputs[0]));
  return success();
}

/// value[offsets : offsets + sizes : strides] along every dim.
Value extractSlice(Graph &g, Value value, ArrayRef<int64_t> offsets,
                   ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto type = withShape(value, sizes);
  // extract_slice verifies offsets even for empty slices.
  if (type.getNumElements() == 0)
    return g.emptyLike(type);
  MLIRContext *context = g.b.getContext();
  return tensor::ExtractSliceOp::create(
      g.b, g.loc, type, value, getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides));
}

LogicalResult translateSplit(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  auto axis = normalizeAxis(g, g.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  const int64_t outputs = g.node->output_size(), size = type.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  if (g.hasInput(1)) {
    auto given = g.constantInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (auto given = g.intsAttr("split")) {
    sizes = *given;
  } else {
    if (size % outputs)
      return g.error() << "dimension " << *axis << " of size " << size
                       << " does not split into " << outputs << " equal parts";
    sizes.assign(outputs, size / outputs);
  }
  if (int64_t(sizes.size()) != outputs ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != size)
    return g.error() << "the split sizes do not add up to dimension " << *axis
                     << " (" << size << ") over " << outputs << " outputs";
  int64_t offset = 0;
  for (auto [index, part] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> offsets(type.getRank(), 0), shape(type.getShape());
    offsets[*axis] = offset;
    shape[*axis] = part;
    g.setOutput(index,
                extractSlice(g, *x, offsets, shape,
                             SmallVector<int64_t>(type.getRank(), 1)),
                g.isUnsigned(*x));
    offset += part;
  }
  return success();
}

LogicalResult translateSlice(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const int64_t rank = type.getRank();
  auto starts = g.constantInts(1, "starts");
  if (failed(starts))
    return failure();
  auto ends = g.constantInts(2, "ends");
  if (failed(ends))
    return failure();
  SmallVector<int64_t> axes, steps(starts->size(), 1);
  if (g.hasInput(3)) {
    auto given = g.constantInts(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  }
  if (g.hasInput(4)) {
    auto given = g.constantInts(4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return g.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  SmallVector<int64_t> reversed;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(g, axes[i], rank);
    if (failed(axis))
      return failure();
    const int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0 || step == std::numeric_limits<int64_t>::min())
      return g.error() << "step " << step << " is not supported";
    auto clampIndex = [&](int64_t index, int64_t lo, int64_t hi) {
      if (index < 0)
        index =
            index < std::numeric_limits<int64_t>::min() / 2 ? lo : index + dim;
      return std::clamp(index, lo, hi);
    };
    if (step > 0) {
      const int64_t start = clampIndex((*starts)[i], 0, dim);
      const int64_t end = clampIndex((*ends)[i], 0, dim);
      offsets[*axis] = start;
      // Counted without overflow for steps up to INT64_MAX.
      sizes[*axis] = end > start ? (end - start - 1) / step + 1 : 0;
      strides[*axis] = step;
    } else {
      const int64_t start = clampIndex((*starts)[i], -1, dim - 1);
      const int64_t end = clampIndex((*ends)[i], -1, dim - 1);
      const int64_t count = start > end ? (start - end - 1) / -step + 1 : 0;
      // The same elements read forwards, then reversed.
      offsets[*axis] = count ? start + (count - 1) * step : 0;
      sizes[*axis] = count;
      strides[*axis] = -step;
      reversed.push_back(*axis);
    }
  }
  Value result = extractSlice(g, *x, offsets, sizes, strides);
  if (!reversed.empty() && tensorType(result).getNumElements() > 0) {
    MLIRContext *context = g.b.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t dim = 0; dim < rank; ++dim) {
      AffineExpr d = getAffineDimExpr(dim, context);
      exprs.push_back(llvm::is_contained(reversed, dim) ? sizes[dim] - 1 - d
                                                        : d);
    }
    RankedTensorType resultType = tensorType(result);
    result = linalg::GenericOp::create(
                 g.b, g.loc, resultType, result, g.emptyLike(resultType),
                 {AffineMap::get(rank, 0, exprs, context),
                  g.b.getMultiDimIdentityMap(rank)},
                 SmallVector<utils::IteratorType>(
                     rank, utils::IteratorType::parallel),
                 [](OpBuilder &b, Location loc, ValueRange a) {
                   linalg::YieldOp::create(b, loc, a[0]);
                 })
                 .getResult(0);
  }
  g.setOutput(0, result, g.isUnsigned(*x));
  return success();
}

/// Pad's edge and reflect modes: each output element reads the input at
/// its position clamped into the input (edge) or mirrored at the borders
/// without repeating them (reflect, which needs pads smaller than the
/// dimension).
FailureOr<Value> edgePad(Graph &g, Value x, ArrayRef<int64_t> low,
                         ArrayRef<int64_t> high, bool reflect) {
  RankedTensorType type = tensorType(x);
  const int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (type.getDimSize(dim) == 0 ||
        (reflect && (low[dim] >= type.getDimSize(dim) ||
                     high[dim] >= type.getDimSize(dim))))
      return g.error() << "pads of dimension " << dim << " do not fit its "
                       << "size " << type.getDimSize(dim) << " in this mode";
    shape[dim] += low[dim] + high[dim];
  }
  auto resultType = type.clone(shape);
  return linalg::GenericOp::create(
             g.b, g.loc, resultType, ValueRange{}, g.emptyLike(resultType),
             SmallVector<AffineMap>{g.b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange) {
               SmallVector<Value> at;
               for (int64_t dim = 0; dim < rank; ++dim) {
                 auto index = [&](int64_t v) -> Value {
                   return arith::ConstantIndexOp::create(b, loc, v);
                 };
                 Value i = arith::SubIOp::create(
                     b, loc, linalg::IndexOp::create(b, loc, dim),
                     index(low[dim]));
                 const int64_t last = type.getDimSize(dim) - 1;
                 if (reflect) {
                   // |i|, then last - |last - |i||.
                   Value negated = arith::SubIOp::create(b, loc, index(0), i);
                   i = arith::MaxSIOp::create(b, loc, i, negated);
                   Value fromEnd =
                       arith::SubIOp::create(b, loc, index(last), i);
                   Value mirrored = arith::MaxSIOp::create(
                       b, loc, fromEnd,
                       arith::SubIOp::create(b, loc, index(0), fromEnd));
                   i = arith::SubIOp::create(b, loc, index(last), mirrored);
                 } else {
                   i = arith::MinSIOp::create(
                       b, loc, arith::MaxSIOp::create(b, loc, i, index(0)),
                       index(last));
                 }
                 at.push_back(i);
               }
               linalg::YieldOp::create(
                   b, loc,
                   tensor::ExtractOp::create(b, loc, x, at).getResult());
             })
      .getResult(0);
}

LogicalResult translatePad(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  const std::string mode = g.stringAttr("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return g.error() << "mode '" << mode
                     << "' is not one of constant, edge, reflect";
  const int64_t rank = tensorType(*x).getRank();
  auto pads = g.constantInts(1, "pads");
  if (failed(pads))
    return failure();
  if (int64_t(pads->size()) != 2 * rank)
    return g.error() << "pads has " << pads->size() << " values, expected "
                     << 2 * rank;
  if (g.hasInput(3))
    return g.error() << "the axes input is not supported";
  SmallVector<int64_t> low(pads->begin(), pads->begin() + rank),
      high(pads->begin() + rank, pads->end());
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return g.error() << "negative pads (cropping) are not supported";
  int64_t count = 1;
  for (auto [dim, before, after] :
       llvm::zip_equal(tensorType(*x).getShape(), low, high)) {
    int64_t padded = 0;
    if (llvm::AddOverflow(dim, before, padded) ||
        llvm::AddOverflow(padded, after, padded) ||
        llvm::MulOverflow(count, padded, count))
      return g.error() << "the padded tensor would have more than 2^63 "
                       << "elements";
  }
  if (mode != "constant") {
    auto edge = edgePad(g, *x, low, high, mode == "reflect");
    if (failed(edge))
      return failure();
    g.setOutput(0, *edge, g.isUnsigned(*x));
    return success();
  }
  double padValue = 0.0;
  if (g.hasInput(2)) {
    DenseElementsAttr value = g.constantInput(2);
    if (!value || value.getNumElements() != 1)
      return g.error() << "constant_value must be a constant scalar";
    if (value.getElementType().isF32())
      padValue = *value.getValues<float>().begin();
    else if (isa<IntegerType>(value.getElementType()))
      padValue = double((*value.getValues<APInt>().begin()).getSExtValue());
    else
      return g.error() << "constant_value must be f32 or an integer";
  }
  g.setOutput(0, g.pad(*x, low, high, padValue), g.isUnsigned(*x));
  return success();
}

//===----------------------------------------------------------------------===//
// Quantization
//===----------------------------------------------------------------------===//

/// The !quant.uniform type of a QuantizeLinear/DequantizeLinear: scales
/// and zero points (scalars: per tensor; 1-D: per `axis`) must be
/// constants, as in every QDQ model the exporters write.
FailureOr<quant::QuantizedType> qdqType(Graph &g, Value data, int scaleIndex,
                                        bool storageUnsigned, Type storage,
                                        int64_t axisValue) {
  DenseElementsAttr scales = g.constantInput(scaleIndex);
  if (!scales || !scales.getElementType().isF32())
    return g.error() << "the scale must be a constant f32 tensor";
  DenseElementsAttr zeroPoints = g.constantInput(scaleIndex + 1);
  if (g.hasInput(scaleIndex + 1) &&
      (!zeroPoints || !isa<IntegerType>(zeroPoints.getElementType())))
    return g.error() << "the zero point must be a constant integer tensor";
  if (zeroPoints) {
    storage = zeroPoints.getElementType();
    storageUnsigned =
        g.unsignedConstants.contains(g.node->input(scaleIndex + 1));
  }
  const unsigned width = storage.getIntOrFloatBitWidth();
  if (width != 8 && width != 32)
    return g.error() << "storage " << storage
                     << " is not supported (8-bit, or i32 for biases)";
  const int64_t qmin = storageUnsigned ? 0 : -(int64_t(1) << (width - 1));
  const int64_t qmax = storageUnsigned ? (int64_t(1) << width) - 1
                                       : (int64_t(1) << (width - 1)) - 1;
  SmallVector<double> scaleValues;
  for (float s : scales.getValues<float>()) {
    if (!(s > 0) || !std::isfinite(s))
      return g.error() << "scale " << s << " is not positive and finite";
    scaleValues.push_back(s);
  }
  SmallVector<int64_t> zeroValues(scaleValues.size(), 0);
  if (zeroPoints) {
    if (zeroPoints.getNumElements() != scales.getNumElements())
      return g.error() << "scale and zero point differ in size";
    zeroValues.clear();
    for (const APInt &z : zeroPoints.getValues<APInt>())
      zeroValues.push_back(storageUnsigned ? int64_t(z.getZExtValue())
                                           : z.getSExtValue());
  }
  const unsigned flags = storageUnsigned ? 0 : quant::QuantizationFlags::Signed;
  Type integer = IntegerType::get(g.b.getContext(), width);
  Type f32 = g.b.getF32Type();
  if (scales.getNumElements() == 1)
    return cast<quant::QuantizedType>(quant::UniformQuantizedType::get(
        flags, integer, f32, scaleValues[0], zeroValues[0], qmin, qmax));
  auto axis = normalizeAxis(g, axisValue, tensorType(data).getRank());
  if (failed(axis))
    return failure();
  if (tensorType(data).getDimSize(*axis) != int64_t(scaleValues.size()))
    return g.error() << scaleValues.size() << " scales for dimension " << *axis
                     << " of " << data.getType();
  return cast<quant::QuantizedType>(quant::UniformQuantizedPerAxisType::get(
      flags, integer, f32, scaleValues, zeroValues, *axis, qmin, qmax));
}

/// DequantizeLinear of `data` (storage integers) with the scale at
/// `scaleIndex`. A constant input becomes quant.qcast of its float values,
/// the form quanta-freeze-qparams writes for weights (exact: every value
/// quantizes back to its integer).
FailureOr<Value> dequantize(Graph &g, int dataIndex, int scaleIndex,
                            int64_t axis) {
  auto data = g.input(dataIndex);
  if (failed(data))
    return failure();
  Type element = tensorType(*data).getElementType();
  if (!element.isInteger(8) && !element.isInteger(32))
    return g.error() << "the quantized input has type " << data->getType();
  auto qtype =
      qdqType(g, *data, scaleIndex, g.isUnsigned(*data), element, axis);
  if (failed(qtype))
    return failure();
  RankedTensorType type = tensorType(*data);
  auto quantizedType = RankedTensorType::get(type.getShape(), *qtype);
  auto floatType = RankedTensorType::get(type.getShape(), g.b.getF32Type());
  Value quantized;
  if (DenseElementsAttr constant = g.constantInput(dataIndex)) {
    SmallVector<float> values;
    const bool isUnsigned = g.isUnsigned(*data);
    int64_t index = 0;
    for (const APInt &q : constant.getValues<APInt>()) {
      double scale, zero;
      if (auto perTensor = dyn_cast<quant::UniformQuantizedType>(*qtype)) {
        scale = perTensor.getScale();
        zero = perTensor.getZeroPoint();
      } else {
        auto perAxis = cast<quant::UniformQuantizedPerAxisType>(*qtype);
        int64_t inner = 1;
        for (int64_t dim = perAxis.getQuantizedDimension() + 1;
             dim < type.getRank(); ++dim)
          inner *= type.getDimSize(dim);
        const int64_t channel =
            (index / inner) % type.getDimSize(perAxis.getQuantizedDimension());
        scale = perAxis.getScales()[channel];
        zero = perAxis.getZeroPoints()[channel];
      }
      const int64_t value = isUnsigned ? q.getZExtValue() : q.getSExtValue();
      values.push_back(float((value - zero) * scale));
      ++index;
    }
    Value floats =
        g.constant(DenseElementsAttr::get(floatType, ArrayRef<float>(values)));
    // An i32 bias stays float: its values need not fit f32's 24 bits.
    if (element.isInteger(32))
      return floats;
    quantized =
        quant::QuantizeCastOp::create(g.b, g.loc, quantizedType, floats);
  } else if (auto storage = data->getDefiningOp<quant::StorageCastOp>();
             storage && storage.getInput().getType() == quantizedType) {
    // QuantizeLinear -> DequantizeLinear: qcast -> dcast, with no storage
    // casts between them (canonicalize would fold that pair to nothing).
    quantized = storage.getInput();
  } else {
    quantized = quant::StorageCastOp::create(g.b, g.loc, quantizedType, *data);
  }
  return Value(
      quant::DequantizeCastOp::create(g.b, g.loc, floatType, quantized));
}

/// QuantizeLinear of float `value`: the storage integers.
FailureOr<Value> quantize(Graph &g, Value value, int scaleIndex,
                          bool *isUnsigned) {
  // Without a zero point the output is uint8.
  auto qtype = qdqType(g, value, scaleIndex, /*storageUnsigned=*/true,
                       g.b.getI8Type(), g.intAttr("axis", 1));
  if (failed(qtype))
    return failure();
  if (qtype->getStorageTypeIntegralWidth() != 8)
    return g.error() << "QuantizeLinear to 32 bits is not supported";
  *isUnsigned = !qtype->isSigned();
  RankedTensorType type = tensorType(value);
  Value quantized = quant::QuantizeCastOp::create(
      g.b, g.loc, RankedTensorType::get(type.getShape(), *qtype), value);
  return Value(quant::StorageCastOp::create(
      g.b, g.loc, RankedTensorType::get(type.getShape(), g.b.getI8Type()),
      quantized));
}

LogicalResult translateQuantizeLinear(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  bool isUnsigned;
  auto result = quantize(g, *x, 1, &isUnsigned);
  if (failed(result))
    return failure();
  g.setOutput(0, *result, isUnsigned);
  return success();
}

LogicalResult translateDequantizeLinear(Graph &g) {
  auto result = dequantize(g, 0, 1, g.intAttr("axis", 1));
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// QLinearMatMul and QLinearConv: dequantize, the float op, quantize: the
/// chain quanta-quantize turns into one integer GEMM.
LogicalResult translateQLinear(Graph &g) {
  const bool isConv = g.node->op_type() == "QLinearConv";
  // Weights per output channel: dim 0 of a convolution's, the columns of
  // a matrix.
  auto x = dequantize(g, 0, 1, 1), w = dequantize(g, 3, 4, isConv ? 0 : -1);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> product;
  if (isConv) {
    std::optional<Value> bias;
    if (g.hasInput(8)) {
      // The i32 bias has scale x_scale * w_scale and zero point 0.
      DenseElementsAttr b = g.constantInput(8);
      DenseElementsAttr xs = g.constantInput(1), ws = g.constantInput(4);
      if (!b || !xs || !ws || !b.getElementType().isInteger(32))
        return g.error() << "the bias must be a constant i32 tensor";
      if (ws.getNumElements() != 1 && ws.getNumElements() != b.getNumElements())
        return g.error() << "the bias has " << b.getNumElements()
                         << " values for " << ws.getNumElements()
                         << " weight scales";
      const float xScale = *xs.getValues<float>().begin();
      SmallVector<float> wScales(ws.getValues<float>());
      SmallVector<float> values;
      int64_t c = 0;
      for (const APInt &q : b.getValues<APInt>()) {
        const float scale = xScale * wScales[wScales.size() == 1 ? 0 : c++];
        values.push_back(float(q.getSExtValue()) * scale);
      }
      bias = g.constant(DenseElementsAttr::get(
          RankedTensorType::get({b.getNumElements()}, g.b.getF32Type()),
          ArrayRef<float>(values)));
    }
    product = convolution(g, *x, *w, bias, g.intAttr("group", 1));
  } else {
    product = matmul(g, *x, *w, g.b.getF32Type());
  }
  if (failed(product))
    return failure();
  bool isUnsigned;
  auto result = quantize(g, *product, 6, &isUnsigned);
  if (failed(result))
    return failure();
  g.setOutput(0, *result, isUnsigned);
  return success();
}

/// (value - zero point) in i32; the zero point is a scalar or, for B of
/// MatMulInteger, one per column.
FailureOr<Value> widenMinusZeroPoint(Graph &g, int index, int zeroIndex) {
  auto value = g.input(index);
  if (failed(value))
    return failure();
  const bool isUnsigned = g.isUnsigned(*value);
  if (!tensorType(*value).getElementType().isInteger(8))
    return g.error() << "input " << index << " has type " << value->getType()
                     << "; expected 8-bit integers";
  SmallVector<Value> operands = {*value};
  if (g.hasInput(zeroIndex)) {
    auto zero = g.input(zeroIndex);
    if (failed(zero))
      return failure();
    Value z = *zero;
    RankedTensorType zType = tensorType(z), vType = tensorType(*value);
    if (zType.getNumElements() != 1 && zType.getRank() == 1 &&
        vType.getRank() >= 1) {
      // A per-row (A) or per-column (B) zero point.
      SmallVector<int64_t> shape(vType.getRank(), 1);
      const int64_t dim =
          index == 0 ? vType.getRank() - 2 : vType.getRank() - 1;
      if (dim < 0 || vType.getDimSize(dim) != zType.getDimSize(0))
        return g.error() << "the zero point " << zType << " does not fit "
                         << vType;
      shape[dim] = zType.getDimSize(0);
      z = g.reshape(z, shape);
    }
    operands.push_back(z);
  }
  auto resultType =
      RankedTensorType::get(tensorType(*value).getShape(), g.b.getI32Type());
  return g.elementwise(
      operands, resultType,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Type i32 = b.getI32Type();
        auto widen = [&](Value v) -> Value {
          return isUnsigned ? Value(arith::ExtUIOp::create(b, loc, i32, v))
                            : Value(arith::ExtSIOp::create(b, loc, i32, v));
        };
        Value v = widen(a[0]);
        return a.size() > 1
                   ? Value(arith::SubIOp::create(b, loc, v, widen(a[1])))
                   : v;
      });
}

LogicalResult translateIntegerProduct(Graph &g) {
  const bool isConv = g.node->op_type() == "ConvInteger";
  auto x = widenMinusZeroPoint(g, 0, 2), w = widenMinusZeroPoint(g, 1, 3);
  if (failed(x) || failed(w))
    return failure();
  FailureOr<Value> result;
  if (isConv) {
    RankedTensorType xType = tensorType(*x), wType = tensorType(*w);
    if (xType.getRank() != 4 || wType.getRank() != 4 ||
        g.intAttr("group", 1) != 1)
      return g.error() << "the importer takes 2-D ConvInteger with group 1";
    auto window = readWindow(g, xType.getShape().drop_front(2),
                             wType.getShape().drop_front(2), /*oneD=*/false);
    if (failed(window))
      return failure();
    SmallVector<int64_t> out = {
        xType.getDimSize(0), wType.getDimSize(0),
        windowOutput(*window, 0, xType.getDimSize(2), false),
        windowOutput(*window, 1, xType.getDimSize(3), false)};
    // Padding is the zero point: 0 once subtracted.
    Value padded = padForWindow(g, *x, *window, {out[2], out[3]}, 0.0);
    result = windowOp<linalg::Conv2DNchwFchwOp>(g, {padded, *w}, out, *window);
  } else {
    result = matmul(g, *x, *w, g.b.getI32Type());
  }
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// ONNX's DynamicQuantizeLinear: u8 with the range of x extended to 0,
/// scale = (max - min) / 255, zero point and values rounded half to even.
LogicalResult translateDynamicQuantizeLinear(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  SmallVector<int64_t> all =
      llvm::to_vector(llvm::seq<int64_t>(0, type.getRank()));
  Value max = g.reduce(*x, all, false, 0.0, maxF);
  Value min = g.reduce(*x, all, false, 0.0,
                       [](OpBuilder &b, Location loc, Value v, Value acc) {
                         return arith::MinimumFOp::create(b, loc, v, acc);
                       });
  auto scalarType = RankedTensorType::get({}, g.b.getF32Type());
  Value scale = g.elementwise(
      {max, min}, scalarType, [](OpBuilder &b, Location loc, ValueRange a) {
        return arith::DivFOp::create(b, loc,
                                     arith::SubFOp::create(b, loc, a[0], a[1]),
                                     floatConst(b, loc, 255));
      });
  auto saturate = [](OpBuilder &b, Location loc, Value v) {
    v = math::RoundEvenOp::create(b, loc, v);
    v = arith::MaximumFOp::create(b, loc, v, floatConst(b, loc, 0));
    return arith::MinimumFOp::create(b, loc, v, floatConst(b, loc, 255));
  };
  Value zeroPoint = g.elementwise(
      {min, scale}, scalarType, [&](OpBuilder &b, Location loc, ValueRange a) {
        Value z =
            arith::SubFOp::create(b, loc, floatConst(b, loc, 0),
                                  arith::DivFOp::create(b, loc, a[0], a[1]));
        return saturate(b, loc, z);
      });
  auto bytesType = RankedTensorType::get(type.getShape(), g.b.getI8Type());
  Value y = g.elementwise(
      {*x, scale, zeroPoint}, bytesType,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Value q = arith::AddFOp::create(
            b, loc,
            math::RoundEvenOp::create(
                b, loc, arith::DivFOp::create(b, loc, a[0], a[1])),
            a[2]);
        q = arith::MinimumFOp::create(
            b, loc, arith::MaximumFOp::create(b, loc, q, floatConst(b, loc, 0)),
            floatConst(b, loc, 255));
        return arith::FPToUIOp::create(b, loc, b.getI8Type(), q);
      });
  Value zeroBytes = g.elementwise(
      {zeroPoint}, RankedTensorType::get({}, g.b.getI8Type()),
      [](OpBuilder &b, Location loc, ValueRange a) -> Value {
        return arith::FPToUIOp::create(b, loc, b.getI8Type(), a[0]);
      });
  g.setOutput(0, y, /*isUnsigned=*/true);
  g.setOutput(1, scale);
  g.setOutput(2, zeroBytes, /*isUnsigned=*/true);
  return success();
}

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
      // min and max became inputs in 11.
      {"Clip", {translateClip, 11, inputs({1, 2})}},
      // Before 13: coerced to 2-D at the axis.
      {"Softmax", {translateSoftmax, 1, 0}},
      {"LayerNormalization", {translateLayerNormalization, 17, 0}},
      {"ReduceMean", {translateReduceMean, 1, 0}},
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

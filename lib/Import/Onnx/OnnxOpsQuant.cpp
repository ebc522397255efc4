//===- OnnxOpsQuant.cpp - Quantization ------------------------------------===//
//
// Translates QuantizeLinear, DequantizeLinear (to quant.qcast and
// quant.dcast), QLinearConv, QLinearMatMul, ConvInteger, MatMulInteger,
// DynamicQuantizeLinear and ONNX Runtime's DynamicQuantizeMatMul.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

/// The !quant.uniform type of a QuantizeLinear/DequantizeLinear: scales
/// and zero points (scalars: per tensor; 1-D: per `axis`) must be
/// constants, as in every QDQ model the exporters write.
static FailureOr<quant::QuantizedType>
qdqType(Graph &g, Value data, int scaleIndex, bool storageUnsigned,
        Type storage, int64_t axisValue) {
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

/// u8 weights (QLinearConv's, some quantizers') as the s8 ones with the
/// same values: every integer and zero point 128 lower, which dequantizes
/// to the same floats; the integer GEMM takes s8 weights (with any zero
/// points).
static quant::QuantizedType asSigned(quant::QuantizedType type) {
  if (type.isSigned() || type.getStorageTypeIntegralWidth() != 8)
    return type;
  MLIRContext *context = type.getContext();
  Type i8 = IntegerType::get(context, 8);
  const int64_t min = type.getStorageTypeMin() - 128,
                max = type.getStorageTypeMax() - 128;
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    SmallVector<int64_t> zeroPoints;
    for (int64_t zero : perAxis.getZeroPoints())
      zeroPoints.push_back(zero - 128);
    return quant::UniformQuantizedPerAxisType::get(
        quant::QuantizationFlags::Signed, i8, type.getExpressedType(),
        perAxis.getScales(), zeroPoints, perAxis.getQuantizedDimension(), min,
        max);
  }
  auto perTensor = cast<quant::UniformQuantizedType>(type);
  return quant::UniformQuantizedType::get(
      quant::QuantizationFlags::Signed, i8, type.getExpressedType(),
      perTensor.getScale(), perTensor.getZeroPoint() - 128, min, max);
}

/// DequantizeLinear of `data` (storage integers) with the scale at
/// `scaleIndex`. A constant input (weights) becomes a quanta.fake_quant of
/// its float values, which quanta-freeze-qparams makes the quantized float
/// constant quanta-quantize takes (exact: every value quantizes back to its
/// integer); the output of a QuantizeLinear with the same qparams, a
/// quanta.fake_quant of that one's input.
static FailureOr<Value> dequantize(Graph &g, int dataIndex, int scaleIndex,
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
    auto floats = DenseElementsAttr::get(floatType, ArrayRef<float>(values));
    // An i32 bias stays float: its values need not fit f32's 24 bits.
    if (element.isInteger(32))
      return g.constant(floats);
    return g.fakeQuantize(g.constant(floats), asSigned(*qtype));
  } else if (auto storage = data->getDefiningOp<quant::StorageCastOp>();
             storage && storage.getInput().getType() == quantizedType) {
    // QuantizeLinear -> DequantizeLinear: a fake quantization of the float
    // input (a qcast -> dcast pair would be folded away by canonicalize).
    if (auto quantize =
            storage.getInput().getDefiningOp<quant::QuantizeCastOp>())
      return g.fakeQuantize(quantize.getInput(), *qtype);
    quantized = storage.getInput();
  } else {
    quantized = quant::StorageCastOp::create(g.b, g.loc, quantizedType, *data);
  }
  return Value(
      quant::DequantizeCastOp::create(g.b, g.loc, floatType, quantized));
}

/// QuantizeLinear of float `value`: the storage integers.
static FailureOr<Value> quantize(Graph &g, Value value, int scaleIndex,
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

/// The node's output: QuantizeLinear of `value` with the scale at
/// `scaleIndex` and the zero point after it.
static LogicalResult setQuantizedOutput(Graph &g, Value value, int scaleIndex) {
  bool isUnsigned;
  auto result = quantize(g, value, scaleIndex, &isUnsigned);
  if (failed(result))
    return failure();
  g.setOutput(0, *result, isUnsigned);
  return success();
}

LogicalResult onnx_import::translateQuantizeLinear(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  return setQuantizedOutput(g, *x, 1);
}

LogicalResult onnx_import::translateDequantizeLinear(Graph &g) {
  auto result = dequantize(g, 0, 1, g.intAttr("axis", 1));
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// The constant i32 bias at `biasIndex` in float: its scale is the input's
/// (at `xScaleIndex`) times the weights' (at `wScaleIndex`, per tensor or
/// per output channel), its zero point 0.
static FailureOr<Value> dequantizeBias(Graph &g, int biasIndex, int xScaleIndex,
                                       int wScaleIndex) {
  DenseElementsAttr b = g.constantInput(biasIndex);
  DenseElementsAttr xs = g.constantInput(xScaleIndex),
                    ws = g.constantInput(wScaleIndex);
  if (!b || !xs || !ws || !b.getElementType().isInteger(32) ||
      !xs.getElementType().isF32() || !ws.getElementType().isF32())
    return g.error() << "the bias must be a constant i32 tensor, and the "
                     << "scales constant f32 tensors";
  if (ws.getNumElements() != 1 && ws.getNumElements() != b.getNumElements())
    return g.error() << "the bias has " << b.getNumElements() << " values for "
                     << ws.getNumElements() << " weight scales";
  const float xScale = *xs.getValues<float>().begin();
  SmallVector<float> wScales(ws.getValues<float>());
  SmallVector<float> values;
  int64_t c = 0;
  for (const APInt &q : b.getValues<APInt>()) {
    const float scale = xScale * wScales[wScales.size() == 1 ? 0 : c++];
    values.push_back(float(q.getSExtValue()) * scale);
  }
  return g.constant(DenseElementsAttr::get(
      RankedTensorType::get({b.getNumElements()}, g.b.getF32Type()),
      ArrayRef<float>(values)));
}

/// QLinearMatMul and QLinearConv: dequantize, the float op, quantize: the
/// chain quanta-quantize turns into one integer GEMM.
LogicalResult onnx_import::translateQLinear(Graph &g) {
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
      auto dequantized = dequantizeBias(g, 8, 1, 4);
      if (failed(dequantized))
        return failure();
      bias = *dequantized;
    }
    product = convolution(g, *x, *w, bias, g.intAttr("group", 1));
  } else {
    product = matmul(g, *x, *w, g.b.getF32Type());
  }
  if (failed(product))
    return failure();
  return setQuantizedOutput(g, *product, 6);
}

LogicalResult onnx_import::translateQGemm(Graph &g) {
  const bool transB = g.intAttr("transB", 0);
  // B's scales per output column: dim 0 of B transposed, else dim 1.
  auto a = dequantize(g, 0, 1, 1), b = dequantize(g, 3, 4, transB ? 0 : 1);
  if (failed(a) || failed(b))
    return failure();
  Value bias;
  if (g.hasInput(6)) {
    auto dequantized = dequantizeBias(g, 6, 1, 4);
    if (failed(dequantized))
      return failure();
    bias = *dequantized;
  }
  auto product = gemm(g, *a, *b, bias, g.intAttr("transA", 0), transB,
                      g.floatAttr("alpha", 1.0f), /*beta=*/1.0f);
  if (failed(product))
    return failure();
  // Without y_scale the output is float.
  if (!g.hasInput(7)) {
    g.setOutput(0, *product);
    return success();
  }
  return setQuantizedOutput(g, *product, 7);
}

/// (value - zero point) in i32, or exactly in f32 (`element`); the zero
/// point is a scalar or, for B of MatMulInteger, one per column.
static FailureOr<Value> widenMinusZeroPoint(Graph &g, int index, int zeroIndex,
                                            Type element) {
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
      RankedTensorType::get(tensorType(*value).getShape(), element);
  return g.elementwise(
      operands, resultType,
      [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
        Type i32 = b.getI32Type();
        auto widen = [&](Value v) -> Value {
          Value wide = isUnsigned
                           ? Value(arith::ExtUIOp::create(b, loc, i32, v))
                           : Value(arith::ExtSIOp::create(b, loc, i32, v));
          return element == i32
                     ? wide
                     : Value(arith::SIToFPOp::create(b, loc, element, wide));
        };
        Value v = widen(a[0]);
        if (a.size() == 1)
          return v;
        return element == i32
                   ? Value(arith::SubIOp::create(b, loc, v, widen(a[1])))
                   : Value(arith::SubFOp::create(b, loc, v, widen(a[1])));
      });
}

/// Whether a grouped ConvInteger's sums are exact in f32: its weights
/// constant, every partial sum of (x - x_zero) * (w - w_zero) below 2^24
/// (|x - x_zero| <= 255, taps * 255 * max |w - w_zero| of them). A
/// depthwise layer's 9 or 25 taps are: computed as a float depthwise
/// convolution, on the float window kernels, they give the same i32 values
/// in any order.
static bool hasExactFloatSums(Graph &g) {
  DenseElementsAttr w = g.constantInput(1);
  DenseElementsAttr zero = g.hasInput(3) ? g.constantInput(3) : nullptr;
  if (!w || (g.hasInput(3) && !zero) || !w.getElementType().isInteger(8))
    return false;
  const bool isUnsigned = g.unsignedConstants.contains(g.node->input(1));
  auto valueOf = [&](const APInt &v) {
    return isUnsigned ? int64_t(v.getZExtValue()) : v.getSExtValue();
  };
  SmallVector<int64_t> zeros{0};
  if (zero)
    zeros = llvm::to_vector(llvm::map_range(zero.getValues<APInt>(), valueOf));
  const int64_t filters = cast<ShapedType>(w.getType()).getDimSize(0);
  if (zeros.size() != 1 && int64_t(zeros.size()) != filters)
    return false;
  // The taps of one output: a filter's values.
  const int64_t perFilter = w.getNumElements() / std::max<int64_t>(filters, 1);
  int64_t largest = 0;
  for (auto [index, value] : llvm::enumerate(w.getValues<APInt>())) {
    const int64_t z = zeros[zeros.size() == 1 ? 0 : int64_t(index) / perFilter];
    largest = std::max(largest, std::abs(valueOf(value) - z));
  }
  return perFilter * 255 * largest < (int64_t(1) << 24);
}

LogicalResult onnx_import::translateIntegerProduct(Graph &g) {
  const bool isConv = g.node->op_type() == "ConvInteger";
  const int64_t group = isConv ? g.intAttr("group", 1) : 1;
  // Grouped convolutions (a depthwise one) are no GEMM for the int8
  // kernels (a ConvInteger of one group fuses into
  // quanta.dynamic_qmatmul): in f32 where that is exact.
  Type element = g.b.getI32Type();
  if (group > 1 && hasExactFloatSums(g))
    element = g.b.getF32Type();
  auto x = widenMinusZeroPoint(g, 0, 2, element),
       w = widenMinusZeroPoint(g, 1, 3, element);
  if (failed(x) || failed(w))
    return failure();
  // A convolution's padding is the zero point: 0 once subtracted.
  FailureOr<Value> result = isConv ? convolution(g, *x, *w, std::nullopt, group)
                                   : matmul(g, *x, *w, element);
  if (failed(result))
    return failure();
  if (element != g.b.getI32Type())
    result = g.elementwise(
        {*result}, tensorType(*result).clone(g.b.getI32Type()),
        [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
          return arith::FPToSIOp::create(b, loc, b.getI32Type(), a[0]);
        });
  g.setOutput(0, *result);
  return success();
}

/// ONNX's DynamicQuantizeLinear: u8 with the range of x extended to 0,
/// scale = (max - min) / 255, zero point and values rounded half to even.
/// An all-zero x takes scale 1, as in ONNX Runtime (the definition divides
/// by 0 there); numerics::chooseDynamicQParams (DynamicEngine::Onnx) is
/// the same computation.
LogicalResult onnx_import::translateDynamicQuantizeLinear(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  auto scalarType = RankedTensorType::get({}, g.b.getF32Type());
  // max and min (from 0: the range holds 0) in one pass over x, flattened
  // so that the loop is one vectorized reduction, not one per innermost row
  // (measured: a 96 x 112 x 112 input, 1.55 ms as two 4-D reductions).
  Value flat = g.reshape(*x, {type.getNumElements()});
  MLIRContext *context = g.b.getContext();
  AffineMap element = AffineMap::getMultiDimIdentityMap(1, context);
  AffineMap scalar = AffineMap::get(1, 0, {}, context);
  auto range = linalg::GenericOp::create(
      g.b, g.loc, TypeRange{scalarType, scalarType}, ValueRange{flat},
      ValueRange{g.filled(scalarType, 0.0), g.filled(scalarType, 0.0)},
      ArrayRef<AffineMap>{element, scalar, scalar},
      ArrayRef<utils::IteratorType>{utils::IteratorType::reduction},
      [](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(
            b, loc,
            ValueRange{maxF(b, loc, args[0], args[1]),
                       arith::MinimumFOp::create(b, loc, args[0], args[2])});
      });
  Value max = range.getResult(0), min = range.getResult(1);
  Value scale = g.elementwise(
      {max, min}, scalarType, [](OpBuilder &b, Location loc, ValueRange a) {
        Value empty = arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OEQ,
                                            a[0], a[1]);
        Value scale = arith::DivFOp::create(
            b, loc, arith::SubFOp::create(b, loc, a[0], a[1]),
            floatConst(b, loc, 255));
        return arith::SelectOp::create(b, loc, empty, floatConst(b, loc, 1),
                                       scale);
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

static std::string printed(Type type) {
  std::string text;
  llvm::raw_string_ostream(text) << type;
  return text;
}

std::optional<std::string> onnx_import::readDynamicMatMulConstants(
    DenseElementsAttr b, bool unsignedB, DenseElementsAttr scale,
    DenseElementsAttr zeroPoint, DenseElementsAttr bias,
    DynamicMatMulConstants &result) {
  auto bType = cast<ShapedType>(b.getType());
  if (bType.getRank() != 2 || !bType.getElementType().isInteger(8))
    return "B must be a constant K x N matrix of int8 or uint8, got " +
           printed(bType);
  const int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
  auto perColumn = [&](DenseElementsAttr values) {
    auto type = cast<ShapedType>(values.getType());
    return type.getRank() <= 1 &&
           (type.getNumElements() == 1 || type.getNumElements() == n);
  };
  if (!scale || !scale.getElementType().isF32() || !perColumn(scale))
    return "the weight scale must be a constant f32 scalar or " +
           std::to_string(n) + " values (one per column)";
  result.scales.assign(scale.value_begin<float>(), scale.value_end<float>());
  for (float s : result.scales)
    if (!std::isfinite(s) || !(s >= std::numeric_limits<float>::min()))
      return "weight scale " + std::to_string(s) +
             " is not a positive normal float";
  SmallVector<int64_t> zeros(1, 0);
  if (zeroPoint) {
    if (zeroPoint.getElementType() != bType.getElementType() ||
        !perColumn(zeroPoint))
      return std::string("the weight zero point must be a constant of B's "
                         "type, one value or one per column");
    zeros.clear();
    for (const APInt &z : zeroPoint.getValues<APInt>())
      zeros.push_back(unsignedB ? int64_t(z.getZExtValue()) : z.getSExtValue());
  }
  SmallVector<int64_t> values;
  values.reserve(k * n);
  for (const APInt &value : b.getValues<APInt>())
    values.push_back(unsignedB ? int64_t(value.getZExtValue())
                               : value.getSExtValue());
  auto zeroOf = [&](int64_t index) {
    return zeros[zeros.size() == 1 ? 0 : index % n];
  };
  // B - zero point as s8 weights where every difference fits; else the
  // weights with zero points the kernels subtract, u8 ones (asymmetric
  // QUInt8) shifted by -128: the same differences.
  const bool foldZeros =
      llvm::all_of(llvm::seq<int64_t>(0, k * n), [&](int64_t i) {
        const int64_t w = values[i] - zeroOf(i);
        return w >= INT8_MIN && w <= INT8_MAX;
      });
  const int64_t shift = unsignedB ? 128 : 0;
  SmallVector<int8_t> weights;
  weights.reserve(k * n);
  for (int64_t i = 0; i < k * n; ++i)
    weights.push_back(static_cast<int8_t>(foldZeros ? values[i] - zeroOf(i)
                                                    : values[i] - shift));
  if (!foldZeros)
    result.zeroPoints.emplace(llvm::map_range(
        zeros, [&](int64_t z) { return static_cast<int32_t>(z - shift); }));
  result.weights = DenseElementsAttr::get(
      RankedTensorType::get({k, n}, IntegerType::get(b.getContext(), 8)),
      ArrayRef(weights));
  if (bias) {
    auto biasType = cast<ShapedType>(bias.getType());
    if (!biasType.getElementType().isF32() || biasType.getRank() != 1 ||
        biasType.getDimSize(0) != n)
      return "the bias must be " + std::to_string(n) + " f32 values, got " +
             printed(biasType);
    result.bias.emplace(bias.value_begin<float>(), bias.value_end<float>());
  }
  return std::nullopt;
}

Value onnx_import::createDynamicProduct(
    Graph &g, Value input, const DynamicMatMulConstants &constants,
    RankedTensorType outputType, std::optional<ArrayRef<int64_t>> window) {
  return DynamicQMatmulOp::create(
      g.b, g.loc, outputType, input, constants.weights,
      g.b.getDenseF32ArrayAttr(constants.scales),
      constants.bias ? g.b.getDenseF32ArrayAttr(*constants.bias)
                     : DenseF32ArrayAttr(),
      DynamicEngineAttr::get(g.b.getContext(), DynamicEngine::onnx),
      constants.zeroPoints ? g.b.getDenseI32ArrayAttr(*constants.zeroPoints)
                           : DenseI32ArrayAttr(),
      window ? g.b.getDenseI64ArrayAttr(*window) : DenseI64ArrayAttr());
}

LogicalResult onnx_import::translateDynamicQuantizeMatMul(Graph &g) {
  auto a = g.floatInput(0, "A");
  if (failed(a))
    return failure();
  DenseElementsAttr b = g.constantInput(1);
  if (!b)
    return g.error() << "B (the weights) must be a constant";
  if (g.hasInput(3) && !g.constantInput(3))
    return g.error() << "the weight zero point must be a constant";
  if (g.hasInput(4) && !g.constantInput(4))
    return g.error() << "the bias must be a constant";
  DynamicMatMulConstants constants;
  if (std::optional<std::string> why = readDynamicMatMulConstants(
          b, g.unsignedConstants.contains(g.node->input(1)), g.constantInput(2),
          g.constantInput(3), g.constantInput(4), constants))
    return g.error() << *why;
  auto bType = cast<ShapedType>(constants.weights.getType());
  const int64_t k = bType.getDimSize(0), n = bType.getDimSize(1);
  RankedTensorType aType = tensorType(*a);
  if (aType.getRank() < 1 || aType.getShape().back() != k)
    return g.error() << "A " << aType << " does not end in K = " << k;
  // MatMul's broadcast: the leading dimensions are rows (a vector is one).
  SmallVector<int64_t> outShape(aType.getShape().drop_back());
  const int64_t m = ShapedType::getNumElements(outShape);
  outShape.push_back(n);
  Value rows = g.reshape(*a, {m, k});
  auto outputType = RankedTensorType::get({m, n}, g.b.getF32Type());
  Value product = createDynamicProduct(g, rows, constants, outputType);
  g.setOutput(0, g.reshape(product, outShape));
  return success();
}

LogicalResult onnx_import::translateMatMulNBits(Graph &g) {
  auto a = g.floatInput(0, "A");
  if (failed(a))
    return failure();
  const int64_t k = g.intAttr("K", 0), n = g.intAttr("N", 0),
                bits = g.intAttr("bits", 4), block = g.intAttr("block_size", 0),
                level = g.intAttr("accuracy_level", 0);
  if (bits != 4)
    return g.error()
           << "bits = " << bits
           << ": only 4-bit weights import (quanta.weight_only_matmul "
              "holds i4 or i8 per column)";
  if (k <= 0 || n <= 0 || block < 16 || (block & (block - 1)) != 0)
    return g.error() << "K and N must be positive and block_size a power of "
                        "2 of at least 16, got K = "
                     << k << ", N = " << n << ", block_size = " << block;
  if (k % block != 0)
    return g.error() << "K = " << k
                     << " is not a multiple of block_size = " << block
                     << ": a padded last block has no i4 group of its own";
  if (g.hasInput(4))
    return g.error() << "g_idx (act-order weights) is not supported";
  DenseElementsAttr packed = g.constantInput(1),
                    scaleValues = g.constantInput(2);
  const int64_t blocks = k / block;
  if (!packed || !packed.getElementType().isInteger(8) ||
      packed.getNumElements() != n * blocks * block / 2)
    return g.error() << "B must be a constant uint8 [N, K / block_size, "
                        "block_size / 2] = ["
                     << n << ", " << blocks << ", " << block / 2 << "]";
  if (!scaleValues || !scaleValues.getElementType().isF32() ||
      scaleValues.getNumElements() != n * blocks)
    return g.error() << "scales must be a constant f32 of N x K / block_size = "
                     << n * blocks << " values";
  // Zero points (4 bits each, packed two per byte, each column's run
  // rounded up to whole bytes) as the op's, minus 8 like the weights, group
  // major; none where every one is 8 (the symmetric kernels).
  SmallVector<int8_t> zeroPoints;
  if (g.hasInput(3)) {
    DenseElementsAttr zeros = g.constantInput(3);
    const int64_t rowBytes = (blocks + 1) / 2;
    if (!zeros || !zeros.getElementType().isInteger(8) ||
        zeros.getNumElements() != n * rowBytes)
      return g.error() << "zero_points must be a constant uint8 of N x "
                          "ceil(K / block_size / 2) = "
                       << n * rowBytes
                       << " bytes (float zero points do not import)";
    SmallVector<APInt> zeroBytes(zeros.getValues<APInt>());
    zeroPoints.resize(blocks * n);
    for (int64_t col = 0; col < n; ++col)
      for (int64_t blockIndex = 0; blockIndex < blocks; ++blockIndex) {
        const uint64_t byte =
            zeroBytes[col * rowBytes + blockIndex / 2].getZExtValue();
        zeroPoints[blockIndex * n + col] =
            static_cast<int8_t>((blockIndex % 2 ? byte >> 4 : byte & 0xF)) - 8;
      }
    if (llvm::all_of(zeroPoints, [](int8_t zero) { return zero == 0; }))
      zeroPoints.clear();
  }
  DenseElementsAttr biasValues;
  if (g.hasInput(5)) {
    biasValues = g.constantInput(5);
    if (!biasValues || !biasValues.getElementType().isF32() ||
        biasValues.getNumElements() != n)
      return g.error() << "bias must be a constant f32 of N = " << n
                       << " values";
  }
  RankedTensorType aType = tensorType(*a);
  if (aType.getRank() < 1 || aType.getShape().back() != k)
    return g.error() << "A " << aType << " does not end in K = " << k;
  // Byte j of a block of column c holds k values 2j (low nibble) and
  // 2j + 1, stored + 8.
  SmallVector<uint8_t> bytes;
  for (const APInt &byte : packed.getValues<APInt>())
    bytes.push_back(static_cast<uint8_t>(byte.getZExtValue()));
  SmallVector<APInt> weights(k * n, APInt(4, 0));
  for (int64_t col = 0; col < n; ++col)
    for (int64_t row = 0; row < k; ++row) {
      const uint8_t byte = bytes[col * k / 2 + row / 2];
      const int64_t value = (row % 2 ? byte >> 4 : byte & 0xF) - 8;
      weights[row * n + col] = APInt(4, value, /*isSigned=*/true);
    }
  SmallVector<float> scales(blocks * n);
  auto scaleList = llvm::to_vector(scaleValues.getValues<float>());
  for (int64_t col = 0; col < n; ++col)
    for (int64_t blockIndex = 0; blockIndex < blocks; ++blockIndex) {
      const float scale = scaleList[col * blocks + blockIndex];
      if (!std::isfinite(scale) || !(scale > 0.0f))
        return g.error() << "scale " << scale << " (column " << col
                         << ", block " << blockIndex
                         << ") is not finite and positive";
      scales[blockIndex * n + col] = scale;
    }
  SmallVector<int64_t> outShape(aType.getShape().drop_back());
  const int64_t m = ShapedType::getNumElements(outShape);
  outShape.push_back(n);
  auto outputType = RankedTensorType::get({m, n}, g.b.getF32Type());
  Value product = WeightOnlyMatmulOp::create(
      g.b, g.loc, outputType, g.reshape(*a, {m, k}),
      DenseElementsAttr::get(
          RankedTensorType::get({k, n}, g.b.getIntegerType(4)), weights),
      g.b.getDenseF32ArrayAttr(scales),
      biasValues ? g.b.getDenseF32ArrayAttr(
                       llvm::to_vector(biasValues.getValues<float>()))
                 : DenseF32ArrayAttr(),
      g.b.getI64IntegerAttr(block), UnitAttr(),
      level == 4 ? g.b.getUnitAttr() : UnitAttr(),
      zeroPoints.empty() ? DenseI8ArrayAttr()
                         : g.b.getDenseI8ArrayAttr(zeroPoints),
      UnitAttr());
  g.setOutput(0, g.reshape(product, outShape));
  return success();
}

DenseElementsAttr
onnx_import::convolutionWeightMatrix(DenseElementsAttr weights) {
  auto type = cast<ShapedType>(weights.getType());
  if (type.getRank() != 4 || !type.getElementType().isInteger(8))
    return {};
  const int64_t filters = type.getDimSize(0), channels = type.getDimSize(1),
                height = type.getDimSize(2), width = type.getDimSize(3);
  SmallVector<APInt> values(weights.getValues<APInt>());
  SmallVector<APInt> matrix;
  matrix.reserve(values.size());
  for (int64_t kh = 0; kh < height; ++kh)
    for (int64_t kw = 0; kw < width; ++kw)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t f = 0; f < filters; ++f)
          matrix.push_back(
              values[((f * channels + c) * height + kh) * width + kw]);
  return DenseElementsAttr::get(
      RankedTensorType::get({height * width * channels, filters},
                            type.getElementType()),
      matrix);
}

LogicalResult onnx_import::translateDynamicQuantizeConv(Graph &g) {
  auto x = g.floatInput(0, "X");
  if (failed(x))
    return failure();
  DenseElementsAttr w = g.constantInput(1);
  RankedTensorType xType = tensorType(*x);
  auto wType = cast<ShapedType>(w.getType());
  if (xType.getRank() != 4 || !xType.hasStaticShape() ||
      xType.getDimSize(1) != wType.getDimSize(1))
    return g.error() << "X " << xType << " must be a static [N, C, H, W] "
                     << "image of the weights' " << wType.getDimSize(1)
                     << " channels";
  DynamicMatMulConstants constants;
  if (std::optional<std::string> why = readDynamicMatMulConstants(
          convolutionWeightMatrix(w),
          g.unsignedConstants.contains(g.node->input(1)), g.constantInput(2),
          g.constantInput(3), g.constantInput(4), constants))
    return g.error() << *why;
  auto window = readWindow(g, xType.getShape().drop_front(2),
                           wType.getShape().drop_front(2), /*oneD=*/false);
  if (failed(window))
    return failure();
  const int64_t batch = xType.getDimSize(0), filters = wType.getDimSize(0),
                outH = windowOutput(*window, 0, xType.getDimSize(2), false),
                outW = windowOutput(*window, 1, xType.getDimSize(3), false);
  if (outH <= 0 || outW <= 0)
    return g.error() << "the window does not fit the input " << xType;
  // Zeros quantize to the zero point, ConvInteger's padding value.
  Value image = g.transpose(padForWindow(g, *x, *window, {outH, outW}, 0.0),
                            {0, 2, 3, 1});
  SmallVector<int64_t> windowValues = {
      window->kernel[0],  window->kernel[1],    window->strides[0],
      window->strides[1], window->dilations[0], window->dilations[1]};
  Value product = createDynamicProduct(
      g, image, constants,
      RankedTensorType::get({batch * outH * outW, filters}, g.b.getF32Type()),
      ArrayRef<int64_t>(windowValues));
  g.setOutput(0, g.transpose(g.reshape(product, {batch, outH, outW, filters}),
                             {0, 3, 1, 2}));
  return success();
}

// ONNX Runtime's QOperator format: the float op between dequantized inputs
// and a quantized output, as one contrib node. Expanded into the QDQ nodes
// it stands for, it imports as QDQ models do (fake quantizations with the
// model's qparams around the float op), which quanta-quantize makes
// integer code.
namespace {
struct ContribQLinear {
  StringRef floatOp;
  /// Per quantized input: its data, scale, zero point input indices; the
  /// output's scale and zero point; -1 when QLinearConcat's variadic
  /// inputs follow them.
  int numInputs;
  int outputScale;
};
} // namespace

static const ContribQLinear *lookupContribQLinear(StringRef opType) {
  static const llvm::StringMap<ContribQLinear> table = {
      {"QLinearAdd", {"Add", 2, 6}},
      {"QLinearMul", {"Mul", 2, 6}},
      {"QLinearSigmoid", {"Sigmoid", 1, 3}},
      {"QLinearLeakyRelu", {"LeakyRelu", 1, 3}},
      {"QLinearGlobalAveragePool", {"GlobalAveragePool", 1, 3}},
      {"QLinearConcat", {"Concat", -1, 0}},
  };
  auto it = table.find(opType);
  return it == table.end() ? nullptr : &it->second;
}

bool onnx_import::isContribQLinear(const onnx::NodeProto &node) {
  return node.domain() == "com.microsoft" &&
         lookupContribQLinear(node.op_type());
}

std::optional<std::string>
onnx_import::expandContribQLinear(const onnx::NodeProto &node,
                                  SmallVectorImpl<onnx::NodeProto> &expansion) {
  const ContribQLinear &info = *lookupContribQLinear(node.op_type());
  if (node.output_size() != 1 || node.output(0).empty())
    return std::string("expects one output");
  // (data, scale, zero point) triples and the output's scale index.
  SmallVector<int> triples;
  int outputScale = info.outputScale;
  if (info.numInputs < 0) {
    // QLinearConcat: Y_scale, Y_zero_point, then a triple per input.
    if (node.input_size() < 5 || (node.input_size() - 2) % 3 != 0)
      return std::string("expects Y_scale, Y_zero_point and a (data, scale, "
                         "zero point) triple per input");
    for (int index = 2; index < node.input_size(); index += 3)
      triples.push_back(index);
  } else {
    for (int input = 0; input < info.numInputs; ++input)
      triples.push_back(3 * input);
    if (node.input_size() < outputScale + 1)
      return "expects " + std::to_string(outputScale + 1) +
             " inputs or more, has " + std::to_string(node.input_size());
  }
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() == "channels_last" && attribute.i() != 0)
      return std::string("channels_last = 1 is not supported");

  const std::string &output = node.output(0);
  auto input = [&](int index) {
    return index < node.input_size() ? node.input(index) : std::string();
  };
  onnx::NodeProto floatNode;
  floatNode.set_op_type(info.floatOp.str());
  floatNode.set_name(node.name());
  for (const onnx::AttributeProto &attribute : node.attribute())
    if (attribute.name() != "channels_last")
      *floatNode.add_attribute() = attribute;
  for (auto [position, data] : llvm::enumerate(triples)) {
    onnx::NodeProto &dequantize = expansion.emplace_back();
    dequantize.set_op_type("DequantizeLinear");
    dequantize.set_name(node.name() + ".dequantize" + std::to_string(position));
    dequantize.add_input(input(data));
    dequantize.add_input(input(data + 1));
    dequantize.add_input(input(data + 2));
    dequantize.add_output(output + ".input" + std::to_string(position));
    floatNode.add_input(dequantize.output(0));
  }
  floatNode.add_output(output + ".float");
  expansion.push_back(floatNode);
  onnx::NodeProto &quantize = expansion.emplace_back();
  quantize.set_op_type("QuantizeLinear");
  quantize.set_name(node.name() + ".quantize");
  quantize.add_input(floatNode.output(0));
  quantize.add_input(input(outputScale));
  quantize.add_input(input(outputScale + 1));
  quantize.add_output(output);
  return std::nullopt;
}

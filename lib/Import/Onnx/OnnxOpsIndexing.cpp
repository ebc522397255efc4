//===- OnnxOpsIndexing.cpp - Shapes, gathers and generated tensors --------===//
//
// Translates Shape, Size, ConstantOfShape, Range, Expand, Tile, Gather,
// GatherElements and Trilu. Shapes are static, so Shape and Size are
// constants, and the shape computations exporters write around them
// (Shape -> Gather -> Unsqueeze -> Concat -> Reshape) compute at import.
// Gathers read their data with tensor.extract at clamped indices: an index
// out of range (a token id beyond the vocabulary) reads the nearest row,
// never outside the tensor.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/MathExtras.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

static DenseElementsAttr i64Vector(Graph &g, ArrayRef<int64_t> values) {
  return DenseElementsAttr::get(
      RankedTensorType::get({int64_t(values.size())}, g.b.getI64Type()),
      values);
}

LogicalResult onnx_import::translateShape(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  ArrayRef<int64_t> shape = tensorType(*x).getShape();
  // Opset 15's start and end slice the shape, clamped as Slice clamps.
  const int64_t rank = shape.size();
  auto clampDim = [&](int64_t dim) {
    return std::clamp<int64_t>(dim < 0 ? dim + rank : dim, 0, rank);
  };
  const int64_t start = clampDim(g.intAttr("start", 0));
  const int64_t end = clampDim(g.intAttr("end", rank));
  g.setOutputConstant(0,
                      i64Vector(g, end > start ? shape.slice(start, end - start)
                                               : ArrayRef<int64_t>{}));
  return success();
}

LogicalResult onnx_import::translateSize(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  g.setOutputConstant(
      0, DenseElementsAttr::get(RankedTensorType::get({}, g.b.getI64Type()),
                                tensorType(*x).getNumElements()));
  return success();
}

LogicalResult onnx_import::translateConstantOfShape(Graph &g) {
  auto shape = g.constantInts(0, "shape");
  if (failed(shape))
    return failure();
  int64_t count = 1;
  for (int64_t size : *shape)
    if (size < 0 || llvm::MulOverflow(count, size, count))
      return g.error() << "the shape has a negative size or more than 2^63 "
                       << "elements";
  DenseElementsAttr value;
  if (const onnx::AttributeProto *attr = g.attribute("value")) {
    bool isUnsigned;
    auto decoded = decodeTensor(g.b.getContext(), g.loc, attr->t(), g.modelPath,
                                &isUnsigned);
    if (failed(decoded))
      return failure();
    if (decoded->getNumElements() != 1)
      return g.error() << "value must hold one element";
    value = *decoded;
    if (isUnsigned)
      g.unsignedConstants.insert(g.node->output(0));
  } else {
    value = DenseElementsAttr::get(RankedTensorType::get({1}, g.b.getF32Type()),
                                   0.0f);
  }
  // A splat: one element stored, however large the shape.
  g.setOutputConstant(0,
                      DenseElementsAttr::get(
                          RankedTensorType::get(*shape, value.getElementType()),
                          value.getValues<Attribute>()[0]));
  return success();
}

LogicalResult onnx_import::translateRange(Graph &g) {
  DenseElementsAttr start = g.constantInput(0), limit = g.constantInput(1),
                    delta = g.constantInput(2);
  if (!start || !limit || !delta || start.getNumElements() != 1 ||
      limit.getNumElements() != 1 || delta.getNumElements() != 1 ||
      start.getElementType() != limit.getElementType() ||
      start.getElementType() != delta.getElementType())
    return g.error() << "start, limit and delta must be constant scalars of "
                     << "one type";
  Type element = start.getElementType();
  auto scalarOf = [](DenseElementsAttr attr) {
    Attribute value = attr.getValues<Attribute>()[0];
    if (auto f = dyn_cast<FloatAttr>(value))
      return f.getValueAsDouble();
    return double(cast<IntegerAttr>(value).getValue().getSExtValue());
  };
  const double first = scalarOf(start), step = scalarOf(delta);
  if (step == 0)
    return g.error() << "delta is 0";
  // ONNX's count: max(ceil((limit - start) / delta), 0).
  const double count =
      std::max(std::ceil((scalarOf(limit) - first) / step), 0.0);
  if (!std::isfinite(count))
    return g.error() << "start, limit and delta (" << first << ", "
                     << scalarOf(limit) << ", " << step
                     << ") give no finite element count";
  if (count > double(kMaxFoldedElements))
    return g.error() << "the range has " << count << " elements; at most "
                     << kMaxFoldedElements << " are generated at import";
  auto type = RankedTensorType::get({int64_t(count)}, element);
  SmallVector<Attribute> values;
  for (int64_t i = 0; i < int64_t(count); ++i) {
    // ONNX's definition: start + i * delta.
    if (isa<FloatType>(element)) {
      values.push_back(FloatAttr::get(element, first + double(i) * step));
    } else {
      values.push_back(
          IntegerAttr::get(element, int64_t(first) + i * int64_t(step)));
    }
  }
  g.setOutputConstant(0, DenseElementsAttr::get(type, values));
  return success();
}

LogicalResult onnx_import::translateExpand(Graph &g) {
  auto x = g.input(0);
  auto shape = g.constantInts(1, "shape");
  if (failed(x) || failed(shape))
    return failure();
  RankedTensorType type = tensorType(*x);
  if (llvm::any_of(*shape, [](int64_t size) { return size < 0; }))
    return g.error() << "the shape (" << llvm::interleaved(*shape)
                     << ") has a negative size";
  auto result = broadcastShapes(type.getShape(), *shape);
  if (!result)
    return g.error() << type << " does not broadcast to the shape ("
                     << llvm::interleaved(*shape) << ")";
  g.setOutput(
      0,
      g.elementwise({*x}, type.clone(*result),
                    [](OpBuilder &, Location, ValueRange a) { return a[0]; }),
      g.isUnsigned(*x));
  return success();
}

/// The index `value` (an integer of any width) as an index in [0, size):
/// negative ones count from the end; out-of-range ones are clamped.
static Value clampedIndex(OpBuilder &b, Location loc, Value value,
                          int64_t size) {
  Type indexType = b.getIndexType();
  Value index = arith::IndexCastOp::create(b, loc, indexType, value);
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(b, loc, v);
  };
  Value negative = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt,
                                         index, constant(0));
  index = arith::SelectOp::create(
      b, loc, negative, arith::AddIOp::create(b, loc, index, constant(size)),
      index);
  return arith::MinSIOp::create(
      b, loc, arith::MaxSIOp::create(b, loc, index, constant(0)),
      constant(size - 1));
}

/// A generic over `resultType` with `inputs` read at `maps` whose body is
/// `body`, computed at import when everything it reads is constant.
static Value
indexingGeneric(Graph &g, RankedTensorType resultType, ValueRange inputs,
                ArrayRef<AffineMap> maps,
                function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  const int64_t rank = resultType.getRank();
  SmallVector<AffineMap> allMaps(maps);
  allMaps.push_back(g.b.getMultiDimIdentityMap(rank));
  return g.foldOrResult(linalg::GenericOp::create(
      g.b, g.loc, resultType, inputs, g.emptyLike(resultType), allMaps,
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &b, Location loc, ValueRange args) {
        linalg::YieldOp::create(b, loc, body(b, loc, args.drop_back()));
      }));
}

LogicalResult onnx_import::translateGather(Graph &g) {
  auto data = g.input(0), indices = g.input(1);
  if (failed(data) || failed(indices))
    return failure();
  RankedTensorType dataType = tensorType(*data),
                   indicesType = tensorType(*indices);
  const bool isElements = g.node->op_type() == "GatherElements";
  if (!isa<IntegerType>(indicesType.getElementType()) ||
      indicesType.getElementType().isInteger(1))
    return g.error() << "the indices " << indicesType
                     << " are not int32 or int64";
  if (dataType.getRank() == 0)
    return g.error() << "the data is a scalar";
  auto axis = normalizeAxis(g, g.intAttr("axis", 0), dataType.getRank());
  if (failed(axis))
    return failure();
  const int64_t size = dataType.getDimSize(*axis);
  if (size == 0)
    return g.error() << "dimension " << *axis << " of the data is empty";
  MLIRContext *context = g.b.getContext();
  // Gather: data[:axis] + indices + data[axis+1:]. GatherElements: the
  // indices' shape, reading data at the same position but along `axis`.
  SmallVector<int64_t> shape;
  const int64_t q = indicesType.getRank();
  if (isElements) {
    if (q != dataType.getRank())
      return g.error() << "the indices " << indicesType << " and the data "
                       << dataType << " differ in rank";
    for (int64_t dim = 0; dim < q; ++dim)
      if (dim != *axis &&
          indicesType.getDimSize(dim) > dataType.getDimSize(dim))
        return g.error() << "the indices " << indicesType
                         << " are larger than the data " << dataType
                         << " along dimension " << dim;
    shape.assign(indicesType.getShape().begin(), indicesType.getShape().end());
  } else {
    llvm::append_range(shape, dataType.getShape().take_front(*axis));
    llvm::append_range(shape, indicesType.getShape());
    llvm::append_range(shape, dataType.getShape().drop_front(*axis + 1));
  }
  const int64_t rank = shape.size();
  SmallVector<AffineExpr> indexExprs;
  for (int64_t dim = 0; dim < q; ++dim)
    indexExprs.push_back(
        getAffineDimExpr(isElements ? dim : *axis + dim, context));
  AffineMap indexMap = AffineMap::get(rank, 0, indexExprs, context);
  Value table = *data;
  Value result = indexingGeneric(
      g, dataType.clone(shape), *indices, indexMap,
      [&](OpBuilder &b, Location loc, ValueRange args) -> Value {
        SmallVector<Value> at;
        for (int64_t dim = 0; dim < dataType.getRank(); ++dim) {
          if (dim == *axis) {
            at.push_back(clampedIndex(b, loc, args[0], size));
            continue;
          }
          const int64_t from = isElements || dim < *axis ? dim : dim + q - 1;
          at.push_back(linalg::IndexOp::create(b, loc, from));
        }
        return tensor::ExtractOp::create(b, loc, table, at);
      });
  g.setOutput(0, result, g.isUnsigned(*data));
  return success();
}

LogicalResult onnx_import::translateTile(Graph &g) {
  auto x = g.input(0);
  auto repeats = g.constantInts(1, "repeats");
  if (failed(x) || failed(repeats))
    return failure();
  RankedTensorType type = tensorType(*x);
  if (int64_t(repeats->size()) != type.getRank())
    return g.error() << "repeats has " << repeats->size()
                     << " values for an input of rank " << type.getRank();
  SmallVector<int64_t> shape;
  for (auto [size, repeat] : llvm::zip_equal(type.getShape(), *repeats)) {
    int64_t tiled;
    if (repeat < 0 || llvm::MulOverflow(size, repeat, tiled))
      return g.error() << "repeat " << repeat << " is negative or too large";
    shape.push_back(tiled);
  }
  Value input = *x;
  g.setOutput(
      0,
      indexingGeneric(
          g, type.clone(shape), {}, {},
          [&](OpBuilder &b, Location loc, ValueRange) -> Value {
            SmallVector<Value> at;
            for (int64_t dim = 0; dim < type.getRank(); ++dim)
              at.push_back(arith::RemSIOp::create(
                  b, loc, linalg::IndexOp::create(b, loc, dim),
                  arith::ConstantIndexOp::create(
                      b, loc, std::max<int64_t>(type.getDimSize(dim), 1))));
            return tensor::ExtractOp::create(b, loc, input, at);
          }),
      g.isUnsigned(*x));
  return success();
}

LogicalResult onnx_import::translateTrilu(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  if (type.getRank() < 2)
    return g.error() << "the input " << type << " has rank below 2";
  int64_t k = 0;
  if (g.hasInput(1)) {
    auto given = g.constantInts(1, "k");
    if (failed(given))
      return failure();
    if (given->size() != 1)
      return g.error() << "k must be a scalar";
    k = given->front();
  }
  const bool upper = g.intAttr("upper", 1) != 0;
  const int64_t rank = type.getRank();
  Type element = type.getElementType();
  // Kept: j - i >= k (upper) or j - i <= k (lower), else zero.
  g.setOutput(
      0,
      indexingGeneric(
          g, type, *x, g.b.getMultiDimIdentityMap(rank),
          [&](OpBuilder &b, Location loc, ValueRange a) -> Value {
            Value i = arith::IndexCastOp::create(
                b, loc, b.getI64Type(),
                linalg::IndexOp::create(b, loc, rank - 2));
            Value j = arith::IndexCastOp::create(
                b, loc, b.getI64Type(),
                linalg::IndexOp::create(b, loc, rank - 1));
            Value diagonal = arith::SubIOp::create(b, loc, j, i);
            Value keep = arith::CmpIOp::create(
                b, loc,
                upper ? arith::CmpIPredicate::sge : arith::CmpIPredicate::sle,
                diagonal,
                arith::ConstantOp::create(b, loc, b.getI64IntegerAttr(k)));
            Value zero = isa<FloatType>(element)
                             ? Value(arith::ConstantOp::create(
                                   b, loc, b.getFloatAttr(element, 0.0)))
                             : arith::ConstantOp::create(
                                   b, loc, b.getIntegerAttr(element, 0));
            return arith::SelectOp::create(b, loc, keep, a[0], zero);
          }),
      g.isUnsigned(*x));
  return success();
}

//===- QuantizeNormalization.cpp - Softmax and layer norm on integers -----===//
//
// The row normalizations of quanta-quantize (Passes.td), each a dequantized
// 8-bit activation in and a quantization out, as the ONNX importer writes
// them (linalg.softmax too):
//
//  - softmax (max / exp(x - max) / sum / divide) becomes three
//    linalg.generics on the storage integers computing exactly what the
//    numeric library's quantizedSoftmax computes (IntegerSoftmax: an exp
//    table of the 256 possible distances to the row's maximum, exact int32
//    row sums, one float factor per row): no exp at run time;
//  - layer norm (mean, x - mean, its square, their mean, 1/sqrt(. + eps),
//    times gamma plus beta) becomes one integer reduction (the exact sums
//    of q - zi and its square) and one generic computing quantizedLayerNorm
//    (IntegerLayerNorm: the row's statistics from the exact sums, then one
//    float multiply-add per value and the quantization).
//
// Integer reductions vectorize where the float ones, whose order fixes the
// bits, stay sequential.
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Numerics/IntegerKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include <limits>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::detail;
namespace nx = mlir::quanta::numerics;

namespace {
/// Emits linalg on the storage integers of an 8-bit tensor, row by row along
/// one dimension: reductions into per-row i32 values and an elementwise
/// generic reading them.
class RowBuilder {
public:
  RowBuilder(OpBuilder &builder, Location loc, Value storage, int64_t dimension,
             quant::UniformQuantizedType inputType)
      : b(builder), loc(loc), storage(storage), inputType(inputType) {
    auto type = cast<RankedTensorType>(storage.getType());
    MLIRContext *context = b.getContext();
    const int64_t rank = type.getRank();
    SmallVector<AffineExpr> rowDims;
    for (int64_t dim = 0; dim < rank; ++dim) {
      iterators.push_back(dim == dimension ? utils::IteratorType::reduction
                                           : utils::IteratorType::parallel);
      if (dim != dimension) {
        rowDims.push_back(getAffineDimExpr(dim, context));
        rowShape.push_back(type.getDimSize(dim));
      }
    }
    identity = AffineMap::getMultiDimIdentityMap(rank, context);
    row = AffineMap::get(rank, 0, rowDims, context);
  }

protected:
  using Body =
      function_ref<SmallVector<Value>(OpBuilder &, Location, ValueRange)>;

  Value widen(IntegerBody &body, Value q) {
    return body.widen(q, inputType.isSigned());
  }

  /// i32 reductions along the dimension, one per value of `initials`, of
  /// the storage and the per-row values `rows`; `combine` gets the storage
  /// value, the rows' values and the accumulators.
  SmallVector<Value> reduce(ArrayRef<int64_t> initials, ValueRange rows,
                            Body combine) {
    SmallVector<Value> inits;
    for (int64_t initial : initials) {
      Value empty = tensor::EmptyOp::create(b, loc, rowShape, b.getI32Type());
      inits.push_back(
          linalg::FillOp::create(b, loc,
                                 ValueRange{arith::ConstantIntOp::create(
                                     b, loc, b.getI32Type(), initial)},
                                 ValueRange{empty})
              .getResult(0));
    }
    SmallVector<Value> inputs{storage};
    inputs.append(rows.begin(), rows.end());
    SmallVector<AffineMap> maps{identity};
    maps.append(rows.size() + inits.size(), row);
    return linalg::GenericOp::create(
               b, loc, TypeRange(ValueRange(inits)), inputs, inits, maps,
               iterators,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(nested, nestedLoc,
                                         combine(nested, nestedLoc, args));
               })
        .getResults();
  }

  /// The 8-bit result, shaped like the input, of `compute` on the storage
  /// value, the per-row values `rows` and `others` read through
  /// `otherMaps`.
  Value elementwise(ValueRange rows, ValueRange others,
                    ArrayRef<AffineMap> otherMaps, Body compute) {
    auto type = cast<RankedTensorType>(storage.getType());
    Value init =
        tensor::EmptyOp::create(b, loc, type.getShape(), b.getI8Type());
    SmallVector<Value> inputs{storage};
    inputs.append(rows.begin(), rows.end());
    inputs.append(others.begin(), others.end());
    SmallVector<AffineMap> maps{identity};
    maps.append(rows.size(), row);
    maps.append(otherMaps.begin(), otherMaps.end());
    maps.push_back(identity);
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, ValueRange{init}, maps, parallel,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(nested, nestedLoc,
                                         compute(nested, nestedLoc, args));
               })
        .getResult(0);
  }

  /// min(max(y, lo), hi) (y is never NaN: compare and select, without
  /// minimumf's NaN handling), as the storage integer.
  static Value clampToStorage(OpBuilder &nested, Location nestedLoc, Value y,
                              nx::QRange range) {
    auto clamp = [&](arith::CmpFPredicate predicate, int64_t bound) {
      Value limit = arith::ConstantOp::create(
          nested, nestedLoc, nested.getF32FloatAttr(static_cast<float>(bound)));
      Value outside =
          arith::CmpFOp::create(nested, nestedLoc, predicate, y, limit);
      y = arith::SelectOp::create(nested, nestedLoc, outside, limit, y);
    };
    clamp(arith::CmpFPredicate::OGT, range.quantMax);
    clamp(arith::CmpFPredicate::OLT, range.quantMin);
    Value q =
        arith::FPToSIOp::create(nested, nestedLoc, nested.getI32Type(), y);
    return arith::TruncIOp::create(nested, nestedLoc, nested.getI8Type(), q);
  }

  static Value constant(OpBuilder &nested, Location nestedLoc, float value) {
    return arith::ConstantOp::create(nested, nestedLoc,
                                     nested.getF32FloatAttr(value));
  }

  OpBuilder &b;
  Location loc;
  Value storage;
  quant::UniformQuantizedType inputType;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<int64_t> rowShape;
  AffineMap identity, row;
};

/// The integer softmax (IntegerSoftmax) of `storage` along `dimension`.
class SoftmaxBuilder : RowBuilder {
public:
  SoftmaxBuilder(OpBuilder &builder, Location loc, Value storage,
                 int64_t dimension, quant::UniformQuantizedType inputType,
                 const nx::IntegerSoftmax &softmax)
      : RowBuilder(builder, loc, storage, dimension, inputType),
        softmax(softmax) {
    table = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({256}, b.getI32Type()),
                               ArrayRef(softmax.expTable)));
  }

  /// The softmax's storage integers, shaped like the input.
  Value build() {
    Value rowMax =
        reduce(nx::dtypeRange(getDType(inputType)).quantMin, {},
               [&](OpBuilder &nested, Location nestedLoc,
                   ValueRange args) -> SmallVector<Value> {
                 IntegerBody body(nested, nestedLoc);
                 return {arith::MaxSIOp::create(nested, nestedLoc,
                                                widen(body, args[0]), args[1])};
               })[0];
    Value rowSum =
        reduce(0, {rowMax},
               [&](OpBuilder &nested, Location nestedLoc,
                   ValueRange args) -> SmallVector<Value> {
                 IntegerBody body(nested, nestedLoc);
                 return {body.add(args[2],
                                  lookUp(nested, nestedLoc, args[0], args[1]))};
               })[0];
    return elementwise({rowMax, rowSum}, {}, {},
                       [&](OpBuilder &nested, Location nestedLoc,
                           ValueRange args) -> SmallVector<Value> {
                         return {output(nested, nestedLoc, args)};
                       });
  }

private:
  /// expTable[rowMax - q].
  Value lookUp(OpBuilder &nested, Location nestedLoc, Value q, Value rowMax) {
    IntegerBody body(nested, nestedLoc);
    Value distance = body.sub(rowMax, widen(body, q));
    Value index = arith::IndexCastOp::create(nested, nestedLoc,
                                             nested.getIndexType(), distance);
    return tensor::ExtractOp::create(nested, nestedLoc, table,
                                     ValueRange{index});
  }

  /// IntegerSoftmax::apply(expTable[rowMax - q], rowFactor(rowSum)), in
  /// the same float operations.
  Value output(OpBuilder &nested, Location nestedLoc, ValueRange args) {
    Type f32 = nested.getF32Type();
    Value sum = arith::SIToFPOp::create(nested, nestedLoc, f32, args[2]);
    Value factor = arith::DivFOp::create(
        nested, nestedLoc, constant(nested, nestedLoc, 1.0f),
        arith::MulFOp::create(
            nested, nestedLoc, sum,
            constant(nested, nestedLoc, softmax.outputScale)));
    Value term = arith::SIToFPOp::create(
        nested, nestedLoc, f32, lookUp(nested, nestedLoc, args[0], args[1]));
    Value y = arith::AddFOp::create(
        nested, nestedLoc,
        math::RoundEvenOp::create(
            nested, nestedLoc,
            arith::MulFOp::create(nested, nestedLoc, term, factor)),
        constant(nested, nestedLoc,
                 static_cast<float>(softmax.outputZeroPoint)));
    return clampToStorage(nested, nestedLoc, y, softmax.outputRange);
  }

  const nx::IntegerSoftmax &softmax;
  Value table;
};

/// The integer layer norm (IntegerLayerNorm) of `storage` along
/// `dimension`, gamma and beta read as the float op read them.
class LayerNormBuilder : RowBuilder {
public:
  LayerNormBuilder(OpBuilder &builder, Location loc, Value storage,
                   int64_t dimension, quant::UniformQuantizedType inputType,
                   const nx::IntegerLayerNorm &norm)
      : RowBuilder(builder, loc, storage, dimension, inputType), norm(norm) {}

  Value build(ValueRange weights, ArrayRef<AffineMap> weightMaps) {
    SmallVector<Value> sums = reduce(
        {0, 0}, {},
        [&](OpBuilder &nested, Location nestedLoc,
            ValueRange args) -> SmallVector<Value> {
          IntegerBody body(nested, nestedLoc);
          Value c = centred(body, args[0]);
          return {body.add(args[1], c), body.add(args[2], body.mul(c, c))};
        });
    return elementwise(sums, weights, weightMaps,
                       [&](OpBuilder &nested, Location nestedLoc,
                           ValueRange args) -> SmallVector<Value> {
                         return {output(nested, nestedLoc, args)};
                       });
  }

private:
  Value centred(IntegerBody &body, Value q) {
    return body.sub(widen(body, q), body.constant(norm.inputZeroPoint, 32));
  }

  /// IntegerLayerNorm::row and apply, in the same float operations; `args`
  /// are q, the row's sum and sum of squares, gamma and beta (if any).
  Value output(OpBuilder &nested, Location nestedLoc, ValueRange args) {
    IntegerBody body(nested, nestedLoc);
    Type f32 = nested.getF32Type(), i64 = nested.getI64Type();
    auto toFloat = [&](Value v) {
      return arith::SIToFPOp::create(nested, nestedLoc, f32, v);
    };
    auto wide = [&](Value v) {
      return arith::ExtSIOp::create(nested, nestedLoc, i64, v);
    };
    auto c = [&](float value) { return constant(nested, nestedLoc, value); };
    Value n = body.constant(norm.rowLength, 64);
    Value spread = body.sub(body.mul(n, wide(args[2])),
                            body.mul(wide(args[1]), wide(args[1])));
    Value mean = arith::DivFOp::create(nested, nestedLoc, toFloat(args[1]),
                                       c(static_cast<float>(norm.rowLength)));
    Value variance = arith::DivFOp::create(
        nested, nestedLoc, toFloat(spread),
        c(static_cast<float>(norm.rowLength * norm.rowLength)));
    Value scaled = arith::MulFOp::create(nested, nestedLoc, variance,
                                         c(norm.inputScale * norm.inputScale));
    Value deviation = math::SqrtOp::create(
        nested, nestedLoc,
        arith::AddFOp::create(nested, nestedLoc, scaled, c(norm.epsilon)));
    Value factor =
        arith::DivFOp::create(nested, nestedLoc, c(norm.inputScale), deviation);
    Value normalized = arith::MulFOp::create(
        nested, nestedLoc,
        arith::SubFOp::create(nested, nestedLoc,
                              toFloat(centred(body, args[0])), mean),
        factor);
    Value y = arith::MulFOp::create(nested, nestedLoc, normalized, args[3]);
    if (args.size() > 5)
      y = arith::AddFOp::create(nested, nestedLoc, y, args[4]);
    Value q = arith::AddFOp::create(
        nested, nestedLoc,
        math::RoundEvenOp::create(
            nested, nestedLoc,
            arith::MulFOp::create(nested, nestedLoc, y,
                                  c(norm.outputInverseScale))),
        c(static_cast<float>(norm.outputZeroPoint)));
    return clampToStorage(nested, nestedLoc, q, norm.outputRange);
  }

  const nx::IntegerLayerNorm &norm;
};
} // namespace

//===----------------------------------------------------------------------===//
// Matching the float forms
//===----------------------------------------------------------------------===//

/// The body's single op if `generic` computes `yield op(...)` and nothing
/// else.
static Operation *getSingleBodyOp(linalg::GenericOp generic) {
  Block *body = generic.getBody();
  if (body->getOperations().size() != 2)
    return nullptr;
  return &body->front();
}

/// The dimension `generic` reduces `from` (its only input) along, if it is a
/// single-dimension reduction whose body is `OpTy(input, accumulator)`
/// starting from `initial`.
template <typename... OpTys>
static std::optional<int64_t> getRowReduction(linalg::GenericOp generic,
                                              Value from, double initial) {
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 || generic.getDpsInputs()[0] != from ||
      generic.getNumReductionLoops() != 1 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity())
    return std::nullopt;
  Operation *op = getSingleBodyOp(generic);
  Block *body = generic.getBody();
  if (!isa_and_present<OpTys...>(op) ||
      op->getOperand(0) != body->getArgument(0) ||
      op->getOperand(1) != body->getArgument(1))
    return std::nullopt;
  auto fill = generic.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  FloatAttr start;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&start)) ||
      start.getValueAsDouble() != initial)
    return std::nullopt;
  SmallVector<unsigned> reductions;
  generic.getReductionDims(reductions);
  return reductions.front();
}

/// The per-row value operand `index` of `generic` reads, broadcast along
/// `dimension`: the operand itself with the dimension projected out, or
/// with a keep-dims shape (size 1 at the dimension, read at 0), that value
/// or the row values a keep-dims expand_shape (then added to `ops`) makes
/// it from. Null if the operand is not read so.
static Value getRowOperand(linalg::GenericOp generic, unsigned index,
                           int64_t dimension,
                           SmallVectorImpl<Operation *> &ops) {
  OpOperand *operand = generic.getDpsInputOperand(index);
  AffineMap map = generic.getMatchingIndexingMap(operand);
  MLIRContext *context = generic.getContext();
  const unsigned rank = map.getNumDims();
  SmallVector<AffineExpr> projected;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (dim != dimension)
      projected.push_back(getAffineDimExpr(dim, context));
  if (map == AffineMap::get(rank, 0, projected, context))
    return operand->get();
  SmallVector<AffineExpr> keptDims(projected);
  keptDims.insert(keptDims.begin() + dimension,
                  getAffineConstantExpr(0, context));
  auto type = cast<RankedTensorType>(operand->get().getType());
  if (map != AffineMap::get(rank, 0, keptDims, context) ||
      type.getDimSize(dimension) != 1)
    return {};
  if (auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
      expand && expand.getSrcType().getRank() == rank - 1) {
    ops.push_back(expand);
    return expand.getSrc();
  }
  return operand->get();
}

/// The op yielded by `generic` if it is elementwise over `numInputs`
/// inputs, the first read directly.
static Operation *getElementwiseResultOp(linalg::GenericOp generic,
                                         unsigned numInputs) {
  if (!generic || generic.getNumDpsInputs() != numInputs ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity())
    return nullptr;
  Block *body = generic.getBody();
  Operation *op = body->getTerminator()->getOperand(0).getDefiningOp();
  return op && op->getBlock() == body ? op : nullptr;
}

/// Whether `op` is an `OpTy` of `lhs` and `rhs`.
template <typename OpTy>
static bool isBinary(Operation *op, Value lhs, Value rhs) {
  return isa_and_present<OpTy>(op) && op->getOperand(0) == lhs &&
         op->getOperand(1) == rhs;
}

/// Whether `value` is the float constant `expected`.
static bool isConstant(Value value, double expected) {
  FloatAttr attr;
  return matchPattern(value, m_Constant(&attr)) &&
         attr.getValueAsDouble() == expected;
}

/// A row normalization of `input` along `dimension`.
struct RowMatch {
  Value input;
  int64_t dimension = 0;
  /// The ops between the input and the result (the result's op last).
  SmallVector<Operation *> ops;
};

/// A softmax: linalg.softmax, or the linalg it decomposes into (the ONNX
/// importer's translation; upstream's decomposition): a max reduction of
/// the input from -inf, exp(input - max), a sum reduction of that from 0
/// and a division by the sum.
static FailureOr<RowMatch> matchSoftmax(Value result) {
  RowMatch match;
  if (auto softmax = result.getDefiningOp<linalg::SoftmaxOp>()) {
    match.input = softmax.getInput();
    match.dimension = softmax.getDimension();
    match.ops.push_back(softmax);
    return match;
  }
  auto divide = result.getDefiningOp<linalg::GenericOp>();
  Operation *quotient = getElementwiseResultOp(divide, 2);
  if (!quotient ||
      !isBinary<arith::DivFOp>(quotient, divide.getBody()->getArgument(0),
                               divide.getBody()->getArgument(1)))
    return failure();
  Value exp = divide.getDpsInputs()[0];
  auto expOp = exp.getDefiningOp<linalg::GenericOp>();
  Operation *power = getElementwiseResultOp(expOp, 2);
  if (!isa_and_present<math::ExpOp>(power) ||
      !isBinary<arith::SubFOp>(power->getOperand(0).getDefiningOp(),
                               expOp.getBody()->getArgument(0),
                               expOp.getBody()->getArgument(1)) ||
      expOp.getBody()->getOperations().size() != 3)
    return failure();
  Value input = expOp.getDpsInputs()[0];
  // The row maximum along some dimension, then everything along it.
  SmallVector<Operation *> expands;
  Value rowMax = expOp.getDpsInputs()[1];
  if (auto expand = rowMax.getDefiningOp<tensor::ExpandShapeOp>())
    rowMax = expand.getSrc();
  auto maxOp = rowMax.getDefiningOp<linalg::GenericOp>();
  std::optional<int64_t> dimension =
      getRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(
          maxOp, input, -std::numeric_limits<double>::infinity());
  if (!dimension)
    return failure();
  match.input = input;
  match.dimension = *dimension;
  match.ops.push_back(maxOp);
  if (getRowOperand(expOp, 1, *dimension, match.ops) != maxOp.getResult(0))
    return failure();
  match.ops.push_back(expOp);
  Value rowSum = getRowOperand(divide, 1, *dimension, expands);
  auto sumOp = rowSum ? rowSum.getDefiningOp<linalg::GenericOp>() : nullptr;
  if (getRowReduction<arith::AddFOp>(sumOp, exp, 0.0) != dimension)
    return failure();
  match.ops.push_back(sumOp);
  match.ops.append(expands);
  match.ops.push_back(divide);
  return match;
}

/// A layer norm: its statistics in float along one dimension.
struct LayerNormMatch : RowMatch {
  float epsilon = 0;
  /// gamma and beta (if any: a null `beta`), as the last op reads them.
  OpOperand *gamma = nullptr, *beta = nullptr;
};

/// The value `generic` divides by `count` (its only input, elementwise),
/// or null.
static Value getDivisionByCount(linalg::GenericOp generic, int64_t count) {
  Operation *quotient = getElementwiseResultOp(generic, 1);
  if (!isa_and_present<arith::DivFOp>(quotient) ||
      quotient->getOperand(0) != generic.getBody()->getArgument(0) ||
      !isConstant(quotient->getOperand(1), double(count)))
    return {};
  return generic.getDpsInputs()[0];
}

/// The mean along `dimension` of `of`, `mean` (a keep-dims value): a sum
/// reduction of `of` from 0, divided by the dimension's size, with a
/// keep-dims expand_shape before or after the division. Adds the ops to
/// `ops`.
static bool isRowMean(Value mean, Value of, int64_t dimension,
                      SmallVectorImpl<Operation *> &ops) {
  const int64_t count =
      cast<RankedTensorType>(of.getType()).getDimSize(dimension);
  SmallVector<Operation *> found;
  Value value = mean;
  if (auto expand = value.getDefiningOp<tensor::ExpandShapeOp>()) {
    found.push_back(expand);
    value = expand.getSrc();
  }
  auto divide = value.getDefiningOp<linalg::GenericOp>();
  Value sum = divide ? getDivisionByCount(divide, count) : Value();
  if (!sum)
    return false;
  found.push_back(divide);
  if (auto expand = sum.getDefiningOp<tensor::ExpandShapeOp>()) {
    found.push_back(expand);
    sum = expand.getSrc();
  }
  auto sumOp = sum.getDefiningOp<linalg::GenericOp>();
  if (getRowReduction<arith::AddFOp>(sumOp, of, 0.0) != dimension)
    return false;
  found.push_back(sumOp);
  ops.append(found.rbegin(), found.rend());
  return true;
}

/// A layer norm as the ONNX importer translates LayerNormalization over the
/// last axis: mean, x - mean, its square, the mean of that,
/// 1 / sqrt(variance + epsilon), then (x - mean) * that * gamma [+ beta],
/// gamma and beta constants.
static FailureOr<LayerNormMatch> matchLayerNorm(Value result) {
  auto affine = result.getDefiningOp<linalg::GenericOp>();
  if (!affine ||
      (affine.getNumDpsInputs() != 3 && affine.getNumDpsInputs() != 4))
    return failure();
  Operation *last = getElementwiseResultOp(affine, affine.getNumDpsInputs());
  Block *body = affine.getBody();
  Operation *scaled = last;
  if (affine.getNumDpsInputs() == 4) {
    if (!isa_and_present<arith::AddFOp>(last) ||
        last->getOperand(1) != body->getArgument(3))
      return failure();
    scaled = last->getOperand(0).getDefiningOp();
  }
  if (!isa_and_present<arith::MulFOp>(scaled) ||
      scaled->getOperand(1) != body->getArgument(2) ||
      !isBinary<arith::MulFOp>(scaled->getOperand(0).getDefiningOp(),
                               body->getArgument(0), body->getArgument(1)))
    return failure();
  SmallVector<Value> inputs = affine.getDpsInputs();
  for (Value weight : ArrayRef(inputs).drop_front(2))
    if (!matchPattern(weight, m_Constant()))
      return failure();
  // centred = x - mean(x).
  Value centred = affine.getDpsInputs()[0];
  auto centring = centred.getDefiningOp<linalg::GenericOp>();
  Operation *difference = getElementwiseResultOp(centring, 2);
  if (!isBinary<arith::SubFOp>(difference, centring.getBody()->getArgument(0),
                               centring.getBody()->getArgument(1)))
    return failure();
  Value input = centring.getDpsInputs()[0];
  // The dimension: the last, where ONNX's axis -1 normalizes.
  const int64_t dimension =
      cast<RankedTensorType>(input.getType()).getRank() - 1;
  LayerNormMatch match;
  match.input = input;
  match.dimension = dimension;
  SmallVector<Operation *> &ops = match.ops;
  if (!isRowMean(getRowOperand(centring, 1, dimension, ops), input, dimension,
                 ops))
    return failure();
  ops.push_back(centring);
  // 1 / sqrt(mean(centred^2) + epsilon).
  Value inverse = getRowOperand(affine, 1, dimension, ops);
  auto inverseOp =
      inverse ? inverse.getDefiningOp<linalg::GenericOp>() : nullptr;
  Operation *reciprocal = getElementwiseResultOp(inverseOp, 1);
  if (!isa_and_present<arith::DivFOp>(reciprocal) ||
      !isConstant(reciprocal->getOperand(0), 1.0))
    return failure();
  auto sqrt = reciprocal->getOperand(1).getDefiningOp<math::SqrtOp>();
  auto plusEpsilon =
      sqrt ? sqrt.getOperand().getDefiningOp<arith::AddFOp>() : nullptr;
  FloatAttr epsilon;
  if (!plusEpsilon || !matchPattern(plusEpsilon.getRhs(), m_Constant(&epsilon)))
    return failure();
  auto meanOfSquares = plusEpsilon.getLhs().getDefiningOp<arith::DivFOp>();
  const int64_t count =
      cast<RankedTensorType>(input.getType()).getDimSize(dimension);
  if (!meanOfSquares ||
      meanOfSquares.getLhs() != inverseOp.getBody()->getArgument(0) ||
      !isConstant(meanOfSquares.getRhs(), double(count)) ||
      inverseOp.getBody()->getOperations().size() != 5)
    return failure();
  Value sumOfSquares = inverseOp.getDpsInputs()[0];
  SmallVector<Operation *> expand;
  if (auto expandOp = sumOfSquares.getDefiningOp<tensor::ExpandShapeOp>()) {
    expand.push_back(expandOp);
    sumOfSquares = expandOp.getSrc();
  }
  auto squaresOp = sumOfSquares.getDefiningOp<linalg::GenericOp>();
  Value squares = squaresOp ? squaresOp.getDpsInputs()[0] : Value();
  auto squaring =
      squares ? squares.getDefiningOp<linalg::GenericOp>() : nullptr;
  Operation *square = getElementwiseResultOp(squaring, 1);
  if (!square ||
      !isBinary<arith::MulFOp>(square, squaring.getBody()->getArgument(0),
                               squaring.getBody()->getArgument(0)) ||
      squaring.getDpsInputs()[0] != centred ||
      getRowReduction<arith::AddFOp>(squaresOp, squares, 0.0) != dimension)
    return failure();
  ops.push_back(squaring);
  ops.push_back(squaresOp);
  ops.append(expand);
  ops.push_back(inverseOp);
  ops.push_back(affine);
  match.epsilon = static_cast<float>(epsilon.getValueAsDouble());
  match.gamma = affine.getDpsInputOperand(2);
  if (affine.getNumDpsInputs() == 4)
    match.beta = affine.getDpsInputOperand(3);
  return match;
}

/// Whether only the ops of `match` (and, for its result, one quantization)
/// use the values they define.
static bool isSelfContained(const RowMatch &match) {
  llvm::SmallPtrSet<Operation *, 8> inside(match.ops.begin(), match.ops.end());
  for (Operation *op : ArrayRef(match.ops).drop_back())
    for (Operation *user : op->getUsers())
      if (!inside.contains(user))
        return false;
  return match.ops.back()->getResult(0).hasOneUse();
}

//===----------------------------------------------------------------------===//
// Rewriting
//===----------------------------------------------------------------------===//

/// The checks both normalizations make before their rewrite: not kept
/// float, the input dequantized from 8 bits, nothing else reading the float
/// values, an 8-bit output and static shapes. Fails with `whyNot` set;
/// `inner` gets the match's ops before its last either way.
static FailureOr<std::pair<std::pair<Value, quant::UniformQuantizedType>,
                           quant::UniformQuantizedType>>
checkRowRewrite(const RowMatch &match, quant::QuantizeCastOp qcast,
                StringRef what, bool keepFloat, std::string &whyNot,
                SmallVectorImpl<Operation *> &inner) {
  inner.append(match.ops.begin(), std::prev(match.ops.end()));
  if (keepFloat) {
    whyNot = (what + " is kept float (quanta-quantize's keep-float)").str();
    return failure();
  }
  auto input = matchQuantizedActivation(match.input);
  if (failed(input)) {
    whyNot = ("the " + what +
              "'s input is not dequantized from an 8-bit "
              "per-tensor type")
                 .str();
    return failure();
  }
  if (!isSelfContained(match)) {
    whyNot = ("a float result of the " + what + " has other users").str();
    return failure();
  }
  quant::UniformQuantizedType outputType = getEightBitOutputType(qcast, whyNot);
  if (!outputType)
    return failure();
  if (!cast<RankedTensorType>(input->first.getType()).hasStaticShape()) {
    whyNot = ("the " + what + "'s shape is not static").str();
    return failure();
  }
  return std::make_pair(*input, outputType);
}

/// Replaces `qcast` by `result` (storage integers of its type) and erases
/// the float ops of `match`.
static void replaceRow(RewriterBase &rewriter, quant::QuantizeCastOp qcast,
                       const RowMatch &match, Value result) {
  rewriter.replaceAllUsesWith(
      qcast.getResult(), fromStorage(rewriter, qcast.getLoc(), result,
                                     getElementTypeOrSelf(qcast.getType())));
  rewriter.eraseOp(qcast);
  // Users first (isSelfContained: nothing outside uses them).
  SmallVector<Operation *> pending(match.ops);
  while (!pending.empty()) {
    auto unused =
        llvm::find_if(pending, [](Operation *op) { return op->use_empty(); });
    assert(unused != pending.end() && "a float op of the match is still used");
    rewriter.eraseOp(*unused);
    pending.erase(unused);
  }
}

LogicalResult quanta::detail::quantizeSoftmax(
    RewriterBase &rewriter, quant::QuantizeCastOp qcast, bool keepFloat,
    std::string &whyNot, SmallVectorImpl<Operation *> &inner) {
  FailureOr<RowMatch> match = matchSoftmax(qcast.getInput());
  if (failed(match))
    return failure();
  auto checked =
      checkRowRewrite(*match, qcast, "softmax", keepFloat, whyNot, inner);
  if (failed(checked))
    return failure();
  auto [input, outputType] = *checked;
  auto shape = cast<RankedTensorType>(input.first.getType());
  nx::StatusOr<nx::IntegerSoftmax> softmax = nx::prepareIntegerSoftmax(
      getDType(input.second), getQParams(input.second), getDType(outputType),
      getQParams(outputType), shape.getDimSize(match->dimension));
  if (!softmax) {
    whyNot = softmax.getStatus().getMessage();
    return failure();
  }
  if (failed(narrowToStorageRange(softmax->outputRange, outputType, whyNot)))
    return failure();

  rewriter.setInsertionPoint(qcast);
  Location loc = match->ops.back()->getLoc();
  SoftmaxBuilder builder(rewriter, loc, toStorage(rewriter, loc, input.first),
                         match->dimension, input.second, *softmax);
  replaceRow(rewriter, qcast, *match, builder.build());
  return success();
}

LogicalResult quanta::detail::quantizeLayerNorm(
    RewriterBase &rewriter, quant::QuantizeCastOp qcast, bool keepFloat,
    std::string &whyNot, SmallVectorImpl<Operation *> &inner) {
  FailureOr<LayerNormMatch> match = matchLayerNorm(qcast.getInput());
  if (failed(match))
    return failure();
  auto checked =
      checkRowRewrite(*match, qcast, "layer norm", keepFloat, whyNot, inner);
  if (failed(checked))
    return failure();
  auto [input, outputType] = *checked;
  auto shape = cast<RankedTensorType>(input.first.getType());
  nx::StatusOr<nx::IntegerLayerNorm> norm = nx::prepareIntegerLayerNorm(
      getDType(input.second), getQParams(input.second), getDType(outputType),
      getQParams(outputType), match->epsilon,
      shape.getDimSize(match->dimension));
  if (!norm) {
    whyNot = norm.getStatus().getMessage();
    return failure();
  }
  if (failed(narrowToStorageRange(norm->outputRange, outputType, whyNot)))
    return failure();

  rewriter.setInsertionPoint(qcast);
  auto affine = cast<linalg::GenericOp>(match->ops.back());
  SmallVector<Value> weights;
  SmallVector<AffineMap> weightMaps;
  for (OpOperand *weight : {match->gamma, match->beta})
    if (weight) {
      weights.push_back(weight->get());
      weightMaps.push_back(affine.getMatchingIndexingMap(weight));
    }
  Location loc = affine.getLoc();
  LayerNormBuilder builder(rewriter, loc, toStorage(rewriter, loc, input.first),
                           match->dimension, input.second, *norm);
  replaceRow(rewriter, qcast, *match, builder.build(weights, weightMaps));
  return success();
}

//===- QuantizeSoftmax.cpp - Softmax on integers --------------------------===//
//
// The softmax part of quanta-quantize (Passes.td): a softmax (linalg.softmax
// or the max / exp / sum / divide linalg it decomposes into, as the ONNX
// importer writes it) of a dequantized 8-bit activation, quantized on its
// way out (attention's probabilities), becomes three
// linalg.generics on the storage integers computing exactly what the
// numeric library's quantizedSoftmax computes (IntegerSoftmax: an
// exp table of the 256 possible distances to the row's maximum, exact
// int32 row sums, one float factor per row). Integer max and sum
// reductions vectorize where the float ones, whose order fixes the bits,
// stay sequential; the exp is a table read.
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
/// Builds the integer softmax of `storage` (8-bit, of type `inputType`)
/// along `dimension`.
class SoftmaxBuilder {
public:
  SoftmaxBuilder(OpBuilder &builder, Location loc, Value storage,
                 int64_t dimension, quant::UniformQuantizedType inputType,
                 const nx::IntegerSoftmax &softmax)
      : b(builder), loc(loc), storage(storage), inputType(inputType),
        softmax(softmax) {
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
    table = arith::ConstantOp::create(
        b, loc,
        DenseElementsAttr::get(RankedTensorType::get({256}, b.getI32Type()),
                               ArrayRef(softmax.expTable)));
  }

  /// The softmax's storage integers, shaped like the input.
  Value build() {
    Value rowMax =
        reduce(nx::dtypeRange(getDType(inputType)).quantMin, {storage},
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 IntegerBody body(nested, nestedLoc);
                 return arith::MaxSIOp::create(nested, nestedLoc,
                                               widen(body, args[0]), args[1]);
               });
    Value rowSum = reduce(
        0, {storage, rowMax},
        [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
          IntegerBody body(nested, nestedLoc);
          return body.add(args[2], lookUp(nested, nestedLoc, args[0], args[1]));
        });
    auto type = cast<RankedTensorType>(storage.getType());
    Value init =
        tensor::EmptyOp::create(b, loc, type.getShape(), b.getI8Type());
    SmallVector<utils::IteratorType> parallel(type.getRank(),
                                              utils::IteratorType::parallel);
    return linalg::GenericOp::create(
               b, loc, init.getType(), ValueRange{storage, rowMax, rowSum},
               ValueRange{init},
               ArrayRef<AffineMap>{identity, row, row, identity}, parallel,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(nested, nestedLoc,
                                         output(nested, nestedLoc, args));
               })
        .getResult(0);
  }

private:
  Value widen(IntegerBody &body, Value q) {
    return body.widen(q, inputType.isSigned());
  }

  /// expTable[rowMax - q].
  Value lookUp(OpBuilder &nested, Location nestedLoc, Value q, Value rowMax) {
    IntegerBody body(nested, nestedLoc);
    Value distance = body.sub(rowMax, widen(body, q));
    Value index = arith::IndexCastOp::create(nested, nestedLoc,
                                             nested.getIndexType(), distance);
    return tensor::ExtractOp::create(nested, nestedLoc, table,
                                     ValueRange{index});
  }

  using Combine = function_ref<Value(OpBuilder &, Location, ValueRange)>;

  /// An i32 reduction along the softmax's dimension from `initial`.
  Value reduce(int64_t initial, ValueRange inputs, Combine combine) {
    Value empty = tensor::EmptyOp::create(b, loc, rowShape, b.getI32Type());
    Value init = linalg::FillOp::create(b, loc,
                                        ValueRange{arith::ConstantIntOp::create(
                                            b, loc, b.getI32Type(), initial)},
                                        ValueRange{empty})
                     .getResult(0);
    SmallVector<AffineMap> maps{identity};
    maps.append(inputs.size() - 1, row);
    maps.push_back(row);
    return linalg::GenericOp::create(
               b, loc, init.getType(), inputs, ValueRange{init}, maps,
               iterators,
               [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
                 linalg::YieldOp::create(nested, nestedLoc,
                                         combine(nested, nestedLoc, args));
               })
        .getResult(0);
  }

  /// IntegerSoftmax::apply(expTable[rowMax - q], rowFactor(rowSum)), in
  /// the same float operations.
  Value output(OpBuilder &nested, Location nestedLoc, ValueRange args) {
    Type f32 = nested.getF32Type();
    auto constant = [&](float value) {
      return arith::ConstantOp::create(nested, nestedLoc,
                                       nested.getF32FloatAttr(value));
    };
    Value sum = arith::SIToFPOp::create(nested, nestedLoc, f32, args[2]);
    Value factor = arith::DivFOp::create(
        nested, nestedLoc, constant(1.0f),
        arith::MulFOp::create(nested, nestedLoc, sum,
                              constant(softmax.outputScale)));
    Value term = arith::SIToFPOp::create(
        nested, nestedLoc, f32, lookUp(nested, nestedLoc, args[0], args[1]));
    Value y = arith::AddFOp::create(
        nested, nestedLoc,
        math::RoundEvenOp::create(
            nested, nestedLoc,
            arith::MulFOp::create(nested, nestedLoc, term, factor)),
        constant(static_cast<float>(softmax.outputZeroPoint)));
    // y is never NaN: compare and select, without minimumf's NaN handling.
    auto clamp = [&](arith::CmpFPredicate predicate, int64_t bound) {
      Value limit = constant(static_cast<float>(bound));
      Value outside =
          arith::CmpFOp::create(nested, nestedLoc, predicate, y, limit);
      y = arith::SelectOp::create(nested, nestedLoc, outside, limit, y);
    };
    clamp(arith::CmpFPredicate::OGT, softmax.outputRange.quantMax);
    clamp(arith::CmpFPredicate::OLT, softmax.outputRange.quantMin);
    Value q =
        arith::FPToSIOp::create(nested, nestedLoc, nested.getI32Type(), y);
    return arith::TruncIOp::create(nested, nestedLoc, nested.getI8Type(), q);
  }

  OpBuilder &b;
  Location loc;
  Value storage;
  quant::UniformQuantizedType inputType;
  const nx::IntegerSoftmax &softmax;
  SmallVector<utils::IteratorType> iterators;
  SmallVector<int64_t> rowShape;
  AffineMap identity, row;
  Value table;
};
} // namespace

/// A softmax along `dimension` of `input`, whether linalg.softmax or the
/// linalg it decomposes into (the ONNX importer's translation; upstream's
/// decomposition): a max reduction of the input, exp(input - max), a sum
/// reduction of that and a division by the sum, the row values read
/// through a keep-dims expand_shape or a projection.
struct SoftmaxMatch {
  Value input;
  int64_t dimension = 0;
  /// The ops before the result that only the softmax uses, each after its
  /// operands (the result's op last).
  SmallVector<Operation *> ops;
};

/// The body's single op if `generic` computes `yield op(...)` and nothing
/// else.
static Operation *getSingleBodyOp(linalg::GenericOp generic) {
  Block *body = generic.getBody();
  if (body->getOperations().size() != 2)
    return nullptr;
  return &body->front();
}

/// The dimension `generic` reduces `from` (its only input) along, if it is a
/// single-dimension reduction whose body is `OpTy(input, accumulator)`.
template <typename... OpTys>
static std::optional<int64_t> getRowReduction(linalg::GenericOp generic,
                                              Value from) {
  if (generic.getNumDpsInputs() != 1 || generic.getDpsInputs()[0] != from ||
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
  SmallVector<unsigned> reductions;
  generic.getReductionDims(reductions);
  return reductions.front();
}

/// Whether operand `index` of the elementwise `generic` reads the row
/// values `rows` (a reduction's result along `dimension`) broadcast along
/// that dimension: through a keep-dims expand_shape with the dimension's
/// index 0, or directly with the dimension projected out. `ops` gets the
/// expand_shape.
static bool readsRows(linalg::GenericOp generic, unsigned index, Value rows,
                      int64_t dimension, SmallVectorImpl<Operation *> &ops) {
  OpOperand *operand = generic.getDpsInputOperand(index);
  AffineMap map = generic.getMatchingIndexingMap(operand);
  MLIRContext *context = generic.getContext();
  const unsigned rank = map.getNumDims();
  SmallVector<AffineExpr> expected;
  for (unsigned dim = 0; dim < rank; ++dim)
    if (dim != dimension)
      expected.push_back(getAffineDimExpr(dim, context));
  if (operand->get() == rows)
    return map == AffineMap::get(rank, 0, expected, context);
  auto expand = operand->get().getDefiningOp<tensor::ExpandShapeOp>();
  if (!expand || expand.getSrc() != rows ||
      expand.getResultType().getRank() != rank ||
      expand.getResultType().getDimSize(dimension) != 1)
    return false;
  expected.insert(expected.begin() + dimension,
                  getAffineConstantExpr(0, context));
  if (map != AffineMap::get(rank, 0, expected, context))
    return false;
  ops.push_back(expand);
  return true;
}

/// Whether `generic` is elementwise over two inputs, the first read
/// directly, and yields the result of an op of its body that `isCore`
/// accepts.
static bool isElementwiseOf(linalg::GenericOp generic,
                            function_ref<bool(Operation *)> isCore) {
  if (!generic || generic.getNumDpsInputs() != 2 ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getMatchingIndexingMap(generic.getDpsInputOperand(0))
           .isIdentity())
    return false;
  Block *body = generic.getBody();
  Value yielded = body->getTerminator()->getOperand(0);
  Operation *op = yielded.getDefiningOp();
  return op && op->getBlock() == body && isCore(op);
}

static FailureOr<SoftmaxMatch> matchSoftmax(Value result) {
  SoftmaxMatch match;
  if (auto softmax = result.getDefiningOp<linalg::SoftmaxOp>()) {
    match.input = softmax.getInput();
    match.dimension = softmax.getDimension();
    match.ops.push_back(softmax);
    return match;
  }
  auto divide = result.getDefiningOp<linalg::GenericOp>();
  auto isBinary = [](Operation *op, Value lhs, Value rhs) {
    return op->getNumOperands() == 2 && op->getOperand(0) == lhs &&
           op->getOperand(1) == rhs;
  };
  if (!isElementwiseOf(divide, [&](Operation *op) {
        Block *body = op->getBlock();
        return isa<arith::DivFOp>(op) &&
               isBinary(op, body->getArgument(0), body->getArgument(1));
      }))
    return failure();
  Value exp = divide.getDpsInputs()[0];
  auto sum = divide.getDpsInputs()[1].getDefiningOp<tensor::ExpandShapeOp>();
  auto sumOp = (sum ? sum.getSrc() : divide.getDpsInputs()[1])
                   .getDefiningOp<linalg::GenericOp>();
  auto expOp = exp.getDefiningOp<linalg::GenericOp>();
  if (!sumOp || !expOp)
    return failure();
  std::optional<int64_t> dimension = getRowReduction<arith::AddFOp>(sumOp, exp);
  if (!dimension || !isElementwiseOf(expOp, [&](Operation *op) {
        Block *body = op->getBlock();
        auto sub = op->getOperand(0).getDefiningOp<arith::SubFOp>();
        return isa<math::ExpOp>(op) && sub &&
               isBinary(sub, body->getArgument(0), body->getArgument(1)) &&
               body->getOperations().size() == 3;
      }))
    return failure();
  Value input = expOp.getDpsInputs()[0];
  Value rowMax = expOp.getDpsInputs()[1];
  if (auto expand = rowMax.getDefiningOp<tensor::ExpandShapeOp>())
    rowMax = expand.getSrc();
  auto maxOp = rowMax.getDefiningOp<linalg::GenericOp>();
  if (!maxOp || getRowReduction<arith::MaximumFOp, arith::MaxNumFOp>(
                    maxOp, input) != dimension)
    return failure();
  // The maximum starts at -inf (the integer form starts at the storage
  // minimum, which every value reaches), the sum at 0.
  auto startsAt = [](linalg::GenericOp reduction, double value) {
    auto fill = reduction.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
    FloatAttr initial;
    return fill && matchPattern(fill.getInputs()[0], m_Constant(&initial)) &&
           initial.getValueAsDouble() == value;
  };
  if (!startsAt(maxOp, -std::numeric_limits<double>::infinity()) ||
      !startsAt(sumOp, 0.0))
    return failure();
  match.input = input;
  match.dimension = *dimension;
  match.ops.push_back(maxOp);
  if (!readsRows(expOp, 1, maxOp.getResult(0), *dimension, match.ops))
    return failure();
  match.ops.push_back(expOp);
  match.ops.push_back(sumOp);
  if (!readsRows(divide, 1, sumOp.getResult(0), *dimension, match.ops))
    return failure();
  match.ops.push_back(divide);
  return match;
}

/// Whether only the ops of `match` (and, for its result, `qcast`) use the
/// values they define.
static bool isSelfContained(const SoftmaxMatch &match) {
  llvm::SmallPtrSet<Operation *, 8> inside(match.ops.begin(), match.ops.end());
  for (Operation *op : ArrayRef(match.ops).drop_back())
    for (Operation *user : op->getUsers())
      if (!inside.contains(user))
        return false;
  return match.ops.back()->getResult(0).hasOneUse();
}

LogicalResult quanta::detail::quantizeSoftmax(
    RewriterBase &rewriter, quant::QuantizeCastOp qcast, bool keepFloat,
    std::string &whyNot, SmallVectorImpl<Operation *> &inner) {
  FailureOr<SoftmaxMatch> match = matchSoftmax(qcast.getInput());
  if (failed(match))
    return failure();
  inner.append(match->ops.begin(), std::prev(match->ops.end()));
  if (keepFloat) {
    whyNot = "softmax is kept float (quanta-quantize's float-softmax)";
    return failure();
  }
  auto input = matchQuantizedActivation(match->input);
  if (failed(input)) {
    whyNot = "the softmax's input is not dequantized from an 8-bit "
             "per-tensor type";
    return failure();
  }
  if (!isSelfContained(*match)) {
    whyNot = "a float result of the softmax has other users";
    return failure();
  }
  quant::UniformQuantizedType outputType = getEightBitOutputType(qcast, whyNot);
  if (!outputType)
    return failure();
  auto inputShape = cast<RankedTensorType>(input->first.getType());
  if (!inputShape.hasStaticShape()) {
    whyNot = "the softmax's shape is not static";
    return failure();
  }
  nx::StatusOr<nx::IntegerSoftmax> softmax = nx::prepareIntegerSoftmax(
      getDType(input->second), getQParams(input->second), getDType(outputType),
      getQParams(outputType), inputShape.getDimSize(match->dimension));
  if (!softmax) {
    whyNot = softmax.getStatus().getMessage();
    return failure();
  }
  if (failed(narrowToStorageRange(softmax->outputRange, outputType, whyNot)))
    return failure();

  rewriter.setInsertionPoint(qcast);
  Location loc = match->ops.back()->getLoc();
  SoftmaxBuilder builder(rewriter, loc, toStorage(rewriter, loc, input->first),
                         match->dimension, input->second, *softmax);
  rewriter.replaceAllUsesWith(
      qcast.getResult(),
      fromStorage(rewriter, loc, builder.build(), outputType));
  rewriter.eraseOp(qcast);
  for (Operation *op : llvm::reverse(match->ops))
    rewriter.eraseOp(op);
  return success();
}

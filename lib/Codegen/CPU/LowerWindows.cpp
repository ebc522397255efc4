//===- LowerWindows.cpp - Window reductions to vectorizable loop nests ----===//
//
// Depthwise convolutions and pools (named linalg ops, or the generics
// quanta-quantize makes of them on storage integers: max pooling, the i32
// sums of an average pool) reduce a small window per output, and their
// loops nest the window's taps innermost: one scalar chain per output
// channel, which LLVM does not vectorize. Measured: torchvision's
// MobileNetV2 in float, 317 ms per image with its depthwise convolutions'
// own loops, 18.5 ms with these; on an Intel Xeon (AVX-512), ResNet-18's
// 3x3 max pool took 1.2 ms of a 31 ms float model and 0.63 ms of a 7.0 ms
// int8 one, its largest layer there. Here every
// such op becomes one loop nest over its outputs alone, the taps unrolled
// in the body, so that the channels (the innermost parallel dimension,
// contiguous in every input read) are the innermost loop: LLVM vectorizes
// it across channels. The body is the op's own, cloned per tap in the
// order of its loops (the last reduction dimension fastest): the same
// values, in the same order, bit for bit. An input padded by a tensor.pad
// that only this op reads is read through it: the image is not copied into
// a padded one (a copy of 3.2 MB before ResNet-18's max pool).
//
// Upstream's linalg vectorizer handles pooling ops by vectorizing along
// the output width with a read per tap and pixel; it does not take the
// generics with integer casts and it would leave the reduction order to
// vector.contract lowering, so Quanta keeps its own.
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEpilogue.h"
#include "TiledGemm.h"

#include "mlir/Dialect/Affine/Utils.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::quanta;

/// Unrolling more taps than this makes bodies larger than the loads they
/// save (a 7x7 global pool has 49).
static constexpr int64_t kMaxUnrolledTaps = 64;

/// The parallel dimensions of `op` when it is a window reduction this file
/// lowers: static tensors, its parallel loops first and then at most
/// kMaxUnrolledTaps reduction iterations, its output indexed by the
/// parallel dimensions in order, every input its body reads indexed last
/// by the innermost parallel dimension, a body of scalar ops without
/// regions that does not ask for its loop indices.
static FailureOr<int64_t> getWindowParallelDims(Operation *operation) {
  auto op = dyn_cast<linalg::LinalgOp>(operation);
  if (!op || !op.hasPureTensorSemantics() || op.getNumDpsInits() != 1 ||
      op->getNumResults() != 1 || op->getNumRegions() != 1 ||
      op.getNumLoops() == 0)
    return failure();
  for (Value operand : op->getOperands()) {
    auto type = dyn_cast<RankedTensorType>(operand.getType());
    if (!type || !type.hasStaticShape())
      return failure();
  }
  SmallVector<utils::IteratorType> iterators = op.getIteratorTypesArray();
  const int64_t parallel =
      llvm::count(iterators, utils::IteratorType::parallel);
  if (parallel == 0 || parallel == static_cast<int64_t>(iterators.size()) ||
      !llvm::all_of(ArrayRef(iterators).take_front(parallel), [](auto type) {
        return type == utils::IteratorType::parallel;
      }))
    return failure();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  if (computeProduct(ArrayRef(ranges).drop_front(parallel)) > kMaxUnrolledTaps)
    return failure();
  AffineMap outputMap = op.getMatchingIndexingMap(op.getDpsInitOperand(0));
  if (outputMap.getNumResults() != parallel)
    return failure();
  for (auto [dim, expr] : llvm::enumerate(outputMap.getResults()))
    if (expr != getAffineDimExpr(dim, op.getContext()))
      return failure();
  Block &body = op->getRegion(0).front();
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (body.getArgument(input->getOperandNumber()).use_empty())
      continue;
    AffineMap map = op.getMatchingIndexingMap(input);
    if (map.getNumSymbols() != 0 || map.getNumResults() == 0 ||
        map.getResults().back() !=
            getAffineDimExpr(parallel - 1, op.getContext()))
      return failure();
  }
  for (Operation &nested : body.without_terminator())
    if (nested.getNumRegions() != 0 || isa<linalg::IndexOp>(nested) ||
        !isPure(&nested))
      return failure();
  return parallel;
}

/// The padding of a window's input that its reads skip instead of copying
/// the image into a padded one: a tensor.pad of static amounts with a
/// padding value defined outside it, read by this op alone.
static tensor::PadOp getFoldablePad(Value input) {
  auto pad = input.getDefiningOp<tensor::PadOp>();
  if (!pad || !pad->hasOneUse() || !pad.getConstantPaddingValue() ||
      ShapedType::isDynamicShape(pad.getStaticLow()) ||
      ShapedType::isDynamicShape(pad.getStaticHigh()))
    return {};
  return pad;
}

/// The value of `input` at `indices`; through `pad` (getFoldablePad's, or
/// null), the source's value where the indices fall inside it and the
/// padding value elsewhere. The source is read at indices clamped into it
/// either way (a select of two values, no branch: LLVM still vectorizes the
/// channels' loop, where the condition does not change).
static Value readWindowInput(OpBuilder &b, Location loc, Value input,
                             tensor::PadOp pad, ArrayRef<Value> indices) {
  if (!pad)
    return tensor::ExtractOp::create(b, loc, input, indices);
  ArrayRef<int64_t> sourceShape = pad.getSourceType().getShape();
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  SmallVector<Value> sourceIndices;
  Value inside;
  for (auto [dim, at] : llvm::enumerate(indices)) {
    const int64_t low = pad.getStaticLow()[dim];
    if (low == 0 && pad.getStaticHigh()[dim] == 0) {
      sourceIndices.push_back(at);
      continue;
    }
    Value shifted = arith::SubIOp::create(b, loc, at, index(low));
    Value last = index(sourceShape[dim] - 1);
    // Unsigned: a negative index is larger than any size.
    Value within =
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ule, shifted, last);
    inside = inside ? arith::AndIOp::create(b, loc, inside, within) : within;
    sourceIndices.push_back(arith::MaxSIOp::create(
        b, loc, arith::MinSIOp::create(b, loc, shifted, last), index(0)));
  }
  Value value =
      tensor::ExtractOp::create(b, loc, pad.getSource(), sourceIndices);
  return arith::SelectOp::create(b, loc, inside, value,
                                 pad.getConstantPaddingValue());
}

bool mlir::quanta::isWindowReduction(Operation *op) {
  return succeeded(getWindowParallelDims(op));
}

LogicalResult mlir::quanta::lowerWindowReduction(RewriterBase &rewriter,
                                                 Operation *operation) {
  FailureOr<int64_t> parallel = getWindowParallelDims(operation);
  if (failed(parallel))
    return failure();
  auto op = cast<linalg::LinalgOp>(operation);
  MLIRContext *context = op->getContext();
  SmallVector<int64_t> ranges = op.getStaticLoopRanges();
  ArrayRef<int64_t> windowRanges = ArrayRef(ranges).drop_front(*parallel);
  const int64_t taps = computeProduct(windowRanges);
  const SmallVector<int64_t> windowStrides = computeSuffixProduct(windowRanges);
  // Each input's foldable padding, by operand number (null: none).
  SmallVector<tensor::PadOp> pads =
      llvm::map_to_vector(op.getDpsInputs(), getFoldablePad);
  Block &body = op->getRegion(0).front();
  Value init = op.getDpsInits()[0];
  auto type = cast<RankedTensorType>(init.getType());
  // A float result's elementwise consumers (bias add, activation) are
  // applied in the same body (ElementwiseEpilogue matches f32 alone).
  ElementwiseEpilogue epilogue = ElementwiseEpilogue::match(op->getResult(0));
  OpBuilder b(epilogue.empty() ? op.getOperation() : epilogue.getLast());
  Location loc = op.getLoc();
  auto result = linalg::GenericOp::create(
      b, loc, type, ValueRange{}, ValueRange{init},
      SmallVector<AffineMap>{
          AffineMap::getMultiDimIdentityMap(*parallel, context)},
      SmallVector<utils::IteratorType>(*parallel,
                                       utils::IteratorType::parallel),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        SmallVector<Value> at;
        for (int64_t dim = 0; dim < *parallel; ++dim)
          at.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
        Value acc = args[0];
        SmallVector<AffineExpr> dims;
        for (int64_t dim = 0; dim < *parallel; ++dim)
          dims.push_back(getAffineDimExpr(dim, context));
        for (int64_t tap = 0; tap < taps; ++tap) {
          // The window position of this tap, the last dimension fastest
          // (the op's loop order), as constants in every input's map.
          dims.truncate(*parallel);
          for (int64_t offset : delinearize(tap, windowStrides))
            dims.push_back(getAffineConstantExpr(offset, context));
          IRMapping values;
          for (OpOperand *input : op.getDpsInputOperands()) {
            BlockArgument arg = body.getArgument(input->getOperandNumber());
            if (arg.use_empty())
              continue;
            SmallVector<Value> indices;
            for (AffineExpr expr :
                 op.getMatchingIndexingMap(input).getResults())
              indices.push_back(affine::expandAffineExpr(
                  nested, nestedLoc,
                  simplifyAffineExpr(expr.replaceDims(dims), *parallel, 0), at,
                  ValueRange{}));
            values.map(arg, readWindowInput(nested, nestedLoc, input->get(),
                                            pads[input->getOperandNumber()],
                                            indices));
          }
          values.map(body.getArgument(op.getNumDpsInputs()), acc);
          for (Operation &bodyOp : body.without_terminator())
            nested.clone(bodyOp, values);
          acc = values.lookup(body.getTerminator()->getOperand(0));
        }
        acc = epilogue.apply(
            nested, nestedLoc, acc,
            [&](Value input, ElementwiseEpilogue::Read read) {
              return tensor::ExtractOp::create(
                         nested, nestedLoc, input,
                         read == ElementwiseEpilogue::Read::Column
                             ? ValueRange{at.back()}
                             : ValueRange(at))
                  .getResult();
            });
        linalg::YieldOp::create(nested, nestedLoc, acc);
      });
  if (epilogue.empty())
    rewriter.replaceOp(op, result.getResult(0));
  else
    epilogue.replace(rewriter, op, result.getResult(0));
  for (tensor::PadOp pad : pads)
    if (pad)
      rewriter.eraseOp(pad);
  return success();
}

//===- PropagateLayout.cpp - One layout change per NCHW graph -------------===//
//
// quanta-quantize runs every NCHW convolution on NHWC storage: a transpose
// in front of it, one behind it. Between two convolutions the pools,
// padding, elementwise tables and residual adds then run in NCHW, and each
// layer pays two transposes. This pass moves each transpose down through
// the layout-agnostic ops after it (elementwise and pooling generics whose
// layout-following inputs are all transposed alike, constant pads, the
// storage casts that quanta-quantize leaves in pairs) until it meets the
// transpose into the next layer, and composes the two: usually into
// nothing. Moving in one direction only, the rewrites cannot undo each
// other. What remains are the transposes at the graph's boundaries and
// before layout-dependent ops (a flatten), as IREE and TFLite convert a
// whole NCHW graph once.
//
// Only its own patterns run, without folding: the canonicalizer (and the
// quant casts' folders) would also turn quant.dcast(quant.qcast(x)) into x
// and drop quantization steps of float parts.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_PROPAGATELAYOUT
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using quanta::createTranspose;

namespace {

/// quant.scast(quant.scast(x)) back to x's type: x.
struct FoldStorageCastPair : OpRewritePattern<quant::StorageCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(quant::StorageCastOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<quant::StorageCastOp>();
    if (!inner || inner.getInput().getType() != op.getType())
      return failure();
    rewriter.replaceOp(op, inner.getInput());
    return success();
  }
};

/// transpose(transpose(x, p1), p2) = transpose(x, p1 o p2), or x.
struct ComposeTransposes : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto inner = op.getInput().getDefiningOp<linalg::TransposeOp>();
    if (!inner)
      return failure();
    SmallVector<int64_t> composed;
    for (int64_t dim : op.getPermutation())
      composed.push_back(inner.getPermutation()[dim]);
    if (llvm::equal(composed, llvm::seq<int64_t>(0, composed.size()))) {
      rewriter.replaceOp(op, inner.getInput());
      return success();
    }
    rewriter.replaceOp(
        op, createTranspose(rewriter, op.getLoc(), inner.getInput(), composed));
    return success();
  }
};

/// The inverse of `permutation`.
SmallVector<int64_t> invert(ArrayRef<int64_t> permutation) {
  SmallVector<int64_t> inverse(permutation.size());
  for (auto [index, dim] : llvm::enumerate(permutation))
    inverse[dim] = index;
  return inverse;
}

/// pad(transpose(x, p)) = transpose(pad'(x), p), low and high permuted back.
struct TransposeAfterPad : OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    auto transpose = pad.getSource().getDefiningOp<linalg::TransposeOp>();
    if (!transpose || !pad.getConstantPaddingValue() ||
        !pad.getResultType().hasStaticShape())
      return failure();
    SmallVector<int64_t> inverse = invert(transpose.getPermutation());
    SmallVector<OpFoldResult> low, high;
    SmallVector<int64_t> shape;
    for (int64_t dim : inverse) {
      low.push_back(pad.getMixedLowPad()[dim]);
      high.push_back(pad.getMixedHighPad()[dim]);
      shape.push_back(pad.getResultType().getDimSize(dim));
    }
    Value padded = tensor::PadOp::create(
        rewriter, pad.getLoc(), pad.getResultType().clone(shape),
        transpose.getInput(), low, high, pad.getConstantPaddingValue(),
        pad.getNofold());
    rewriter.replaceOp(pad, createTranspose(rewriter, pad.getLoc(), padded,
                                            transpose.getPermutation()));
    return success();
  }
};

/// generic(transpose(x, p), ...) = transpose(generic'(x, ...), p) for a
/// generic whose output map is a projection and whose inputs either follow
/// the output's layout (one result per output dim, each using that dim:
/// elementwise operands, a pooled image) - all of them transposes by the
/// same p, read untransposed through maps permuted back - or are indexed
/// by iteration dims alone (a broadcast bias, a pooling window), which
/// stay. The body is unchanged; bodies that read their position
/// (linalg.index) are left alone.
struct TransposeAfterGeneric : OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp generic,
                                PatternRewriter &rewriter) const override {
    if (generic->getNumResults() != 1 || generic.getNumDpsInits() != 1 ||
        !generic.getBody()->getOps<linalg::IndexOp>().empty())
      return failure();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    AffineMap outputMap = maps.back();
    const int64_t rank = outputMap.getNumResults();
    if (!outputMap.isProjectedPermutation())
      return failure();
    // Output initial values are read only by reductions (a fill).
    Value init = generic.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    if (!fill && !init.getDefiningOp<tensor::EmptyOp>())
      return failure();
    auto followsOutput = [&](AffineMap map) {
      if (map.getNumResults() != rank)
        return false;
      for (int64_t dim = 0; dim < rank; ++dim)
        if (!map.getResult(dim).isFunctionOfDim(
                cast<AffineDimExpr>(outputMap.getResult(dim)).getPosition()))
          return false;
      return true;
    };
    // The one permutation every input that follows the output has.
    std::optional<SmallVector<int64_t>> permutation;
    for (auto [operand, map] :
         llvm::zip(generic.getDpsInputs(), ArrayRef(maps).drop_back())) {
      if (!followsOutput(map))
        continue;
      auto transpose = operand.getDefiningOp<linalg::TransposeOp>();
      if (!transpose || (permutation && ArrayRef<int64_t>(*permutation) !=
                                            transpose.getPermutation()))
        return failure();
      permutation = SmallVector<int64_t>(transpose.getPermutation());
    }
    if (!permutation)
      return failure();
    SmallVector<int64_t> inverse = invert(*permutation);
    // The iteration dims that index the output are renamed so that the
    // new output map is the old one again (loops in the new layout's
    // order, the innermost parallel dim the contiguous one); reduction
    // dims keep their names.
    MLIRContext *context = generic.getContext();
    const unsigned numDims = generic.getNumLoops();
    SmallVector<AffineExpr> renamed;
    for (unsigned dim = 0; dim < numDims; ++dim)
      renamed.push_back(getAffineDimExpr(dim, context));
    auto outputDim = [&](int64_t position) {
      return cast<AffineDimExpr>(outputMap.getResult(position)).getPosition();
    };
    for (int64_t position = 0; position < rank; ++position)
      renamed[outputDim(inverse[position])] =
          getAffineDimExpr(outputDim(position), context);
    auto rename = [&](AffineMap map) {
      return map.replaceDimsAndSymbols(renamed, {}, numDims,
                                       map.getNumSymbols());
    };
    auto permuteBack = [&](AffineMap map) {
      SmallVector<AffineExpr> results;
      for (int64_t dim : inverse)
        results.push_back(map.getResult(dim));
      return rename(AffineMap::get(map.getNumDims(), map.getNumSymbols(),
                                   results, context));
    };
    SmallVector<Value> inputs;
    SmallVector<AffineMap> newMaps;
    for (auto [operand, map] :
         llvm::zip(generic.getDpsInputs(), ArrayRef(maps).drop_back())) {
      if (followsOutput(map)) {
        inputs.push_back(
            operand.getDefiningOp<linalg::TransposeOp>().getInput());
        newMaps.push_back(permuteBack(map));
        continue;
      }
      inputs.push_back(operand);
      newMaps.push_back(rename(map));
    }
    newMaps.push_back(permuteBack(outputMap));
    auto type = cast<RankedTensorType>(generic.getResult(0).getType());
    SmallVector<int64_t> shape;
    for (int64_t dim : inverse)
      shape.push_back(type.getDimSize(dim));
    Location loc = generic.getLoc();
    Value newInit =
        tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
    if (fill)
      newInit =
          linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], newInit)
              .getResult(0);
    auto newGeneric = linalg::GenericOp::create(
        rewriter, loc, type.clone(shape), inputs, newInit, newMaps,
        generic.getIteratorTypesArray());
    rewriter.inlineRegionBefore(generic.getRegion(), newGeneric.getRegion(),
                                newGeneric.getRegion().begin());
    rewriter.replaceOp(
        generic,
        createTranspose(rewriter, loc, newGeneric.getResult(0), *permutation));
    return success();
  }
};

/// transpose(fill(v, empty)) = fill(v, empty'): an init tensor in the
/// other layout is made there.
struct TransposedFill : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto fill = op.getInput().getDefiningOp<linalg::FillOp>();
    if (!fill || !fill.getOutputs()[0].getDefiningOp<tensor::EmptyOp>())
      return failure();
    auto type = cast<RankedTensorType>(op.getResult()[0].getType());
    Value empty = tensor::EmptyOp::create(
        rewriter, op.getLoc(), type.getShape(), type.getElementType());
    rewriter.replaceOp(op, linalg::FillOp::create(rewriter, op.getLoc(),
                                                  fill.getInputs()[0], empty)
                               .getResult(0));
    return success();
  }
};

struct PropagateLayoutPass
    : public quanta::impl::PropagateLayoutBase<PropagateLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    quanta::populatePropagateLayoutPatterns(patterns);
    // No folding either: quant.dcast(quant.qcast(x)) folds to x.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace

void quanta::populatePropagateLayoutPatterns(RewritePatternSet &patterns) {
  patterns.add<FoldStorageCastPair, ComposeTransposes, TransposeAfterPad,
               TransposeAfterGeneric, TransposedFill>(patterns.getContext());
}

Value quanta::createTranspose(OpBuilder &builder, Location loc, Value x,
                              ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  Value init =
      tensor::EmptyOp::create(builder, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(builder, loc, x, init, permutation)
      .getResult()[0];
}

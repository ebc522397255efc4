//===- PropagateLayout.cpp - One layout change per NCHW graph -------------===//
//
// quanta-quantize runs every NCHW convolution on NHWC storage: a transpose
// in front of it, one behind it. Between two convolutions the pools,
// padding and elementwise tables then run in NCHW, and each layer pays two
// transposes. This pass moves each transpose up through the layout-agnostic
// ops before it (elementwise and pooling generics, constant pads, the
// storage casts that quanta-quantize leaves in pairs) until it meets the
// transpose that came out of the previous layer, and composes the two:
// usually into nothing. What remains are the transposes at the graph's
// boundaries and before layout-dependent ops (a flatten), as IREE and
// TFLite convert a whole NCHW graph once.
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

namespace {

/// `x` transposed by `permutation` (result dim k is x's dim permutation[k]).
Value createTranspose(PatternRewriter &rewriter, Location loc, Value x,
                      ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(x.getType());
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  Value init =
      tensor::EmptyOp::create(rewriter, loc, shape, type.getElementType());
  return linalg::TransposeOp::create(rewriter, loc, x, init, permutation)
      .getResult()[0];
}

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

/// transpose(pad(x)) = pad(transpose(x)), low and high permuted.
struct TransposeBeforePad : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto pad = op.getInput().getDefiningOp<tensor::PadOp>();
    if (!pad || !pad->hasOneUse() || !pad.getConstantPaddingValue() ||
        !pad.getResultType().hasStaticShape())
      return failure();
    ArrayRef<int64_t> permutation = op.getPermutation();
    SmallVector<OpFoldResult> low, high;
    for (int64_t dim : permutation) {
      low.push_back(pad.getMixedLowPad()[dim]);
      high.push_back(pad.getMixedHighPad()[dim]);
    }
    Value transposed =
        createTranspose(rewriter, op.getLoc(), pad.getSource(), permutation);
    rewriter.replaceOpWithNewOp<tensor::PadOp>(
        op, op.getResult()[0].getType(), transposed, low, high,
        pad.getConstantPaddingValue(), pad.getNofold());
    return success();
  }
};

/// transpose(generic(x, ...)) = generic'(transpose(x), ...) for a generic
/// whose output map is a projection and whose inputs either follow the
/// output's layout (one result per output dim, each using that dim:
/// elementwise operands, a pooled image) - those are transposed and their
/// maps permuted like the output's - or are indexed by iteration dims
/// alone (a broadcast bias, a pooling window), which stay. The iteration
/// space and the body are unchanged; bodies that read their position
/// (linalg.index) are left alone.
struct TransposeBeforeGeneric : OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    auto generic = op.getInput().getDefiningOp<linalg::GenericOp>();
    if (!generic || generic->getNumResults() != 1 || !generic->hasOneUse() ||
        generic.getNumDpsInits() != 1 ||
        !generic.getBody()->getOps<linalg::IndexOp>().empty())
      return failure();
    SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
    AffineMap outputMap = maps.back();
    const int64_t rank = outputMap.getNumResults();
    if (!outputMap.isProjectedPermutation())
      return failure();
    // Output initial values are read only by reductions (a fill); an init
    // that is not an empty tensor or a fill would need transposing too.
    Value init = generic.getDpsInits()[0];
    auto fill = init.getDefiningOp<linalg::FillOp>();
    if (!fill && !init.getDefiningOp<tensor::EmptyOp>())
      return failure();
    ArrayRef<int64_t> permutation = op.getPermutation();
    auto permuteResults = [&](AffineMap map) {
      SmallVector<AffineExpr> results;
      for (int64_t dim : permutation)
        results.push_back(map.getResult(dim));
      return AffineMap::get(map.getNumDims(), map.getNumSymbols(), results,
                            map.getContext());
    };
    auto followsOutput = [&](AffineMap map) {
      if (map.getNumResults() != rank)
        return false;
      for (int64_t dim = 0; dim < rank; ++dim)
        if (!map.getResult(dim).isFunctionOfDim(
                cast<AffineDimExpr>(outputMap.getResult(dim)).getPosition()))
          return false;
      return true;
    };
    SmallVector<Value> inputs;
    SmallVector<AffineMap> newMaps;
    for (auto [operand, map] :
         llvm::zip(generic.getDpsInputs(), ArrayRef(maps).drop_back())) {
      if (followsOutput(map)) {
        inputs.push_back(
            createTranspose(rewriter, op.getLoc(), operand, permutation));
        newMaps.push_back(permuteResults(map));
        continue;
      }
      // Indexed by iteration dims that are not the output's positions.
      inputs.push_back(operand);
      newMaps.push_back(map);
    }
    newMaps.push_back(permuteResults(outputMap));
    auto resultType = cast<RankedTensorType>(op.getResult()[0].getType());
    Value newInit =
        tensor::EmptyOp::create(rewriter, op.getLoc(), resultType.getShape(),
                                resultType.getElementType());
    if (fill)
      newInit = linalg::FillOp::create(rewriter, op.getLoc(),
                                       fill.getInputs()[0], newInit)
                    .getResult(0);
    auto newGeneric = linalg::GenericOp::create(
        rewriter, op.getLoc(), resultType, inputs, newInit, newMaps,
        generic.getIteratorTypesArray());
    rewriter.inlineRegionBefore(generic.getRegion(), newGeneric.getRegion(),
                                newGeneric.getRegion().begin());
    rewriter.replaceOp(op, newGeneric.getResult(0));
    rewriter.eraseOp(generic);
    return success();
  }
};

struct PropagateLayoutPass
    : public quanta::impl::PropagateLayoutBase<PropagateLayoutPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    patterns.add<FoldStorageCastPair, ComposeTransposes, TransposeBeforePad,
                 TransposeBeforeGeneric>(&getContext());
    // No folding either: quant.dcast(quant.qcast(x)) folds to x.
    GreedyRewriteConfig config;
    config.enableFolding(false).enableConstantCSE(false);
    if (failed(
            applyPatternsGreedily(getOperation(), std::move(patterns), config)))
      return signalPassFailure();
  }
};
} // namespace

//===- NhwcImages.cpp - f32 NCHW convolutions and pools on NHWC storage ---===//
//
// The float kernels read images NHWC (a GEMM row per pixel, channels
// contiguous). An ONNX model is NCHW throughout, so each of its float
// convolutions becomes the NHWC op between two transposes, and the
// propagate-layout rewrites (quanta-propagate-layout, shared) then move
// each transpose down through the bias adds, activations, pads and pools
// after it until it meets the next layer's and the two cancel: one layout
// change at the graph's boundaries, as for the int8 path. Measured on
// MobileNetV2's first 1x1 convolution (112x112, 16 -> 96 channels, one
// thread): 3.6-8.8 ms with its two transposes, 0.74 ms without.
//
// The computed values are unchanged: the float GEMM sums a convolution in
// (kh, kw, c) order in either layout, a depthwise convolution and a pool
// tap by tap in (kh, kw) order.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Support/ConstantData.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
constexpr int64_t kToNhwc[] = {0, 2, 3, 1};
constexpr int64_t kToNchw[] = {0, 3, 1, 2};

/// `value` transposed by `permutation`: a new constant when it is one (the
/// weights' layout is then free at run time), else a linalg.transpose.
Value transposeWeights(OpBuilder &b, Location loc, Value value,
                       ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(value.getType());
  ElementsAttr constant;
  DenseElementsAttr dense;
  if (matchPattern(value, m_Constant(&constant))) {
    dense = dyn_cast<DenseElementsAttr>(constant);
    // A dense_resource blob, read as the float GEMM reads its weights.
    if (auto values = constant.tryGetValues<float>(); !dense && values)
      dense = DenseElementsAttr::get(type, ArrayRef(llvm::to_vector(*values)));
  }
  if (!dense)
    return createTranspose(b, loc, value, permutation);
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  return arith::ConstantOp::create(
      b, loc, transposeConstant(dense, permutation, type.clone(shape)));
}

bool isStaticF32Tensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

/// An NCHW image op on static f32 tensors as its NHWC form `NhwcOp`:
/// image and init transposed in, the result transposed back, the second
/// input (filter or pooling window) permuted by `filterPermutation` (none
/// for a window). Convolutions need a constant filter, which the float GEMM
/// requires; a pool is converted only when its image already comes out of
/// a transpose (otherwise it would gain two).
template <typename NchwOp, typename NhwcOp>
struct ImageOpToNhwc : OpRewritePattern<NchwOp> {
  ImageOpToNhwc(MLIRContext *context, ArrayRef<int64_t> filterPermutation,
                bool constantFilter)
      : OpRewritePattern<NchwOp>(context), filterPermutation(filterPermutation),
        constantFilter(constantFilter) {}

  LogicalResult matchAndRewrite(NchwOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.hasPureTensorSemantics() ||
        !llvm::all_of(op->getOperands(), isStaticF32Tensor))
      return rewriter.notifyMatchFailure(op, "not on static f32 tensors");
    Value image = op.getDpsInputs()[0], filter = op.getDpsInputs()[1];
    if (constantFilter && !matchPattern(filter, m_Constant()))
      return rewriter.notifyMatchFailure(op, "the filter is not a constant");
    if (filterPermutation.empty() &&
        !image.getDefiningOp<linalg::TransposeOp>())
      return rewriter.notifyMatchFailure(op, "the image is not transposed");
    Location loc = op.getLoc();
    Value nhwcImage = createTranspose(rewriter, loc, image, kToNhwc);
    Value init = createTranspose(rewriter, loc, op.getDpsInits()[0], kToNhwc);
    if (!filterPermutation.empty())
      filter = transposeWeights(rewriter, loc, filter, filterPermutation);
    auto nhwc = NhwcOp::create(rewriter, loc, TypeRange{init.getType()},
                               ValueRange{nhwcImage, filter}, ValueRange{init},
                               op.getStrides(), op.getDilations());
    rewriter.replaceOp(
        op, createTranspose(rewriter, loc, nhwc.getResult(0), kToNchw));
    return success();
  }

  SmallVector<int64_t> filterPermutation;
  bool constantFilter;
};
} // namespace

void mlir::quanta::populateNhwcImagePatterns(RewritePatternSet &patterns) {
  MLIRContext *context = patterns.getContext();
  // FCHW -> FHWC; CHW -> HWC.
  patterns
      .add<ImageOpToNhwc<linalg::Conv2DNchwFchwOp, linalg::Conv2DNhwcFhwcOp>>(
          context, ArrayRef<int64_t>{0, 2, 3, 1}, /*constantFilter=*/true);
  patterns.add<ImageOpToNhwc<linalg::DepthwiseConv2DNchwChwOp,
                             linalg::DepthwiseConv2DNhwcHwcOp>>(
      context, ArrayRef<int64_t>{1, 2, 0}, /*constantFilter=*/false);
  patterns
      .add<ImageOpToNhwc<linalg::PoolingNchwMaxOp, linalg::PoolingNhwcMaxOp>,
           ImageOpToNhwc<linalg::PoolingNchwSumOp, linalg::PoolingNhwcSumOp>>(
          context, ArrayRef<int64_t>{}, /*constantFilter=*/false);
}

void mlir::quanta::convertImagesToNhwc(ModuleOp module) {
  bool anyNchw = false;
  module->walk([&](Operation *op) {
    if (isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp>(op))
      anyNchw = true;
  });
  if (!anyNchw)
    return;
  RewritePatternSet patterns(module.getContext());
  populateNhwcImagePatterns(patterns);
  populatePropagateLayoutPatterns(patterns);
  // The propagation's own rule: no folding (quant.dcast(quant.qcast(x))
  // folds to x). Where the driver stops short of a fixed point, the
  // transposes left are correct, only slower.
  GreedyRewriteConfig config;
  config.enableFolding(false).enableConstantCSE(false);
  (void)applyPatternsGreedily(module, std::move(patterns), config);
}

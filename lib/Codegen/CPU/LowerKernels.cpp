//===- LowerKernels.cpp - quanta-lower-x86 and quanta-lower-neon ----------===//
//
// Resolves the target once (TargetDescription) and hands every
// quanta.qmatmul, and every f32 matmul, batch matmul or 2-D convolution
// with constant weights, to its tiled kernel (TiledGemm.h); NCHW <-> NHWC
// transposes become vector tiles. The two passes differ only in the
// architecture they lower for.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "quanta/Codegen/CPU/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Support/LoadDialects.h"
#include "quanta/Support/MemoryLimits.h"
#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/ArmNeon/ArmNeonDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

#include <limits>

namespace mlir::quanta {
#define GEN_PASS_DEF_LOWERX86
#define GEN_PASS_DEF_LOWERNEON
#define GEN_PASS_DEF_LOWERCPU
#include "quanta/Codegen/CPU/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// The target a lowering for `arch` named `pass` uses: the level `option`
/// names, this machine ("host"), or ("target") the module's `quanta.target`
/// and else this machine.
static FailureOr<TargetDescription>
resolveTarget(ModuleOp module, TargetArch arch, StringRef pass,
              StringRef optionName, StringRef option) {
  std::optional<TargetDescription> target;
  std::string origin;
  if (option == "host") {
    target = TargetDescription::host();
    origin = "this machine";
  } else if (option == "target") {
    FailureOr<std::optional<TargetDescription>> recorded =
        getModuleTarget(module);
    if (failed(recorded))
      return failure();
    if (*recorded) {
      target = **recorded;
      origin = "the module's " + kTargetAttrName.str();
    } else {
      target = TargetDescription::host();
      origin = "this machine (the module has no " + kTargetAttrName.str() + ")";
    }
  } else {
    llvm::Expected<TargetDescription> level =
        TargetDescription::fromLevel(arch, option);
    if (!level) {
      llvm::consumeError(level.takeError());
      SmallVector<StringRef> names{"target", "host"};
      llvm::append_range(names, TargetDescription::getLevelNames(arch));
      return emitError(module.getLoc())
             << pass << ": unknown " << optionName << " '" << option
             << "' (expected " << llvm::join(names, ", ") << ")";
    }
    return *level;
  }
  if (target->getArch() != arch)
    return emitError(module.getLoc())
           << pass << ": the target, " << origin << ", is "
           << target->describe() << ", not "
           << TargetDescription::getArchName(arch) << "; lower it with "
           << (target->getArch() == TargetArch::AArch64 ? "quanta-lower-neon"
                                                        : "quanta-lower-x86")
           << ", or give " << pass << " a " << optionName;
  return *target;
}

/// The kernel lowerings copy and pack constant weights at compile time, in
/// containers of at most 2^32 elements.
static LogicalResult checkConstantOperands(Operation *op) {
  for (auto [index, operand] : llvm::enumerate(op->getOperands())) {
    auto type = dyn_cast<ShapedType>(operand.getType());
    if (!type || !type.hasStaticShape() || !matchPattern(operand, m_Constant()))
      continue;
    if (type.getNumElements() > std::numeric_limits<uint32_t>::max())
      return op->emitOpError("has a constant operand #")
             << index << " of " << type.getNumElements()
             << " elements; the kernels pack at most 2^32 - 1";
    if (failed(checkAllocatable(op->getLoc(), type.getNumElements(),
                                sizeof(float),
                                "packing constant operand #" + Twine(index))))
      return failure();
  }
  return success();
}

/// A window reduction on floats: lowered only with the passes' `float`
/// option, as the float GEMMs are (integer ones are the int8 model's).
static bool isFloatWindow(Operation *op) {
  return isa<FloatType>(getElementTypeOrSelf(op->getResult(0).getType()));
}

LogicalResult mlir::quanta::lowerKernels(ModuleOp module,
                                         const TargetDescription &target,
                                         StringRef pass, bool lowerFloat) {
  // The ops the kernels are made of (vector, scf, arm_neon, ...).
  loadDependentDialects(module.getContext(), *createLowerX86());
  loadDependentDialects(module.getContext(), *createLowerNeon());
  if (failed(recordLoweredFor(module, target, pass)))
    return failure();
  if (lowerFloat)
    convertImagesToNhwc(module);
  SmallVector<QMatmulOp> qmatmuls;
  SmallVector<QBatchMatmulOp> products;
  SmallVector<DynamicQMatmulOp> dynamicProducts;
  SmallVector<WeightOnlyMatmulOp> weightOnlyProducts;
  SmallVector<Operation *> floatGemms;
  module->walk([&](Operation *op) {
    if (auto qmatmul = dyn_cast<QMatmulOp>(op))
      qmatmuls.push_back(qmatmul);
    else if (auto product = dyn_cast<QBatchMatmulOp>(op))
      products.push_back(product);
    else if (auto dynamic = dyn_cast<DynamicQMatmulOp>(op))
      dynamicProducts.push_back(dynamic);
    else if (auto weightOnly = dyn_cast<WeightOnlyMatmulOp>(op))
      weightOnlyProducts.push_back(weightOnly);
    else if (llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp,
                       linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcHwcfOp>(op))
      floatGemms.push_back(op);
  });
  SmallVector<Operation *> kernels(llvm::map_range(
      qmatmuls, [](QMatmulOp op) { return op.getOperation(); }));
  llvm::append_range(kernels,
                     llvm::map_range(dynamicProducts, [](DynamicQMatmulOp op) {
                       return op.getOperation();
                     }));
  llvm::append_range(kernels, floatGemms);
  for (Operation *op : kernels)
    if (failed(checkConstantOperands(op)))
      return failure();
  IRRewriter rewriter(module.getContext());
  for (QMatmulOp op : qmatmuls) {
    rewriter.setInsertionPoint(op);
    if (failed(lowerQMatmul(rewriter, op, target, pass)))
      return failure();
  }
  for (QBatchMatmulOp op : products) {
    rewriter.setInsertionPoint(op);
    if (failed(lowerQBatchMatmul(rewriter, op, target)))
      return failure();
  }
  for (DynamicQMatmulOp op : dynamicProducts) {
    rewriter.setInsertionPoint(op);
    if (failed(lowerDynamicQMatmul(rewriter, op, target, pass)))
      return failure();
  }
  for (WeightOnlyMatmulOp op : weightOnlyProducts) {
    rewriter.setInsertionPoint(op);
    if (failed(lowerWeightOnlyMatmul(rewriter, op, target)))
      return failure();
  }
  if (target.getArch() == TargetArch::X86_64 &&
      target.hasAll({TargetFeature::Avx512Vnni, TargetFeature::Avx512VL,
                     TargetFeature::Avx512BW}))
    module->walk(
        [](FunctionOpInterface func) { preferVectorWidth(func, 512); });
  // Those that are not f32 with constant weights stay as they are.
  if (lowerFloat)
    for (Operation *op : floatGemms)
      (void)lowerFloatGemm(rewriter, op, target);
  // Depthwise convolutions and pools, found after the GEMMs have taken the
  // elementwise ops they fuse.
  SmallVector<Operation *> windows;
  module->walk([&](Operation *op) {
    if (isWindowReduction(op) && (lowerFloat || !isFloatWindow(op)))
      windows.push_back(op);
  });
  for (Operation *op : windows)
    (void)lowerWindowReduction(rewriter, op);
  // The layout transposes left around NCHW convolutions (the graph's
  // boundaries, a flatten).
  SmallVector<linalg::TransposeOp> transposes;
  module->walk([&](linalg::TransposeOp op) { transposes.push_back(op); });
  for (linalg::TransposeOp op : transposes)
    (void)lowerImageTranspose(rewriter, op);
  return success();
}

namespace {
struct LowerX86Pass : public quanta::impl::LowerX86Base<LowerX86Pass> {
  using LowerX86Base::LowerX86Base;
  void runOnOperation() override {
    FailureOr<TargetDescription> target = resolveTarget(
        getOperation(), TargetArch::X86_64, getArgument(), "isa", isa);
    if (failed(target) || failed(lowerKernels(getOperation(), *target,
                                              getArgument(), lowerFloat)))
      signalPassFailure();
  }
};

struct LowerNeonPass : public quanta::impl::LowerNeonBase<LowerNeonPass> {
  using LowerNeonBase::LowerNeonBase;
  void runOnOperation() override {
    FailureOr<TargetDescription> target =
        resolveTarget(getOperation(), TargetArch::AArch64, getArgument(),
                      "features", features);
    if (failed(target) || failed(lowerKernels(getOperation(), *target,
                                              getArgument(), lowerFloat)))
      signalPassFailure();
  }
};

/// quanta.qmatmul to its kernel for a target; a failure (weights that are
/// not constant) is an error at the op.
struct LowerQMatmulPattern : public OpRewritePattern<QMatmulOp> {
  LowerQMatmulPattern(MLIRContext *context, const TargetDescription &target,
                      StringRef pass)
      : OpRewritePattern(context), target(target), pass(pass.str()) {}
  LogicalResult matchAndRewrite(QMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkConstantOperands(op)))
      return failure();
    return lowerQMatmul(rewriter, op, target, pass);
  }
  TargetDescription target;
  std::string pass;
};

/// quanta.qbatch_matmul to its kernel for a target.
struct LowerQBatchMatmulPattern : public OpRewritePattern<QBatchMatmulOp> {
  LowerQBatchMatmulPattern(MLIRContext *context,
                           const TargetDescription &target)
      : OpRewritePattern(context), target(target) {}
  LogicalResult matchAndRewrite(QBatchMatmulOp op,
                                PatternRewriter &rewriter) const override {
    return lowerQBatchMatmul(rewriter, op, target);
  }
  TargetDescription target;
};

/// quanta.dynamic_qmatmul to its kernel for a target.
struct LowerDynamicQMatmulPattern : public OpRewritePattern<DynamicQMatmulOp> {
  LowerDynamicQMatmulPattern(MLIRContext *context,
                             const TargetDescription &target, StringRef pass)
      : OpRewritePattern(context), target(target), pass(pass.str()) {}
  LogicalResult matchAndRewrite(DynamicQMatmulOp op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkConstantOperands(op)))
      return failure();
    return lowerDynamicQMatmul(rewriter, op, target, pass);
  }
  TargetDescription target;
  std::string pass;
};

/// quanta.weight_only_matmul to its kernel for a target.
struct LowerWeightOnlyMatmulPattern
    : public OpRewritePattern<WeightOnlyMatmulOp> {
  LowerWeightOnlyMatmulPattern(MLIRContext *context,
                               const TargetDescription &target)
      : OpRewritePattern(context), target(target) {}
  LogicalResult matchAndRewrite(WeightOnlyMatmulOp op,
                                PatternRewriter &rewriter) const override {
    return lowerWeightOnlyMatmul(rewriter, op, target);
  }
  TargetDescription target;
};

/// An f32 GEMM or convolution with constant weights to its tiled kernel.
template <typename OpTy>
struct LowerFloatGemmPattern : public OpRewritePattern<OpTy> {
  LowerFloatGemmPattern(MLIRContext *context, const TargetDescription &target)
      : OpRewritePattern<OpTy>(context), target(target) {}
  LogicalResult matchAndRewrite(OpTy op,
                                PatternRewriter &rewriter) const override {
    if (failed(checkConstantOperands(op)))
      return failure();
    return lowerFloatGemm(rewriter, op, target);
  }
  TargetDescription target;
};

/// A depthwise convolution or pool to one vectorizable loop nest (f32 ones
/// only with `lowerFloat`).
struct LowerWindowReductionPattern
    : public OpInterfaceRewritePattern<linalg::LinalgOp> {
  LowerWindowReductionPattern(MLIRContext *context, bool lowerFloat)
      : OpInterfaceRewritePattern<linalg::LinalgOp>(context),
        lowerFloat(lowerFloat) {}
  LogicalResult matchAndRewrite(linalg::LinalgOp op,
                                PatternRewriter &rewriter) const override {
    if (!lowerFloat && isFloatWindow(op))
      return failure();
    return lowerWindowReduction(rewriter, op);
  }
  bool lowerFloat;
};

/// An NCHW <-> NHWC transpose to vector tiles.
struct LowerImageTransposePattern
    : public OpRewritePattern<linalg::TransposeOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::TransposeOp op,
                                PatternRewriter &rewriter) const override {
    return lowerImageTranspose(rewriter, op);
  }
};

struct LowerCpuPass : public quanta::impl::LowerCpuBase<LowerCpuPass> {
  using LowerCpuBase::LowerCpuBase;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<std::optional<TargetDescription>> recorded =
        getModuleTarget(module);
    if (failed(recorded))
      return signalPassFailure();
    TargetDescription target = recorded->value_or(TargetDescription::host());
    if (target.getArch() == TargetArch::Other) {
      module.emitError() << getArgument() << ": no kernels for "
                         << target.describe()
                         << "; the target must be x86-64 or AArch64";
      return signalPassFailure();
    }
    if (failed(lowerKernels(module, target, getArgument(), lowerFloat)))
      signalPassFailure();
  }
};
} // namespace

void mlir::quanta::populateLowerKernelPatterns(RewritePatternSet &patterns,
                                               const TargetDescription &target,
                                               bool lowerFloat,
                                               StringRef pass) {
  MLIRContext *context = patterns.getContext();
  patterns.add<LowerQMatmulPattern>(context, target, pass);
  patterns.add<LowerQBatchMatmulPattern>(context, target);
  patterns.add<LowerDynamicQMatmulPattern>(context, target, pass);
  patterns.add<LowerWeightOnlyMatmulPattern>(context, target);
  patterns.add<LowerImageTransposePattern>(context);
  patterns.add<LowerWindowReductionPattern>(context, lowerFloat);
  if (!lowerFloat)
    return;
  patterns.add<LowerFloatGemmPattern<linalg::MatmulOp>,
               LowerFloatGemmPattern<linalg::BatchMatmulOp>,
               LowerFloatGemmPattern<linalg::Conv2DNhwcFhwcOp>,
               LowerFloatGemmPattern<linalg::Conv2DNhwcHwcfOp>>(context,
                                                                target);
  populateNhwcImagePatterns(patterns);
}

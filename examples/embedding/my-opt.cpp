//===- my-opt.cpp - A compiler driver that embeds Quanta ------------------===//
//
// mlir-opt with every upstream dialect and pass, Quanta's, and passes of
// this compiler's own: one over Quanta's ops, one that runs Quanta's
// rewrite patterns in its own pattern driver. What a project that embeds
// Quanta writes. Run, e.g.:
//   my-opt model.mlir --quanta-prepare --my-count-observers
//   my-opt model.mlir --quanta-ptq=data=batch.npy --my-lower-quant-casts
//   my-opt model.mlir --quanta-ptq=data=batch.npy --my-quantize-for-host
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"

using namespace mlir;

namespace {
/// Remarks how many observers each function holds.
struct CountObserversPass
    : public PassWrapper<CountObserversPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountObserversPass)

  StringRef getArgument() const override { return "my-count-observers"; }
  StringRef getDescription() const override {
    return "Remark the number of quanta.observe ops of each function";
  }
  void runOnOperation() override {
    int64_t count = 0;
    getOperation().walk([&](quanta::ObserveOp) { ++count; });
    getOperation().emitRemark() << count << " observers";
  }
};

/// Quanta's patterns in a greedy driver of this compiler's: without
/// folding, since upstream's quant.dcast folds dcast(qcast(x)) to x, which
/// would drop quantization steps before Quanta's patterns see them.
static LogicalResult applyWithoutFolding(Operation *op,
                                         RewritePatternSet &&patterns) {
  return applyPatternsGreedily(op, std::move(patterns),
                               GreedyRewriteConfig().enableFolding(false));
}

/// Quanta's quant-cast and fake-quant lowerings (PyTorch's arithmetic) as
/// patterns in this compiler's own greedy rewrite, where it could add
/// patterns of its own.
struct LowerQuantCastsPass
    : public PassWrapper<LowerQuantCastsPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(LowerQuantCastsPass)

  StringRef getArgument() const override { return "my-lower-quant-casts"; }
  StringRef getDescription() const override {
    return "Quant casts and fake quant to arithmetic with Quanta's patterns";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    registry.insert<arith::ArithDialect, linalg::LinalgDialect,
                    math::MathDialect, tensor::TensorDialect>();
  }
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    quanta::populateLowerQuantCastsPatterns(patterns);
    quanta::populateLowerFakeQuantPatterns(patterns);
    if (failed(applyWithoutFolding(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};

/// A frozen (q/dq) model to int8 kernels for this machine with Quanta's
/// quantize and kernel patterns: what quanta-compile does, in this
/// compiler's own driver.
struct QuantizeForHostPass
    : public PassWrapper<QuantizeForHostPass, OperationPass<ModuleOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(QuantizeForHostPass)

  StringRef getArgument() const override { return "my-quantize-for-host"; }
  StringRef getDescription() const override {
    return "Integer ops and this machine's kernels with Quanta's patterns";
  }
  void getDependentDialects(DialectRegistry &registry) const override {
    quanta::createQuantize()->getDependentDialects(registry);
    quanta::createLowerCpu()->getDependentDialects(registry);
  }
  void runOnOperation() override {
    RewritePatternSet quantize(&getContext());
    quanta::populateQuantizePatterns(quantize);
    RewritePatternSet kernels(&getContext());
    quanta::populateLowerKernelPatterns(kernels,
                                        quanta::TargetDescription::host(),
                                        /*lowerFloat=*/true, getArgument());
    if (failed(applyWithoutFolding(getOperation(), std::move(quantize))) ||
        failed(applyWithoutFolding(getOperation(), std::move(kernels))))
      signalPassFailure();
  }
};
} // namespace

int main(int argc, char **argv) {
  quanta::registerAllPasses();
  PassRegistration<CountObserversPass>();
  PassRegistration<LowerQuantCastsPass>();
  PassRegistration<QuantizeForHostPass>();
  DialectRegistry registry;
  quanta::registerAllDialects(registry);
  return asMainReturnCode(MlirOptMain(
      argc, argv, "my-opt: a compiler embedding Quanta\n", registry));
}

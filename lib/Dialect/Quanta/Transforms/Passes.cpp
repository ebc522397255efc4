//===- Passes.cpp - Registration of quanta passes and pipelines -----------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
struct PrepareOptions : public PassPipelineOptions<PrepareOptions> {
  Option<std::string> qconfig{*this, "qconfig",
                              llvm::cl::desc("qconfig preset or attribute"),
                              llvm::cl::init("x86")};
  ListOption<std::string> overrides{
      *this, "override",
      llvm::cl::desc("per-op qconfig: <op name or location name>=<qconfig>")};
  Option<bool> foldConstantWeights{
      *this, "fold-constant-weights",
      llvm::cl::desc("compute statistics of constant weights now"),
      llvm::cl::init(true)};
};
} // namespace

void quanta::registerQuantaPassesAndPipelines() {
  registerQuantaPasses();
  PassPipelineRegistration<PrepareOptions>(
      "quanta-prepare",
      "PyTorch's prepare(): TOSA to linalg (upstream pipeline), then "
      "quanta-insert-observers",
      [](OpPassManager &pm, const PrepareOptions &options) {
        // Upstream's pipelines are no-ops on functions without TOSA ops.
        // addTosaToLinalgPasses leaves tosa.reshape/const_shape (tensor) and
        // tosa.const (arith) to the two passes that follow it.
        tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                                    TosaToLinalgNamedOptions());
        pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
        pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
        pm.addPass(createCanonicalizerPass());
        InsertObserversOptions insertOptions;
        insertOptions.qconfig = options.qconfig;
        insertOptions.overrides.assign(options.overrides.begin(),
                                       options.overrides.end());
        insertOptions.foldConstantWeights = options.foldConstantWeights;
        pm.addNestedPass<func::FuncOp>(
            quanta::createInsertObservers(insertOptions));
      });
}

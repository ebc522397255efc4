//===- Quanta.cpp - Quanta's public C++ API -------------------------------===//

#include "quanta/API/Quanta.h"

#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"

using namespace mlir;

void quanta::registerAllDialects(DialectRegistry &registry) {
  registerJitDialects(registry);
}

void quanta::registerAllPasses() {
  mlir::registerAllPasses();
  registerQuantaPassesAndPipelines();
}

LogicalResult quanta::buildPassPipeline(ModuleOp module, StringRef pipeline,
                                        OpPassManager &pm) {
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  StringRef passes = pipeline.trim();
  if (passes.consume_front("builtin.module(") && !passes.consume_back(")"))
    return module.emitError("bad pass pipeline: unbalanced parentheses");
  if (failed(parsePassPipeline(passes, pm, errorStream)))
    return module.emitError("bad pass pipeline: ") << errors;
  return success();
}

LogicalResult quanta::runPassPipeline(ModuleOp module, StringRef pipeline) {
  PassManager pm(module.getContext());
  if (failed(buildPassPipeline(module, pipeline, pm)))
    return failure();
  return pm.run(module);
}

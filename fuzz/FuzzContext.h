//===- FuzzContext.h - The MLIR context the fuzz targets share --*- C++ -*-===//
//
// Loading every dialect costs milliseconds, too much per input; a context
// kept forever accumulates every attribute and type any input uniqued. The
// targets share one context, renewed every few thousand inputs, whose
// diagnostics are dropped: a fuzzer looks for crashes, not messages.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_FUZZ_FUZZCONTEXT_H
#define QUANTA_FUZZ_FUZZCONTEXT_H

#include "quanta/API/Quanta.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/MLIRContext.h"

#include <memory>

namespace quanta_fuzz {

inline mlir::MLIRContext &getFuzzContext() {
  constexpr unsigned kInputsPerContext = 4096;
  static std::unique_ptr<mlir::MLIRContext> context;
  static unsigned inputs = 0;
  if (!context || ++inputs % kInputsPerContext == 0) {
    static bool passesRegistered = (mlir::quanta::registerAllPasses(), true);
    (void)passesRegistered;
    mlir::DialectRegistry registry;
    mlir::quanta::registerAllDialects(registry);
    context = std::make_unique<mlir::MLIRContext>(
        registry, mlir::MLIRContext::Threading::DISABLED);
    context->loadAllAvailableDialects();
    context->getDiagEngine().registerHandler(
        [](mlir::Diagnostic &) { return mlir::success(); });
  }
  return *context;
}

} // namespace quanta_fuzz

#endif // QUANTA_FUZZ_FUZZCONTEXT_H

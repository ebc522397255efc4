//===- LoadDialects.cpp - Dialects a pass's work needs --------------------===//

#include "quanta/Support/LoadDialects.h"

#include "mlir/IR/DialectRegistry.h"

void mlir::quanta::loadDependentDialects(MLIRContext *context,
                                         const Pass &pass) {
  DialectRegistry registry;
  pass.getDependentDialects(registry);
  context->appendDialectRegistry(registry);
  for (StringRef name : registry.getDialectNames())
    context->getOrLoadDialect(name);
}

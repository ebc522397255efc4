//===- LoadDialects.h - Dialects a pass's work needs ------------*- C++ -*-===//
//
// Functions such as quanta::calibrate and quanta::lowerKernels do a pass's
// work outside a pass manager, which would otherwise load the dialects the
// pass declares before it runs; creating an op of a dialect not loaded
// crashes. They load the pass's list (Passes.td, the one source) first.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_SUPPORT_LOADDIALECTS_H
#define QUANTA_SUPPORT_LOADDIALECTS_H

#include "mlir/IR/MLIRContext.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quanta {

/// Loads into `context` every dialect `pass` declares as dependent. A
/// no-op when they are loaded, as inside that pass.
void loadDependentDialects(MLIRContext *context, const Pass &pass);

} // namespace mlir::quanta

#endif // QUANTA_SUPPORT_LOADDIALECTS_H

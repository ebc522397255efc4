//===- MemoryLimits.h - Sizes checked before memory is requested -*- C++
//-*-===//
//
// A tensor type or a constant can describe more bytes than any machine
// holds (a splat of 1e12 elements is a few bytes of IR). Requesting them
// ends the process (LLVM's out-of-memory handler, SmallVector's growth
// check); every place that materializes elements of a size it does not
// control checks it here first and reports an error instead.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_SUPPORT_MEMORYLIMITS_H
#define QUANTA_SUPPORT_MEMORYLIMITS_H

#include "mlir/IR/Location.h"
#include "mlir/Support/LLVM.h"
#include "llvm/ADT/Twine.h"

#include <cstdint>

namespace mlir::quanta {

/// Succeeds when `count` items of `itemBytes` bytes each fit in the memory
/// Quanta may use (runtime::getMemoryLimitBytes); otherwise
/// reports, at `loc`, that `what` needs more than that (or more than 2^63
/// bytes).
LogicalResult checkAllocatable(Location loc, int64_t count, int64_t itemBytes,
                               const llvm::Twine &what);

} // namespace mlir::quanta

#endif // QUANTA_SUPPORT_MEMORYLIMITS_H

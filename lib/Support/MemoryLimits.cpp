//===- MemoryLimits.cpp - Sizes checked before memory is requested --------===//

#include "quanta/Support/MemoryLimits.h"
#include "quanta/Runtime/MemoryLimit.h"

#include "mlir/IR/Diagnostics.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;

LogicalResult quanta::checkAllocatable(Location loc, int64_t count,
                                       int64_t itemBytes,
                                       const llvm::Twine &what) {
  int64_t bytes = 0;
  if (count < 0 || itemBytes < 0 || llvm::MulOverflow(count, itemBytes, bytes))
    return emitError(loc) << what << " needs more than 2^63 bytes";
  const uint64_t limit = runtime::getMemoryLimitBytes();
  if (limit != 0 && static_cast<uint64_t>(bytes) > limit)
    return emitError(loc) << what << " needs " << bytes << " bytes, more "
                          << "than the " << limit
                          << " bytes of memory Quanta may use";
  return success();
}

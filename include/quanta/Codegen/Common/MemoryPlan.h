//===- MemoryPlan.h - What quanta-plan-memory planned -----------*- C++ -*-===//
//
// quanta-plan-memory records its plan per function in the module attribute
// `quanta.memory_plan`, which survives the lowering to LLVM: quant-compile
// writes it into the C header, quant-run prints it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_CODEGEN_COMMON_MEMORYPLAN_H
#define QUANTA_CODEGEN_COMMON_MEMORYPLAN_H

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"

#include <string>

namespace mlir::quanta {

inline constexpr llvm::StringLiteral kMemoryPlanAttrName = "quanta.memory_plan";

/// One function's arena.
struct MemoryPlan {
  /// The arena (0: no buffer planned).
  int64_t arenaBytes = 0;
  /// The largest total of bytes live at once: no placement needs less.
  int64_t lowerBoundBytes = 0;
  /// Buffers in the arena, and those left to the allocator.
  int64_t buffers = 0, buffersLeft = 0;

  DictionaryAttr toAttribute(MLIRContext *context) const;
  /// "arena 1204224 bytes for 12 buffers, 1.00x the liveness lower bound
  /// (1204224 bytes); 0 allocations per call".
  std::string describe() const;
};

/// The plans recorded on `module`, by function name, in its order.
SmallVector<std::pair<std::string, MemoryPlan>> getMemoryPlans(ModuleOp module);

} // namespace mlir::quanta

#endif // QUANTA_CODEGEN_COMMON_MEMORYPLAN_H

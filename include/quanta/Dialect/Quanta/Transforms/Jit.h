//===- Jit.h - Compiling and calling tensor functions in process -*- C++
//-*-===//
//
// What quanta-calibrate and quant-run share: the lowering of a module of
// tensors through buildLowerToLLVMPipeline into an ExecutionEngine (in a
// private context, so the caller's module is untouched), and the memref
// descriptors its C interface takes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_JIT_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_JIT_H

#include "quanta/Target/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/ExecutionEngine/ExecutionEngine.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>

namespace mlir::quanta {

/// A memref descriptor of any rank over contiguous row-major data, laid
/// out as StridedMemRefType.
class MemRefDescriptor {
public:
  MemRefDescriptor(void *data, ArrayRef<int64_t> shape);
  /// What the packed C interface takes for this argument: the address of a
  /// pointer to the descriptor. Valid until the descriptor moves.
  void *packed() {
    pointer = fields.data();
    return &pointer;
  }

private:
  SmallVector<int64_t> fields;
  void *pointer = nullptr;
};

/// Every dialect, extension and LLVM IR translation, and quanta's: what a
/// module compileForJit lowers may use, for tools that parse one.
void registerJitDialects(DialectRegistry &registry);

/// Gives `func` a `_mlir_ciface_` wrapper (memref descriptors, results as
/// trailing out-parameters once lowered) and marks its arguments read-only:
/// they are the caller's buffers, which bufferization must copy rather than
/// write in place.
void exposeCInterface(func::FuncOp func);

/// Whether buildLowerToLLVMPipeline can lower `module`: an error at each
/// kind of op that needs an earlier pipeline (a `quanta.qmatmul` without
/// its kernel lowering, an observer or fake-quant module before freezing),
/// naming that pipeline, prefixed by `tool`.
LogicalResult verifyReadyForLLVM(ModuleOp module, StringRef tool);

/// Extra symbols for the engine (runtime callbacks).
using SymbolRegistrar = llvm::function_ref<void(
    llvm::orc::SymbolMap &, llvm::orc::MangleAndInterner &)>;

/// Lowers a copy of `module` to LLVM and JIT-compiles it for `target`
/// (default: this machine, its CPU and features), which this machine must
/// be able to run. Functions given exposeCInterface are called through
/// their `_mlir_ciface_` wrappers. Instructions the target lacks
/// (verifyRunsOn) are errors, before LLVM sees them. Errors are reported
/// at the module's location, prefixed by `tool`. The memory plan of the
/// lowered copy (quanta-plan-memory) is recorded on `module`
/// (getMemoryPlans).
FailureOr<std::unique_ptr<ExecutionEngine>>
compileForJit(ModuleOp module, StringRef tool, SymbolRegistrar extra = {},
              const TargetDescription *target = nullptr);

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_JIT_H

//===- Jit.h - Compiling and calling tensor functions in process -*- C++
//-*-===//
//
// What quanta-calibrate and quant-run share: the lowering of a module of
// tensors through buildLowerToLLVMPipeline into a JitEngine (in a private
// context, so the caller's module is untouched; code generation in
// parallel partitions, kept in the compile cache), and the memref
// descriptors its C interface takes.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_JIT_H
#define QUANTA_TARGET_JIT_H

#include "quanta/Runtime/NumpyFile.h"
#include "quanta/Support/TargetDescription.h"
#include "quanta/Target/JitEngine.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "llvm/ADT/SmallVector.h"

#include <memory>
#include <string>
#include <vector>

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

/// A lowering compileForJit runs on the module before its own (a pass
/// pipeline, the kernels' lowering) only when the compile cache does not
/// hold the result: the cache key covers the module before it and `name`,
/// which tells apart the lowerings that make different code of one module.
/// A cached model then costs neither (the kernels' lowering packs every
/// weight: 0.4 s of MobileNetV2's 0.9 s in quant-run).
struct JitPreLowering {
  std::string name;
  llvm::function_ref<LogicalResult(ModuleOp)> run;
};

/// Lowers a copy of `module` to LLVM and JIT-compiles it for `target`
/// (default: this machine, its CPU and features), which this machine must
/// be able to run. Functions given exposeCInterface are called through
/// their `_mlir_ciface_` wrappers. Instructions the target lacks
/// (verifyRunsOn) are errors, before LLVM sees them. Errors are reported
/// at the module's location, prefixed by `tool`. The memory plan of the
/// lowered copy (quanta-plan-memory) is recorded on `module`
/// (getMemoryPlans). With a compile cache (CompileCache::getDefault), a
/// module compiled before for the same target by the same compiler is
/// loaded from it, neither lowered nor compiled; a damaged entry is a
/// warning, compiled again and replaced. `preLowering` runs on `module`
/// first, unless the cache holds its result: then `module` stays as given,
/// and what the lowering recorded on it (memory plans, profiled sites, the
/// kernels' target `quanta.lowered_for`) comes from the cache.
FailureOr<std::unique_ptr<JitEngine>>
compileForJit(ModuleOp module, StringRef tool, SymbolRegistrar extra = {},
              const TargetDescription *target = nullptr,
              const JitPreLowering *preLowering = nullptr);

/// The function `name` with a body, or the module's only one when `name`
/// is empty; else an error, which tells to choose one `chooseWith` (the
/// caller's option: "--entry", "entry=<name>").
FailureOr<func::FuncOp> findEntryFunction(ModuleOp module, StringRef name,
                                          StringRef chooseWith);

/// Makes every public function of `module` but `entry` private and erases
/// what `entry` does not call, so that only it is compiled.
LogicalResult pruneToEntry(ModuleOp module, func::FuncOp entry);

/// How a tensor of a compiled function's signature is passed in memory.
struct TensorSpec {
  std::vector<int64_t> shape;
  /// The NumPy dtypes its data may have; results are written as the first
  /// (signless i8 takes int8 or uint8 data).
  SmallVector<std::string, 2> dtypes;
  size_t elementSize = 0;

  int64_t numElements() const;
};

/// `type` as a TensorSpec: a static tensor of f32, f64, i8/i16/i32/i64 or
/// an 8-bit quantized type; else an error at `loc` naming `what`.
FailureOr<TensorSpec> getTensorSpec(Location loc, Type type, const Twine &what,
                                    StringRef tool);

/// An error unless `tensors` match `specs` in number, dtype and shape
/// (`what`: "argument" or "result"; `function` names the callee).
llvm::Error checkTensors(ArrayRef<TensorSpec> specs,
                         ArrayRef<runtime::TensorRef> tensors, StringRef what,
                         StringRef function);

/// A function of a module, JIT-compiled for this machine and called on
/// tensors in memory: what quant-run runs and the Python package calls.
class CompiledFunction {
public:
  /// Compiles the function `entry` of a copy of `module` for
  /// `target` (default: this machine) with compileForJit, after
  /// pruneToEntry and `preLowering` (e.g. quant-run's pass pipeline: not
  /// run when the compile cache holds its result; it must keep the entry's
  /// signature). What the lowering records (the memory plan:
  /// getMemoryPlans) is recorded on `module`.
  static FailureOr<CompiledFunction>
  compile(ModuleOp module, StringRef entry, StringRef tool,
          const TargetDescription *target = nullptr,
          const JitPreLowering *preLowering = nullptr);

  StringRef getName() const { return name; }
  ArrayRef<TensorSpec> getArguments() const { return arguments; }
  ArrayRef<TensorSpec> getResults() const { return results; }
  /// Whether its code came from the compile cache.
  bool isFromCache() const { return engine->isFromCache(); }

  /// Calls the function on `inputs`, writing its results into `outputs`
  /// (buffers the caller allocated in the shapes of getResults()). Checked
  /// first: the number, dtypes and shapes of both.
  llvm::Error call(ArrayRef<runtime::TensorRef> inputs,
                   ArrayRef<runtime::TensorRef> outputs);

private:
  CompiledFunction() = default;

  std::string name;
  std::vector<TensorSpec> arguments, results;
  std::unique_ptr<JitEngine> engine;
};

} // namespace mlir::quanta

#endif // QUANTA_TARGET_JIT_H

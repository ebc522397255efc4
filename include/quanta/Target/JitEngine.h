//===- JitEngine.h - Object code loaded into this process -------*- C++ -*-===//
//
// What compileForJit returns: object files linked in this process by ORC,
// whether they were just generated (compileToObjects, in parallel
// partitions) or read from the compile cache. MLIR's ExecutionEngine takes
// an MLIR module and generates its code itself, so it cannot be given
// object code from a cache; this engine takes object files and keeps the
// calling convention of ExecutionEngine::invokePacked (an `_mlir_<name>`
// wrapper per function, taking a pointer to the argument pointers).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_JITENGINE_H
#define QUANTA_TARGET_JITENGINE_H

#include "quanta/Support/TargetDescription.h"

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"
#include "llvm/Support/Error.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <vector>

namespace llvm {
class JITEventListener;
class Module;
namespace orc {
class LLJIT;
} // namespace orc
} // namespace llvm

namespace mlir::quanta {

/// Extra symbols for the engine (runtime callbacks).
using SymbolRegistrar = llvm::function_ref<void(
    llvm::orc::SymbolMap &, llvm::orc::MangleAndInterner &)>;

/// Moves the constant-size allocas of `module`'s functions that are outside
/// loops to the top of their function's entry block, where LLVM treats
/// them as part of the fixed frame. MLIR allocates a descriptor where a
/// memref is passed by pointer (a call through the C interface or with an
/// unranked memref) and a `memref.alloca` where it is written, in any
/// block; left there they are dynamic allocas, which SROA does not take
/// apart, and after which LLVM 22's X86 code generator misaligns the
/// stack: it moves the stack pointer by a multiple of 16 bytes but still
/// stores 64-byte vectors to a call's stack arguments as if the pointer
/// were aligned to 64 (a segfault in a calibration entry function that
/// passes memref descriptors on the stack). Run by compileToObjects and
/// quant-compile's object files before -O3.
void moveAllocasToEntryBlock(llvm::Module &module);

/// Optimizes `module` at -O3 and generates object code for `target` (this
/// machine's architecture), in up to `partitions` partitions compiled on a
/// thread pool, each in an LLVMContext of its own. Outlined loop nests are
/// `noinline`, so partitioning loses little: internal symbols become
/// external ones the objects resolve against each other. Each function
/// gets its `_mlir_<name>` packed wrapper, and the static constructors of
/// each partition (AddressSanitizer's, in a sanitizer build) become a
/// function JitEngine calls after linking (RuntimeDyld runs none).
llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
compileToObjects(std::unique_ptr<llvm::Module> module,
                 const TargetDescription &target, unsigned partitions);

/// Object files of one target linked in this process against the process's
/// symbols, `sharedLibraries` and the registered symbols.
class JitEngine {
public:
  ~JitEngine();

  /// Links `objects` (from compileToObjects; `fromCache`: read from the
  /// compile cache) and runs their constructors. `extra` symbols are
  /// defined before.
  static llvm::Expected<std::unique_ptr<JitEngine>>
  load(const TargetDescription &target,
       std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
       llvm::ArrayRef<llvm::StringRef> sharedLibraries,
       SymbolRegistrar extra = {}, bool fromCache = false);

  /// Whether the objects came from the compile cache.
  bool isFromCache() const { return fromCache; }

  /// The packed wrapper of the function `name`: it takes a pointer to an
  /// array of pointers to the arguments, then to the result if any. A caller
  /// built with UBSan's -fsanitize=function calls it from a function marked
  /// no_sanitize("function"): JIT code has no type signature to check.
  llvm::Expected<void (*)(void **)> lookupPacked(llvm::StringRef name);

  /// Calls the function `name` through its packed wrapper.
  llvm::Error invokePacked(llvm::StringRef name,
                           llvm::MutableArrayRef<void *> arguments);

private:
  JitEngine();

  // Declared before the JIT, which refers to it until it is destroyed.
  std::unique_ptr<llvm::JITEventListener> listener;
  std::unique_ptr<llvm::orc::LLJIT> jit;
  bool fromCache = false;
};

} // namespace mlir::quanta

#endif // QUANTA_TARGET_JITENGINE_H

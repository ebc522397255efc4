//===- ObjectFile.h - Object files and C headers for a module ---*- C++ -*-===//
//
// Ahead-of-time compilation: a module of tensor functions becomes an object
// file for a target triple plus a C header declaring how to call it, so the
// generated int8 code links into someone else's program. The lowering is
// the JIT's (buildLowerToLLVMPipeline): what quant-run measures is what the
// object file contains.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_OBJECTFILE_H
#define QUANTA_TARGET_OBJECTFILE_H

#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace llvm {
class Module;
} // namespace llvm

namespace mlir::quanta {

/// The public functions of `module` that get a C interface: defined,
/// public, with static tensor signatures of f32/f64/integer/8-bit quantized
/// elements. Reports an error at the function for any other signature.
FailureOr<SmallVector<func::FuncOp>> getCInterfaceFunctions(ModuleOp module);

/// Writes a C header declaring, for each function of
/// getCInterfaceFunctions, the memref descriptor types and the
/// `_mlir_ciface_<name>` entry point (arguments, then results as
/// caller-owned out-parameters), a `<name>_run` inline wrapper over plain
/// contiguous buffers and `<name>_missing_cpu_feature` (addCpuCheck),
/// with each function's arena when `module` holds the memory plan of its
/// lowering (getMemoryPlans). `origin` is named in the header's comment.
LogicalResult emitCHeader(ModuleOp module, StringRef origin,
                          const TargetDescription &target,
                          llvm::raw_ostream &os);

/// Checks that `module` only uses instructions `target` has
/// (verifyRunsOn), lowers it in place to LLVM (buildLowerToLLVMPipeline, C
/// interfaces for the functions of getCInterfaceFunctions), adds the CPU
/// check (addCpuCheck), optimizes it at -O3 and writes a
/// position-independent object file for `target` (resolved from a triple:
/// TargetDescription::fromLLVM) to `os`.
LogicalResult emitObjectFile(ModuleOp module, const TargetDescription &target,
                             llvm::raw_pwrite_stream &os);

/// What quant-compile and the quanta driver write: the object file of
/// emitObjectFile at `objectPath` and, unless `headerPath` is empty, the
/// header of emitCHeader (the signatures as they were before lowering,
/// with the memory plan lowering made) at `headerPath`. Lowers `module`
/// in place. `origin` names the model in the header's comment.
LogicalResult writeObjectAndHeader(ModuleOp module,
                                   const TargetDescription &target,
                                   StringRef objectPath, StringRef headerPath,
                                   StringRef origin);

/// Makes each of `functions` (their `_mlir_ciface_` entry points) check at
/// its first call that the CPU has every feature of `target`, and report
/// the missing one and abort otherwise; adds `const char
/// *<function>_missing_cpu_feature(void)` for each (CpuCheck.cpp).
void addCpuCheck(llvm::Module &module, const TargetDescription &target,
                 llvm::ArrayRef<std::string> functions);

} // namespace mlir::quanta

#endif // QUANTA_TARGET_OBJECTFILE_H

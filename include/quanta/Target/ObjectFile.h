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

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"
#include "llvm/Support/raw_ostream.h"

#include <string>

namespace mlir::quanta {

struct ObjectFileOptions {
  /// The target triple; empty for the host's.
  std::string triple;
  /// The CPU; empty for the host's CPU when compiling for the host, and
  /// the triple's generic CPU otherwise.
  std::string cpu;
  /// Extra target features, as for llc's -mattr (e.g. "+avx2,+fma").
  std::string features;
};

/// The public functions of `module` that get a C interface: defined,
/// public, with static tensor signatures of f32/f64/integer/8-bit quantized
/// elements. Reports an error at the function for any other signature.
FailureOr<SmallVector<func::FuncOp>> getCInterfaceFunctions(ModuleOp module);

/// Writes a C header declaring, for each function of
/// getCInterfaceFunctions, the memref descriptor types and the
/// `_mlir_ciface_<name>` entry point (arguments, then results as
/// caller-owned out-parameters), plus a `<name>_run` inline wrapper over
/// plain contiguous buffers. `origin` is named in the header's comment.
LogicalResult emitCHeader(ModuleOp module, StringRef origin,
                          const ObjectFileOptions &options,
                          llvm::raw_ostream &os);

/// Lowers `module` in place to LLVM (buildLowerToLLVMPipeline, C interfaces
/// for the functions of getCInterfaceFunctions), optimizes it at -O3 and
/// writes a position-independent object file for the target to `os`.
LogicalResult emitObjectFile(ModuleOp module, const ObjectFileOptions &options,
                             llvm::raw_pwrite_stream &os);

} // namespace mlir::quanta

#endif // QUANTA_TARGET_OBJECTFILE_H

//===- Passes.h - Target-independent code generation ------------*- C++ -*-===//
//
// From a module of tensors (quantized or not, kernels lowered or not) to
// the LLVM dialect: bufferization with results as out-parameters, one
// memory arena per function, threads, outlined loop nests, constants as
// bytes. The CPU kernel generators (Codegen/CPU) run before this.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_CODEGEN_COMMON_PASSES_H
#define QUANTA_CODEGEN_COMMON_PASSES_H

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::quanta {

#define GEN_PASS_DECL
#include "quanta/Codegen/Common/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Codegen/Common/Passes.h.inc"

/// The function attribute with which quanta-outline-loops lists the LLVM
/// arguments (aligned pointers of buffers no other argument overlaps) that
/// quanta-apply-noalias marks `noalias` once the function is an llvm.func.
inline constexpr llvm::StringLiteral kNoAliasArgumentsAttrName =
    "quanta.noalias_arguments";

/// The unit attribute of the functions quanta-outline-kernels makes, which
/// quanta-inline-kernels puts back at their calls.
inline constexpr llvm::StringLiteral kKernelAttrName = "quanta.kernel";

/// The module attributes of quanta-profile-calls: the request, and the
/// sites it numbered (an array of dictionaries {kernel, location}).
inline constexpr llvm::StringLiteral kProfileAttrName = "quanta.profile";
inline constexpr llvm::StringLiteral kProfileSitesAttrName =
    "quanta.profile_sites";
/// The functions the instrumented code calls, with the site's number.
inline constexpr llvm::StringLiteral kProfileBeginFunction =
    "quanta_profile_begin";
inline constexpr llvm::StringLiteral kProfileEndFunction = "quanta_profile_end";

/// Tensors to the LLVM dialect, for the JIT and object files: quant casts
/// lowered, one-shot bufferization with results as caller-owned
/// out-parameters, linalg to loops, vector and the rest to LLVM
/// (`quanta-lower-to-llvm`).
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// Runs buildLowerToLLVMPipeline on `module` as the JIT and object files
/// do: the result verified once, not after each pass.
LogicalResult lowerToLLVM(ModuleOp module);

} // namespace mlir::quanta

#endif // QUANTA_CODEGEN_COMMON_PASSES_H

//===- Passes.h - Quanta conversion passes ----------------------*- C++ -*-===//

#ifndef QUANTA_CODEGEN_CPU_PASSES_H
#define QUANTA_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quanta {
class TargetDescription;

/// What quanta-lower-x86 and quanta-lower-neon do, for a resolved target:
/// every quanta.qmatmul to its tiled kernel and, with `lowerFloat`, the f32
/// GEMMs, convolutions and depthwise convolutions to theirs. `pass` names
/// the caller in diagnostics.
LogicalResult lowerKernels(ModuleOp module, const TargetDescription &target,
                           StringRef pass, bool lowerFloat = true);

/// The per-op rewrites of lowerKernels as patterns, for other compilers'
/// pipelines: quanta.qmatmul and, with `lowerFloat`, f32 matmuls, batch
/// matmuls, 2-D and depthwise convolutions with constant weights to their
/// kernels for `target`, and NCHW <-> NHWC transposes to vector tiles.
/// lowerKernels adds what is module-wide (the target recorded as
/// `quanta.lowered_for`, 512-bit vectors on AVX-512) and lowers the
/// transposes its float kernels create, which the kernel builders do not
/// report to a driver. `pass` names the caller in diagnostics.
void populateLowerKernelPatterns(RewritePatternSet &patterns,
                                 const TargetDescription &target,
                                 bool lowerFloat, StringRef pass);

#define GEN_PASS_DECL
#include "quanta/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Codegen/CPU/Passes.h.inc"

} // namespace mlir::quanta

#endif // QUANTA_CODEGEN_CPU_PASSES_H

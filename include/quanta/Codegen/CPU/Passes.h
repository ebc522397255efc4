//===- Passes.h - Quanta conversion passes ----------------------*- C++ -*-===//

#ifndef QUANTA_CODEGEN_CPU_PASSES_H
#define QUANTA_CODEGEN_CPU_PASSES_H

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quanta {
class TargetDescription;

/// What quanta-lower-x86 and quanta-lower-neon do, for a resolved target:
/// every quanta.qmatmul to its tiled kernel and, with `lowerFloat`, the f32
/// GEMMs, convolutions and depthwise convolutions to theirs. `pass` names
/// the caller in diagnostics.
LogicalResult lowerKernels(ModuleOp module, const TargetDescription &target,
                           StringRef pass, bool lowerFloat = true);

#define GEN_PASS_DECL
#include "quanta/Codegen/CPU/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Codegen/CPU/Passes.h.inc"

} // namespace mlir::quanta

#endif // QUANTA_CODEGEN_CPU_PASSES_H

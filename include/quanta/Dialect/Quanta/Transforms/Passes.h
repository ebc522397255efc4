//===- Passes.h - quanta transformation passes ------------------*- C++ -*-===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::quanta {

#define GEN_PASS_DECL
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"

/// Lowers every quanta.fake_quant under `root` (see quanta-lower-fake-quant).
LogicalResult lowerFakeQuantOps(Operation *root);

/// Tensors to the LLVM dialect, for the JIT and object files: quant casts
/// lowered, one-shot bufferization with results as caller-owned
/// out-parameters, linalg to loops, vector and the rest to LLVM.
void buildLowerToLLVMPipeline(OpPassManager &pm);

/// Registers `quanta-lower-to-llvm` (buildLowerToLLVMPipeline).
void registerLowerToLLVMPipeline();

/// PyTorch's prepare() options (quanta-insert-observers').
struct PrepareOptions {
  /// A preset name (x86, fbgemm, qnnpack, onednn, ...) or a
  /// #quanta.qconfig attribute.
  std::string qconfig = "x86";
  /// Per-op qconfigs: "<op name or location name>=<qconfig>".
  std::vector<std::string> overrides;
  /// Compute the statistics of constant weights now.
  bool foldConstantWeights = true;
  /// Observe an op followed by a clamp (relu6) after the clamp, as TFLite
  /// fuses it, instead of giving the clamp the op's qparams (PyTorch FX).
  bool fuseClamps = false;
};

/// quanta-prepare: upstream TOSA to linalg (a no-op on linalg input), then
/// quanta-insert-observers with `options`.
void buildPreparePipeline(OpPassManager &pm, const PrepareOptions &options);

/// Registers the quanta passes and the `quanta-prepare` pipeline (upstream
/// tosa-to-linalg, then quanta-insert-observers).
void registerQuantaPassesAndPipelines();

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H

//===- Passes.h - The quantization flow's passes ----------------*- C++ -*-===//
//
// What turns a float model into a quantized one, independent of any
// target: observers where PyTorch's prepare() puts them, fake-quant and
// quant casts as arithmetic, frozen qparams, integer forms of the ops and
// the layouts between them. Code generation (Codegen/), execution (Target/)
// and calibration (Calibration/) are the layers above.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "mlir/Pass/Pass.h"
#include "llvm/ADT/MapVector.h"

namespace mlir {
class RewritePatternSet;
namespace quanta {

/// quanta-report-qparams' `format`.
enum class ReportFormat { Text, Json };

#define GEN_PASS_DECL
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"

/// Lowers every quanta.fake_quant under `root` (see quanta-lower-fake-quant);
/// one without known qparams is an error.
LogicalResult lowerFakeQuantOps(Operation *root);

// The rewrites of the flow as patterns, for other compilers' pipelines. A
// pattern that does not apply says why (notifyMatchFailure); the passes
// turn what is left into errors or "stays float" remarks.

/// quanta.fake_quant with known qparams to ATen's fake-quant arithmetic
/// (quanta-lower-fake-quant).
void populateLowerFakeQuantPatterns(RewritePatternSet &patterns);

/// quant.qcast and quant.dcast of float32 tensors to ATen's quantize and
/// dequantize arithmetic on the storage integers (quanta-lower-quant-casts).
void populateLowerQuantCastsPatterns(RewritePatternSet &patterns);

/// quanta-quantize's rewrites: a quant.qcast whose float producer chain has
/// an integer form (a GEMM chain to quanta.qmatmul; elementwise ops,
/// pooling, data movement on the storage integers) becomes that form, and
/// a constant pad of a dequantized tensor moves onto its storage integers.
/// The pass adds the "stays float" remarks and erases what the rewrites
/// leave unused.
void populateQuantizePatterns(RewritePatternSet &patterns);

/// quanta-propagate-layout's rewrites: transposes moved down through
/// layout-agnostic ops (elementwise and pooling generics, constant pads,
/// storage cast pairs) and composed with the next. Run them without
/// folding: quant.dcast(quant.qcast(x)) folds to x.
void populatePropagateLayoutPatterns(RewritePatternSet &patterns);

/// `x` (a static tensor) transposed by `permutation` (result dim k is x's
/// dim permutation[k]) into a new empty tensor: the linalg.transpose those
/// rewrites move and compose.
Value createTranspose(OpBuilder &builder, Location loc, Value x,
                      ArrayRef<int64_t> permutation);

/// The float compute ops left in `func` (linalg ops with a float result,
/// fills aside) by op name, in order of first appearance: what
/// quanta-quantize's report-float-ops remarks and the quanta driver count.
llvm::MapVector<StringRef, int64_t>
countFloatComputeOps(FunctionOpInterface func);

} // namespace quanta
} // namespace mlir

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_H

//===- MatmulLayout.h - How a linalg matmul reads its weights ---*- C++ -*-===//
//
// The linalg matmuls that are one GEMM over the rows of their left-hand
// side, shared by quanta-quantize and the float lowering: both pack a
// constant right-hand side into the kernel's layout at compile time, so
// how the weights are laid out costs nothing at run time.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_SUPPORT_MATMULLAYOUT_H
#define QUANTA_SUPPORT_MATMULLAYOUT_H

#include "mlir/IR/Operation.h"

#include <optional>

namespace mlir::quanta {

/// How a matmul's right-hand side holds the K x N matrix of its GEMM.
struct MatmulWeightLayout {
  /// [N, K] (a fully connected layer's [out, in]: PyTorch's Linear, ONNX's
  /// Gemm with transB) instead of [K, N].
  bool transposed;
  /// The dimension of the weights that holds N, the output channels.
  int64_t channelDim;
};

/// The weight layout of a linalg.matmul or linalg.batch_matmul that is one
/// GEMM of its left-hand side's rows by its right-hand side: the left-hand
/// side and the result on the default maps; the right-hand side [K, N] or
/// [N, K], for a batch_matmul either broadcast over the batch or with a
/// batch of 1. None for anything else (a transposed or broadcast left-hand
/// side, weights that differ per batch).
std::optional<MatmulWeightLayout> getMatmulWeightLayout(Operation *op);

} // namespace mlir::quanta

#endif // QUANTA_SUPPORT_MATMULLAYOUT_H

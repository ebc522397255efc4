//===- OpRoles.h - How PyTorch would quantize a linalg op -------*- C++ -*-===//
//
// Classifies linalg-on-tensors ops into the roles PyTorch's quantization
// flow gives their torch counterparts (weighted ops, binary ops, ops that
// share their input's qparams, fixed-qparams activations). Observer
// insertion uses it today; integer conversion will reuse it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_OPROLES_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_OPROLES_H

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Tensor/IR/Tensor.h"

#include "mlir/IR/Operation.h"
#include "mlir/IR/Value.h"

#include <optional>

namespace mlir::quanta {

enum class OpRole {
  /// Not quantized by PyTorch's default backend configs: stays float.
  Float,
  /// matmul, batch_matmul, convolutions: activation x weight.
  Weighted,
  /// Elementwise add and mul of two activations.
  Binary,
  /// Shape-only and range-preserving ops (reshape, transpose, pad, pooling,
  /// standalone relu/clamp, concat): the output shares the input's qparams.
  SharedQParams,
  /// sigmoid, hardsigmoid: output in [0, 1].
  FixedQParamsZeroToOne,
  /// tanh: output in [-1, 1].
  FixedQParamsMinusOneToOne,
  /// hardswish, leaky relu: one activation in, an observer of its own out.
  Unary,
  /// A lookup of rows of a constant table by integer ids (nn.Embedding):
  /// its table is a weight (matchEmbeddingLookup), nothing else is
  /// observed.
  Embedding,
};

/// Elementwise computations recognized in named ops and linalg.generic
/// bodies (e.g. relu as tosa-to-linalg or torch-mlir spell it).
enum class ElementwiseKind {
  None,
  Copy,
  Add,
  Mul,
  Relu,
  Clamp,
  Sigmoid,
  Tanh,
  HardSigmoid,
  HardSwish,
  LeakyRelu
};

/// "add", "relu", ...: names linalg.generic ops by what they compute.
StringRef stringifyElementwiseKind(ElementwiseKind kind);

struct OpClassification {
  OpRole role = OpRole::Float;
  ElementwiseKind elementwise = ElementwiseKind::None;
  /// For Weighted ops: the weight operand and its output-channel dimension
  /// (the axis per-channel weight observers use), if it has a single one.
  std::optional<unsigned> weightOperand;
  std::optional<int64_t> weightChannelAxis;
  /// The float operands that carry activations.
  SmallVector<unsigned> activationOperands;
};

OpClassification classifyOp(Operation *op);

/// The tensor.extract of an embedding lookup: `op` is an all-parallel
/// linalg.generic of one integer input (the ids) whose body yields an
/// element of a rank-2 f32 table defined outside it, at the row its id
/// gives and the column of the output's last dimension (what the ONNX
/// importer makes of Gather on axis 0). Null otherwise.
tensor::ExtractOp matchEmbeddingLookup(Operation *op);

/// The division by the window size that makes the sum pooling `op`
/// (linalg.pooling_nhwc_sum / pooling_nchw_sum) an average pooling: its
/// single user, an elementwise linalg.generic computing `x / size` or
/// `x * (1 / size)`, as tosa-to-linalg lowers avg_pool2d without padding.
/// Null otherwise (padded average pools divide by a count per position).
Operation *getAveragePoolDivision(Operation *op);

/// Whether `value` is computed from constants only (an arith.constant, or
/// shape-only ops over such values): a weight, not an activation.
bool isConstantDerived(Value value);

/// Whether `pad` is the padding of the convolutions or pools that read it
/// (constant, read by nothing else): how tosa-to-linalg and the ONNX
/// importer express a padded window. It is observed as its source.
bool isWindowPadding(tensor::PadOp pad);

/// The observer whose qparams a #quanta.reuse_input observer shares: the
/// nearest observer up the chain of shape-only ops (and average pools), or
/// null. PyTorch's prepare() makes the two one observer instance, which
/// calibration therefore also feeds the reusing op's output.
ObserveOp findReusedObserver(ObserveOp op);

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_OPROLES_H

//===- QuantizeSupport.h - Shared pieces of quanta-quantize -----*- C++ -*-===//
//
// Private to the Transforms library: the matchers and storage casts that the
// GEMM rewrite (Quantize.cpp), the elementwise, lookup-table and
// data-movement rewrites (QuantizeElementwise.cpp) and the embedding tables
// (QuantizeEmbedding.cpp), the products of two activations
// (QuantizeProduct.cpp) and dynamic quantization (QuantizeDynamic.cpp)
// share.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_DIALECT_QUANTA_TRANSFORMS_QUANTIZESUPPORT_H
#define QUANTA_LIB_DIALECT_QUANTA_TRANSFORMS_QUANTIZESUPPORT_H

#include "quanta/Numerics/IntegerKernels.h"
#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Requantize.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

#include <optional>
#include <string>

namespace mlir::quanta::detail {

/// The single block of `generic` if it is an elementwise op whose output
/// map is the identity.
Block *getElementwiseBody(linalg::GenericOp generic);

/// The f32 splat or dense constant `value` is defined by.
DenseElementsAttr getFloatConstant(Value value);

/// The dimension a bias broadcasts along when it is one value for all.
constexpr int64_t kScalarBias = -2;

/// The constant read by `op`'s input `index` if it varies along at most one
/// output dimension, the broadcast of a bias, and that dimension
/// (kScalarBias for a single value). TOSA broadcasts through the map
/// ((d0, ..., dr) -> (dj)) or through size-1 dimensions of the constant,
/// linalg.broadcast through its dimensions.
std::optional<std::pair<DenseElementsAttr, int64_t>>
getBroadcast(linalg::LinalgOp op, unsigned index);

/// Matches `generic` as `in + broadcast(bias)`; returns the bias, the
/// dimension it broadcasts along and the other input's index.
std::optional<std::tuple<DenseElementsAttr, int64_t, unsigned>>
matchBiasAdd(linalg::GenericOp generic);

/// The bias a core's init holds: none for a fill with 0, the constant of a
/// broadcast (a linalg.broadcast, or a linalg.generic as TOSA lowers a
/// biased matmul or convolution) and the dimension it broadcasts along.
FailureOr<std::optional<std::pair<DenseElementsAttr, int64_t>>>
matchCoreInit(Value init);

/// Matches `generic` as a clamp of its only input by constants:
/// minimumf/maximumf/minnumf/maxnumf chains (TOSA's clamp and relu).
std::optional<numerics::FusedActivation> matchClamp(linalg::GenericOp generic);

/// The value before a quant.dcast of an 8-bit per-tensor quantized tensor.
FailureOr<std::pair<Value, quant::UniformQuantizedType>>
matchQuantizedActivation(Value value);

/// The 8-bit per-tensor type (of f32) `qcast` quantizes to, or null with
/// `whyNot` saying so.
quant::UniformQuantizedType getEightBitOutputType(quant::QuantizeCastOp qcast,
                                                  std::string &whyNot);

numerics::DType getDType(quant::QuantizedType type);
/// The scale (as float) and zero point of a per-tensor type.
numerics::ActivationQParams getQParams(quant::UniformQuantizedType type);

/// Narrows an op's output range (its dtype's, or a fused activation's) to
/// the storage range of `type` (u8<0:127> for reduce_range), which bounds
/// the result as much as the dtype does; fails if nothing is left.
LogicalResult narrowToStorageRange(numerics::QRange &range,
                                   quant::UniformQuantizedType type,
                                   std::string &whyNot);

/// `value` (quantized) reinterpreted as its storage integers, so that data
/// movement bufferizes (memrefs have no quantized element type).
Value toStorage(OpBuilder &builder, Location loc, Value value);

/// The storage integers `storage` reinterpreted as `element`.
Value fromStorage(OpBuilder &builder, Location loc, Value storage,
                  Type element);

/// Emits integer arithmetic inside a linalg.generic body.
class IntegerBody {
public:
  IntegerBody(OpBuilder &builder, Location loc) : b(builder), loc(loc) {}

  Value constant(int64_t value, unsigned width);
  /// An 8-bit storage value as i32.
  Value widen(Value storage, bool isSigned);
  Value add(Value x, Value y);
  Value sub(Value x, Value y);
  Value mul(Value x, Value y);
  /// roundingDivideByPOT(x, exponent) on i32.
  Value roundingDivideByPOT(Value x, int exponent);
  /// multiplyByQuantizedMultiplierSingleRound(x, {multiplier, shift}) +
  /// zeroPoint on an i32 `x`, as i64 (the int32 saturation is left to the
  /// 8-bit clamp that follows). `multiplier` and `shift` are i32 values,
  /// e.g. read per channel from constant tensors.
  Value requantize(Value x, Value multiplier, Value shift, int32_t zeroPoint);
  Value requantize(Value x, numerics::QuantizedMultiplier m, int32_t zeroPoint);
  /// `x` clamped to `range` and narrowed to 8 bits.
  Value clampToStorage(Value x, numerics::QRange range);

private:
  OpBuilder &b;
  Location loc;
};

/// A constant tensor.pad of a dequantized 8-bit tensor whose value is
/// exact in that type (0, the zero point; or -inf read only by max pools,
/// the storage minimum) and not quantized again becomes the same pad of
/// the storage integers,
/// dequantized: convolutions and pools then read a dequantized input, as
/// when an exporter pads inside the op (ONNX's pads) rather than in a
/// separately quantized Pad.
/// Fails, changing nothing, for any other pad.
LogicalResult movePadToStorage(RewriterBase &rewriter, tensor::PadOp pad);

/// Rewrites the float op feeding `qcast` (and the ops between them) into
/// integer computation on storage values, if it is one of:
///  - add or mul of two dequantized tensors (QNNPACK's add, the GEMM's
///    requantization for mul), with a following clamp fused;
///  - any elementwise op of one dequantized 8-bit tensor whose body can be
///    evaluated at compile time (clamp, relu, sigmoid, tanh, ...), as a
///    256-entry lookup table;
///  - max pooling and data movement (pad, reshapes, slices, concat) whose
///    inputs and output share the quantized type: they commute with
///    quantization and run on the storage integers;
///  - average pooling: i32 window sums requantized once.
/// Returns failure with `whyNot` set when the op is a candidate that cannot
/// be converted, and failure with `whyNot` empty when it is no candidate.
LogicalResult quantizeNonGemm(RewriterBase &rewriter,
                              quant::QuantizeCastOp qcast, std::string &whyNot);

/// Rewrites the product of two dequantized 8-bit per-tensor activations
/// feeding `qcast` (a linalg.batch_matmul or 2-D matmul from a zero
/// accumulator, as attention's Q.K^T and softmax(.).V) into one
/// quanta.qbatch_matmul. Fails with `whyNot` set for such a product that
/// cannot be, with `whyNot` empty when `qcast` reads no product whose
/// second operand is an activation.
LogicalResult quantizeActivationProduct(RewriterBase &rewriter,
                                        quant::QuantizeCastOp qcast,
                                        std::string &whyNot);

/// Rewrites the softmax (linalg.softmax, or the max / exp(x - max) / sum /
/// divide linalg it decomposes into) of a dequantized 8-bit per-tensor
/// activation feeding `qcast` into integer code computing
/// numerics::quantizedSoftmax (an exp table, exact i32 row sums, one float
/// factor per row). Fails with `whyNot` set for such a softmax that cannot
/// be (or, with `keepFloat`, is not to be) converted, `inner` then holding
/// its ops before the last (explained with it); with `whyNot` empty when
/// `qcast` reads no softmax.
LogicalResult quantizeSoftmax(RewriterBase &rewriter,
                              quant::QuantizeCastOp qcast, bool keepFloat,
                              std::string &whyNot,
                              SmallVectorImpl<Operation *> &inner);

/// The same for a layer norm over the last dimension as the ONNX importer
/// translates LayerNormalization (constant gamma and beta), into
/// numerics::quantizedLayerNorm (exact i32 sums of q - zi and its square,
/// the row's statistics from them, one float multiply-add per value).
LogicalResult quantizeLayerNorm(RewriterBase &rewriter,
                                quant::QuantizeCastOp qcast, bool keepFloat,
                                std::string &whyNot,
                                SmallVectorImpl<Operation *> &inner);

/// Rewrites the embedding lookup `op` (matchEmbeddingLookup) whose table is
/// a constant under a per-row float-qparams fake quantization (quint8 or
/// quint4x2, as PyTorch's float_qparams_weight_only_qconfig observes it)
/// to read a quantized table: q in one byte, or two per byte for 4 bits,
/// and fma(q, scale[row], bias[row]) as PyTorch's embedding_bag_byte and
/// embedding_bag_4bit compute it (numerics::EmbeddingRow). Fails with
/// `whyNot` set for such a lookup that cannot be, with `whyNot` empty for
/// any other op.
LogicalResult quantizeEmbedding(RewriterBase &rewriter, Operation *op,
                                std::string &whyNot);

} // namespace mlir::quanta::detail

#endif // QUANTA_LIB_DIALECT_QUANTA_TRANSFORMS_QUANTIZESUPPORT_H

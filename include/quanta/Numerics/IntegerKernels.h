//===- IntegerKernels.h - Reference integer quantized kernels ---*- C++ -*-===//
//
// Scalar reference implementations of the integer ops that replace float
// ops between quantize and dequantize: matmul, conv2d (grouped, so also
// depthwise), add and mul. They are the oracle for the vectorized kernels
// and the JIT tests, so they are written for clarity, and every value they
// produce is defined bit for bit by integer arithmetic.
//
// Matmul and convolution share one scheme. Activations are u8 or s8 with a
// per-tensor zero point za, weights s8 with per-tensor or per-output-channel
// scale and zero point zb[n], and
//
//   acc[m][n] = sum_k (a[m][k] - za) * (b[k][n] - zb[n]) + bias_q[n]
//             = sum_k a[m][k] * b[k][n]          (the integer GEMM)
//               - zb[n] * rowsum(a)[m]           (per activation row)
//               + columnOffsets[n]               (precomputed)
//   columnOffsets[n] = bias_q[n] - za * colsum(b)[n] + K * za * zb[n]
//
// with bias_q[n] = the float bias quantized with scale s_a * s_w[n] as
// PyTorch does, then out = requantize(acc, M[n], zo, range) with
// M[n] = s_a * s_w[n] / s_o (Requantize.h: single rounding, within 1 LSB of
// the real-valued result). prepareIntegerGemm checks that |acc| fits in
// int32 for every possible input, so a kernel may accumulate the expanded
// form in wrapping int32 arithmetic and still get the exact value.
//
// A convolution is the same GEMM over im2col patches: the filter is HWCF,
// i.e. the (KH * KW * C / groups) x F matrix B, and out-of-image taps read
// za, as PyTorch and TFLite pad (so padding contributes 0 to the centred
// sum, and rowsum includes za for those taps).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_INTEGERKERNELS_H
#define QUANTA_NUMERICS_INTEGERKERNELS_H

#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Requantize.h"
#include "quanta/Numerics/Status.h"

#include <array>
#include <cstdint>
#include <vector>

namespace mlir::quanta::numerics {

/// Per-tensor affine quantization of an activation (input or output):
/// real = scale * (q - zeroPoint).
struct ActivationQParams {
  float scale = 1.0f;
  int32_t zeroPoint = 0;
};

/// Quantization of s8 weights with N output channels: one scale and zero
/// point (per tensor) or N of each (per channel). PyTorch's per-channel
/// weights are symmetric (zero points 0); any zero point in [-128, 127] is
/// accepted.
struct WeightQParams {
  std::vector<float> scales;
  std::vector<int32_t> zeroPoints;
};

/// Column sums of a K x N row-major s8 matrix: the weight-side term of the
/// zero-point expansion (for a filter, of its HWCF matrix). K * 128 must fit
/// in int32, which prepareIntegerGemm's accumulator bound implies.
std::vector<int32_t> computeColumnSums(const int8_t *weights, int64_t k,
                                       int64_t n);

/// The bias of PyTorch's quantized linear/conv (quant_utils::QuantizeBias):
/// bias[i] to qint32 with scale double(inputScale) * double(weight scale)
/// and zero point 0 by quantize_val, i.e. nearbyint(bias * (1.0f /
/// float(scale))) in float (ties to even), clamped to int32 (NaN gives
/// INT32_MIN as on x86). `weightScales` has 1 or `n` entries.
std::vector<int32_t> quantizeBias(const float *bias, int64_t n,
                                  float inputScale,
                                  const std::vector<float> &weightScales);

/// The quantization of a matmul or convolution.
struct QuantizedGemmParams {
  /// QUInt8 or QInt8.
  DType inputType = DType::QUInt8;
  ActivationQParams input;
  WeightQParams weight;
  /// QUInt8 or QInt8.
  DType outputType = DType::QUInt8;
  ActivationQParams output;
  FusedActivation activation;
};

/// A quantized matmul or convolution folded into integer constants: what a
/// compiler computes once from the weights, bias and qparams.
struct IntegerGemm {
  int64_t k = 0;
  int64_t n = 0;
  DType inputType = DType::QUInt8;
  DType outputType = DType::QUInt8;
  /// B, K x N row-major.
  std::vector<int8_t> weights;
  int32_t inputZeroPoint = 0;
  /// zb, one per output channel.
  std::vector<int32_t> weightZeroPoints;
  /// bias_q[n] - za * colsum(b)[n] + K * za * zb[n].
  std::vector<int32_t> columnOffsets;
  /// s_a * s_w[n] / s_o, one per output channel.
  std::vector<QuantizedMultiplier> multipliers;
  int32_t outputZeroPoint = 0;
  /// The output dtype's range with the fused activation applied.
  QRange outputRange{0, 0};
};

/// Folds a matmul's or convolution's constants. `weights` is K x N
/// row-major (a PyTorch linear weight transposed; a conv filter in HWCF
/// order, K = KH * KW * C / groups, N = F). `bias` has N entries or is null.
/// Errors for unsupported dtypes, scales that are not finite and positive,
/// zero points outside their dtype, weight qparams of a size other than 1 or
/// N, requantization multipliers outside quantizeMultiplier's range, and
/// when K and the bias allow an accumulator outside int32.
StatusOr<IntegerGemm> prepareIntegerGemm(const QuantizedGemmParams &params,
                                         const int8_t *weights, int64_t k,
                                         int64_t n, const float *bias);

/// out (M x N) = the quantized matmul of `a` (M x K, row-major). `In` and
/// `Out` are uint8_t or int8_t and must match the gemm's dtypes.
template <typename In, typename Out>
Status quantizedMatmul(const IntegerGemm &gemm, const In *a, int64_t m,
                       Out *out);

/// The geometry of a 2-D convolution on an NHWC input with an HWCF filter
/// ([KH][KW][C / groups][F]). Depthwise convolution is groups == channels
/// (F = channels * depth multiplier).
struct Conv2dShape {
  int64_t batch = 1;
  int64_t height = 1;
  int64_t width = 1;
  int64_t channels = 1;
  int64_t kernelHeight = 1;
  int64_t kernelWidth = 1;
  int64_t filters = 1;
  int64_t strideHeight = 1;
  int64_t strideWidth = 1;
  int64_t padTop = 0;
  int64_t padBottom = 0;
  int64_t padLeft = 0;
  int64_t padRight = 0;
  int64_t dilationHeight = 1;
  int64_t dilationWidth = 1;
  int64_t groups = 1;

  int64_t outputHeight() const;
  int64_t outputWidth() const;
  /// K of the GEMM: KH * KW * channels / groups.
  int64_t patchSize() const;
};

/// output (NHWC, batch x outputHeight x outputWidth x filters) = the
/// quantized convolution of `input` (NHWC). `gemm` must have been prepared
/// with K = shape.patchSize() and N = shape.filters. Errors for an invalid
/// shape (non-positive sizes, negative padding, channels or filters not
/// divisible by groups, an empty output) or a gemm of other sizes or types.
template <typename In, typename Out>
Status quantizedConv2d(const IntegerGemm &gemm, const Conv2dShape &shape,
                       const In *input, Out *output);

/// Elementwise quantized add, QNNPACK's fixed-point scheme (which PyTorch's
/// qnnpack engine runs for quantized::add): both inputs rescaled to a common
/// shift by multipliers of at most 22 bits,
///   out = clamp(zo + roundingDivideByPOT(ma * (a - za) + mb * (b - zb), s))
/// with ma = lrintf((s_a / s_o) * 2^s) (float, ties to even), s =
/// min(21 - exponent(max(s_a / s_o, s_b / s_o)), 31). Chosen over TFLite's
/// (20-bit left shift, then each rescaled input and the sum rounded
/// separately) because it rounds once, needs only 32-bit products and is
/// bit-exact with PyTorch's qnnpack add. Before the
/// final rounding its error is below 2^-5 (multiplier rounding 255 * 2^-s
/// with s >= 14, float ratios 2 * 255 * 2^8 * 2^-24), so it is within 1 LSB
/// of the real-valued result.
struct IntegerAdd {
  DType type = DType::QUInt8;
  int32_t aZeroPoint = 0;
  int32_t bZeroPoint = 0;
  int32_t aMultiplier = 0;
  int32_t bMultiplier = 0;
  int shift = 0;
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};

  /// `a` and `b` must be in the dtype's range.
  int32_t apply(int32_t a, int32_t b) const;
};

/// Errors for a dtype other than QUInt8/QInt8, invalid scales or zero
/// points, and an input-to-output scale ratio of 2^8 or more (the products
/// would overflow int32; QNNPACK rejects those too). QNNPACK also rejects
/// ratios below 2^-14 and needs the larger ratio to be at least 2^-10 (its
/// shift must stay below 32); here any positive ratio works, with the shift
/// capped at 31.
StatusOr<IntegerAdd> prepareIntegerAdd(DType type, ActivationQParams a,
                                       ActivationQParams b,
                                       ActivationQParams output,
                                       FusedActivation activation);

/// Elementwise quantized mul: the exact product (a - za) * (b - zb)
/// requantized with M = s_a * s_b / s_o, as the GEMM's accumulators are.
struct IntegerMul {
  DType type = DType::QUInt8;
  int32_t aZeroPoint = 0;
  int32_t bZeroPoint = 0;
  QuantizedMultiplier multiplier{1 << 30, 1};
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};

  int32_t apply(int32_t a, int32_t b) const;
};

/// Errors as prepareIntegerAdd's (except for the ratios), and for an M
/// outside quantizeMultiplier's range.
StatusOr<IntegerMul> prepareIntegerMul(DType type, ActivationQParams a,
                                       ActivationQParams b,
                                       ActivationQParams output,
                                       FusedActivation activation);

/// The quantized product of two activations (attention's Q.K^T and P.V):
///   out[m][n] = requantize(sum_k (a[m][k] - za) * (b[k][n] - zb))
/// with M = s_a * s_b / s_o, the GEMM's integer semantics (exact i32
/// accumulators, one rounding) with both operands known only at run time.
/// Each operand and the output is u8 or s8 on its own.
struct IntegerProduct {
  int64_t k = 0;
  DType aType = DType::QUInt8;
  DType bType = DType::QUInt8;
  DType outputType = DType::QUInt8;
  int32_t aZeroPoint = 0;
  int32_t bZeroPoint = 0;
  QuantizedMultiplier multiplier{1 << 30, 1};
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};
};

/// Errors for dtypes other than QUInt8/QInt8, invalid scales or zero
/// points, K < 1, a K whose accumulator can leave int32
/// (K * max|a - za| * max|b - zb| > 2^31 - 1) and an M outside
/// quantizeMultiplier's range.
StatusOr<IntegerProduct> prepareIntegerProduct(DType aType, ActivationQParams a,
                                               DType bType, ActivationQParams b,
                                               DType outputType,
                                               ActivationQParams output,
                                               int64_t k);

/// out (M x N) = the quantized product of `a` (M x K) and `b` (K x N), both
/// row-major. `A`, `B` and `Out` are uint8_t or int8_t and must match the
/// product's dtypes.
template <typename A, typename B, typename Out>
Status quantizedProduct(const IntegerProduct &product, const A *a, const B *b,
                        int64_t m, int64_t n, Out *out);

/// Quantized average pooling over windows of `windowSize` values: the
/// exact sum of (q - zi) over a window requantized with
/// M = s_i / (s_o * windowSize), as the GEMM's accumulators are. Padding
/// that holds zi counts in the window, as with PyTorch's
/// count_include_pad=True (and tosa-to-linalg's average of a padded
/// input).
struct IntegerAveragePool {
  DType type = DType::QUInt8;
  int32_t inputZeroPoint = 0;
  QuantizedMultiplier multiplier{1 << 30, 1};
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};

  /// `centredSum` is the sum of (q - inputZeroPoint) over one window.
  int32_t apply(int32_t centredSum) const;
};

/// Errors for a dtype other than QUInt8/QInt8, invalid scales or zero
/// points, a window size outside [1, 2^23] (whose sums of 8-bit values
/// stay within i32), and an M outside quantizeMultiplier's range.
StatusOr<IntegerAveragePool> prepareIntegerAveragePool(DType type,
                                                       ActivationQParams input,
                                                       ActivationQParams output,
                                                       int64_t windowSize);

/// Softmax along rows of 8-bit quantized values, on integers: TFLite's
/// lookup-table softmax with exact sums. The input's zero point cancels
/// (softmax(x) = softmax(x - max x)), so with d = max(row) - q in
/// [0, 255], expTable[d] = round(exp(-s_in * d) * 2^fractionBits) (the
/// row's largest value weighs exactly 2^fractionBits), a row's sum of
/// table values is exact in int32, and each output is
///   min(max(roundeven(float(expTable[d]) * rowFactor(sum)) + zo, lo), hi)
/// in float32, rowFactor(sum) = 1 / (float(sum) * s_out): one division per
/// row, no exp at run time. Within one output step of quantizing the
/// float softmax of the dequantized row (the table's rounding is at most
/// 2^-(fractionBits+1) of the row's largest term).
struct IntegerSoftmax {
  DType inputType = DType::QUInt8;
  DType outputType = DType::QUInt8;
  /// The largest such that rowLength * 2^fractionBits fits in int32, at
  /// most 24 (so every table value is exact in float32).
  int fractionBits = 0;
  std::array<int32_t, 256> expTable{};
  float outputScale = 1.0f;
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};

  float rowFactor(int32_t expSum) const;
  int32_t apply(int32_t expValue, float rowFactor) const;
};

/// Errors for dtypes other than QUInt8/QInt8, invalid scales or zero
/// points, a row length outside [1, 2^19] (whose sums would leave fewer
/// than 12 fraction bits), and an output scale so small that a row's
/// factor is not a finite float.
StatusOr<IntegerSoftmax> prepareIntegerSoftmax(DType inputType,
                                               ActivationQParams input,
                                               DType outputType,
                                               ActivationQParams output,
                                               int64_t rowLength);

/// The softmax of each of `rows` contiguous rows of `rowLength` values
/// (the length prepareIntegerSoftmax was given). `In` and `Out` are uint8_t
/// or int8_t and must match the op's dtypes.
template <typename In, typename Out>
Status quantizedSoftmax(const IntegerSoftmax &softmax, const In *input,
                        int64_t rows, int64_t rowLength, Out *output);

/// Layer normalization of rows of 8-bit quantized values with integer
/// statistics: with c = q - zi, a row's sum and sum of squares are exact in
/// int32 and its variance exact until one rounding, N * sum(c^2) -
/// sum(c)^2 in int64 (no cancellation, no order-dependent float sums), and
/// each output is, in float32 operations in this order,
///   mean = float(sum) / float(N)
///   variance = float(N * sumOfSquares - sum^2) / float(N * N)
///   factor = s_i / sqrt(variance * (s_i * s_i) + epsilon)
///   y = ((float(c) - mean) * factor) * gamma + beta
///   q = min(max(roundeven(y * (1 / s_o)) + zo, lo), hi)
/// which is the float layer norm of the dequantized row (mean and variance
/// of c * s_i) up to float rounding: within one output step of quantizing
/// it.
struct IntegerLayerNorm {
  DType inputType = DType::QUInt8;
  DType outputType = DType::QUInt8;
  int32_t inputZeroPoint = 0;
  float inputScale = 1.0f;
  float epsilon = 0.0f;
  int64_t rowLength = 1;
  float outputInverseScale = 1.0f;
  int32_t outputZeroPoint = 0;
  QRange outputRange{0, 0};

  /// A row's mean of c and the factor taking c - mean to normalized units.
  struct Row {
    float mean;
    float factor;
  };
  Row row(int32_t sum, int32_t sumOfSquares) const;
  int32_t apply(int32_t centred, Row row, float gamma, float beta) const;
};

/// Errors for dtypes other than QUInt8/QInt8, invalid scales or zero
/// points, a negative or non-finite epsilon, and a row length outside
/// [1, 2^16] (whose sums of squares of 8-bit values stay within int32).
StatusOr<IntegerLayerNorm>
prepareIntegerLayerNorm(DType inputType, ActivationQParams input,
                        DType outputType, ActivationQParams output,
                        float epsilon, int64_t rowLength);

/// The layer norm of each of `rows` contiguous rows of the op's row length,
/// `gamma` and `beta` one value per column. `In` and `Out` are uint8_t or
/// int8_t and must match the op's dtypes.
template <typename In, typename Out>
Status quantizedLayerNorm(const IntegerLayerNorm &norm, const In *input,
                          int64_t rows, const float *gamma, const float *beta,
                          Out *output);

/// out[i] = op.apply(a[i], b[i]) for IntegerAdd and IntegerMul. `T` is
/// uint8_t or int8_t and must match the op's dtype.
template <typename Op, typename T>
Status quantizedElementwise(const Op &op, const T *a, const T *b, T *out,
                            int64_t size);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_INTEGERKERNELS_H

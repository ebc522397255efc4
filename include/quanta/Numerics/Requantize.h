//===- Requantize.h - Fixed-point requantization ----------------*- C++ -*-===//
//
// The integer arithmetic that turns an int32 accumulator into an 8-bit
// quantized output: a real multiplier (s_in * s_w / s_out) encoded as a
// 32-bit fixed-point value and a shift, the rounding multiply, the output
// zero point and the saturating clamp (which also implements fused
// relu/relu6/clamp).
//
// Two multiply flavours are provided, both exact integer functions:
//
//  * multiplyByQuantizedMultiplier: TFLite/gemmlowp's, a rounding doubling
//    high multiply (ties up) followed by a rounding right shift (ties away
//    from zero). Kept so that TFLite models can be checked bit for bit.
//  * multiplyByQuantizedMultiplierSingleRound: one rounding of the exact
//    64-bit product, ties rounded up: (x * m + 2^(t-1)) >> t, t = 31 - shift.
//
// The integer kernels (IntegerKernels.h) use the single-rounding flavour:
// it is the correctly rounded value of x * M_q, so its only error is the
// encoding error of the multiplier, while the double rounding can be one
// more off (x = 5, M = 0.25: 5 * 0.25 = 1.25, but the high multiply rounds
// 2.5 to 3 and the shift rounds 1.5 to 2) and breaks ties by sign. On x86
// it is also the cheaper one: vpmuldq gives the exact 64-bit product,
// vpaddq adds the rounding constant, and a shift finishes (vpsrlq for
// t <= 32, vpsrad of the high half by t - 32 otherwise); m < 2^31, so there
// is no INT32_MIN * INT32_MIN case. XNNPACK's "rndnu" requantization is the
// same function.
//
// Error bound. quantizeMultiplier rounds the mantissa of M to 31 bits:
// m = round(f * 2^31) with f in [1/2, 1), so |M_q - M| <= 2^-31 * M. For an
// accumulator x with |x| <= 2^31 the single-round result is round(x * M_q)
// and |x * M_q - x * M| <= |x| * M * 2^-31 <= M. Two values less than 1
// apart round (to nearest, whatever the tie rule) to integers at most 1
// apart, and adding the zero point and clamping cannot widen the gap, so
// for M < 1 requantize() is within 1 LSB of clamp(zp + round(x * M))
// computed in exact arithmetic, for every int32 x. For M >= 1 the same holds
// whenever |x * M| < 2^31, which covers every output that does not saturate
// an 8-bit range. In practice |x * M| is at most a few hundred where the
// output is not saturated, so the results differ only when x * M lies within
// about 2^-22 of a half-integer (or on a tie, which the rules break
// differently).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_REQUANTIZE_H
#define QUANTA_NUMERICS_REQUANTIZE_H

#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Status.h"

#include <cstdint>
#include <limits>

namespace mlir::quanta::numerics {

/// A positive real multiplier M = multiplier * 2^(shift - 31) (TFLite's
/// convention: `shift` > 0 is a left shift). `multiplier` is in [2^30, 2^31)
/// and `shift` in [kMinShift, kMaxShift].
struct QuantizedMultiplier {
  static constexpr int kMinShift = -31;
  static constexpr int kMaxShift = 30;

  int32_t multiplier;
  int shift;

  /// The exact value represented.
  double toDouble() const;

  friend bool operator==(const QuantizedMultiplier &a,
                         const QuantizedMultiplier &b) {
    return a.multiplier == b.multiplier && a.shift == b.shift;
  }
};

/// TFLite's QuantizeMultiplier: frexp, mantissa rounded to Q31 (ties away
/// from zero), a mantissa that rounds up to 2^31 carried into the shift.
/// Errors for NaN, infinite, zero or negative multipliers and for
/// multipliers whose shift falls outside [kMinShift, kMaxShift], i.e. that
/// do not round into [2^-32, 2^30): below, TFLite uses a zero multiplier
/// (every output would be the zero point); above, the left shift would
/// overflow.
StatusOr<QuantizedMultiplier> quantizeMultiplier(double realMultiplier);

/// gemmlowp's SaturatingRoundingDoublingHighMul: round(a * b / 2^31), ties
/// towards +infinity (its nudge 1 - 2^30 and truncating division round
/// negative ties towards zero, like NEON's vqrdmulh); INT32_MIN * INT32_MIN
/// (the only overflow) saturates to INT32_MAX.
int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b);

/// gemmlowp's RoundingDivideByPOT: round(x / 2^exponent), ties away from
/// zero. `exponent` must be in [0, 31].
int32_t roundingDivideByPOT(int32_t x, int exponent);

/// TFLite's MultiplyByQuantizedMultiplier: roundingDivideByPOT(
/// saturatingRoundingDoublingHighMul(x * 2^left, m), right). Where TFLite
/// leaves x * 2^left undefined on overflow, this saturates it to int32; the
/// result then has a magnitude of at least 2^30 and saturates any 8-bit
/// output, as the exact product would.
int32_t multiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m);

/// round(x * M_q) with a single rounding, ties towards +infinity:
/// (x * m + 2^(t-1)) >> t with t = 31 - shift, in 64-bit arithmetic, then
/// saturated to int32 (reachable only for shift > 0).
int32_t multiplyByQuantizedMultiplierSingleRound(int32_t x,
                                                 QuantizedMultiplier m);

/// The requantization of the integer kernels: clamp(zp +
/// multiplyByQuantizedMultiplierSingleRound(acc, m), qmin, qmax), the sum
/// taken exactly. (A vector kernel's saturating int16 pack, saturating add
/// of the zero point and 8-bit pack give the same result for 8-bit ranges.)
/// Requires qmin <= qmax.
int32_t requantize(int32_t acc, QuantizedMultiplier m, int32_t outputZeroPoint,
                   int32_t qmin, int32_t qmax);

/// The full range of a quantized dtype (quint8 [0, 255], qint8 [-128, 127],
/// quint4x2 [0, 15], qint32).
QRange dtypeRange(DType dtype);

/// An activation fused into the output clamp, as a real interval
/// (an infinite bound is no bound).
struct FusedActivation {
  float lo = -std::numeric_limits<float>::infinity();
  float hi = std::numeric_limits<float>::infinity();

  static FusedActivation none() { return {}; }
  static FusedActivation relu() {
    return {0.0f, std::numeric_limits<float>::infinity()};
  }
  static FusedActivation relu6() { return {0.0f, 6.0f}; }
  static FusedActivation clamp(float lo, float hi) { return {lo, hi}; }
};

/// PyTorch's quantize_val (zp + nearbyint(x * (1.0f / scale)), the
/// addition in float32), clamped to [quantMin, quantMax] before the
/// conversion to an integer, so that infinities map to the range's ends.
/// `x` must not be NaN.
int64_t quantizeValue(float x, float scale, int64_t zeroPoint, int64_t quantMin,
                      int64_t quantMax);

/// The output range of a requantization with a fused activation:
/// [quantize(lo), quantize(hi)] intersected with the dtype's range, where
/// quantize is PyTorch's quantize_val (zp + nearbyint(x * (1.0f / scale)) in
/// float, so relu gives exactly the zero point). Errors for a NaN bound,
/// lo > hi, a scale that is not finite and positive, or a zero point
/// outside the dtype's range.
StatusOr<QRange> fusedActivationRange(DType dtype, float scale,
                                      int32_t zeroPoint,
                                      FusedActivation activation);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_REQUANTIZE_H

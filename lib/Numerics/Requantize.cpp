//===- Requantize.cpp - Fixed-point requantization ------------------------===//
//
// gemmlowp's fixedpoint.h (SaturatingRoundingDoublingHighMul,
// RoundingDivideByPOT) and TFLite's quantization_util.cc
// (QuantizeMultiplier) / common.h (MultiplyByQuantizedMultiplier).
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Requantize.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <string>

namespace mlir::quanta::numerics {

static std::string formatReal(double value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.17g", value);
  return buffer;
}

static int32_t saturateToInt32(int64_t value) {
  return static_cast<int32_t>(
      std::clamp<int64_t>(value, std::numeric_limits<int32_t>::min(),
                          std::numeric_limits<int32_t>::max()));
}

double QuantizedMultiplier::toDouble() const {
  return std::ldexp(static_cast<double>(multiplier), shift - 31);
}

StatusOr<QuantizedMultiplier> quantizeMultiplier(double realMultiplier) {
  if (!std::isfinite(realMultiplier) || realMultiplier <= 0.0)
    return Status::error("requantization multiplier must be finite and "
                         "positive, got " +
                         formatReal(realMultiplier));
  int exponent;
  double mantissa = std::frexp(realMultiplier, &exponent);
  // TfLiteRound is std::round: ties away from zero.
  int64_t fixed = std::llround(std::ldexp(mantissa, 31));
  if (fixed == (int64_t(1) << 31)) {
    fixed /= 2;
    ++exponent;
  }
  if (exponent < QuantizedMultiplier::kMinShift ||
      exponent > QuantizedMultiplier::kMaxShift)
    return Status::error(
        "requantization multiplier " + formatReal(realMultiplier) +
        " is outside the representable range [2^-32, 2^30): its shift " +
        std::to_string(exponent) + " is not in [" +
        std::to_string(QuantizedMultiplier::kMinShift) + ", " +
        std::to_string(QuantizedMultiplier::kMaxShift) + "]");
  return QuantizedMultiplier{static_cast<int32_t>(fixed), exponent};
}

int32_t saturatingRoundingDoublingHighMul(int32_t a, int32_t b) {
  if (a == b && a == std::numeric_limits<int32_t>::min())
    return std::numeric_limits<int32_t>::max();
  int64_t product = static_cast<int64_t>(a) * b;
  // With the truncating division, the nudge rounds positive ties up and
  // negative ties towards zero: ties go towards +infinity.
  int64_t nudge = product >= 0 ? (1 << 30) : (1 - (1 << 30));
  return static_cast<int32_t>((product + nudge) / (int64_t(1) << 31));
}

int32_t roundingDivideByPOT(int32_t x, int exponent) {
  assert(exponent >= 0 && exponent <= 31 && "exponent out of range");
  const int32_t mask = static_cast<int32_t>((int64_t(1) << exponent) - 1);
  const int32_t remainder = x & mask;
  // Negative values need a strictly larger remainder to round up, so that
  // ties go away from zero on both sides.
  const int32_t threshold = (mask >> 1) + (x < 0 ? 1 : 0);
  return (x >> exponent) + (remainder > threshold ? 1 : 0);
}

int32_t multiplyByQuantizedMultiplier(int32_t x, QuantizedMultiplier m) {
  int leftShift = std::max(m.shift, 0);
  int rightShift = std::max(-m.shift, 0);
  int32_t shifted =
      saturateToInt32(static_cast<int64_t>(x) * (int64_t(1) << leftShift));
  return roundingDivideByPOT(
      saturatingRoundingDoublingHighMul(shifted, m.multiplier), rightShift);
}

int32_t multiplyByQuantizedMultiplierSingleRound(int32_t x,
                                                 QuantizedMultiplier m) {
  // t is in [1, 62] and |x * m| < 2^62, so the sum cannot overflow. The
  // arithmetic right shift rounds down, which with the added half rounds
  // ties up.
  const int totalShift = 31 - m.shift;
  const int64_t product = static_cast<int64_t>(x) * m.multiplier;
  return saturateToInt32((product + (int64_t(1) << (totalShift - 1))) >>
                         totalShift);
}

int32_t requantize(int32_t acc, QuantizedMultiplier m, int32_t outputZeroPoint,
                   int32_t qmin, int32_t qmax) {
  assert(qmin <= qmax && "empty output range");
  int64_t shifted =
      static_cast<int64_t>(multiplyByQuantizedMultiplierSingleRound(acc, m)) +
      outputZeroPoint;
  return static_cast<int32_t>(std::clamp<int64_t>(shifted, qmin, qmax));
}

int64_t quantizeValue(float x, float scale, int64_t zeroPoint, int64_t quantMin,
                      int64_t quantMax) {
  assert(!std::isnan(x) && "NaN has no quantized value");
  const float shifted =
      static_cast<float>(zeroPoint) + std::nearbyint(x * (1.0f / scale));
  return static_cast<int64_t>(std::clamp<double>(
      shifted, static_cast<double>(quantMin), static_cast<double>(quantMax)));
}

QRange dtypeRange(DType dtype) {
  UniformObserverOptions options;
  options.dtype = dtype;
  return computeQRange(options);
}

StatusOr<QRange> fusedActivationRange(DType dtype, float scale,
                                      int32_t zeroPoint,
                                      FusedActivation activation) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    return Status::error("output scale must be finite and positive, got " +
                         formatReal(scale));
  QRange range = dtypeRange(dtype);
  if (zeroPoint < range.quantMin || zeroPoint > range.quantMax)
    return Status::error("output zero point " + std::to_string(zeroPoint) +
                         " is outside the range of " +
                         std::string(toString(dtype)));
  if (std::isnan(activation.lo) || std::isnan(activation.hi) ||
      activation.lo > activation.hi)
    return Status::error("fused activation bounds [" +
                         formatReal(activation.lo) + ", " +
                         formatReal(activation.hi) + "] are not an interval");
  auto quantize = [&](float x) {
    return quantizeValue(x, scale, zeroPoint, range.quantMin, range.quantMax);
  };
  return QRange{quantize(activation.lo), quantize(activation.hi)};
}

} // namespace mlir::quanta::numerics

//===- RequantizeTest.cpp - Fixed-point requantization --------------------===//
//
// The integer primitives against independent exact references (128-bit
// integers), and requantize() against the real-valued result.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Requantize.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <random>
#include <tuple>
#include <vector>

using namespace mlir::quanta::numerics;

namespace {

constexpr int32_t kMin = std::numeric_limits<int32_t>::min();
constexpr int32_t kMax = std::numeric_limits<int32_t>::max();

using Int128 = __int128;

/// floor(a / 2^e) for e in [0, 126].
Int128 floorShift(Int128 a, int e) {
  Int128 divisor = Int128(1) << e;
  Int128 quotient = a / divisor;
  return (a % divisor != 0 && a < 0) ? quotient - 1 : quotient;
}

/// a / 2^e rounded to nearest, ties away from zero (RoundingDivideByPOT).
Int128 roundHalfAway(Int128 a, int e) {
  Int128 magnitude = floorShift((a < 0 ? -a : a) * 2 + (Int128(1) << e), e + 1);
  return a < 0 ? -magnitude : magnitude;
}

int32_t saturate(Int128 value) {
  return value < kMin   ? kMin
         : value > kMax ? kMax
                        : static_cast<int32_t>(value);
}

/// Accumulators worth trying: the ends of int32 and their neighbours, small
/// values, powers of two and their neighbours.
std::vector<int32_t> edgeValues() {
  std::vector<int32_t> values = {kMin, kMin + 1, kMax, kMax - 1, 0, 1, -1,
                                 2,    -2,       3,    -3,       5, -5};
  for (int e = 1; e < 31; ++e)
    for (int64_t v :
         {(int64_t(1) << e) - 1, int64_t(1) << e, (int64_t(1) << e) + 1})
      for (int64_t sign : {1, -1})
        values.push_back(static_cast<int32_t>(sign * v));
  return values;
}

/// Log-uniform multipliers in [2^lo, 2^hi).
double randomMultiplier(std::mt19937_64 &rng, double lo, double hi) {
  return std::exp2(std::uniform_real_distribution<double>(lo, hi)(rng));
}

QuantizedMultiplier quantized(double real) {
  StatusOr<QuantizedMultiplier> m = quantizeMultiplier(real);
  EXPECT_TRUE(m.ok()) << real;
  return *m;
}

//===----------------------------------------------------------------------===//
// quantizeMultiplier
//===----------------------------------------------------------------------===//

TEST(QuantizeMultiplier, ExactValues) {
  EXPECT_EQ(quantized(1.0), (QuantizedMultiplier{1 << 30, 1}));
  EXPECT_EQ(quantized(0.5), (QuantizedMultiplier{1 << 30, 0}));
  EXPECT_EQ(quantized(0.75), (QuantizedMultiplier{3 << 29, 0}));
  EXPECT_EQ(quantized(3.0), (QuantizedMultiplier{3 << 29, 2}));
  EXPECT_EQ(quantized(std::ldexp(1.0, -32)),
            (QuantizedMultiplier{1 << 30, -31}));
  EXPECT_EQ(quantized(0x1.fffffffcp+29), (QuantizedMultiplier{kMax, 30}));
}

TEST(QuantizeMultiplier, RoundsTiesAwayAndCarries) {
  // Mantissa 0.5 + 2^-32: exactly half a Q31 unit above 2^30, rounds up.
  EXPECT_EQ(quantized(0.5 + 0x1p-32), (QuantizedMultiplier{(1 << 30) + 1, 0}));
  // A mantissa within half a unit of 1 rounds to 2^31 and carries.
  EXPECT_EQ(quantized(1.0 - 0x1p-33), (QuantizedMultiplier{1 << 30, 1}));
  EXPECT_EQ(quantized(std::nextafter(1.0, 0.0)),
            (QuantizedMultiplier{1 << 30, 1}));
  // ... which also brings values just below 2^-32 back into range.
  EXPECT_EQ(quantized(std::nextafter(0x1p-32, 0.0)),
            (QuantizedMultiplier{1 << 30, -31}));
  EXPECT_EQ(quantized(1.0 - 0x1p-31), (QuantizedMultiplier{kMax, 0}));
}

TEST(QuantizeMultiplier, RejectsUnrepresentable) {
  for (double real :
       {0.0, -0.0, -1.0, std::nan(""), HUGE_VAL, -HUGE_VAL, 0x1p-33, 0x1.8p-33,
        0x1p-1074, 0x1p30, std::nextafter(0x1p30, 0.0), 1e300}) {
    StatusOr<QuantizedMultiplier> m = quantizeMultiplier(real);
    ASSERT_FALSE(m.ok()) << real;
    EXPECT_FALSE(m.getStatus().getMessage().empty());
  }
}

TEST(QuantizeMultiplier, RelativeErrorBelow2Pow31) {
  std::mt19937_64 rng(1);
  for (int i = 0; i < 200000; ++i) {
    double real = randomMultiplier(rng, -32, 30);
    QuantizedMultiplier m = quantized(real);
    ASSERT_GE(m.multiplier, 1 << 30);
    ASSERT_GE(m.shift, QuantizedMultiplier::kMinShift);
    ASSERT_LE(m.shift, QuantizedMultiplier::kMaxShift);
    ASSERT_LE(std::fabs(m.toDouble() - real), 0x1p-31 * real) << real;
    // The nearest Q31 value: its neighbours are further away.
    double unit = std::ldexp(1.0, m.shift - 31);
    ASSERT_LE(std::fabs(m.toDouble() - real), unit / 2) << real;
  }
}

//===----------------------------------------------------------------------===//
// gemmlowp primitives
//===----------------------------------------------------------------------===//

/// a * b / 2^31 rounded to nearest, ties up (gemmlowp's nudge and
/// truncating division round negative ties towards zero, as NEON's
/// vqrdmulh does).
int32_t referenceHighMul(int32_t a, int32_t b) {
  return saturate(floorShift(Int128(a) * b + (Int128(1) << 30), 31));
}

TEST(SaturatingRoundingDoublingHighMul, EdgePairs) {
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMin), kMax);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(kMin, kMax), -kMax);
  EXPECT_EQ(saturatingRoundingDoublingHighMul(1, 1 << 30), 1);   // 0.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-1, 1 << 30), 0);  // -0.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(-3, 1 << 30), -1); // -1.5
  EXPECT_EQ(saturatingRoundingDoublingHighMul(3, 1 << 29), 1);   // 0.75
  std::vector<int32_t> edges = edgeValues();
  for (int32_t a : edges)
    for (int32_t b : edges)
      ASSERT_EQ(saturatingRoundingDoublingHighMul(a, b), referenceHighMul(a, b))
          << a << " * " << b;
}

TEST(SaturatingRoundingDoublingHighMul, Random) {
  std::mt19937_64 rng(2);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> small(-70000, 70000);
  for (int i = 0; i < 1000000; ++i) {
    int32_t a = i % 2 ? any(rng) : small(rng);
    int32_t b = any(rng);
    ASSERT_EQ(saturatingRoundingDoublingHighMul(a, b), referenceHighMul(a, b))
        << a << " * " << b;
  }
}

TEST(RoundingDivideByPOT, Exhaustive) {
  EXPECT_EQ(roundingDivideByPOT(5, 1), 3);   // 2.5
  EXPECT_EQ(roundingDivideByPOT(-5, 1), -3); // -2.5
  EXPECT_EQ(roundingDivideByPOT(-3, 2), -1); // -0.75
  EXPECT_EQ(roundingDivideByPOT(kMin, 31), -1);
  EXPECT_EQ(roundingDivideByPOT(kMax, 31), 1);
  for (int e = 0; e <= 31; ++e) {
    for (int32_t x = -70000; x <= 70000; ++x)
      ASSERT_EQ(roundingDivideByPOT(x, e), roundHalfAway(x, e))
          << x << " " << e;
    for (int32_t x : edgeValues())
      ASSERT_EQ(roundingDivideByPOT(x, e), roundHalfAway(x, e))
          << x << " " << e;
  }
}

//===----------------------------------------------------------------------===//
// Multiplication by a quantized multiplier
//===----------------------------------------------------------------------===//

/// round(x * M_q), ties up, saturated: the single-round reference.
int32_t referenceSingleRound(int32_t x, QuantizedMultiplier m) {
  int totalShift = 31 - m.shift;
  return saturate(
      floorShift(Int128(x) * m.multiplier * 2 + (Int128(1) << totalShift),
                 totalShift + 1));
}

TEST(MultiplyByQuantizedMultiplier, DoubleRoundingDiffersFromSingle) {
  // 5 * 0.25 = 1.25: gemmlowp rounds 2.5 to 3, then 1.5 to 2.
  QuantizedMultiplier quarter = quantized(0.25);
  EXPECT_EQ(multiplyByQuantizedMultiplier(5, quarter), 2);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(5, quarter), 1);
  // Ties: single rounding goes up; gemmlowp's shift goes away from zero.
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(-6, quarter), -1);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-6, quarter), -2);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(6, quarter), 2);
  EXPECT_EQ(multiplyByQuantizedMultiplier(6, quarter), 2);
  // Without a right shift only the high multiply rounds, ties up too.
  QuantizedMultiplier half = quantized(0.5);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(-3, half), -1);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-3, half), -1);
}

TEST(MultiplyByQuantizedMultiplier, LeftShifts) {
  QuantizedMultiplier three = quantized(3.0); // shift 2
  EXPECT_EQ(multiplyByQuantizedMultiplier(1000, three), 3000);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-7, three), -21);
  // x * 2^2 overflows: saturated to int32 instead of undefined, so the
  // result still has a magnitude of at least 2^30.
  EXPECT_EQ(multiplyByQuantizedMultiplier(1 << 30, three),
            saturatingRoundingDoublingHighMul(kMax, three.multiplier));
  EXPECT_EQ(multiplyByQuantizedMultiplier(kMin, three),
            saturatingRoundingDoublingHighMul(kMin, three.multiplier));
  EXPECT_GE(multiplyByQuantizedMultiplier(1 << 30, three), 1 << 30);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(1 << 30, three), kMax);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(kMin, three), kMin);
  QuantizedMultiplier largest = quantized(0x1.fffffffcp+29); // shift 30
  // M = 2^30 - 1/2: a tie for x = 1, rounded up by both.
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(1, largest), 1 << 30);
  EXPECT_EQ(multiplyByQuantizedMultiplier(1, largest), 1 << 30);
  EXPECT_EQ(multiplyByQuantizedMultiplierSingleRound(-2, largest), kMin + 1);
  EXPECT_EQ(multiplyByQuantizedMultiplier(-2, largest), kMin + 1);
}

TEST(MultiplyByQuantizedMultiplier, BothWithinOneOfExactProduct) {
  // Single rounding is the correctly rounded product; gemmlowp's double
  // rounding is within 1 of it.
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int> shifts(QuantizedMultiplier::kMinShift,
                                            QuantizedMultiplier::kMaxShift);
  std::uniform_int_distribution<int32_t> mantissas(1 << 30, kMax);
  std::vector<int32_t> edges = edgeValues();
  int64_t compared = 0;
  int64_t doubleRoundingDiffers = 0;
  for (int i = 0; i < 1000000; ++i) {
    QuantizedMultiplier m{mantissas(rng), shifts(rng)};
    int32_t x = i % 4 == 0 ? edges[i / 4 % edges.size()]
                           : any(rng) >> (i % 31); // many magnitudes
    int32_t single = multiplyByQuantizedMultiplierSingleRound(x, m);
    ASSERT_EQ(single, referenceSingleRound(x, m))
        << x << " * " << m.multiplier << " * 2^" << m.shift;
    int32_t gemmlowp = multiplyByQuantizedMultiplier(x, m);
    // Where x * 2^left overflows, gemmlowp's result is saturated instead.
    Int128 shifted = Int128(x) * (Int128(1) << std::max(m.shift, 0));
    Int128 exactTimes2 = floorShift(Int128(x) * m.multiplier, 30 - m.shift);
    if (shifted < kMin || shifted > kMax || exactTimes2 <= 2 * Int128(kMin) ||
        exactTimes2 >= 2 * Int128(kMax))
      continue;
    Int128 gap = 2 * Int128(gemmlowp) - exactTimes2;
    ASSERT_LE(gap < 0 ? -gap : gap, 2 + 1)
        << x << " * " << m.multiplier << " * 2^" << m.shift;
    ++compared;
    doubleRoundingDiffers += gemmlowp != single;
  }
  std::printf("[ stats    ] gemmlowp vs single rounding: %lld of %lld differ\n",
              static_cast<long long>(doubleRoundingDiffers),
              static_cast<long long>(compared));
  // Double rounding (and negative ties) make them differ on a few percent.
  EXPECT_GT(doubleRoundingDiffers, 0);
  EXPECT_LT(doubleRoundingDiffers, compared / 10);
}

//===----------------------------------------------------------------------===//
// requantize
//===----------------------------------------------------------------------===//

/// clamp(zp + round(acc * real)) in long double, ties to even: the
/// real-valued requantization (acc * real is exact to 2^-64 relative).
int32_t realRequantize(int32_t acc, double real, int32_t zp, int32_t qmin,
                       int32_t qmax) {
  long double value = std::nearbyint(static_cast<long double>(acc) * real) + zp;
  return static_cast<int32_t>(std::fmax(std::fmin(value, qmax), qmin));
}

struct Stats {
  int64_t total = 0;
  int64_t offByOne = 0;
};

/// requantize() equals the exact single-round result and is within 1 LSB of
/// the real-valued one.
void checkRequantize(int32_t acc, double real, QuantizedMultiplier m,
                     int32_t zp, int32_t qmin, int32_t qmax, Stats &stats) {
  int32_t result = requantize(acc, m, zp, qmin, qmax);
  int64_t exact = int64_t(referenceSingleRound(acc, m)) + zp;
  ASSERT_EQ(result, exact < qmin ? qmin : exact > qmax ? qmax : exact);
  int32_t expected = realRequantize(acc, real, zp, qmin, qmax);
  ASSERT_LE(std::abs(result - expected), 1)
      << "acc " << acc << " real " << real << " zp " << zp;
  ++stats.total;
  stats.offByOne += result != expected;
}

TEST(Requantize, RandomWithinOneLsbOfReal) {
  std::mt19937_64 rng(4);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  std::uniform_int_distribution<int32_t> zeroPoints(0, 255);
  Stats stats;
  for (int i = 0; i < 1000000; ++i) {
    double real = randomMultiplier(rng, -32, 0);
    // Accumulators whose result lands near the 8-bit range, and any.
    int32_t acc =
        i % 2 ? any(rng)
              : static_cast<int32_t>(std::fmax(
                    std::fmin(std::ldexp(any(rng), -23) / real, kMax), kMin));
    bool isSigned = i % 3 == 0;
    int32_t zp = zeroPoints(rng) - (isSigned ? 128 : 0);
    checkRequantize(acc, real, quantized(real), zp, isSigned ? -128 : 0,
                    isSigned ? 127 : 255, stats);
  }
  std::printf("[ stats    ] requantize vs real: %lld of %lld off by 1\n",
              static_cast<long long>(stats.offByOne),
              static_cast<long long>(stats.total));
  EXPECT_LT(stats.offByOne, stats.total / 100);
}

TEST(Requantize, MultipliersAboveOne) {
  // M >= 1: within 1 LSB while |acc * M| < 2^31.
  std::mt19937_64 rng(5);
  std::uniform_int_distribution<int32_t> any(kMin, kMax);
  Stats stats;
  for (int i = 0; i < 300000; ++i) {
    double real = randomMultiplier(rng, 0, 30);
    int32_t acc = static_cast<int32_t>(any(rng) / (real * 2));
    checkRequantize(acc, real, quantized(real), 3, -128, 127, stats);
  }
}

TEST(Requantize, ExhaustiveAccumulatorRange) {
  // Every accumulator of a 2^19-wide window, with multipliers of every
  // magnitude the integer kernels meet.
  for (double real : {1.0, 0.5, 0.75, 0.999999999, 0.0123456789, 0x1.5p-11,
                      1.0 / 3.0, 3e-7}) {
    QuantizedMultiplier m = quantized(real);
    Stats stats;
    for (int32_t acc = -(1 << 18); acc <= (1 << 18); ++acc)
      checkRequantize(acc, real, m, 7, -(1 << 30), 1 << 30, stats);
    if (real == 1.0) {
      EXPECT_EQ(stats.offByOne, 0);
    }
  }
}

TEST(Requantize, EdgeCases) {
  QuantizedMultiplier one = quantized(1.0);
  for (int32_t acc : edgeValues()) {
    int64_t expected = std::min<int64_t>(
        std::max<int64_t>(int64_t(acc) + 5, -1000000), 1000000);
    EXPECT_EQ(requantize(acc, one, 5, -1000000, 1000000), expected) << acc;
  }
  // Saturation at both ends, both dtypes.
  QuantizedMultiplier m = quantized(0.9);
  EXPECT_EQ(requantize(kMax, m, 128, 0, 255), 255);
  EXPECT_EQ(requantize(kMin, m, 128, 0, 255), 0);
  EXPECT_EQ(requantize(kMax, m, -128, -128, 127), 127);
  EXPECT_EQ(requantize(kMin, m, 127, -128, 127), -128);
  // The smallest multiplier: INT32_MIN * 2^-32 = -0.5 rounds up to 0.
  QuantizedMultiplier tiny = quantized(0x1p-32);
  EXPECT_EQ(tiny.shift, QuantizedMultiplier::kMinShift);
  EXPECT_EQ(requantize(kMin, tiny, 9, 0, 255), 9);
  EXPECT_EQ(requantize(kMax, tiny, 9, 0, 255), 9);
  // Ties round up: -2.5 -> -2, 2.5 -> 3.
  QuantizedMultiplier half = quantized(0.5);
  EXPECT_EQ(requantize(-5, half, 0, -128, 127), -2);
  EXPECT_EQ(requantize(5, half, 0, -128, 127), 3);
  // A fused clamp narrower than the dtype.
  EXPECT_EQ(requantize(-1000, one, 20, 20, 80), 20);
  EXPECT_EQ(requantize(1000, one, 20, 20, 80), 80);
}

//===----------------------------------------------------------------------===//
// Fused activation ranges
//===----------------------------------------------------------------------===//

QRange range(DType dtype, float scale, int32_t zp, FusedActivation act) {
  StatusOr<QRange> result = fusedActivationRange(dtype, scale, zp, act);
  EXPECT_TRUE(result.ok()) << (result.ok() ? ""
                                           : result.getStatus().getMessage());
  return result.ok() ? *result : QRange{0, 0};
}

TEST(FusedActivationRange, Activations) {
  EXPECT_EQ(range(DType::QUInt8, 0.1f, 10, FusedActivation::none()),
            (QRange{0, 255}));
  EXPECT_EQ(range(DType::QInt8, 0.1f, 10, FusedActivation::none()),
            (QRange{-128, 127}));
  EXPECT_EQ(range(DType::QUInt8, 0.1f, 10, FusedActivation::relu()),
            (QRange{10, 255}));
  EXPECT_EQ(range(DType::QInt8, 0.05f, -7, FusedActivation::relu()),
            (QRange{-7, 127}));
  EXPECT_EQ(range(DType::QUInt8, 0.1f, 10, FusedActivation::relu6()),
            (QRange{10, 70}));
  EXPECT_EQ(range(DType::QUInt8, 6.0f / 255, 0, FusedActivation::relu6()),
            (QRange{0, 255}));
  EXPECT_EQ(range(DType::QInt8, 0.01f, 0, FusedActivation::clamp(-1, 1)),
            (QRange{-100, 100}));
  // Bounds beyond the dtype, infinite or huge, give the dtype's ends.
  EXPECT_EQ(range(DType::QUInt8, 0.1f, 200, FusedActivation::relu6()),
            (QRange{200, 255}));
  EXPECT_EQ(
      range(DType::QInt8, 1e-3f, 0, FusedActivation::clamp(-3e38f, 3e38f)),
      (QRange{-128, 127}));
}

TEST(FusedActivationRange, TiesToEven) {
  // quantize_val: 0.3125 / 0.125 = 2.5 -> 2, 0.4375 / 0.125 = 3.5 -> 4.
  EXPECT_EQ(
      range(DType::QUInt8, 0.125f, 0, FusedActivation::clamp(0.25f, 0.3125f)),
      (QRange{2, 2}));
  EXPECT_EQ(
      range(DType::QUInt8, 0.125f, 0, FusedActivation::clamp(0.3125f, 0.4375f)),
      (QRange{2, 4}));
}

TEST(FusedActivationRange, Errors) {
  float nan = std::nanf("");
  for (auto [scale, zp, act] :
       {std::tuple{0.0f, 0, FusedActivation::none()},
        std::tuple{-1.0f, 0, FusedActivation::none()},
        std::tuple{HUGE_VALF, 0, FusedActivation::none()},
        std::tuple{0.1f, 256, FusedActivation::none()},
        std::tuple{0.1f, -1, FusedActivation::relu()},
        std::tuple{0.1f, 0, FusedActivation::clamp(nan, 1.0f)},
        std::tuple{0.1f, 0, FusedActivation::clamp(2.0f, 1.0f)}}) {
    StatusOr<QRange> result =
        fusedActivationRange(DType::QUInt8, scale, zp, act);
    EXPECT_FALSE(result.ok()) << scale << " " << zp;
  }
}

} // namespace

//===- DynamicTest.cpp - Dynamic quantization vs PyTorch ------------------===//

#include "quanta/Numerics/Dynamic.h"
#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;
using namespace quanta_test;

namespace {

DynamicEngine engineOf(const GoldenCase &c) {
  return c.str("engine") == "onednn" ? DynamicEngine::Onednn
                                     : DynamicEngine::Qnnpack;
}

/// PyTorch 1.13's torch.ao.nn.quantized.dynamic.Linear, each engine, per
/// tensor and per channel, M = 1 to 16, K up to 768: the quantized weights,
/// the activation qparams and every output bit.
TEST(DynamicGolden, Linear) {
  size_t compared = 0, refused = 0;
  for (const GoldenCase &c : readGoldenFile("dynamic_linear.txt")) {
    SCOPED_TRACE(c.name);
    const int64_t m = c.getInt("m"), k = c.getInt("k"), n = c.getInt("n");
    const std::vector<float> weight = c.floats("weight");
    StatusOr<DynamicWeights> weights = quantizeDynamicWeights(
        weight.data(), n, k, c.getInt("per_channel") != 0);
    ASSERT_TRUE(weights.ok()) << weights.getStatus().getMessage();
    const std::vector<float> input = c.floats("input");
    std::vector<float> bias;
    if (c.raw("bias").front() != "none")
      bias = c.floats("bias");
    std::vector<float> output(static_cast<size_t>(m * n));
    Status status =
        dynamicLinear(engineOf(c), input.data(), m, k, *weights, n,
                      bias.empty() ? nullptr : bias.data(), output.data());
    if (c.getInt("ok") == 0) {
      EXPECT_FALSE(status.ok());
      ++refused;
      continue;
    }
    ASSERT_TRUE(status.ok()) << status.getMessage();
    const std::vector<int64_t> expectedWeights = c.ints("weight_q");
    EXPECT_TRUE(std::equal(expectedWeights.begin(), expectedWeights.end(),
                           weights->values.begin(), weights->values.end()));
    EXPECT_TRUE(sameFloats(c.floats("weight_scale"), weights->scales));
    float min = input[0], max = input[0];
    for (float x : input) {
      min = std::min(min, x);
      max = std::max(max, x);
    }
    StatusOr<DynamicActivationQParams> qparams =
        chooseDynamicQParams(engineOf(c), min, max);
    ASSERT_TRUE(qparams.ok());
    EXPECT_EQ(qparams->scale, c.getDouble("input_scale"));
    EXPECT_EQ(qparams->zeroPoint, c.getInt("input_zero_point"));
    EXPECT_TRUE(sameFloats(c.floats("output"), output));
    ++compared;
  }
  EXPECT_GE(compared, 28u);
  EXPECT_GE(refused, 8u);
}

TEST(Dynamic, EmptyBatchWritesNothing) {
  const float weight[] = {1.0f, -1.0f};
  StatusOr<DynamicWeights> weights =
      quantizeDynamicWeights(weight, 1, 2, false);
  ASSERT_TRUE(weights.ok());
  EXPECT_TRUE(dynamicLinear(DynamicEngine::Onednn, nullptr, 0, 2, *weights, 1,
                            nullptr, nullptr)
                  .ok());
}

TEST(Dynamic, NonFiniteWeightsAreRefused) {
  const float weight[] = {1.0f, std::numeric_limits<float>::quiet_NaN()};
  EXPECT_FALSE(quantizeDynamicWeights(weight, 1, 2, true).ok());
}

TEST(Dynamic, MinusInfinityIsRefused) {
  // onednn computes infinities and NaN here without an error.
  const float weight[] = {0.5f, -0.5f};
  StatusOr<DynamicWeights> weights =
      quantizeDynamicWeights(weight, 1, 2, false);
  ASSERT_TRUE(weights.ok());
  const float input[] = {-std::numeric_limits<float>::infinity(), 1.0f};
  float output[1];
  Status status = dynamicLinear(DynamicEngine::Onednn, input, 1, 2, *weights, 1,
                                nullptr, output);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.getMessage().find("infinity"), std::string::npos);
}

// ONNX Runtime's GetQuantizationParameter: float32, the range extended to
// 0, scale 1 for an empty range, the zero point rounded half to even
// (test/Import/Onnx/dynamic-matmul.mlir compares whole outputs with ONNX
// Runtime's).
TEST(Dynamic, OnnxRuntimeQParams) {
  auto qparams = [](float min, float max) {
    StatusOr<DynamicActivationQParams> chosen =
        chooseDynamicQParams(DynamicEngine::Onnx, min, max);
    EXPECT_TRUE(chosen.ok());
    return *chosen;
  };
  EXPECT_EQ(qparams(0.0f, 0.0f).scale, 1.0);
  EXPECT_EQ(qparams(0.0f, 0.0f).zeroPoint, 0);
  // 1 / (4 / 255) = 63.75 in float: 64.
  EXPECT_EQ(qparams(-1.0f, 3.0f).scale, double(4.0f / 255.0f));
  EXPECT_EQ(qparams(-1.0f, 3.0f).zeroPoint, 64);
  EXPECT_EQ(qparams(2.0f, 5.0f).scale, double(5.0f / 255.0f));
  EXPECT_EQ(qparams(2.0f, 5.0f).zeroPoint, 0);
  EXPECT_EQ(qparams(-5.0f, -2.0f).zeroPoint, 255);
  // No 6.1e-5 floor, unlike ATen's.
  EXPECT_EQ(qparams(0.0f, 1e-6f).scale, double(1e-6f / 255.0f));
}

} // namespace

// Quanta's 4-bit weights: per group of k values of a row, scale = largest
// magnitude / 7, values rounded half to even and clamped to -8..7.
TEST(Int4Weights, GroupScalesAndValues) {
  // Two rows (n = 2), k = 4, groups of 2.
  const float weights[] = {7.0f, -3.5f, 0.0f,  0.0f, //
                           0.7f, 0.35f, -1.4f, 0.1f};
  auto quantized = quantizeInt4Weights(weights, 2, 4, {2});
  ASSERT_TRUE(quantized) << quantized.getStatus().getMessage();
  // Group-major: group 0 of rows 0 and 1, then group 1.
  EXPECT_EQ(quantized->scales,
            (std::vector<float>{1.0f, 0.7f / 7.0f, 1.0f, 1.4f / 7.0f}));
  // -3.5 / 1 rounds half to even to -4; 0.35 / f32(0.7 / 7) is 3.5000002
  // in float: 4.
  EXPECT_EQ(quantized->values, (std::vector<int8_t>{7, -4, 0, 0, 7, 4, -7, 0}));
}

TEST(Int4Weights, GroupMustDivideK) {
  const float weights[6] = {};
  auto quantized = quantizeInt4Weights(weights, 1, 6, {4});
  ASSERT_FALSE(quantized);
  EXPECT_EQ(quantized.getStatus().getMessage(),
            "the group size 4 does not divide K = 6");
  EXPECT_FALSE(quantizeInt4Weights(weights, 1, 6, {0}));
  // Two 4-bit values per byte: a group is whole bytes.
  auto odd = quantizeInt4Weights(weights, 1, 6, {3});
  ASSERT_FALSE(odd);
  EXPECT_EQ(odd.getStatus().getMessage(),
            "the group size 3 is not positive and even (4-bit weights are "
            "stored two per byte)");
}

// int4-asymmetric: each group's scale and zero point PyTorch's
// MinMaxObserver(dtype=torch.quint4x2) computes (the range extended to 0,
// scale at least eps), its values quantize_val's, all stored minus 8.
TEST(Int4Weights, AsymmetricGroupsAreQuint4x2Observers) {
  // Two rows of two groups of 8: -1..14 (scale 1, zero point 1), zeros
  // (scale eps, zero point 0); 0.5..1.5 (the range from 0: scale
  // f32(1.5 / 15), zero point 0, values x * 10, the f32 inverse of the
  // scale), -3..0 (scale f32(3 / 15), zero point 15).
  const float weights[] = {-1, 0,    1,  2, 3, 4,    5, 14, 0, 0, 0,
                           0,  0,    0,  0, 0, 0.5f, 1, 1,  1, 1, 1,
                           1,  1.5f, -3, 0, 0, 0,    0, 0,  0, 0};
  auto quantized =
      quantizeInt4Weights(weights, 2, 16, {8, /*asymmetric=*/true});
  ASSERT_TRUE(quantized) << quantized.getStatus().getMessage();
  EXPECT_EQ(quantized->scales,
            (std::vector<float>{1.0f, 1.5f / 15.0f,
                                std::numeric_limits<float>::epsilon(),
                                3.0f / 15.0f}));
  EXPECT_EQ(quantized->zeroPoints, (std::vector<int8_t>{-7, -8, -8, 7}));
  EXPECT_EQ(quantized->values,
            (std::vector<int8_t>{-8, -7, -6, -5, -4, -3, -2, 7,  //
                                 -8, -8, -8, -8, -8, -8, -8, -8, //
                                 -3, 2,  2,  2,  2,  2,  2,  7,  //
                                 -8, 7,  7,  7,  7,  7,  7,  7}));
  // Symmetric weights carry no zero points.
  auto symmetric = quantizeInt4Weights(weights, 2, 16, {8});
  ASSERT_TRUE(symmetric);
  EXPECT_TRUE(symmetric->zeroPoints.empty());
}

TEST(Int4Weights, RoundToHalf) {
  EXPECT_EQ(roundToHalf(1.0f), 1.0f);
  // 1 + 2^-11 is halfway between 1 and 1 + 2^-10: to even, 1.
  EXPECT_EQ(roundToHalf(1.0f + 0x1p-11f), 1.0f);
  EXPECT_EQ(roundToHalf(1.0f + 3 * 0x1p-11f), 1.0f + 0x1p-9f);
  EXPECT_EQ(roundToHalf(-2.0f / 7.0f), -0.28564453125f);
  // Subnormals: multiples of 2^-24; below half of it, zero.
  EXPECT_EQ(roundToHalf(3.3f * 0x1p-24f), 3 * 0x1p-24f);
  EXPECT_EQ(roundToHalf(0x1p-26f), 0.0f);
  EXPECT_EQ(roundToHalf(65519.0f), 65504.0f);
  EXPECT_EQ(roundToHalf(65520.0f), std::numeric_limits<float>::infinity());
  EXPECT_TRUE(std::isnan(roundToHalf(std::nanf(""))));
}

// int4-f16-scales: the scales rounded to f16, the values quantized with
// the rounded scale; at least 2^-24, and none beyond 65504.
TEST(Int4Weights, F16Scales) {
  // 2 / 7 is 0.28564453125 in f16: -1 over it is -3.50085..., -4; 0.5
  // of another group is 0.5 / f16(0.5 / 7) = 7.0017...: 7.
  const float weights[] = {2.0f, -1.0f, 0.5f, 0.0f};
  auto quantized = quantizeInt4Weights(weights, 1, 4, {2, false, true});
  ASSERT_TRUE(quantized) << quantized.getStatus().getMessage();
  EXPECT_EQ(quantized->scales,
            (std::vector<float>{0.28564453125f, roundToHalf(0.5f / 7.0f)}));
  EXPECT_EQ(quantized->values, (std::vector<int8_t>{7, -4, 7, 0}));
  // Tiny weights: the scale is f16's smallest subnormal.
  const float tiny[] = {1e-9f, 0.0f};
  auto small = quantizeInt4Weights(tiny, 1, 2, {2, false, true});
  ASSERT_TRUE(small);
  EXPECT_EQ(small->scales, (std::vector<float>{0x1p-24f}));
  const float huge[] = {1e6f, 0.0f};
  auto refused = quantizeInt4Weights(huge, 1, 2, {2, false, true});
  ASSERT_FALSE(refused);
  EXPECT_NE(refused.getStatus().getMessage().find("beyond f16's largest"),
            std::string::npos);
  // Asymmetric too: eps (2^-23) is an f16 value.
  const float zeros[] = {0.0f, 0.0f};
  auto asymmetric = quantizeInt4Weights(zeros, 1, 2, {2, true, true});
  ASSERT_TRUE(asymmetric);
  EXPECT_EQ(asymmetric->scales,
            (std::vector<float>{std::numeric_limits<float>::epsilon()}));
}

TEST(Int4Weights, NonFiniteWeightsAreRefused) {
  const float weights[2] = {1.0f, std::numeric_limits<float>::infinity()};
  EXPECT_FALSE(quantizeInt4Weights(weights, 1, 2, {2}));
}

// int4_dynamic's activations: per group, 127 / amax in f32, the products
// rounded half to even and clamped to +-127; the scale amax / 127.
TEST(Int8Groups, ScaleAndRoundingTies) {
  // amax 127: 127 / amax = 1, so each value rounds as it is.
  const float values[] = {127.0f, 2.5f, 3.5f, -0.5f, -126.5f, 0.0f, -1.5f};
  int8_t quantized[7];
  EXPECT_EQ(quantizeInt8Group(values, 7, quantized), 1.0f);
  EXPECT_EQ(std::vector<int8_t>(quantized, quantized + 7),
            (std::vector<int8_t>{127, 2, 4, 0, -126, 0, -2}));
  // amax 0.3: 127 / 0.3f and each product one f32 rounding.
  const float small[] = {0.3f, -0.1f, 0.15f};
  EXPECT_EQ(quantizeInt8Group(small, 3, quantized), 0.3f / 127.0f);
  const float inverse = 127.0f / 0.3f;
  EXPECT_EQ(quantized[1], static_cast<int8_t>(std::nearbyint(-0.1f * inverse)));
  EXPECT_EQ(quantized[2], static_cast<int8_t>(std::nearbyint(0.15f * inverse)));
}

TEST(Int8Groups, ZerosAndTinyGroupsQuantizeToZero) {
  int8_t quantized[2] = {1, 1};
  const float zeros[] = {0.0f, -0.0f};
  EXPECT_EQ(quantizeInt8Group(zeros, 2, quantized), 0.0f);
  EXPECT_EQ(quantized[0], 0);
  EXPECT_EQ(quantized[1], 0);
  // Below 127 / FLT_MAX, 127 / amax is infinite: zeros, not NaN products.
  const float tiny[] = {1e-38f, -2e-38f};
  EXPECT_EQ(quantizeInt8Group(tiny, 2, quantized), 2e-38f / 127.0f);
  EXPECT_EQ(quantized[0], 0);
  EXPECT_EQ(quantized[1], 0);
}

TEST(Int8Groups, NonFiniteValuesGiveANaNScale) {
  int8_t quantized[3];
  const float withNaN[] = {1.0f, std::nanf(""), 2.0f};
  EXPECT_TRUE(std::isnan(quantizeInt8Group(withNaN, 3, quantized)));
  const float withInfinity[] = {1.0f, -std::numeric_limits<float>::infinity(),
                                2.0f};
  EXPECT_TRUE(std::isnan(quantizeInt8Group(withInfinity, 3, quantized)));
  // The finite values beside an infinity quantize to 0 (127 / inf).
  EXPECT_EQ(quantized[0], 0);
  EXPECT_EQ(quantized[2], 0);
}

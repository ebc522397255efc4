//===- OneFlowTest.cpp - OneFlow MinMaxObserver, hand-derived values ------===//
//
// OneFlow is not installed, so the expected values are derived by hand from
// the formulas of OneFlow's kernel (see OneFlow.h). The inputs are chosen so
// that every intermediate float32 result is exact, or a single correctly
// rounded division written out in the test.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/OneFlow.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;

namespace {

OneFlowMinMaxObserverOptions makeOptions(const std::string &formula,
                                         int64_t bits,
                                         const std::string &scheme,
                                         bool perLayer = true) {
  OneFlowMinMaxObserverOptions options;
  options.quantizationFormula = formula;
  options.quantizationBit = bits;
  options.quantizationScheme = scheme;
  options.perLayerQuantization = perLayer;
  return options;
}

OneFlowQParams compute(const OneFlowMinMaxObserverOptions &options,
                       const std::vector<float> &data,
                       const std::vector<int64_t> &shape) {
  StatusOr<OneFlowQParams> result =
      computeOneFlowMinMaxQParams(options, data.data(), shape);
  EXPECT_TRUE(result.ok()) << result.getStatus().getMessage();
  return result.ok() ? *result : OneFlowQParams{};
}

std::string errorOf(const OneFlowMinMaxObserverOptions &options,
                    const std::vector<float> &data,
                    const std::vector<int64_t> &shape) {
  StatusOr<OneFlowQParams> result =
      computeOneFlowMinMaxQParams(options, data.data(), shape);
  return result.ok() ? "ok" : result.getStatus().getMessage();
}

TEST(OneFlow, GoogleSymmetric) {
  // max(|63.5|, |-2|) / (2^7 - 1) = 63.5 / 127 = 0.5 exactly.
  OneFlowQParams eightBit =
      compute(makeOptions("google", 8, "symmetric"), {-2, 63.5f, 1}, {3});
  EXPECT_EQ(eightBit.scale, std::vector<float>{0.5f});
  EXPECT_EQ(eightBit.zeroPoint, std::vector<float>{0.0f});
  // A negative extreme dominates: |-3| / (2^2 - 1) = 1.
  EXPECT_EQ(
      compute(makeOptions("google", 3, "symmetric"), {-3, 1, 2.5f}, {3}).scale,
      std::vector<float>{1.0f});
}

TEST(OneFlow, GoogleAffineDoesNotWidenOrClamp) {
  // (256 - 1) / (2^8 - 1) = 1; zp = -nearbyint(1 / 1) = -1: the range is not
  // widened to include 0, and the zero point is outside [0, 255].
  OneFlowQParams positive =
      compute(makeOptions("google", 8, "affine"), {1, 256, 30}, {3});
  EXPECT_EQ(positive.scale, std::vector<float>{1.0f});
  EXPECT_EQ(positive.zeroPoint, std::vector<float>{-1.0f});
  // Ties round to even: min/scale = -2.5 -> -2, so zp = 2; -3.5 -> -4, zp 4.
  EXPECT_EQ(compute(makeOptions("google", 8, "affine"), {-2.5f, 252.5f}, {2})
                .zeroPoint,
            std::vector<float>{2.0f});
  EXPECT_EQ(compute(makeOptions("google", 8, "affine"), {251.5f, -3.5f}, {2})
                .zeroPoint,
            std::vector<float>{4.0f});
  // 2 bits: scale = 2 / 3 (one float division); -0.5 / scale rounds to
  // -0.75 in float, nearbyint gives -1, zp = 1.
  OneFlowQParams twoBit =
      compute(makeOptions("google", 2, "affine"), {-0.5f, 1.5f}, {2});
  EXPECT_EQ(twoBit.scale, std::vector<float>{2.0f / 3.0f});
  EXPECT_EQ(twoBit.zeroPoint, std::vector<float>{1.0f});
}

TEST(OneFlow, Cambricon) {
  // floor(log2(5)) - (8 - 2) = 2 - 6 = -4.
  EXPECT_EQ(
      compute(makeOptions("cambricon", 8, "symmetric"), {-0.3f, 5}, {2}).scale,
      std::vector<float>{-4.0f});
  // Exact power of two: floor(log2(8)) - 0 = 3.
  EXPECT_EQ(compute(makeOptions("cambricon", 2, "affine"), {8, 1}, {2}).scale,
            std::vector<float>{3.0f});
  // Below one: floor(log2(0.75)) - 2 = -1 - 2 = -3; zero point always 0.
  OneFlowQParams small =
      compute(makeOptions("cambricon", 4, "symmetric"), {-0.75f, 0.5f}, {2});
  EXPECT_EQ(small.scale, std::vector<float>{-3.0f});
  EXPECT_EQ(small.zeroPoint, std::vector<float>{0.0f});
}

TEST(OneFlow, PerChannelAlongAxisZero) {
  // Rows {-1, 0.5, 2} and {4, -8, 1}: 4-bit symmetric, denominator 7.
  OneFlowQParams symmetric = compute(makeOptions("google", 4, "symmetric",
                                                 /*perLayer=*/false),
                                     {-1, 0.5f, 2, 4, -8, 1}, {2, 3});
  EXPECT_EQ(symmetric.scale, (std::vector<float>{2.0f / 7.0f, 8.0f / 7.0f}));
  // Channels of a 3-D tensor {2, 2, 2}: each holds 4 values.
  OneFlowQParams affine =
      compute(makeOptions("google", 8, "affine", /*perLayer=*/false),
              {0, 255, 7, 9, -255, 0, -1, -2}, {2, 2, 2});
  EXPECT_EQ(affine.scale, (std::vector<float>{1.0f, 1.0f}));
  EXPECT_EQ(affine.zeroPoint, (std::vector<float>{0.0f, 255.0f}));
}

TEST(OneFlow, OptionValidation) {
  EXPECT_TRUE(validateOneFlowOptions({}).ok());
  EXPECT_FALSE(validateOneFlowOptions(makeOptions("google", 1, "affine")).ok());
  EXPECT_FALSE(validateOneFlowOptions(makeOptions("google", 9, "affine")).ok());
  EXPECT_FALSE(
      validateOneFlowOptions(makeOptions("tensorrt", 8, "affine")).ok());
  EXPECT_FALSE(validateOneFlowOptions(makeOptions("google", 8, "asym")).ok());
  Status perChannelCambricon = validateOneFlowOptions(
      makeOptions("cambricon", 8, "symmetric", /*perLayer=*/false));
  ASSERT_FALSE(perChannelCambricon.ok());
  EXPECT_NE(perChannelCambricon.getMessage().find("per-layer"),
            std::string::npos);
}

TEST(OneFlow, DegenerateInputsAreErrors) {
  const float inf = std::numeric_limits<float>::infinity();
  EXPECT_NE(errorOf(makeOptions("google", 8, "affine"), {0.5f, 0.5f}, {2})
                .find("scale would be 0"),
            std::string::npos);
  EXPECT_NE(errorOf(makeOptions("google", 8, "symmetric"), {0, 0}, {2})
                .find("all zeros"),
            std::string::npos);
  EXPECT_NE(errorOf(makeOptions("cambricon", 8, "symmetric"), {0, 0}, {2})
                .find("log2(0)"),
            std::string::npos);
  EXPECT_NE(
      errorOf(makeOptions("google", 8, "symmetric"), {1, std::nanf("")}, {2})
          .find("NaN"),
      std::string::npos);
  EXPECT_NE(errorOf(makeOptions("google", 8, "affine"), {1, inf}, {2})
                .find("non-finite"),
            std::string::npos);
  EXPECT_NE(
      errorOf(makeOptions("google", 8, "affine", false), {1, 2, 3, 3}, {2, 2})
          .find("channel 1"),
      std::string::npos);
  EXPECT_NE(errorOf(makeOptions("google", 8, "affine"), {}, {0}).find("empty"),
            std::string::npos);
}

} // namespace

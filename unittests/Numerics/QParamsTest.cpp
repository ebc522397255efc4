//===- QParamsTest.cpp - Observer options and qparams vs PyTorch ----------===//

#include "quanta/Numerics/QParams.h"
#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;
using namespace quanta_test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

// Every configuration PyTorch rejects must be rejected; Quanta additionally
// rejects its own rules (quanta_ok is computed by the generator).
TEST(QParamsGolden, Validation) {
  size_t checked = 0;
  for (const GoldenCase &c : readGoldenFile("validation.txt")) {
    const ObserverKind kind = kindOf(c.str("kind"));
    const std::vector<std::string> &qschemes = c.raw("qscheme");
    for (size_t row = 0; row < qschemes.size(); ++row) {
      UniformObserverOptions options;
      options.dtype = dtypeOf(c);
      options.qscheme = *parseQScheme(qschemes[row]);
      options.reduceRange = c.ints("reduce_range")[row] != 0;
      options.quantMin = optionalInt(c.raw("quant_min")[row]);
      options.quantMax = optionalInt(c.raw("quant_max")[row]);
      options.eps = c.floats("eps")[row];
      const bool torchOk = c.ints("torch_ok")[row] != 0;
      const bool quantaOk = c.ints("quanta_ok")[row] != 0;
      Status status = validateObserverOptions(kind, options);
      SCOPED_TRACE(c.name + " row " + std::to_string(row));
      EXPECT_EQ(status.ok(), quantaOk)
          << (status.ok() ? "accepted" : status.getMessage());
      if (!torchOk) {
        EXPECT_FALSE(status.ok());
      }
      if (torchOk && quantaOk) {
        EXPECT_EQ(computeQRange(options),
                  (QRange{c.ints("effective_quant_min")[row],
                          c.ints("effective_quant_max")[row]}));
      }
      ++checked;
    }
  }
  EXPECT_GT(checked, 2000u);
}

void expectQParams(const QParams &actual, QScheme qscheme,
                   const std::vector<float> &scale,
                   const std::vector<std::string> &zeroPoint) {
  EXPECT_TRUE(sameFloats(scale, actual.scale));
  if (qscheme == QScheme::PerChannelAffineFloatQParams) {
    std::vector<float> expected;
    for (const std::string &token : zeroPoint)
      expected.push_back(
          static_cast<float>(std::strtod(token.c_str(), nullptr)));
    EXPECT_TRUE(sameFloats(expected, actual.floatZeroPoint));
    EXPECT_TRUE(actual.zeroPoint.empty());
  } else {
    std::vector<int64_t> expected;
    for (const std::string &token : zeroPoint)
      expected.push_back(std::strtoll(token.c_str(), nullptr, 10));
    EXPECT_EQ(expected, actual.zeroPoint);
    EXPECT_TRUE(actual.floatZeroPoint.empty());
  }
}

TEST(QParamsGolden, CalculateQParams) {
  size_t checked = 0;
  for (const GoldenCase &c : readGoldenFile("qparams.txt")) {
    const UniformObserverOptions options = observerOptionsOf(c);
    ASSERT_TRUE(validateObserverOptions(kindOf(c.str("kind")), options).ok())
        << c.name;
    if (c.has("channels_min")) {
      SCOPED_TRACE(c.name);
      StatusOr<QParams> result = calculateQParams(
          options, c.floats("channels_min"), c.floats("channels_max"));
      ASSERT_TRUE(result.ok()) << result.getStatus().getMessage();
      expectQParams(*result, options.qscheme, c.floats("channels_scale"),
                    c.raw("channels_zero_point"));
      ++checked;
      continue;
    }
    const std::vector<float> mins = c.floats("min"), maxs = c.floats("max");
    for (size_t i = 0; i < mins.size(); ++i) {
      SCOPED_TRACE(c.name + " pair " + std::to_string(i) + " min " +
                   std::to_string(mins[i]) + " max " + std::to_string(maxs[i]));
      StatusOr<QParams> result =
          calculateQParams(options, {mins[i]}, {maxs[i]});
      const int64_t ok = c.ints("ok")[i];
      ASSERT_EQ(result.ok(), ok == 1)
          << (result.ok() ? "accepted" : result.getStatus().getMessage());
      if (ok == 1)
        expectQParams(*result, options.qscheme, {c.floats("scale")[i]},
                      {c.raw("zero_point")[i]});
      ++checked;
    }
  }
  EXPECT_GT(checked, 5000u);
}

UniformObserverOptions makeOptions(DType dtype, QScheme qscheme,
                                   std::optional<int64_t> quantMin = {},
                                   std::optional<int64_t> quantMax = {},
                                   bool reduceRange = false) {
  UniformObserverOptions options;
  options.dtype = dtype;
  options.qscheme = qscheme;
  options.quantMin = quantMin;
  options.quantMax = quantMax;
  options.reduceRange = reduceRange;
  return options;
}

TEST(QParams, NamesRoundTrip) {
  for (DType dtype :
       {DType::QUInt8, DType::QInt8, DType::QUInt4x2, DType::QInt32})
    EXPECT_EQ(parseDType(toString(dtype)), dtype);
  for (QScheme qscheme :
       {QScheme::PerTensorAffine, QScheme::PerTensorSymmetric,
        QScheme::PerChannelAffine, QScheme::PerChannelSymmetric,
        QScheme::PerChannelAffineFloatQParams})
    EXPECT_EQ(parseQScheme(toString(qscheme)), qscheme);
  EXPECT_FALSE(parseDType("int8").has_value());
  EXPECT_FALSE(parseQScheme("affine").has_value());
  EXPECT_EQ(toString(ObserverKind::Histogram), "HistogramObserver");
}

TEST(QParams, ReduceRangeFloorDividesCustomRanges) {
  // Python's // rounds toward -inf: -127 // 2 == -64, 127 // 2 == 63.
  EXPECT_EQ(computeQRange(makeOptions(DType::QInt8, QScheme::PerTensorAffine,
                                      -127, 127, true)),
            (QRange{-64, 63}));
  EXPECT_EQ(computeQRange(makeOptions(DType::QInt8, QScheme::PerTensorAffine,
                                      -3, 5, true)),
            (QRange{-2, 2}));
  EXPECT_EQ(computeQRange(makeOptions(DType::QInt32, QScheme::PerTensorAffine,
                                      {}, {}, true)),
            (QRange{-(int64_t(1) << 31), (int64_t(1) << 31) - 1}));
}

TEST(QParams, MessagesExplainTheRule) {
  auto message = [](ObserverKind kind, const UniformObserverOptions &options) {
    Status status = validateObserverOptions(kind, options);
    return status.ok() ? std::string("ok") : status.getMessage();
  };
  EXPECT_EQ(
      message(ObserverKind::MinMax,
              makeOptions(DType::QUInt8, QScheme::PerTensorAffine, 5, 10)),
      "quant_min (5) must be <= 0 <= quant_max (10): the quantized range "
      "must include zero");
  EXPECT_NE(message(ObserverKind::MinMax,
                    makeOptions(DType::QUInt8, QScheme::PerChannelAffine))
                .find("per_tensor_affine or per_tensor_symmetric"),
            std::string::npos);
  EXPECT_NE(message(ObserverKind::MinMax,
                    makeOptions(DType::QUInt8, QScheme::PerTensorAffine, 0))
                .find("give both quant_min and quant_max"),
            std::string::npos);
  EXPECT_NE(message(ObserverKind::MovingAverageMinMax,
                    makeOptions(DType::QUInt8, QScheme::PerTensorSymmetric, {},
                                {}, true))
                .find("cannot reduce the range"),
            std::string::npos);
  // HistogramObserver does not inherit that check.
  EXPECT_EQ(message(ObserverKind::Histogram,
                    makeOptions(DType::QUInt8, QScheme::PerTensorSymmetric, {},
                                {}, true)),
            "ok");
  EXPECT_NE(message(ObserverKind::MinMax,
                    makeOptions(DType::QInt32, QScheme::PerTensorAffine,
                                -(int64_t(1) << 31), (int64_t(1) << 31) - 1))
                .find("at most 2**31"),
            std::string::npos);
  UniformObserverOptions badEps =
      makeOptions(DType::QInt8, QScheme::PerTensorAffine);
  badEps.eps = 0;
  EXPECT_NE(message(ObserverKind::MinMax, badEps).find("eps"),
            std::string::npos);
}

TEST(QParams, DefaultsForUnobservedStatistics) {
  const UniformObserverOptions perTensor =
      makeOptions(DType::QUInt8, QScheme::PerTensorAffine);
  StatusOr<QParams> uninitialized =
      calculateQParams(perTensor, {kInf}, {-kInf});
  ASSERT_TRUE(uninitialized.ok());
  EXPECT_EQ(uninitialized->scale, std::vector<float>{1.0f});
  EXPECT_EQ(uninitialized->zeroPoint, std::vector<int64_t>{0});
  StatusOr<QParams> empty = calculateQParams(
      makeOptions(DType::QUInt8, QScheme::PerChannelAffineFloatQParams), {},
      {});
  ASSERT_TRUE(empty.ok());
  EXPECT_EQ(empty->floatZeroPoint, std::vector<float>{0.0f});
  // A per-channel statistic of +inf/-inf is not "uninitialized": PyTorch
  // asserts min <= max.
  EXPECT_FALSE(
      calculateQParams(makeOptions(DType::QInt8, QScheme::PerChannelSymmetric),
                       {kInf}, {-kInf})
          .ok());
}

TEST(QParams, ErrorsSayWhy) {
  const UniformObserverOptions options =
      makeOptions(DType::QUInt8, QScheme::PerTensorAffine);
  StatusOr<QParams> nan = calculateQParams(options, {kNaN}, {1.0f});
  ASSERT_FALSE(nan.ok());
  EXPECT_NE(nan.getStatus().getMessage().find("NaN"), std::string::npos);
  StatusOr<QParams> infinite = calculateQParams(options, {-kInf}, {1.0f});
  ASSERT_FALSE(infinite.ok());
  EXPECT_NE(infinite.getStatus().getMessage().find("PyTorch would return "
                                                   "scale inf"),
            std::string::npos);
  EXPECT_FALSE(calculateQParams(options, {1.0f, 2.0f}, {3.0f, 4.0f}).ok());
  EXPECT_FALSE(
      calculateQParams(makeOptions(DType::QUInt8, QScheme::PerChannelAffine),
                       {1.0f, 2.0f}, {3.0f})
          .ok());
}

} // namespace

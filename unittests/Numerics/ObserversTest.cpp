//===- ObserversTest.cpp - Observer statistics vs PyTorch -----------------===//

#include "quanta/Numerics/Observers.h"
#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;
using namespace quanta_test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

std::vector<int64_t> shapeOf(const GoldenCase &c, const std::string &key) {
  return c.ints(key);
}

// Each case feeds PyTorch's batches to one observer and checks the running
// statistics and the qparams after every batch.
TEST(ObserversGolden, Sequences) {
  size_t batchesChecked = 0;
  for (const GoldenCase &c : readGoldenFile("observers.txt")) {
    SCOPED_TRACE(c.name);
    const ObserverKind kind = kindOf(c.str("kind"));
    const UniformObserverOptions options = observerOptionsOf(c);
    ASSERT_TRUE(validateObserverOptions(kind, options).ok());
    const bool perChannel = kind == ObserverKind::PerChannelMinMax ||
                            kind == ObserverKind::MovingAveragePerChannelMinMax;
    const double averagingConstant =
        c.has("averaging_constant") ? c.getDouble("averaging_constant") : 0;
    const int64_t chAxis = c.has("ch_axis") ? c.getInt("ch_axis") : 0;
    MinMaxStats stats;
    PerChannelMinMaxStats perChannelStats;
    for (int64_t i = 0; i < c.getInt("batches"); ++i) {
      const std::string n = std::to_string(i);
      SCOPED_TRACE("batch " + n);
      const std::vector<float> data = c.floats("data" + n);
      const std::vector<int64_t> shape = shapeOf(c, "shape" + n);
      switch (kind) {
      case ObserverKind::MinMax:
        updateMinMax(stats, data.data(), data.size());
        break;
      case ObserverKind::MovingAverageMinMax:
        updateMovingAverageMinMax(stats, data.data(), data.size(),
                                  averagingConstant);
        break;
      case ObserverKind::PerChannelMinMax:
        ASSERT_TRUE(
            updatePerChannelMinMax(perChannelStats, data.data(), shape, chAxis)
                .ok());
        break;
      default:
        ASSERT_TRUE(
            updateMovingAveragePerChannelMinMax(
                perChannelStats, data.data(), shape, chAxis, averagingConstant)
                .ok());
      }
      StatusOr<QParams> qparams =
          perChannel ? calculateQParams(options, perChannelStats)
                     : calculateQParams(options, stats);
      if (perChannel) {
        EXPECT_TRUE(sameFloats(c.floats("min" + n), perChannelStats.min));
        EXPECT_TRUE(sameFloats(c.floats("max" + n), perChannelStats.max));
      } else {
        EXPECT_TRUE(sameFloat(c.getFloat("min" + n), stats.min));
        EXPECT_TRUE(sameFloat(c.getFloat("max" + n), stats.max));
      }
      const int64_t ok = c.getInt("ok" + n);
      ASSERT_EQ(qparams.ok(), ok == 1)
          << (qparams.ok() ? "accepted" : qparams.getStatus().getMessage());
      if (ok != 1)
        continue;
      EXPECT_TRUE(sameFloats(c.floats("scale" + n), qparams->scale));
      if (options.qscheme == QScheme::PerChannelAffineFloatQParams)
        EXPECT_TRUE(
            sameFloats(c.floats("zero_point" + n), qparams->floatZeroPoint));
      else
        EXPECT_EQ(c.ints("zero_point" + n), qparams->zeroPoint);
      ++batchesChecked;
    }
  }
  EXPECT_GT(batchesChecked, 600u);
}

// The signed_zero_* cases (min or max a zero, its sign chosen by PyTorch's
// reduction order) are only a regression test if the goldens keep the sign
// through writing and reading: check that both zeros occur among their
// statistics. Sequences compares the bit patterns (sameFloat).
TEST(ObserversGolden, SignedZeroCasesHoldBothZeros) {
  size_t cases = 0, positive = 0, negative = 0;
  for (const GoldenCase &c : readGoldenFile("observers.txt")) {
    if (c.name.rfind("signed_zero_", 0) != 0)
      continue;
    ++cases;
    for (int64_t i = 0; i < c.getInt("batches"); ++i)
      for (const char *stat : {"min", "max"})
        for (float value : c.floats(stat + std::to_string(i))) {
          positive += floatBits(value) == floatBits(0.0f);
          negative += floatBits(value) == floatBits(-0.0f);
        }
  }
  EXPECT_GT(cases, 80u);
  EXPECT_GT(positive, 50u);
  EXPECT_GT(negative, 50u);
}

TEST(Observers, EmptyBatchesChangeNothing) {
  MinMaxStats stats;
  updateMovingAverageMinMax(stats, nullptr, 0, 0.5);
  EXPECT_FALSE(stats.isInitialized());
  PerChannelMinMaxStats perChannel;
  // PyTorch returns before looking at ch_axis.
  EXPECT_TRUE(updatePerChannelMinMax(perChannel, nullptr, {0, 3}, 7).ok());
  EXPECT_TRUE(perChannel.min.empty());
}

TEST(Observers, MovingAverageStartsFromFirstBatch) {
  MinMaxStats stats;
  const float first[] = {-1.0f, 3.0f}, second[] = {-3.0f, 7.0f};
  updateMovingAverageMinMax(stats, first, 2, 0.25);
  EXPECT_EQ(stats.min, -1.0f);
  EXPECT_EQ(stats.max, 3.0f);
  updateMovingAverageMinMax(stats, second, 2, 0.25);
  EXPECT_EQ(stats.min, -1.5f);
  EXPECT_EQ(stats.max, 4.0f);
}

TEST(Observers, NaNPropagates) {
  MinMaxStats stats;
  const float data[] = {1.0f, std::nanf(""), -2.0f};
  updateMinMax(stats, data, 3);
  EXPECT_TRUE(std::isnan(stats.min) && std::isnan(stats.max));
  const float clean[] = {0.0f, 1.0f};
  updateMinMax(stats, clean, 2);
  EXPECT_TRUE(std::isnan(stats.min));
}

TEST(Observers, PerChannelAxes) {
  // shape (2, 3): channel axis 1 (= -1) has 3 channels.
  const float data[] = {1, -2, 3, -4, 5, -6};
  for (int64_t axis : {1, -1}) {
    PerChannelMinMaxStats stats;
    ASSERT_TRUE(updatePerChannelMinMax(stats, data, {2, 3}, axis).ok());
    EXPECT_EQ(stats.min, (std::vector<float>{-4, -2, -6}));
    EXPECT_EQ(stats.max, (std::vector<float>{1, 5, 3}));
  }
  PerChannelMinMaxStats rows;
  ASSERT_TRUE(updatePerChannelMinMax(rows, data, {2, 3}, -2).ok());
  EXPECT_EQ(rows.min, (std::vector<float>{-2, -6}));
}

TEST(Observers, PerChannelErrors) {
  const float data[] = {1, 2, 3, 4, 5, 6};
  PerChannelMinMaxStats stats;
  Status badAxis = updatePerChannelMinMax(stats, data, {2, 3}, 2);
  ASSERT_FALSE(badAxis.ok());
  EXPECT_NE(badAxis.getMessage().find("out of range"), std::string::npos);
  EXPECT_FALSE(updatePerChannelMinMax(stats, data, {6}, 0).ok());
  ASSERT_TRUE(updatePerChannelMinMax(stats, data, {2, 3}, 0).ok());
  Status mismatch =
      updateMovingAveragePerChannelMinMax(stats, data, {3, 2}, 0, 0.1);
  ASSERT_FALSE(mismatch.ok());
  EXPECT_NE(mismatch.getMessage().find("3 channels"), std::string::npos);
  EXPECT_EQ(stats.min, (std::vector<float>{1, 4}));
  EXPECT_EQ(stats.max, (std::vector<float>{3, 6}));
}

TEST(Observers, UninitializedStatsGiveDefaultQParams) {
  UniformObserverOptions options;
  StatusOr<QParams> qparams = calculateQParams(options, MinMaxStats{});
  ASSERT_TRUE(qparams.ok());
  EXPECT_EQ(qparams->scale, std::vector<float>{1.0f});
  EXPECT_EQ(MinMaxStats{}.min, kInf);
}

} // namespace

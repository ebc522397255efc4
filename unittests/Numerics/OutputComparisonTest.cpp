//===- OutputComparisonTest.cpp - SQNR, max error, top-1 agreement --------===//

#include "quanta/Numerics/OutputComparison.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using mlir::quanta::numerics::OutputComparison;

TEST(OutputComparison, EqualOutputsHaveInfiniteSqnr) {
  const float values[] = {1, -2, 3, 4};
  OutputComparison comparison;
  comparison.add(values, values, 4, 2);
  EXPECT_TRUE(std::isinf(comparison.getSqnrDb()) && comparison.getSqnrDb() > 0);
  EXPECT_EQ(comparison.getMaxAbsError(), 0);
  EXPECT_EQ(comparison.getTop1Agreement(), 1);
  EXPECT_EQ(comparison.getRows(), 2);
}

TEST(OutputComparison, AccumulatesOverBatches) {
  // Signal 1+4+9+16 = 30, noise 4 * 0.25 = 1 over both calls: 10 log10 30.
  const float reference[] = {1, 2, 3, 4};
  const float approximation[] = {1.5f, 1.5f, 2.5f, 4.5f};
  OutputComparison comparison;
  comparison.add(reference, approximation, 2, 2);
  comparison.add(reference + 2, approximation + 2, 2, 2);
  EXPECT_NEAR(comparison.getSqnrDb(), 10 * std::log10(30.0), 1e-12);
  EXPECT_DOUBLE_EQ(comparison.getMaxAbsError(), 0.5);
  // Row {1, 2} picks class 1, {1.5, 1.5} the first maximum, 0; both rows
  // {3, 4} and {2.5, 4.5} pick class 1.
  EXPECT_EQ(comparison.getTop1Agreement(), 0.5);
  EXPECT_EQ(comparison.getValues(), 4);
}

TEST(OutputComparison, NanIsAnInfiniteErrorAndADisagreement) {
  const float reference[] = {0, 1};
  const float approximation[] = {std::numeric_limits<float>::quiet_NaN(), 1};
  OutputComparison comparison;
  comparison.add(reference, approximation, 2, 2);
  EXPECT_TRUE(std::isinf(comparison.getMaxAbsError()));
  EXPECT_EQ(comparison.getTop1Agreement(), 0);
  EXPECT_TRUE(std::isinf(comparison.getSqnrDb()) && comparison.getSqnrDb() < 0);
}

TEST(OutputComparison, ZeroReference) {
  const float zeros[] = {0, 0};
  const float ones[] = {1, 1};
  OutputComparison comparison;
  comparison.add(zeros, ones, 2, 1);
  EXPECT_TRUE(std::isinf(comparison.getSqnrDb()) && comparison.getSqnrDb() < 0);
}

//===- HistogramCalibrationTest.cpp - Entropy, percentile, MSE ranges -----===//
//
// Goldens from scripts/goldens/gen_histogram_calibration_goldens.py, whose
// reference implementation repeats the float64 computations of
// HistogramCalibration.cpp operation by operation: ranges, scales and zero
// points are compared bit for bit (the PyTorch method against torch
// itself). Then properties that hold whatever the reference says.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/HistogramCalibration.h"

#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <numeric>
#include <random>
#include <stdexcept>

using namespace mlir::quanta::numerics;
using quanta_test::GoldenCase;
using quanta_test::readGoldenFile;
using quanta_test::sameFloat;
using quanta_test::sameFloats;

namespace {

constexpr HistogramCalibration kMethods[] = {
    HistogramCalibration::PyTorch, HistogramCalibration::Entropy,
    HistogramCalibration::Percentile, HistogramCalibration::Mse};

HistogramCalibrationOptions calibrationOf(HistogramCalibration method,
                                          double percentile = 99.99) {
  HistogramCalibrationOptions options;
  options.method = method;
  options.percentile = percentile;
  return options;
}

HistogramOptions optionsFor(const HistogramStats &stats,
                            UniformObserverOptions uniform = {}) {
  HistogramOptions options;
  options.bins = static_cast<int64_t>(stats.histogram.size());
  options.uniform = uniform;
  return options;
}

HistogramStats statsOf(std::vector<float> histogram, float min, float max) {
  HistogramStats stats;
  stats.histogram = std::move(histogram);
  stats.min = min;
  stats.max = max;
  return stats;
}

std::pair<float, float>
rangeOf(const HistogramOptions &options, const HistogramStats &stats,
        const HistogramCalibrationOptions &calibration) {
  StatusOr<std::pair<float, float>> range =
      chooseHistogramRange(options, stats, calibration);
  EXPECT_TRUE(range.ok()) << range.getStatus().getMessage();
  return range.ok() ? *range : std::pair<float, float>{NAN, NAN};
}

::testing::AssertionResult sameRange(float expectedMin, float expectedMax,
                                     std::pair<float, float> actual) {
  if (::testing::AssertionResult result = sameFloat(expectedMin, actual.first);
      !result)
    return result << " (range min)";
  if (::testing::AssertionResult result = sameFloat(expectedMax, actual.second);
      !result)
    return result << " (range max)";
  return ::testing::AssertionSuccess();
}

::testing::AssertionResult sameDoubles(const std::vector<double> &expected,
                                       const std::vector<double> &actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "expected " << expected.size()
                                         << " values, got " << actual.size();
  for (size_t i = 0; i < expected.size(); ++i)
    if (std::memcmp(&expected[i], &actual[i], sizeof(double)) != 0)
      return ::testing::AssertionFailure()
             << "at index " << i << ": expected " << std::hexfloat
             << expected[i] << " got " << actual[i];
  return ::testing::AssertionSuccess();
}

const std::vector<GoldenCase> &goldenCases() {
  static const std::vector<GoldenCase> cases =
      readGoldenFile("histogram_calibration.txt");
  return cases;
}

/// Histogram cases hold the statistics; option cases name theirs.
bool isHistogramCase(const GoldenCase &c) { return !c.has("histogram"); }

HistogramStats statsOf(const GoldenCase &c) {
  return statsOf(c.floats("hist"), c.getFloat("min"), c.getFloat("max"));
}

const GoldenCase &histogramCase(const std::string &name) {
  for (const GoldenCase &c : goldenCases())
    if (isHistogramCase(c) && c.name == name)
      return c;
  throw std::runtime_error("no golden histogram " + name);
}

//===----------------------------------------------------------------------===//
// Goldens
//===----------------------------------------------------------------------===//

TEST(HistogramCalibration, AbsoluteHistogramMatchesReference) {
  int checked = 0;
  for (const GoldenCase &c : goldenCases()) {
    if (!c.has("abs_hist"))
      continue;
    SCOPED_TRACE(c.name);
    const HistogramStats stats = statsOf(c);
    EXPECT_TRUE(sameDoubles(c.doubles("abs_hist"), absoluteHistogram(stats)));
    ++checked;
  }
  EXPECT_GE(checked, 4);
}

TEST(HistogramCalibration, PercentileMatchesReference) {
  for (const GoldenCase &c : goldenCases()) {
    if (!isHistogramCase(c))
      continue;
    SCOPED_TRACE(c.name);
    const HistogramStats stats = statsOf(c);
    const std::vector<double> percentiles = c.doubles("percentile");
    const std::vector<float> ranges = c.floats("percentile_range");
    ASSERT_EQ(ranges.size(), 2 * percentiles.size());
    for (size_t i = 0; i < percentiles.size(); ++i)
      EXPECT_TRUE(
          sameRange(ranges[2 * i], ranges[2 * i + 1],
                    rangeOf(optionsFor(stats), stats,
                            calibrationOf(HistogramCalibration::Percentile,
                                          percentiles[i]))))
          << "percentile " << percentiles[i];
  }
}

/// Every method's range and qparams under one set of observer options.
TEST(HistogramCalibration, MethodsMatchReference) {
  int checked = 0;
  for (const GoldenCase &c : goldenCases()) {
    if (isHistogramCase(c))
      continue;
    SCOPED_TRACE(c.name);
    const GoldenCase &histogram = histogramCase(c.str("histogram"));
    const HistogramStats stats = statsOf(histogram);
    const HistogramOptions options =
        optionsFor(stats, quanta_test::observerOptionsOf(c));
    ASSERT_TRUE(validateHistogramOptions(options).ok());
    for (HistogramCalibration method : kMethods) {
      if (method == HistogramCalibration::Percentile)
        continue;
      const std::string name(toString(method));
      SCOPED_TRACE(name);
      const std::vector<float> range = c.floats(name + "_range");
      EXPECT_TRUE(sameRange(range[0], range[1],
                            rangeOf(options, stats, calibrationOf(method))));
      StatusOr<QParams> qparams =
          calculateCalibratedQParams(options, stats, calibrationOf(method));
      ASSERT_TRUE(qparams.ok()) << qparams.getStatus().getMessage();
      EXPECT_TRUE(sameFloats({c.getFloat(name + "_scale")}, qparams->scale));
      EXPECT_EQ(std::vector<int64_t>{c.getInt(name + "_zero_point")},
                qparams->zeroPoint);
    }
    const std::vector<double> percentiles = histogram.doubles("percentile");
    const std::vector<float> scales = c.floats("percentile_scale");
    const std::vector<int64_t> zeroPoints = c.ints("percentile_zero_point");
    for (size_t i = 0; i < percentiles.size(); ++i) {
      StatusOr<QParams> qparams = calculateCalibratedQParams(
          options, stats,
          calibrationOf(HistogramCalibration::Percentile, percentiles[i]));
      ASSERT_TRUE(qparams.ok()) << qparams.getStatus().getMessage();
      EXPECT_TRUE(sameFloats({scales[i]}, qparams->scale));
      EXPECT_EQ(std::vector<int64_t>{zeroPoints[i]}, qparams->zeroPoint);
    }
    ++checked;
  }
  EXPECT_GE(checked, 30);
}

// The PyTorch method is HistogramObserver's own search and qparams.
TEST(HistogramCalibration, PyTorchMethodIsTheObserverSearch) {
  for (const GoldenCase &c : goldenCases()) {
    if (!isHistogramCase(c))
      continue;
    SCOPED_TRACE(c.name);
    const HistogramStats stats = statsOf(c);
    const HistogramOptions options = optionsFor(stats);
    auto [newMin, newMax] = nonLinearParamSearch(options, stats);
    EXPECT_TRUE(sameRange(
        newMin, newMax,
        rangeOf(options, stats, calibrationOf(HistogramCalibration::PyTorch))));
    StatusOr<QParams> expected = calculateHistogramQParams(options, stats);
    StatusOr<QParams> actual = calculateCalibratedQParams(
        options, stats, calibrationOf(HistogramCalibration::PyTorch));
    ASSERT_TRUE(expected.ok() && actual.ok());
    EXPECT_TRUE(sameFloats(expected->scale, actual->scale));
    EXPECT_EQ(expected->zeroPoint, actual->zeroPoint);
  }
}

//===----------------------------------------------------------------------===//
// Properties
//===----------------------------------------------------------------------===//

/// Random histograms: sparse or dense, spikes, slightly negative counts
/// (PyTorch's merging), ranges on one side of 0 or across it.
std::vector<HistogramStats> randomHistograms() {
  std::mt19937 rng(7);
  std::uniform_real_distribution<float> unit(0.0f, 1.0f);
  std::vector<HistogramStats> result;
  const float bounds[][2] = {{-1.0f, 1.0f}, {0.0f, 6.0f},   {-3.0f, 0.5f},
                             {2.0f, 2.5f},  {-9.0f, -8.0f}, {-0.25f, 40.0f}};
  for (int i = 0; i < 24; ++i) {
    const size_t bins = i % 3 == 0 ? 2048 : 37 + 50 * i;
    std::vector<float> hist(bins);
    const float density = unit(rng);
    for (float &count : hist)
      count =
          unit(rng) < density ? std::floor(100 * unit(rng) * unit(rng)) : 0.0f;
    hist[rng() % bins] += 5000.0f;
    if (i % 4 == 1)
      hist[rng() % bins] = -1e-3f;
    const float *range = bounds[i % 6];
    result.push_back(statsOf(hist, range[0], range[1]));
  }
  return result;
}

std::vector<UniformObserverOptions> optionVariants() {
  UniformObserverOptions affine, symmetric, reduced, nibble;
  symmetric.dtype = DType::QInt8;
  symmetric.qscheme = QScheme::PerTensorSymmetric;
  reduced.reduceRange = true;
  nibble.dtype = DType::QUInt4x2;
  return {affine, symmetric, reduced, nibble};
}

TEST(HistogramCalibration, RangesStayInsideTheObservedRange) {
  for (const HistogramStats &stats : randomHistograms()) {
    for (const UniformObserverOptions &uniform : optionVariants()) {
      for (HistogramCalibration method : kMethods) {
        const std::vector<double> percentiles =
            method == HistogramCalibration::Percentile
                ? std::vector<double>{1e-9, 50.0, 99.99, 100.0}
                : std::vector<double>{99.99};
        for (double percentile : percentiles) {
          SCOPED_TRACE(std::string(toString(method)) + " bins " +
                       std::to_string(stats.histogram.size()) + " [" +
                       std::to_string(stats.min) + ", " +
                       std::to_string(stats.max) + "] percentile " +
                       std::to_string(percentile));
          auto [lo, hi] = rangeOf(optionsFor(stats, uniform), stats,
                                  calibrationOf(method, percentile));
          EXPECT_LE(stats.min, lo);
          EXPECT_LE(lo, hi);
          EXPECT_LE(hi, stats.max);
        }
      }
    }
  }
}

// The |x| histogram keeps the mass, and is the histogram itself when the
// range starts at 0.
TEST(HistogramCalibration, AbsoluteHistogramKeepsTheMass) {
  for (const HistogramStats &stats : randomHistograms()) {
    SCOPED_TRACE(std::to_string(stats.min) + " " + std::to_string(stats.max));
    double mass = 0;
    for (float count : stats.histogram)
      mass += std::max(0.0f, count);
    const std::vector<double> folded = absoluteHistogram(stats);
    EXPECT_LE(folded.size(), stats.histogram.size());
    EXPECT_NEAR(mass, std::accumulate(folded.begin(), folded.end(), 0.0),
                1e-12 * mass);
    if (stats.min == 0) {
      for (size_t k = 0; k < folded.size(); ++k)
        EXPECT_EQ(std::max(0.0f, stats.histogram[k]), folded[k]) << k;
    }
  }
}

// [-2, 2] folds bin k and its mirror 7 - k onto |x| bin |k - 3.5| - 0.5;
// [-1.25, 5] folds its first bin onto the second; [-0.5, 3.5] splits every
// bin between two |x| bins, the one holding 0 at 0.
TEST(HistogramCalibration, AbsoluteHistogramFoldsAroundZero) {
  EXPECT_EQ((std::vector<double>{9, 4, 5, 2}),
            absoluteHistogram(statsOf({1, 1, 2, 4, 5, 2, 4, 1}, -2, 2)));
  EXPECT_EQ((std::vector<double>{7, 2, 3, 4}),
            absoluteHistogram(statsOf({1, 6, 2, 3, 4}, -1.25f, 5)));
  EXPECT_EQ((std::vector<double>{4, 5, 7, 4}),
            absoluteHistogram(statsOf({2, 4, 6, 8}, -0.5f, 3.5f)));
}

TEST(HistogramCalibration, PercentileHundredKeepsEveryNonEmptyBin) {
  for (const HistogramStats &stats : randomHistograms()) {
    const auto calibration =
        calibrationOf(HistogramCalibration::Percentile, 100);
    std::pair<float, float> full =
        rangeOf(optionsFor(stats), stats, calibration);
    const bool extremeBinsHoldData =
        stats.histogram.front() > 0 && stats.histogram.back() > 0;
    if (extremeBinsHoldData) {
      EXPECT_TRUE(sameRange(stats.min, stats.max, full));
    }
  }
  // Empty bins at the top: the range ends at the last non-empty bin's edge.
  const HistogramStats stats = statsOf({3, 1, 0, 5, 2, 0, 0, 0}, 0, 8);
  EXPECT_TRUE(
      sameRange(0, 5,
                rangeOf(optionsFor(stats), stats,
                        calibrationOf(HistogramCalibration::Percentile, 100))));
  // 2 of 11 beyond 4: 81.8% kept; 81.9% needs bin 4 too.
  EXPECT_TRUE(sameRange(
      0, 4,
      rangeOf(optionsFor(stats), stats,
              calibrationOf(HistogramCalibration::Percentile, 81.8))));
  EXPECT_TRUE(sameRange(
      0, 5,
      rangeOf(optionsFor(stats), stats,
              calibrationOf(HistogramCalibration::Percentile, 81.9))));
  EXPECT_TRUE(sameRange(
      0, 1,
      rangeOf(optionsFor(stats), stats,
              calibrationOf(HistogramCalibration::Percentile, 1e-6))));
}

// Entropy keeps the whole range of a uniform distribution: clipping only
// moves mass into the last bin, and the merged Q equals P.
TEST(HistogramCalibration, EntropyKeepsUniformRange) {
  // [9, 12] puts 0 outside: |x| bins over [0, 12], the data from bin 1536.
  const float bounds[][2] = {{-1.0f, 1.0f}, {0.0f, 3.0f}, {9.0f, 12.0f}};
  for (const auto &bound : bounds) {
    const HistogramStats stats =
        statsOf(std::vector<float>(2048, 10.0f), bound[0], bound[1]);
    for (const UniformObserverOptions &uniform : optionVariants())
      EXPECT_TRUE(
          sameRange(bound[0], bound[1],
                    rangeOf(optionsFor(stats, uniform), stats,
                            calibrationOf(HistogramCalibration::Entropy))));
  }
}

// Data in [0, 1] of a histogram over [0, 4]: every stop from 1 on keeps
// P == Q; the narrowest range wins.
TEST(HistogramCalibration, EntropyTiesGoToTheNarrowestRange) {
  std::vector<float> hist(2048, 0.0f);
  std::fill(hist.begin(), hist.begin() + 512, 10.0f);
  const HistogramStats stats = statsOf(hist, 0, 4);
  EXPECT_TRUE(sameRange(0, 1,
                        rangeOf(optionsFor(stats), stats,
                                calibrationOf(HistogramCalibration::Entropy))));
}

/// A ReLU-like histogram over [0, 4]: a half-normal density.
std::vector<float> halfNormal(size_t bins) {
  std::vector<float> hist(bins);
  for (size_t k = 0; k < bins; ++k) {
    const double x = 4.0 * (static_cast<double>(k) + 0.5) / bins;
    hist[k] = std::round(200 * std::exp(-x * x / 2));
  }
  return hist;
}

// NVIDIA's bins[0] = bins[1]: the exact zeros of a ReLU do not change the
// entropy threshold; without it they would dominate the divergence.
TEST(HistogramCalibration, EntropyIgnoresTheZeroSpike) {
  const HistogramStats smooth = statsOf(halfNormal(2048), 0, 4);
  HistogramStats relu = smooth;
  relu.histogram[0] = 1e6f;
  const auto entropy = calibrationOf(HistogramCalibration::Entropy);
  auto [lo, hi] = rangeOf(optionsFor(smooth), smooth, entropy);
  EXPECT_EQ(0, lo);
  EXPECT_LT(hi, 4.0f);
  EXPECT_GT(hi, 3.0f);
  EXPECT_TRUE(sameRange(lo, hi, rangeOf(optionsFor(relu), relu, entropy)));
}

// All data in one bin far from 0: the search must not keep that bin alone
// (P and Q would both be a single bin, KL 0), whatever the scheme.
TEST(HistogramCalibration, EntropyKeepsDataAwayFromZero) {
  std::vector<float> hist(2048, 0.0f);
  for (size_t k = 1500; k < 1600; ++k)
    hist[k] = 50;
  const HistogramStats stats = statsOf(hist, 100, 101);
  for (const UniformObserverOptions &uniform : optionVariants()) {
    auto [lo, hi] = rangeOf(optionsFor(stats, uniform), stats,
                            calibrationOf(HistogramCalibration::Entropy));
    EXPECT_EQ(100, lo);
    EXPECT_GE(hi, 100.78f);
  }
}

// A bulk of 10000 in [-1, 1] and one value near 8: 8-bit steps over [-8, 8]
// (0.063) cost about 10000 * 0.063^2 / 12 = 3.3, clipping the outlier to 1
// about 47, so MSE keeps it; 4-bit steps (1.07) cost about 950: clip it.
TEST(HistogramCalibration, MseWeighsClippingAgainstRounding) {
  std::vector<float> hist(64, 0.0f);
  for (size_t k = 28; k < 36; ++k)
    hist[k] = 1250;
  hist[63] = 1;
  const HistogramStats stats = statsOf(hist, -8, 8);
  UniformObserverOptions nibble;
  nibble.dtype = DType::QUInt4x2;
  const auto mse = calibrationOf(HistogramCalibration::Mse);
  EXPECT_GE(rangeOf(optionsFor(stats), stats, mse).second, 7.75f);
  auto [lo, hi] = rangeOf(optionsFor(stats, nibble), stats, mse);
  EXPECT_LT(hi, 2.0f);
  EXPECT_EQ(-hi, lo);
}

// Slightly negative counts (PyTorch's merging) hold no data.
TEST(HistogramCalibration, NegativeCountsAreEmptyBins) {
  for (const HistogramStats &stats : randomHistograms()) {
    HistogramStats cleared = stats;
    for (float &count : cleared.histogram)
      count = std::max(0.0f, count);
    for (HistogramCalibration method :
         {HistogramCalibration::Entropy, HistogramCalibration::Percentile,
          HistogramCalibration::Mse}) {
      auto [lo, hi] =
          rangeOf(optionsFor(cleared), cleared, calibrationOf(method));
      EXPECT_TRUE(sameRange(
          lo, hi, rangeOf(optionsFor(stats), stats, calibrationOf(method))));
    }
  }
}

//===----------------------------------------------------------------------===//
// Edge cases and errors
//===----------------------------------------------------------------------===//

TEST(HistogramCalibration, NothingToClipKeepsTheRange) {
  const HistogramStats zeroMass = statsOf({0, -1e-3f, 0, 0}, -1, 2);
  const HistogramStats constant = statsOf({0, 7, 0}, 0.5f, 0.5f);
  for (const HistogramStats &stats : {zeroMass, constant})
    for (HistogramCalibration method :
         {HistogramCalibration::Entropy, HistogramCalibration::Percentile,
          HistogramCalibration::Mse})
      EXPECT_TRUE(
          sameRange(stats.min, stats.max,
                    rangeOf(optionsFor(stats), stats, calibrationOf(method))));
}

TEST(HistogramCalibration, UninitializedGivesPyTorchDefault) {
  HistogramStats stats;
  stats.histogram.assign(16, 0.0f);
  for (HistogramCalibration method : kMethods) {
    EXPECT_FALSE(
        chooseHistogramRange(optionsFor(stats), stats, calibrationOf(method))
            .ok());
    StatusOr<QParams> qparams = calculateCalibratedQParams(
        optionsFor(stats), stats, calibrationOf(method));
    ASSERT_TRUE(qparams.ok());
    EXPECT_EQ(std::vector<float>{1.0f}, qparams->scale);
    EXPECT_EQ(std::vector<int64_t>{0}, qparams->zeroPoint);
  }
}

TEST(HistogramCalibration, RejectsStatisticsNoObserverProduces) {
  const HistogramStats valid = statsOf({1, 2, 3, 4}, -1, 1);
  HistogramStats nanCount = valid, infCount = valid, inverted = valid,
                 nanMin = valid, wrongBins = valid;
  nanCount.histogram[2] = NAN;
  infCount.histogram[0] = INFINITY;
  inverted.min = 2;
  nanMin.min = NAN;
  wrongBins.histogram.push_back(1);
  for (HistogramCalibration method : kMethods)
    for (const HistogramStats &stats :
         {nanCount, infCount, inverted, nanMin, wrongBins}) {
      EXPECT_FALSE(
          chooseHistogramRange(optionsFor(valid), stats, calibrationOf(method))
              .ok());
      EXPECT_FALSE(calculateCalibratedQParams(optionsFor(valid), stats,
                                              calibrationOf(method))
                       .ok());
    }
}

TEST(HistogramCalibration, ValidatesPercentile) {
  for (double percentile : {0.0, -1.0, 100.5, double(NAN), double(INFINITY)})
    EXPECT_FALSE(validateHistogramCalibrationOptions(
                     calibrationOf(HistogramCalibration::Entropy, percentile))
                     .ok())
        << percentile;
  for (double percentile : {1e-9, 50.0, 100.0})
    EXPECT_TRUE(validateHistogramCalibrationOptions(
                    calibrationOf(HistogramCalibration::Percentile, percentile))
                    .ok());
  // Checked before anything else, even without data.
  HistogramStats stats;
  stats.histogram.assign(8, 0.0f);
  EXPECT_FALSE(calculateCalibratedQParams(
                   optionsFor(stats), stats,
                   calibrationOf(HistogramCalibration::Percentile, 0))
                   .ok());
}

TEST(HistogramCalibration, MseFailsOnRangesWiderThanFloat) {
  const HistogramStats stats = statsOf({1, 0, 0, 1}, -3e38f, 3e38f);
  EXPECT_FALSE(chooseHistogramRange(optionsFor(stats), stats,
                                    calibrationOf(HistogramCalibration::Mse))
                   .ok());
}

TEST(HistogramCalibration, ParsesMethodNames) {
  for (HistogramCalibration method : kMethods)
    EXPECT_EQ(method, parseHistogramCalibration(toString(method)));
  EXPECT_EQ("entropy", toString(HistogramCalibration::Entropy));
  EXPECT_FALSE(parseHistogramCalibration("kl").has_value());
  EXPECT_FALSE(parseHistogramCalibration("MSE").has_value());
}

} // namespace

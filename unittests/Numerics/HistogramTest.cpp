//===- HistogramTest.cpp - HistogramObserver against PyTorch goldens ------===//
//
// Goldens from scripts/goldens/gen_histogram_goldens.py (torch 1.13, AVX2):
// every float is compared bit for bit.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/TorchReductions.h"

#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <cstring>
#include <numeric>

using namespace mlir::quanta::numerics;
using quanta_test::GoldenCase;
using quanta_test::readGoldenFile;
using quanta_test::sameFloat;
using quanta_test::sameFloats;

namespace {

::testing::AssertionResult sameDouble(double expected, double actual) {
  if ((std::isnan(expected) && std::isnan(actual)) ||
      std::memcmp(&expected, &actual, sizeof(double)) == 0)
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << std::hexfloat << expected << " got " << actual;
}

HistogramOptions histogramOptionsOf(const GoldenCase &c) {
  HistogramOptions options;
  options.bins = c.getInt("bins");
  options.upsampleRate = c.getInt("upsample_rate");
  options.uniform = quanta_test::observerOptionsOf(c);
  options.exactHistcRange = c.getInt("exact_histc_range") != 0;
  return options;
}

std::string key(const char *prefix, int64_t index) {
  return prefix + std::to_string(index);
}

TEST(TorchSum, MatchesPyTorchCascadeSum) {
  for (const GoldenCase &c : readGoldenFile("histogram_sum.txt")) {
    SCOPED_TRACE(c.name);
    std::vector<float> data = c.floats("data");
    EXPECT_TRUE(
        sameFloat(c.getFloat("sum"), torchSum(data.data(), data.size())));
  }
}

TEST(TorchHistc, MatchesPyTorch) {
  for (const GoldenCase &c : readGoldenFile("histogram_histc.txt")) {
    SCOPED_TRACE(c.name);
    std::vector<float> data = c.floats("data");
    StatusOr<std::vector<float>> hist =
        torchHistc(data.data(), data.size(), c.getInt("bins"),
                   c.getDouble("min"), c.getDouble("max"));
    if (c.has("error")) {
      EXPECT_FALSE(hist.ok());
      continue;
    }
    ASSERT_TRUE(hist.ok()) << hist.getStatus().getMessage();
    EXPECT_TRUE(sameFloats(c.floats("hist"), *hist));
  }
}

// torch.histc bins in float32 as int64((x - left) / (right - left) * bins),
// dividing first; the divide_first_* goldens hold values near bin edges that
// (x - left) * bins / (right - left) puts in the neighbouring bin (the
// generator checks this with a model of both orders). With a power of two
// for bins or for the width both orders are exact and agree.
TEST(TorchHistc, DivideFirstCasesPresent) {
  size_t histc = 0, observer = 0;
  for (const GoldenCase &c : readGoldenFile("histogram_histc.txt"))
    histc += c.name.rfind("divide_first_", 0) == 0;
  for (const GoldenCase &c : readGoldenFile("histogram_observer.txt"))
    observer += c.name.rfind("divide_first_", 0) == 0;
  EXPECT_GE(histc, 7u);
  EXPECT_GE(observer, 4u);
}

/// Every quantization error the golden search evaluated, its result and the
/// qparams.
void checkSearch(const GoldenCase &c, const HistogramOptions &options,
                 const HistogramStats &stats) {
  if (c.has("new_min")) {
    std::vector<int64_t> starts = c.ints("trace_start"),
                         ends = c.ints("trace_end");
    std::vector<double> errors = c.doubles("trace_error");
    ASSERT_EQ(starts.size(), errors.size());
    for (size_t step = 0; step < starts.size(); ++step)
      EXPECT_TRUE(sameDouble(
          errors[step],
          histogramQuantizationError(options, stats, starts[step], ends[step])))
          << "search step " << step << " bins [" << starts[step] << ", "
          << ends[step] << "]";
    auto [newMin, newMax] = nonLinearParamSearch(options, stats);
    EXPECT_TRUE(sameFloat(c.getFloat("new_min"), newMin));
    EXPECT_TRUE(sameFloat(c.getFloat("new_max"), newMax));
  }

  StatusOr<QParams> qparams = calculateHistogramQParams(options, stats);
  ASSERT_TRUE(qparams.ok()) << qparams.getStatus().getMessage();
  EXPECT_TRUE(sameFloats(c.floats("scale"), qparams->scale));
  EXPECT_EQ(c.ints("zero_point"), qparams->zeroPoint);
}

/// Replays one golden observer run: every batch, then the search.
void checkObserverCase(const GoldenCase &c) {
  const HistogramOptions options = histogramOptionsOf(c);
  ASSERT_TRUE(validateHistogramOptions(options).ok());
  HistogramStats stats;
  const int64_t batches = c.getInt("batches");
  for (int64_t i = 0; i < batches; ++i) {
    SCOPED_TRACE("batch " + std::to_string(i));
    std::vector<float> data = c.floats(key("batch_", i));
    const HistogramStats before = stats;
    Status status = updateHistogram(stats, options, data.data(), data.size());
    if (c.has("error_batch") && c.getInt("error_batch") == i) {
      EXPECT_FALSE(status.ok());
      EXPECT_TRUE(sameFloats(before.histogram, stats.histogram));
      EXPECT_TRUE(sameFloat(before.min, stats.min));
      EXPECT_TRUE(sameFloat(before.max, stats.max));
      return;
    }
    ASSERT_TRUE(status.ok()) << status.getMessage();
    if (c.has(key("hist_", i))) {
      EXPECT_TRUE(sameFloats(c.floats(key("hist_", i)), stats.histogram));
    }
    EXPECT_TRUE(sameFloat(c.getFloat(key("min_", i)), stats.min));
    EXPECT_TRUE(sameFloat(c.getFloat(key("max_", i)), stats.max));
  }
  checkSearch(c, options, stats);
}

TEST(HistogramObserver, MatchesPyTorch) {
  for (const GoldenCase &c : readGoldenFile("histogram_observer.txt")) {
    SCOPED_TRACE(c.name);
    checkObserverCase(c);
  }
}

TEST(HistogramObserver, SearchMatchesPyTorch) {
  for (const GoldenCase &c : readGoldenFile("histogram_search.txt")) {
    SCOPED_TRACE(c.name);
    HistogramOptions options;
    options.uniform = quanta_test::observerOptionsOf(c);
    HistogramStats stats;
    stats.histogram = c.floats("state_hist");
    stats.min = c.getFloat("state_min");
    stats.max = c.getFloat("state_max");
    options.bins = static_cast<int64_t>(stats.histogram.size());
    checkSearch(c, options, stats);
  }
}

const GoldenCase &findCase(const std::vector<GoldenCase> &cases,
                           const std::string &name) {
  for (const GoldenCase &c : cases)
    if (c.name == name)
      return c;
  throw std::runtime_error("no golden case " + name);
}

float histogramMass(const HistogramStats &stats) {
  return std::accumulate(stats.histogram.begin(), stats.histogram.end(), 0.0f);
}

/// The histogram and qparams of one batch, with and without exactHistcRange.
struct TruncationRun {
  HistogramStats stats;
  QParams qparams;
};

TruncationRun observeOnce(HistogramOptions options, bool exact,
                          const std::vector<float> &data) {
  options.exactHistcRange = exact;
  TruncationRun run;
  EXPECT_TRUE(
      updateHistogram(run.stats, options, data.data(), data.size()).ok());
  StatusOr<QParams> qparams = calculateHistogramQParams(options, run.stats);
  EXPECT_TRUE(qparams.ok());
  run.qparams = *qparams;
  return run;
}

// PyTorch bins data in [-0.5, 2.7] over the int() bounds [0, 2]: 40% of the
// batch is missing from the histogram while min/max still span the data.
// exactHistcRange bins over [-0.5, 2.7] and keeps every value.
TEST(HistogramObserver, ExactHistcRangeKeepsTruncatedMass) {
  std::vector<GoldenCase> cases = readGoldenFile("histogram_observer.txt");
  const GoldenCase &c = findCase(cases, "trunc_drops_mass");
  std::vector<float> data = c.floats("batch_0");
  TruncationRun pytorch = observeOnce(histogramOptionsOf(c), false, data);
  TruncationRun exact = observeOnce(histogramOptionsOf(c), true, data);
  EXPECT_EQ(pytorch.stats.min, exact.stats.min);
  EXPECT_EQ(pytorch.stats.max, exact.stats.max);
  EXPECT_LT(histogramMass(pytorch.stats), 0.7f * data.size());
  EXPECT_EQ(histogramMass(exact.stats), static_cast<float>(data.size()));
}

// Heavy-tailed data in [-5.52, 9.07]: truncation to [-5, 9] drops only the
// three extreme values, yet the search then sees empty bins at both ends and
// clips to [-4.94, 7.15] (scale 0.0474), where the full histogram keeps
// [-5.52, 9.06] (scale 0.0572).
TEST(HistogramObserver, ExactHistcRangeChangesTheSearch) {
  std::vector<GoldenCase> cases = readGoldenFile("histogram_observer.txt");
  const GoldenCase &truncated = findCase(cases, "trunc_shifted_heavy_tail");
  const GoldenCase &full = findCase(cases, "exact_trunc_shifted_heavy_tail");
  std::vector<float> data = truncated.floats("batch_0");
  TruncationRun pytorch =
      observeOnce(histogramOptionsOf(truncated), false, data);
  TruncationRun exact = observeOnce(histogramOptionsOf(truncated), true, data);
  EXPECT_EQ(histogramMass(pytorch.stats), static_cast<float>(data.size() - 3));
  EXPECT_TRUE(sameFloats(truncated.floats("scale"), pytorch.qparams.scale));
  EXPECT_TRUE(sameFloats(full.floats("scale"), exact.qparams.scale));
  EXPECT_GT(exact.qparams.scale[0], 1.2f * pytorch.qparams.scale[0]);
}

TEST(HistogramObserver, HugeRangeGrowthIsNotMaterialised) {
  // The second batch's range is 10^12 times the first: PyTorch would
  // allocate bins * downsample_rate = 2.6e17 floats. The merged histogram
  // keeps (to float rounding) the mass of both batches.
  HistogramOptions options;
  HistogramStats stats;
  std::vector<float> small(100), large(100);
  for (size_t i = 0; i < small.size(); ++i) {
    small[i] = 1e-6f * static_cast<float>(i) / 100;
    large[i] = 1e6f * static_cast<float>(i) / 100;
  }
  ASSERT_TRUE(updateHistogram(stats, options, small.data(), small.size()).ok());
  Status status = updateHistogram(stats, options, large.data(), large.size());
  ASSERT_TRUE(status.ok()) << status.getMessage();
  EXPECT_EQ(stats.min, 0.0f);
  EXPECT_GE(stats.max, 990000.0f);
  EXPECT_NEAR(histogramMass(stats), 200.0f, 1e-3f);
}

/// `count` floats of a fixed pseudo-random sequence in [-scale, scale).
std::vector<float> uniformBatch(size_t count, float scale, uint32_t seed) {
  std::vector<float> data(count);
  for (float &value : data) {
    seed = seed * 1664525u + 1013904223u;
    value = scale * (static_cast<float>(seed >> 8) / 8388608.0f - 1.0f);
  }
  return data;
}

/// The default observer's state after a first batch in [-3.5, 3.5).
HistogramStats statsAfterFirstBatch(const HistogramOptions &options) {
  HistogramStats stats;
  std::vector<float> first = uniformBatch(1 << 16, 3.5f, 3);
  EXPECT_TRUE(updateHistogram(stats, options, first.data(), first.size()).ok());
  return stats;
}

// A batch inside the running range keeps the range: PyTorch's forward()
// adds torch.histc over the truncated bounds to the old histogram.
TEST(HistogramObserver, BatchInsideTheRangeAddsItsHistc) {
  HistogramOptions options;
  options.bins = 512;
  HistogramStats stats;
  std::vector<float> first = uniformBatch(1 << 19, 6.5f, 1);
  first[0] = -6.5f;
  first[1] = 6.5f;
  ASSERT_TRUE(updateHistogram(stats, options, first.data(), first.size()).ok());
  const HistogramStats before = stats;
  std::vector<float> inside = uniformBatch(3 * (1 << 18) + 5, 6.0f, 2);
  ASSERT_TRUE(
      updateHistogram(stats, options, inside.data(), inside.size()).ok());
  EXPECT_EQ(stats.min, before.min);
  EXPECT_EQ(stats.max, before.max);
  StatusOr<std::vector<float>> hist =
      torchHistc(inside.data(), inside.size(), options.bins,
                 std::trunc(before.min), std::trunc(before.max));
  ASSERT_TRUE(hist.ok());
  for (size_t bin = 0; bin < hist->size(); ++bin)
    (*hist)[bin] += before.histogram[bin];
  EXPECT_TRUE(sameFloats(*hist, stats.histogram));
}

// A batch that widens the range with its last element or with its first
// gives the same histogram: the counts do not depend on the order.
TEST(HistogramObserver, WideningBatchIsOrderIndependent) {
  HistogramOptions options;
  const HistogramStats start = statsAfterFirstBatch(options);
  std::vector<float> late = uniformBatch(5 * (1 << 18), 3.0f, 4);
  late.back() = 40.0f;
  std::vector<float> early(late.rbegin(), late.rend());
  HistogramStats afterLate = start, afterEarly = start;
  ASSERT_TRUE(
      updateHistogram(afterLate, options, late.data(), late.size()).ok());
  ASSERT_TRUE(
      updateHistogram(afterEarly, options, early.data(), early.size()).ok());
  EXPECT_EQ(afterLate.max, afterEarly.max);
  EXPECT_GE(afterLate.max, 40.0f);
  EXPECT_TRUE(sameFloats(afterEarly.histogram, afterLate.histogram));
}

// A NaN past the first chunks of the single-pass count (a batch otherwise
// inside the range) is still refused, and the state is left as it was.
TEST(HistogramObserver, LateNaNLeavesTheStateUnchanged) {
  HistogramOptions options;
  HistogramStats stats = statsAfterFirstBatch(options);
  std::vector<float> inside = uniformBatch(3 * (1 << 18), 3.0f, 5);
  inside[(1 << 18) * 2 + 3] = std::numeric_limits<float>::quiet_NaN();
  const HistogramStats before = stats;
  Status status = updateHistogram(stats, options, inside.data(), inside.size());
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.getMessage().find("NaN"), std::string::npos);
  EXPECT_EQ(stats.min, before.min);
  EXPECT_EQ(stats.max, before.max);
  EXPECT_TRUE(sameFloats(stats.histogram, before.histogram));
}

TEST(HistogramObserver, RejectsInvalidOptions) {
  HistogramOptions options;
  EXPECT_TRUE(validateHistogramOptions(options).ok());
  options.bins = 0;
  EXPECT_FALSE(validateHistogramOptions(options).ok());
  options.bins = 2048;
  options.upsampleRate = 0;
  EXPECT_FALSE(validateHistogramOptions(options).ok());
  options.upsampleRate = 1 << 14; // 2^25 upsampled cells
  EXPECT_FALSE(validateHistogramOptions(options).ok());
  options.upsampleRate = 128;
  options.uniform.qscheme = QScheme::PerChannelAffine;
  Status status = validateHistogramOptions(options);
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.getMessage().find("per_channel_affine"), std::string::npos);

  std::vector<float> data = {1.0f, 2.0f};
  HistogramStats stats;
  EXPECT_FALSE(updateHistogram(stats, options, data.data(), data.size()).ok());
  EXPECT_FALSE(stats.isInitialized());
}

TEST(HistogramObserver, RejectsStatsWithOtherBinCount) {
  HistogramOptions options;
  options.bins = 64;
  HistogramStats stats;
  std::vector<float> first = {0.0f, 3.0f}, second = {-1.0f, 5.0f};
  ASSERT_TRUE(updateHistogram(stats, options, first.data(), first.size()).ok());
  options.bins = 32;
  EXPECT_FALSE(
      updateHistogram(stats, options, second.data(), second.size()).ok());
  EXPECT_FALSE(calculateHistogramQParams(options, stats).ok());
}

} // namespace

//===- FakeQuantTest.cpp - Fake quantization vs PyTorch -------------------===//

#include "quanta/Numerics/FakeQuant.h"
#include "Golden.h"
#include "NumericsTestUtil.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;
using namespace quanta_test;

namespace {

constexpr float kInf = std::numeric_limits<float>::infinity();

TEST(FakeQuantGolden, PerTensorKernel) {
  for (const GoldenCase &c : readGoldenFile("fake_quant.txt")) {
    if (c.has("axis"))
      continue;
    SCOPED_TRACE(c.name);
    const std::vector<float> input = c.floats("input");
    std::vector<float> output(input.size());
    ASSERT_TRUE(fakeQuantizePerTensorAffine(
                    input.data(), output.data(), input.size(),
                    c.getFloat("scale"), c.getInt("zero_point"),
                    c.getInt("quant_min"), c.getInt("quant_max"))
                    .ok());
    EXPECT_TRUE(sameFloats(c.floats("output"), output));
  }
}

TEST(FakeQuantGolden, PerChannelKernel) {
  size_t cases = 0;
  for (const GoldenCase &c : readGoldenFile("fake_quant.txt")) {
    if (!c.has("axis"))
      continue;
    SCOPED_TRACE(c.name);
    const std::vector<float> input = c.floats("input");
    std::vector<float> output(input.size());
    Status status =
        c.getInt("float_zero_point")
            ? fakeQuantizePerChannelAffine(
                  input.data(), output.data(), c.ints("shape"),
                  c.getInt("axis"), c.floats("scale"), c.floats("zero_point"),
                  c.getInt("quant_min"), c.getInt("quant_max"))
            : fakeQuantizePerChannelAffine(
                  input.data(), output.data(), c.ints("shape"),
                  c.getInt("axis"), c.floats("scale"), c.ints("zero_point"),
                  c.getInt("quant_min"), c.getInt("quant_max"));
    ASSERT_TRUE(status.ok()) << status.getMessage();
    EXPECT_TRUE(sameFloats(c.floats("output"), output));
    ++cases;
  }
  EXPECT_GT(cases, 5u);
}

TEST(FakeQuantGolden, ChooseQuantizationParams) {
  for (const GoldenCase &c : readGoldenFile("choose_qparams.txt")) {
    const std::vector<float> mins = c.floats("min"), maxs = c.floats("max");
    for (size_t i = 0; i < mins.size(); ++i) {
      SCOPED_TRACE(c.name + " pair " + std::to_string(i));
      StatusOr<ChosenQParams> chosen = chooseQuantizationParams(
          mins[i], maxs[i], static_cast<int32_t>(c.getInt("quant_min")),
          static_cast<int32_t>(c.getInt("quant_max")),
          c.getInt("preserve_sparsity") != 0);
      const int64_t ok = c.ints("ok")[i];
      ASSERT_EQ(chosen.ok(), ok == 1)
          << (chosen.ok() ? "accepted" : chosen.getStatus().getMessage());
      if (ok != 1)
        continue;
      EXPECT_TRUE(
          sameFloat(c.floats("scale")[i], static_cast<float>(chosen->scale)));
      EXPECT_EQ(c.ints("zero_point")[i], chosen->zeroPoint);
    }
  }
}

FakeQuantizeOptions moduleOptionsOf(const GoldenCase &c) {
  FakeQuantizeOptions options;
  options.observer = kindOf(c.str("kind"));
  options.observerOptions = observerOptionsOf(c);
  options.averagingConstant = c.getDouble("averaging_constant");
  options.chAxis = c.getInt("ch_axis");
  if (c.has("bins")) {
    options.bins = c.getInt("bins");
    options.upsampleRate = c.getInt("upsample_rate");
  }
  return options;
}

/// Runs the golden steps on FakeQuantize or FusedMovingAvgObsFakeQuantize.
template <typename Module>
void runModuleSteps(const GoldenCase &c, Module &module) {
  const bool floatZeroPoint = module.getOptions().observerOptions.qscheme ==
                              QScheme::PerChannelAffineFloatQParams;
  for (int64_t step = 0; step < c.getInt("steps"); ++step) {
    const std::string n = std::to_string(step);
    SCOPED_TRACE("step " + n);
    module.enableObserver(c.getInt("observer_enabled" + n) != 0);
    module.enableFakeQuant(c.getInt("fake_quant_enabled" + n) != 0);
    const std::vector<float> input = c.floats("input" + n);
    std::vector<float> output(input.size());
    Status status =
        module.forward(input.data(), output.data(), c.ints("shape" + n));
    // ok 3: PyTorch could not allocate the grid of a histogram's range
    // growth, which Quanta merges without it (HugeRangeGrowthIsNot-
    // Materialised): nothing to compare from here on.
    if (c.getInt("ok" + n) == 3) {
      EXPECT_TRUE(status.ok()) << status.getMessage();
      return;
    }
    // ok 0: PyTorch raises; 2: PyTorch computes a non-finite scale, which
    // Quanta reports as an error.
    ASSERT_EQ(status.ok(), c.getInt("ok" + n) == 1)
        << (status.ok() ? "accepted" : status.getMessage());
    if (!status.ok())
      return;
    EXPECT_TRUE(sameFloats(c.floats("output" + n), output));
    const QParams &qparams = module.getQParams();
    if (c.has("qparams_size" + n)) {
      // PyTorch's buffers are resized but not yet initialized here.
      EXPECT_EQ(qparams.scale.size(),
                static_cast<size_t>(c.getInt("qparams_size" + n)));
    } else {
      EXPECT_TRUE(sameFloats(c.floats("scale" + n), qparams.scale));
      if (floatZeroPoint)
        EXPECT_TRUE(
            sameFloats(c.floats("zero_point" + n), qparams.floatZeroPoint));
      else
        EXPECT_EQ(c.ints("zero_point" + n), qparams.zeroPoint);
    }
    if (module.isPerChannel()) {
      EXPECT_TRUE(
          sameFloats(c.floats("min" + n), module.getPerChannelStats().min));
      EXPECT_TRUE(
          sameFloats(c.floats("max" + n), module.getPerChannelStats().max));
    } else {
      EXPECT_TRUE(sameFloat(c.getFloat("min" + n), module.getStats().min));
      EXPECT_TRUE(sameFloat(c.getFloat("max" + n), module.getStats().max));
    }
  }
}

TEST(FakeQuantGolden, Modules) {
  size_t fused = 0, plain = 0, histogram = 0;
  for (const GoldenCase &c : readGoldenFile("fake_quant_modules.txt")) {
    SCOPED_TRACE(c.name);
    const FakeQuantizeOptions options = moduleOptionsOf(c);
    if (c.str("module") == "fused") {
      StatusOr<FusedMovingAvgObsFakeQuantize> module =
          FusedMovingAvgObsFakeQuantize::create(options);
      ASSERT_TRUE(module.ok()) << module.getStatus().getMessage();
      runModuleSteps(c, *module);
      ++fused;
    } else {
      StatusOr<FakeQuantize> module = FakeQuantize::create(options);
      ASSERT_TRUE(module.ok()) << module.getStatus().getMessage();
      runModuleSteps(c, *module);
      ++plain;
      histogram += options.observer == ObserverKind::Histogram;
    }
  }
  EXPECT_GT(fused, 10u);
  EXPECT_GT(plain, 10u);
  EXPECT_GE(histogram, 6u);
}

TEST(FakeQuant, NonFiniteInputsMapToQuantMin) {
  // ATen's int64 conversion turns NaN and +-inf into INT64_MIN.
  const float input[] = {kInf, -kInf, std::nanf(""), 1e30f, 2.5f, 3.5f};
  float output[6];
  ASSERT_TRUE(
      fakeQuantizePerTensorAffine(input, output, 6, 1.0f, 3, 0, 255).ok());
  const float expected[] = {-3, -3, -3, -3, 2, 4};
  for (int i = 0; i < 6; ++i)
    EXPECT_EQ(output[i], expected[i]) << i;
}

TEST(FakeQuant, ArgumentErrors) {
  const float input[] = {1, 2, 3, 4};
  float output[4];
  EXPECT_FALSE(
      fakeQuantizePerTensorAffine(input, output, 4, 1.0f, 300, 0, 255).ok());
  EXPECT_FALSE(
      fakeQuantizePerTensorAffine(input, output, 4, 1.0f, 0, 10, 5).ok());
  Status negativeAxis =
      fakeQuantizePerChannelAffine(input, output, {2, 2}, -1, {1.0f, 1.0f},
                                   std::vector<int64_t>{0, 0}, 0, 255);
  ASSERT_FALSE(negativeAxis.ok());
  EXPECT_NE(negativeAxis.getMessage().find("negative"), std::string::npos);
  EXPECT_FALSE(fakeQuantizePerChannelAffine(input, output, {2, 2}, 0, {1.0f},
                                            std::vector<int64_t>{0}, 0, 255)
                   .ok());
}

TEST(FakeQuant, ModuleConstructorChecks) {
  FakeQuantizeOptions options;
  options.observerOptions.dtype = DType::QUInt8;
  options.observerOptions.quantMin = -1;
  options.observerOptions.quantMax = 200;
  StatusOr<FakeQuantize> outOfBounds = FakeQuantize::create(options);
  ASSERT_FALSE(outOfBounds.ok());
  EXPECT_NE(outOfBounds.getStatus().getMessage().find("torch.iinfo"),
            std::string::npos);
  // torch.iinfo(quint4x2) is 0..255, so FakeQuantize accepts 0..200 but the
  // Quanta observer rule rejects it.
  options.observerOptions.dtype = DType::QUInt4x2;
  options.observerOptions.quantMin = 0;
  EXPECT_FALSE(FakeQuantize::create(options).ok());

  FakeQuantizeOptions fused = FusedMovingAvgObsFakeQuantize::defaultOptions();
  fused.observer = ObserverKind::MinMax;
  EXPECT_FALSE(FusedMovingAvgObsFakeQuantize::create(fused).ok());
  fused.observer = ObserverKind::MovingAveragePerChannelMinMax;
  fused.observerOptions.qscheme = QScheme::PerChannelAffine;
  fused.chAxis = 1;
  EXPECT_FALSE(FusedMovingAvgObsFakeQuantize::create(fused).ok());
}

TEST(FakeQuant, FusedNeedsStatisticsBeforeFakeQuant) {
  StatusOr<FusedMovingAvgObsFakeQuantize> module =
      FusedMovingAvgObsFakeQuantize::create(
          FusedMovingAvgObsFakeQuantize::defaultOptions());
  ASSERT_TRUE(module.ok());
  module->enableObserver(false);
  const float input[] = {1, 2};
  float output[2];
  Status status = module->forward(input, output, {2});
  ASSERT_FALSE(status.ok());
  EXPECT_NE(status.getMessage().find("nothing was observed"),
            std::string::npos);
  // Empty batches are skipped entirely.
  EXPECT_TRUE(module->forward(input, output, {0}).ok());
}

// torch.quantize_per_channel's values with float zero points: rounding
// half to even, clamped; NaN takes quant_min (PyTorch's lrintf gives
// LONG_MIN, clamped).
TEST(FakeQuant, QuantizeFloatZeroPoint) {
  EXPECT_EQ(quantizeFloatZeroPoint(0.25f, 0.5f, 0.0f, 0, 255), 0);
  EXPECT_EQ(quantizeFloatZeroPoint(0.75f, 0.5f, 0.0f, 0, 255), 2);
  EXPECT_EQ(quantizeFloatZeroPoint(-1.0f, 0.5f, 3.5f, 0, 15), 2);
  EXPECT_EQ(quantizeFloatZeroPoint(100.0f, 0.5f, 3.5f, 0, 15), 15);
  EXPECT_EQ(quantizeFloatZeroPoint(-100.0f, 0.5f, 3.5f, 0, 15), 0);
  EXPECT_EQ(quantizeFloatZeroPoint(std::nanf(""), 0.5f, 3.5f, 0, 255), 0);
}

// The rows of PyTorch's quantized embeddings: float32 scale and bias
// (-zero_point * scale) for 8 bits, both rounded to float16 for 4 bits
// (0.1 is 0.0999755859375 in half precision); the lookup is one fused
// multiply-add.
TEST(FakeQuant, EmbeddingRows) {
  EmbeddingRow byte = getEmbeddingRow(0.1f, 7.25f, 8);
  EXPECT_EQ(byte.scale, 0.1f);
  EXPECT_EQ(byte.bias, -7.25f * 0.1f);
  EXPECT_EQ(byte.lookup(3), std::fma(3.0f, 0.1f, -7.25f * 0.1f));
  EmbeddingRow nibble = getEmbeddingRow(0.1f, 7.25f, 4);
  EXPECT_EQ(nibble.scale, 0.0999755859375f);
  EXPECT_EQ(nibble.bias, -0.72509765625f);
  EXPECT_EQ(nibble.lookup(15), std::fma(15.0f, nibble.scale, nibble.bias));
}

} // namespace

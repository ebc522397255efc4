//===- IntegerKernelsTest.cpp - Reference integer kernels -----------------===//
//
// Every kernel output is checked twice: bit for bit against the direct
// (unexpanded) integer form sum((a - za) * (b - zb)) + bias_q requantized,
// and within 1 LSB of the real-valued result (dequantize, op in double,
// quantize). The goldens compare with PyTorch 1.13's quantized ops on the
// qnnpack and onednn engines and print how many outputs differ by 1.
// Differences are allowed to be 1 LSB: both engines requantize linear/conv
// accumulators with a float multiplier (qnnpack: float(acc) * ((s_a * s_w)
// * (1 / s_o)), rounded half to even; oneDNN: float output scales), where
// Quanta uses the 31-bit fixed-point multiplier with ties rounded up, so
// values within float precision of a half-integer can round differently;
// onednn's add and mul and both engines' mul are ATen's float kernels. The
// bias quantization and qnnpack's add must match exactly.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/IntegerKernels.h"
#include "Golden.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <tuple>
#include <type_traits>
#include <vector>

using namespace mlir::quanta::numerics;
using namespace quanta_test;

namespace {

/// How two output tensors compare.
struct DiffStats {
  int64_t exact = 0;
  int64_t offByOne = 0;
  int64_t worse = 0;

  void add(const std::vector<int32_t> &expected,
           const std::vector<int32_t> &actual) {
    ASSERT_EQ(expected.size(), actual.size());
    for (size_t i = 0; i < expected.size(); ++i) {
      int32_t diff = std::abs(expected[i] - actual[i]);
      (diff == 0 ? exact : diff == 1 ? offByOne : worse) += 1;
    }
  }
  void print(const std::string &what) const {
    std::printf("[ stats    ] %-28s %7lld exact, %5lld off by 1, %lld worse\n",
                what.c_str(), static_cast<long long>(exact),
                static_cast<long long>(offByOne),
                static_cast<long long>(worse));
  }
};

/// A convolution (or a matmul: 1x1 kernel, height 1, width M, channels K,
/// filters N) with its data as integers.
struct ConvCase {
  Conv2dShape shape;
  QuantizedGemmParams params;
  std::vector<int32_t> input; // NHWC
  std::vector<int8_t> filter; // HWCF
  std::vector<float> bias;    // empty: none

  const float *biasData() const { return bias.empty() ? nullptr : bias.data(); }
  int64_t outputSize() const {
    return shape.batch * shape.outputHeight() * shape.outputWidth() *
           shape.filters;
  }
};

Conv2dShape matmulShape(int64_t m, int64_t k, int64_t n) {
  Conv2dShape shape;
  shape.width = m;
  shape.channels = k;
  shape.filters = n;
  return shape;
}

float weightScale(const QuantizedGemmParams &params, int64_t f) {
  const std::vector<float> &scales = params.weight.scales;
  return scales[scales.size() == 1 ? 0 : f];
}

int32_t weightZeroPoint(const QuantizedGemmParams &params, int64_t f) {
  const std::vector<int32_t> &zps = params.weight.zeroPoints;
  return zps[zps.size() == 1 ? 0 : f];
}

/// Direct convolution by definition, independent of the kernels' im2col and
/// zero-point expansion: padded taps are skipped (they are za, so a - za is
/// 0). `exact` is sum((a - za) * (b - zb)) + bias_q, `real` the same in
/// double with the float bias.
struct Accumulators {
  std::vector<int64_t> exact;
  std::vector<double> real;
};

Accumulators referenceAccumulators(const ConvCase &c) {
  const Conv2dShape &s = c.shape;
  const int64_t outH = s.outputHeight(), outW = s.outputWidth();
  const int64_t groupChannels = s.channels / s.groups;
  const int64_t groupFilters = s.filters / s.groups;
  const int32_t za = c.params.input.zeroPoint;
  std::vector<int32_t> biasQ(s.filters, 0);
  if (!c.bias.empty())
    biasQ = quantizeBias(c.bias.data(), s.filters, c.params.input.scale,
                         c.params.weight.scales);
  Accumulators acc;
  for (int64_t b = 0; b < s.batch; ++b)
    for (int64_t oh = 0; oh < outH; ++oh)
      for (int64_t ow = 0; ow < outW; ++ow)
        for (int64_t f = 0; f < s.filters; ++f) {
          const int64_t g = f / groupFilters;
          const int32_t zb = weightZeroPoint(c.params, f);
          int64_t exact = biasQ[f];
          double real = c.bias.empty() ? 0.0 : c.bias[f];
          for (int64_t kh = 0; kh < s.kernelHeight; ++kh)
            for (int64_t kw = 0; kw < s.kernelWidth; ++kw) {
              int64_t ih =
                  oh * s.strideHeight - s.padTop + kh * s.dilationHeight;
              int64_t iw =
                  ow * s.strideWidth - s.padLeft + kw * s.dilationWidth;
              if (ih < 0 || ih >= s.height || iw < 0 || iw >= s.width)
                continue;
              for (int64_t c2 = 0; c2 < groupChannels; ++c2) {
                int32_t a =
                    c.input[((b * s.height + ih) * s.width + iw) * s.channels +
                            g * groupChannels + c2];
                int32_t w =
                    c.filter[((kh * s.kernelWidth + kw) * groupChannels + c2) *
                                 s.filters +
                             f];
                exact += int64_t(a - za) * (w - zb);
                real += double(c.params.input.scale) * (a - za) *
                        double(weightScale(c.params, f)) * (w - zb);
              }
            }
          acc.exact.push_back(exact);
          acc.real.push_back(real);
        }
  return acc;
}

/// clamp(zo + round(clamp(real, lo, hi) / s_o)), ties to even, in double.
int32_t quantizeReal(double real, ActivationQParams output, DType type,
                     FusedActivation activation) {
  QRange range = dtypeRange(type);
  real = std::min(std::max(real, double(activation.lo)), double(activation.hi));
  double q = std::nearbyint(real / output.scale) + output.zeroPoint;
  return static_cast<int32_t>(
      std::min(std::max(q, double(range.quantMin)), double(range.quantMax)));
}

/// Picks the output scale and zero point from the real outputs; `coverage`
/// below 1 saturates part of them.
ActivationQParams outputQParamsFor(const std::vector<double> &real, DType type,
                                   double coverage) {
  QRange range = dtypeRange(type);
  double lo = std::min(0.0, *std::min_element(real.begin(), real.end()));
  double hi = std::max(0.0, *std::max_element(real.begin(), real.end()));
  if (hi == lo)
    hi = lo + 1.0;
  float scale = static_cast<float>((hi - lo) * coverage /
                                   double(range.quantMax - range.quantMin));
  int64_t zp = range.quantMin + std::llround(-lo / scale);
  return {scale, static_cast<int32_t>(
                     std::clamp<int64_t>(zp, range.quantMin, range.quantMax))};
}

/// Calls f(In(), Out()) with the storage types of two 8-bit dtypes.
template <typename F> auto withStorageTypes(DType in, DType out, F &&f) {
  if (in == DType::QUInt8)
    return out == DType::QUInt8 ? f(uint8_t(), uint8_t())
                                : f(uint8_t(), int8_t());
  return out == DType::QUInt8 ? f(int8_t(), uint8_t()) : f(int8_t(), int8_t());
}

/// Runs the case through quantizedConv2d, or quantizedMatmul when
/// `asMatmul` (the shape must then be matmulShape's).
std::vector<int32_t> runCase(const ConvCase &c, const IntegerGemm &gemm,
                             bool asMatmul) {
  return withStorageTypes(
      gemm.inputType, gemm.outputType, [&](auto in, auto out) {
        using In = decltype(in);
        using Out = decltype(out);
        std::vector<In> input(c.input.begin(), c.input.end());
        std::vector<Out> output(c.outputSize());
        Status status = asMatmul ? quantizedMatmul(gemm, input.data(),
                                                   c.shape.width, output.data())
                                 : quantizedConv2d(gemm, c.shape, input.data(),
                                                   output.data());
        EXPECT_TRUE(status.ok()) << status.getMessage();
        return std::vector<int32_t>(output.begin(), output.end());
      });
}

/// Prepares and runs the case, checks it bit for bit against the direct
/// integer form and within 1 LSB of the real result (counted in `stats`).
void checkCase(const ConvCase &c, bool asMatmul, DiffStats &stats) {
  StatusOr<IntegerGemm> gemm =
      prepareIntegerGemm(c.params, c.filter.data(), c.shape.patchSize(),
                         c.shape.filters, c.biasData());
  ASSERT_TRUE(gemm.ok()) << gemm.getStatus().getMessage();
  std::vector<int32_t> actual = runCase(c, *gemm, asMatmul);
  Accumulators acc = referenceAccumulators(c);
  std::vector<int32_t> exact, real;
  for (size_t i = 0; i < acc.exact.size(); ++i) {
    int64_t f = static_cast<int64_t>(i) % c.shape.filters;
    ASSERT_EQ(acc.exact[i], static_cast<int32_t>(acc.exact[i]));
    exact.push_back(requantize(static_cast<int32_t>(acc.exact[i]),
                               gemm->multipliers[f], gemm->outputZeroPoint,
                               gemm->outputRange.quantMin,
                               gemm->outputRange.quantMax));
    real.push_back(quantizeReal(acc.real[i], c.params.output,
                                c.params.outputType, c.params.activation));
  }
  ASSERT_EQ(exact, actual);
  DiffStats caseStats;
  caseStats.add(real, actual);
  EXPECT_EQ(caseStats.worse, 0);
  stats.exact += caseStats.exact;
  stats.offByOne += caseStats.offByOne;
  stats.worse += caseStats.worse;
}

/// Random data and qparams for `shape`. Zero points are random or at the
/// ends of their range, data random or only the range's ends.
struct RandomCaseMaker {
  std::mt19937 rng;

  int64_t uniform(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }
  double real(double lo, double hi) {
    return std::uniform_real_distribution<double>(lo, hi)(rng);
  }
  float logScale(double lo, double hi) {
    return static_cast<float>(std::exp(real(std::log(lo), std::log(hi))));
  }
  int32_t zeroPoint(QRange range) {
    switch (uniform(0, 3)) {
    case 0:
      return static_cast<int32_t>(range.quantMin);
    case 1:
      return static_cast<int32_t>(range.quantMax);
    default:
      return static_cast<int32_t>(uniform(range.quantMin, range.quantMax));
    }
  }
  std::vector<int32_t> values(int64_t size, QRange range, bool extreme) {
    std::vector<int32_t> result(size);
    for (int32_t &v : result)
      v = static_cast<int32_t>(
          extreme ? (uniform(0, 1) ? range.quantMax : range.quantMin)
                  : uniform(range.quantMin, range.quantMax));
    return result;
  }
  FusedActivation activation() {
    switch (uniform(0, 4)) {
    case 0:
      return FusedActivation::relu();
    case 1:
      return FusedActivation::relu6();
    case 2:
      return FusedActivation::clamp(static_cast<float>(real(-3, 0)),
                                    static_cast<float>(real(0.1, 3)));
    default:
      return FusedActivation::none();
    }
  }

  ConvCase make(const Conv2dShape &shape) {
    ConvCase c;
    c.shape = shape;
    QuantizedGemmParams &p = c.params;
    p.inputType = uniform(0, 1) ? DType::QUInt8 : DType::QInt8;
    p.outputType = uniform(0, 1) ? DType::QUInt8 : DType::QInt8;
    QRange inputRange = dtypeRange(p.inputType);
    p.input = {logScale(1e-3, 1e-1), zeroPoint(inputRange)};
    bool perChannel = uniform(0, 1);
    size_t channels = perChannel ? shape.filters : 1;
    for (size_t ch = 0; ch < channels; ++ch) {
      p.weight.scales.push_back(logScale(1e-3, 5e-2));
      // Symmetric per-channel weights as PyTorch's, sometimes asymmetric.
      p.weight.zeroPoints.push_back(
          uniform(0, 2) == 0 ? static_cast<int32_t>(uniform(-128, 127)) : 0);
    }
    bool extreme = uniform(0, 5) == 0;
    int64_t inputSize =
        shape.batch * shape.height * shape.width * shape.channels;
    c.input = values(inputSize, inputRange, extreme);
    for (int32_t w : values(shape.patchSize() * shape.filters,
                            dtypeRange(DType::QInt8), extreme))
      c.filter.push_back(static_cast<int8_t>(w));
    if (uniform(0, 3) != 0)
      for (int64_t f = 0; f < shape.filters; ++f)
        c.bias.push_back(static_cast<float>(real(-1, 1) * p.input.scale *
                                            weightScale(p, f) * 3000));
    p.activation = activation();
    // Output qparams from the real outputs; sometimes a zero point at the
    // range's end, sometimes heavy saturation.
    std::vector<double> realOut = referenceAccumulators(c).real;
    double coverage = uniform(0, 4) == 0 ? 0.1 : real(0.6, 1.2);
    p.output = outputQParamsFor(realOut, p.outputType, coverage);
    if (uniform(0, 5) == 0)
      p.output.zeroPoint = zeroPoint(dtypeRange(p.outputType));
    return c;
  }
};

//===----------------------------------------------------------------------===//
// Constants
//===----------------------------------------------------------------------===//

TEST(IntegerGemm, PrepareFoldsConstants) {
  // B = [[1, -2], [4, 5]]: column sums 5 and 3.
  const int8_t b[] = {1, -2, 4, 5};
  EXPECT_EQ(computeColumnSums(b, 2, 2), (std::vector<int32_t>{5, 3}));
  QuantizedGemmParams params;
  params.input = {0.5f, 3};
  params.weight = {{0.25f}, {2}};
  params.output = {0.125f, 100};
  params.activation = FusedActivation::relu();
  const float bias[] = {1.0f, -0.375f}; // / (0.5 * 0.25): 8 and -3
  StatusOr<IntegerGemm> gemm = prepareIntegerGemm(params, b, 2, 2, bias);
  ASSERT_TRUE(gemm.ok()) << gemm.getStatus().getMessage();
  // bias_q - za * colsum + K * za * zb.
  EXPECT_EQ(gemm->columnOffsets,
            (std::vector<int32_t>{8 - 3 * 5 + 2 * 3 * 2, -3 - 3 * 3 + 12}));
  EXPECT_EQ(gemm->weightZeroPoints, (std::vector<int32_t>{2, 2}));
  ASSERT_EQ(gemm->multipliers.size(), 2u);
  EXPECT_EQ(gemm->multipliers[0], *quantizeMultiplier(1.0)); // 0.5*0.25/0.125
  EXPECT_EQ(gemm->outputRange, (QRange{100, 255}));
  // a = [5, 7]: (5-3)(1-2) + (7-3)(4-2) + 8 = 14; (5-3)(-2-2) + (7-3)(5-2) - 3
  // = 1.
  const uint8_t a[] = {5, 7};
  uint8_t out[2];
  ASSERT_TRUE(quantizedMatmul(*gemm, a, 1, out).ok());
  EXPECT_EQ(out[0], 114);
  EXPECT_EQ(out[1], 101);
}

TEST(IntegerGemm, PerChannelMultipliers) {
  const int8_t b[] = {1, 2, 3};
  QuantizedGemmParams params;
  params.input = {0.02f, 0};
  params.weight = {{0.01f, 0.03f, 0.5f}, {0, 0, 0}};
  params.output = {0.1f, 0};
  StatusOr<IntegerGemm> gemm = prepareIntegerGemm(params, b, 1, 3, nullptr);
  ASSERT_TRUE(gemm.ok());
  for (int ch = 0; ch < 3; ++ch)
    EXPECT_EQ(gemm->multipliers[ch],
              *quantizeMultiplier(double(0.02f) * params.weight.scales[ch] /
                                  double(0.1f)));
}

//===----------------------------------------------------------------------===//
// Matmul and convolution against the references
//===----------------------------------------------------------------------===//

TEST(IntegerMatmul, RandomAgainstReferences) {
  RandomCaseMaker maker{std::mt19937(11)};
  DiffStats stats;
  for (int i = 0; i < 400; ++i) {
    Conv2dShape shape = matmulShape(maker.uniform(1, 9), maker.uniform(1, 70),
                                    maker.uniform(1, 19));
    SCOPED_TRACE("case " + std::to_string(i));
    checkCase(maker.make(shape), /*asMatmul=*/true, stats);
    if (HasFatalFailure())
      return;
  }
  stats.print("matmul vs real");
  EXPECT_GT(stats.exact, 50 * stats.offByOne);
}

TEST(IntegerMatmul, EdgeCases) {
  RandomCaseMaker maker{std::mt19937(12)};
  DiffStats stats;
  for (auto [m, k, n] : {std::tuple{1, 1, 1},
                         {1, 1, 9},
                         {7, 1, 1},
                         {1, 300, 1},
                         {3, 2, 2},
                         {5, 2000, 3}})
    for (int i = 0; i < 12; ++i) {
      ConvCase c = maker.make(matmulShape(m, k, n));
      if (i == 0) { // zero points and data at the same end: large |acc|
        c.params.input.zeroPoint =
            static_cast<int32_t>(dtypeRange(c.params.inputType).quantMin);
        std::fill(c.input.begin(), c.input.end(),
                  dtypeRange(c.params.inputType).quantMax);
        std::fill(c.filter.begin(), c.filter.end(), int8_t(-128));
        c.params.weight.zeroPoints.assign(c.params.weight.zeroPoints.size(),
                                          127);
      }
      SCOPED_TRACE(std::to_string(m) + "x" + std::to_string(k) + "x" +
                   std::to_string(n) + " #" + std::to_string(i));
      checkCase(c, /*asMatmul=*/true, stats);
    }
  stats.print("matmul edge cases vs real");
}

TEST(IntegerConv2d, RandomAgainstReferences) {
  RandomCaseMaker maker{std::mt19937(13)};
  DiffStats stats;
  for (int i = 0; i < 250; ++i) {
    Conv2dShape s;
    s.batch = maker.uniform(1, 2);
    s.groups = maker.uniform(0, 2) == 0 ? 1 : maker.uniform(1, 4);
    s.channels = s.groups * maker.uniform(1, 3);
    if (maker.uniform(0, 3) == 0) { // depthwise, depth multiplier 1-2
      s.groups = s.channels;
      s.filters = s.channels * maker.uniform(1, 2);
    } else {
      s.filters = s.groups * maker.uniform(1, 3);
    }
    s.kernelHeight = maker.uniform(1, 4);
    s.kernelWidth = maker.uniform(1, 4);
    s.strideHeight = maker.uniform(1, 3);
    s.strideWidth = maker.uniform(1, 3);
    s.dilationHeight = maker.uniform(1, 2);
    s.dilationWidth = maker.uniform(1, 2);
    s.padTop = maker.uniform(0, 2);
    s.padBottom = maker.uniform(0, 2);
    s.padLeft = maker.uniform(0, 2);
    s.padRight = maker.uniform(0, 2);
    s.height = maker.uniform(1, 8);
    s.width = maker.uniform(1, 8);
    if (s.outputHeight() < 1 || s.outputWidth() < 1)
      continue;
    SCOPED_TRACE("case " + std::to_string(i));
    checkCase(maker.make(s), /*asMatmul=*/false, stats);
    if (HasFatalFailure())
      return;
  }
  stats.print("conv2d vs real");
  EXPECT_GT(stats.exact, 50 * stats.offByOne);
}

TEST(IntegerConv2d, PaddingReadsInputZeroPoint) {
  // An input equal to za everywhere is real zero, padding included: every
  // output is the requantized bias, at the borders too. Padding with 0
  // instead of za would change the border outputs.
  Conv2dShape s;
  s.height = s.width = 4;
  s.channels = 2;
  s.filters = 3;
  s.kernelHeight = s.kernelWidth = 3;
  s.padTop = s.padBottom = s.padLeft = s.padRight = 2;
  for (DType type : {DType::QUInt8, DType::QInt8}) {
    ConvCase c;
    c.shape = s;
    c.params.inputType = type;
    c.params.input = {0.05f, type == DType::QUInt8 ? 200 : -77};
    c.params.weight = {{0.01f}, {5}};
    c.params.output = {0.01f, 10};
    c.input.assign(s.height * s.width * s.channels, c.params.input.zeroPoint);
    for (int64_t i = 0; i < s.patchSize() * s.filters; ++i)
      c.filter.push_back(static_cast<int8_t>(i * 37 % 256 - 128));
    c.bias = {0.01f, -0.02f, 0.03f}; // bias_q 20, -40, 60; M = 0.05
    StatusOr<IntegerGemm> gemm = prepareIntegerGemm(
        c.params, c.filter.data(), s.patchSize(), s.filters, c.bias.data());
    ASSERT_TRUE(gemm.ok());
    std::vector<int32_t> out = runCase(c, *gemm, /*asMatmul=*/false);
    ASSERT_EQ(out.size(), size_t(6 * 6 * 3));
    const int32_t expected[] = {11, 8, 13};
    for (size_t i = 0; i < out.size(); ++i)
      EXPECT_EQ(out[i], expected[i % 3]) << i;
  }
}

//===----------------------------------------------------------------------===//
// Add and mul
//===----------------------------------------------------------------------===//

struct ElementwiseQParams {
  ActivationQParams a, b, output;
  FusedActivation activation;
};

/// Every pair of 8-bit inputs against the real result.
template <typename Op>
void checkElementwiseExhaustive(const Op &op, DType type,
                                const ElementwiseQParams &q, bool isAdd,
                                DiffStats &stats) {
  QRange range = dtypeRange(type);
  std::vector<int32_t> expected, actual;
  for (int64_t a = range.quantMin; a <= range.quantMax; ++a)
    for (int64_t b = range.quantMin; b <= range.quantMax; ++b) {
      double ra = double(q.a.scale) * (a - q.a.zeroPoint);
      double rb = double(q.b.scale) * (b - q.b.zeroPoint);
      expected.push_back(quantizeReal(isAdd ? ra + rb : ra * rb, q.output, type,
                                      q.activation));
      actual.push_back(
          op.apply(static_cast<int32_t>(a), static_cast<int32_t>(b)));
    }
  DiffStats caseStats;
  caseStats.add(expected, actual);
  EXPECT_EQ(caseStats.worse, 0);
  stats.exact += caseStats.exact;
  stats.offByOne += caseStats.offByOne;
}

std::vector<ElementwiseQParams> elementwiseQParams(DType type, bool isAdd) {
  std::mt19937 rng(isAdd ? 21 : 22);
  QRange range = dtypeRange(type);
  auto zp = [&] {
    return static_cast<int32_t>(std::uniform_int_distribution<int64_t>(
        range.quantMin, range.quantMax)(rng));
  };
  auto scale = [&](double lo, double hi) {
    return static_cast<float>(std::exp(std::uniform_real_distribution<double>(
        std::log(lo), std::log(hi))(rng)));
  };
  std::vector<ElementwiseQParams> result;
  for (int i = 0; i < 12; ++i) {
    ElementwiseQParams q;
    q.a = {scale(1e-3, 1e-1), zp()};
    q.b = {scale(1e-3, 1e-1), zp()};
    // Output scales from 100x below to 100x above the inputs' (mul: of
    // their product).
    float base =
        isAdd ? std::max(q.a.scale, q.b.scale) : q.a.scale * q.b.scale * 64;
    q.output = {base * scale(0.01, 100), zp()};
    if (i == 0)
      q.output.zeroPoint = static_cast<int32_t>(range.quantMin);
    if (i == 1)
      q.output.zeroPoint = static_cast<int32_t>(range.quantMax);
    q.activation = i % 3 == 0   ? FusedActivation::relu()
                   : i % 3 == 1 ? FusedActivation::none()
                                : FusedActivation::relu6();
    result.push_back(q);
  }
  return result;
}

TEST(IntegerElementwise, AddExhaustiveAgainstReal) {
  DiffStats stats;
  for (DType type : {DType::QUInt8, DType::QInt8})
    for (const ElementwiseQParams &q : elementwiseQParams(type, true)) {
      StatusOr<IntegerAdd> add =
          prepareIntegerAdd(type, q.a, q.b, q.output, q.activation);
      ASSERT_TRUE(add.ok()) << add.getStatus().getMessage();
      EXPECT_GE(add->shift, 14);
      EXPECT_LE(add->shift, 31);
      checkElementwiseExhaustive(*add, type, q, true, stats);
    }
  stats.print("add vs real");
}

TEST(IntegerElementwise, MulExhaustiveAgainstReal) {
  DiffStats stats;
  for (DType type : {DType::QUInt8, DType::QInt8})
    for (const ElementwiseQParams &q : elementwiseQParams(type, false)) {
      StatusOr<IntegerMul> mul =
          prepareIntegerMul(type, q.a, q.b, q.output, q.activation);
      ASSERT_TRUE(mul.ok()) << mul.getStatus().getMessage();
      checkElementwiseExhaustive(*mul, type, q, false, stats);
    }
  stats.print("mul vs real");
}

TEST(IntegerElementwise, AddQnnpackParameters) {
  // s_a / s_o = 0.5 (exponent -1): shift 22, multiplier 2^21; s_b / s_o =
  // 0.35f: lrintf(0.35f * 2^22).
  StatusOr<IntegerAdd> add =
      prepareIntegerAdd(DType::QUInt8, {0.1f, 3}, {0.07f, 200}, {0.2f, 100},
                        FusedActivation::none());
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->shift, 22);
  EXPECT_EQ(add->aMultiplier, 1 << 21);
  EXPECT_EQ(add->bMultiplier, std::lrint((0.07f / 0.2f) * 0x1p22f));
  // Tiny ratios: QNNPACK's shift would exceed 31; it is capped.
  add = prepareIntegerAdd(DType::QUInt8, {1e-4f, 0}, {1e-4f, 0}, {1.0f, 0},
                          FusedActivation::none());
  ASSERT_TRUE(add.ok());
  EXPECT_EQ(add->shift, 31);
  EXPECT_EQ(add->apply(255, 255), 0);
}

TEST(IntegerElementwise, BuffersAndTypes) {
  StatusOr<IntegerMul> mul = prepareIntegerMul(
      DType::QInt8, {0.1f, -3}, {0.2f, 4}, {0.05f, 1}, FusedActivation::none());
  ASSERT_TRUE(mul.ok());
  const int8_t a[] = {-3, 7, 127, -128};
  const int8_t b[] = {100, 9, 127, -128};
  int8_t out[4];
  ASSERT_TRUE(quantizedElementwise(*mul, a, b, out, 4).ok());
  // (7 + 3) * (9 - 4) * 0.02 / 0.05 = 20.
  EXPECT_EQ(std::vector<int>(out, out + 4),
            (std::vector<int>{1, 21, 127, 127}));
  const uint8_t ua[] = {1};
  uint8_t uout[1];
  EXPECT_FALSE(quantizedElementwise(*mul, ua, ua, uout, 1).ok());
  EXPECT_FALSE(quantizedElementwise(*mul, a, b, out, -1).ok());
}

//===----------------------------------------------------------------------===//
// The product of two activations
//===----------------------------------------------------------------------===//

/// Random products of every pair of input types against the real product
/// of the dequantized values, rounded and clamped: within one step.
template <typename A, typename B, typename Out>
static void checkProductsAgainstReal(std::mt19937 &rng, DiffStats &stats) {
  auto draw = [&](int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  };
  for (int i = 0; i < 40; ++i) {
    const DType aType = std::is_signed_v<A> ? DType::QInt8 : DType::QUInt8;
    const DType bType = std::is_signed_v<B> ? DType::QInt8 : DType::QUInt8;
    const DType outType = std::is_signed_v<Out> ? DType::QInt8 : DType::QUInt8;
    const QRange aRange = dtypeRange(aType), bRange = dtypeRange(bType),
                 outRange = dtypeRange(outType);
    const int64_t m = draw(1, 6), k = draw(1, 80), n = draw(1, 9);
    ActivationQParams a{0.01f * float(draw(1, 20)),
                        int32_t(draw(aRange.quantMin, aRange.quantMax))};
    ActivationQParams b{0.01f * float(draw(1, 20)),
                        int32_t(draw(bRange.quantMin, bRange.quantMax))};
    ActivationQParams out{a.scale * b.scale * float(draw(8, 400)),
                          int32_t(draw(outRange.quantMin, outRange.quantMax))};
    StatusOr<IntegerProduct> product =
        prepareIntegerProduct(aType, a, bType, b, outType, out, k);
    ASSERT_TRUE(product.ok()) << product.getStatus().getMessage();
    std::vector<A> lhs(m * k);
    std::vector<B> rhs(k * n);
    for (A &v : lhs)
      v = static_cast<A>(draw(aRange.quantMin, aRange.quantMax));
    for (B &v : rhs)
      v = static_cast<B>(draw(bRange.quantMin, bRange.quantMax));
    std::vector<Out> result(m * n);
    ASSERT_TRUE(
        quantizedProduct(*product, lhs.data(), rhs.data(), m, n, result.data())
            .ok());
    std::vector<int32_t> expected, actual(result.begin(), result.end());
    for (int64_t row = 0; row < m; ++row)
      for (int64_t col = 0; col < n; ++col) {
        double real = 0;
        for (int64_t j = 0; j < k; ++j)
          real += double(a.scale) * (lhs[row * k + j] - a.zeroPoint) *
                  double(b.scale) * (rhs[j * n + col] - b.zeroPoint);
        const double q = std::nearbyint(real / out.scale) + out.zeroPoint;
        expected.push_back(static_cast<int32_t>(std::clamp<double>(
            q, double(outRange.quantMin), double(outRange.quantMax))));
      }
    stats.add(expected, actual);
  }
}

TEST(IntegerProduct, EveryTypeAgainstReal) {
  std::mt19937 rng(31);
  DiffStats stats;
  checkProductsAgainstReal<uint8_t, uint8_t, uint8_t>(rng, stats);
  checkProductsAgainstReal<uint8_t, int8_t, int8_t>(rng, stats);
  checkProductsAgainstReal<int8_t, uint8_t, uint8_t>(rng, stats);
  checkProductsAgainstReal<int8_t, int8_t, int8_t>(rng, stats);
  stats.print("product vs real");
  EXPECT_EQ(stats.worse, 0);
  EXPECT_GT(stats.exact, 50 * stats.offByOne);
}

TEST(IntegerProduct, ExactExample) {
  // (a - 2) = [1, 2], (b - 10) = [[3], [-4]]: 3 - 8 = -5; * 0.5 * 0.25 /
  // 0.125 = -5, + zo 100 = 95.
  StatusOr<IntegerProduct> product =
      prepareIntegerProduct(DType::QUInt8, {0.5f, 2}, DType::QInt8, {0.25f, 10},
                            DType::QUInt8, {0.125f, 100}, 2);
  ASSERT_TRUE(product.ok());
  const uint8_t a[] = {3, 4};
  const int8_t b[] = {13, 6};
  uint8_t out[1];
  ASSERT_TRUE(quantizedProduct(*product, a, b, 1, 1, out).ok());
  EXPECT_EQ(out[0], 95);
  // The buffers' types must be the product's.
  EXPECT_FALSE(quantizedProduct(*product, b, b, 1, 1, out).ok());
  EXPECT_FALSE(quantizedProduct(*product, a, b, -1, 1, out).ok());
}

TEST(IntegerKernelsErrors, PrepareProduct) {
  auto prepare = [](int64_t k, ActivationQParams a = {0.1f, 0},
                    DType type = DType::QUInt8) {
    return prepareIntegerProduct(type, a, DType::QUInt8, {0.1f, 0},
                                 DType::QUInt8, {0.1f, 0}, k);
  };
  EXPECT_TRUE(prepare(33025).ok()); // 33025 * 255 * 255 < 2^31
  EXPECT_NE(prepare(33026).getStatus().getMessage().find("can overflow"),
            std::string::npos);
  EXPECT_FALSE(prepare(0).ok());
  EXPECT_FALSE(prepare(4, {0.0f, 0}).ok());
  EXPECT_FALSE(prepare(4, {0.1f, 300}).ok());
  EXPECT_FALSE(prepare(4, {0.1f, 0}, DType::QInt32).ok());
}

TEST(IntegerAveragePool, WithinHalfAnOutputStepOfTheRealAverage) {
  // Same qparams (PyTorch's avg_pool2d) and a requantizing one, windows of
  // 9 (M not a power of two) and 16: every possible window sum of the
  // centred inputs lands within one rounding of the real average, i.e.
  // |out - real| <= 0.5 + M's relative error times |real|.
  for (int64_t window : {9, 16})
    for (ActivationQParams output :
         {ActivationQParams{0.1f, 3}, ActivationQParams{0.35f, 120}}) {
      const ActivationQParams input{0.1f, 3};
      StatusOr<IntegerAveragePool> pool =
          prepareIntegerAveragePool(DType::QUInt8, input, output, window);
      ASSERT_TRUE(pool.ok()) << pool.getStatus().getMessage();
      for (int32_t sum = -3 * int32_t(window); sum <= 252 * window; ++sum) {
        const double real = static_cast<double>(sum) * input.scale /
                                (output.scale * static_cast<double>(window)) +
                            output.zeroPoint;
        const double clamped = std::clamp(real, 0.0, 255.0);
        ASSERT_LE(std::fabs(pool->apply(sum) - clamped), 0.5 + 1e-6)
            << "window " << window << ", sum " << sum;
      }
    }
}

TEST(IntegerAveragePool, PowerOfTwoWindowRoundsHalfUp) {
  StatusOr<IntegerAveragePool> pool =
      prepareIntegerAveragePool(DType::QInt8, {0.05f, -9}, {0.05f, -9}, 4);
  ASSERT_TRUE(pool.ok());
  EXPECT_EQ(pool->multiplier.multiplier, 1 << 30);
  // (sum / 4 rounded half up) + zo, clamped to [-128, 127].
  EXPECT_EQ(pool->apply(6), -9 + 2);  // 1.5 -> 2
  EXPECT_EQ(pool->apply(-6), -9 - 1); // -1.5 -> -1
  EXPECT_EQ(pool->apply(4 * 200), 127);
  EXPECT_EQ(pool->apply(-4 * 200), -128);
}

//===----------------------------------------------------------------------===//
// Softmax
//===----------------------------------------------------------------------===//

/// Whether the 8-bit output `got` is within one step of `real` (in steps,
/// clamped to Out's range); counts it in `equal` if it is `real` rounded.
template <typename Out>
static bool isWithinOneStep(int32_t got, double real, int64_t &equal) {
  real = std::clamp(real, double(std::numeric_limits<Out>::min()),
                    double(std::numeric_limits<Out>::max()));
  equal += got == static_cast<int32_t>(std::nearbyint(real));
  return std::fabs(got - real) <= 1.0;
}

/// Rows of random 8-bit values against the float softmax of the
/// dequantized row, quantized: every output within one step, most equal.
template <typename In, typename Out>
static void checkSoftmaxAgainstReal(ActivationQParams input,
                                    ActivationQParams output, int64_t length) {
  StatusOr<IntegerSoftmax> softmax = prepareIntegerSoftmax(
      std::is_signed_v<In> ? DType::QInt8 : DType::QUInt8, input,
      std::is_signed_v<Out> ? DType::QInt8 : DType::QUInt8, output, length);
  ASSERT_TRUE(softmax.ok()) << softmax.getStatus().getMessage();
  std::mt19937 rng(length);
  std::uniform_int_distribution<int> value(std::numeric_limits<In>::min(),
                                           std::numeric_limits<In>::max());
  const int64_t rows = 64;
  std::vector<In> in(rows * length);
  for (In &q : in)
    q = static_cast<In>(value(rng));
  std::vector<Out> out(in.size());
  ASSERT_TRUE(
      quantizedSoftmax(*softmax, in.data(), rows, length, out.data()).ok());
  int64_t equal = 0;
  for (int64_t row = 0; row < rows; ++row) {
    std::vector<double> x(length);
    for (int64_t i = 0; i < length; ++i)
      x[i] = (in[row * length + i] - input.zeroPoint) *
             static_cast<double>(input.scale);
    const double max = *std::max_element(x.begin(), x.end());
    double sum = 0;
    for (double v : x)
      sum += std::exp(v - max);
    for (int64_t i = 0; i < length; ++i) {
      ASSERT_TRUE(isWithinOneStep<Out>(
          out[row * length + i],
          std::exp(x[i] - max) / sum / output.scale + output.zeroPoint, equal))
          << "row " << row << ", column " << i;
    }
  }
  EXPECT_GE(equal, rows * length * 99 / 100);
}

TEST(IntegerSoftmax, EveryTypeWithinOneStepOfTheFloatSoftmax) {
  // PyTorch's fixed qparams of a softmax: quint8 1/256 and 0, qint8 1/256
  // and -128; rows of attention's lengths and a wide input scale.
  const ActivationQParams u8{1.0f / 256, 0}, s8{1.0f / 256, -128};
  checkSoftmaxAgainstReal<uint8_t, uint8_t>({0.08f, 64}, u8, 128);
  checkSoftmaxAgainstReal<uint8_t, int8_t>({0.02f, 3}, s8, 197);
  checkSoftmaxAgainstReal<int8_t, uint8_t>({0.5f, -7}, u8, 10);
  checkSoftmaxAgainstReal<int8_t, int8_t>({0.01f, 0}, s8, 1000);
}

TEST(IntegerSoftmax, FractionBitsAndExactRows) {
  StatusOr<IntegerSoftmax> softmax = prepareIntegerSoftmax(
      DType::QUInt8, {0.1f, 0}, DType::QUInt8, {1.0f / 256, 0}, 128);
  ASSERT_TRUE(softmax.ok());
  EXPECT_EQ(softmax->fractionBits, 23); // 128 * 2^24 is 2^31
  EXPECT_EQ(softmax->expTable[0], 1 << 23);
  // 1000 * 2^21 fits in int32, 1000 * 2^22 does not.
  EXPECT_EQ(prepareIntegerSoftmax(DType::QUInt8, {0.1f, 0}, DType::QUInt8,
                                  {1.0f / 256, 0}, 1000)
                ->fractionBits,
            21);
  // A constant row is uniform; one value far above the rest takes all
  // (1.0 is 256 steps, clamped to 255).
  std::vector<uint8_t> row(128, 9), out(128);
  ASSERT_TRUE(quantizedSoftmax(*softmax, row.data(), 1, 128, out.data()).ok());
  EXPECT_TRUE(std::all_of(out.begin(), out.end(),
                          [](uint8_t q) { return q == 2; })); // 256 / 128
  row[5] = 255;
  ASSERT_TRUE(quantizedSoftmax(*softmax, row.data(), 1, 128, out.data()).ok());
  EXPECT_EQ(out[5], 255);
  EXPECT_EQ(out[0], 0);
}

/// Rows of random 8-bit values (and a constant row, whose variance is 0)
/// against the float layer norm of the dequantized row, quantized.
template <typename In, typename Out>
static void checkLayerNormAgainstReal(ActivationQParams input,
                                      ActivationQParams output, int64_t length,
                                      float epsilon) {
  StatusOr<IntegerLayerNorm> norm = prepareIntegerLayerNorm(
      std::is_signed_v<In> ? DType::QInt8 : DType::QUInt8, input,
      std::is_signed_v<Out> ? DType::QInt8 : DType::QUInt8, output, epsilon,
      length);
  ASSERT_TRUE(norm.ok()) << norm.getStatus().getMessage();
  std::mt19937 rng(length);
  std::uniform_int_distribution<int> value(std::numeric_limits<In>::min(),
                                           std::numeric_limits<In>::max());
  std::normal_distribution<float> weight(1.0f, 0.3f);
  const int64_t rows = 32;
  std::vector<In> in(rows * length);
  for (In &q : in)
    q = static_cast<In>(value(rng));
  std::fill_n(in.begin(), length, std::numeric_limits<In>::max());
  std::vector<float> gamma(length), beta(length);
  for (int64_t i = 0; i < length; ++i) {
    gamma[i] = weight(rng);
    beta[i] = weight(rng) - 1.0f;
  }
  std::vector<Out> out(in.size());
  ASSERT_TRUE(quantizedLayerNorm(*norm, in.data(), rows, gamma.data(),
                                 beta.data(), out.data())
                  .ok());
  int64_t equal = 0;
  for (int64_t row = 0; row < rows; ++row) {
    double mean = 0, variance = 0;
    for (int64_t i = 0; i < length; ++i)
      mean += (in[row * length + i] - input.zeroPoint) * double(input.scale);
    mean /= length;
    for (int64_t i = 0; i < length; ++i) {
      const double d =
          (in[row * length + i] - input.zeroPoint) * double(input.scale) - mean;
      variance += d * d;
    }
    variance /= length;
    for (int64_t i = 0; i < length; ++i) {
      const double x =
          (in[row * length + i] - input.zeroPoint) * double(input.scale);
      const double y =
          (x - mean) / std::sqrt(variance + epsilon) * gamma[i] + beta[i];
      ASSERT_TRUE(isWithinOneStep<Out>(
          out[row * length + i], y / output.scale + output.zeroPoint, equal))
          << "row " << row << ", column " << i;
    }
  }
  EXPECT_GE(equal, rows * length * 99 / 100);
}

TEST(IntegerLayerNorm, EveryTypeWithinOneStepOfTheFloatLayerNorm) {
  checkLayerNormAgainstReal<uint8_t, uint8_t>({0.07f, 62}, {0.066f, 62}, 768,
                                              1e-5f);
  checkLayerNormAgainstReal<uint8_t, int8_t>({0.02f, 3}, {0.03f, -5}, 197,
                                             1e-6f);
  checkLayerNormAgainstReal<int8_t, uint8_t>({0.5f, -7}, {0.05f, 128}, 10,
                                             1e-5f);
  checkLayerNormAgainstReal<int8_t, int8_t>({0.01f, 0}, {0.04f, 1}, 4096,
                                            1e-3f);
}

TEST(IntegerLayerNorm, ExactStatistics) {
  StatusOr<IntegerLayerNorm> norm = prepareIntegerLayerNorm(
      DType::QUInt8, {0.5f, 10}, DType::QUInt8, {0.25f, 128}, 0.0f, 4);
  ASSERT_TRUE(norm.ok());
  // c = (-2, -1, 1, 2): mean 0, variance 2.5 (in c), so x = c / 2 has
  // variance 0.625 and the outputs are c / 2 / sqrt(0.625) / 0.25 steps.
  const uint8_t in[4] = {8, 9, 11, 12};
  const float gamma[4] = {1, 1, 1, 1}, beta[4] = {0, 0, 0, 0};
  uint8_t out[4];
  ASSERT_TRUE(quantizedLayerNorm(*norm, in, 1, gamma, beta, out).ok());
  EXPECT_EQ(out[0], 128 - 5); // -5.06 steps
  EXPECT_EQ(out[1], 128 - 3); // -2.53
  EXPECT_EQ(out[2], 128 + 3);
  EXPECT_EQ(out[3], 128 + 5);
}

//===----------------------------------------------------------------------===//
// Errors
//===----------------------------------------------------------------------===//

TEST(IntegerKernelsErrors, PrepareAveragePool) {
  const ActivationQParams q{0.1f, 3};
  for (int64_t window : {int64_t(0), int64_t(-1), (int64_t(1) << 23) + 1}) {
    StatusOr<IntegerAveragePool> pool =
        prepareIntegerAveragePool(DType::QUInt8, q, q, window);
    ASSERT_FALSE(pool.ok());
    EXPECT_EQ(pool.getStatus().getMessage(),
              "average pooling window size must be in [1, 2^23], got " +
                  std::to_string(window));
  }
  EXPECT_FALSE(prepareIntegerAveragePool(DType::QInt32, q, q, 4).ok());
  EXPECT_FALSE(prepareIntegerAveragePool(DType::QUInt8, {0.0f, 3}, q, 4).ok());
  // M = 1e-12 / 4 rounds below 2^-32: no multiplier.
  EXPECT_FALSE(
      prepareIntegerAveragePool(DType::QUInt8, {1e-12f, 3}, q, 4).ok());
}

TEST(IntegerKernelsErrors, Softmax) {
  const ActivationQParams q{0.1f, 3}, out{1.0f / 256, 0};
  for (int64_t length : {int64_t(0), (int64_t(1) << 19) + 1}) {
    StatusOr<IntegerSoftmax> softmax =
        prepareIntegerSoftmax(DType::QUInt8, q, DType::QUInt8, out, length);
    ASSERT_FALSE(softmax.ok());
    EXPECT_EQ(softmax.getStatus().getMessage(),
              "softmax row length must be in [1, 2^19], got " +
                  std::to_string(length));
  }
  // 2^12 * 1e-44 is no normal float (2^24 * the smallest float is).
  StatusOr<IntegerSoftmax> tiny = prepareIntegerSoftmax(
      DType::QUInt8, q, DType::QUInt8, {1e-44f, 0}, int64_t(1) << 19);
  ASSERT_FALSE(tiny.ok());
  EXPECT_EQ(tiny.getStatus().getMessage(),
            "softmax output scale 9.80908925e-45 is too small for a finite "
            "row factor");
  EXPECT_FALSE(
      prepareIntegerSoftmax(DType::QInt32, q, DType::QUInt8, out, 16).ok());
  StatusOr<IntegerSoftmax> softmax =
      prepareIntegerSoftmax(DType::QUInt8, q, DType::QUInt8, out, 16);
  ASSERT_TRUE(softmax.ok());
  std::vector<int8_t> wrongType(16);
  std::vector<uint8_t> in(16), result(16);
  EXPECT_FALSE(
      quantizedSoftmax(*softmax, wrongType.data(), 1, 16, result.data()).ok());
  EXPECT_EQ(quantizedSoftmax(*softmax, in.data(), 1, 1 << 20, result.data())
                .getMessage(),
            "softmax of 1 rows of 1048576 values does not match the op's 24 "
            "fraction bits");
}

TEST(IntegerKernelsErrors, LayerNorm) {
  const ActivationQParams q{0.1f, 3}, out{0.05f, 128};
  for (int64_t length : {int64_t(0), (int64_t(1) << 16) + 1}) {
    StatusOr<IntegerLayerNorm> norm = prepareIntegerLayerNorm(
        DType::QUInt8, q, DType::QUInt8, out, 1e-5f, length);
    ASSERT_FALSE(norm.ok());
    EXPECT_EQ(norm.getStatus().getMessage(),
              "layer norm row length must be in [1, 2^16], got " +
                  std::to_string(length));
  }
  StatusOr<IntegerLayerNorm> negative =
      prepareIntegerLayerNorm(DType::QUInt8, q, DType::QUInt8, out, -1.0f, 16);
  ASSERT_FALSE(negative.ok());
  EXPECT_EQ(negative.getStatus().getMessage(),
            "layer norm epsilon must be finite and not negative, got -1");
  EXPECT_FALSE(
      prepareIntegerLayerNorm(DType::QUInt8, q, DType::QInt32, out, 1e-5f, 16)
          .ok());
}

TEST(IntegerKernelsErrors, PrepareGemm) {
  const std::vector<int8_t> b(70000, 1);
  QuantizedGemmParams good;
  good.input = {0.1f, 0};
  good.weight = {{0.1f}, {0}};
  good.output = {0.1f, 0};
  ASSERT_TRUE(prepareIntegerGemm(good, b.data(), 2, 3, nullptr).ok());
  auto fails = [&](QuantizedGemmParams params, int64_t k, int64_t n,
                   const float *bias = nullptr) {
    StatusOr<IntegerGemm> gemm =
        prepareIntegerGemm(params, b.data(), k, n, bias);
    return !gemm.ok() && !gemm.getStatus().getMessage().empty();
  };
  QuantizedGemmParams p = good;
  p.inputType = DType::QInt32;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.outputType = DType::QUInt4x2;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.input.scale = 0.0f;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.input.zeroPoint = 256;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.inputType = DType::QInt8;
  p.input.zeroPoint = 128;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.output.zeroPoint = -1;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.weight = {{0.1f, 0.1f}, {0, 0}}; // 2 scales for 3 channels
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.weight = {{0.1f}, {0, 0, 0}};
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.weight = {{0.1f}, {128}};
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.weight = {{std::nanf("")}, {0}};
  EXPECT_TRUE(fails(p, 2, 3));
  EXPECT_TRUE(fails(good, 0, 3));
  EXPECT_TRUE(fails(good, 2, 0));
  // M = s_a * s_w / s_o out of quantizeMultiplier's range.
  p = good;
  p.output.scale = 1e-12f;
  EXPECT_TRUE(fails(p, 2, 3));
  p = good;
  p.output.scale = 1e12f;
  EXPECT_TRUE(fails(p, 2, 3));
  // |acc| <= K * 255 * 128 overflows int32 past K = 65793.
  EXPECT_TRUE(prepareIntegerGemm(good, b.data(), 65793, 1, nullptr).ok());
  EXPECT_TRUE(fails(good, 65794, 1));
  // ... and a large bias takes part of the headroom.
  const float bias = 1e6f; // / 0.01 = 1e8
  EXPECT_TRUE(fails(good, 65000, 1, &bias));
}

TEST(IntegerKernelsErrors, RunTypesAndShapes) {
  const int8_t b[] = {1, 2, 3, 4};
  QuantizedGemmParams params;
  params.input = {0.1f, 0};
  params.weight = {{0.1f}, {0}};
  params.output = {0.1f, 0};
  StatusOr<IntegerGemm> gemm = prepareIntegerGemm(params, b, 4, 1, nullptr);
  ASSERT_TRUE(gemm.ok());
  const uint8_t ua[4] = {};
  const int8_t sa[4] = {};
  uint8_t uout[4];
  int8_t sout[4];
  EXPECT_TRUE(quantizedMatmul(*gemm, ua, 1, uout).ok());
  EXPECT_FALSE(quantizedMatmul(*gemm, sa, 1, uout).ok());
  EXPECT_FALSE(quantizedMatmul(*gemm, ua, 1, sout).ok());
  EXPECT_FALSE(quantizedMatmul(*gemm, ua, -1, uout).ok());

  Conv2dShape good; // 2x2 input, 2x2 kernel, 1 channel: K = 4, N = 1
  good.height = good.width = 2;
  good.kernelHeight = good.kernelWidth = 2;
  EXPECT_TRUE(quantizedConv2d(*gemm, good, ua, uout).ok());
  EXPECT_FALSE(quantizedConv2d(*gemm, good, sa, uout).ok());
  for (auto mutate : std::vector<void (*)(Conv2dShape &)>{
           [](Conv2dShape &s) { s.batch = 0; },
           [](Conv2dShape &s) { s.strideWidth = 0; },
           [](Conv2dShape &s) { s.dilationHeight = -1; },
           [](Conv2dShape &s) { s.padLeft = -1; },
           [](Conv2dShape &s) { s.groups = 2; },        // 1 channel
           [](Conv2dShape &s) { s.kernelHeight = 3; },  // K mismatch, empty
           [](Conv2dShape &s) { s.dilationWidth = 2; }, // empty output
           [](Conv2dShape &s) { s.filters = 2; }}) {    // N mismatch
    Conv2dShape s = good;
    mutate(s);
    Status status = quantizedConv2d(*gemm, s, ua, uout);
    EXPECT_FALSE(status.ok());
  }
}

TEST(IntegerKernelsErrors, PrepareElementwise) {
  auto none = FusedActivation::none();
  EXPECT_FALSE(
      prepareIntegerAdd(DType::QInt32, {0.1f, 0}, {0.1f, 0}, {0.1f, 0}, none)
          .ok());
  EXPECT_FALSE(
      prepareIntegerAdd(DType::QUInt8, {0.1f, -1}, {0.1f, 0}, {0.1f, 0}, none)
          .ok());
  EXPECT_FALSE(
      prepareIntegerAdd(DType::QUInt8, {0.1f, 0}, {-0.1f, 0}, {0.1f, 0}, none)
          .ok());
  EXPECT_FALSE(
      prepareIntegerAdd(DType::QUInt8, {0.1f, 0}, {0.1f, 0}, {0.0f, 0}, none)
          .ok());
  // Input-to-output ratios of 2^8 and more would overflow the products.
  EXPECT_TRUE(
      prepareIntegerAdd(DType::QUInt8, {255.0f, 0}, {1.0f, 0}, {1.0f, 0}, none)
          .ok());
  EXPECT_FALSE(
      prepareIntegerAdd(DType::QUInt8, {256.0f, 0}, {1.0f, 0}, {1.0f, 0}, none)
          .ok());
  EXPECT_FALSE(prepareIntegerMul(DType::QUInt8, {1e-20f, 0}, {1e-20f, 0},
                                 {1.0f, 0}, none)
                   .ok());
  EXPECT_FALSE(prepareIntegerMul(DType::QUInt8, {0.1f, 0}, {0.1f, 0}, {0.1f, 0},
                                 FusedActivation::clamp(1.0f, 0.0f))
                   .ok());
}

//===----------------------------------------------------------------------===//
// PyTorch 1.13 goldens
//===----------------------------------------------------------------------===//

const std::vector<GoldenCase> &goldens() {
  static const std::vector<GoldenCase> cases =
      readGoldenFile("integer_kernels.txt");
  return cases;
}

std::vector<int32_t> intsOf(const GoldenCase &c, const std::string &key) {
  std::vector<int64_t> values = c.ints(key);
  return std::vector<int32_t>(values.begin(), values.end());
}

/// The case's input, weight and bias as a ConvCase (quint8 in and out).
ConvCase convCaseOf(const GoldenCase &c, const Conv2dShape &shape) {
  ConvCase result;
  result.shape = shape;
  QuantizedGemmParams &p = result.params;
  p.input = {c.getFloat("input_scale"),
             static_cast<int32_t>(c.getInt("input_zero_point"))};
  p.weight = {c.floats("weight_scale"), intsOf(c, "weight_zero_point")};
  p.output = {c.getFloat("output_scale"),
              static_cast<int32_t>(c.getInt("output_zero_point"))};
  p.activation =
      c.getInt("relu") ? FusedActivation::relu() : FusedActivation::none();
  result.input = intsOf(c, "input");
  for (int64_t w : c.ints("weight"))
    result.filter.push_back(static_cast<int8_t>(w));
  if (c.raw("bias").front() != "none")
    result.bias = c.floats("bias");
  return result;
}

Conv2dShape conv2dShapeOf(const GoldenCase &c) {
  std::vector<int64_t> v = c.ints("shape");
  if (v.size() != 14)
    throw std::runtime_error(c.name + ": shape needs 14 values");
  Conv2dShape s;
  s.batch = v[0];
  s.height = v[1];
  s.width = v[2];
  s.channels = v[3];
  s.kernelHeight = v[4];
  s.kernelWidth = v[5];
  s.filters = v[6];
  s.strideHeight = v[7];
  s.strideWidth = v[8];
  s.padTop = s.padBottom = v[9];
  s.padLeft = s.padRight = v[10];
  s.dilationHeight = v[11];
  s.dilationWidth = v[12];
  s.groups = v[13];
  return s;
}

/// Compares `actual` with each engine's output of the case, into
/// stats["<kind> <engine>"]; returns how many engines it compared with.
int compareWithEngines(const GoldenCase &c, const std::vector<int32_t> &actual,
                       std::map<std::string, DiffStats> &stats) {
  int engines = 0;
  for (const char *engine : {"qnnpack", "onednn"}) {
    std::string key = std::string("output_") + engine;
    if (!c.has(key))
      continue;
    DiffStats caseStats;
    caseStats.add(intsOf(c, key), actual);
    EXPECT_EQ(caseStats.worse, 0) << engine;
    DiffStats &total = stats[c.str("kind") + " " + engine];
    total.exact += caseStats.exact;
    total.offByOne += caseStats.offByOne;
    total.worse += caseStats.worse;
    ++engines;
  }
  return engines;
}

void printStats(const std::map<std::string, DiffStats> &stats) {
  for (const auto &[what, diff] : stats)
    diff.print("torch " + what);
}

TEST(TorchGolden, BiasQuantization) {
  int cases = 0;
  for (const GoldenCase &c : goldens()) {
    if (c.str("kind") != "bias")
      continue;
    SCOPED_TRACE(c.name);
    std::vector<float> bias = c.floats("bias");
    EXPECT_EQ(quantizeBias(bias.data(), bias.size(), c.getFloat("input_scale"),
                           c.floats("weight_scale")),
              intsOf(c, "quantized"));
    ++cases;
  }
  EXPECT_GE(cases, 5);
}

TEST(TorchGolden, LinearAndConv2d) {
  std::map<std::string, DiffStats> stats;
  int cases = 0;
  for (const GoldenCase &c : goldens()) {
    std::string kind = c.str("kind");
    if (kind != "linear" && kind != "conv2d")
      continue;
    SCOPED_TRACE(c.name);
    bool isLinear = kind == "linear";
    ConvCase conv = convCaseOf(
        c, isLinear ? matmulShape(c.getInt("m"), c.getInt("k"), c.getInt("n"))
                    : conv2dShapeOf(c));
    StatusOr<IntegerGemm> gemm = prepareIntegerGemm(
        conv.params, conv.filter.data(), conv.shape.patchSize(),
        conv.shape.filters, conv.biasData());
    ASSERT_TRUE(gemm.ok()) << gemm.getStatus().getMessage();
    std::vector<int32_t> actual = runCase(conv, *gemm, isLinear);
    EXPECT_GE(compareWithEngines(c, actual, stats), 1);
    // acc = bias_q with M = 1: PyTorch's bias rounding (ties to even),
    // exactly.
    if (c.name == "linear_bias_ties") {
      EXPECT_EQ(actual, intsOf(c, "output_qnnpack"));
      EXPECT_EQ(actual, intsOf(c, "output_onednn"));
    }
    ++cases;
  }
  printStats(stats);
  EXPECT_GE(cases, 40);
}

TEST(TorchGolden, AddAndMul) {
  std::map<std::string, DiffStats> stats;
  int cases = 0;
  for (const GoldenCase &c : goldens()) {
    std::string kind = c.str("kind");
    if (kind != "add" && kind != "mul")
      continue;
    SCOPED_TRACE(c.name);
    auto qparams = [&](const std::string &prefix) {
      return ActivationQParams{
          c.getFloat(prefix + "_scale"),
          static_cast<int32_t>(c.getInt(prefix + "_zero_point"))};
    };
    FusedActivation activation =
        c.getInt("relu") ? FusedActivation::relu() : FusedActivation::none();
    std::vector<int32_t> a = intsOf(c, "a"), b = intsOf(c, "b");
    std::vector<int32_t> actual;
    if (kind == "add") {
      StatusOr<IntegerAdd> add =
          prepareIntegerAdd(DType::QUInt8, qparams("a"), qparams("b"),
                            qparams("output"), activation);
      ASSERT_TRUE(add.ok()) << add.getStatus().getMessage();
      for (size_t i = 0; i < a.size(); ++i)
        actual.push_back(add->apply(a[i], b[i]));
      // The same fixed-point scheme as PyTorch's qnnpack add: bit-exact.
      EXPECT_EQ(actual, intsOf(c, "output_qnnpack"));
    } else {
      StatusOr<IntegerMul> mul =
          prepareIntegerMul(DType::QUInt8, qparams("a"), qparams("b"),
                            qparams("output"), activation);
      ASSERT_TRUE(mul.ok()) << mul.getStatus().getMessage();
      for (size_t i = 0; i < a.size(); ++i)
        actual.push_back(mul->apply(a[i], b[i]));
    }
    EXPECT_EQ(compareWithEngines(c, actual, stats), 2);
    ++cases;
  }
  printStats(stats);
  EXPECT_GE(cases, 10);
}

} // namespace

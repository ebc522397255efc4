//===- IntegerKernels.cpp - Reference integer quantized kernels -----------===//
//
// Bias quantization: ATen's quant_utils::QuantizeBias and quantize_val
// (AffineQuantizerBase.cpp, the non-FBGEMM build). Add: QNNPACK's
// pytorch_qnnp_compute_add_quantization_params and q8vadd kernels.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/IntegerKernels.h"

#include "TorchFloat.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstdio>
#include <limits>
#include <numeric>
#include <string>
#include <type_traits>

namespace mlir::quanta::numerics {

static std::string str(int64_t value) { return std::to_string(value); }

static std::string strFloat(float value) {
  char buffer[32];
  std::snprintf(buffer, sizeof(buffer), "%.9g", static_cast<double>(value));
  return buffer;
}

template <typename T> static constexpr DType storageTypeOf() {
  static_assert(std::is_same_v<T, uint8_t> || std::is_same_v<T, int8_t>,
                "the integer kernels store activations as uint8_t or int8_t");
  return std::is_same_v<T, uint8_t> ? DType::QUInt8 : DType::QInt8;
}

static Status checkActivationType(DType type, const std::string &what) {
  if (type != DType::QUInt8 && type != DType::QInt8)
    return Status::error(what + " dtype must be quint8 or qint8, got " +
                         std::string(toString(type)));
  return Status::success();
}

static Status checkScale(float scale, const std::string &what) {
  if (!std::isfinite(scale) || scale <= 0.0f)
    return Status::error(what + " must be finite and positive, got " +
                         strFloat(scale));
  return Status::success();
}

static Status checkZeroPoint(int64_t zeroPoint, DType type,
                             const std::string &what) {
  QRange range = dtypeRange(type);
  if (zeroPoint < range.quantMin || zeroPoint > range.quantMax)
    return Status::error(what + " " + str(zeroPoint) + " is outside [" +
                         str(range.quantMin) + ", " + str(range.quantMax) +
                         "]");
  return Status::success();
}

/// The scale and zero point of an 8-bit activation.
static Status checkActivation(ActivationQParams qparams, DType type,
                              const std::string &what) {
  if (Status status = checkActivationType(type, what); !status)
    return status;
  if (Status status = checkScale(qparams.scale, what + " scale"); !status)
    return status;
  return checkZeroPoint(qparams.zeroPoint, type, what + " zero point");
}

template <typename T>
static Status checkStorageType(DType expected, const std::string &what) {
  if (storageTypeOf<T>() != expected)
    return Status::error(
        what + " buffer holds " + std::string(toString(storageTypeOf<T>())) +
        " values but the op expects " + std::string(toString(expected)));
  return Status::success();
}

//===----------------------------------------------------------------------===//
// Matmul and convolution
//===----------------------------------------------------------------------===//

std::vector<int32_t> computeColumnSums(const int8_t *weights, int64_t k,
                                       int64_t n) {
  std::vector<int32_t> sums(n, 0);
  for (int64_t row = 0; row < k; ++row)
    for (int64_t col = 0; col < n; ++col)
      sums[col] += weights[row * n + col];
  return sums;
}

std::vector<int32_t> quantizeBias(const float *bias, int64_t n,
                                  float inputScale,
                                  const std::vector<float> &weightScales) {
  assert((weightScales.size() == 1 ||
          static_cast<int64_t>(weightScales.size()) == n) &&
         "one weight scale or one per output channel");
  std::vector<int32_t> quantized(n);
  for (int64_t i = 0; i < n; ++i) {
    // QuantizeBias multiplies the double scales; quantize_val narrows the
    // product to float and multiplies by its float reciprocal.
    double scale =
        static_cast<double>(weightScales[weightScales.size() == 1 ? 0 : i]) *
        static_cast<double>(inputScale);
    float invScale = 1.0f / static_cast<float>(scale);
    int64_t value = detail::truncateToInt64(std::nearbyint(bias[i] * invScale));
    quantized[i] = static_cast<int32_t>(
        std::clamp<int64_t>(value, std::numeric_limits<int32_t>::min(),
                            std::numeric_limits<int32_t>::max()));
  }
  return quantized;
}

StatusOr<IntegerGemm> prepareIntegerGemm(const QuantizedGemmParams &params,
                                         const int8_t *weights, int64_t k,
                                         int64_t n, const float *bias) {
  if (Status status = checkActivation(params.input, params.inputType, "input");
      !status)
    return status;
  if (Status status = checkActivationType(params.outputType, "output"); !status)
    return status;
  StatusOr<QRange> outputRange =
      fusedActivationRange(params.outputType, params.output.scale,
                           params.output.zeroPoint, params.activation);
  if (!outputRange)
    return outputRange.getStatus();
  if (k < 1 || n < 1)
    return Status::error("gemm sizes must be positive, got K = " + str(k) +
                         ", N = " + str(n));
  const WeightQParams &weightQParams = params.weight;
  size_t channels = weightQParams.scales.size();
  if ((channels != 1 && static_cast<int64_t>(channels) != n) ||
      weightQParams.zeroPoints.size() != channels)
    return Status::error(
        "weight qparams need 1 or N = " + str(n) +
        " scales and as many zero points, got " +
        str(static_cast<int64_t>(channels)) + " and " +
        str(static_cast<int64_t>(weightQParams.zeroPoints.size())));
  for (size_t ch = 0; ch < channels; ++ch) {
    if (Status status = checkScale(weightQParams.scales[ch], "weight scale");
        !status)
      return status;
    if (Status status = checkZeroPoint(weightQParams.zeroPoints[ch],
                                       DType::QInt8, "weight zero point");
        !status)
      return status;
  }

  IntegerGemm gemm;
  gemm.k = k;
  gemm.n = n;
  gemm.inputType = params.inputType;
  gemm.outputType = params.outputType;
  gemm.inputZeroPoint = params.input.zeroPoint;
  gemm.outputZeroPoint = params.output.zeroPoint;
  gemm.outputRange = *outputRange;

  const std::vector<int32_t> biasQ =
      bias ? quantizeBias(bias, n, params.input.scale, weightQParams.scales)
           : std::vector<int32_t>(n, 0);
  const QRange inputRange = dtypeRange(params.inputType);
  const int64_t za = params.input.zeroPoint;
  const int64_t maxCentredInput =
      std::max(za - inputRange.quantMin, inputRange.quantMax - za);
  for (int64_t col = 0; col < n; ++col) {
    size_t ch = channels == 1 ? 0 : static_cast<size_t>(col);
    const int64_t zb = weightQParams.zeroPoints[ch];
    // |acc| <= K * max|a - za| * max|b - zb| + |bias_q|. When that bound
    // fits, so do every accumulator, column sum and column offset (whose
    // magnitude is at most |bias_q| + |za| * K * max|b - zb|).
    const int64_t maxProduct = maxCentredInput * std::max(zb + 128, 127 - zb);
    const int64_t absBias = std::abs(static_cast<int64_t>(biasQ[col]));
    if (k > (std::numeric_limits<int32_t>::max() - absBias) / maxProduct)
      return Status::error(
          "output channel " + str(col) +
          ": the int32 accumulator can overflow (K = " + str(k) +
          ", max |a - za| * |b - zb| = " + str(maxProduct) +
          ", quantized bias " + str(biasQ[col]) + ")");
    StatusOr<QuantizedMultiplier> multiplier =
        quantizeMultiplier(static_cast<double>(params.input.scale) *
                           static_cast<double>(weightQParams.scales[ch]) /
                           static_cast<double>(params.output.scale));
    if (!multiplier)
      return Status::error("output channel " + str(col) + ": " +
                           multiplier.getStatus().getMessage());
    gemm.weightZeroPoints.push_back(static_cast<int32_t>(zb));
    gemm.multipliers.push_back(*multiplier);
  }
  const std::vector<int32_t> columnSums = computeColumnSums(weights, k, n);
  for (int64_t col = 0; col < n; ++col) {
    const int64_t zb = gemm.weightZeroPoints[col];
    gemm.columnOffsets.push_back(
        static_cast<int32_t>(biasQ[col] - za * columnSums[col] + k * za * zb));
  }
  gemm.weights.assign(weights, weights + k * n);
  return gemm;
}

template <typename In, typename Out>
static Status checkGemmTypes(const IntegerGemm &gemm) {
  if (Status status = checkStorageType<In>(gemm.inputType, "input"); !status)
    return status;
  return checkStorageType<Out>(gemm.outputType, "output");
}

/// The outputs of columns [begin, end) for one row of K activations (a
/// matmul row or a convolution patch), written to out[begin, end).
template <typename Out>
static void computeRow(const IntegerGemm &gemm, const std::vector<int32_t> &row,
                       int64_t begin, int64_t end, Out *out) {
  const int64_t rowSum = std::accumulate(row.begin(), row.end(), int64_t(0));
  for (int64_t col = begin; col < end; ++col) {
    int64_t dot = 0;
    for (int64_t i = 0; i < gemm.k; ++i)
      dot += static_cast<int64_t>(row[i]) * gemm.weights[i * gemm.n + col];
    const int64_t acc =
        dot - gemm.weightZeroPoints[col] * rowSum + gemm.columnOffsets[col];
    assert(acc >= std::numeric_limits<int32_t>::min() &&
           acc <= std::numeric_limits<int32_t>::max() &&
           "prepareIntegerGemm bounds the accumulator");
    out[col] = static_cast<Out>(requantize(
        static_cast<int32_t>(acc), gemm.multipliers[col], gemm.outputZeroPoint,
        static_cast<int32_t>(gemm.outputRange.quantMin),
        static_cast<int32_t>(gemm.outputRange.quantMax)));
  }
}

template <typename In, typename Out>
Status quantizedMatmul(const IntegerGemm &gemm, const In *a, int64_t m,
                       Out *out) {
  if (Status status = checkGemmTypes<In, Out>(gemm); !status)
    return status;
  if (m < 0)
    return Status::error("matmul M must not be negative, got " + str(m));
  std::vector<int32_t> row(gemm.k);
  for (int64_t i = 0; i < m; ++i) {
    std::copy(a + i * gemm.k, a + (i + 1) * gemm.k, row.begin());
    computeRow(gemm, row, 0, gemm.n, out + i * gemm.n);
  }
  return Status::success();
}

int64_t Conv2dShape::outputHeight() const {
  return detail::floorDiv(height + padTop + padBottom -
                              dilationHeight * (kernelHeight - 1) - 1,
                          strideHeight) +
         1;
}

int64_t Conv2dShape::outputWidth() const {
  return detail::floorDiv(width + padLeft + padRight -
                              dilationWidth * (kernelWidth - 1) - 1,
                          strideWidth) +
         1;
}

int64_t Conv2dShape::patchSize() const {
  return kernelHeight * kernelWidth * (channels / groups);
}

static Status validateConv2d(const IntegerGemm &gemm,
                             const Conv2dShape &shape) {
  const std::pair<int64_t, const char *> sizes[] = {
      {shape.batch, "batch"},
      {shape.height, "height"},
      {shape.width, "width"},
      {shape.channels, "channels"},
      {shape.kernelHeight, "kernel height"},
      {shape.kernelWidth, "kernel width"},
      {shape.filters, "filters"},
      {shape.strideHeight, "stride height"},
      {shape.strideWidth, "stride width"},
      {shape.dilationHeight, "dilation height"},
      {shape.dilationWidth, "dilation width"},
      {shape.groups, "groups"}};
  for (auto [value, name] : sizes)
    if (value < 1)
      return Status::error(std::string("conv2d ") + name +
                           " must be positive, got " + str(value));
  for (int64_t pad :
       {shape.padTop, shape.padBottom, shape.padLeft, shape.padRight})
    if (pad < 0)
      return Status::error("conv2d padding must not be negative, got " +
                           str(pad));
  if (shape.channels % shape.groups != 0 || shape.filters % shape.groups != 0)
    return Status::error("conv2d channels (" + str(shape.channels) +
                         ") and filters (" + str(shape.filters) +
                         ") must be multiples of groups (" + str(shape.groups) +
                         ")");
  if (shape.outputHeight() < 1 || shape.outputWidth() < 1)
    return Status::error("conv2d output is empty: the dilated kernel is "
                         "larger than the padded input");
  if (gemm.k != shape.patchSize() || gemm.n != shape.filters)
    return Status::error(
        "conv2d needs a gemm with K = " + str(shape.patchSize()) +
        " and N = " + str(shape.filters) + ", got K = " + str(gemm.k) +
        " and N = " + str(gemm.n));
  return Status::success();
}

template <typename In, typename Out>
Status quantizedConv2d(const IntegerGemm &gemm, const Conv2dShape &shape,
                       const In *input, Out *output) {
  if (Status status = checkGemmTypes<In, Out>(gemm); !status)
    return status;
  if (Status status = validateConv2d(gemm, shape); !status)
    return status;
  const int64_t outHeight = shape.outputHeight();
  const int64_t outWidth = shape.outputWidth();
  const int64_t groupChannels = shape.channels / shape.groups;
  const int64_t groupFilters = shape.filters / shape.groups;
  std::vector<int32_t> patch(gemm.k);
  for (int64_t b = 0; b < shape.batch; ++b) {
    for (int64_t oh = 0; oh < outHeight; ++oh) {
      for (int64_t ow = 0; ow < outWidth; ++ow) {
        Out *pixel =
            output + ((b * outHeight + oh) * outWidth + ow) * shape.filters;
        for (int64_t g = 0; g < shape.groups; ++g) {
          // The im2col patch in HWC order, the row order of the filter.
          int64_t i = 0;
          for (int64_t kh = 0; kh < shape.kernelHeight; ++kh) {
            const int64_t ih = oh * shape.strideHeight - shape.padTop +
                               kh * shape.dilationHeight;
            for (int64_t kw = 0; kw < shape.kernelWidth; ++kw) {
              const int64_t iw = ow * shape.strideWidth - shape.padLeft +
                                 kw * shape.dilationWidth;
              if (ih < 0 || ih >= shape.height || iw < 0 || iw >= shape.width) {
                std::fill_n(patch.begin() + i, groupChannels,
                            gemm.inputZeroPoint);
              } else {
                const In *taps = input +
                                 ((b * shape.height + ih) * shape.width + iw) *
                                     shape.channels +
                                 g * groupChannels;
                std::copy(taps, taps + groupChannels, patch.begin() + i);
              }
              i += groupChannels;
            }
          }
          computeRow(gemm, patch, g * groupFilters, (g + 1) * groupFilters,
                     pixel);
        }
      }
    }
  }
  return Status::success();
}

template Status quantizedMatmul(const IntegerGemm &, const uint8_t *, int64_t,
                                uint8_t *);
template Status quantizedMatmul(const IntegerGemm &, const uint8_t *, int64_t,
                                int8_t *);
template Status quantizedMatmul(const IntegerGemm &, const int8_t *, int64_t,
                                uint8_t *);
template Status quantizedMatmul(const IntegerGemm &, const int8_t *, int64_t,
                                int8_t *);
template Status quantizedConv2d(const IntegerGemm &, const Conv2dShape &,
                                const uint8_t *, uint8_t *);
template Status quantizedConv2d(const IntegerGemm &, const Conv2dShape &,
                                const uint8_t *, int8_t *);
template Status quantizedConv2d(const IntegerGemm &, const Conv2dShape &,
                                const int8_t *, uint8_t *);
template Status quantizedConv2d(const IntegerGemm &, const Conv2dShape &,
                                const int8_t *, int8_t *);

//===----------------------------------------------------------------------===//
// Elementwise ops
//===----------------------------------------------------------------------===//

/// The checks and output range shared by add and mul.
static StatusOr<QRange> prepareElementwise(DType type, ActivationQParams a,
                                           ActivationQParams b,
                                           ActivationQParams output,
                                           FusedActivation activation) {
  if (Status status = checkActivation(a, type, "first input"); !status)
    return status;
  if (Status status = checkActivation(b, type, "second input"); !status)
    return status;
  return fusedActivationRange(type, output.scale, output.zeroPoint, activation);
}

StatusOr<IntegerAdd> prepareIntegerAdd(DType type, ActivationQParams a,
                                       ActivationQParams b,
                                       ActivationQParams output,
                                       FusedActivation activation) {
  StatusOr<QRange> range = prepareElementwise(type, a, b, output, activation);
  if (!range)
    return range.getStatus();
  // QNNPACK divides the float scales in float.
  const float aRatio = a.scale / output.scale;
  const float bRatio = b.scale / output.scale;
  for (float ratio : {aRatio, bRatio})
    if (!(ratio > 0.0f && ratio < 0x1p8f))
      return Status::error("add input-to-output scale ratio " +
                           strFloat(ratio) + " must be in (0, 2^8)");
  // The larger multiplier gets 22 bits: 2 * 255 * 2^22 < 2^31.
  const int shift = std::min(21 - std::ilogb(std::max(aRatio, bRatio)), 31);
  IntegerAdd add;
  add.type = type;
  add.aZeroPoint = a.zeroPoint;
  add.bZeroPoint = b.zeroPoint;
  add.aMultiplier =
      static_cast<int32_t>(std::lrint(aRatio * std::ldexp(1.0f, shift)));
  add.bMultiplier =
      static_cast<int32_t>(std::lrint(bRatio * std::ldexp(1.0f, shift)));
  add.shift = shift;
  add.outputZeroPoint = output.zeroPoint;
  add.outputRange = *range;
  return add;
}

int32_t IntegerAdd::apply(int32_t a, int32_t b) const {
  const int32_t acc =
      aMultiplier * (a - aZeroPoint) + bMultiplier * (b - bZeroPoint);
  const int64_t shifted =
      static_cast<int64_t>(roundingDivideByPOT(acc, shift)) + outputZeroPoint;
  return static_cast<int32_t>(
      std::clamp<int64_t>(shifted, outputRange.quantMin, outputRange.quantMax));
}

StatusOr<IntegerMul> prepareIntegerMul(DType type, ActivationQParams a,
                                       ActivationQParams b,
                                       ActivationQParams output,
                                       FusedActivation activation) {
  StatusOr<QRange> range = prepareElementwise(type, a, b, output, activation);
  if (!range)
    return range.getStatus();
  StatusOr<QuantizedMultiplier> multiplier = quantizeMultiplier(
      static_cast<double>(a.scale) * static_cast<double>(b.scale) /
      static_cast<double>(output.scale));
  if (!multiplier)
    return multiplier.getStatus();
  IntegerMul mul;
  mul.type = type;
  mul.aZeroPoint = a.zeroPoint;
  mul.bZeroPoint = b.zeroPoint;
  mul.multiplier = *multiplier;
  mul.outputZeroPoint = output.zeroPoint;
  mul.outputRange = *range;
  return mul;
}

int32_t IntegerMul::apply(int32_t a, int32_t b) const {
  return requantize((a - aZeroPoint) * (b - bZeroPoint), multiplier,
                    outputZeroPoint, static_cast<int32_t>(outputRange.quantMin),
                    static_cast<int32_t>(outputRange.quantMax));
}

StatusOr<IntegerProduct> prepareIntegerProduct(DType aType, ActivationQParams a,
                                               DType bType, ActivationQParams b,
                                               DType outputType,
                                               ActivationQParams output,
                                               int64_t k) {
  if (Status status = checkActivation(a, aType, "first input"); !status)
    return status;
  if (Status status = checkActivation(b, bType, "second input"); !status)
    return status;
  if (Status status = checkActivation(output, outputType, "output"); !status)
    return status;
  if (k < 1)
    return Status::error("product K must be positive, got " + str(k));
  auto maxCentred = [](DType type, int32_t zeroPoint) {
    const QRange range = dtypeRange(type);
    return std::max(zeroPoint - range.quantMin, range.quantMax - zeroPoint);
  };
  const int64_t maxProduct =
      maxCentred(aType, a.zeroPoint) * maxCentred(bType, b.zeroPoint);
  if (k > std::numeric_limits<int32_t>::max() / maxProduct)
    return Status::error("the int32 accumulator can overflow (K = " + str(k) +
                         ", max |a - za| * |b - zb| = " + str(maxProduct) +
                         ")");
  StatusOr<QuantizedMultiplier> multiplier = quantizeMultiplier(
      static_cast<double>(a.scale) * static_cast<double>(b.scale) /
      static_cast<double>(output.scale));
  if (!multiplier)
    return multiplier.getStatus();
  StatusOr<QRange> range = fusedActivationRange(
      outputType, output.scale, output.zeroPoint, FusedActivation::none());
  if (!range)
    return range.getStatus();
  IntegerProduct product;
  product.k = k;
  product.aType = aType;
  product.bType = bType;
  product.outputType = outputType;
  product.aZeroPoint = a.zeroPoint;
  product.bZeroPoint = b.zeroPoint;
  product.multiplier = *multiplier;
  product.outputZeroPoint = output.zeroPoint;
  product.outputRange = *range;
  return product;
}

template <typename A, typename B, typename Out>
Status quantizedProduct(const IntegerProduct &product, const A *a, const B *b,
                        int64_t m, int64_t n, Out *out) {
  if (Status status = checkStorageType<A>(product.aType, "first input");
      !status)
    return status;
  if (Status status = checkStorageType<B>(product.bType, "second input");
      !status)
    return status;
  if (Status status = checkStorageType<Out>(product.outputType, "output");
      !status)
    return status;
  if (m < 0 || n < 0)
    return Status::error("product M and N must not be negative, got " + str(m) +
                         " and " + str(n));
  for (int64_t row = 0; row < m; ++row)
    for (int64_t col = 0; col < n; ++col) {
      int64_t acc = 0;
      for (int64_t i = 0; i < product.k; ++i)
        acc += (int64_t(a[row * product.k + i]) - product.aZeroPoint) *
               (int64_t(b[i * n + col]) - product.bZeroPoint);
      out[row * n + col] = static_cast<Out>(
          requantize(static_cast<int32_t>(acc), product.multiplier,
                     product.outputZeroPoint,
                     static_cast<int32_t>(product.outputRange.quantMin),
                     static_cast<int32_t>(product.outputRange.quantMax)));
    }
  return Status::success();
}

#define QUANTA_INSTANTIATE_PRODUCT(A, B, Out)                                  \
  template Status quantizedProduct(const IntegerProduct &, const A *,          \
                                   const B *, int64_t, int64_t, Out *);
#define QUANTA_INSTANTIATE_PRODUCT_B(A, B)                                     \
  QUANTA_INSTANTIATE_PRODUCT(A, B, uint8_t)                                    \
  QUANTA_INSTANTIATE_PRODUCT(A, B, int8_t)
QUANTA_INSTANTIATE_PRODUCT_B(uint8_t, uint8_t)
QUANTA_INSTANTIATE_PRODUCT_B(uint8_t, int8_t)
QUANTA_INSTANTIATE_PRODUCT_B(int8_t, uint8_t)
QUANTA_INSTANTIATE_PRODUCT_B(int8_t, int8_t)
#undef QUANTA_INSTANTIATE_PRODUCT_B
#undef QUANTA_INSTANTIATE_PRODUCT

StatusOr<IntegerAveragePool> prepareIntegerAveragePool(DType type,
                                                       ActivationQParams input,
                                                       ActivationQParams output,
                                                       int64_t windowSize) {
  if (Status status = checkActivation(input, type, "input"); !status)
    return status;
  if (windowSize < 1 || windowSize > (int64_t(1) << 23))
    return Status::error("average pooling window size must be in [1, 2^23], "
                         "got " +
                         str(windowSize));
  StatusOr<QRange> range = fusedActivationRange(
      type, output.scale, output.zeroPoint, FusedActivation::none());
  if (!range)
    return range.getStatus();
  StatusOr<QuantizedMultiplier> multiplier = quantizeMultiplier(
      static_cast<double>(input.scale) /
      (static_cast<double>(output.scale) * static_cast<double>(windowSize)));
  if (!multiplier)
    return multiplier.getStatus();
  IntegerAveragePool pool;
  pool.type = type;
  pool.inputZeroPoint = input.zeroPoint;
  pool.multiplier = *multiplier;
  pool.outputZeroPoint = output.zeroPoint;
  pool.outputRange = *range;
  return pool;
}

int32_t IntegerAveragePool::apply(int32_t centredSum) const {
  return requantize(centredSum, multiplier, outputZeroPoint,
                    static_cast<int32_t>(outputRange.quantMin),
                    static_cast<int32_t>(outputRange.quantMax));
}

StatusOr<IntegerSoftmax> prepareIntegerSoftmax(DType inputType,
                                               ActivationQParams input,
                                               DType outputType,
                                               ActivationQParams output,
                                               int64_t rowLength) {
  if (Status status = checkActivation(input, inputType, "input"); !status)
    return status;
  if (Status status = checkActivation(output, outputType, "output"); !status)
    return status;
  constexpr int64_t kMaxRowLength = int64_t(1) << 19;
  if (rowLength < 1 || rowLength > kMaxRowLength)
    return Status::error("softmax row length must be in [1, 2^19], got " +
                         str(rowLength));
  IntegerSoftmax softmax;
  softmax.fractionBits = 24;
  while (rowLength << softmax.fractionBits >
         std::numeric_limits<int32_t>::max())
    --softmax.fractionBits;
  // The smallest row factor's denominator is 2^fractionBits * s_out.
  if (!std::isnormal(std::ldexp(output.scale, softmax.fractionBits)))
    return Status::error("softmax output scale " + strFloat(output.scale) +
                         " is too small for a finite row factor");
  StatusOr<QRange> range = fusedActivationRange(
      outputType, output.scale, output.zeroPoint, FusedActivation::none());
  if (!range)
    return range.getStatus();
  const double one = std::ldexp(1.0, softmax.fractionBits);
  for (int d = 0; d < 256; ++d)
    softmax.expTable[d] = static_cast<int32_t>(
        std::nearbyint(std::exp(-static_cast<double>(input.scale) * d) * one));
  softmax.inputType = inputType;
  softmax.outputType = outputType;
  softmax.outputScale = output.scale;
  softmax.outputZeroPoint = output.zeroPoint;
  softmax.outputRange = *range;
  return softmax;
}

float IntegerSoftmax::rowFactor(int32_t expSum) const {
  return 1.0f / (static_cast<float>(expSum) * outputScale);
}

/// `q` (an integer in float, never NaN) clamped to `range` in float, so
/// that the conversion cannot overflow, as the normalizations' IR does.
static int32_t clampToRange(float q, QRange range) {
  q = std::min(q, static_cast<float>(range.quantMax));
  q = std::max(q, static_cast<float>(range.quantMin));
  return static_cast<int32_t>(q);
}

int32_t IntegerSoftmax::apply(int32_t expValue, float rowFactor) const {
  return clampToRange(std::nearbyint(static_cast<float>(expValue) * rowFactor) +
                          static_cast<float>(outputZeroPoint),
                      outputRange);
}

template <typename In, typename Out>
Status quantizedSoftmax(const IntegerSoftmax &softmax, const In *input,
                        int64_t rows, int64_t rowLength, Out *output) {
  if (Status status = checkStorageType<In>(softmax.inputType, "input"); !status)
    return status;
  if (Status status = checkStorageType<Out>(softmax.outputType, "output");
      !status)
    return status;
  if (rows < 0 || rowLength < 1 ||
      rowLength << softmax.fractionBits > std::numeric_limits<int32_t>::max())
    return Status::error("softmax of " + str(rows) + " rows of " +
                         str(rowLength) + " values does not match the op's " +
                         str(softmax.fractionBits) + " fraction bits");
  for (int64_t row = 0; row < rows; ++row) {
    const In *in = input + row * rowLength;
    const int32_t rowMax = *std::max_element(in, in + rowLength);
    int32_t sum = 0;
    for (int64_t i = 0; i < rowLength; ++i)
      sum += softmax.expTable[rowMax - in[i]];
    const float factor = softmax.rowFactor(sum);
    for (int64_t i = 0; i < rowLength; ++i)
      output[row * rowLength + i] = static_cast<Out>(
          softmax.apply(softmax.expTable[rowMax - in[i]], factor));
  }
  return Status::success();
}

#define QUANTA_INSTANTIATE_SOFTMAX(In, Out)                                    \
  template Status quantizedSoftmax(const IntegerSoftmax &, const In *,         \
                                   int64_t, int64_t, Out *);
QUANTA_INSTANTIATE_SOFTMAX(uint8_t, uint8_t)
QUANTA_INSTANTIATE_SOFTMAX(uint8_t, int8_t)
QUANTA_INSTANTIATE_SOFTMAX(int8_t, uint8_t)
QUANTA_INSTANTIATE_SOFTMAX(int8_t, int8_t)
#undef QUANTA_INSTANTIATE_SOFTMAX

StatusOr<IntegerLayerNorm>
prepareIntegerLayerNorm(DType inputType, ActivationQParams input,
                        DType outputType, ActivationQParams output,
                        float epsilon, int64_t rowLength) {
  if (Status status = checkActivation(input, inputType, "input"); !status)
    return status;
  if (Status status = checkActivation(output, outputType, "output"); !status)
    return status;
  if (!std::isfinite(epsilon) || epsilon < 0.0f)
    return Status::error("layer norm epsilon must be finite and not "
                         "negative, got " +
                         strFloat(epsilon));
  // N * 255^2 < 2^31 for the sum of squares.
  if (rowLength < 1 || rowLength > (int64_t(1) << 16))
    return Status::error("layer norm row length must be in [1, 2^16], got " +
                         str(rowLength));
  StatusOr<QRange> range = fusedActivationRange(
      outputType, output.scale, output.zeroPoint, FusedActivation::none());
  if (!range)
    return range.getStatus();
  IntegerLayerNorm norm;
  norm.inputType = inputType;
  norm.outputType = outputType;
  norm.inputZeroPoint = input.zeroPoint;
  norm.inputScale = input.scale;
  norm.epsilon = epsilon;
  norm.rowLength = rowLength;
  norm.outputInverseScale = 1.0f / output.scale;
  norm.outputZeroPoint = output.zeroPoint;
  norm.outputRange = *range;
  return norm;
}

// One operation per statement: no contraction into FMAs, which the JIT's
// code does not do either.
IntegerLayerNorm::Row IntegerLayerNorm::row(int32_t sum,
                                            int32_t sumOfSquares) const {
  const int64_t spread =
      rowLength * int64_t(sumOfSquares) - int64_t(sum) * int64_t(sum);
  const float mean = static_cast<float>(sum) / static_cast<float>(rowLength);
  const float variance =
      static_cast<float>(spread) / static_cast<float>(rowLength * rowLength);
  const float scaled = variance * (inputScale * inputScale);
  const float deviation = std::sqrt(scaled + epsilon);
  return {mean, inputScale / deviation};
}

int32_t IntegerLayerNorm::apply(int32_t centred, Row row, float gamma,
                                float beta) const {
  const float normalized =
      (static_cast<float>(centred) - row.mean) * row.factor;
  const float scaled = normalized * gamma;
  const float y = scaled + beta;
  return clampToRange(std::nearbyint(y * outputInverseScale) +
                          static_cast<float>(outputZeroPoint),
                      outputRange);
}

template <typename In, typename Out>
Status quantizedLayerNorm(const IntegerLayerNorm &norm, const In *input,
                          int64_t rows, const float *gamma, const float *beta,
                          Out *output) {
  if (Status status = checkStorageType<In>(norm.inputType, "input"); !status)
    return status;
  if (Status status = checkStorageType<Out>(norm.outputType, "output"); !status)
    return status;
  if (rows < 0)
    return Status::error("layer norm rows must not be negative, got " +
                         str(rows));
  const int64_t n = norm.rowLength;
  for (int64_t r = 0; r < rows; ++r) {
    const In *in = input + r * n;
    int32_t sum = 0, sumOfSquares = 0;
    for (int64_t i = 0; i < n; ++i) {
      const int32_t c = int32_t(in[i]) - norm.inputZeroPoint;
      sum += c;
      sumOfSquares += c * c;
    }
    const IntegerLayerNorm::Row row = norm.row(sum, sumOfSquares);
    for (int64_t i = 0; i < n; ++i)
      output[r * n + i] = static_cast<Out>(norm.apply(
          int32_t(in[i]) - norm.inputZeroPoint, row, gamma[i], beta[i]));
  }
  return Status::success();
}

#define QUANTA_INSTANTIATE_LAYER_NORM(In, Out)                                 \
  template Status quantizedLayerNorm(const IntegerLayerNorm &, const In *,     \
                                     int64_t, const float *, const float *,    \
                                     Out *);
QUANTA_INSTANTIATE_LAYER_NORM(uint8_t, uint8_t)
QUANTA_INSTANTIATE_LAYER_NORM(uint8_t, int8_t)
QUANTA_INSTANTIATE_LAYER_NORM(int8_t, uint8_t)
QUANTA_INSTANTIATE_LAYER_NORM(int8_t, int8_t)
#undef QUANTA_INSTANTIATE_LAYER_NORM

template <typename Op, typename T>
Status quantizedElementwise(const Op &op, const T *a, const T *b, T *out,
                            int64_t size) {
  if (Status status = checkStorageType<T>(op.type, "elementwise"); !status)
    return status;
  if (size < 0)
    return Status::error("elementwise size must not be negative, got " +
                         str(size));
  for (int64_t i = 0; i < size; ++i)
    out[i] = static_cast<T>(op.apply(a[i], b[i]));
  return Status::success();
}

template Status quantizedElementwise(const IntegerAdd &, const uint8_t *,
                                     const uint8_t *, uint8_t *, int64_t);
template Status quantizedElementwise(const IntegerAdd &, const int8_t *,
                                     const int8_t *, int8_t *, int64_t);
template Status quantizedElementwise(const IntegerMul &, const uint8_t *,
                                     const uint8_t *, uint8_t *, int64_t);
template Status quantizedElementwise(const IntegerMul &, const int8_t *,
                                     const int8_t *, int8_t *, int64_t);

} // namespace mlir::quanta::numerics

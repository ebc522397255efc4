//===- FakeQuant.cpp - PyTorch-exact fake quantization --------------------===//
//
// Kernels: aten/src/ATen/native/quantized/cpu/kernels/QuantizedOpKernels.cpp
// (fake_quantize_tensor_cachemask*_kernel, fake_quant_per_channel_cachemask).
// Fused module: aten/src/ATen/native/quantized/FusedObsFakeQuant.cpp and
// quant_utils::ChooseQuantizationParams (ATen's QuantUtils.h).
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/FakeQuant.h"

#include "TorchFloat.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <string>

namespace mlir::quanta::numerics {

using detail::truncateToInt64;

static std::string str(int64_t value) { return std::to_string(value); }

//===----------------------------------------------------------------------===//
// Kernels
//===----------------------------------------------------------------------===//

/// (fmin(fmax(q, qmin), qmax) - zp) * scale: std::fmin/fmax promote the
/// int64 operands to double, so ATen computes this in double and rounds once
/// to float when storing.
template <typename ZeroPoint>
static float dequantizeClamped(int64_t quantized, ZeroPoint zeroPoint,
                               float scale, int64_t quantMin,
                               int64_t quantMax) {
  double clamped = std::fmin(
      std::fmax(static_cast<double>(quantized), static_cast<double>(quantMin)),
      static_cast<double>(quantMax));
  return static_cast<float>((clamped - static_cast<double>(zeroPoint)) *
                            static_cast<double>(scale));
}

/// The integer-zero-point kernel body. `zp + nearbyint(x * inv_scale)` is a
/// float addition: C++ converts the integer zero point to float first.
static float fakeQuantizeValue(float x, float scale, float invScale,
                               int64_t zeroPoint, int64_t quantMin,
                               int64_t quantMax) {
  float shifted = static_cast<float>(zeroPoint) + std::nearbyint(x * invScale);
  return dequantizeClamped(truncateToInt64(shifted), zeroPoint, scale, quantMin,
                           quantMax);
}

/// The float-zero-point kernel body: lrintf(zp + x * inv_scale) (round half
/// to even; x86 gives LONG_MIN for NaN and overflow). PyTorch's AVX2 kernel
/// is compiled with FMA contraction, so zp + x * inv_scale is one fused
/// multiply-add (verified on near-tie inputs; the plain-C++ order differs).
static int64_t quantizeUnclamped(float x, float invScale, float zeroPoint) {
  return truncateToInt64(std::nearbyint(std::fma(x, invScale, zeroPoint)));
}

static float fakeQuantizeValueFloatZeroPoint(float x, float scale,
                                             float invScale, float zeroPoint,
                                             int64_t quantMin,
                                             int64_t quantMax) {
  return dequantizeClamped(quantizeUnclamped(x, invScale, zeroPoint), zeroPoint,
                           scale, quantMin, quantMax);
}

int64_t quantizeFloatZeroPoint(float x, float scale, float zeroPoint,
                               int64_t quantMin, int64_t quantMax) {
  return std::clamp(quantizeUnclamped(x, 1.0f / scale, zeroPoint), quantMin,
                    quantMax);
}

EmbeddingRow getEmbeddingRow(float scale, float zeroPoint, int64_t bits) {
  const float bias = -zeroPoint * scale;
  if (bits == 8)
    return {scale, bias};
  // The 4-bit rows keep both in half precision, rounded to nearest even.
  return {static_cast<float>(static_cast<_Float16>(scale)),
          static_cast<float>(static_cast<_Float16>(bias))};
}

static Status checkQuantRange(int64_t quantMin, int64_t quantMax) {
  if (quantMin > quantMax)
    return Status::error("quant_min (" + str(quantMin) +
                         ") must be <= quant_max (" + str(quantMax) + ")");
  return Status::success();
}

static Status checkZeroPointInRange(int64_t zeroPoint, int64_t quantMin,
                                    int64_t quantMax) {
  if (zeroPoint < quantMin || zeroPoint > quantMax)
    return Status::error("zero point " + str(zeroPoint) +
                         " must be within [quant_min, quant_max] = [" +
                         str(quantMin) + ", " + str(quantMax) + "]");
  return Status::success();
}

Status fakeQuantizePerTensorAffine(const float *input, float *output,
                                   size_t size, float scale, int64_t zeroPoint,
                                   int64_t quantMin, int64_t quantMax) {
  if (Status status = checkQuantRange(quantMin, quantMax); !status)
    return status;
  if (Status status = checkZeroPointInRange(zeroPoint, quantMin, quantMax);
      !status)
    return status;
  if (Status status = validateScale(scale); !status)
    return status;
  const float invScale = 1.0f / scale;
  for (size_t i = 0; i < size; ++i)
    output[i] = fakeQuantizeValue(input[i], scale, invScale, zeroPoint,
                                  quantMin, quantMax);
  return Status::success();
}

/// Checks the per-channel arguments and applies `quantize(x, channel)` to
/// every element.
template <typename ZeroPoint, typename QuantizeFn>
static Status
forEachChannelElement(const float *input, float *output,
                      const std::vector<int64_t> &shape, int64_t axis,
                      const std::vector<float> &scale,
                      const std::vector<ZeroPoint> &zeroPoint, int64_t quantMin,
                      int64_t quantMax, QuantizeFn quantize) {
  const auto rank = static_cast<int64_t>(shape.size());
  if (axis < 0 || axis >= rank)
    return Status::error("axis " + str(axis) + " must be in [0, " + str(rank) +
                         ") for a tensor of rank " + str(rank) +
                         " (PyTorch's per-channel fake quantize does not "
                         "accept negative axes)");
  if (scale.size() != zeroPoint.size())
    return Status::error("got " + str(scale.size()) + " scales but " +
                         str(zeroPoint.size()) + " zero points");
  if (static_cast<int64_t>(scale.size()) != shape[axis])
    return Status::error("got " + str(scale.size()) + " scales for the " +
                         str(shape[axis]) + " channels of dimension " +
                         str(axis));
  if (Status status = checkQuantRange(quantMin, quantMax); !status)
    return status;
  for (float value : scale)
    if (Status status = validateScale(value); !status)
      return status;
  const detail::ChannelLayout layout(shape, axis);
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t c = 0; c < layout.channels; ++c) {
      const int64_t offset = layout.offset(o, c);
      for (int64_t i = 0; i < layout.inner; ++i)
        output[offset + i] = quantize(input[offset + i], c);
    }
  }
  return Status::success();
}

Status fakeQuantizePerChannelAffine(const float *input, float *output,
                                    const std::vector<int64_t> &shape,
                                    int64_t axis,
                                    const std::vector<float> &scale,
                                    const std::vector<int64_t> &zeroPoint,
                                    int64_t quantMin, int64_t quantMax) {
  for (int64_t value : zeroPoint)
    if (Status status = checkZeroPointInRange(value, quantMin, quantMax);
        !status)
      return status;
  return forEachChannelElement(input, output, shape, axis, scale, zeroPoint,
                               quantMin, quantMax, [&](float x, int64_t c) {
                                 return fakeQuantizeValue(
                                     x, scale[c], 1.0f / scale[c], zeroPoint[c],
                                     quantMin, quantMax);
                               });
}

Status fakeQuantizePerChannelAffine(const float *input, float *output,
                                    const std::vector<int64_t> &shape,
                                    int64_t axis,
                                    const std::vector<float> &scale,
                                    const std::vector<float> &zeroPoint,
                                    int64_t quantMin, int64_t quantMax) {
  return forEachChannelElement(input, output, shape, axis, scale, zeroPoint,
                               quantMin, quantMax, [&](float x, int64_t c) {
                                 return fakeQuantizeValueFloatZeroPoint(
                                     x, scale[c], 1.0f / scale[c], zeroPoint[c],
                                     quantMin, quantMax);
                               });
}

//===----------------------------------------------------------------------===//
// ChooseQuantizationParams
//===----------------------------------------------------------------------===//

StatusOr<ChosenQParams> chooseQuantizationParams(float min, float max,
                                                 int32_t qmin, int32_t qmax,
                                                 bool preserveSparsity) {
  if (!(min <= max))
    return Status::error(
        "min (" + std::to_string(min) + ") must be <= max (" +
        std::to_string(max) + ")" +
        (std::isnan(min) || std::isnan(max)
             ? ": the observed data contained NaN"
             : ": nothing was observed yet or the statistics are "
               "inconsistent") +
        " (PyTorch's ChooseQuantizationParams fails a check)");
  if (!std::isfinite(min) || !std::isfinite(max))
    return Status::error("the range [" + std::to_string(min) + ", " +
                         std::to_string(max) +
                         "] is infinite; PyTorch would compute scale inf and "
                         "an undefined zero point");
  if (min < 0 && max > 0 && preserveSparsity) {
    const int symmetricQmin = -((qmax - qmin) / 2 + 1);
    const int symmetricQmax = (qmax - qmin) / 2;
    // float quotients, then double products narrowed back to float.
    const double maxScale =
        std::max(std::fabs(min / static_cast<float>(symmetricQmin)),
                 std::fabs(max / static_cast<float>(symmetricQmax)));
    min = static_cast<float>(maxScale * symmetricQmin);
    max = static_cast<float>(maxScale * symmetricQmax);
  }
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  if (!(qmin < qmax))
    return Status::error("qmin (" + str(qmin) + ") must be < qmax (" +
                         str(qmax) + ")");

  double scale = (static_cast<double>(max) - min) / (qmax - qmin);
  // Avoid a zero scale or one whose float reciprocal is infinite.
  if (static_cast<float>(scale) == 0.0f ||
      std::isinf(1.0f / static_cast<float>(scale)))
    scale = 0.1;
  if (std::isinf(static_cast<float>(scale)))
    return Status::error("the range [" + std::to_string(min) + ", " +
                         std::to_string(max) +
                         "] is too wide: its scale overflows float32");

  constexpr float kSmallScaleThreshold = 6.1e-5f;
  if (scale < kSmallScaleThreshold) {
    const auto originalScale = static_cast<float>(scale);
    scale = kSmallScaleThreshold;
    // Widen the range to match the new scale (float arithmetic).
    if (min == 0.0f) {
      max = kSmallScaleThreshold * static_cast<float>(qmax - qmin);
    } else if (max == 0.0f) {
      min = -kSmallScaleThreshold * static_cast<float>(qmax - qmin);
    } else {
      const float amplifier = kSmallScaleThreshold / originalScale;
      min *= amplifier;
      max *= amplifier;
    }
  }

  // Take the zero point from the end whose terms are smaller (less error).
  const double zeroPointFromMin = qmin - min / scale;
  const double zeroPointFromMax = qmax - max / scale;
  const double zeroPointFromMinError = std::abs(qmin) - std::abs(min / scale);
  const double zeroPointFromMaxError = std::abs(qmax) - std::abs(max / scale);
  double initialZeroPoint = zeroPointFromMinError < zeroPointFromMaxError
                                ? zeroPointFromMin
                                : zeroPointFromMax;
  if (min < 0 && max > 0 && preserveSparsity)
    initialZeroPoint = static_cast<double>(qmin + qmax) / 2;

  int32_t zeroPoint;
  if (initialZeroPoint < qmin)
    zeroPoint = qmin;
  else if (initialZeroPoint > qmax)
    zeroPoint = qmax;
  else
    zeroPoint = static_cast<int32_t>(std::nearbyint(initialZeroPoint));
  return ChosenQParams{scale, zeroPoint};
}

//===----------------------------------------------------------------------===//
// FakeQuantize modules
//===----------------------------------------------------------------------===//

static bool isPerChannelObserver(ObserverKind kind) {
  return kind == ObserverKind::PerChannelMinMax ||
         kind == ObserverKind::MovingAveragePerChannelMinMax;
}

/// torch.iinfo of the quantized dtype (quint4x2 reports 0..255).
static QRange dtypeBounds(DType dtype) {
  switch (dtype) {
  case DType::QInt8:
    return {-128, 127};
  case DType::QInt32:
    return {-(int64_t(1) << 31), (int64_t(1) << 31) - 1};
  case DType::QUInt8:
  case DType::QUInt4x2:
    return {0, 255};
  }
  return {0, 0};
}

HistogramOptions FakeQuantizeOptions::getHistogramOptions() const {
  HistogramOptions histogram;
  histogram.bins = bins;
  histogram.upsampleRate = upsampleRate;
  histogram.uniform = observerOptions;
  histogram.exactHistcRange = exactHistcRange;
  return histogram;
}

FakeQuantizeBase::FakeQuantizeBase(const FakeQuantizeOptions &options,
                                   QRange range)
    : options(options), range(range) {
  // PyTorch's histogram buffer: `bins` zeros.
  if (options.observer == ObserverKind::Histogram)
    histogramStats.histogram.assign(options.bins, 0.0f);
  qparams.scale = {1.0f};
  if (options.observerOptions.qscheme == QScheme::PerChannelAffineFloatQParams)
    qparams.floatZeroPoint = {0.0f};
  else
    qparams.zeroPoint = {0};
}

bool FakeQuantizeBase::isPerChannel() const {
  return numerics::isPerChannel(options.observerOptions.qscheme);
}

Status FakeQuantizeBase::validate(const FakeQuantizeOptions &options) {
  const UniformObserverOptions &observer = options.observerOptions;
  if (observer.hasCustomizedQRange()) {
    const int64_t quantMin = *observer.quantMin, quantMax = *observer.quantMax;
    if (quantMin > quantMax)
      return Status::error("quant_min (" + str(quantMin) +
                           ") must be <= quant_max (" + str(quantMax) + ")");
    const QRange bounds = dtypeBounds(observer.dtype);
    if (quantMin < bounds.quantMin || quantMax > bounds.quantMax)
      return Status::error("quant_min/quant_max [" + str(quantMin) + ", " +
                           str(quantMax) + "] exceed the bounds [" +
                           str(bounds.quantMin) + ", " + str(bounds.quantMax) +
                           "] of " + std::string(toString(observer.dtype)) +
                           " (torch.iinfo)");
  }
  if (options.observer == ObserverKind::MovingAverageMinMax ||
      options.observer == ObserverKind::MovingAveragePerChannelMinMax)
    if (Status status = validateAveragingConstant(options.averagingConstant);
        !status)
      return status;
  if (options.observer == ObserverKind::Histogram)
    return validateHistogramOptions(options.getHistogramOptions());
  return validateObserverOptions(options.observer, observer);
}

Status
FakeQuantizeBase::applyFakeQuant(const float *input, float *output,
                                 const std::vector<int64_t> &shape) const {
  const QRange r = range;
  if (!isPerChannel())
    return fakeQuantizePerTensorAffine(
        input, output, static_cast<size_t>(numElements(shape)),
        qparams.scale[0], qparams.zeroPoint[0], r.quantMin, r.quantMax);
  if (options.observerOptions.qscheme == QScheme::PerChannelAffineFloatQParams)
    return fakeQuantizePerChannelAffine(input, output, shape, options.chAxis,
                                        qparams.scale, qparams.floatZeroPoint,
                                        r.quantMin, r.quantMax);
  return fakeQuantizePerChannelAffine(input, output, shape, options.chAxis,
                                      qparams.scale, qparams.zeroPoint,
                                      r.quantMin, r.quantMax);
}

/// The module's output when fake quant is disabled: the input itself.
static void copyInput(const float *input, float *output,
                      const std::vector<int64_t> &shape) {
  if (input != output)
    std::memcpy(output, input, sizeof(float) * numElements(shape));
}

StatusOr<FakeQuantize>
FakeQuantize::create(const FakeQuantizeOptions &options) {
  if (Status status = validate(options); !status)
    return status;
  return FakeQuantize(options, computeQRange(options.observerOptions));
}

StatusOr<QParams> FakeQuantize::calculateQParams() const {
  if (options.observer == ObserverKind::Histogram)
    return calculateHistogramQParams(options.getHistogramOptions(),
                                     histogramStats);
  if (isPerChannelObserver(options.observer))
    return numerics::calculateQParams(options.observerOptions, perChannelStats);
  return numerics::calculateQParams(options.observerOptions, stats);
}

Status FakeQuantize::forward(const float *input, float *output,
                             const std::vector<int64_t> &shape) {
  if (observerEnabled) {
    const size_t size = static_cast<size_t>(numElements(shape));
    Status observed = Status::success();
    switch (options.observer) {
    case ObserverKind::MinMax:
      updateMinMax(stats, input, size);
      break;
    case ObserverKind::MovingAverageMinMax:
      updateMovingAverageMinMax(stats, input, size, options.averagingConstant);
      break;
    case ObserverKind::PerChannelMinMax:
      observed =
          updatePerChannelMinMax(perChannelStats, input, shape, options.chAxis);
      break;
    case ObserverKind::MovingAveragePerChannelMinMax:
      observed = updateMovingAveragePerChannelMinMax(perChannelStats, input,
                                                     shape, options.chAxis,
                                                     options.averagingConstant);
      break;
    case ObserverKind::Histogram:
      observed = updateHistogram(histogramStats, options.getHistogramOptions(),
                                 input, size);
      stats = {histogramStats.min, histogramStats.max};
      break;
    }
    if (!observed)
      return observed;
    StatusOr<QParams> computed = calculateQParams();
    if (!computed)
      return computed.getStatus();
    qparams = std::move(*computed);
  }
  if (fakeQuantEnabled)
    return applyFakeQuant(input, output, shape);
  copyInput(input, output, shape);
  return Status::success();
}

FakeQuantizeOptions FusedMovingAvgObsFakeQuantize::defaultOptions() {
  FakeQuantizeOptions options;
  options.observerOptions.quantMin = 0;
  options.observerOptions.quantMax = 255;
  return options;
}

StatusOr<FusedMovingAvgObsFakeQuantize>
FusedMovingAvgObsFakeQuantize::create(const FakeQuantizeOptions &options) {
  if (Status status = validate(options); !status)
    return status;
  if (options.observer != ObserverKind::MovingAverageMinMax &&
      options.observer != ObserverKind::MovingAveragePerChannelMinMax)
    return Status::error("FusedMovingAvgObsFakeQuantize only works with "
                         "MovingAverageMinMaxObserver and "
                         "MovingAveragePerChannelMinMaxObserver, got " +
                         std::string(toString(options.observer)));
  // PyTorch only raises this at the first observed batch.
  if (options.observer == ObserverKind::MovingAveragePerChannelMinMax &&
      options.chAxis != 0)
    return Status::error("FusedMovingAvgObsFakeQuantize quantizes per channel "
                         "only along axis 0, got ch_axis " +
                         str(options.chAxis));
  return FusedMovingAvgObsFakeQuantize(options,
                                       computeQRange(options.observerOptions));
}

/// calculate_moving_average: a running value that is +-inf (never observed,
/// or observed inf) restarts from the batch; the double averaging constant
/// is passed to a float parameter.
static void fusedMovingAverage(float &running, float current, float constant) {
  running =
      std::isinf(running) ? current : running + constant * (current - running);
}

Status
FusedMovingAvgObsFakeQuantize::observe(const float *input,
                                       const std::vector<int64_t> &shape) {
  const auto constant = static_cast<float>(options.averagingConstant);
  if (!isPerChannel()) {
    MinMaxStats current =
        computeMinMax(input, static_cast<size_t>(numElements(shape)));
    fusedMovingAverage(stats.min, current.min, constant);
    fusedMovingAverage(stats.max, current.max, constant);
    return Status::success();
  }
  StatusOr<PerChannelMinMaxStats> current =
      computePerChannelMinMax(input, shape, /*chAxis=*/0);
  if (!current)
    return current.getStatus();
  if (current->min.size() != perChannelStats.min.size())
    return Status::error("the batch has " + str(current->min.size()) +
                         " channels but the module has statistics for " +
                         str(perChannelStats.min.size()));
  for (size_t c = 0; c < current->min.size(); ++c) {
    fusedMovingAverage(perChannelStats.min[c], current->min[c], constant);
    fusedMovingAverage(perChannelStats.max[c], current->max[c], constant);
  }
  return Status::success();
}

Status FusedMovingAvgObsFakeQuantize::chooseQParams() {
  const bool symmetric = isSymmetric(options.observerOptions.qscheme);
  const bool floatZeroPoint =
      options.observerOptions.qscheme == QScheme::PerChannelAffineFloatQParams;
  const std::vector<float> &mins =
      isPerChannel() ? perChannelStats.min : std::vector<float>{stats.min};
  const std::vector<float> &maxs =
      isPerChannel() ? perChannelStats.max : std::vector<float>{stats.max};
  QParams chosen;
  for (size_t i = 0; i < mins.size(); ++i) {
    StatusOr<ChosenQParams> params = chooseQuantizationParams(
        mins[i], maxs[i], static_cast<int32_t>(range.quantMin),
        static_cast<int32_t>(range.quantMax), symmetric);
    if (!params)
      return params.getStatus();
    chosen.scale.push_back(static_cast<float>(params->scale));
    // A float zero-point buffer receives the integer zero point as a float.
    if (floatZeroPoint)
      chosen.floatZeroPoint.push_back(static_cast<float>(params->zeroPoint));
    else
      chosen.zeroPoint.push_back(params->zeroPoint);
  }
  qparams = std::move(chosen);
  return Status::success();
}

Status
FusedMovingAvgObsFakeQuantize::forward(const float *input, float *output,
                                       const std::vector<int64_t> &shape) {
  if (numElements(shape) == 0)
    return Status::success();
  if (isPerChannel()) {
    if (shape.size() < 2)
      return Status::error("per-channel fused fake quant needs a tensor of "
                           "rank >= 2 (PyTorch flattens dimensions 1..)");
    if (perChannelStats.min.empty()) {
      const auto channels = static_cast<size_t>(shape[0]);
      perChannelStats.min.assign(channels, detail::kInf);
      perChannelStats.max.assign(channels, -detail::kInf);
      // PyTorch resizes scale/zero_point without initializing the new
      // entries; they are overwritten before the first fake quant.
      qparams.scale.assign(channels, 1.0f);
      if (qparams.floatZeroPoint.empty())
        qparams.zeroPoint.assign(channels, 0);
      else
        qparams.floatZeroPoint.assign(channels, 0.0f);
    }
  }
  if (observerEnabled)
    if (Status status = observe(input, shape); !status)
      return status;
  if (!fakeQuantEnabled) {
    copyInput(input, output, shape);
    return Status::success();
  }
  if (Status status = chooseQParams(); !status)
    return status;
  return applyFakeQuant(input, output, shape);
}

} // namespace mlir::quanta::numerics

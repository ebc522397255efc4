//===- Dynamic.cpp - PyTorch's dynamic quantization, bit for bit ----------===//
//
// The float operations below are written one per statement, in PyTorch's
// order: each is rounded to float32 (the build has -ffp-contract=off, and
// neither oneDNN's reorder nor QNNPACK's SSE2 epilogue fuses a
// multiply-add). docs/PyTorchDynamicNumerics.md has the evidence.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Dynamic.h"

#include "quanta/Numerics/FakeQuant.h"
#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/Requantize.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <string>

namespace mlir::quanta::numerics {

StatusOr<DynamicWeights> quantizeDynamicWeights(const float *weights, int64_t n,
                                                int64_t k, bool perChannel) {
  const auto size = static_cast<size_t>(n * k);
  if (!std::all_of(weights, weights + size,
                   [](float w) { return std::isfinite(w); }))
    return Status::error("the weights hold NaN or infinity: quantize_dynamic "
                         "would compute an infinite or NaN scale");
  // default_dynamic_qconfig's / per_channel_dynamic_qconfig's weight
  // observers: symmetric qint8, -128..127, zero point 0.
  UniformObserverOptions options;
  options.dtype = DType::QInt8;
  StatusOr<QParams> qparams = Status::success();
  if (perChannel) {
    options.qscheme = QScheme::PerChannelSymmetric;
    PerChannelMinMaxStats stats;
    if (Status status = updatePerChannelMinMax(stats, weights, {n, k}, 0);
        !status)
      return status;
    qparams = calculateQParams(options, stats);
  } else {
    options.qscheme = QScheme::PerTensorSymmetric;
    MinMaxStats stats;
    updateMinMax(stats, weights, size);
    qparams = calculateQParams(options, stats);
  }
  if (!qparams)
    return qparams.getStatus();
  DynamicWeights quantized;
  quantized.scales = qparams->scale;
  quantized.values.resize(size);
  for (int64_t row = 0; row < n; ++row) {
    const float scale = quantized.scales[perChannel ? row : 0];
    for (int64_t col = 0; col < k; ++col)
      quantized.values[row * k + col] = static_cast<int8_t>(
          quantizeValue(weights[row * k + col], scale, 0, -128, 127));
  }
  return quantized;
}

float roundToHalf(float value) {
  const float magnitude = std::fabs(value);
  if (!(magnitude < 65520.0f)) // NaN, infinity, or rounds up beyond 65504
    return std::isnan(value)
               ? value
               : std::copysign(std::numeric_limits<float>::infinity(), value);
  // The f16 quantum at this magnitude: 2^-24 below 2^-14 (subnormals),
  // else 2^(e - 10) for magnitudes in [2^e, 2^(e + 1)). Dividing and
  // multiplying by it are exact; nearbyint rounds half to even.
  int exponent = 0;
  std::frexp(magnitude, &exponent); // magnitude in [2^(e-1), 2^e)
  const int quantumExponent = std::max(exponent - 11, -24);
  return std::copysign(
      std::ldexp(std::nearbyint(std::ldexp(magnitude, -quantumExponent)),
                 quantumExponent),
      value);
}

/// `scale` as the kernels store it: itself, or rounded to f16 (at least
/// 2^-24, f16's smallest subnormal); nullopt beyond f16's range.
static std::optional<float> storedScale(float scale, bool f16) {
  if (!f16)
    return scale;
  const float half = roundToHalf(scale);
  if (std::isinf(half))
    return std::nullopt;
  return std::max(half, std::ldexp(1.0f, -24));
}

StatusOr<DynamicWeights> quantizeInt4Weights(const float *weights, int64_t n,
                                             int64_t k,
                                             const Int4Format &format) {
  const int64_t group = format.groupSize;
  if (group <= 0 || group % 2 != 0)
    return Status::error("the group size " + std::to_string(group) +
                         " is not positive and even (4-bit weights are "
                         "stored two per byte)");
  if (k % group != 0)
    return Status::error("the group size " + std::to_string(group) +
                         " does not divide K = " + std::to_string(k));
  const auto size = static_cast<size_t>(n * k);
  if (!std::all_of(weights, weights + size,
                   [](float w) { return std::isfinite(w); }))
    return Status::error("the weights hold NaN or infinity: no finite scale");
  const int64_t groups = k / group;
  DynamicWeights quantized;
  quantized.values.resize(size);
  quantized.scales.resize(static_cast<size_t>(groups * n));
  auto beyondHalf = [](float scale) {
    return Status::error("a group's scale " + std::to_string(scale) +
                         " is beyond f16's largest value (65504): f16 "
                         "scales cannot hold it");
  };
  if (format.asymmetric) {
    // Every (row, group) a channel of one per-channel quint4x2 observer:
    // PyTorch's formula, from the one qparams library.
    std::vector<float> minVals(groups * n), maxVals(groups * n);
    for (int64_t row = 0; row < n; ++row)
      for (int64_t g = 0; g < groups; ++g) {
        const float *w = weights + row * k + g * group;
        auto [low, high] = std::minmax_element(w, w + group);
        minVals[g * n + row] = *low;
        maxVals[g * n + row] = *high;
      }
    UniformObserverOptions options;
    options.dtype = DType::QUInt4x2;
    options.qscheme = QScheme::PerChannelAffine;
    StatusOr<QParams> qparams = calculateQParams(options, minVals, maxVals);
    if (!qparams)
      return qparams.getStatus();
    quantized.zeroPoints.resize(quantized.scales.size());
    for (int64_t row = 0; row < n; ++row)
      for (int64_t g = 0; g < groups; ++g) {
        const std::optional<float> scale =
            storedScale(qparams->scale[g * n + row], format.f16Scales);
        if (!scale)
          return beyondHalf(qparams->scale[g * n + row]);
        quantized.scales[g * n + row] = *scale;
        const int64_t zeroPoint = qparams->zeroPoint[g * n + row];
        quantized.zeroPoints[g * n + row] = static_cast<int8_t>(zeroPoint - 8);
        for (int64_t i = row * k + g * group; i < row * k + (g + 1) * group;
             ++i)
          quantized.values[i] = static_cast<int8_t>(
              quantizeValue(weights[i], *scale, zeroPoint, 0, 15) - 8);
      }
    return quantized;
  }
  for (int64_t row = 0; row < n; ++row)
    for (int64_t g = 0; g < groups; ++g) {
      const float *w = weights + row * k + g * group;
      float largest = 0.0f;
      for (int64_t i = 0; i < group; ++i)
        largest = std::max(largest, std::fabs(w[i]));
      // A group of zeros (or of subnormals whose seventh underflows) takes
      // scale 1: its values all quantize to 0.
      float scale = largest / 7.0f;
      if (!(scale > 0.0f))
        scale = 1.0f;
      const std::optional<float> stored = storedScale(scale, format.f16Scales);
      if (!stored)
        return beyondHalf(scale);
      quantized.scales[g * n + row] = *stored;
      for (int64_t i = 0; i < group; ++i)
        quantized.values[row * k + g * group + i] = static_cast<int8_t>(
            std::clamp(std::nearbyint(w[i] / *stored), -8.0f, 7.0f));
    }
  return quantized;
}

float quantizeInt8Group(const float *values, int64_t n, int8_t *quantized) {
  float largest = 0.0f;
  for (int64_t i = 0; i < n; ++i)
    largest = std::isnan(values[i]) || std::isnan(largest)
                  ? std::numeric_limits<float>::quiet_NaN()
                  : std::max(largest, std::fabs(values[i]));
  float inverse = 127.0f / largest;
  if (!(inverse < std::numeric_limits<float>::infinity()))
    inverse = 0.0f;
  for (int64_t i = 0; i < n; ++i)
    // fmax/fmin take the number over a NaN product (an infinite value
    // times 0): such a group's scale is NaN anyway.
    quantized[i] = static_cast<int8_t>(std::nearbyint(
        std::fmin(std::fmax(values[i] * inverse, -127.0f), 127.0f)));
  return largest < std::numeric_limits<float>::infinity()
             ? largest / 127.0f
             : std::numeric_limits<float>::quiet_NaN();
}

/// ONNX Runtime's GetQuantizationParameter<uint8_t> (core/util/qmath.h),
/// in float32 as it computes: the range extended to 0, scale 1 where it is
/// empty (the ONNX definition divides by 0 there), the zero point clamped
/// before rounding half to even (the same integer as after: the bounds are
/// integers).
static DynamicActivationQParams chooseOnnxQParams(float min, float max) {
  min = std::min(min, 0.0f);
  max = std::max(max, 0.0f);
  const float scale = max == min ? 1.0f : (max - min) / 255.0f;
  const float initialZeroPoint = 0.0f - min / scale;
  const float zeroPoint =
      std::nearbyint(std::clamp(initialZeroPoint, 0.0f, 255.0f));
  return {scale, static_cast<int32_t>(zeroPoint)};
}

StatusOr<DynamicActivationQParams> chooseDynamicQParams(DynamicEngine engine,
                                                        float min, float max) {
  if (engine == DynamicEngine::Onnx)
    return chooseOnnxQParams(min, max);
  // The module passes reduce_range = true; QNNPACK ignores it (with a
  // warning), oneDNN halves the range as ChooseQuantizationParams does.
  const int32_t quantMax = engine == DynamicEngine::Onednn ? 127 : 255;
  StatusOr<ChosenQParams> chosen =
      chooseQuantizationParams(min, max, 0, quantMax,
                               /*preserveSparsity=*/false);
  if (!chosen)
    return chosen.getStatus();
  return DynamicActivationQParams{chosen->scale, chosen->zeroPoint};
}

/// The engine's u8 value of `x` for the activation qparams.
static int32_t quantizeActivation(DynamicEngine engine,
                                  const DynamicActivationQParams &qparams,
                                  float x) {
  if (engine == DynamicEngine::Qnnpack)
    return static_cast<int32_t>(quantizeValue(
        x, static_cast<float>(qparams.scale), qparams.zeroPoint, 0, 255));
  if (engine == DynamicEngine::Onnx) {
    // MLAS's QuantizeLinear: a float division, clamped to the zero point's
    // window, rounded half to even.
    const float scaled = x / static_cast<float>(qparams.scale);
    const auto zeroPoint = static_cast<float>(qparams.zeroPoint);
    return static_cast<int32_t>(
        std::nearbyint(std::clamp(scaled, -zeroPoint, 255.0f - zeroPoint)) +
        zeroPoint);
  }
  // oneDNN's f32 -> u8 reorder: a float multiply by the reciprocal scale
  // (computed in double), then the zero point added in float, saturated
  // and converted with round-half-even.
  const auto inverseScale = static_cast<float>(1.0 / qparams.scale);
  const float scaled = x * inverseScale;
  const float shifted = scaled + static_cast<float>(qparams.zeroPoint);
  return static_cast<int32_t>(
      std::nearbyint(std::clamp(shifted, 0.0f, 255.0f)));
}

Status dynamicLinear(DynamicEngine engine, const float *input, int64_t m,
                     int64_t k, const DynamicWeights &weights, int64_t n,
                     const float *bias, float *output) {
  if (m == 0)
    return Status::success();
  const auto size = static_cast<size_t>(m * k);
  // torch.aminmax of the whole input (NaN if any element is; 0 and 0 when
  // k = 0).
  MinMaxStats range{0.0f, 0.0f};
  if (size != 0)
    range = computeMinMax(input, size);
  const float min = range.min, max = range.max;
  if (std::isnan(min) || std::isnan(max))
    return Status::error("the input holds NaN: PyTorch's "
                         "ChooseQuantizationParams fails its min <= max "
                         "check");
  if (std::isinf(min) || std::isinf(max))
    return Status::error("the input holds an infinity: PyTorch's dynamic "
                         "Linear raises, or with onednn and -inf alone "
                         "computes infinities and NaN");
  StatusOr<DynamicActivationQParams> qparams =
      chooseDynamicQParams(engine, min, max);
  if (!qparams)
    return qparams.getStatus();

  std::vector<int32_t> activation(size);
  for (size_t i = 0; i < size; ++i)
    activation[i] =
        quantizeActivation(engine, *qparams, input[i]) - qparams->zeroPoint;

  const bool perChannel = weights.scales.size() != 1;
  const auto inputScale = static_cast<float>(qparams->scale);
  const auto inverseInputScale = static_cast<float>(1.0 / qparams->scale);
  for (int64_t col = 0; col < n; ++col) {
    const float weightScale = weights.scales[perChannel ? col : 0];
    // oneDNN: bias and output scales from reciprocals (ideep's prepack
    // keeps 1 / weight scale, computed in double); QNNPACK: one multiplier.
    const auto inverseWeightScale =
        static_cast<float>(1.0 / static_cast<double>(weightScale));
    const float biasScale = inverseInputScale * inverseWeightScale;
    const float outputScale = 1.0f / biasScale;
    const float scaledBias = bias ? bias[col] * biasScale : 0.0f;
    const float multiplier = weightScale * inputScale;
    if (engine == DynamicEngine::Qnnpack &&
        !(multiplier > 0.0f && std::isnormal(multiplier)))
      return Status::error("QNNPACK's requantization scale " +
                           std::to_string(multiplier) +
                           " is not a positive normal float (PyTorch fails "
                           "to create the operator)");
    for (int64_t row = 0; row < m; ++row) {
      // The engines accumulate in int32; |acc| <= k * 255 * 128 fits it for
      // k up to 65793, beyond which both wrap (here without undefined
      // behaviour).
      int64_t acc = 0;
      const int32_t *a = activation.data() + row * k;
      const int8_t *w = weights.values.data() + col * k;
      for (int64_t i = 0; i < k; ++i)
        acc += a[i] * static_cast<int32_t>(w[i]);
      const auto accumulator =
          static_cast<float>(static_cast<int32_t>(static_cast<uint32_t>(acc)));
      float result;
      if (engine == DynamicEngine::Onednn) {
        const float withBias = bias ? accumulator + scaledBias : accumulator;
        result = withBias * outputScale;
      } else if (engine == DynamicEngine::Qnnpack) {
        // QNNPACK adds a zero bias when there is none (-0 becomes +0).
        const float product = multiplier * accumulator;
        result = product + (bias ? bias[col] : 0.0f);
      } else {
        const float product = accumulator * multiplier;
        result = bias ? product + bias[col] : product;
      }
      output[row * n + col] = result;
    }
  }
  return Status::success();
}

} // namespace mlir::quanta::numerics

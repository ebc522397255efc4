//===- QParams.cpp - PyTorch-exact quantization parameters ----------------===//
//
// Reproduces torch/ao/quantization/observer.py
// (UniformQuantizationObserverBase) and utils.py (calculate_qmin_qmax,
// check_min_max_valid) of PyTorch 1.13. PyTorch 1.12 (no eps option, qint32
// rejected, no per-tensor/per-channel qscheme check in the MinMax/PerChannel
// constructors) differs only in what it accepts; the formulas are the same.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/QParams.h"

#include "TorchFloat.h"

#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

namespace mlir::quanta::numerics {

using detail::floorDiv;
using detail::torchMax;
using detail::torchMin;

static constexpr DType kAllDTypes[] = {DType::QUInt8, DType::QInt8,
                                       DType::QUInt4x2, DType::QInt32};
static constexpr QScheme kAllQSchemes[] = {
    QScheme::PerTensorAffine, QScheme::PerTensorSymmetric,
    QScheme::PerChannelAffine, QScheme::PerChannelSymmetric,
    QScheme::PerChannelAffineFloatQParams};

std::string_view toString(DType dtype) {
  switch (dtype) {
  case DType::QUInt8:
    return "quint8";
  case DType::QInt8:
    return "qint8";
  case DType::QUInt4x2:
    return "quint4x2";
  case DType::QInt32:
    return "qint32";
  }
  return "unknown dtype";
}

std::string_view toString(QScheme qscheme) {
  switch (qscheme) {
  case QScheme::PerTensorAffine:
    return "per_tensor_affine";
  case QScheme::PerTensorSymmetric:
    return "per_tensor_symmetric";
  case QScheme::PerChannelAffine:
    return "per_channel_affine";
  case QScheme::PerChannelSymmetric:
    return "per_channel_symmetric";
  case QScheme::PerChannelAffineFloatQParams:
    return "per_channel_affine_float_qparams";
  }
  return "unknown qscheme";
}

std::string_view toString(ObserverKind kind) {
  switch (kind) {
  case ObserverKind::MinMax:
    return "MinMaxObserver";
  case ObserverKind::MovingAverageMinMax:
    return "MovingAverageMinMaxObserver";
  case ObserverKind::PerChannelMinMax:
    return "PerChannelMinMaxObserver";
  case ObserverKind::MovingAveragePerChannelMinMax:
    return "MovingAveragePerChannelMinMaxObserver";
  case ObserverKind::Histogram:
    return "HistogramObserver";
  }
  return "unknown observer";
}

std::optional<DType> parseDType(std::string_view name) {
  for (DType dtype : kAllDTypes)
    if (toString(dtype) == name)
      return dtype;
  return std::nullopt;
}

std::optional<QScheme> parseQScheme(std::string_view name) {
  for (QScheme qscheme : kAllQSchemes)
    if (toString(qscheme) == name)
      return qscheme;
  return std::nullopt;
}

bool isPerChannel(QScheme qscheme) {
  return qscheme == QScheme::PerChannelAffine ||
         qscheme == QScheme::PerChannelSymmetric ||
         qscheme == QScheme::PerChannelAffineFloatQParams;
}

bool isSymmetric(QScheme qscheme) {
  return qscheme == QScheme::PerTensorSymmetric ||
         qscheme == QScheme::PerChannelSymmetric;
}

static bool isPerChannelKind(ObserverKind kind) {
  return kind == ObserverKind::PerChannelMinMax ||
         kind == ObserverKind::MovingAveragePerChannelMinMax;
}

static std::string str(int64_t value) { return std::to_string(value); }

/// The customized-range rules: PyTorch's _validate_qmin_qmax and the length
/// asserts of calculate_qmin_qmax, then Quanta's storage rules.
static Status validateCustomRange(DType dtype, int64_t quantMin,
                                  int64_t quantMax) {
  std::string range = "[" + str(quantMin) + ", " + str(quantMax) + "]";
  if (!(quantMin <= 0 && 0 <= quantMax))
    return Status::error("quant_min (" + str(quantMin) +
                         ") must be <= 0 <= quant_max (" + str(quantMax) +
                         "): the quantized range must include zero");
  if (!(quantMin < quantMax))
    return Status::error("quant_min (" + str(quantMin) +
                         ") must be < quant_max (" + str(quantMax) +
                         "): the quantized range needs at least two values");
  int64_t length = quantMax - quantMin + 1;
  if (dtype == DType::QInt8 && length > 256)
    return Status::error("quantized range " + range + " has " + str(length) +
                         " values but qint8 holds at most 256");
  if (dtype == DType::QInt32 && length > (int64_t(1) << 31))
    return Status::error(
        "quantized range " + range + " has " + str(length) +
        " values but PyTorch allows at most 2**31 for a customized qint32 "
        "range (so the full int32 range must be given by leaving quant_min "
        "and quant_max unset)");
  if (dtype == DType::QUInt8 && length > 256)
    return Status::error("quantized range " + range + " has " + str(length) +
                         " values but quint8 holds at most 256 (Quanta rule; "
                         "PyTorch does not check it)");
  if (dtype == DType::QUInt4x2 && (quantMin < 0 || quantMax > 15))
    return Status::error("quantized range " + range +
                         " does not fit quint4x2, whose values are 0..15 "
                         "(Quanta rule; PyTorch does not check it)");
  return Status::success();
}

Status validateAveragingConstant(double averagingConstant) {
  if (averagingConstant > 0.0 && averagingConstant <= 1.0)
    return Status::success();
  std::ostringstream message;
  message << "averaging_constant must be in (0, 1], got " << averagingConstant
          << " (Quanta rule: PyTorch accepts any value, but the moving "
             "average then never updates or diverges)";
  return Status::error(message.str());
}

Status validateScale(float scale) {
  if (std::isfinite(scale) && scale > 0.0f)
    return Status::success();
  std::ostringstream message;
  message << "scale must be finite and positive, got " << scale;
  return Status::error(message.str());
}

Status validateFixedQParams(float scale, int64_t zeroPoint, QScheme qscheme,
                            int64_t quantMin, int64_t quantMax) {
  if (Status status = validateScale(scale); !status)
    return Status::error("FixedQParamsObserver " + status.getMessage());
  if (isPerChannel(qscheme))
    return Status::error("FixedQParamsObserver supports only per-tensor "
                         "quantization, got " +
                         std::string(toString(qscheme)));
  if (!(quantMin < quantMax))
    return Status::error("quant_min (" + str(quantMin) +
                         ") must be less than quant_max (" + str(quantMax) +
                         ")");
  if (zeroPoint < quantMin || zeroPoint > quantMax)
    return Status::error("zero_point (" + str(zeroPoint) +
                         ") must lie in [quant_min, quant_max] = [" +
                         str(quantMin) + ", " + str(quantMax) + "]");
  return Status::success();
}

Status validateObserverOptions(ObserverKind kind,
                               const UniformObserverOptions &options) {
  std::string observer(toString(kind));
  std::string qscheme(toString(options.qscheme));
  // The subclass constructors raise NotImplementedError before anything else.
  if (isPerChannelKind(kind) != isPerChannel(options.qscheme))
    return Status::error(observer + " does not support qscheme " + qscheme +
                         (isPerChannelKind(kind)
                              ? ": it computes one scale per channel and needs "
                                "per_channel_affine, per_channel_symmetric or "
                                "per_channel_affine_float_qparams"
                              : ": it computes one scale per tensor and needs "
                                "per_tensor_affine or per_tensor_symmetric"));
  if (options.quantMin.has_value() != options.quantMax.has_value())
    return Status::error(
        std::string("only ") + (options.quantMin ? "quant_min" : "quant_max") +
        " is set: give both quant_min and quant_max or neither (Quanta rule; "
        "PyTorch silently ignores a lone bound and uses the dtype's range)");
  if (options.hasCustomizedQRange()) {
    if (Status status = validateCustomRange(options.dtype, *options.quantMin,
                                            *options.quantMax);
        !status)
      return status;
  }
  // MovingAverage* inherit this check from MinMax/PerChannelMinMax;
  // HistogramObserver derives from the base class and accepts the
  // combination.
  if (kind != ObserverKind::Histogram && isSymmetric(options.qscheme) &&
      options.reduceRange && options.dtype == DType::QUInt8)
    return Status::error(observer + " cannot reduce the range of " + qscheme +
                         " quint8 quantization: the symmetric zero point 128 "
                         "lies outside the reduced range 0..127 (PyTorch "
                         "raises NotImplementedError)");
  if (!std::isfinite(options.eps) || options.eps <= 0)
    return Status::error("eps (" + std::to_string(options.eps) +
                         ") must be finite and > 0: it is the smallest scale "
                         "(Quanta rule; PyTorch does not check it)");
  return Status::success();
}

QRange computeQRange(const UniformObserverOptions &options) {
  if (options.hasCustomizedQRange()) {
    int64_t quantMin = *options.quantMin, quantMax = *options.quantMax;
    // Customized ranges are halved too, with Python's floor division.
    if (options.reduceRange)
      return {floorDiv(quantMin, 2), floorDiv(quantMax, 2)};
    return {quantMin, quantMax};
  }
  switch (options.dtype) {
  case DType::QInt8:
    return options.reduceRange ? QRange{-64, 63} : QRange{-128, 127};
  case DType::QUInt8:
    return options.reduceRange ? QRange{0, 127} : QRange{0, 255};
  case DType::QInt32:
    // reduce_range does not apply to the default qint32 and quint4x2 ranges.
    return {-(int64_t(1) << 31), (int64_t(1) << 31) - 1};
  case DType::QUInt4x2:
    return {0, 15};
  }
  return {0, 0};
}

static std::string floatStr(float value) { return std::to_string(value); }

/// check_min_max_valid: false for "never observed" (PyTorch's defaults are
/// returned), an error where PyTorch's assert fails.
static StatusOr<bool> checkMinMaxValid(bool perTensor,
                                       const std::vector<float> &minVals,
                                       const std::vector<float> &maxVals) {
  if (minVals.empty() || maxVals.empty())
    return false;
  if (minVals.size() != maxVals.size())
    return Status::error("min has " + str(minVals.size()) +
                         " values but max has " + str(maxVals.size()));
  if (perTensor) {
    if (minVals.size() != 1)
      return Status::error(
          "a per-tensor qscheme needs one min/max value, got " +
          str(minVals.size()));
    // Only the 0-dim per-tensor statistics have the "uninitialized" state.
    if (minVals[0] == detail::kInf && maxVals[0] == -detail::kInf)
      return false;
  }
  for (size_t i = 0; i < minVals.size(); ++i)
    if (!(minVals[i] <= maxVals[i]))
      return Status::error("min (" + floatStr(minVals[i]) +
                           ") must be <= max (" + floatStr(maxVals[i]) + ")" +
                           (perTensor ? "" : " in channel " + str(i)) +
                           (std::isnan(minVals[i]) || std::isnan(maxVals[i])
                                ? ": the observed data contained NaN"
                                : ": the statistics are inconsistent") +
                           " (PyTorch fails an assertion)");
  return true;
}

/// `quant_min - torch.round(min_val_neg / scale).to(torch.int)`, clamped:
/// int32 tensor arithmetic, which wraps around.
static int64_t affineZeroPoint(float minValNeg, float scale, QRange range) {
  int32_t rounded = detail::truncateToInt32(std::nearbyint(minValNeg / scale));
  auto zeroPoint = static_cast<int32_t>(static_cast<uint32_t>(range.quantMin) -
                                        static_cast<uint32_t>(rounded));
  return std::min<int64_t>(std::max<int64_t>(zeroPoint, range.quantMin),
                           range.quantMax);
}

StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const std::vector<float> &minVals,
                                   const std::vector<float> &maxVals) {
  const bool floatQParams =
      options.qscheme == QScheme::PerChannelAffineFloatQParams;
  StatusOr<bool> valid =
      checkMinMaxValid(!isPerChannel(options.qscheme), minVals, maxVals);
  if (!valid)
    return valid.getStatus();
  QParams result;
  if (!*valid) {
    result.scale = {1.0f};
    if (floatQParams)
      result.floatZeroPoint = {0.0f};
    else
      result.zeroPoint = {0};
    return result;
  }

  const QRange range = computeQRange(options);
  const double rangeWidth =
      static_cast<double>(range.quantMax - range.quantMin);
  const float eps = options.eps;
  // Tensor-by-Python-float division: torch casts the divisor to float32.
  const float symmetricDivisor = static_cast<float>(rangeWidth / 2);
  const float affineDivisor = static_cast<float>(rangeWidth);
  int64_t symmetricZeroPoint = 0;
  if (options.dtype == DType::QUInt8)
    symmetricZeroPoint = options.hasCustomizedQRange()
                             ? floorDiv(range.quantMin + range.quantMax, 2)
                             : 128;

  for (size_t i = 0; i < minVals.size(); ++i) {
    const float minVal = minVals[i], maxVal = maxVals[i];
    const float minValNeg = torchMin(minVal, 0.0f);
    const float maxValPos = torchMax(maxVal, 0.0f);
    float scale;
    if (isSymmetric(options.qscheme)) {
      scale = torchMax(torchMax(-minValNeg, maxValPos) / symmetricDivisor, eps);
      result.zeroPoint.push_back(symmetricZeroPoint);
    } else if (floatQParams) {
      scale = (maxVal - minVal) / affineDivisor;
      scale = scale > eps ? scale : 1.0f;
      // -1 * min_val / scale: negation first, then the division; not clamped.
      float zeroPoint = (-1.0f * minVal) / scale;
      if (!std::isfinite(zeroPoint))
        return Status::error("the float zero point -min/scale of channel " +
                             str(i) + " overflows float32 (min " +
                             floatStr(minVal) + ", scale " + floatStr(scale) +
                             "); PyTorch would store inf");
      result.floatZeroPoint.push_back(zeroPoint);
    } else {
      scale = torchMax((maxValPos - minValNeg) / affineDivisor, eps);
      if (std::isfinite(scale))
        result.zeroPoint.push_back(affineZeroPoint(minValNeg, scale, range));
    }
    if (!std::isfinite(scale))
      return Status::error(
          "the range [" + floatStr(minVal) + ", " + floatStr(maxVal) + "]" +
          (minVals.size() > 1 ? " of channel " + str(i) : "") +
          " gives a non-finite scale (the range is infinite or its width "
          "overflows float32); PyTorch would return scale inf and a "
          "meaningless zero point");
    result.scale.push_back(scale);
  }
  return result;
}

} // namespace mlir::quanta::numerics

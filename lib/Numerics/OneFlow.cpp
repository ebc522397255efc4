//===- OneFlow.cpp - OneFlow's MinMaxObserver -----------------------------===//
//
// Follows OneFlow's min_max_observer CPU kernel (GenQuantScaleSymmetric,
// GenQuantScaleAffine, GenQuantScaleCambricon): every value is a float and
// every operation float32.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/OneFlow.h"

#include <algorithm>
#include <cmath>

namespace mlir::quanta::numerics {

static std::string str(int64_t value) { return std::to_string(value); }
static std::string floatStr(float value) { return std::to_string(value); }

Status validateOneFlowOptions(const OneFlowMinMaxObserverOptions &options) {
  const std::string &formula = options.quantizationFormula;
  const std::string &scheme = options.quantizationScheme;
  if (formula != "google" && formula != "cambricon")
    return Status::error("quantization_formula must be \"google\" or "
                         "\"cambricon\", got \"" +
                         formula + "\"");
  if (scheme != "symmetric" && scheme != "affine")
    return Status::error("quantization_scheme must be \"symmetric\" or "
                         "\"affine\", got \"" +
                         scheme + "\"");
  if (options.quantizationBit < 2 || options.quantizationBit > 8)
    return Status::error("quantization_bit must be in [2, 8], got " +
                         str(options.quantizationBit));
  if (formula == "cambricon" && !options.perLayerQuantization)
    return Status::error("the cambricon formula supports only per-layer "
                         "quantization (OneFlow's kernel rejects per-channel)");
  return Status::success();
}

namespace {
/// Scale and zero point of one layer or channel.
struct GroupParams {
  float scale;
  float zeroPoint;
};
} // namespace

/// The qparams of one layer or channel from its min and max; `where` names
/// the group in messages ("the tensor" or "channel N").
static StatusOr<GroupParams>
computeGroup(const OneFlowMinMaxObserverOptions &options, float minValue,
             float maxValue, const std::string &where) {
  if (std::isnan(minValue) || std::isnan(maxValue))
    return Status::error(where + " contains NaN");
  const int64_t bits = options.quantizationBit;
  const std::string range =
      "[" + floatStr(minValue) + ", " + floatStr(maxValue) + "]";
  const float absMax = std::max(std::fabs(maxValue), std::fabs(minValue));

  GroupParams params{0.0f, 0.0f};
  if (options.quantizationFormula == "cambricon") {
    if (absMax == 0.0f)
      return Status::error(where + " is all zeros: the cambricon exponent "
                                   "floor(log2(0)) would be -inf");
    params.scale = std::floor(std::log2(absMax)) - static_cast<float>(bits - 2);
  } else if (options.quantizationScheme == "symmetric") {
    const float denominator =
        static_cast<float>(std::pow(2.0, static_cast<double>(bits - 1))) - 1;
    params.scale = absMax / denominator;
  } else {
    const float denominator =
        static_cast<float>(std::pow(2.0, static_cast<double>(bits))) - 1;
    params.scale = (maxValue - minValue) / denominator;
    if (params.scale == 0.0f)
      return Status::error(
          where + " has the single value " + floatStr(minValue) +
          ": the google affine scale would be 0 and the zero point "
          "-min/scale infinite or NaN");
    params.zeroPoint = -std::nearbyint(minValue / params.scale);
  }
  if (params.scale == 0.0f)
    return Status::error(where + " is all zeros: the google symmetric scale "
                                 "would be 0");
  if (!std::isfinite(params.scale) || !std::isfinite(params.zeroPoint))
    return Status::error(where + " with range " + range +
                         " gives a non-finite scale or zero point (infinite "
                         "data or a range that overflows float32)");
  return params;
}

StatusOr<OneFlowQParams>
computeOneFlowMinMaxQParams(const OneFlowMinMaxObserverOptions &options,
                            const float *data,
                            const std::vector<int64_t> &shape) {
  if (Status status = validateOneFlowOptions(options); !status)
    return status;
  int64_t size = 1;
  for (int64_t dim : shape)
    size *= dim;
  int64_t groups = 1;
  if (!options.perLayerQuantization) {
    if (shape.empty())
      return Status::error("per-channel quantization needs a tensor of rank "
                           ">= 1 (channels are along axis 0)");
    groups = shape[0];
  }
  if (groups == 0)
    return Status::error("the tensor has no channels along axis 0");
  const int64_t groupSize = size / groups;
  OneFlowQParams result;
  for (int64_t g = 0; g < groups; ++g) {
    std::string where =
        options.perLayerQuantization ? "the tensor" : "channel " + str(g);
    const float *group = data + g * groupSize;
    if (groupSize == 0)
      return Status::error(where + " is empty: it has no min/max");
    // std::min/max_element skip NaN depending on its position; look first.
    if (std::any_of(group, group + groupSize,
                    [](float v) { return std::isnan(v); }))
      return Status::error(where + " contains NaN");
    StatusOr<GroupParams> params =
        computeGroup(options, *std::min_element(group, group + groupSize),
                     *std::max_element(group, group + groupSize), where);
    if (!params)
      return params.getStatus();
    result.scale.push_back(params->scale);
    result.zeroPoint.push_back(params->zeroPoint);
  }
  return result;
}

StatusOr<OneFlowQParams>
calculateOneFlowQParams(const OneFlowMinMaxObserverOptions &options,
                        const std::vector<float> &minVals,
                        const std::vector<float> &maxVals) {
  if (Status status = validateOneFlowOptions(options); !status)
    return status;
  if (minVals.size() != maxVals.size() || minVals.empty())
    return Status::error("OneFlow statistics need one min and one max per "
                         "layer or channel");
  OneFlowQParams result;
  for (size_t g = 0; g < minVals.size(); ++g) {
    std::string where =
        options.perLayerQuantization ? "the tensor" : "channel " + str(g);
    StatusOr<GroupParams> params =
        computeGroup(options, minVals[g], maxVals[g], where);
    if (!params)
      return params.getStatus();
    result.scale.push_back(params->scale);
    result.zeroPoint.push_back(params->zeroPoint);
  }
  return result;
}

} // namespace mlir::quanta::numerics

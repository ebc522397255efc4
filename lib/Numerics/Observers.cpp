//===- Observers.cpp - Running statistics of PyTorch's observers ----------===//
//
// PyTorch 1.13 forward() methods. 1.12's `memoryless` (seed 001; in 1.13 it
// became averaging_constant=1 of the moving-average observers) resets the
// statistics before every batch: callers start from fresh stats, which is
// exactly what these functions do on an uninitialized state.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Observers.h"

#include "TorchFloat.h"

#include <string>

namespace mlir::quanta::numerics {

using detail::torchMax;
using detail::torchMin;

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// Folds `size` elements into running min/max and a NaN flag; branch-free
/// selects so that the loop vectorizes.
static void accumulateMinMax(const float *data, int64_t size, float &min,
                             float &max, bool &sawNaN) {
  for (int64_t i = 0; i < size; ++i) {
    float value = data[i];
    sawNaN |= value != value;
    // On ties (+0.0 vs -0.0) the later element wins, as in ATen's scalar
    // reduction loop.
    min = value <= min ? value : min;
    max = value >= max ? value : max;
  }
}

MinMaxStats computeMinMax(const float *data, size_t size) {
  MinMaxStats stats;
  bool sawNaN = false;
  accumulateMinMax(data, static_cast<int64_t>(size), stats.min, stats.max,
                   sawNaN);
  // torch.aminmax propagates NaN.
  if (sawNaN)
    stats.min = stats.max = detail::kNaN;
  return stats;
}

StatusOr<PerChannelMinMaxStats>
computePerChannelMinMax(const float *data, const std::vector<int64_t> &shape,
                        int64_t chAxis) {
  const auto rank = static_cast<int64_t>(shape.size());
  if (chAxis < -rank || chAxis >= rank)
    return Status::error("ch_axis " + std::to_string(chAxis) +
                         " is out of range for a tensor of rank " +
                         std::to_string(rank) + " (PyTorch raises IndexError)");
  if (rank < 2)
    return Status::error("per-channel statistics need a tensor of rank >= 2, "
                         "got rank " +
                         std::to_string(rank) +
                         " (PyTorch flattens the dimensions after the "
                         "channel axis and raises IndexError)");
  if (numElements(shape) == 0)
    return Status::error("an empty tensor has no per-channel min/max");
  const int64_t axis = chAxis < 0 ? chAxis + rank : chAxis;
  const detail::ChannelLayout layout(shape, axis);
  const int64_t channels = layout.channels;

  PerChannelMinMaxStats stats;
  stats.min.assign(channels, detail::kInf);
  stats.max.assign(channels, -detail::kInf);
  std::vector<bool> sawNaN(channels, false);
  for (int64_t o = 0; o < layout.outer; ++o) {
    for (int64_t c = 0; c < channels; ++c) {
      bool nan = false;
      accumulateMinMax(data + layout.offset(o, c), layout.inner, stats.min[c],
                       stats.max[c], nan);
      if (nan)
        sawNaN[c] = true;
    }
  }
  for (int64_t c = 0; c < channels; ++c)
    if (sawNaN[c])
      stats.min[c] = stats.max[c] = detail::kNaN;
  return stats;
}

void updateMinMax(MinMaxStats &stats, const float *data, size_t size) {
  if (size == 0)
    return;
  MinMaxStats current = computeMinMax(data, size);
  stats.min = torchMin(current.min, stats.min);
  stats.max = torchMax(current.max, stats.max);
}

/// min + c * (cur - min): torch casts the Python float c to float32 and
/// computes in float32.
static float movingAverage(float running, float current, float constant) {
  return running + constant * (current - running);
}

void updateMovingAverageMinMax(MinMaxStats &stats, const float *data,
                               size_t size, double averagingConstant) {
  if (size == 0)
    return;
  MinMaxStats current = computeMinMax(data, size);
  if (!stats.isInitialized()) {
    stats = current;
    return;
  }
  const auto constant = static_cast<float>(averagingConstant);
  stats.min = movingAverage(stats.min, current.min, constant);
  stats.max = movingAverage(stats.max, current.max, constant);
}

/// The shared part of the per-channel forward() methods: skip empty
/// batches, set the statistics from the first one, and otherwise hand the
/// batch's per-channel min/max to `combine`.
template <typename Combine>
static Status updatePerChannel(PerChannelMinMaxStats &stats, const float *data,
                               const std::vector<int64_t> &shape,
                               int64_t chAxis, Combine combine) {
  if (numElements(shape) == 0)
    return Status::success();
  StatusOr<PerChannelMinMaxStats> current =
      computePerChannelMinMax(data, shape, chAxis);
  if (!current)
    return current.getStatus();
  if (stats.min.empty() || stats.max.empty()) {
    stats = std::move(*current);
    return Status::success();
  }
  if (current->min.size() != stats.min.size())
    return Status::error(
        "the batch has " + std::to_string(current->min.size()) +
        " channels along ch_axis but the observer has statistics for " +
        std::to_string(stats.min.size()) +
        " (PyTorch would broadcast a single channel against the others and "
        "raise for any other mismatch)");
  for (size_t c = 0; c < stats.min.size(); ++c) {
    stats.min[c] = combine(stats.min[c], current->min[c], /*isMax=*/false);
    stats.max[c] = combine(stats.max[c], current->max[c], /*isMax=*/true);
  }
  return Status::success();
}

Status updatePerChannelMinMax(PerChannelMinMaxStats &stats, const float *data,
                              const std::vector<int64_t> &shape,
                              int64_t chAxis) {
  return updatePerChannel(
      stats, data, shape, chAxis, [](float running, float current, bool isMax) {
        return isMax ? torchMax(current, running) : torchMin(current, running);
      });
}

Status updateMovingAveragePerChannelMinMax(PerChannelMinMaxStats &stats,
                                           const float *data,
                                           const std::vector<int64_t> &shape,
                                           int64_t chAxis,
                                           double averagingConstant) {
  const auto constant = static_cast<float>(averagingConstant);
  return updatePerChannel(stats, data, shape, chAxis,
                          [constant](float running, float current, bool) {
                            return movingAverage(running, current, constant);
                          });
}

StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const MinMaxStats &stats) {
  return calculateQParams(options, std::vector<float>{stats.min},
                          std::vector<float>{stats.max});
}

StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const PerChannelMinMaxStats &stats) {
  return calculateQParams(options, stats.min, stats.max);
}

} // namespace mlir::quanta::numerics

//===- Observers.cpp - Running statistics of PyTorch's observers ----------===//
//
// PyTorch 1.13 forward() methods. 1.12's `memoryless` (seed 001; in 1.13 it
// became averaging_constant=1 of the moving-average observers) resets the
// statistics before every batch: callers start from fresh stats, which is
// exactly what these functions do on an uninitialized state.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Observers.h"

#include "StatsKernels.h"
#include "TorchFloat.h"

#include <algorithm>
#include <string>
#include <utility>

namespace mlir::quanta::numerics {

using detail::torchMax;
using detail::torchMin;

int64_t numElements(const std::vector<int64_t> &shape) {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

/// The final step of ATen's vectorized min/max (vec_reduce_all), f(a, b)
/// being _mm256_min_ps(a, b) (a < b ? a : b) or max: below 8 elements lane 0
/// folds the others in order, otherwise lanes combine with lanes j ^ 4, then
/// j ^ 2, then j ^ 1. The lane order decides which of +0.0/-0.0 is returned.
template <typename Op>
static float reduceLanes(const float (&lanes)[detail::kMinMaxLanes],
                         size_t size, Op op) {
  constexpr size_t kLanes = detail::kMinMaxLanes;
  float v[kLanes];
  std::copy_n(lanes, kLanes, v);
  if (size < kLanes) {
    for (size_t j = 1; j < size; ++j)
      v[0] = op(v[0], v[j]);
    return v[0];
  }
  for (size_t distance = kLanes / 2; distance > 0; distance /= 2) {
    float next[kLanes];
    for (size_t j = 0; j < kLanes; ++j)
      next[j] = op(v[j], v[j ^ distance]);
    std::copy_n(next, kLanes, v);
  }
  return v[0];
}

MinMaxStats detail::reduceMinMaxLanes(const LaneMinMax &lanes, size_t size) {
  MinMaxStats stats;
  // torch.aminmax propagates NaN.
  if (lanes.sawNaN) {
    stats.min = stats.max = detail::kNaN;
    return stats;
  }
  stats.min = reduceLanes(lanes.min, size,
                          [](float a, float b) { return a < b ? a : b; });
  stats.max = reduceLanes(lanes.max, size,
                          [](float a, float b) { return a > b ? a : b; });
  return stats;
}

MinMaxStats computeMinMax(const float *data, size_t size) {
  // torch.aminmax without dim: Vectorized<float> lanes over the whole
  // tensor (ties between +0.0 and -0.0 included, bit for bit).
  detail::LaneMinMax lanes;
  detail::foldMinMaxLanes(data, size, lanes);
  return detail::reduceMinMaxLanes(lanes, size);
}

/// The column-wise kernel gets rows of at least this many floats (several
/// outer slices side by side).
static constexpr int64_t kMinColumns = 256;

/// Per-channel min/max values, NaN for channels holding a NaN. Which of
/// +0.0/-0.0 a channel gets is left to applyFirstZeroSigns.
static void channelMinMaxValues(const float *data,
                                const detail::ChannelLayout &layout,
                                PerChannelMinMaxStats &stats) {
  const int64_t channels = layout.channels, inner = layout.inner;
  bool sawNaN = false;
  if (inner >= static_cast<int64_t>(detail::kMinMaxLanes)) {
    detail::foldMinMaxRuns(data, layout.outer * channels, inner, channels,
                           stats.min.data(), stats.max.data(), sawNaN);
  } else {
    // Short runs: fold whole outer slices (`group` of them per row) column
    // by column, then the columns of each channel.
    const int64_t sliceSize = channels * inner;
    const int64_t group = std::max<int64_t>(1, kMinColumns / sliceSize);
    const int64_t width = group * sliceSize;
    std::vector<float> min(width, detail::kInf), max(width, -detail::kInf);
    const int64_t rows = layout.outer / group;
    detail::foldMinMaxColumns(data, rows, width, min.data(), max.data(),
                              sawNaN);
    detail::foldMinMaxColumns(data + rows * width, 1,
                              (layout.outer % group) * sliceSize, min.data(),
                              max.data(), sawNaN);
    for (int64_t k = 0; k < width; ++k) {
      const int64_t c = k / inner % channels;
      stats.min[c] = std::min(stats.min[c], min[k]);
      stats.max[c] = std::max(stats.max[c], max[k]);
    }
  }
  if (!sawNaN)
    return;
  // torch.aminmax(dim=1) propagates NaN per channel.
  for (int64_t o = 0; o < layout.outer; ++o)
    for (int64_t c = 0; c < channels; ++c) {
      const float *row = data + layout.offset(o, c);
      if (std::any_of(row, row + inner, [](float x) { return x != x; }))
        stats.min[c] = stats.max[c] = detail::kNaN;
    }
}

/// Whether [data, data + size) holds a +0.0 or -0.0 (in chunks, so that
/// the compiler can vectorize the test).
static bool hasZero(const float *data, int64_t size) {
  constexpr int64_t kChunk = 64;
  int64_t i = 0;
  for (; i + kChunk <= size; i += kChunk) {
    bool zero = false;
    for (int64_t j = 0; j < kChunk; ++j)
      zero |= data[i + j] == 0.0f;
    if (zero)
      return true;
  }
  return std::find(data + i, data + size, 0.0f) != data + size;
}

/// PyTorch permutes dims 0 and ch_axis, flattens the others and runs a
/// scalar loop over each channel that keeps the first of equal elements.
/// So a zero minimum or maximum takes the sign of the channel's first zero
/// in that order: dims 1, ..., ch_axis - 1, then 0, then ch_axis + 1, ...
/// Outer slices are visited in that order and skipped when they hold no
/// zero, until every such channel has its zero: usually in the first
/// slices, and at worst about one more pass over the data.
static void applyFirstZeroSigns(const float *data,
                                const std::vector<int64_t> &shape, int64_t axis,
                                const detail::ChannelLayout &layout,
                                PerChannelMinMaxStats &stats) {
  const int64_t channels = layout.channels, inner = layout.inner;
  std::vector<bool> pending(channels, false);
  int64_t remaining = 0;
  for (int64_t c = 0; c < channels; ++c) {
    if (stats.min[c] == 0.0f || stats.max[c] == 0.0f) {
      pending[c] = true;
      ++remaining;
    }
  }
  if (remaining == 0)
    return;
  // Outer slice o = i0 * middle + m (i0 along dim 0, m over dims 1 to
  // ch_axis - 1), in PyTorch's order: m, then i0.
  const int64_t first = axis == 0 ? 1 : shape[0];
  const int64_t middle = layout.outer / first;
  for (int64_t m = 0; m < middle; ++m) {
    for (int64_t i0 = 0; i0 < first; ++i0) {
      const float *slice = data + layout.offset(i0 * middle + m, 0);
      if (!hasZero(slice, channels * inner))
        continue;
      for (int64_t c = 0; c < channels; ++c) {
        if (!pending[c])
          continue;
        const float *run = slice + c * inner;
        const float *zero = std::find(run, run + inner, 0.0f);
        if (zero == run + inner)
          continue;
        if (stats.min[c] == 0.0f)
          stats.min[c] = *zero;
        if (stats.max[c] == 0.0f)
          stats.max[c] = *zero;
        pending[c] = false;
        if (--remaining == 0)
          return;
      }
    }
  }
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

  PerChannelMinMaxStats stats;
  stats.min.assign(layout.channels, detail::kInf);
  stats.max.assign(layout.channels, -detail::kInf);
  channelMinMaxValues(data, layout, stats);
  applyFirstZeroSigns(data, shape, axis, layout, stats);
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

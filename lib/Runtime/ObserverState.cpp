//===- ObserverState.cpp - A running PyTorch observer ---------------------===//

#include "quanta/Runtime/ObserverState.h"

#include <algorithm>

namespace mlir::quanta::runtime {

using namespace numerics;

ObserverState::ObserverState(const ObserverConfig &config) : config(config) {
  if (config.kind == ObserverKind::Histogram) {
    // PyTorch's buffer: `bins` zeros until a non-empty batch arrives.
    HistogramStats histogram;
    histogram.histogram.assign(config.histogram.bins, 0.0f);
    statistics = std::move(histogram);
  } else if (isPerChannel(config.uniform().qscheme)) {
    statistics = PerChannelMinMaxStats();
  } else {
    statistics = MinMaxStats();
  }
}

StatusOr<ObserverState> ObserverState::create(const ObserverConfig &config) {
  Status status = config.kind == ObserverKind::Histogram
                      ? validateHistogramOptions(config.histogram)
                      : validateObserverOptions(config.kind, config.uniform());
  if (!status)
    return status;
  if (config.kind == ObserverKind::MovingAverageMinMax ||
      config.kind == ObserverKind::MovingAveragePerChannelMinMax)
    if (Status averaging =
            numerics::validateAveragingConstant(config.averagingConstant);
        !averaging)
      return averaging;
  if (Status calibration =
          validateHistogramCalibrationOptions(config.calibration);
      !calibration)
    return calibration;
  return ObserverState(config);
}

Status ObserverState::observe(const float *data,
                              const std::vector<int64_t> &shape) {
  const int64_t size = numElements(shape);
  // PyTorch's forward() returns an empty tensor untouched: the observer ran
  // (a batch) but holds what it held, possibly its initial +inf/-inf.
  if (size == 0) {
    ++numBatches;
    return Status::success();
  }
  // Work on a copy so that a failing update leaves the state unchanged.
  Statistics updated = statistics;
  if (config.memoryless)
    updated = ObserverState(config).statistics;
  Status status = Status::success();
  switch (config.kind) {
  case ObserverKind::MinMax:
    updateMinMax(std::get<MinMaxStats>(updated), data, size);
    break;
  case ObserverKind::MovingAverageMinMax:
    updateMovingAverageMinMax(std::get<MinMaxStats>(updated), data, size,
                              config.averagingConstant);
    break;
  case ObserverKind::PerChannelMinMax:
    status = updatePerChannelMinMax(std::get<PerChannelMinMaxStats>(updated),
                                    data, shape, config.chAxis);
    break;
  case ObserverKind::MovingAveragePerChannelMinMax:
    status = updateMovingAveragePerChannelMinMax(
        std::get<PerChannelMinMaxStats>(updated), data, shape, config.chAxis,
        config.averagingConstant);
    break;
  case ObserverKind::Histogram:
    status = updateHistogram(std::get<HistogramStats>(updated),
                             config.histogram, data, size);
    break;
  }
  if (!status)
    return status;
  statistics = std::move(updated);
  ++numBatches;
  return Status::success();
}

StatusOr<QParams> ObserverState::calculateQParams() const {
  if (auto *stats = std::get_if<HistogramStats>(&statistics))
    return calculateCalibratedQParams(config.histogram, *stats,
                                      config.calibration);
  if (auto *stats = std::get_if<PerChannelMinMaxStats>(&statistics))
    return numerics::calculateQParams(config.uniform(), *stats);
  return numerics::calculateQParams(config.uniform(),
                                    std::get<MinMaxStats>(statistics));
}

Status ObserverState::merge(const ObserverState &other) {
  if (other.numBatches == 0)
    return Status::success();
  if (numBatches == 0) {
    statistics = other.statistics;
    numBatches = other.numBatches;
    return Status::success();
  }
  const std::string name(toString(config.kind));
  if (config.kind == ObserverKind::MovingAverageMinMax ||
      config.kind == ObserverKind::MovingAveragePerChannelMinMax ||
      config.memoryless)
    return Status::error(
        name + (config.memoryless ? " (memoryless)" : "") +
        " statistics depend on the order of the batches and cannot be "
        "merged; calibrate the shards one after the other instead");
  Statistics merged = statistics;
  if (auto *stats = std::get_if<HistogramStats>(&merged)) {
    if (Status status =
            mergeHistograms(*stats, std::get<HistogramStats>(other.statistics),
                            config.histogram);
        !status)
      return status;
  } else if (auto *stats = std::get_if<MinMaxStats>(&merged)) {
    const auto &that = std::get<MinMaxStats>(other.statistics);
    stats->min = std::min(stats->min, that.min);
    stats->max = std::max(stats->max, that.max);
  } else {
    auto &these = std::get<PerChannelMinMaxStats>(merged);
    const auto &those = std::get<PerChannelMinMaxStats>(other.statistics);
    if (these.min.size() != those.min.size())
      return Status::error(name + " statistics of " +
                           std::to_string(these.min.size()) + " and " +
                           std::to_string(those.min.size()) +
                           " channels cannot be merged");
    for (size_t c = 0; c < these.min.size(); ++c) {
      these.min[c] = std::min(these.min[c], those.min[c]);
      these.max[c] = std::max(these.max[c], those.max[c]);
    }
  }
  statistics = std::move(merged);
  numBatches += other.numBatches;
  return Status::success();
}

void ObserverState::setStatistics(Statistics newStatistics, int64_t batches) {
  statistics = std::move(newStatistics);
  numBatches = batches;
}

} // namespace mlir::quanta::runtime

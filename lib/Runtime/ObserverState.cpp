//===- ObserverState.cpp - A running PyTorch observer ---------------------===//

#include "quanta/Runtime/ObserverState.h"

namespace mlir::quanta::runtime {

using namespace numerics;

ObserverState::ObserverState(const ObserverConfig &config) : config(config) {
  if (config.kind == ObserverKind::Histogram)
    statistics = HistogramStats();
  else if (isPerChannel(config.uniform().qscheme))
    statistics = PerChannelMinMaxStats();
  else
    statistics = MinMaxStats();
}

StatusOr<ObserverState> ObserverState::create(const ObserverConfig &config) {
  Status status = config.kind == ObserverKind::Histogram
                      ? validateHistogramOptions(config.histogram)
                      : validateObserverOptions(config.kind, config.uniform());
  if (!status)
    return status;
  return ObserverState(config);
}

Status ObserverState::observe(const float *data,
                              const std::vector<int64_t> &shape) {
  const int64_t size = numElements(shape);
  if (size == 0)
    return Status::success();
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
    return calculateHistogramQParams(config.histogram, *stats);
  if (auto *stats = std::get_if<PerChannelMinMaxStats>(&statistics))
    return numerics::calculateQParams(config.uniform(), *stats);
  return numerics::calculateQParams(config.uniform(),
                                    std::get<MinMaxStats>(statistics));
}

void ObserverState::setStatistics(Statistics newStatistics, int64_t batches) {
  statistics = std::move(newStatistics);
  numBatches = batches;
}

} // namespace mlir::quanta::runtime

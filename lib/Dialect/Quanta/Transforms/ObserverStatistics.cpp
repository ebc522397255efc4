//===- ObserverStatistics.cpp - Observers evaluated on known data ---------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/OneFlow.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quanta;

template <typename T>
static FailureOr<T> check(Location loc, numerics::StatusOr<T> result) {
  if (!result.ok())
    return emitError(loc) << result.getStatus().getMessage();
  return std::move(*result);
}

static Attribute makeMinMaxStats(MLIRContext *context, ArrayRef<float> min,
                                 ArrayRef<float> max) {
  return MinMaxStatsAttr::get(context, DenseF32ArrayAttr::get(context, min),
                              DenseF32ArrayAttr::get(context, max),
                              /*num_batches=*/1);
}

FailureOr<Attribute> quanta::observeConstant(Location loc,
                                             ObserverAttrInterface observer,
                                             DenseElementsAttr data) {
  MLIRContext *context = loc.getContext();
  // Observers convert their input to float32 first (x.to(min_val.dtype)).
  SmallVector<float> values =
      llvm::map_to_vector(data.getValues<APFloat>(), [](const APFloat &value) {
        APFloat single = value;
        bool losesInfo;
        single.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven,
                       &losesInfo);
        return single.convertToFloat();
      });
  // PyTorch would carry NaN/inf into min/max and fail (or produce an
  // infinite scale) only when qparams are computed; say where it comes from.
  if (const float *bad = llvm::find_if(
          values, [](float value) { return !std::isfinite(value); });
      bad != values.end())
    return emitError(loc) << "cannot observe a constant holding "
                          << (std::isnan(*bad) ? "NaN" : "an infinity")
                          << " (element " << (bad - values.begin())
                          << "): its quantization parameters would be "
                             "undefined";
  std::vector<int64_t> shape(data.getType().getShape().begin(),
                             data.getType().getShape().end());

  auto perTensor = [&]() -> FailureOr<Attribute> {
    numerics::MinMaxStats stats =
        numerics::computeMinMax(values.data(), values.size());
    return makeMinMaxStats(context, stats.min, stats.max);
  };
  auto perChannel = [&](int64_t axis) -> FailureOr<Attribute> {
    FailureOr<numerics::PerChannelMinMaxStats> stats = check(
        loc, numerics::computePerChannelMinMax(values.data(), shape, axis));
    if (failed(stats))
      return failure();
    return makeMinMaxStats(context, stats->min, stats->max);
  };

  return llvm::TypeSwitch<Attribute, FailureOr<Attribute>>(observer)
      .Case<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr>(
          [&](auto) { return perTensor(); })
      .Case<PerChannelMinMaxObserverAttr,
            MovingAveragePerChannelMinMaxObserverAttr>(
          [&](auto attr) { return perChannel(attr.getChAxis()); })
      .Case<OneFlowMinMaxObserverAttr>([&](OneFlowMinMaxObserverAttr attr) {
        return attr.getPerLayerQuantization() ? perTensor() : perChannel(0);
      })
      .Case<HistogramObserverAttr>(
          [&](HistogramObserverAttr attr) -> FailureOr<Attribute> {
            numerics::HistogramOptions options = attr.getHistogramOptions();
            numerics::HistogramStats stats;
            numerics::Status status = numerics::updateHistogram(
                stats, options, values.data(), values.size());
            if (!status.ok())
              return emitError(loc) << status.getMessage();
            return HistogramStatsAttr::get(
                context, APFloat(stats.min), APFloat(stats.max),
                DenseF32ArrayAttr::get(context, stats.histogram),
                /*num_batches=*/1);
          })
      .Default([](Attribute) { return Attribute(); });
}

FailureOr<numerics::QParams>
quanta::computeQParams(Location loc, ObserverAttrInterface observer,
                       Attribute stats) {
  if (auto fixed = dyn_cast<FixedQParamsObserverAttr>(observer)) {
    numerics::QParams qparams;
    qparams.scale = {fixed.getScale().convertToFloat()};
    qparams.zeroPoint = {fixed.getZeroPoint()};
    return qparams;
  }
  if (!stats)
    return emitError(loc) << observer.getPyTorchClassName()
                          << " has no statistics yet: calibrate first";
  auto minMaxVectors =
      [&]() -> FailureOr<std::pair<std::vector<float>, std::vector<float>>> {
    auto minMax = dyn_cast<MinMaxStatsAttr>(stats);
    if (!minMax)
      return emitError(loc) << "expected #quanta.min_max_stats, got " << stats;
    return std::make_pair(std::vector<float>(minMax.getMin().asArrayRef()),
                          std::vector<float>(minMax.getMax().asArrayRef()));
  };

  return llvm::TypeSwitch<Attribute, FailureOr<numerics::QParams>>(observer)
      .Case<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr,
            PerChannelMinMaxObserverAttr,
            MovingAveragePerChannelMinMaxObserverAttr>(
          [&](auto attr) -> FailureOr<numerics::QParams> {
            auto minMax = minMaxVectors();
            if (failed(minMax))
              return failure();
            return check(
                loc, numerics::calculateQParams(attr.getUniformOptions(),
                                                minMax->first, minMax->second));
          })
      .Case<HistogramObserverAttr>(
          [&](HistogramObserverAttr attr) -> FailureOr<numerics::QParams> {
            auto histogramStats = dyn_cast<HistogramStatsAttr>(stats);
            if (!histogramStats)
              return emitError(loc)
                     << "expected #quanta.histogram_stats, got " << stats;
            numerics::HistogramStats state;
            state.min = histogramStats.getMin().convertToFloat();
            state.max = histogramStats.getMax().convertToFloat();
            state.histogram =
                std::vector<float>(histogramStats.getHistogram().asArrayRef());
            return check(loc, numerics::calculateHistogramQParams(
                                  attr.getHistogramOptions(), state));
          })
      .Case<OneFlowMinMaxObserverAttr>(
          [&](OneFlowMinMaxObserverAttr attr) -> FailureOr<numerics::QParams> {
            auto minMax = minMaxVectors();
            if (failed(minMax))
              return failure();
            FailureOr<numerics::OneFlowQParams> oneFlow =
                check(loc, numerics::calculateOneFlowQParams(
                               attr.getNumericOptions(), minMax->first,
                               minMax->second));
            if (failed(oneFlow))
              return failure();
            numerics::QParams qparams;
            qparams.scale = oneFlow->scale;
            qparams.floatZeroPoint = oneFlow->zeroPoint;
            return qparams;
          })
      .Default([&](Attribute) -> FailureOr<numerics::QParams> {
        return emitError(loc) << "calculate_qparams should not be called for "
                              << observer.getPyTorchClassName();
      });
}

//===- ObserverStatistics.cpp - Observer attributes at run time -----------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/OneFlow.h"
#include "quanta/Support/MemoryLimits.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quanta;

std::optional<runtime::ObserverConfig>
quanta::getObserverConfig(ObserverAttrInterface observer) {
  runtime::ObserverConfig config;
  auto setUniform = [&](auto attr, numerics::ObserverKind kind) {
    config.kind = kind;
    config.histogram.uniform = attr.getUniformOptions();
  };
  bool known =
      llvm::TypeSwitch<Attribute, bool>(observer)
          .Case([&](MinMaxObserverAttr attr) {
            setUniform(attr, numerics::ObserverKind::MinMax);
            config.memoryless = attr.getMemoryless();
            return true;
          })
          .Case([&](MovingAverageMinMaxObserverAttr attr) {
            setUniform(attr, numerics::ObserverKind::MovingAverageMinMax);
            config.averagingConstant =
                attr.getAveragingConstant().convertToDouble();
            return true;
          })
          .Case([&](PerChannelMinMaxObserverAttr attr) {
            setUniform(attr, numerics::ObserverKind::PerChannelMinMax);
            config.chAxis = attr.getChAxis();
            config.memoryless = attr.getMemoryless();
            return true;
          })
          .Case([&](MovingAveragePerChannelMinMaxObserverAttr attr) {
            setUniform(attr,
                       numerics::ObserverKind::MovingAveragePerChannelMinMax);
            config.averagingConstant =
                attr.getAveragingConstant().convertToDouble();
            config.chAxis = attr.getChAxis();
            return true;
          })
          .Case([&](HistogramObserverAttr attr) {
            config.kind = numerics::ObserverKind::Histogram;
            config.histogram = attr.getHistogramOptions();
            config.calibration = attr.getCalibrationOptions();
            return true;
          })
          .Case([&](OneFlowMinMaxObserverAttr attr) {
            bool perChannel = !attr.getPerLayerQuantization();
            config.kind = perChannel ? numerics::ObserverKind::PerChannelMinMax
                                     : numerics::ObserverKind::MinMax;
            config.histogram.uniform.qscheme =
                perChannel ? numerics::QScheme::PerChannelAffine
                           : numerics::QScheme::PerTensorAffine;
            return true;
          })
          .Default([](Attribute) { return false; });
  if (!known)
    return std::nullopt;
  return config;
}

bool quanta::hasRunningStatistics(ObserverAttrInterface observer) {
  return getObserverConfig(observer).has_value();
}

FailureOr<runtime::ObserverState>
quanta::createObserverState(Location loc, ObserverAttrInterface observer,
                            Attribute stats) {
  std::optional<runtime::ObserverConfig> config = getObserverConfig(observer);
  if (!config)
    return emitError(loc) << observer.getPyTorchClassName()
                          << " holds no statistics";
  numerics::StatusOr<runtime::ObserverState> state =
      runtime::ObserverState::create(*config);
  if (!state.ok())
    return emitError(loc) << state.getStatus().getMessage();
  if (!stats)
    return std::move(*state);

  if (auto histogram = dyn_cast<HistogramStatsAttr>(stats)) {
    if (config->kind != numerics::ObserverKind::Histogram)
      return emitError(loc) << "expected #quanta.min_max_stats, got " << stats;
    numerics::HistogramStats values;
    values.min = histogram.getMin().convertToFloat();
    values.max = histogram.getMax().convertToFloat();
    values.histogram =
        std::vector<float>(histogram.getHistogram().asArrayRef());
    state->setStatistics(values, histogram.getNumBatches());
    return std::move(*state);
  }
  auto minMax = dyn_cast<MinMaxStatsAttr>(stats);
  if (!minMax || config->kind == numerics::ObserverKind::Histogram)
    return emitError(loc) << "statistics " << stats << " do not fit "
                          << observer.getPyTorchClassName();
  ArrayRef<float> mins = minMax.getMin().asArrayRef();
  ArrayRef<float> maxs = minMax.getMax().asArrayRef();
  if (std::holds_alternative<numerics::PerChannelMinMaxStats>(
          state->getStatistics())) {
    state->setStatistics(
        numerics::PerChannelMinMaxStats{std::vector<float>(mins),
                                        std::vector<float>(maxs)},
        minMax.getNumBatches());
  } else {
    if (mins.size() != 1)
      return emitError(loc) << "per-tensor statistics need one min and max";
    state->setStatistics(numerics::MinMaxStats{mins[0], maxs[0]},
                         minMax.getNumBatches());
  }
  return std::move(*state);
}

Attribute quanta::getStatisticsAttr(MLIRContext *context,
                                    const runtime::ObserverState &state) {
  int64_t batches = state.getNumBatches();
  return std::visit(
      [&](const auto &stats) -> Attribute {
        using T = std::decay_t<decltype(stats)>;
        if constexpr (std::is_same_v<T, numerics::HistogramStats>)
          return HistogramStatsAttr::get(
              context, APFloat(stats.min), APFloat(stats.max),
              DenseF32ArrayAttr::get(context, stats.histogram), batches);
        else // One value (per tensor) or a vector (per channel).
          return MinMaxStatsAttr::get(
              context, DenseF32ArrayAttr::get(context, stats.min),
              DenseF32ArrayAttr::get(context, stats.max), batches);
      },
      state.getStatistics());
}

FailureOr<Attribute> quanta::observeConstant(Location loc,
                                             ObserverAttrInterface observer,
                                             DenseElementsAttr data) {
  if (!hasRunningStatistics(observer))
    return Attribute();
  if (failed(checkAllocatable(loc, data.getNumElements(), sizeof(float),
                              "observing this constant at compile time")))
    return failure();
  // Observers convert their input to float32 first (x.to(min_val.dtype)).
  // f32 data is read as it is stored: through APFloat, ResNet-18's 11.7M
  // weights took 0.4 s of quanta-insert-observers.
  SmallVector<float> values;
  if (auto floats = data.tryGetValues<float>(); succeeded(floats))
    values.assign(floats->begin(), floats->end());
  else
    values = llvm::map_to_vector(
        data.getValues<APFloat>(), [](const APFloat &value) {
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
  FailureOr<runtime::ObserverState> state = createObserverState(loc, observer);
  if (failed(state))
    return failure();
  std::vector<int64_t> shape(data.getType().getShape().begin(),
                             data.getType().getShape().end());
  if (numerics::Status status = state->observe(values.data(), shape); !status)
    return emitError(loc) << status.getMessage();
  return getStatisticsAttr(loc.getContext(), *state);
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
  if (!hasRunningStatistics(observer))
    return emitError(loc) << "calculate_qparams should not be called for "
                          << observer.getPyTorchClassName();
  if (!stats)
    return emitError(loc) << observer.getPyTorchClassName()
                          << " has no statistics yet: calibrate first";
  FailureOr<runtime::ObserverState> state =
      createObserverState(loc, observer, stats);
  if (failed(state))
    return failure();

  if (auto oneFlow = dyn_cast<OneFlowMinMaxObserverAttr>(observer)) {
    auto minMax = cast<MinMaxStatsAttr>(stats);
    numerics::StatusOr<numerics::OneFlowQParams> result =
        numerics::calculateOneFlowQParams(
            oneFlow.getNumericOptions(),
            std::vector<float>(minMax.getMin().asArrayRef()),
            std::vector<float>(minMax.getMax().asArrayRef()));
    if (!result.ok())
      return emitError(loc) << result.getStatus().getMessage();
    numerics::QParams qparams;
    qparams.scale = result->scale;
    qparams.floatZeroPoint = result->zeroPoint;
    return qparams;
  }
  numerics::StatusOr<numerics::QParams> qparams = state->calculateQParams();
  if (!qparams.ok())
    return emitError(loc) << qparams.getStatus().getMessage();
  return std::move(*qparams);
}

/// The dtype and effective range of an observer that computes qparams.
std::optional<std::pair<DType, numerics::QRange>>
quanta::getObserverDTypeAndRange(ObserverAttrInterface observer) {
  using Result = std::optional<std::pair<DType, numerics::QRange>>;
  return llvm::TypeSwitch<Attribute, Result>(observer)
      .Case<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr,
            PerChannelMinMaxObserverAttr,
            MovingAveragePerChannelMinMaxObserverAttr, HistogramObserverAttr>(
          [](auto attr) -> Result {
            return std::make_pair(attr.getDtype(), attr.getQRange());
          })
      .Case([](FixedQParamsObserverAttr attr) -> Result {
        return std::make_pair(
            attr.getDtype(),
            numerics::QRange{attr.getQuantMin(), attr.getQuantMax()});
      })
      .Default([](Attribute) -> Result { return std::nullopt; });
}

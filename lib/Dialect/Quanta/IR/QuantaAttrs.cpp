//===- QuantaAttrs.cpp - Observer attribute verifiers and interfaces ------===//
//
// The verifiers delegate every PyTorch rule to the numeric library
// (validateObserverOptions and friends) so that the IR, the runtime and the
// Python binding reject exactly the same configurations with the same words.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/HistogramCalibration.h"
#include "quanta/Numerics/OneFlow.h"

#include "llvm/ADT/TypeSwitch.h"

#include <cmath>

using namespace mlir;
using namespace mlir::quanta;

using EmitErrorFn = llvm::function_ref<InFlightDiagnostic()>;

static LogicalResult report(EmitErrorFn emitError,
                            const numerics::Status &status) {
  if (status.ok())
    return success();
  return emitError() << status.getMessage();
}

/// Builds the numeric library's options; fails on the float dtypes, which
/// PyTorch's uniform observers reject in their constructor.
static FailureOr<numerics::UniformObserverOptions>
buildUniformOptions(EmitErrorFn emitError, StringRef className, DType dtype,
                    QScheme qscheme, bool reduceRange,
                    std::optional<int64_t> quantMin,
                    std::optional<int64_t> quantMax, const llvm::APFloat &eps) {
  std::optional<numerics::DType> numericDType = toNumericDType(dtype);
  if (!numericDType)
    return emitError() << className << " accepts dtype qint8, quint8, "
                       << "quint4x2 or qint32, not " << stringifyDType(dtype);
  numerics::UniformObserverOptions options;
  options.dtype = *numericDType;
  options.qscheme = toNumericQScheme(qscheme);
  options.reduceRange = reduceRange;
  options.quantMin = quantMin;
  options.quantMax = quantMax;
  options.eps = eps.convertToFloat();
  return options;
}

static LogicalResult verifyUniformObserver(EmitErrorFn emitError,
                                           numerics::ObserverKind kind,
                                           StringRef className, DType dtype,
                                           QScheme qscheme, bool reduceRange,
                                           std::optional<int64_t> quantMin,
                                           std::optional<int64_t> quantMax,
                                           const llvm::APFloat &eps) {
  FailureOr<numerics::UniformObserverOptions> options =
      buildUniformOptions(emitError, className, dtype, qscheme, reduceRange,
                          quantMin, quantMax, eps);
  if (failed(options))
    return failure();
  return report(emitError, numerics::validateObserverOptions(kind, *options));
}

/// numerics::validateAveragingConstant, at the attribute.
static LogicalResult verifyAveragingConstant(EmitErrorFn emitError,
                                             const llvm::APFloat &constant) {
  return report(emitError, numerics::validateAveragingConstant(
                               constant.convertToDouble()));
}

// Generates getUniformOptions()/getQRange() and the verifier for one uniform
// observer attribute; `EXTRA_CHECKS` runs before the common checks.
#define QUANTA_UNIFORM_OBSERVER_COMMON(ATTR, KIND)                             \
  numerics::UniformObserverOptions ATTR::getUniformOptions() const {           \
    numerics::UniformObserverOptions options;                                  \
    options.dtype = *toNumericDType(getDtype());                               \
    options.qscheme = toNumericQScheme(getQscheme());                          \
    options.reduceRange = getReduceRange();                                    \
    options.quantMin = getQuantMin();                                          \
    options.quantMax = getQuantMax();                                          \
    options.eps = getEps().convertToFloat();                                   \
    return options;                                                            \
  }                                                                            \
  numerics::QRange ATTR::getQRange() const {                                   \
    return numerics::computeQRange(getUniformOptions());                       \
  }                                                                            \
  StringRef ATTR::getPyTorchClassName() const {                                \
    return numerics::toString(numerics::ObserverKind::KIND);                   \
  }                                                                            \
  bool ATTR::collectsStatistics() const { return true; }

QUANTA_UNIFORM_OBSERVER_COMMON(MinMaxObserverAttr, MinMax)
QUANTA_UNIFORM_OBSERVER_COMMON(MovingAverageMinMaxObserverAttr,
                               MovingAverageMinMax)
QUANTA_UNIFORM_OBSERVER_COMMON(PerChannelMinMaxObserverAttr, PerChannelMinMax)
QUANTA_UNIFORM_OBSERVER_COMMON(MovingAveragePerChannelMinMaxObserverAttr,
                               MovingAveragePerChannelMinMax)
QUANTA_UNIFORM_OBSERVER_COMMON(HistogramObserverAttr, Histogram)
#undef QUANTA_UNIFORM_OBSERVER_COMMON

LogicalResult MinMaxObserverAttr::verify(EmitErrorFn emitError, DType dtype,
                                         QScheme qscheme, bool reduceRange,
                                         std::optional<int64_t> quantMin,
                                         std::optional<int64_t> quantMax,
                                         llvm::APFloat eps, bool) {
  return verifyUniformObserver(emitError, numerics::ObserverKind::MinMax,
                               "MinMaxObserver", dtype, qscheme, reduceRange,
                               quantMin, quantMax, eps);
}

LogicalResult MovingAverageMinMaxObserverAttr::verify(
    EmitErrorFn emitError, llvm::APFloat averagingConstant, DType dtype,
    QScheme qscheme, bool reduceRange, std::optional<int64_t> quantMin,
    std::optional<int64_t> quantMax, llvm::APFloat eps) {
  if (failed(verifyAveragingConstant(emitError, averagingConstant)))
    return failure();
  return verifyUniformObserver(emitError,
                               numerics::ObserverKind::MovingAverageMinMax,
                               "MovingAverageMinMaxObserver", dtype, qscheme,
                               reduceRange, quantMin, quantMax, eps);
}

LogicalResult PerChannelMinMaxObserverAttr::verify(
    EmitErrorFn emitError, int64_t, DType dtype, QScheme qscheme,
    bool reduceRange, std::optional<int64_t> quantMin,
    std::optional<int64_t> quantMax, llvm::APFloat eps, bool) {
  return verifyUniformObserver(emitError,
                               numerics::ObserverKind::PerChannelMinMax,
                               "PerChannelMinMaxObserver", dtype, qscheme,
                               reduceRange, quantMin, quantMax, eps);
}

LogicalResult MovingAveragePerChannelMinMaxObserverAttr::verify(
    EmitErrorFn emitError, llvm::APFloat averagingConstant, int64_t,
    DType dtype, QScheme qscheme, bool reduceRange,
    std::optional<int64_t> quantMin, std::optional<int64_t> quantMax,
    llvm::APFloat eps) {
  if (failed(verifyAveragingConstant(emitError, averagingConstant)))
    return failure();
  return verifyUniformObserver(
      emitError, numerics::ObserverKind::MovingAveragePerChannelMinMax,
      "MovingAveragePerChannelMinMaxObserver", dtype, qscheme, reduceRange,
      quantMin, quantMax, eps);
}

bool PerChannelMinMaxObserverAttr::isPerChannel() const { return true; }
int64_t PerChannelMinMaxObserverAttr::getChannelAxis() const {
  return getChAxis();
}
bool MovingAveragePerChannelMinMaxObserverAttr::isPerChannel() const {
  return true;
}
int64_t MovingAveragePerChannelMinMaxObserverAttr::getChannelAxis() const {
  return getChAxis();
}

static numerics::HistogramCalibrationOptions
toNumericCalibration(HistogramCalibration method,
                     const llvm::APFloat &percentile) {
  numerics::HistogramCalibrationOptions options;
  switch (method) {
  case HistogramCalibration::pytorch:
    options.method = numerics::HistogramCalibration::PyTorch;
    break;
  case HistogramCalibration::entropy:
    options.method = numerics::HistogramCalibration::Entropy;
    break;
  case HistogramCalibration::percentile:
    options.method = numerics::HistogramCalibration::Percentile;
    break;
  case HistogramCalibration::mse:
    options.method = numerics::HistogramCalibration::Mse;
    break;
  }
  options.percentile = percentile.convertToDouble();
  return options;
}

LogicalResult HistogramObserverAttr::verify(
    EmitErrorFn emitError, int64_t bins, int64_t upsampleRate, DType dtype,
    QScheme qscheme, bool reduceRange, std::optional<int64_t> quantMin,
    std::optional<int64_t> quantMax, llvm::APFloat eps, bool exactHistcRange,
    HistogramCalibration calibration, llvm::APFloat percentile) {
  if (failed(report(emitError,
                    numerics::validateHistogramCalibrationOptions(
                        toNumericCalibration(calibration, percentile)))))
    return failure();
  FailureOr<numerics::UniformObserverOptions> uniform =
      buildUniformOptions(emitError, "HistogramObserver", dtype, qscheme,
                          reduceRange, quantMin, quantMax, eps);
  if (failed(uniform))
    return failure();
  numerics::HistogramOptions options;
  options.bins = bins;
  options.upsampleRate = upsampleRate;
  options.uniform = *uniform;
  options.exactHistcRange = exactHistcRange;
  return report(emitError, numerics::validateHistogramOptions(options));
}

//===----------------------------------------------------------------------===//
// Configuration-only observers
//===----------------------------------------------------------------------===//

LogicalResult FixedQParamsObserverAttr::verify(
    EmitErrorFn emitError, llvm::APFloat scale, int64_t zeroPoint, DType dtype,
    QScheme qscheme, int64_t quantMin, int64_t quantMax) {
  if (!toNumericDType(dtype))
    return emitError() << "FixedQParamsObserver needs a quantized dtype, got "
                       << stringifyDType(dtype);
  return report(emitError, numerics::validateFixedQParams(
                               scale.convertToFloat(), zeroPoint,
                               toNumericQScheme(qscheme), quantMin, quantMax));
}

StringRef FixedQParamsObserverAttr::getPyTorchClassName() const {
  return "FixedQParamsObserver";
}
bool FixedQParamsObserverAttr::collectsStatistics() const { return false; }

StringRef PlaceholderObserverAttr::getPyTorchClassName() const {
  return "PlaceholderObserver";
}
bool PlaceholderObserverAttr::collectsStatistics() const { return false; }

StringRef NoopObserverAttr::getPyTorchClassName() const {
  return "NoopObserver";
}
bool NoopObserverAttr::collectsStatistics() const { return false; }

StringRef RecordingObserverAttr::getPyTorchClassName() const {
  return "RecordingObserver";
}
bool RecordingObserverAttr::collectsStatistics() const { return true; }

StringRef ReuseInputObserverAttr::getPyTorchClassName() const {
  return "ReuseInputObserver";
}
bool ReuseInputObserverAttr::collectsStatistics() const { return false; }

//===----------------------------------------------------------------------===//
// OneFlow
//===----------------------------------------------------------------------===//

numerics::OneFlowMinMaxObserverOptions
OneFlowMinMaxObserverAttr::getNumericOptions() const {
  return toNumericOneFlowOptions(getQuantizationFormula(), getQuantizationBit(),
                                 getQuantizationScheme(),
                                 getPerLayerQuantization());
}

numerics::OneFlowMinMaxObserverOptions
quanta::toNumericOneFlowOptions(OneFlowFormula formula, int64_t bits,
                                OneFlowScheme scheme, bool perLayer) {
  numerics::OneFlowMinMaxObserverOptions options;
  options.quantizationFormula = stringifyOneFlowFormula(formula).str();
  options.quantizationBit = bits;
  options.quantizationScheme = stringifyOneFlowScheme(scheme).str();
  options.perLayerQuantization = perLayer;
  return options;
}

LogicalResult OneFlowMinMaxObserverAttr::verify(EmitErrorFn emitError,
                                                OneFlowFormula formula,
                                                int64_t bits,
                                                OneFlowScheme scheme,
                                                bool perLayer) {
  return report(emitError,
                numerics::validateOneFlowOptions(
                    toNumericOneFlowOptions(formula, bits, scheme, perLayer)));
}

StringRef OneFlowMinMaxObserverAttr::getPyTorchClassName() const {
  return "oneflow.nn.MinMaxObserver";
}
bool OneFlowMinMaxObserverAttr::collectsStatistics() const { return true; }
bool OneFlowMinMaxObserverAttr::isPerChannel() const {
  return !getPerLayerQuantization();
}
int64_t OneFlowMinMaxObserverAttr::getChannelAxis() const { return 0; }

//===----------------------------------------------------------------------===//
// FakeQuantize and QConfig
//===----------------------------------------------------------------------===//

/// The kind of a uniform (min/max or histogram) observer attribute.
static std::optional<numerics::ObserverKind>
getUniformObserverKind(Attribute observer) {
  return llvm::TypeSwitch<Attribute, std::optional<numerics::ObserverKind>>(
             observer)
      .Case([](MinMaxObserverAttr) { return numerics::ObserverKind::MinMax; })
      .Case([](MovingAverageMinMaxObserverAttr) {
        return numerics::ObserverKind::MovingAverageMinMax;
      })
      .Case([](PerChannelMinMaxObserverAttr) {
        return numerics::ObserverKind::PerChannelMinMax;
      })
      .Case([](MovingAveragePerChannelMinMaxObserverAttr) {
        return numerics::ObserverKind::MovingAveragePerChannelMinMax;
      })
      .Case([](HistogramObserverAttr) {
        return numerics::ObserverKind::Histogram;
      })
      .Default([](Attribute) { return std::nullopt; });
}

/// The options of a uniform observer attribute (see getUniformObserverKind).
static numerics::UniformObserverOptions
getUniformOptionsOf(Attribute observer) {
  return llvm::TypeSwitch<Attribute, numerics::UniformObserverOptions>(observer)
      .Case<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr,
            PerChannelMinMaxObserverAttr,
            MovingAveragePerChannelMinMaxObserverAttr, HistogramObserverAttr>(
          [](auto attr) { return attr.getUniformOptions(); });
}

/// Observers whose calculate_qparams PyTorch implements (the others raise
/// "calculate_qparams should not be called for ...").
static bool computesQParams(ObserverAttrInterface observer) {
  return isa<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr,
             PerChannelMinMaxObserverAttr,
             MovingAveragePerChannelMinMaxObserverAttr, HistogramObserverAttr,
             FixedQParamsObserverAttr>(observer);
}

/// The dtype whose torch.iinfo bounds FakeQuantize.__init__ checks.
static std::optional<DType> getObserverDType(ObserverAttrInterface observer) {
  return llvm::TypeSwitch<Attribute, std::optional<DType>>(observer)
      .Case<MinMaxObserverAttr, MovingAverageMinMaxObserverAttr,
            PerChannelMinMaxObserverAttr,
            MovingAveragePerChannelMinMaxObserverAttr, HistogramObserverAttr,
            FixedQParamsObserverAttr>([](auto attr) { return attr.getDtype(); })
      .Default([](Attribute) { return std::nullopt; });
}

LogicalResult FakeQuantizeAttr::verify(EmitErrorFn emitError,
                                       ObserverAttrInterface observer,
                                       std::optional<int64_t> quantMin,
                                       std::optional<int64_t> quantMax,
                                       bool fused) {
  StringRef className =
      fused ? "FusedMovingAvgObsFakeQuantize" : "FakeQuantize";
  if (quantMin.has_value() != quantMax.has_value())
    return emitError() << className
                       << " takes quant_min and quant_max together (PyTorch "
                          "ignores one given alone)";
  if (observer && !computesQParams(observer))
    return emitError() << className << " needs an observer that computes "
                       << "qparams; calculate_qparams raises for "
                       << observer.getPyTorchClassName();
  if (fused && observer &&
      !isa<MovingAverageMinMaxObserverAttr,
           MovingAveragePerChannelMinMaxObserverAttr>(observer))
    return emitError() << "FusedMovingAvgObsFakeQuantize only works with "
                          "MovingAverageMinMaxObserver or "
                          "MovingAveragePerChannelMinMaxObserver";
  if (fused)
    if (auto perChannel =
            dyn_cast_or_null<MovingAveragePerChannelMinMaxObserverAttr>(
                observer);
        perChannel && perChannel.getChAxis() != 0)
      return emitError() << "FusedMovingAvgObsFakeQuantize supports "
                            "per-channel fake quantization only on axis 0";
  if (!quantMin)
    return success();
  if (*quantMin > *quantMax)
    return emitError() << "quant_min (" << *quantMin
                       << ") must be less than or equal to quant_max ("
                       << *quantMax << ")";
  // FakeQuantize.__init__ asserts the range fits torch.iinfo(dtype).
  DType dtype = DType::quint8;
  if (observer)
    if (std::optional<DType> observerDType = getObserverDType(observer))
      dtype = *observerDType;
  numerics::UniformObserverOptions bounds;
  bounds.dtype = *toNumericDType(dtype);
  numerics::QRange dtypeRange = numerics::computeQRange(bounds);
  if (*quantMin < dtypeRange.quantMin)
    return emitError() << "quant_min (" << *quantMin << ") out of bound for "
                       << stringifyDType(dtype) << " (min "
                       << dtypeRange.quantMin << ")";
  if (*quantMax > dtypeRange.quantMax)
    return emitError() << "quant_max (" << *quantMax << ") out of bound for "
                       << stringifyDType(dtype) << " (max "
                       << dtypeRange.quantMax << ")";
  // FakeQuantize.__init__ forwards the range to the observer's constructor,
  // whose own rules then apply (e.g. the range must include zero).
  if (std::optional<numerics::ObserverKind> kind =
          observer ? getUniformObserverKind(observer)
                   : numerics::ObserverKind::MovingAverageMinMax) {
    numerics::UniformObserverOptions forwarded =
        observer ? getUniformOptionsOf(observer)
                 : numerics::UniformObserverOptions();
    forwarded.quantMin = quantMin;
    forwarded.quantMax = quantMax;
    if (numerics::Status status =
            numerics::validateObserverOptions(*kind, forwarded);
        !status)
      return emitError() << "the range " << className
                         << " forwards to its observer is invalid: "
                         << status.getMessage();
  }
  return success();
}

ObserverAttrInterface FakeQuantizeAttr::getObserverOrDefault() const {
  if (ObserverAttrInterface observer = getObserver())
    return observer;
  return MovingAverageMinMaxObserverAttr::get(
      getContext(), llvm::APFloat(0.01), DType::quint8,
      QScheme::per_tensor_affine, /*reduce_range=*/false, getQuantMin(),
      getQuantMax(), llvm::APFloat(std::numeric_limits<float>::epsilon()));
}

numerics::QRange FakeQuantizeAttr::getQRange() const {
  ObserverAttrInterface observer = getObserver();
  if (auto fixed = dyn_cast_or_null<FixedQParamsObserverAttr>(observer))
    return {getQuantMin().value_or(fixed.getQuantMin()),
            getQuantMax().value_or(fixed.getQuantMax())};
  // The verifier admits only observers that compute qparams; without one,
  // PyTorch's default is MovingAverageMinMaxObserver().
  numerics::UniformObserverOptions options;
  if (observer)
    options = getUniformOptionsOf(observer);
  // FakeQuantize.__init__ passes its range to the observer's constructor,
  // which may still halve it for reduce_range.
  if (getQuantMin()) {
    options.quantMin = getQuantMin();
    options.quantMax = getQuantMax();
  }
  return numerics::computeQRange(options);
}

LogicalResult QConfigAttr::verify(EmitErrorFn emitError, Attribute activation,
                                  Attribute weight) {
  for (auto [role, attr] :
       {std::pair<StringRef, Attribute>{"activation", activation},
        {"weight", weight}})
    if (!isa<ObserverAttrInterface, FakeQuantizeAttr>(attr))
      return emitError() << "qconfig " << role
                         << " must be an observer or a fake_quantize "
                            "attribute, got "
                         << attr;
  return success();
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

LogicalResult MinMaxStatsAttr::verify(EmitErrorFn emitError,
                                      DenseF32ArrayAttr min,
                                      DenseF32ArrayAttr max,
                                      int64_t numBatches) {
  if (min.size() != max.size())
    return emitError() << "min and max must have the same number of values ("
                       << min.size() << " vs " << max.size() << ")";
  if (numBatches < 0)
    return emitError() << "num_batches must be non-negative";
  return success();
}

LogicalResult HistogramStatsAttr::verify(EmitErrorFn emitError, llvm::APFloat,
                                         llvm::APFloat,
                                         DenseF32ArrayAttr histogram,
                                         int64_t numBatches) {
  if (histogram.empty())
    return emitError() << "histogram must have at least one bin";
  // Counts of elements, fractional after PyTorch's upsample-and-combine,
  // which also leaves float32 residue slightly below zero in emptied bins
  // (-6e-4 in a histogram of 1e4 elements, measured): a count below that
  // residue, at most 1e-3 of the total, would skew every range search.
  double total = 0;
  for (float count : histogram.asArrayRef())
    total += std::fabs(count);
  for (auto [bin, count] : llvm::enumerate(histogram.asArrayRef()))
    if (!std::isfinite(count) || count < -1e-3 * total)
      return emitError() << "histogram bin " << bin << " holds " << count
                         << "; counts must be finite and not negative "
                            "(beyond the rounding residue of PyTorch's "
                            "histogram combination, 1e-3 of the total)";
  if (numBatches < 0)
    return emitError() << "num_batches must be non-negative";
  return success();
}

numerics::HistogramCalibrationOptions
HistogramObserverAttr::getCalibrationOptions() const {
  return toNumericCalibration(getCalibration(), getPercentile());
}

numerics::HistogramOptions HistogramObserverAttr::getHistogramOptions() const {
  numerics::HistogramOptions options;
  options.bins = getBins();
  options.upsampleRate = getUpsampleRate();
  options.uniform = getUniformOptions();
  options.exactHistcRange = getExactHistcRange();
  return options;
}

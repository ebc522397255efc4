//===- ObserverStatistics.h - Observer attributes at run time ---*- C++ -*-===//
//
// The bridge between observer attributes and the runtime: the running
// observer an attribute describes, the statistics attribute a running
// observer holds, and qparams from a statistics attribute. Constant folding
// in quanta-insert-observers, calibration and quanta-report-qparams all go
// through here, so every path computes with the same code.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Runtime/ObserverState.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace mlir::quanta {

/// The runtime configuration of an observer with running statistics, or
/// nullopt for configuration-only observers. OneFlow's observer keeps
/// PyTorch-style min/max statistics (per layer, or per channel along
/// axis 0); only its qparams formula differs.
std::optional<runtime::ObserverConfig>
getObserverConfig(ObserverAttrInterface observer);

/// Whether observers of this kind hold min/max or histogram statistics that
/// calibration collects (false for configuration-only observers).
bool hasRunningStatistics(ObserverAttrInterface observer);

/// The running observer `observer` describes (PyTorch's constructor), with
/// the statistics of `stats` if given. Emits an error at `loc` for
/// observers without running statistics or mismatching `stats`.
FailureOr<runtime::ObserverState>
createObserverState(Location loc, ObserverAttrInterface observer,
                    Attribute stats = {});

/// The #quanta.min_max_stats or #quanta.histogram_stats of a running
/// observer.
Attribute getStatisticsAttr(MLIRContext *context,
                            const runtime::ObserverState &state);

/// Runs one forward() of `observer` on the values of `data` and returns the
/// statistics attribute it holds afterwards; a null attribute for observers
/// without running statistics. Emits an error at `loc` on failure.
FailureOr<Attribute> observeConstant(Location loc,
                                     ObserverAttrInterface observer,
                                     DenseElementsAttr data);

/// The quantization parameters of an observer holding `stats` (null for
/// observers whose qparams need no statistics, e.g. FixedQParamsObserver).
/// For OneFlow's observer the zero point is a float (OneFlow returns float
/// zero points) and is reported in `floatZeroPoint`.
FailureOr<numerics::QParams>
computeQParams(Location loc, ObserverAttrInterface observer, Attribute stats);

/// The dtype and effective [quant_min, quant_max] of an observer that
/// computes qparams of an integer range; nullopt for the others.
std::optional<std::pair<DType, numerics::QRange>>
getObserverDTypeAndRange(ObserverAttrInterface observer);

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H

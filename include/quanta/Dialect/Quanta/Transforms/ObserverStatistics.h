//===- ObserverStatistics.h - Observers evaluated on known data -*- C++ -*-===//
//
// The bridge between observer attributes and the numeric library: run an
// observer over a tensor whose values are known (a constant weight, or a
// calibration batch) and compute qparams from the statistics attribute it
// produced. Statistics and qparams come from QuantaNumerics only.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/Location.h"

namespace mlir::quanta {

/// Runs one forward() of `observer` on the values of `data` and returns the
/// statistics attribute it holds afterwards (#quanta.min_max_stats or
/// #quanta.histogram_stats). Returns a null attribute for observers that
/// hold no statistics. Emits an error at `loc` on failure (NaN data,
/// channel axis out of range, ...).
FailureOr<Attribute> observeConstant(Location loc,
                                     ObserverAttrInterface observer,
                                     DenseElementsAttr data);

/// The quantization parameters of an observer holding `stats` (null for
/// observers whose qparams need no statistics, e.g. FixedQParamsObserver).
/// For OneFlow's observer the zero point is a float (OneFlow returns float
/// zero points) and is reported in `floatZeroPoint`.
FailureOr<numerics::QParams>
computeQParams(Location loc, ObserverAttrInterface observer, Attribute stats);

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_OBSERVERSTATISTICS_H

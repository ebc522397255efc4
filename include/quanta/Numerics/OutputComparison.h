//===- OutputComparison.h - A quantized model's outputs vs float -*- C++
//-*-===//
//
// How far a quantized model's outputs are from the float model's: SQNR,
// the largest absolute error and, for outputs whose last axis holds class
// scores, how often both pick the same class. The quanta driver's check,
// the Python package's quanta.quantize and its reports all use this one
// definition, accumulated over any number of batches.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_OUTPUTCOMPARISON_H
#define QUANTA_NUMERICS_OUTPUTCOMPARISON_H

#include <cstdint>

namespace mlir::quanta::numerics {

class OutputComparison {
public:
  /// Adds `count` values of a float reference and their approximation,
  /// rows of `rowLength` values each (the last axis; the top-1 agreement
  /// compares each row's argmax, the first on ties, as numpy's argmax).
  /// `rowLength` must divide `count`. NaN in either counts as an infinite
  /// error and a disagreement.
  void add(const float *reference, const float *approximation, int64_t count,
           int64_t rowLength);

  int64_t getValues() const { return values; }
  int64_t getRows() const { return rows; }
  /// 10 log10(sum ref^2 / sum (ref - approx)^2), in dB: +inf when equal,
  /// -inf when the reference is all zeros and the approximation is not.
  double getSqnrDb() const;
  double getMaxAbsError() const { return maxAbsError; }
  /// The fraction of rows whose argmax agrees, in [0, 1] (1 without rows).
  double getTop1Agreement() const;

private:
  int64_t values = 0, rows = 0, agreeingRows = 0;
  double signalPower = 0, noisePower = 0, maxAbsError = 0;
};

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_OUTPUTCOMPARISON_H

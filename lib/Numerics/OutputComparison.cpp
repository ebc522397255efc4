//===- OutputComparison.cpp - A quantized model's outputs vs float --------===//

#include "quanta/Numerics/OutputComparison.h"

#include <cassert>
#include <cmath>
#include <limits>

using namespace mlir::quanta::numerics;

/// numpy's argmax: the first maximum, and the first NaN if there is one.
static int64_t argmax(const float *row, int64_t length) {
  int64_t best = 0;
  for (int64_t i = 0; i < length; ++i) {
    if (std::isnan(row[i]))
      return i;
    if (row[i] > row[best])
      best = i;
  }
  return best;
}

void OutputComparison::add(const float *reference, const float *approximation,
                           int64_t count, int64_t rowLength) {
  assert(rowLength > 0 && count % rowLength == 0 && "rows must tile the data");
  for (int64_t i = 0; i < count; ++i) {
    double ref = reference[i], approx = approximation[i];
    double error = std::isnan(ref) || std::isnan(approx)
                       ? std::numeric_limits<double>::infinity()
                       : std::fabs(ref - approx);
    signalPower += ref * ref;
    noisePower += error * error;
    if (error > maxAbsError)
      maxAbsError = error;
  }
  for (int64_t row = 0; row < count / rowLength; ++row) {
    const float *ref = reference + row * rowLength;
    const float *approx = approximation + row * rowLength;
    int64_t refClass = argmax(ref, rowLength);
    agreeingRows += !std::isnan(ref[refClass]) &&
                    refClass == argmax(approx, rowLength) &&
                    !std::isnan(approx[refClass]);
  }
  values += count;
  rows += count / rowLength;
}

double OutputComparison::getSqnrDb() const {
  if (noisePower == 0)
    return std::numeric_limits<double>::infinity();
  if (signalPower == 0)
    return -std::numeric_limits<double>::infinity();
  return 10 * std::log10(signalPower / noisePower);
}

double OutputComparison::getTop1Agreement() const {
  return rows == 0 ? 1.0 : double(agreeingRows) / double(rows);
}

//===- NumericsTestUtil.h - Shared helpers of the numerics tests -*- C++ -*-=//
//
// Reading observer options from golden cases and bit-exact float checks.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_UNITTESTS_NUMERICS_NUMERICSTESTUTIL_H
#define QUANTA_UNITTESTS_NUMERICS_NUMERICSTESTUTIL_H

#include "Golden.h"
#include "quanta/Numerics/QParams.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

namespace quanta_test {

inline uint32_t floatBits(float value) {
  uint32_t bits;
  std::memcpy(&bits, &value, sizeof(bits));
  return bits;
}

/// Bit-exact float equality; any NaN equals any NaN (PyTorch does not
/// promise a NaN payload).
inline ::testing::AssertionResult sameFloat(float expected, float actual) {
  if ((std::isnan(expected) && std::isnan(actual)) ||
      floatBits(expected) == floatBits(actual))
    return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure()
         << "expected " << std::hexfloat << expected << " got " << actual
         << std::defaultfloat << " (" << expected << " vs " << actual << ")";
}

inline ::testing::AssertionResult sameFloats(const std::vector<float> &expected,
                                             const std::vector<float> &actual) {
  if (expected.size() != actual.size())
    return ::testing::AssertionFailure() << "expected " << expected.size()
                                         << " values, got " << actual.size();
  for (size_t i = 0; i < expected.size(); ++i)
    if (::testing::AssertionResult result = sameFloat(expected[i], actual[i]);
        !result)
      return result << " at index " << i;
  return ::testing::AssertionSuccess();
}

/// An integer field that may be "none".
inline std::optional<int64_t> optionalInt(const std::string &token) {
  if (token == "none")
    return std::nullopt;
  return std::strtoll(token.c_str(), nullptr, 10);
}

inline mlir::quanta::numerics::DType dtypeOf(const GoldenCase &c) {
  return *mlir::quanta::numerics::parseDType(c.str("dtype"));
}

inline mlir::quanta::numerics::QScheme qschemeOf(const GoldenCase &c) {
  return *mlir::quanta::numerics::parseQScheme(c.str("qscheme"));
}

/// The observer options of a golden case (keys dtype, qscheme, reduce_range,
/// quant_min, quant_max and, when present, eps).
inline mlir::quanta::numerics::UniformObserverOptions
observerOptionsOf(const GoldenCase &c) {
  mlir::quanta::numerics::UniformObserverOptions options;
  options.dtype = dtypeOf(c);
  options.qscheme = qschemeOf(c);
  options.reduceRange = c.getInt("reduce_range") != 0;
  options.quantMin = optionalInt(c.str("quant_min"));
  options.quantMax = optionalInt(c.str("quant_max"));
  if (c.has("eps"))
    options.eps = c.getFloat("eps");
  return options;
}

inline mlir::quanta::numerics::ObserverKind kindOf(const std::string &name) {
  using mlir::quanta::numerics::ObserverKind;
  for (ObserverKind kind :
       {ObserverKind::MinMax, ObserverKind::MovingAverageMinMax,
        ObserverKind::PerChannelMinMax,
        ObserverKind::MovingAveragePerChannelMinMax, ObserverKind::Histogram})
    if (mlir::quanta::numerics::toString(kind) == name + "Observer")
      return kind;
  throw std::runtime_error("unknown observer kind " + name);
}

} // namespace quanta_test

#endif // QUANTA_UNITTESTS_NUMERICS_NUMERICSTESTUTIL_H

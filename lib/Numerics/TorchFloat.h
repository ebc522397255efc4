//===- TorchFloat.h - Scalar float semantics of PyTorch's CPU kernels -----===//
//
// Private helpers shared by the numeric library: the scalar behaviour of the
// ATen CPU kernels where it differs from plain C++ (NaN-propagating
// minimum/maximum, x86 float-to-integer conversion of out-of-range values).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_NUMERICS_TORCHFLOAT_H
#define QUANTA_LIB_NUMERICS_TORCHFLOAT_H

#include <cmath>
#include <cstdint>
#include <limits>
#include <vector>

namespace mlir::quanta::numerics::detail {

constexpr float kInf = std::numeric_limits<float>::infinity();
constexpr float kNaN = std::numeric_limits<float>::quiet_NaN();

/// torch.min(a, b) / torch.minimum: NaN if either operand is NaN.
inline float torchMin(float a, float b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (b < a ? b : a);
}

/// torch.max(a, b) / torch.maximum: NaN if either operand is NaN.
inline float torchMax(float a, float b) {
  return std::isnan(a) || std::isnan(b) ? kNaN : (b > a ? b : a);
}

/// static_cast<int64_t>(v) as ATen's x86-64 build executes it (cvttsd2si):
/// NaN and values outside int64 give INT64_MIN, which C++ leaves undefined.
inline int64_t truncateToInt64(double v) {
  constexpr double kLimit = 9223372036854775808.0; // 2^63
  if (!(v >= -kLimit && v < kLimit))
    return std::numeric_limits<int64_t>::min();
  return static_cast<int64_t>(v);
}

/// Tensor.to(torch.int) of a float on x86-64: NaN and values outside int32
/// give INT32_MIN (verified with torch 1.13 for scalars and vectors).
inline int32_t truncateToInt32(float v) {
  constexpr float kLimit = 2147483648.0f; // 2^31
  if (!(v >= -kLimit && v < kLimit))
    return std::numeric_limits<int32_t>::min();
  return static_cast<int32_t>(v);
}

/// Python's a // b for b > 0 (rounds toward negative infinity).
inline int64_t floorDiv(int64_t a, int64_t b) {
  int64_t quotient = a / b;
  return (a % b != 0 && a < 0) ? quotient - 1 : quotient;
}

/// A contiguous tensor seen as [outer, channels, inner] around a channel
/// axis, as PyTorch's per-channel kernels walk it.
struct ChannelLayout {
  int64_t outer = 1;
  int64_t channels = 1;
  int64_t inner = 1;

  /// `axis` must already be in [0, shape.size()).
  ChannelLayout(const std::vector<int64_t> &shape, int64_t axis)
      : channels(shape[axis]) {
    for (int64_t dim = 0; dim < axis; ++dim)
      outer *= shape[dim];
    for (int64_t dim = axis + 1; dim < static_cast<int64_t>(shape.size());
         ++dim)
      inner *= shape[dim];
  }

  /// The offset of the first element of channel `c` in outer slice `o`.
  int64_t offset(int64_t o, int64_t c) const {
    return (o * channels + c) * inner;
  }
};

} // namespace mlir::quanta::numerics::detail

#endif // QUANTA_LIB_NUMERICS_TORCHFLOAT_H

//===- StatsKernels.h - The observers' per-element loops --------*- C++ -*-===//
//
// Private to the numeric library: the loops that read every observed element
// (min/max and torch.histc's counts). Each has a portable implementation and
// an AVX2 one, picked once at run time (StatsKernels.cpp); both give the
// same results bit for bit. The callers turn these results into PyTorch's
// (lane order, NaN propagation, signed zeros, float32 counts).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_NUMERICS_STATSKERNELS_H
#define QUANTA_LIB_NUMERICS_STATSKERNELS_H

#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/TorchReductions.h"

#include "TorchFloat.h"

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace mlir::quanta::numerics::detail {

/// Float lanes of ATen's Vectorized<float> in the AVX2 build.
constexpr size_t kMinMaxLanes = kTorchFloatLanes;

/// The accumulators of ATen's vectorized min/max loop: lane j folds the
/// elements whose index is j modulo 8.
struct LaneMinMax {
  float min[kMinMaxLanes];
  float max[kMinMaxLanes];
  bool sawNaN = false;

  LaneMinMax() {
    std::fill_n(min, kMinMaxLanes, kInf);
    std::fill_n(max, kMinMaxLanes, -kInf);
  }
};

/// Folds data[i] into lane i % 8 in increasing i, each step as ATen's
/// Vectorized minimum(acc, x) / maximum(acc, x) (_mm256_min_ps(acc, x)):
/// on a tie (+0.0 vs -0.0) the later element wins. Any NaN sets sawNaN and
/// leaves the lanes unspecified.
void foldMinMaxLanes(const float *data, size_t size, LaneMinMax &lanes);

/// torch.aminmax of the `size` elements folded into `lanes`: the lanes
/// reduced in ATen's order, NaN for both if any element was NaN.
MinMaxStats reduceMinMaxLanes(const LaneMinMax &lanes, size_t size);

/// Per channel over `runs` consecutive runs of `length` floats, run r
/// belonging to channel r % channels: min[c] = min(min[c], elements of the
/// channel's runs), max alike. Which of +0.0/-0.0 wins a tie is
/// unspecified. Any NaN sets sawNaN and leaves the channels unspecified.
void foldMinMaxRuns(const float *data, size_t runs, size_t length,
                    size_t channels, float *min, float *max, bool &sawNaN);

/// Column-wise over `rows` consecutive rows of `width` floats:
/// min[k] = min(min[k], data[r * width + k]) over all r, max alike. Which of
/// +0.0/-0.0 wins a tie is unspecified. Any NaN sets sawNaN and leaves the
/// columns unspecified.
void foldMinMaxColumns(const float *data, size_t rows, size_t width, float *min,
                       float *max, bool &sawNaN);

/// The float32 outer edges of torch.histc and its bin count.
struct HistcBins {
  float left;
  float right;
  int64_t bins;
};

/// torch.histc's bin of `value`, or -1 for a value outside the edges.
inline int64_t histcBin(float value, const HistcBins &edges) {
  // Skips values outside the edges, but not NaN.
  if (value < edges.left || value > edges.right)
    return -1;
  // LINEAR_INTERPOLATION in float32, dividing before multiplying as
  // PyTorch 1.13 does ((x - left) * bins / width rounds differently near bin
  // edges). A NaN quotient (NaN data, or edges equal in float32) converts to
  // INT64_MIN on x86, an offset that wraps to bin 0 once scaled by
  // sizeof(float).
  const int64_t pos =
      truncateToInt64((value - edges.left) / (edges.right - edges.left) *
                      static_cast<float>(edges.bins));
  const int64_t bin = pos == std::numeric_limits<int64_t>::min() ? 0 : pos;
  // The last bin includes its right edge.
  return std::min(bin, edges.bins - 1);
}

/// Adds to counts[b] (edges.bins entries) the number of elements of `data`
/// in bin b (histcBin); with `extrema`, also folds `data` into it as
/// foldMinMaxLanes does, in the same pass.
void countHistcBins(const float *data, size_t size, const HistcBins &edges,
                    uint64_t *counts, LaneMinMax *extrema = nullptr);

} // namespace mlir::quanta::numerics::detail

#endif // QUANTA_LIB_NUMERICS_STATSKERNELS_H

//===- Observers.h - Running statistics of PyTorch's observers --*- C++ -*-===//
//
// The forward() methods of MinMaxObserver, MovingAverageMinMaxObserver,
// PerChannelMinMaxObserver and MovingAveragePerChannelMinMaxObserver
// (PyTorch 1.13), bit for bit. Tensors are contiguous row-major float
// buffers with a shape; an empty tensor (numel 0) leaves the statistics
// unchanged, as in PyTorch.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_OBSERVERS_H
#define QUANTA_NUMERICS_OBSERVERS_H

#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Status.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <vector>

namespace mlir::quanta::numerics {

/// Per-tensor running min/max; +inf/-inf until the first non-empty batch.
struct MinMaxStats {
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();

  bool isInitialized() const {
    return !(min == std::numeric_limits<float>::infinity() &&
             max == -std::numeric_limits<float>::infinity());
  }
};

/// Per-channel running min/max; empty until the first non-empty batch.
struct PerChannelMinMaxStats {
  std::vector<float> min;
  std::vector<float> max;
};

/// torch.aminmax of a whole tensor: NaN for both if any element is NaN.
/// `size` must be > 0.
MinMaxStats computeMinMax(const float *data, size_t size);

/// torch.aminmax(y, dim=1) of the tensor permuted so that `chAxis` comes
/// first and flattened to 2-D. `chAxis` may be negative (counted from the
/// end, as PyTorch's permute does); the rank must be >= 2.
StatusOr<PerChannelMinMaxStats>
computePerChannelMinMax(const float *data, const std::vector<int64_t> &shape,
                        int64_t chAxis);

/// MinMaxObserver.forward.
void updateMinMax(MinMaxStats &stats, const float *data, size_t size);

/// MovingAverageMinMaxObserver.forward: the first batch sets the statistics,
/// later ones move them by `averagingConstant` of the difference.
void updateMovingAverageMinMax(MinMaxStats &stats, const float *data,
                               size_t size, double averagingConstant);

/// PerChannelMinMaxObserver.forward. A batch whose channel count differs
/// from the statistics' is an error (PyTorch broadcasts a single channel
/// against many and raises for other mismatches).
Status updatePerChannelMinMax(PerChannelMinMaxStats &stats, const float *data,
                              const std::vector<int64_t> &shape,
                              int64_t chAxis);

/// MovingAveragePerChannelMinMaxObserver.forward.
Status updateMovingAveragePerChannelMinMax(PerChannelMinMaxStats &stats,
                                           const float *data,
                                           const std::vector<int64_t> &shape,
                                           int64_t chAxis,
                                           double averagingConstant);

/// calculate_qparams() of an observer holding `stats`.
StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const MinMaxStats &stats);
StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const PerChannelMinMaxStats &stats);

/// The number of elements of a tensor of this shape (1 for a 0-dim tensor).
int64_t numElements(const std::vector<int64_t> &shape);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_OBSERVERS_H

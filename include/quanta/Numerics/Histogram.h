//===- Histogram.h - PyTorch's HistogramObserver, bit for bit ---*- C++ -*-===//
//
// torch.ao.quantization.HistogramObserver of PyTorch 1.13 (CPU, AVX2 build):
// the running histogram of forward(), the L2-error search of
// _non_linear_param_search and calculate_qparams, reproducing every float32
// and float64 rounding step, PyTorch's quirks included (see Histogram.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_HISTOGRAM_H
#define QUANTA_NUMERICS_HISTOGRAM_H

#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Status.h"

#include <cstddef>
#include <cstdint>
#include <limits>
#include <utility>
#include <vector>

namespace mlir::quanta::numerics {

/// HistogramObserver's constructor arguments, with PyTorch's defaults.
struct HistogramOptions {
  int64_t bins = 2048;
  int64_t upsampleRate = 128;
  UniformObserverOptions uniform;
  /// Not PyTorch: pass the float min/max of the batch to torch.histc instead
  /// of int(min)/int(max). PyTorch's truncation bins data in [-0.5, 2.7]
  /// over [0, 2] and drops everything outside from the histogram while
  /// min/max still say [-0.5, 2.7], which skews the search; data inside
  /// (-1, 1) falls back to the batch's own range.
  bool exactHistcRange = false;
};

/// The observer's buffers (histogram, min_val, max_val). Until the first
/// non-empty batch min/max are +inf/-inf and the histogram holds `bins`
/// zeros (PyTorch's buffer, as ObserverState and FakeQuantize start it) or
/// nothing (a default HistogramStats).
struct HistogramStats {
  std::vector<float> histogram;
  float min = std::numeric_limits<float>::infinity();
  float max = -std::numeric_limits<float>::infinity();

  bool isInitialized() const {
    return !(min == std::numeric_limits<float>::infinity() &&
             max == -std::numeric_limits<float>::infinity());
  }
};

/// Checks bins > 0, upsampleRate > 0 and bins * upsampleRate <= 2^24, none
/// of which PyTorch checks, then the uniform options as
/// validateObserverOptions(ObserverKind::Histogram, ...) does.
Status validateHistogramOptions(const HistogramOptions &options);

/// torch.histc(data, bins, min, max) of a float32 CPU tensor: `min`/`max`
/// are the Python numbers passed to it. Values outside the range are
/// skipped; NaN values are counted in bin 0, as PyTorch 1.13 does on x86.
/// Errors where torch.histc raises (bins <= 0, a non-finite range,
/// min > max).
StatusOr<std::vector<float>> torchHistc(const float *data, size_t size,
                                        int64_t bins, double min, double max);

/// HistogramObserver.forward. An empty batch is ignored. A batch holding
/// NaN or infinity, or whose histogram bounds do not fit in int64, is an
/// error (PyTorch raises from int() or torch.histc, after overwriting
/// min_val/max_val); so is a range growth whose combined grid of
/// bins * downsample_rate cells does not fit in int64. On error `stats` is
/// unchanged.
Status updateHistogram(HistogramStats &stats, const HistogramOptions &options,
                       const float *data, size_t size);

/// _compute_quantization_error(startBin, endBin): the L2 quantization error
/// of clipping to bins [startBin, endBin], as the Python float PyTorch
/// returns. `stats` must be initialized with options.bins bins.
double histogramQuantizationError(const HistogramOptions &options,
                                  const HistogramStats &stats, int64_t startBin,
                                  int64_t endBin);

/// _non_linear_param_search: the clipped (new_min, new_max). `stats` must be
/// initialized with options.bins bins.
std::pair<float, float> nonLinearParamSearch(const HistogramOptions &options,
                                             const HistogramStats &stats);

/// HistogramObserver.calculate_qparams: PyTorch's default (scale 1.0, zero
/// point 0) before the first batch, otherwise the qparams of the searched
/// range (calculateQParams).
StatusOr<QParams> calculateHistogramQParams(const HistogramOptions &options,
                                            const HistogramStats &stats);

/// Merges the statistics `other` (collected on other data with the same
/// options) into `stats`: both histograms are combined over the union of
/// their ranges on PyTorch's grid (_adjust_min_max on `stats`, then
/// _combine_histograms for each side), the way forward() merges a batch
/// that widens the range. Totals and min/max are exact; the bins
/// approximate those of a single run. On error `stats` is unchanged.
Status mergeHistograms(HistogramStats &stats, const HistogramStats &other,
                       const HistogramOptions &options);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_HISTOGRAM_H

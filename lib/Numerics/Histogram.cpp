//===- Histogram.cpp - PyTorch's HistogramObserver, bit for bit -----------===//
//
// torch/ao/quantization/observer.py (HistogramObserver) of PyTorch 1.13 with
// the ATen CPU kernels it runs (AVX2 build, one intra-op thread), verified
// against the real torch by scripts/goldens/gen_histogram_goldens.py.
//
// Quirks kept on purpose (PyTorch's results depend on them):
//  - torch.histc gets int(min)/int(max): truncated bounds can drop data from
//    the histogram (see HistogramOptions::exactHistcRange).
//  - A state with min == max (a constant batch) is re-initialised from the
//    next batch: the earlier counts are dropped.
//  - dst_nbins = 2 ** iinfo(dtype).bits ignores reduce_range and custom
//    quantization ranges (256 for quint4x2, 2^32 for qint32).
//  - _adjust_min_max rounds in float32, so a batch inside the range can still
//    widen it (bins that are not a power of two).
//  - torch.histc's last edge can round below max when bins + 1 is a multiple
//    of 16 (15, 47, 2047, ...): the values equal to max are not counted.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Histogram.h"

#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/TorchReductions.h"

#include "StatsKernels.h"
#include "TorchFloat.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <cstring>
#include <optional>
#include <sstream>
#include <string>

namespace mlir::quanta::numerics {

using detail::torchMax;
using detail::torchMin;

/// Largest bins * upsample_rate: the combine walks that many cells per batch.
static constexpr int64_t kMaxUpsampledBins = int64_t(1) << 24;
static constexpr double kTwoPow63 = 9223372036854775808.0;

static std::string str(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

Status validateHistogramOptions(const HistogramOptions &options) {
  if (options.bins <= 0)
    return Status::error("bins (" + std::to_string(options.bins) +
                         ") must be > 0 (PyTorch does not check it; "
                         "torch.histc raises on the first batch)");
  if (options.upsampleRate <= 0)
    return Status::error("upsample_rate (" +
                         std::to_string(options.upsampleRate) +
                         ") must be > 0 (PyTorch does not check it; the "
                         "first batch that widens the range fails)");
  if (options.upsampleRate > kMaxUpsampledBins / options.bins)
    return Status::error(
        "bins * upsample_rate (" + std::to_string(options.bins) + " * " +
        std::to_string(options.upsampleRate) +
        ") must be <= 2^24: every batch that widens the range upsamples the "
        "histogram to that many cells (PyTorch does not check it)");
  return validateObserverOptions(ObserverKind::Histogram, options.uniform);
}

//===----------------------------------------------------------------------===//
// torch.histc
//===----------------------------------------------------------------------===//

namespace {
/// The float32 outer edges torch.histc's kernel uses: bin_edges[0] and
/// bin_edges[bins] of linspace(min, max, bins + 1).
struct HistcEdges {
  float left;
  float right;
};
} // namespace

/// histc_select_outer_bin_edges, then the two outer elements of linspace.
/// `extrema`, if known, are the data's min/max.
static StatusOr<HistcEdges> histcEdges(const float *data, size_t size,
                                       int64_t bins, double min, double max,
                                       const MinMaxStats *extrema) {
  if (min == max && size > 0) {
    const MinMaxStats found = extrema ? *extrema : computeMinMax(data, size);
    min = found.min;
    max = found.max;
  }
  if (min == max) {
    min -= 1;
    max += 1;
  }
  if (!std::isfinite(min) || !std::isfinite(max))
    return Status::error("torch.histc: range of [" + str(min) + ", " +
                         str(max) + "] is not finite");
  if (!(min < max))
    return Status::error("torch.histc: max must be larger than min");
  const auto start = static_cast<float>(min), end = static_cast<float>(max);
  // linspace's AVX2 loop writes 2 vectors per iteration and the remainder
  // with the scalar formula `end - step * 0` == end. When the last element
  // is in a vector, it is lane 7 of arange(end - step * 7, step): the base
  // is fused (AVX2 code is built with FMA contraction), the lane offset
  // 7 * step is rounded before the add. The result can be below `end`, and
  // the maximum element then falls outside the histogram.
  constexpr auto kLanes = static_cast<int64_t>(kTorchFloatLanes);
  const int64_t steps = bins + 1;
  float right = end;
  if (steps % (2 * kLanes) == 0) {
    const float step = (end - start) / static_cast<float>(steps - 1);
    const auto lastLane = static_cast<float>(kLanes - 1);
    right = std::fma(-step, lastLane, end) + lastLane * step;
  }
  return HistcEdges{start, right};
}

/// The bins torch.histc counts into: its checks, then its edges.
static StatusOr<detail::HistcBins> histcBins(const float *data, size_t size,
                                             int64_t bins, double min,
                                             double max,
                                             const MinMaxStats *extrema) {
  if (bins <= 0)
    return Status::error("torch.histogram(): bins must be > 0, but got " +
                         std::to_string(bins) + " for dimension 0");
  StatusOr<HistcEdges> edges = histcEdges(data, size, bins, min, max, extrema);
  if (!edges)
    return edges.getStatus();
  return detail::HistcBins{edges->left, edges->right, bins};
}

/// PyTorch adds 1.0f per element to a float32 histogram (one intra-op
/// thread): a bin's count is exact up to 2^24, where x + 1.0f == x stops
/// it. The kernels count exactly (in partial histograms), so saturating the
/// totals gives the same floats.
static std::vector<float>
histogramOfCounts(const std::vector<uint64_t> &counts) {
  constexpr uint64_t kFloatCountLimit = uint64_t(1) << 24;
  std::vector<float> hist(counts.size());
  for (size_t bin = 0; bin < counts.size(); ++bin)
    hist[bin] = static_cast<float>(std::min(counts[bin], kFloatCountLimit));
  return hist;
}

static StatusOr<std::vector<float>> histc(const float *data, size_t size,
                                          int64_t bins, double min, double max,
                                          const MinMaxStats *extrema) {
  StatusOr<detail::HistcBins> edges =
      histcBins(data, size, bins, min, max, extrema);
  if (!edges)
    return edges.getStatus();
  std::vector<uint64_t> counts(bins, 0);
  detail::countHistcBins(data, size, *edges, counts.data());
  return histogramOfCounts(counts);
}

StatusOr<std::vector<float>> torchHistc(const float *data, size_t size,
                                        int64_t bins, double min, double max) {
  return histc(data, size, bins, min, max, /*extrema=*/nullptr);
}

//===----------------------------------------------------------------------===//
// forward()
//===----------------------------------------------------------------------===//

/// The bound forward() passes to torch.histc: int(bound), a Python int that
/// must fit in int64 ("Overflow when unpacking long" otherwise), or with
/// exactHistcRange the float itself (same limit, so that both modes accept
/// the same inputs).
static StatusOr<double> histcBound(float bound, bool exact) {
  if (!(bound >= -kTwoPow63 && bound < kTwoPow63))
    return Status::error("histogram bound " + str(bound) +
                         " does not fit in int64 (PyTorch passes int(bound) "
                         "to torch.histc and raises 'Overflow when unpacking "
                         "long')");
  return exact ? static_cast<double>(bound) : std::trunc(bound);
}

/// torch.histc of a batch whose min/max are `batch`.
static StatusOr<std::vector<float>>
histogramOfBatch(const HistogramOptions &options, const float *data,
                 size_t size, const MinMaxStats &batch, float min, float max) {
  StatusOr<double> lo = histcBound(min, options.exactHistcRange);
  if (!lo)
    return lo.getStatus();
  StatusOr<double> hi = histcBound(max, options.exactHistcRange);
  if (!hi)
    return hi.getStatus();
  return histc(data, size, options.bins, *lo, *hi, &batch);
}

namespace {
/// The result of _adjust_min_max.
struct AdjustedRange {
  float min;
  float max;
  int64_t downsampleRate;
  int64_t startIdx;
};
} // namespace

/// _adjust_min_max: widens combinedMax so that the combined range is a whole
/// number (downsample_rate) of old bins per new bin, on a grid of
/// bins * upsample_rate cells per old range. All float32 (0-dim tensors with
/// Python int operands cast to float).
static StatusOr<AdjustedRange> adjustMinMax(const HistogramStats &stats,
                                            const HistogramOptions &options,
                                            float combinedMin,
                                            float combinedMax) {
  const int64_t bins = options.bins;
  const float histBinWidth =
      (stats.max - stats.min) / static_cast<float>(bins * options.upsampleRate);
  const float binsWidth = static_cast<float>(bins) * histBinWidth;
  const float downsample = std::ceil((combinedMax - combinedMin) / binsWidth);
  // PyTorch allocates bins * downsample_rate floats; this implementation
  // never materialises them, so only a grid size beyond int64 (where
  // torch.zeros raises, or int() of inf/NaN does) is an error.
  if (!(downsample < kTwoPow63) ||
      static_cast<int64_t>(downsample) >
          std::numeric_limits<int64_t>::max() / bins)
    return Status::error(
        "the batch range [" + str(combinedMin) + ", " + str(combinedMax) +
        "] is too wide for the histogram range [" + str(stats.min) + ", " +
        str(stats.max) + "]: merging them needs a grid of bins * " +
        str(downsample) +
        " cells, beyond int64 (PyTorch raises; it already runs out of "
        "memory above a few 10^9 cells, which this implementation does not "
        "allocate)");
  const auto downsampleRate = static_cast<int64_t>(downsample);
  const float excess = static_cast<float>(downsampleRate) * binsWidth -
                       (combinedMax - combinedMin);
  // Python's round() on a tensor: half to even.
  const float startIdx =
      std::nearbyint((stats.min - combinedMin) / histBinWidth);
  const int64_t gridSize = bins * downsampleRate;
  const int64_t upsampledSize = bins * options.upsampleRate;
  if (!(startIdx < kTwoPow63) ||
      static_cast<int64_t>(startIdx) > gridSize - upsampledSize)
    return Status::error(
        "the histogram of [" + str(stats.min) + ", " + str(stats.max) +
        "] does not fit the combined grid at offset " + str(startIdx) +
        " (PyTorch raises a shape mismatch in _combine_histograms)");
  return AdjustedRange{combinedMin, combinedMax + excess, downsampleRate,
                       static_cast<int64_t>(startIdx)};
}

/// _combine_histograms: adds the old histogram, upsampled upsample_rate times
/// and placed at startIdx on the grid of bins * downsample_rate cells, to
/// `hist` (the new batch's histogram over the combined range). Grid cells are
/// visited only where the old histogram lies: the other cells are zero and
/// leave the running sum unchanged.
static void combineHistograms(std::vector<float> &hist,
                              const std::vector<float> &old,
                              int64_t upsampleRate,
                              const AdjustedRange &range) {
  const auto bins = static_cast<int64_t>(hist.size());
  const int64_t oldBegin = range.startIdx;
  const int64_t oldEnd = oldBegin + bins * upsampleRate;
  // torch.cumsum(..., dtype=torch.double): a running float64 sum.
  double integral = 0.0;
  int64_t cell = oldBegin;
  // shifted_integral_histogram is a float32 tensor: the previous integral is
  // rounded to float32 before the float64 subtraction.
  float shiftedIntegral = 0.0f;
  for (int64_t bin = 0; bin < bins; ++bin) {
    const int64_t cellsEnd = std::min((bin + 1) * range.downsampleRate, oldEnd);
    while (cell < cellsEnd) {
      // The run of cells repeating one old bin (repeat_interleave).
      const int64_t oldBin = (cell - oldBegin) / upsampleRate;
      const int64_t runEnd =
          std::min(cellsEnd, oldBegin + (oldBin + 1) * upsampleRate);
      const double value = old[oldBin];
      for (; cell < runEnd; ++cell)
        integral += value;
    }
    const double interpolated =
        (integral - static_cast<double>(shiftedIntegral)) /
        static_cast<double>(upsampleRate);
    hist[bin] += static_cast<float>(interpolated);
    shiftedIntegral = static_cast<float>(integral);
  }
}

/// Whether `a` and `b` are the same float32, bit for bit (+0.0 is not -0.0).
static bool sameBits(float a, float b) {
  return std::memcmp(&a, &b, sizeof(float)) == 0;
}

namespace {
/// A batch's torch.histc over the range forward() picks for it.
struct RangedHistogram {
  AdjustedRange range;
  std::vector<float> hist;
};
} // namespace

/// Elements per step of the speculative pass: a multiple of the lanes, large
/// enough that the partial histograms' flush is cheap.
static constexpr size_t kSpeculationChunk = size_t(1) << 18;

/// The speculative single pass of updateHistogram. When a batch lies inside
/// the running range, the range forward() gives torch.histc depends on the
/// running range alone, so the bins can be counted in the pass that finds
/// the batch's min/max. Returns that histogram if the batch did lie inside
/// (it is then forward()'s exactly), nothing otherwise; the pass stops at
/// the first chunk that leaves the range (a widening batch costs about one
/// chunk). `batch` gets the batch's min/max whenever the pass ran.
static std::optional<RangedHistogram>
histogramInsideRange(const HistogramStats &stats,
                     const HistogramOptions &options, const float *data,
                     size_t size, std::optional<MinMaxStats> &batch) {
  StatusOr<AdjustedRange> range =
      adjustMinMax(stats, options, stats.min, stats.max);
  if (!range)
    return std::nullopt;
  StatusOr<double> lo = histcBound(range->min, options.exactHistcRange);
  StatusOr<double> hi = histcBound(range->max, options.exactHistcRange);
  // Equal bounds make torch.histc use the batch's own min/max.
  if (!lo || !hi || *lo == *hi)
    return std::nullopt;
  StatusOr<detail::HistcBins> edges =
      histcBins(data, size, options.bins, *lo, *hi, nullptr);
  if (!edges)
    return std::nullopt;
  auto inside = [&](const MinMaxStats &seen) {
    return sameBits(torchMin(seen.min, stats.min), stats.min) &&
           sameBits(torchMax(seen.max, stats.max), stats.max);
  };
  // The lanes fold the elements in order across chunks: those of
  // computeMinMax.
  detail::LaneMinMax lanes;
  std::vector<uint64_t> counts(options.bins, 0);
  size_t done = 0;
  bool stayedInside = true;
  while (stayedInside && done < size) {
    const size_t chunk = std::min(kSpeculationChunk, size - done);
    detail::countHistcBins(data + done, chunk, *edges, counts.data(), &lanes);
    done += chunk;
    stayedInside = inside(detail::reduceMinMaxLanes(lanes, done));
  }
  detail::foldMinMaxLanes(data + done, size - done, lanes);
  batch = detail::reduceMinMaxLanes(lanes, size);
  if (!stayedInside)
    return std::nullopt;
  return RangedHistogram{*range, histogramOfCounts(counts)};
}

Status updateHistogram(HistogramStats &stats, const HistogramOptions &options,
                       const float *data, size_t size) {
  if (Status status = validateHistogramOptions(options); !status)
    return status;
  if (size == 0)
    return Status::success();
  assert(data && "non-empty batch without data");
  // A first batch or a min == max state restarts from this batch alone.
  const bool restart = !stats.isInitialized() || stats.min == stats.max;
  if (!restart && stats.histogram.size() != static_cast<size_t>(options.bins))
    return Status::error(
        "the histogram has " + std::to_string(stats.histogram.size()) +
        " bins, the options say " + std::to_string(options.bins));
  std::optional<MinMaxStats> batch;
  std::optional<RangedHistogram> next;
  if (!restart)
    next = histogramInsideRange(stats, options, data, size, batch);
  if (!batch)
    batch = computeMinMax(data, size);
  if (!std::isfinite(batch->min) || !std::isfinite(batch->max))
    return Status::error(
        "HistogramObserver input contains NaN or infinity (min " +
        str(batch->min) + ", max " + str(batch->max) +
        "): PyTorch raises converting it to int() for torch.histc");

  if (restart) {
    StatusOr<std::vector<float>> hist =
        histogramOfBatch(options, data, size, *batch, batch->min, batch->max);
    if (!hist)
      return hist.getStatus();
    stats.histogram = std::move(*hist);
    stats.min = batch->min;
    stats.max = batch->max;
    return Status::success();
  }
  if (!next) {
    StatusOr<AdjustedRange> range =
        adjustMinMax(stats, options, torchMin(batch->min, stats.min),
                     torchMax(batch->max, stats.max));
    if (!range)
      return range.getStatus();
    StatusOr<std::vector<float>> hist =
        histogramOfBatch(options, data, size, *batch, range->min, range->max);
    if (!hist)
      return hist.getStatus();
    next = RangedHistogram{*range, std::move(*hist)};
  }
  auto &[range, hist] = *next;
  if (range.min == stats.min && range.max == stats.max) {
    for (int64_t bin = 0; bin < options.bins; ++bin)
      hist[bin] += stats.histogram[bin];
  } else {
    combineHistograms(hist, stats.histogram, options.upsampleRate, range);
  }
  stats.histogram = std::move(hist);
  stats.min = range.min;
  stats.max = range.max;
  return Status::success();
}

//===----------------------------------------------------------------------===//
// calculate_qparams()
//===----------------------------------------------------------------------===//

/// dst_nbins = 2 ** torch.iinfo(dtype).bits (iinfo(quint4x2).bits is 8).
static double dstBinCount(DType dtype) {
  return dtype == DType::QInt32 ? 4294967296.0 : 256.0;
}

/// torch.div(a, b, rounding_mode='floor') on float32 (ATen's div_floor
/// kernel): Python's floor division via fmod, not floor(a / b).
static float divFloor(float a, float b) {
  if (b == 0)
    return a / b;
  const float mod = std::fmod(a, b);
  float div = (a - mod) / b;
  if (mod != 0 && (b < 0) != (mod < 0))
    div -= 1.0f;
  if (div == 0)
    return std::copysign(0.0f, a / b);
  float floorDiv = std::floor(div);
  if (div - floorDiv > 0.5f)
    floorDiv += 1.0f;
  return floorDiv;
}

/// torch.clamp(torch.div(a, b, rounding_mode='floor'), 0, hi): the
/// destination bin of a source bin edge. NaN propagates through the clamp.
static float dstBinOf(float a, float b, float hi) {
  // Fast path without the slow fmodf, same result: for b > 0 and
  // |a / b| < 2^21, a negative floor clamps to 0, and divFloor's result is
  // the exact floor of a / b. That is the rounded quotient's floor,
  // corrected by exact comparisons (a float times an integer below 2^22 is
  // exact in float64).
  if (b > 0 && std::fabs(a) < b * 0x1p21f) {
    if (a < 0)
      return 0.0f;
    float floorDiv = std::floor(a / b);
    if (static_cast<double>(a) < static_cast<double>(floorDiv) * b)
      floorDiv -= 1.0f;
    else if (static_cast<double>(a) >= static_cast<double>(floorDiv + 1.0f) * b)
      floorDiv += 1.0f;
    return std::min(floorDiv, hi);
  }
  const float x = divFloor(a, b);
  return std::isnan(x) ? x : std::min(std::max(x, 0.0f), hi);
}

namespace {
/// _compute_quantization_error with the parts that do not depend on the
/// candidate bins computed once per search.
class QuantizationError {
public:
  QuantizationError(const HistogramOptions &options,
                    const HistogramStats &stats)
      : dstBins(dstBinCount(options.uniform.dtype)),
        // bin_width = (max_val.item() - min_val.item()) / bins: float64.
        binWidth(
            (static_cast<double>(stats.max) - static_cast<double>(stats.min)) /
            static_cast<double>(options.bins)),
        density(stats.histogram.size()), norms(stats.histogram.size()) {
    assert(stats.histogram.size() == static_cast<size_t>(options.bins) &&
           "bins mismatch");
    // density = histogram / bin_width: the float64 scalar is cast to float32.
    for (size_t i = 0; i < density.size(); ++i)
      density[i] = stats.histogram[i] / static_cast<float>(binWidth);
  }

  double operator()(int64_t startBin, int64_t endBin);

private:
  double dstBins;
  double binWidth;
  std::vector<float> density;
  std::vector<float> norms;
};
} // namespace

/// _get_norm's (end^3 - begin^3) / 3 in float32, left to right.
static float cubeDifference(float begin, float end) {
  return (end * end * end - begin * begin * begin) / 3.0f;
}

double QuantizationError::operator()(int64_t startBin, int64_t endBin) {
  // Python float arithmetic: (bin_width * n) / dst_nbins.
  const double dstWidthD =
      binWidth * static_cast<double>(endBin - startBin + 1) / dstBins;
  if (dstWidthD == 0.0)
    return 0.0;
  // Python floats meeting float32 tensors are cast to float32;
  // torch.tensor(x) of a Python float is float32 too.
  const auto srcWidth = static_cast<float>(binWidth);
  const auto dstWidth = static_cast<float>(dstWidthD);
  const auto halfDst = static_cast<float>(dstWidthD / 2);
  const auto negHalfDst = static_cast<float>(-dstWidthD / 2);
  const auto lastDstBin = static_cast<float>(dstBins - 1);
  // The middle term's _get_norm of two 0-dim tensors.
  const float fullDstBinNorm = cubeDifference(negHalfDst, halfDst);
  const auto bins = static_cast<int64_t>(density.size());
  for (int64_t i = 0; i < bins; ++i) {
    // (arange(bins) - start_bin) is int64, times a Python float: float32.
    const float srcBegin = static_cast<float>(i - startBin) * srcWidth;
    const float srcEnd = srcBegin + srcWidth;
    const float dstBegin = dstBinOf(srcBegin, dstWidth, lastDstBin);
    const float dstEnd = dstBinOf(srcEnd, dstWidth, lastDstBin);
    const float dstBeginCenter = (dstBegin + 0.5f) * dstWidth;
    float norm =
        density[i] * cubeDifference(srcBegin - dstBeginCenter, halfDst);
    norm += (dstEnd - dstBegin - 1.0f) * (density[i] * fullDstBinNorm);
    const float dstEndCenter = dstEnd * dstWidth + halfDst;
    norm += density[i] * cubeDifference(negHalfDst, srcEnd - dstEndCenter);
    norms[i] = norm;
  }
  // norm.sum().item()
  return torchSum(norms.data(), norms.size());
}

double histogramQuantizationError(const HistogramOptions &options,
                                  const HistogramStats &stats, int64_t startBin,
                                  int64_t endBin) {
  return QuantizationError(options, stats)(startBin, endBin);
}

std::pair<float, float> nonLinearParamSearch(const HistogramOptions &options,
                                             const HistogramStats &stats) {
  const int64_t bins = options.bins;
  const std::vector<float> &hist = stats.histogram;
  QuantizationError quantizationError(options, stats);
  // total = torch.sum(histogram).item(): float32 cascade sum.
  const double total = torchSum(hist.data(), hist.size());
  // torch.cumsum of float32 on CPU accumulates in float64, stores float32.
  std::vector<float> cumSum(hist.size());
  double running = 0.0;
  for (size_t i = 0; i < hist.size(); ++i) {
    running += hist[i];
    cumSum[i] = static_cast<float>(running);
  }

  const double stepSize = 1e-5;
  double alpha = 0.0, beta = 1.0;
  int64_t startBin = 0, endBin = bins - 1;
  double normMin = std::numeric_limits<double>::infinity();
  while (alpha < beta) {
    const double nextAlpha = alpha + stepSize;
    const double nextBeta = beta - stepSize;
    // cSum[l] < next_alpha * total compares in float32: the Python float is
    // cast to the tensor's dtype. The scans restart at start_bin/end_bin as
    // in PyTorch (cumSum need not be monotone); that is cheap, because the
    // side that scanned further is the side that moves.
    const auto lower = static_cast<float>(nextAlpha * total);
    const auto upper = static_cast<float>(nextBeta * total);
    int64_t l = startBin, r = endBin;
    while (l < endBin && cumSum[l] < lower)
      ++l;
    while (r > startBin && cumSum[r] > upper)
      --r;

    int64_t nextStartBin = startBin, nextEndBin = endBin;
    if (l - startBin > endBin - r) {
      nextStartBin = l;
      alpha = nextAlpha;
    } else {
      nextEndBin = r;
      beta = nextBeta;
    }
    if (nextStartBin == startBin && nextEndBin == endBin)
      continue;

    const double norm = quantizationError(nextStartBin, nextEndBin);
    if (norm > normMin)
      break;
    normMin = norm;
    startBin = nextStartBin;
    endBin = nextEndBin;
  }

  // bin_width = (max_val - min_val) / bins on 0-dim float32 tensors.
  const float binWidth = (stats.max - stats.min) / static_cast<float>(bins);
  return {stats.min + binWidth * static_cast<float>(startBin),
          stats.min + binWidth * static_cast<float>(endBin + 1)};
}

StatusOr<QParams> calculateHistogramQParams(const HistogramOptions &options,
                                            const HistogramStats &stats) {
  if (Status status = validateHistogramOptions(options); !status)
    return status;
  // Never observed: calculateQParams returns PyTorch's default for +inf/-inf.
  if (!stats.isInitialized())
    return calculateQParams(options.uniform, {stats.min}, {stats.max});
  if (stats.histogram.size() != static_cast<size_t>(options.bins))
    return Status::error(
        "the histogram has " + std::to_string(stats.histogram.size()) +
        " bins, the options say " + std::to_string(options.bins) +
        " (PyTorch fails an assertion)");
  auto [newMin, newMax] = nonLinearParamSearch(options, stats);
  return calculateQParams(options.uniform, {newMin}, {newMax});
}

} // namespace mlir::quanta::numerics

//===----------------------------------------------------------------------===//
// Merging statistics of calibration shards
//===----------------------------------------------------------------------===//

namespace mlir::quanta::numerics {

/// Adds `source`'s counts to `target` (bins over [min, min + bins * width)),
/// spreading each source bin over the target bins it overlaps in proportion
/// to the overlap: the piecewise-constant density _combine_histograms
/// assumes for the histogram it upsamples.
static void redistribute(std::vector<float> &target, double min, double width,
                         const HistogramStats &source) {
  const auto bins = static_cast<int64_t>(target.size());
  const auto sourceBins = static_cast<int64_t>(source.histogram.size());
  const double sourceWidth =
      (static_cast<double>(source.max) - source.min) / sourceBins;
  for (int64_t bin = 0; bin < sourceBins; ++bin) {
    const double count = source.histogram[bin];
    if (count == 0.0)
      continue;
    const double begin = source.min + bin * sourceWidth;
    const double end = begin + sourceWidth;
    if (sourceWidth == 0.0) {
      // A min == max histogram: all of it at one point.
      int64_t at = static_cast<int64_t>((begin - min) / width);
      target[std::clamp<int64_t>(at, 0, bins - 1)] += static_cast<float>(count);
      continue;
    }
    auto first = static_cast<int64_t>((begin - min) / width);
    auto last = static_cast<int64_t>((end - min) / width);
    for (int64_t t = std::max<int64_t>(first, 0);
         t <= std::min<int64_t>(last, bins - 1); ++t) {
      const double overlap = std::min(end, min + (t + 1) * width) -
                             std::max(begin, min + t * width);
      if (overlap > 0.0)
        target[t] += static_cast<float>(count * overlap / sourceWidth);
    }
  }
}

Status mergeHistograms(HistogramStats &stats, const HistogramStats &other,
                       const HistogramOptions &options) {
  if (!other.isInitialized())
    return Status::success();
  if (!stats.isInitialized()) {
    stats = other;
    return Status::success();
  }
  const auto bins = static_cast<size_t>(options.bins);
  if (stats.histogram.size() != bins || other.histogram.size() != bins)
    return Status::error(
        "histograms of " + std::to_string(stats.histogram.size()) + " and " +
        std::to_string(other.histogram.size()) +
        " bins cannot be merged with bins = " + std::to_string(options.bins));
  // The wider histogram is the base whose grid PyTorch's combine extends.
  const bool otherIsWider = static_cast<double>(other.max) - other.min >
                            static_cast<double>(stats.max) - stats.min;
  const HistogramStats &base = otherIsWider ? other : stats;
  const HistogramStats &added = otherIsWider ? stats : other;
  const float combinedMin = torchMin(stats.min, other.min);
  const float combinedMax = torchMax(stats.max, other.max);

  HistogramStats merged;
  merged.histogram.assign(bins, 0.0f);
  if (base.max == base.min) {
    // Both are single points: bin them over the union of the two.
    merged.min = combinedMin;
    merged.max = combinedMax == combinedMin ? combinedMin : combinedMax;
    const double width =
        (static_cast<double>(merged.max) - merged.min) / options.bins;
    if (width == 0.0) {
      for (size_t bin = 0; bin < bins; ++bin)
        merged.histogram[bin] = stats.histogram[bin] + other.histogram[bin];
    } else {
      redistribute(merged.histogram, merged.min, width, base);
      redistribute(merged.histogram, merged.min, width, added);
    }
  } else {
    StatusOr<AdjustedRange> range =
        adjustMinMax(base, options, combinedMin, combinedMax);
    if (!range)
      return range.getStatus();
    merged.min = range->min;
    merged.max = range->max;
    combineHistograms(merged.histogram, base.histogram, options.upsampleRate,
                      *range);
    const double width =
        (static_cast<double>(merged.max) - merged.min) / options.bins;
    redistribute(merged.histogram, merged.min, width, added);
  }
  stats = std::move(merged);
  return Status::success();
}

} // namespace mlir::quanta::numerics

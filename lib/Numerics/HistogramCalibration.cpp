//===- HistogramCalibration.cpp - Clipping ranges from a histogram --------===//
//
// Entropy, percentile and MSE calibration on HistogramObserver statistics;
// the algorithms and their sources are described in the header. Every
// floating-point expression is float64 and evaluated in the order written:
// scripts/goldens/gen_histogram_calibration_goldens.py repeats them operation
// by operation, so keep the two in step.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/HistogramCalibration.h"

#include <algorithm>
#include <cassert>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>

namespace mlir::quanta::numerics {

static constexpr double kInfinity = std::numeric_limits<double>::infinity();

static std::string str(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

std::string_view toString(HistogramCalibration method) {
  switch (method) {
  case HistogramCalibration::PyTorch:
    return "pytorch";
  case HistogramCalibration::Entropy:
    return "entropy";
  case HistogramCalibration::Percentile:
    return "percentile";
  case HistogramCalibration::Mse:
    return "mse";
  }
  assert(false && "unknown histogram calibration");
  return "";
}

std::optional<HistogramCalibration>
parseHistogramCalibration(std::string_view name) {
  for (HistogramCalibration method :
       {HistogramCalibration::PyTorch, HistogramCalibration::Entropy,
        HistogramCalibration::Percentile, HistogramCalibration::Mse})
    if (toString(method) == name)
      return method;
  return std::nullopt;
}

Status validateHistogramCalibrationOptions(
    const HistogramCalibrationOptions &options) {
  if (!(options.percentile > 0 && options.percentile <= 100))
    return Status::error("percentile (" + str(options.percentile) +
                         ") must be in (0, 100]: the share of the histogram's "
                         "|x| mass the range keeps");
  return Status::success();
}

//===----------------------------------------------------------------------===//
// The |x| histogram
//===----------------------------------------------------------------------===//

namespace {
/// The bins of the |x| histogram: bin i covers [i, i + 1) * span /
/// sourceBins, i.e. the signed histogram's bin width when 0 lies in
/// [min, max] and amaxSeen / sourceBins otherwise (where the signed width
/// would need more bins than the source has).
struct MagnitudeGrid {
  double magnitude;
  double span;
  size_t sourceBins;
  size_t bins;

  explicit MagnitudeGrid(const HistogramStats &stats)
      : magnitude(std::max(-static_cast<double>(stats.min),
                           static_cast<double>(stats.max))),
        span(std::max(static_cast<double>(stats.max) - stats.min, magnitude)),
        sourceBins(stats.histogram.size()),
        bins(static_cast<size_t>(
            std::ceil(magnitude * static_cast<double>(sourceBins) / span))) {}

  /// |x| at the left edge of bin i.
  double edge(int64_t i) const {
    return static_cast<double>(i) * span / static_cast<double>(sourceBins);
  }
};
} // namespace

/// Adds `mass` to `hist` spread uniformly over [from, to] (in bins,
/// 0 <= from < hist.size()); `to` may exceed the last edge by rounding.
static void spread(std::vector<double> &hist, double mass, double from,
                   double to) {
  to = std::min(to, static_cast<double>(hist.size()));
  const double length = to - from;
  for (auto bin = static_cast<int64_t>(std::floor(from));
       static_cast<double>(bin) < to; ++bin) {
    const double overlap = std::min(to, static_cast<double>(bin + 1)) -
                           std::max(from, static_cast<double>(bin));
    hist[bin] += mass * overlap / length;
  }
}

std::vector<double> absoluteHistogram(const HistogramStats &stats) {
  assert(std::isfinite(stats.min) && std::isfinite(stats.max) &&
         stats.min < stats.max &&
         "absoluteHistogram needs a finite range with min < max");
  const MagnitudeGrid grid(stats);
  const double offset =
      static_cast<double>(stats.min) * static_cast<double>(grid.sourceBins);
  const double width = static_cast<double>(stats.max) - stats.min;
  // Edge k of the signed histogram in |x| bins, (min + k * width /
  // sourceBins) / (span / sourceBins) rearranged so that aligned edges
  // (min == 0, min == -max) come out as exact integers.
  auto edge = [&](size_t k) {
    return (offset + static_cast<double>(k) * width) / grid.span;
  };
  std::vector<double> hist(grid.bins, 0.0);
  double left = edge(0);
  for (size_t k = 0; k < grid.sourceBins; ++k) {
    const double right = edge(k + 1);
    // Not `!= 0`: PyTorch's histogram merging leaves slightly negative
    // counts, which hold no data.
    const double mass = stats.histogram[k];
    if (mass > 0) {
      if (left >= 0) {
        spread(hist, mass, left, right);
      } else if (right <= 0) {
        spread(hist, mass, -right, -left);
      } else {
        // The bin holding 0: each side folds onto [0, |edge|], inside bin 0.
        spread(hist, mass * (-left / (right - left)), 0, -left);
        spread(hist, mass * (right / (right - left)), 0, right);
      }
    }
    left = right;
  }
  return hist;
}

//===----------------------------------------------------------------------===//
// Thresholds
//===----------------------------------------------------------------------===//

namespace {
/// Running sums of the |x| histogram: below[i] is the mass of bins [0, i)
/// summed upwards, above[i] that of bins [i, bins) summed downwards.
struct MassSums {
  std::vector<double> below;
  std::vector<double> above;

  explicit MassSums(const std::vector<double> &hist)
      : below(hist.size() + 1, 0.0), above(hist.size() + 1, 0.0) {
    for (size_t k = 0; k < hist.size(); ++k)
      below[k + 1] = below[k] + hist[k];
    for (size_t k = hist.size(); k-- > 0;)
      above[k] = above[k + 1] + hist[k];
  }
};
} // namespace

/// The range of the threshold at |x| bin edge `stop`.
static std::pair<float, float> clipToMagnitude(const HistogramStats &stats,
                                               const MagnitudeGrid &grid,
                                               int64_t stop) {
  const auto amax = static_cast<float>(grid.edge(stop));
  return {std::clamp(-amax, stats.min, stats.max),
          std::clamp(amax, stats.min, stats.max)};
}

/// KL(P || Q) of the |x| histogram clipped after bin stop - 1 and quantized
/// to `levels` cells (see the header).
static double clippedDivergence(const std::vector<double> &hist,
                                const MassSums &sums, int64_t stop,
                                int64_t levels) {
  const double kept = sums.below[stop];
  const double outliers = sums.above[stop];
  const double total = sums.below.back();
  if (kept == 0)
    return kInfinity;
  double divergence = 0;
  for (int64_t begin = 0, end; begin < stop; begin = end) {
    const int64_t cell = begin * levels / stop;
    end = begin + 1;
    while (end < stop && end * levels / stop == cell)
      ++end;
    double cellMass = 0;
    int64_t nonEmpty = 0;
    for (int64_t k = begin; k < end; ++k) {
      cellMass += hist[k];
      nonEmpty += hist[k] > 0;
    }
    for (int64_t k = begin; k < end; ++k) {
      const double p = k == stop - 1 ? hist[k] + outliers : hist[k];
      if (p == 0)
        continue;
      // The outliers landed on a bin Q leaves empty.
      if (hist[k] == 0)
        return kInfinity;
      const double pn = p / total;
      const double qn = cellMass / static_cast<double>(nonEmpty) / kept;
      divergence += pn * std::log(pn / qn);
    }
  }
  return divergence;
}

/// Quantization levels over [0, amax] (NVIDIA's 1 << (bits - 1 + unsigned)).
static int64_t levelsOverMagnitude(const UniformObserverOptions &options,
                                   const HistogramStats &stats) {
  const QRange range = computeQRange(options);
  const int64_t levels = range.quantMax - range.quantMin + 1;
  const bool oneSided = stats.min >= 0 || stats.max <= 0;
  return isSymmetric(options.qscheme) || !oneSided ? levels / 2 : levels;
}

static int64_t entropyStop(std::vector<double> hist, int64_t levels) {
  // NVIDIA's bins[0] = bins[1]: exact zeros (ReLU) pile up in bin 0 and
  // would dominate the divergence, though 0 is quantized exactly.
  if (hist.size() > 1)
    hist[0] = hist[1];
  const MassSums sums(hist);
  const auto bins = static_cast<int64_t>(hist.size());
  // TensorRT starts at bin 128, the number of levels: counted from the first
  // non-empty bin, this also skips keeping a single bin of data away from 0,
  // where P and Q are both that bin and KL is 0.
  const int64_t firstNonEmpty =
      std::find_if(hist.begin(), hist.end(), [](double m) { return m > 0; }) -
      hist.begin();
  int64_t best = bins;
  double bestDivergence = kInfinity;
  for (int64_t stop = std::min(firstNonEmpty + levels, bins); stop <= bins;
       ++stop) {
    const double divergence = clippedDivergence(hist, sums, stop, levels);
    // Ties (empty bins beyond the data) go to the narrowest range.
    if (divergence < bestDivergence) {
      bestDivergence = divergence;
      best = stop;
    }
  }
  return best;
}

static int64_t percentileStop(const std::vector<double> &hist,
                              double percentile) {
  const MassSums sums(hist);
  const double allowed = sums.above[0] * (100 - percentile) / 100;
  int64_t stop = 1;
  while (sums.above[stop] > allowed)
    ++stop;
  return stop;
}

namespace {
/// The centres and masses of the non-empty signed bins.
struct WeightedCentres {
  std::vector<double> centre;
  std::vector<double> count;
};
} // namespace

/// sum count * (fq(centre) - centre)^2, fq quantizing with `qparams`.
static double squaredError(const WeightedCentres &bins, const QParams &qparams,
                           QRange range) {
  const double scale = qparams.scale.front();
  const auto zeroPoint = static_cast<double>(qparams.zeroPoint.front());
  const auto quantMin = static_cast<double>(range.quantMin);
  const auto quantMax = static_cast<double>(range.quantMax);
  double error = 0;
  for (size_t k = 0; k < bins.centre.size(); ++k) {
    const double quantized = std::clamp(
        std::nearbyint(bins.centre[k] / scale) + zeroPoint, quantMin, quantMax);
    const double diff = (quantized - zeroPoint) * scale - bins.centre[k];
    error += bins.count[k] * diff * diff;
  }
  return error;
}

static StatusOr<int64_t> mseStop(const HistogramOptions &options,
                                 const HistogramStats &stats,
                                 const MagnitudeGrid &grid) {
  const double min = stats.min;
  const double width = (static_cast<double>(stats.max) - min) /
                       static_cast<double>(grid.sourceBins);
  WeightedCentres centres;
  for (size_t k = 0; k < grid.sourceBins; ++k) {
    const double mass = stats.histogram[k];
    if (mass > 0) { // Negative counts hold no data, as above.
      centres.centre.push_back(min + (static_cast<double>(k) + 0.5) * width);
      centres.count.push_back(mass);
    }
  }
  const QRange range = computeQRange(options.uniform);
  const auto bins = static_cast<int64_t>(grid.bins);
  int64_t best = bins;
  double bestError = kInfinity;
  for (int64_t stop = 1; stop <= bins; ++stop) {
    auto [newMin, newMax] = clipToMagnitude(stats, grid, stop);
    StatusOr<QParams> qparams =
        calculateQParams(options.uniform, {newMin}, {newMax});
    if (!qparams)
      return qparams.getStatus();
    const double error = squaredError(centres, *qparams, range);
    if (error <= bestError) {
      bestError = error;
      best = stop;
    }
  }
  return best;
}

//===----------------------------------------------------------------------===//
// Entry points
//===----------------------------------------------------------------------===//

/// The observer's and the calibration's options, both checked.
static Status checkOptions(const HistogramOptions &options,
                           const HistogramCalibrationOptions &calibration) {
  if (Status status = validateHistogramOptions(options); !status)
    return status;
  return validateHistogramCalibrationOptions(calibration);
}

static Status checkStats(const HistogramOptions &options,
                         const HistogramStats &stats) {
  if (!stats.isInitialized())
    return Status::error("the histogram observer has seen no data: there is "
                         "no range to calibrate");
  if (stats.histogram.size() != static_cast<size_t>(options.bins))
    return Status::error(
        "the histogram has " + std::to_string(stats.histogram.size()) +
        " bins, the options say " + std::to_string(options.bins));
  if (!std::isfinite(stats.min) || !std::isfinite(stats.max) ||
      stats.min > stats.max)
    return Status::error("the histogram range [" + str(stats.min) + ", " +
                         str(stats.max) +
                         "] is not a finite range with min <= max");
  for (size_t k = 0; k < stats.histogram.size(); ++k)
    if (!std::isfinite(stats.histogram[k]))
      return Status::error("histogram bin " + std::to_string(k) +
                           " holds a non-finite count (" +
                           str(stats.histogram[k]) + ")");
  return Status::success();
}

StatusOr<std::pair<float, float>>
chooseHistogramRange(const HistogramOptions &options,
                     const HistogramStats &stats,
                     const HistogramCalibrationOptions &calibration) {
  if (Status status = checkOptions(options, calibration); !status)
    return status;
  if (Status status = checkStats(options, stats); !status)
    return status;
  if (calibration.method == HistogramCalibration::PyTorch)
    return nonLinearParamSearch(options, stats);

  const bool hasMass =
      std::any_of(stats.histogram.begin(), stats.histogram.end(),
                  [](float count) { return count > 0; });
  if (stats.min == stats.max || !hasMass)
    return std::pair<float, float>{stats.min, stats.max};
  const MagnitudeGrid grid(stats);
  if (calibration.method == HistogramCalibration::Mse) {
    StatusOr<int64_t> stop = mseStop(options, stats, grid);
    if (!stop)
      return stop.getStatus();
    return clipToMagnitude(stats, grid, *stop);
  }
  std::vector<double> hist = absoluteHistogram(stats);
  return clipToMagnitude(
      stats, grid,
      calibration.method == HistogramCalibration::Entropy
          ? entropyStop(std::move(hist),
                        levelsOverMagnitude(options.uniform, stats))
          : percentileStop(hist, calibration.percentile));
}

StatusOr<QParams>
calculateCalibratedQParams(const HistogramOptions &options,
                           const HistogramStats &stats,
                           const HistogramCalibrationOptions &calibration) {
  if (Status status = checkOptions(options, calibration); !status)
    return status;
  // Never observed: calculateQParams returns PyTorch's default for +inf/-inf.
  if (!stats.isInitialized())
    return calculateQParams(options.uniform, {stats.min}, {stats.max});
  StatusOr<std::pair<float, float>> range =
      chooseHistogramRange(options, stats, calibration);
  if (!range)
    return range.getStatus();
  return calculateQParams(options.uniform, {range->first}, {range->second});
}

} // namespace mlir::quanta::numerics

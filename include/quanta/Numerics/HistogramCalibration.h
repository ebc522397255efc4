//===- HistogramCalibration.h - Clipping ranges from histograms -*- C++ -*-===//
//
// Alternatives to PyTorch's _non_linear_param_search that choose the clipping
// range from the same HistogramObserver statistics (HistogramStats), the way
// TensorRT, TVM and NVIDIA's pytorch-quantization calibrate: KL divergence
// (entropy), a percentile of |x|, and the minimal squared error. The range is
// then turned into qparams by calculateQParams with the observer's own
// options, exactly as HistogramObserver.calculate_qparams does.
//
// All three methods see the statistics the way PyTorch's search does: `bins`
// equal bins over [min, max], each bin's mass spread uniformly over it.
// Computations are in float64 in a fixed operation order, mirrored by the
// reference implementation scripts/goldens/gen_histogram_calibration_goldens.py
// so that the chosen ranges match it bit for bit.
//
// Entropy and percentile work on |x|, like TensorRT's and NVIDIA's
// calibrators, which histogram |x| over [0, amax_seen]: the signed histogram
// is folded around zero (absoluteHistogram). Every method picks a threshold
// amax among the |x| bin edges; it becomes the range
// [clamp(-amax, min, max), clamp(amax, min, max)]. For symmetric schemes
// calculateQParams then gives the scale of amax; affine schemes keep the
// data's own bound on the side amax does not clip.
//
// Entropy: TensorRT's entropy calibration (Szymon Migacz, "8-bit Inference
//   with TensorRT", GTC 2017), as in NVIDIA pytorch-quantization's
//   calib/histogram.py _compute_amax_entropy and TVM's _find_scale_by_kl
//   (MXNet's _get_optimal_threshold). Ported from their published algorithm
//   and sources, not run against them (not installable here). With L
//   quantization levels over [0, amax], for every stop bin i:
//     P = |x| bins [0, i), the mass beyond (outliers) added to bin i - 1;
//     Q = bins [0, i) merged into L cells (bin k in cell floor(k * L / i)),
//         each cell's mass spread evenly over its non-empty bins;
//     KL(P || Q) = sum over P > 0 of p * log(p / q), P and Q normalized;
//         infinite when the outliers land on a bin that is empty in Q;
//   amax = right edge of bin i - 1 for the smallest KL (ties: the smallest
//   i, as TVM; they arise where bins beyond the data are empty).
//   As NVIDIA, bin 0 takes bin 1's count first: 0 is quantized exactly, but
//   the exact zeros of a ReLU pile up in bin 0 and would dominate KL.
//   L is NVIDIA's 1 << (bits - 1 + unsigned) for the observer's integer
//   range: half its levels ((quant_max - quant_min + 1) / 2) for symmetric
//   schemes and for affine schemes on data of both signs, all of them for
//   affine schemes on one-sided data (min >= 0 or max <= 0), whose range is
//   [0, amax]. i runs from L bins past the first non-empty bin to the last
//   bin: TensorRT starts at bin 128 (= L, data starting at bin 0); counting
//   from the data also avoids keeping a single bin of data away from 0, for
//   which P and Q are that one bin and KL is 0.
//   Differences: no smoothing of P and Q (TVM/MXNet add eps = 1e-4 to empty
//   bins, a constant in count units, ill-defined for the fractional counts
//   HistogramObserver produces; without it KL is finite exactly when Q
//   covers P, as in NVIDIA's code); cells by the integer formula above
//   (NVIDIA: np.digitize on a float linspace, equal up to its rounding;
//   TensorRT/TVM: i / L bins per cell, the remainder in the last); the start
//   bin (NVIDIA: fixed 128); ties (NVIDIA: the widest range).
//
// Percentile (NVIDIA's _compute_amax_percentile): amax = right edge of the
//   first |x| bin i - 1 such that the mass beyond it is at most
//   (100 - percentile)% of the total, so the range keeps at least
//   `percentile`% of |x|'s mass. NVIDIA returns the left edge of the bin
//   where the cumulative fraction reaches the percentile (which drops the
//   last non-empty bin even at 100%); percentile 100 here keeps every
//   non-empty bin.
//
// MSE (NVIDIA's _compute_amax_mse): among all |x| bin edges amax, the one
//   whose range minimises sum_k count_k * (fq(c_k) - c_k)^2 over the signed
//   histogram's bin centres c_k, where fq quantizes with the qparams
//   calculateQParams gives that range (x / scale rounded half to even, plus
//   the zero point, clamped to [quant_min, quant_max], dequantized; float64)
//   (ties: the widest range, as a centre that quantizes exactly stands for a
//   whole bin). NVIDIA evaluates |x| bin centres with a symmetric quantizer,
//   candidates from bin 128 on; this evaluates the observer's own scheme,
//   zero point included, on the signed histogram, which needs no folding.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_HISTOGRAMCALIBRATION_H
#define QUANTA_NUMERICS_HISTOGRAMCALIBRATION_H

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Status.h"

#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace mlir::quanta::numerics {

/// How the clipping range is chosen from HistogramObserver's statistics.
enum class HistogramCalibration {
  /// PyTorch's _non_linear_param_search (nonLinearParamSearch).
  PyTorch,
  /// Minimal KL divergence of |x| (TensorRT).
  Entropy,
  /// The range keeping a percentile of |x|'s mass.
  Percentile,
  /// Minimal squared quantization error.
  Mse,
};

/// "pytorch", "entropy", "percentile", "mse".
std::string_view toString(HistogramCalibration method);
std::optional<HistogramCalibration>
parseHistogramCalibration(std::string_view name);

struct HistogramCalibrationOptions {
  HistogramCalibration method = HistogramCalibration::PyTorch;
  /// For Percentile: the share of |x|'s mass to keep, in (0, 100].
  double percentile = 99.99;
};

/// Checks percentile in (0, 100] (whatever the method, so that an option
/// set is valid or not independently of which method reads it).
Status
validateHistogramCalibrationOptions(const HistogramCalibrationOptions &options);

/// The histogram of |x| derived from the signed one: bins of the signed
/// histogram's width (max - min) / bins from 0 up to amax_seen =
/// max(-min, max), i.e. ceil(amax_seen / width) <= bins of them; when 0
/// lies outside [min, max] that would take more bins than the source has,
/// and the grid is `bins` bins over [0, amax_seen] instead (NVIDIA's). Each
/// signed bin's count is spread over its mirrored image in proportion to
/// the overlap, assuming uniform density inside a bin as PyTorch's own
/// search does; the bin holding 0 lands in |x| bin 0 whole. Exact when the
/// edges line up (0 on a signed edge). Negative counts (float32 rounding in
/// PyTorch's histogram merging leaves some near -1e-3) count as empty.
/// Requires finite min < max and finite counts.
std::vector<double> absoluteHistogram(const HistogramStats &stats);

/// The clipping range (newMin, newMax), within [min, max]. Errors for
/// invalid options, uninitialized statistics (no range to clip), a histogram
/// whose size is not options.bins, and statistics no observer produces (a
/// NaN or infinite count or bound, min > max). Entropy, Percentile and Mse
/// return [min, max] itself when there is nothing to choose from: min == max
/// or no positive count. Mse fails if some candidate range has no finite
/// scale (a range wider than float32). Entropy and Mse take time quadratic
/// in bins: about 6 ms for PyTorch's default 2048 bins, 0.1 s for 8192.
StatusOr<std::pair<float, float>>
chooseHistogramRange(const HistogramOptions &options,
                     const HistogramStats &stats,
                     const HistogramCalibrationOptions &calibration);

/// calculateQParams(options.uniform, {newMin}, {newMax}) of the chosen range;
/// PyTorch's default (scale 1.0, zero point 0) before the first batch, as
/// calculateHistogramQParams. With the PyTorch method this equals
/// calculateHistogramQParams on the statistics chooseHistogramRange accepts.
StatusOr<QParams>
calculateCalibratedQParams(const HistogramOptions &options,
                           const HistogramStats &stats,
                           const HistogramCalibrationOptions &calibration);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_HISTOGRAMCALIBRATION_H

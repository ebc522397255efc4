//===- FakeQuant.h - PyTorch-exact fake quantization ------------*- C++ -*-===//
//
// The ATen CPU fake-quantize kernels, torch.ao.quantization.FakeQuantize and
// FusedMovingAvgObsFakeQuantize (the default QAT fake-quant of PyTorch 1.13)
// bit for bit. Tensors are contiguous row-major float buffers with a shape.
//
// Non-finite inputs: ATen converts the rounded value to int64 with
// static_cast, which x86-64 turns into INT64_MIN for NaN, +-inf and values
// beyond int64, so PyTorch maps all of them (+inf too) to quant_min; these
// functions do the same.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_FAKEQUANT_H
#define QUANTA_NUMERICS_FAKEQUANT_H

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/QParams.h"
#include "quanta/Numerics/Status.h"

#include <cmath>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlir::quanta::numerics {

/// torch.fake_quantize_per_tensor_affine. Requires quantMin <= quantMax and
/// quantMin <= zeroPoint <= quantMax, as PyTorch does.
Status fakeQuantizePerTensorAffine(const float *input, float *output,
                                   size_t size, float scale, int64_t zeroPoint,
                                   int64_t quantMin, int64_t quantMax);

/// torch.fake_quantize_per_channel_affine with integer zero points (each in
/// [quantMin, quantMax]). `axis` must be in [0, rank): PyTorch rejects
/// negative axes here.
Status fakeQuantizePerChannelAffine(const float *input, float *output,
                                    const std::vector<int64_t> &shape,
                                    int64_t axis,
                                    const std::vector<float> &scale,
                                    const std::vector<int64_t> &zeroPoint,
                                    int64_t quantMin, int64_t quantMax);

/// torch.fake_quantize_per_channel_affine with float zero points
/// (per_channel_affine_float_qparams): round(x / scale + zero_point).
Status fakeQuantizePerChannelAffine(const float *input, float *output,
                                    const std::vector<int64_t> &shape,
                                    int64_t axis,
                                    const std::vector<float> &scale,
                                    const std::vector<float> &zeroPoint,
                                    int64_t quantMin, int64_t quantMax);

/// The quantized value of `x` with a float zero point
/// (per_channel_affine_float_qparams): round_half_even(fma(x, 1 / scale,
/// zero_point)) clamped to [quantMin, quantMax], the value the fake
/// quantization above dequantizes and torch.quantize_per_channel stores
/// (NaN gives quantMin).
int64_t quantizeFloatZeroPoint(float x, float scale, float zeroPoint,
                               int64_t quantMin, int64_t quantMax);

/// One row of PyTorch's quantized embedding tables (torch.ao.nn.quantized
/// Embedding and EmbeddingBag, whose weights are quantized per row with
/// float zero points): the lookup computes fma(q, scale, bias), bias being
/// -zero_point * scale. 8-bit rows (quint8) keep both in float32, 4-bit
/// ones (quint4x2) in float16. Verified bit for bit against PyTorch 1.13's
/// embedding_bag_byte and embedding_bag_4bit (test/Dialect/Quanta/
/// Transforms/quantize-embedding.mlir).
struct EmbeddingRow {
  float scale, bias;
  float lookup(int64_t quantized) const {
    return std::fma(static_cast<float>(quantized), scale, bias);
  }
};
EmbeddingRow getEmbeddingRow(float scale, float zeroPoint, int64_t bits);

/// ATen's quant_utils::ChooseQuantizationParams (QuantUtils.h), which
/// torch.fused_moving_avg_obs_fake_quant uses in builds without FBGEMM. It
/// differs from the observers' formula: double intermediates, a scale of at
/// least 6.1e-5, and the zero point taken from min or max, whichever is
/// more accurate. `preserveSparsity` is the symmetric variant. Errors where
/// PyTorch's TORCH_CHECKs fail (min > max, NaN, qmin >= qmax) and for
/// infinite ranges.
struct ChosenQParams {
  /// A double, as ATen's TensorQuantizationParams: the fused fake-quant
  /// stores it in its float buffer, the dynamic kernels use it as it is.
  double scale;
  int32_t zeroPoint;
};
StatusOr<ChosenQParams> chooseQuantizationParams(float min, float max,
                                                 int32_t qmin, int32_t qmax,
                                                 bool preserveSparsity);

/// The constructor arguments of FakeQuantize and FusedMovingAvgObsFakeQuantize.
struct FakeQuantizeOptions {
  /// One of the four min/max observers.
  ObserverKind observer = ObserverKind::MovingAverageMinMax;
  /// The observer's options. quantMin/quantMax are the module's own
  /// quant_min/quant_max, which it checks and forwards to the observer.
  UniformObserverOptions observerOptions;
  /// For the moving-average observers.
  double averagingConstant = 0.01;
  /// For the per-channel observers.
  int64_t chAxis = 0;
  /// For HistogramObserver (PyTorch's default_histogram_fake_quant): its
  /// bins, upsample_rate and Quanta's exact_histc_range.
  int64_t bins = 2048;
  int64_t upsampleRate = 128;
  bool exactHistcRange = false;

  HistogramOptions getHistogramOptions() const;
};

/// What FakeQuantize and FusedMovingAvgObsFakeQuantize share: the observer
/// options, the enable flags and the scale/zero_point buffers.
class FakeQuantizeBase {
public:
  void enableFakeQuant(bool enabled = true) { fakeQuantEnabled = enabled; }
  void enableObserver(bool enabled = true) { observerEnabled = enabled; }
  bool isFakeQuantEnabled() const { return fakeQuantEnabled; }
  bool isObserverEnabled() const { return observerEnabled; }

  /// The module's scale and zero_point buffers (initially scale 1.0, zero
  /// point 0).
  const QParams &getQParams() const { return qparams; }
  /// The observer's effective quant_min/quant_max.
  QRange getQRange() const { return range; }
  const FakeQuantizeOptions &getOptions() const { return options; }
  bool isPerChannel() const;

  /// Running statistics of the observer (per-tensor or per-channel; a
  /// HistogramObserver's min_val/max_val are in getStats too).
  const MinMaxStats &getStats() const { return stats; }
  const HistogramStats &getHistogramStats() const { return histogramStats; }
  const PerChannelMinMaxStats &getPerChannelStats() const {
    return perChannelStats;
  }

  /// Fake-quantizes with the current buffers, as the module's forward does
  /// when fake quant is enabled.
  Status applyFakeQuant(const float *input, float *output,
                        const std::vector<int64_t> &shape) const;

protected:
  FakeQuantizeBase(const FakeQuantizeOptions &options, QRange range);
  /// FakeQuantize.__init__'s checks plus the observer constructor's.
  static Status validate(const FakeQuantizeOptions &options);

  FakeQuantizeOptions options;
  QRange range;
  QParams qparams;
  bool fakeQuantEnabled = true;
  bool observerEnabled = true;
  MinMaxStats stats;
  PerChannelMinMaxStats perChannelStats;
  HistogramStats histogramStats;
};

/// torch.ao.quantization.FakeQuantize: observe (when enabled) and refresh
/// scale/zero_point from the observer after every observed batch, then
/// fake-quantize (when enabled). Its observer is one of the min/max ones or
/// HistogramObserver (PyTorch's default_histogram_fake_quant), whose
/// L2-error search then runs after each observed batch, as in PyTorch.
class FakeQuantize : public FakeQuantizeBase {
public:
  static StatusOr<FakeQuantize> create(const FakeQuantizeOptions &options);

  /// `output` may alias `input`; it is a copy of the input when fake quant
  /// is disabled.
  Status forward(const float *input, float *output,
                 const std::vector<int64_t> &shape);

  /// calculate_qparams(): the observer's current parameters.
  StatusOr<QParams> calculateQParams() const;

private:
  using FakeQuantizeBase::FakeQuantizeBase;
};

/// torch.ao.quantization.FusedMovingAvgObsFakeQuantize, i.e. the CPU kernel
/// of torch.fused_moving_avg_obs_fake_quant: its own moving average (a
/// statistic that is +-inf restarts from the batch's value), parameters from
/// chooseQuantizationParams, refreshed only while fake quant is enabled.
/// Per-channel only along axis 0.
class FusedMovingAvgObsFakeQuantize : public FakeQuantizeBase {
public:
  /// PyTorch's defaults for this module: quant_min 0 and quant_max 255.
  static FakeQuantizeOptions defaultOptions();
  static StatusOr<FusedMovingAvgObsFakeQuantize>
  create(const FakeQuantizeOptions &options);

  /// `output` may alias `input`. Empty tensors change nothing.
  Status forward(const float *input, float *output,
                 const std::vector<int64_t> &shape);

private:
  using FakeQuantizeBase::FakeQuantizeBase;
  Status observe(const float *input, const std::vector<int64_t> &shape);
  Status chooseQParams();
};

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_FAKEQUANT_H

//===- QParams.h - PyTorch-exact quantization parameters --------*- C++ -*-===//
//
// The single source of truth for how Quanta turns observed statistics into
// quantization parameters. Every formula reproduces PyTorch 1.13
// (torch/ao/quantization/observer.py, utils.py) bit for bit: float32 values
// computed in PyTorch's float32 operation order, integer zero points exact.
// The passes, the runtime and the Python binding all call these functions.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_QPARAMS_H
#define QUANTA_NUMERICS_QPARAMS_H

#include "quanta/Numerics/Status.h"

#include <cstdint>
#include <limits>
#include <optional>
#include <string_view>
#include <vector>

namespace mlir::quanta::numerics {

/// Quantized dtypes accepted by PyTorch's uniform observers.
enum class DType { QUInt8, QInt8, QUInt4x2, QInt32 };

/// PyTorch's torch.qscheme values accepted by the uniform observers.
enum class QScheme {
  PerTensorAffine,
  PerTensorSymmetric,
  PerChannelAffine,
  PerChannelSymmetric,
  PerChannelAffineFloatQParams,
};

/// The uniform observer families; they differ in which options they accept.
enum class ObserverKind {
  MinMax,
  MovingAverageMinMax,
  PerChannelMinMax,
  MovingAveragePerChannelMinMax,
  Histogram,
};

std::string_view toString(DType dtype);
std::string_view toString(QScheme qscheme);
std::string_view toString(ObserverKind kind);
/// Parses PyTorch's spelling ("quint8", "per_tensor_affine", ...).
std::optional<DType> parseDType(std::string_view name);
std::optional<QScheme> parseQScheme(std::string_view name);

bool isPerChannel(QScheme qscheme);
bool isSymmetric(QScheme qscheme);

/// The constructor arguments of UniformQuantizationObserverBase, with
/// PyTorch's defaults. quantMin/quantMax form a customized range only when
/// both are set (PyTorch's has_customized_qrange).
struct UniformObserverOptions {
  DType dtype = DType::QUInt8;
  QScheme qscheme = QScheme::PerTensorAffine;
  bool reduceRange = false;
  std::optional<int64_t> quantMin;
  std::optional<int64_t> quantMax;
  float eps = std::numeric_limits<float>::epsilon();

  bool hasCustomizedQRange() const {
    return quantMin.has_value() && quantMax.has_value();
  }
};

/// The integer range values are quantized to.
struct QRange {
  int64_t quantMin;
  int64_t quantMax;
  friend bool operator==(const QRange &a, const QRange &b) {
    return a.quantMin == b.quantMin && a.quantMax == b.quantMax;
  }
};

/// Checks the options the way the constructor of `kind` does in PyTorch
/// (including the rules PyTorch enforces with asserts and
/// NotImplementedError), and the range rules PyTorch does not check but
/// which would make quantization meaningless (a quint8 range wider than 256
/// values, one of quant_min/quant_max without the other, eps <= 0 or NaN).
/// The message says which rule failed and why.
Status validateObserverOptions(ObserverKind kind,
                               const UniformObserverOptions &options);

/// averaging_constant of the moving-average observers and FakeQuantize
/// modules: in (0, 1]. A Quanta rule: PyTorch accepts any value, but the
/// moving average then never updates or diverges. The IR verifier, the
/// runtime and the Python binding all check it here.
Status validateAveragingConstant(double averagingConstant);

/// A scale to (fake-)quantize with: finite and positive. PyTorch divides by
/// it unchecked (scale 0 turns every value into 0 or NaN).
Status validateScale(float scale);

/// FixedQParamsObserver's arguments: a finite positive scale, a per-tensor
/// qscheme, quant_min < quant_max and the zero point within them (rules
/// PyTorch leaves unchecked; its fake quantization would then be wrong).
Status validateFixedQParams(float scale, int64_t zeroPoint, QScheme qscheme,
                            int64_t quantMin, int64_t quantMax);

/// PyTorch's calculate_qmin_qmax: the effective range, including the
/// reduce_range halving (floor division) of customized ranges.
/// Does not validate; call validateObserverOptions first.
QRange computeQRange(const UniformObserverOptions &options);

/// Quantization parameters, one entry per tensor (per-tensor schemes) or per
/// channel. `zeroPoint` is used by every scheme except
/// per_channel_affine_float_qparams, which uses `floatZeroPoint`.
struct QParams {
  std::vector<float> scale;
  std::vector<int64_t> zeroPoint;
  std::vector<float> floatZeroPoint;
};

/// UniformQuantizationObserverBase._calculate_qparams. `minVals`/`maxVals`
/// hold one value for per-tensor schemes and one per channel otherwise.
/// Empty or uninitialized (+inf/-inf) statistics give PyTorch's default
/// (scale 1.0, zero point 0). Statistics PyTorch asserts on (min > max, NaN)
/// and infinite ranges (for which PyTorch computes scale inf and an undefined
/// zero point) are errors.
StatusOr<QParams> calculateQParams(const UniformObserverOptions &options,
                                   const std::vector<float> &minVals,
                                   const std::vector<float> &maxVals);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_QPARAMS_H

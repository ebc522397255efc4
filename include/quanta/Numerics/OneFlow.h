//===- OneFlow.h - OneFlow's MinMaxObserver ---------------------*- C++ -*-===//
//
// oneflow.nn.MinMaxObserver (quantization_formula google/cambricon,
// quantization_bit 2..8, symmetric/affine, per-layer/per-channel), computed
// in float32 as OneFlow's CPU kernel does:
//   google symmetric: scale = max(|max|, |min|) / (2^(bits-1) - 1), zp 0
//   google affine:    scale = (max - min) / (2^bits - 1),
//                     zp = -nearbyint(min / scale) (a float; the range is not
//                     widened to include 0 and zp is not clamped)
//   cambricon:        scale = floor(log2(max(|max|, |min|))) - (bits - 2),
//                     an exponent, zp 0; per-layer only
// Per-channel statistics are taken along axis 0.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_ONEFLOW_H
#define QUANTA_NUMERICS_ONEFLOW_H

#include "quanta/Numerics/Status.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::quanta::numerics {

/// The constructor arguments of oneflow.nn.MinMaxObserver, with its defaults.
struct OneFlowMinMaxObserverOptions {
  std::string quantizationFormula = "google";
  int64_t quantizationBit = 8;
  std::string quantizationScheme = "symmetric";
  bool perLayerQuantization = true;
};

/// One scale and zero point per layer, or per channel (index along axis 0).
struct OneFlowQParams {
  std::vector<float> scale;
  std::vector<float> zeroPoint;
};

/// Checks the formula and scheme names, the bit width and that cambricon is
/// per-layer.
Status validateOneFlowOptions(const OneFlowMinMaxObserverOptions &options);

/// The observer's forward on a contiguous row-major tensor. Inputs for which
/// OneFlow would produce a zero, infinite or NaN scale or zero point (all
/// zeros, a constant channel with google affine, NaN or inf data) are errors.
StatusOr<OneFlowQParams>
computeOneFlowMinMaxQParams(const OneFlowMinMaxObserverOptions &options,
                            const float *data,
                            const std::vector<int64_t> &shape);

/// The same qparams from the min and max of each layer (one value) or of
/// each channel along axis 0, as the observer's statistics record them.
StatusOr<OneFlowQParams>
calculateOneFlowQParams(const OneFlowMinMaxObserverOptions &options,
                        const std::vector<float> &minVals,
                        const std::vector<float> &maxVals);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_ONEFLOW_H

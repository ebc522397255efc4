//===- Dynamic.h - PyTorch's dynamic quantization, bit for bit --*- C++ -*-===//
//
// torch.ao.nn.quantized.dynamic.Linear of PyTorch 1.13 (quantize_dynamic)
// on the two CPU engines Debian's PyTorch has, onednn and qnnpack: weights
// quantized once to s8 (symmetric, per tensor or per output row), the
// activation's qparams chosen at every call from its min and max, an exact
// int32 product, and the output dequantized to float in the engine's order
// of float operations. docs/PyTorchDynamicNumerics.md derives each formula;
// unittests/Numerics/goldens/dynamic_linear.txt holds PyTorch's outputs.
//
// Not reproduced: onednn's primitive cache, which can give a call the zero
// point of an earlier call with the same output scales (a PyTorch bug,
// section 3c of that document). Quanta computes every call as PyTorch
// computes a call that does not hit it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_DYNAMIC_H
#define QUANTA_NUMERICS_DYNAMIC_H

#include "quanta/Numerics/Status.h"

#include <cstddef>
#include <cstdint>
#include <vector>

namespace mlir::quanta::numerics {

/// PyTorch's quantized engines on CPU without FBGEMM.
enum class DynamicEngine {
  /// oneDNN (PyTorch's default here): honours the module's reduce_range, so
  /// activations use 0..127; the output is (acc + bias * s) * (1 / s).
  Onednn,
  /// QNNPACK (the ARM-style path): activations use 0..255; the output is
  /// (weight scale * input scale) * acc + bias.
  Qnnpack,
  /// ONNX Runtime's dynamic MatMul (what its quantize_dynamic writes:
  /// DynamicQuantizeLinear, MatMulInteger, Cast, Mul by input scale *
  /// weight scale, Add bias; its DynamicQuantizeMatMul kernel): float32
  /// qparams over 0..255 with the range extended to 0 (scale 1 for an
  /// all-zero input), x / scale rounded half to even, the output
  /// acc * (input scale * weight scale) + bias (no addition without one).
  Onnx,
};

/// The s8 weights of a dynamic Linear: `scales` holds one scale (per
/// tensor, default_dynamic_qconfig) or one per output row
/// (per_channel_dynamic_qconfig); zero points are 0.
struct DynamicWeights {
  std::vector<int8_t> values;
  std::vector<float> scales;
  /// Asymmetric 4-bit weights only: one zero point per scale, in the
  /// values' -8..7 (the weight is scale * (value - zero point)).
  std::vector<int8_t> zeroPoints;
};

/// Quantizes the n x k row-major weights as quantize_dynamic does: the
/// symmetric qint8 MinMaxObserver's scale (per tensor or per row), then
/// quantize_val. Errors for NaN or infinite weights.
StatusOr<DynamicWeights> quantizeDynamicWeights(const float *weights, int64_t n,
                                                int64_t k, bool perChannel);

/// How quantizeInt4Weights stores 4-bit weights.
struct Int4Format {
  /// k values per scale: positive, even (two values per byte), dividing k.
  int64_t groupSize = 32;
  /// A zero point per group (PyTorch's quint4x2 observer) instead of a
  /// symmetric scale.
  bool asymmetric = false;
  /// Scales rounded to f16 (to nearest even; half the bytes the kernels
  /// read for them), the values quantized with the rounded scale.
  bool f16Scales = false;
};

/// Quanta's 4-bit weights (PyTorch 1.13 has none): each run of
/// `groupSize` consecutive k values of an output row its own symmetric
/// scale, the largest magnitude over 7 (1 for a group of zeros), values
/// clamp(round_half_even(w / scale), -8, 7). `values` holds one value per
/// byte, n x k like the input; `scales` (k / group) x n, group-major (the
/// order the kernels read them in). Errors for NaN or infinite weights and
/// for a group size that does not divide k.
///
/// `asymmetric`: each group's scale and zero point are instead those of
/// PyTorch's MinMaxObserver(dtype=torch.quint4x2) over the group (affine
/// over 0..15, the range extended to 0, scale at least eps), its values
/// PyTorch's quantize_val to 0..15 (the MatMulNBits and GPTQ form); both
/// stored minus 8 (values and `zeroPoints` in -8..7, the weight scale *
/// (value - zero point)).
///
/// `f16Scales`: each scale rounded to f16 before the values are quantized
/// with it; one below f16's smallest subnormal (2^-24) becomes that, one
/// beyond its largest finite value is an error.
StatusOr<DynamicWeights> quantizeInt4Weights(const float *weights, int64_t n,
                                             int64_t k,
                                             const Int4Format &format);

/// `value` rounded to the nearest f16 value (ties to even), as a float:
/// infinity beyond f16's range, NaN kept.
float roundToHalf(float value);

/// int4_dynamic's activations (Quanta's; llama.cpp's Q8_0 and ONNX Runtime
/// MatMulNBits' accuracy level 4 quantize alike): the `n` values of one
/// group to s8, symmetric, `quantized[i]` = clamp(round_half_even(values[i]
/// * (127 / amax)), -127, 127) with amax the largest magnitude, each step
/// in f32. Returns the group's scale, amax / 127. A group whose 127 / amax
/// is not finite (all zeros, or amax below 127 / FLT_MAX) quantizes to
/// zeros; a NaN or infinite value gives the scale NaN (its row's outputs
/// are NaN) and values that are not used.
float quantizeInt8Group(const float *values, int64_t n, int8_t *quantized);
/// The activation qparams quantized::linear_dynamic chooses from the
/// input's min and max: ATen's ChooseQuantizationParams over 0..255, halved
/// to 0..127 by onednn. The scale stays a double, as ATen keeps it (Onnx:
/// ONNX Runtime's float32 GetQuantizationParameter, widened exactly).
struct DynamicActivationQParams {
  double scale;
  int32_t zeroPoint;
};
StatusOr<DynamicActivationQParams> chooseDynamicQParams(DynamicEngine engine,
                                                        float min, float max);

/// quantized::linear_dynamic: `input` (m x k, row-major) times the
/// transposed weights (n x k) plus `bias` (n values, or null) into `output`
/// (m x n). The input's qparams are chosen over all of it. Errors where
/// PyTorch raises (NaN, +inf) and for -inf, where onednn computes
/// infinities and NaN without an error (Onnx too: ONNX Runtime computes
/// garbage there without an error). m = 0 writes nothing.
Status dynamicLinear(DynamicEngine engine, const float *input, int64_t m,
                     int64_t k, const DynamicWeights &weights, int64_t n,
                     const float *bias, float *output);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_DYNAMIC_H

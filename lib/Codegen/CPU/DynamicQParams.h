//===- DynamicQParams.h - A dynamic Linear's run-time qparams ---*- C++ -*-===//
//
// The prologue of quanta.dynamic_qmatmul's kernel, in scalar and vector
// arithmetic: the input's min and max, ATen's ChooseQuantizationParams on
// them, and each engine's quantization of a value, so that compiled code
// computes numerics::dynamicLinear's activation bit for bit. Every op maps
// to an LLVM instruction or intrinsic (roundeven is libm's at worst): the
// objects keep needing nothing but libc and libm.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_CODEGEN_CPU_DYNAMICQPARAMS_H
#define QUANTA_LIB_CODEGEN_CPU_DYNAMICQPARAMS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/IR/Builders.h"

namespace mlir::quanta {

/// The activation qparams of one call: ATen's double `scale` (NaN where
/// PyTorch raises: NaN or infinite input) and the i32 `zeroPoint` (0
/// then).
struct DynamicActivationQParams {
  Value scale, zeroPoint;
};

/// min and max (f32, NaN if any value is) of the static, non-empty 1-D f32
/// tensor `values`, read `lanes` floats at a time: torch.aminmax.
std::pair<Value, Value> emitMinMax(OpBuilder &b, Location loc, Value values,
                                   int64_t lanes);

/// ChooseQuantizationParams(min, max, 0, qmax) as numerics::
/// chooseQuantizationParams computes it (preserve_sparsity off).
DynamicActivationQParams emitChooseQParams(OpBuilder &b, Location loc,
                                           Value min, Value max, int32_t qmax);

/// ONNX Runtime's float32 qparams over 0..255 (numerics::
/// chooseDynamicQParams for DynamicEngine::Onnx), the scale widened to f64
/// (NaN for NaN or infinite input, as emitChooseQParams).
DynamicActivationQParams emitOnnxQParams(OpBuilder &b, Location loc, Value min,
                                         Value max);

/// The engine's u8 value of the f32 `x` (as i8 bits), given the engine's
/// f32 `factor` (onednn: f32(1 / scale) and qnnpack: 1 / f32(scale), which
/// multiply; onnx: the scale, which divides, as MLAS does) and the zero
/// point as f32: onednn's reorder (x * factor + zp, clamped, rounded half
/// to even) or QNNPACK's quantize_val and MLAS's QuantizeLinear (zp +
/// round(x * factor) or zp + round(x / factor), clamped). A NaN `factor`
/// gives 0, not poison.
Value emitQuantizeActivation(OpBuilder &b, Location loc, DynamicEngine engine,
                             Value x, Value factor, Value zeroPoint);

} // namespace mlir::quanta

#endif // QUANTA_LIB_CODEGEN_CPU_DYNAMICQPARAMS_H

//===- VectorRequantize.h - The integer kernels' requantization -----------===//
//
// requantize() of the numeric library (Requantize.h) on a vector of i32
// accumulators, one multiplier and shift per lane's output column: the
// epilogue every integer kernel (the tiled GEMM of LowerQMatmul.cpp, the
// depthwise convolution of LowerQDepthwise.cpp) ends with, so that there is
// one vector form of the formula per target.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_CONVERSION_QUANTATOVECTOR_VECTORREQUANTIZE_H
#define QUANTA_LIB_CONVERSION_QUANTATOVECTOR_VECTORREQUANTIZE_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinTypes.h"

namespace mlir::quanta {

/// A constant tensor read at `column` as a `type` vector.
Value readColumns(OpBuilder &b, Location loc, Value tensor, Value column,
                  VectorType type);
/// `value` in every lane of `type`.
Value splat(OpBuilder &b, Location loc, VectorType type, int64_t value);
/// The LLVM intrinsic `name` on `args` (a quanta.intrinsic op).
Value callIntrinsic(OpBuilder &b, Location loc, StringRef name, Type type,
                    ValueRange args);

class VectorRequantizer {
public:
  /// How the vector form is computed.
  enum class Kind {
    /// In plain vector arithmetic (x86 and the generic kernels): the even
    /// and odd i32 lanes multiplied, the high words kept where every shift
    /// allows it (shiftHighHalves), since x86 shifts 64-bit lanes only
    /// with AVX-512; else in 64-bit lanes (shiftWide).
    HighHalves,
    /// AArch64: a high or long multiply, a rounding shift (srshl),
    /// saturating adds (requantizeNeon).
    Neon,
  };

  /// For the columns a kernel reads in order (padded to whole vectors of
  /// `lanes`): each column's multiplier and total right shift t = 31 -
  /// shift (padding columns: multiplier 0 and t = 33, which every path
  /// accepts); `zeroPoint` is the output's.
  VectorRequantizer(OpBuilder &b, Location loc, Kind kind, int64_t lanes,
                    ArrayRef<int32_t> multipliers,
                    ArrayRef<int32_t> totalShifts, int64_t zeroPoint);

  /// clamp-free requantize() + zero point of the `lanes` accumulators of
  /// columns `column` .. `column + lanes`, as i32 lanes within
  /// [-2^30 - |zo|, 2^30 + |zo|] (saturating like the library on NEON):
  /// beyond every output range, so that a clamp gives the library's
  /// result.
  Value requantize(Value acc, Value column);

private:
  Value shiftHighHalves(Value acc, Value column);
  Value shiftWide(Value acc, Value column);
  Value requantizeNeon(Value acc, Value column);
  Value constantTensor(ArrayRef<int32_t> values);
  Value constantTensor64(ArrayRef<int64_t> values);

  OpBuilder &b;
  Location loc;
  Kind kind;
  int64_t lanes;
  int64_t zeroPoint;
  VectorType i32Vector, i64Vector;
  Value multipliers, roundingEven, roundingOdd, roundingHigh, shifts;
  /// Every column shifts by t >= 32 (see shiftHighHalves).
  bool highHalfShifts = false;
  /// Every column shifts by t >= 33: the rounding is added to the high
  /// words (roundingHigh), and with it the output zero point where
  /// zeroPointFolded (see shiftHighHalves).
  bool roundHighWords = false, zeroPointFolded = false;
  /// Kind::Neon: srshl's shift amounts per column, -(t - 31) in i32 with
  /// neonHighWords, else -t in i64.
  Value negatedShifts;
  bool neonHighWords = false;
};

} // namespace mlir::quanta

#endif // QUANTA_LIB_CONVERSION_QUANTATOVECTOR_VECTORREQUANTIZE_H

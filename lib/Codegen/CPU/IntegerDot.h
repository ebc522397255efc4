//===- IntegerDot.h - The integer kernels' dot steps ----------------------===//
//
// How a target accumulates g products of 8-bit values per 32-bit lane:
// the step of the int8 GEMM (LowerQMatmul.cpp) and of the 4-bit weights
// with int8 activations (LowerFloatMatmul.cpp), one form per instruction.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_CODEGEN_CPU_INTEGERDOT_H
#define QUANTA_LIB_CODEGEN_CPU_INTEGERDOT_H

#include "quanta/Support/TargetDescription.h"

#include "mlir/IR/Builders.h"

namespace mlir::quanta {

enum class DotStep {
  /// vpdpbusd on zmm (AVX-512 VNNI): acc += 4 u8 x s8 products per lane,
  /// exact.
  Vnni512,
  /// vpdpbusd on ymm (AVX-VNNI or AVX-512 VNNI + VL).
  Vnni,
  /// vpmaddubsw (u8 x s8 pairs summed in saturating i16), vpmaddwd by 1,
  /// vpaddd: exact only when no pair sum leaves i16.
  MaddUbs,
  /// vpmaddwd on zero/sign-extended i16 pairs, vpaddd: exact.
  MaddWd,
  /// extend, multiply and reduce groups of 4 in vector arithmetic.
  Generic,
  /// AArch64 dotprod: sdot (s8 x s8, 4 products per lane, exact), taking
  /// its input's 4 bytes from one 32-bit lane of a 16-byte load (the
  /// by-element form), so that the vector pipes do nothing else.
  NeonDot,
  /// AArch64 i8mm: usmmla (u8 x s8) or smmla (s8 x s8): a 2 x 8 block of
  /// two input rows times an 8 x 2 block of weights into 2 x 2 i32
  /// accumulators, exact. The input is packed into row pairs first.
  NeonMmla,
  /// ARMv8.0: smull (s8 x s8 into exact i16 products) and sadalp (pairs of
  /// them added into i32), the accumulators holding 4 partial sums per
  /// column, added up after the k loop.
  NeonWiden,
};

/// `acc` (L x i32) plus, in each lane j, the products of bytes g * j ..
/// g * j + g - 1 of `lhs` and of `rhs` (L * g x i8 each), for the steps
/// that read nothing else: Vnni512, Vnni and MaddUbs (lhs unsigned, rhs
/// signed), Generic (lhs as `signedLhs` says, rhs signed) and NeonDot
/// (both signed).
Value emitDotStep(OpBuilder &b, Location loc, DotStep step, Value acc,
                  Value lhs, Value rhs, bool signedLhs);

/// The best step of an x86 `target`: vpdpbusd on zmm, then on ymm; on
/// AVX2, vpmaddubsw where `isMaddUbsExact` says its i16 pair sums cannot
/// saturate, else vpmaddwd; Generic below AVX2.
DotStep chooseX86DotStep(const TargetDescription &target,
                         function_ref<bool()> isMaddUbsExact);

} // namespace mlir::quanta

#endif // QUANTA_LIB_CODEGEN_CPU_INTEGERDOT_H

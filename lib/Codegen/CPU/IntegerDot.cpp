//===- IntegerDot.cpp - The integer kernels' dot steps --------------------===//
//
// The steps IntegerDot.h declares, each one instruction (or its portable
// vector arithmetic) per k group.
//
//===----------------------------------------------------------------------===//

#include "IntegerDot.h"
#include "VectorRequantize.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmNeon/ArmNeonDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::quanta;

Value mlir::quanta::emitDotStep(OpBuilder &b, Location loc, DotStep step,
                                Value acc, Value lhs, Value rhs,
                                bool signedLhs) {
  auto accType = cast<VectorType>(acc.getType());
  const int64_t lanes = accType.getNumElements();
  const int64_t group =
      cast<VectorType>(lhs.getType()).getNumElements() / lanes;
  switch (step) {
  case DotStep::Vnni512:
    return callIntrinsic(b, loc, "llvm.x86.avx512.vpdpbusd.512", accType,
                         {acc, lhs, rhs});
  case DotStep::Vnni:
    return callIntrinsic(b, loc, "llvm.x86.avx512.vpdpbusd.256", accType,
                         {acc, lhs, rhs});
  case DotStep::MaddUbs: {
    auto i16Vector = VectorType::get({2 * lanes}, b.getI16Type());
    Value pairs = callIntrinsic(b, loc, "llvm.x86.avx2.pmadd.ub.sw", i16Vector,
                                {lhs, rhs});
    Value ones = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(i16Vector, b.getI16IntegerAttr(1)));
    return arith::AddIOp::create(b, loc, acc,
                                 callIntrinsic(b, loc, "llvm.x86.avx2.pmadd.wd",
                                               accType, {pairs, ones}));
  }
  case DotStep::Generic: {
    auto wide = VectorType::get({lanes * group}, b.getI32Type());
    Value a = signedLhs ? arith::ExtSIOp::create(b, loc, wide, lhs).getResult()
                        : arith::ExtUIOp::create(b, loc, wide, lhs).getResult();
    Value w = arith::ExtSIOp::create(b, loc, wide, rhs);
    Value products = arith::MulIOp::create(b, loc, a, w);
    // Lane j sums products g * j .. g * j + g - 1: g strided shuffles.
    for (int64_t i = 0; i < group; ++i) {
      SmallVector<int64_t> picked;
      for (int64_t j = 0; j < lanes; ++j)
        picked.push_back(j * group + i);
      acc = arith::AddIOp::create(
          b, loc, acc,
          vector::ShuffleOp::create(b, loc, products, products, picked));
    }
    return acc;
  }
  case DotStep::NeonDot:
    return arm_neon::SdotOp::create(b, loc, accType, acc, rhs, lhs);
  case DotStep::MaddWd:
  case DotStep::NeonMmla:
  case DotStep::NeonWiden:
    break;
  }
  llvm_unreachable("a dot step that reads more than its two operands");
}

DotStep mlir::quanta::chooseX86DotStep(const TargetDescription &target,
                                       function_ref<bool()> isMaddUbsExact) {
  using F = TargetFeature;
  if (target.hasAll({F::Avx512Vnni, F::Avx512VL, F::Avx512BW}))
    return DotStep::Vnni512;
  if (target.has(F::AvxVnni) || target.hasAll({F::Avx512Vnni, F::Avx512VL}))
    return DotStep::Vnni;
  if (!target.has(F::Avx2))
    return DotStep::Generic;
  return isMaddUbsExact() ? DotStep::MaddUbs : DotStep::MaddWd;
}

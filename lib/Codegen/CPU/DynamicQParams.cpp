//===- DynamicQParams.cpp - A dynamic Linear's run-time qparams -----------===//
//
// Each function mirrors its numeric-library counterpart statement by
// statement (lib/Numerics/FakeQuant.cpp's chooseQuantizationParams,
// lib/Numerics/Dynamic.cpp's quantizeActivation): the same operations in
// the same precision, branches as selects.
//
//===----------------------------------------------------------------------===//

#include "DynamicQParams.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

#include <limits>

using namespace mlir;
using namespace mlir::quanta;

std::pair<Value, Value> mlir::quanta::emitMinMax(OpBuilder &b, Location loc,
                                                 Value values, int64_t lanes) {
  const int64_t size = cast<RankedTensorType>(values.getType()).getDimSize(0);
  assert(size > 0 && "the min and max of nothing");
  auto vectorType = VectorType::get({lanes}, b.getF32Type());
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  // Four independent pairs of accumulators hide minimumf's latency. The
  // first value starts them and pads the tail: neutral for both.
  constexpr int64_t kAccumulators = 4;
  Value first = tensor::ExtractOp::create(b, loc, values, index(0));
  Value start = vector::BroadcastOp::create(b, loc, vectorType, first);
  SmallVector<Value> init(2 * kAccumulators, start);
  const int64_t chunk = kAccumulators * lanes, whole = size / chunk * chunk;
  auto read = [&](OpBuilder &nb, Value at, bool inBounds) -> Value {
    return vector::TransferReadOp::create(nb, loc, vectorType, values, at,
                                          first, ArrayRef<bool>{inBounds});
  };
  auto combine = [&](OpBuilder &nb, SmallVectorImpl<Value> &acc, int64_t i,
                     Value v) {
    acc[i] = arith::MinimumFOp::create(nb, loc, acc[i], v);
    acc[kAccumulators + i] =
        arith::MaximumFOp::create(nb, loc, acc[kAccumulators + i], v);
  };
  SmallVector<Value> acc = init;
  if (whole > 0) {
    auto loop = scf::ForOp::create(
        b, loc, index(0), index(whole), index(chunk), init,
        [&](OpBuilder &nb, Location, Value at, ValueRange args) {
          SmallVector<Value> next(args);
          for (int64_t i = 0; i < kAccumulators; ++i)
            combine(nb, next, i,
                    read(nb,
                         arith::AddIOp::create(nb, loc, at,
                                               arith::ConstantIndexOp::create(
                                                   nb, loc, i * lanes)),
                         /*inBounds=*/true));
          scf::YieldOp::create(nb, loc, next);
        });
    acc.assign(loop.getResults().begin(), loop.getResults().end());
  }
  for (int64_t at = whole, i = 0; at < size; at += lanes, ++i)
    combine(b, acc, i, read(b, index(at), /*inBounds=*/at + lanes <= size));
  auto reduce = [&](ArrayRef<Value> parts, bool isMin) -> Value {
    Value total = parts[0];
    for (Value part : parts.drop_front())
      total = isMin
                  ? arith::MinimumFOp::create(b, loc, total, part).getResult()
                  : arith::MaximumFOp::create(b, loc, total, part).getResult();
    return vector::ReductionOp::create(b, loc,
                                       isMin ? vector::CombiningKind::MINIMUMF
                                             : vector::CombiningKind::MAXIMUMF,
                                       total);
  };
  ArrayRef<Value> parts(acc);
  return {reduce(parts.take_front(kAccumulators), true),
          reduce(parts.drop_front(kAccumulators), false)};
}

DynamicActivationQParams mlir::quanta::emitChooseQParams(OpBuilder &b,
                                                         Location loc,
                                                         Value min, Value max,
                                                         int32_t qmax) {
  Type f32 = b.getF32Type(), f64 = b.getF64Type();
  auto c32 = [&](float value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  };
  auto c64 = [&](double value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  };
  auto cmp = [&](arith::CmpFPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs).getResult();
  };
  auto select = [&](Value condition, Value ifTrue, Value ifFalse) {
    return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse)
        .getResult();
  };
  using P = arith::CmpFPredicate;
  const float inf = std::numeric_limits<float>::infinity();
  // ATen checks min <= max (false for NaN); an infinite bound gives an
  // infinite scale, which dynamicLinear refuses as PyTorch's kernels do.
  Value valid = arith::AndIOp::create(
      b, loc, cmp(P::OLE, min, max),
      arith::AndIOp::create(
          b, loc, cmp(P::OLT, math::AbsFOp::create(b, loc, min), c32(inf)),
          cmp(P::OLT, math::AbsFOp::create(b, loc, max), c32(inf))));
  // std::min(min, 0.0f), std::max(max, 0.0f).
  Value zero = c32(0.0f);
  Value lo = select(cmp(P::OLT, zero, min), zero, min);
  Value hi = select(cmp(P::OLT, max, zero), zero, max);
  Value scale = arith::DivFOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, hi),
                            arith::ExtFOp::create(b, loc, f64, lo)),
      c64(qmax));
  Value narrow = arith::TruncFOp::create(b, loc, f32, scale);
  Value degenerate = arith::OrIOp::create(
      b, loc, cmp(P::OEQ, narrow, zero),
      cmp(P::OEQ,
          math::AbsFOp::create(
              b, loc, arith::DivFOp::create(b, loc, c32(1.0f), narrow)),
          c32(inf)));
  scale = select(degenerate, c64(0.1), scale);
  // A finite range of width at most 2 * FLT_MAX over qmax >= 127 cannot
  // reach ATen's float overflow check.
  constexpr float kSmallScaleThreshold = 6.1e-5f;
  const float widened = kSmallScaleThreshold * static_cast<float>(qmax);
  Value small = cmp(P::OLT, scale, c64(kSmallScaleThreshold));
  Value amplifier =
      arith::DivFOp::create(b, loc, c32(kSmallScaleThreshold),
                            arith::TruncFOp::create(b, loc, f32, scale));
  Value loIsZero = cmp(P::OEQ, lo, zero), hiIsZero = cmp(P::OEQ, hi, zero);
  Value smallLo = select(loIsZero, lo,
                         select(hiIsZero, c32(-widened),
                                arith::MulFOp::create(b, loc, lo, amplifier)));
  Value smallHi = select(
      loIsZero, c32(widened),
      select(hiIsZero, hi, arith::MulFOp::create(b, loc, hi, amplifier)));
  lo = select(small, smallLo, lo);
  hi = select(small, smallHi, hi);
  scale = select(small, c64(kSmallScaleThreshold), scale);
  // The zero point from the end whose terms are smaller (qmin = 0).
  Value fromMin = arith::DivFOp::create(
      b, loc, arith::ExtFOp::create(b, loc, f64, lo), scale);
  Value fromMax = arith::DivFOp::create(
      b, loc, arith::ExtFOp::create(b, loc, f64, hi), scale);
  Value minError = arith::SubFOp::create(b, loc, c64(0.0),
                                         math::AbsFOp::create(b, loc, fromMin));
  Value maxError = arith::SubFOp::create(b, loc, c64(qmax),
                                         math::AbsFOp::create(b, loc, fromMax));
  Value initial = select(cmp(P::OLT, minError, maxError),
                         arith::SubFOp::create(b, loc, c64(0.0), fromMin),
                         arith::SubFOp::create(b, loc, c64(qmax), fromMax));
  // Invalid inputs take 0 before the conversion, which is poison for NaN.
  initial = select(valid, initial, c64(0.0));
  Value zeroPoint = select(cmp(P::OLT, initial, c64(0.0)), c64(0.0),
                           select(cmp(P::OGT, initial, c64(qmax)), c64(qmax),
                                  math::RoundEvenOp::create(b, loc, initial)));
  return {select(valid, scale, c64(std::numeric_limits<double>::quiet_NaN())),
          arith::FPToSIOp::create(b, loc, b.getI32Type(), zeroPoint)};
}

DynamicActivationQParams mlir::quanta::emitOnnxQParams(OpBuilder &b,
                                                       Location loc, Value min,
                                                       Value max) {
  auto c32 = [&](float value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  };
  auto cmp = [&](arith::CmpFPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs).getResult();
  };
  auto select = [&](Value condition, Value ifTrue, Value ifFalse) {
    return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse)
        .getResult();
  };
  using P = arith::CmpFPredicate;
  const float inf = std::numeric_limits<float>::infinity();
  Value valid = arith::AndIOp::create(
      b, loc, cmp(P::OLT, math::AbsFOp::create(b, loc, min), c32(inf)),
      cmp(P::OLT, math::AbsFOp::create(b, loc, max), c32(inf)));
  // std::min(min, 0.0f), std::max(max, 0.0f).
  Value zero = c32(0.0f);
  Value lo = select(cmp(P::OLT, zero, min), zero, min);
  Value hi = select(cmp(P::OLT, max, zero), zero, max);
  Value scale =
      select(cmp(P::OEQ, hi, lo), c32(1.0f),
             arith::DivFOp::create(
                 b, loc, arith::SubFOp::create(b, loc, hi, lo), c32(255.0f)));
  Value initial = arith::SubFOp::create(
      b, loc, zero, arith::DivFOp::create(b, loc, lo, scale));
  // Invalid inputs take 0 before the conversion, which is poison for NaN.
  initial = select(valid, initial, zero);
  Value zeroPoint = math::RoundEvenOp::create(
      b, loc,
      arith::MinNumFOp::create(b, loc,
                               arith::MaxNumFOp::create(b, loc, initial, zero),
                               c32(255.0f)));
  Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), scale);
  return {
      select(valid, wide,
             arith::ConstantOp::create(
                 b, loc,
                 b.getF64FloatAttr(std::numeric_limits<double>::quiet_NaN()))),
      arith::FPToSIOp::create(b, loc, b.getI32Type(), zeroPoint)};
}

Value mlir::quanta::emitQuantizeActivation(OpBuilder &b, Location loc,
                                           DynamicEngine engine, Value x,
                                           Value factor, Value zeroPoint) {
  auto c32 = [&](float value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  };
  Value scaled = engine == DynamicEngine::onnx
                     ? arith::DivFOp::create(b, loc, x, factor).getResult()
                     : arith::MulFOp::create(b, loc, x, factor).getResult();
  Value shifted =
      engine == DynamicEngine::onednn
          ? arith::AddFOp::create(b, loc, scaled, zeroPoint).getResult()
          : arith::AddFOp::create(b, loc, zeroPoint,
                                  math::RoundEvenOp::create(b, loc, scaled))
                .getResult();
  // maxnumf first: NaN (a NaN factor) becomes 0. For other values the
  // clamp is std::clamp's, and rounding after it (onednn, MLAS) or before
  // (QNNPACK) gives the same integer: the clamp bounds are integers.
  Value clamped = arith::MinNumFOp::create(
      b, loc, arith::MaxNumFOp::create(b, loc, shifted, c32(0.0f)),
      c32(255.0f));
  Value rounded = math::RoundEvenOp::create(b, loc, clamped);
  return arith::TruncIOp::create(
      b, loc, b.getI8Type(),
      arith::FPToSIOp::create(b, loc, b.getI32Type(), rounded));
}

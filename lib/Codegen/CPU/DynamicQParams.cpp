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

namespace {
/// The scalar arith the qparams formulas are written in, at one place.
struct Scalars {
  OpBuilder &b;
  Location loc;

  Value f32(float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }
  Value f64(double value) {
    return arith::ConstantOp::create(b, loc, b.getF64FloatAttr(value));
  }
  Value cmp(arith::CmpFPredicate predicate, Value lhs, Value rhs) {
    return arith::CmpFOp::create(b, loc, predicate, lhs, rhs);
  }
  Value select(Value condition, Value ifTrue, Value ifFalse) {
    return arith::SelectOp::create(b, loc, condition, ifTrue, ifFalse);
  }
  /// Whether |value| < inf (false for NaN).
  Value isFinite(Value value) {
    return cmp(arith::CmpFPredicate::OLT, math::AbsFOp::create(b, loc, value),
               f32(std::numeric_limits<float>::infinity()));
  }
  /// std::min(min, 0.0f), std::max(max, 0.0f): the range extended to 0.
  std::pair<Value, Value> withZero(Value min, Value max) {
    Value zero = f32(0.0f);
    return {select(cmp(arith::CmpFPredicate::OLT, zero, min), zero, min),
            select(cmp(arith::CmpFPredicate::OLT, max, zero), zero, max)};
  }
};
} // namespace

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
  Scalars c{b, loc};
  using P = arith::CmpFPredicate;
  const float inf = std::numeric_limits<float>::infinity();
  // ATen checks min <= max (false for NaN); an infinite bound gives an
  // infinite scale, which dynamicLinear refuses as PyTorch's kernels do.
  Value valid = arith::AndIOp::create(
      b, loc, c.cmp(P::OLE, min, max),
      arith::AndIOp::create(b, loc, c.isFinite(min), c.isFinite(max)));
  auto [lo, hi] = c.withZero(min, max);
  Value zero = c.f32(0.0f);
  Value scale = arith::DivFOp::create(
      b, loc,
      arith::SubFOp::create(b, loc, arith::ExtFOp::create(b, loc, f64, hi),
                            arith::ExtFOp::create(b, loc, f64, lo)),
      c.f64(qmax));
  Value narrow = arith::TruncFOp::create(b, loc, f32, scale);
  Value degenerate = arith::OrIOp::create(
      b, loc, c.cmp(P::OEQ, narrow, zero),
      c.cmp(P::OEQ,
            math::AbsFOp::create(
                b, loc, arith::DivFOp::create(b, loc, c.f32(1.0f), narrow)),
            c.f32(inf)));
  scale = c.select(degenerate, c.f64(0.1), scale);
  // A finite range of width at most 2 * FLT_MAX over qmax >= 127 cannot
  // reach ATen's float overflow check.
  constexpr float kSmallScaleThreshold = 6.1e-5f;
  const float widened = kSmallScaleThreshold * static_cast<float>(qmax);
  Value small = c.cmp(P::OLT, scale, c.f64(kSmallScaleThreshold));
  Value amplifier =
      arith::DivFOp::create(b, loc, c.f32(kSmallScaleThreshold),
                            arith::TruncFOp::create(b, loc, f32, scale));
  Value loIsZero = c.cmp(P::OEQ, lo, zero), hiIsZero = c.cmp(P::OEQ, hi, zero);
  Value smallLo =
      c.select(loIsZero, lo,
               c.select(hiIsZero, c.f32(-widened),
                        arith::MulFOp::create(b, loc, lo, amplifier)));
  Value smallHi = c.select(
      loIsZero, c.f32(widened),
      c.select(hiIsZero, hi, arith::MulFOp::create(b, loc, hi, amplifier)));
  lo = c.select(small, smallLo, lo);
  hi = c.select(small, smallHi, hi);
  scale = c.select(small, c.f64(kSmallScaleThreshold), scale);
  // The zero point from the end whose terms are smaller (qmin = 0).
  Value fromMin = arith::DivFOp::create(
      b, loc, arith::ExtFOp::create(b, loc, f64, lo), scale);
  Value fromMax = arith::DivFOp::create(
      b, loc, arith::ExtFOp::create(b, loc, f64, hi), scale);
  Value minError = arith::SubFOp::create(b, loc, c.f64(0.0),
                                         math::AbsFOp::create(b, loc, fromMin));
  Value maxError = arith::SubFOp::create(b, loc, c.f64(qmax),
                                         math::AbsFOp::create(b, loc, fromMax));
  Value initial = c.select(c.cmp(P::OLT, minError, maxError),
                           arith::SubFOp::create(b, loc, c.f64(0.0), fromMin),
                           arith::SubFOp::create(b, loc, c.f64(qmax), fromMax));
  // Invalid inputs take 0 before the conversion, which is poison for NaN.
  initial = c.select(valid, initial, c.f64(0.0));
  Value zeroPoint =
      c.select(c.cmp(P::OLT, initial, c.f64(0.0)), c.f64(0.0),
               c.select(c.cmp(P::OGT, initial, c.f64(qmax)), c.f64(qmax),
                        math::RoundEvenOp::create(b, loc, initial)));
  return {
      c.select(valid, scale, c.f64(std::numeric_limits<double>::quiet_NaN())),
      arith::FPToSIOp::create(b, loc, b.getI32Type(), zeroPoint)};
}

DynamicActivationQParams mlir::quanta::emitOnnxQParams(OpBuilder &b,
                                                       Location loc, Value min,
                                                       Value max) {
  Scalars c{b, loc};
  using P = arith::CmpFPredicate;
  Value valid = arith::AndIOp::create(b, loc, c.isFinite(min), c.isFinite(max));
  auto [lo, hi] = c.withZero(min, max);
  Value zero = c.f32(0.0f);
  Value scale = c.select(
      c.cmp(P::OEQ, hi, lo), c.f32(1.0f),
      arith::DivFOp::create(b, loc, arith::SubFOp::create(b, loc, hi, lo),
                            c.f32(255.0f)));
  Value initial = arith::SubFOp::create(
      b, loc, zero, arith::DivFOp::create(b, loc, lo, scale));
  // Invalid inputs take 0 before the conversion, which is poison for NaN.
  initial = c.select(valid, initial, zero);
  Value zeroPoint = math::RoundEvenOp::create(
      b, loc,
      arith::MinNumFOp::create(b, loc,
                               arith::MaxNumFOp::create(b, loc, initial, zero),
                               c.f32(255.0f)));
  Value wide = arith::ExtFOp::create(b, loc, b.getF64Type(), scale);
  return {
      c.select(valid, wide, c.f64(std::numeric_limits<double>::quiet_NaN())),
      arith::FPToSIOp::create(b, loc, b.getI32Type(), zeroPoint)};
}

Value mlir::quanta::emitQuantizeActivation(OpBuilder &b, Location loc,
                                           DynamicEngine engine, Value x,
                                           Value factor, Value zeroPoint) {
  Scalars c{b, loc};
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
      b, loc, arith::MaxNumFOp::create(b, loc, shifted, c.f32(0.0f)),
      c.f32(255.0f));
  Value rounded = math::RoundEvenOp::create(b, loc, clamped);
  return arith::TruncIOp::create(
      b, loc, b.getI8Type(),
      arith::FPToSIOp::create(b, loc, b.getI32Type(), rounded));
}

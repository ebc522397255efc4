//===- LowerFakeQuant.cpp - quanta.fake_quant to linalg -------------------===//
//
// Reproduces ATen's CPU fake-quant kernels (fake_quantize_per_tensor_affine,
// fake_quantize_per_channel_affine) operation by operation:
//
//   inv_scale = 1.0f / scale                      (float32, at compile time)
//   t = float(zero_point) + nearbyint(x * inv_scale)   (float32)
//   q = clamp(int64(t), quant_min, quant_max)
//   out = float((double(q) - zero_point) * double(scale))
//
// and for float zero points t = nearbyint(fma(x, inv_scale, zero_point)).
// When the bounds and every (q - zero_point) are exact in float32 the last
// line is computed in float32, which rounds the exact product once, as the
// double computation does; otherwise (qint32 ranges, float zero points) it
// is computed in f64. numerics::fakeQuantizePerTensorAffine is the scalar
// reference the execution tests compare with.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/IR/PatternMatch.h"

#include <cmath>

namespace mlir::quanta {
#define GEN_PASS_DEF_LOWERFAKEQUANT
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

namespace {

/// The per-tensor or per-channel constants the kernel needs, in the types
/// the arithmetic uses.
struct FakeQuantConstants {
  SmallVector<float> inverseScale;
  SmallVector<float> zeroPoint;
  SmallVector<float> scale;
  SmallVector<double> scaleF64;
  SmallVector<double> zeroPointF64;
};

class FakeQuantLowering {
public:
  FakeQuantLowering(FakeQuantOp op, OpBuilder &builder)
      : op(op), builder(builder), loc(op.getLoc()), f32(builder.getF32Type()),
        f64(builder.getF64Type()) {}

  LogicalResult run();

private:
  Value buildBody(OpBuilder &b, Value x, ValueRange params);
  Value constantF32(OpBuilder &b, float value) {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  }

  FakeQuantOp op;
  OpBuilder &builder;
  Location loc;
  FloatType f32, f64;
  int64_t quantMin = 0, quantMax = 0;
  bool floatZeroPoint = false;
  bool useF64 = false;
};

} // namespace

Value FakeQuantLowering::buildBody(OpBuilder &b, Value x, ValueRange params) {
  Value inverseScale = params[0], zeroPoint = params[1], scale = params[2];
  // Integer zero point: float(zp) + nearbyint(x * inv_scale). Float zero
  // point: nearbyint(zp + x * inv_scale), which PyTorch's AVX2 build
  // contracts into one fused multiply-add.
  Value shifted;
  if (floatZeroPoint)
    shifted = math::RoundEvenOp::create(
        b, loc, math::FmaOp::create(b, loc, x, inverseScale, zeroPoint));
  else
    shifted = arith::AddFOp::create(
        b, loc, zeroPoint,
        math::RoundEvenOp::create(
            b, loc, arith::MulFOp::create(b, loc, x, inverseScale)));
  // ATen truncates to int64 with cvttss2si: NaN and |t| >= 2^63 become
  // INT64_MIN, which its clamp turns into quant_min (even for +inf).
  auto bound = [&](double value) {
    return constantF32(b, static_cast<float>(value));
  };
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, shifted,
                            bound(-9223372036854775808.0)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, shifted,
                            bound(9223372036854775808.0)));
  FloatType type = useF64 ? f64 : f32;
  Value value =
      useF64 ? Value(arith::ExtFOp::create(b, loc, f64, shifted)) : shifted;
  auto constant = [&](int64_t v) -> Value {
    return arith::ConstantOp::create(
        b, loc, b.getFloatAttr(type, static_cast<double>(v)));
  };
  // std::fmin/fmax promote to double; with exact bounds and a product of at
  // most 50 significant bits, float32 gives the same single rounding.
  Value clamped = arith::MinNumFOp::create(
      b, loc, arith::MaxNumFOp::create(b, loc, value, constant(quantMin)),
      constant(quantMax));
  clamped =
      arith::SelectOp::create(b, loc, inRange, clamped, constant(quantMin));
  Value wideZeroPoint = useF64 ? params[3] : zeroPoint;
  Value wideScale = useF64 ? params[4] : scale;
  Value result = arith::MulFOp::create(
      b, loc, arith::SubFOp::create(b, loc, clamped, wideZeroPoint), wideScale);
  return useF64 ? Value(arith::TruncFOp::create(b, loc, f32, result)) : result;
}

LogicalResult FakeQuantLowering::run() {
  Value input = op.getInput();
  if (!op.getFakeQuantEnabled()) {
    op.replaceAllUsesWith(input);
    op.erase();
    return success();
  }
  if (!op.hasKnownQParams())
    return op.emitOpError("has no known qparams to lower with: calibrate or "
                          "set 'scale' and 'zero_point'");
  // The verifier guarantees a range on the op or a module to take it from.
  if (FakeQuantizeAttr module = op.getFakeQuantizeAttr()) {
    numerics::QRange range = module.getQRange();
    quantMin = range.quantMin;
    quantMax = range.quantMax;
  } else {
    quantMin = *op.getQuantMin();
    quantMax = *op.getQuantMax();
  }
  floatZeroPoint = static_cast<bool>(op.getFloatZeroPointAttr());

  SmallVector<double> zeroPoints =
      floatZeroPoint
          ? llvm::map_to_vector(op.getFloatZeroPointAttr().asArrayRef(),
                                [](float v) { return static_cast<double>(v); })
          : llvm::map_to_vector(
                op.getZeroPointAttr().asArrayRef(),
                [](int64_t v) { return static_cast<double>(v); });
  constexpr double exactInF32 = double(int64_t(1) << 24);
  // A float zero point makes q - zero_point inexact in float32.
  useF64 = floatZeroPoint ||
           std::abs(static_cast<double>(quantMin)) > exactInF32 ||
           std::abs(static_cast<double>(quantMax)) > exactInF32;
  FakeQuantConstants constants;
  for (auto [scale, zeroPoint] :
       llvm::zip_equal(op.getScaleAttr().asArrayRef(), zeroPoints)) {
    constants.inverseScale.push_back(1.0f / scale);
    constants.zeroPoint.push_back(static_cast<float>(zeroPoint));
    constants.scale.push_back(scale);
    constants.scaleF64.push_back(scale);
    constants.zeroPointF64.push_back(zeroPoint);
    useF64 |= std::abs(zeroPoint) > exactInF32 ||
              std::abs(quantMax - zeroPoint) > exactInF32 ||
              std::abs(quantMin - zeroPoint) > exactInF32;
  }

  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  std::optional<int64_t> axis = op.getAxis();
  if (axis && *axis < 0)
    *axis += rank;

  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {builder.getMultiDimIdentityMap(rank)};
  SmallVector<Value> scalarParams;
  auto addParam = [&](auto values, FloatType elementType) {
    using T = typename decltype(values)::value_type;
    if (!axis) {
      scalarParams.push_back(arith::ConstantOp::create(
          builder, loc, builder.getFloatAttr(elementType, values.front())));
      return;
    }
    auto paramType = RankedTensorType::get(
        {static_cast<int64_t>(values.size())}, elementType);
    inputs.push_back(arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(paramType, ArrayRef<T>(values))));
    maps.push_back(AffineMap::get(rank, 0, builder.getAffineDimExpr(*axis)));
  };
  addParam(constants.inverseScale, f32);
  addParam(constants.zeroPoint, f32);
  addParam(constants.scale, f32);
  if (useF64) {
    addParam(constants.zeroPointF64, f64);
    addParam(constants.scaleF64, f64);
  }
  maps.push_back(builder.getMultiDimIdentityMap(rank));

  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, input);
  Value init = tensor::EmptyOp::create(builder, loc, sizes, f32);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, type, inputs, ValueRange{init}, maps, iterators,
      [&](OpBuilder &b, Location, ValueRange args) {
        SmallVector<Value> params =
            axis ? SmallVector<Value>(args.slice(1, inputs.size() - 1))
                 : scalarParams;
        linalg::YieldOp::create(b, loc, buildBody(b, args[0], params));
      });
  op.replaceAllUsesWith(generic.getResult(0));
  op.erase();
  return success();
}

LogicalResult quanta::lowerFakeQuantOps(Operation *root) {
  SmallVector<FakeQuantOp> ops;
  root->walk([&](FakeQuantOp op) { ops.push_back(op); });
  for (FakeQuantOp op : ops) {
    OpBuilder builder(op);
    if (failed(FakeQuantLowering(op, builder).run()))
      return failure();
  }
  return success();
}

namespace {
struct LowerFakeQuantPass
    : public quanta::impl::LowerFakeQuantBase<LowerFakeQuantPass> {
  void runOnOperation() override {
    if (failed(lowerFakeQuantOps(getOperation())))
      signalPassFailure();
  }
};
} // namespace

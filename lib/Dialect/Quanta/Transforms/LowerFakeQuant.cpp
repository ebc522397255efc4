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

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Transforms/WalkPatternRewriteDriver.h"

#include <cmath>

namespace mlir::quanta {
#define GEN_PASS_DEF_LOWERFAKEQUANT
#define GEN_PASS_DEF_LOWERQUANTCASTS
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

namespace {

/// Quantization parameters of one fake-quant, quantize or dequantize.
struct QuantKernelParams {
  SmallVector<float> scale;
  /// Integer zero points, or float ones (per_channel_affine_float_qparams).
  SmallVector<double> zeroPoint;
  bool floatZeroPoint = false;
  int64_t quantMin = 0;
  int64_t quantMax = 0;
  /// The channel axis of per-channel parameters (normalized).
  std::optional<int64_t> axis;
};

/// Emits the linalg.generic of ATen's quantization kernels:
///   quantize:   q = clamp(int64(float(zp) + nearbyint(x * (1.0f / scale))))
///   dequantize: x = float((double(q) - zp) * double(scale))
///   fake quant: dequantize(quantize(x)), without the storage conversion.
class QuantKernelBuilder {
public:
  enum class Kind { FakeQuant, Quantize, Dequantize };

  QuantKernelBuilder(OpBuilder &builder, Location loc,
                     const QuantKernelParams &params);

  /// `input` is float32 for FakeQuant/Quantize and integer storage for
  /// Dequantize; `storage` is the integer element type of Quantize's result
  /// and Dequantize's input, `isSigned` its signedness.
  Value build(Value input, Kind kind, IntegerType storage = {},
              bool isSigned = true);

private:
  Value quantizeToFloat(OpBuilder &b, Value x, ValueRange params);
  Value dequantizeFromFloat(OpBuilder &b, Value clamped, ValueRange params);
  Value constant(OpBuilder &b, FloatType type, double value) {
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  }

  OpBuilder &builder;
  Location loc;
  const QuantKernelParams &params;
  FloatType f32, f64;
  /// Whether the clamp and dequantization need double precision.
  bool useF64 = false;
};

} // namespace

QuantKernelBuilder::QuantKernelBuilder(OpBuilder &builder, Location loc,
                                       const QuantKernelParams &params)
    : builder(builder), loc(loc), params(params), f32(builder.getF32Type()),
      f64(builder.getF64Type()) {
  constexpr double exactInF32 = double(int64_t(1) << 24);
  // A float zero point makes q - zero_point inexact in float32.
  useF64 = params.floatZeroPoint ||
           std::abs(static_cast<double>(params.quantMin)) > exactInF32 ||
           std::abs(static_cast<double>(params.quantMax)) > exactInF32;
  for (double zeroPoint : params.zeroPoint)
    useF64 |= std::abs(zeroPoint) > exactInF32 ||
              std::abs(params.quantMax - zeroPoint) > exactInF32 ||
              std::abs(params.quantMin - zeroPoint) > exactInF32;
}

/// The clamped quantized value, still a float (f64 when useF64).
Value QuantKernelBuilder::quantizeToFloat(OpBuilder &b, Value x, ValueRange p) {
  Value inverseScale = p[0], zeroPoint = p[1];
  // Integer zero point: float(zp) + nearbyint(x * inv_scale). Float zero
  // point: nearbyint(zp + x * inv_scale), which PyTorch's AVX2 build
  // contracts into one fused multiply-add.
  Value shifted;
  if (params.floatZeroPoint)
    shifted = math::RoundEvenOp::create(
        b, loc, math::FmaOp::create(b, loc, x, inverseScale, zeroPoint));
  else
    shifted = arith::AddFOp::create(
        b, loc, zeroPoint,
        math::RoundEvenOp::create(
            b, loc, arith::MulFOp::create(b, loc, x, inverseScale)));
  // ATen truncates to int64 with cvttss2si: NaN and |t| >= 2^63 become
  // INT64_MIN, which its clamp turns into quant_min (even for +inf).
  Value inRange = arith::AndIOp::create(
      b, loc,
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, shifted,
                            constant(b, f32, -9223372036854775808.0)),
      arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLT, shifted,
                            constant(b, f32, 9223372036854775808.0)));
  FloatType type = useF64 ? f64 : f32;
  Value value =
      useF64 ? Value(arith::ExtFOp::create(b, loc, f64, shifted)) : shifted;
  // std::fmin/fmax promote to double; with exact bounds float32 gives the
  // same result.
  Value quantMin = constant(b, type, static_cast<double>(params.quantMin));
  Value clamped = arith::MinNumFOp::create(
      b, loc, arith::MaxNumFOp::create(b, loc, value, quantMin),
      constant(b, type, static_cast<double>(params.quantMax)));
  return arith::SelectOp::create(b, loc, inRange, clamped, quantMin);
}

/// (q - zero_point) * scale, rounded once to float32: a product of at most
/// 50 significant bits is exact in double, so float32 arithmetic rounds the
/// same way where useF64 is false.
Value QuantKernelBuilder::dequantizeFromFloat(OpBuilder &b, Value clamped,
                                              ValueRange p) {
  Value zeroPoint = useF64 ? p[3] : p[1];
  Value scale = useF64 ? p[4] : p[2];
  Value result = arith::MulFOp::create(
      b, loc, arith::SubFOp::create(b, loc, clamped, zeroPoint), scale);
  return useF64 ? Value(arith::TruncFOp::create(b, loc, f32, result)) : result;
}

Value QuantKernelBuilder::build(Value input, Kind kind, IntegerType storage,
                                bool isSigned) {
  auto type = cast<RankedTensorType>(input.getType());
  int64_t rank = type.getRank();
  std::optional<int64_t> axis = params.axis;

  SmallVector<Value> inputs = {input};
  SmallVector<AffineMap> maps = {builder.getMultiDimIdentityMap(rank)};
  SmallVector<Value> scalarParams;
  auto addParam = [&](FloatType elementType, auto valueOf) {
    SmallVector<Attribute> values;
    for (size_t i = 0; i < params.scale.size(); ++i)
      values.push_back(builder.getFloatAttr(elementType, valueOf(i)));
    if (!axis) {
      scalarParams.push_back(arith::ConstantOp::create(
          builder, loc, cast<TypedAttr>(values.front())));
      return;
    }
    auto paramType = RankedTensorType::get(
        {static_cast<int64_t>(values.size())}, elementType);
    inputs.push_back(arith::ConstantOp::create(
        builder, loc, DenseElementsAttr::get(paramType, values)));
    maps.push_back(AffineMap::get(rank, 0, builder.getAffineDimExpr(*axis)));
  };
  addParam(f32, [&](size_t i) { return 1.0f / params.scale[i]; });
  addParam(f32, [&](size_t i) { return float(params.zeroPoint[i]); });
  addParam(f32, [&](size_t i) { return params.scale[i]; });
  if (useF64) {
    addParam(f64, [&](size_t i) { return params.zeroPoint[i]; });
    addParam(f64, [&](size_t i) { return double(params.scale[i]); });
  }
  maps.push_back(builder.getMultiDimIdentityMap(rank));

  Type resultElement = kind == Kind::Quantize ? Type(storage) : Type(f32);
  SmallVector<OpFoldResult> sizes = tensor::getMixedSizes(builder, loc, input);
  Value init = tensor::EmptyOp::create(builder, loc, sizes, resultElement);
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      builder, loc, type.clone(resultElement), inputs, ValueRange{init}, maps,
      iterators, [&](OpBuilder &b, Location, ValueRange args) {
        SmallVector<Value> p =
            axis ? SmallVector<Value>(args.slice(1, inputs.size() - 1))
                 : scalarParams;
        Value result;
        switch (kind) {
        case Kind::FakeQuant:
          result = dequantizeFromFloat(b, quantizeToFloat(b, args[0], p), p);
          break;
        case Kind::Quantize: {
          // The value is integral and clamped to the storage range: convert
          // it as unsigned for unsigned storage, where fptosi of 128..255 to
          // i8 would be poison (and is, once LLVM optimizes).
          Value clamped = quantizeToFloat(b, args[0], p);
          result =
              isSigned
                  ? Value(arith::FPToSIOp::create(b, loc, storage, clamped))
                  : Value(arith::FPToUIOp::create(b, loc, storage, clamped));
          break;
        }
        case Kind::Dequantize: {
          FloatType wide = useF64 ? f64 : f32;
          Value asFloat =
              isSigned ? Value(arith::SIToFPOp::create(b, loc, wide, args[0]))
                       : Value(arith::UIToFPOp::create(b, loc, wide, args[0]));
          result = dequantizeFromFloat(b, asFloat, p);
          break;
        }
        }
        linalg::YieldOp::create(b, loc, result);
      });
  return generic.getResult(0);
}

/// The kernel parameters of quanta.fake_quant `op`, which has known
/// qparams.
static QuantKernelParams getFakeQuantParams(FakeQuantOp op) {
  QuantKernelParams params;
  // The verifier guarantees a range on the op or a module to take it from.
  if (FakeQuantizeAttr module = op.getFakeQuantizeAttr()) {
    numerics::QRange range = module.getQRange();
    params.quantMin = range.quantMin;
    params.quantMax = range.quantMax;
  } else {
    params.quantMin = *op.getQuantMin();
    params.quantMax = *op.getQuantMax();
  }
  params.scale.assign(op.getScaleAttr().asArrayRef().begin(),
                      op.getScaleAttr().asArrayRef().end());
  params.floatZeroPoint = static_cast<bool>(op.getFloatZeroPointAttr());
  if (params.floatZeroPoint)
    for (float zeroPoint : op.getFloatZeroPointAttr().asArrayRef())
      params.zeroPoint.push_back(zeroPoint);
  else
    for (int64_t zeroPoint : op.getZeroPointAttr().asArrayRef())
      params.zeroPoint.push_back(static_cast<double>(zeroPoint));
  if (std::optional<int64_t> axis = op.getAxis())
    params.axis = *axis < 0 ? *axis + op.getType().getRank() : *axis;
  return params;
}

/// What walkAndApplyPatterns leaves of a lowerable op: one in a block that
/// cannot be reached, which the driver skips.
static constexpr StringLiteral kUnreachable =
    "is in an unreachable block, which the lowering does not visit";

static constexpr StringLiteral kNoQParams =
    "has no known qparams to lower with: calibrate or set 'scale' and "
    "'zero_point'";

/// The kernel parameters of a !quant.uniform (per tensor or per axis)
/// element type; its storage range is the clamp range.
static std::optional<QuantKernelParams>
getQuantKernelParams(quant::QuantizedType type) {
  QuantKernelParams params;
  params.quantMin = type.getStorageTypeMin();
  params.quantMax = type.getStorageTypeMax();
  if (auto uniform = dyn_cast<quant::UniformQuantizedType>(type)) {
    params.scale.push_back(static_cast<float>(uniform.getScale()));
    params.zeroPoint.push_back(static_cast<double>(uniform.getZeroPoint()));
    return params;
  }
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    for (double scale : perAxis.getScales())
      params.scale.push_back(static_cast<float>(scale));
    for (int64_t zeroPoint : perAxis.getZeroPoints())
      params.zeroPoint.push_back(static_cast<double>(zeroPoint));
    params.axis = perAxis.getQuantizedDimension();
    return params;
  }
  return std::nullopt;
}

/// Why quant cast `op` cannot be lowered; empty when it can.
static std::string whyNotLowerable(Operation *op) {
  auto element = cast<quant::QuantizedType>(
      cast<RankedTensorType>((isa<quant::QuantizeCastOp>(op)
                                  ? op->getResult(0)
                                  : op->getOperand(0))
                                 .getType())
          .getElementType());
  std::string reason;
  llvm::raw_string_ostream os(reason);
  if (!getQuantKernelParams(element))
    os << "has a quantized type this lowering does not support: '" << element
       << "'";
  else if (!element.getExpressedType().isF32())
    os << "lowers float32 values only, got '" << element.getExpressedType()
       << "'";
  return reason;
}

namespace {
/// quanta.fake_quant to ATen's fake-quant arithmetic (a linalg.generic); a
/// disabled one to its input.
struct LowerFakeQuantPattern : public OpRewritePattern<FakeQuantOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(FakeQuantOp op,
                                PatternRewriter &rewriter) const override {
    if (!op.getFakeQuantEnabled()) {
      rewriter.replaceOp(op, op.getInput());
      return success();
    }
    if (!op.hasKnownQParams())
      return rewriter.notifyMatchFailure(op, kNoQParams);
    QuantKernelParams params = getFakeQuantParams(op);
    Value result =
        QuantKernelBuilder(rewriter, op.getLoc(), params)
            .build(op.getInput(), QuantKernelBuilder::Kind::FakeQuant);
    rewriter.replaceOp(op, result);
    return success();
  }
};

/// quant.qcast and quant.dcast of float32 to ATen's quantize and dequantize
/// arithmetic on the storage integers, between quant.scast casts.
template <typename CastOp>
struct LowerQuantCastPattern : public OpRewritePattern<CastOp> {
  using OpRewritePattern<CastOp>::OpRewritePattern;
  LogicalResult matchAndRewrite(CastOp op,
                                PatternRewriter &rewriter) const override {
    if (std::string reason = whyNotLowerable(op); !reason.empty())
      return rewriter.notifyMatchFailure(op, reason);
    constexpr bool isQuantize = std::is_same_v<CastOp, quant::QuantizeCastOp>;
    auto quantizedType = cast<RankedTensorType>(
        (isQuantize ? op->getResult(0) : op->getOperand(0)).getType());
    auto element = cast<quant::QuantizedType>(quantizedType.getElementType());
    Location loc = op->getLoc();
    auto storage = cast<IntegerType>(element.getStorageType());
    // The builder keeps a reference to the parameters.
    QuantKernelParams params = *getQuantKernelParams(element);
    QuantKernelBuilder kernel(rewriter, loc, params);
    Value replacement;
    if constexpr (isQuantize) {
      Value stored =
          kernel.build(op->getOperand(0), QuantKernelBuilder::Kind::Quantize,
                       storage, element.isSigned());
      replacement =
          quant::StorageCastOp::create(rewriter, loc, quantizedType, stored);
    } else {
      Value stored = quant::StorageCastOp::create(
          rewriter, loc, quantizedType.clone(storage), op->getOperand(0));
      replacement = kernel.build(stored, QuantKernelBuilder::Kind::Dequantize,
                                 storage, element.isSigned());
    }
    rewriter.replaceOp(op, replacement);
    return success();
  }
};
} // namespace

void quanta::populateLowerFakeQuantPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerFakeQuantPattern>(patterns.getContext());
}

void quanta::populateLowerQuantCastsPatterns(RewritePatternSet &patterns) {
  patterns.add<LowerQuantCastPattern<quant::QuantizeCastOp>,
               LowerQuantCastPattern<quant::DequantizeCastOp>>(
      patterns.getContext());
}

LogicalResult quanta::lowerFakeQuantOps(Operation *root) {
  RewritePatternSet patterns(root->getContext());
  populateLowerFakeQuantPatterns(patterns);
  walkAndApplyPatterns(root, std::move(patterns));
  // What the pattern left has no qparams.
  WalkResult left = root->walk([](FakeQuantOp op) {
    op.emitOpError(op.hasKnownQParams() ? kUnreachable : kNoQParams);
    return WalkResult::interrupt();
  });
  return failure(left.wasInterrupted());
}

namespace {
struct LowerFakeQuantPass
    : public quanta::impl::LowerFakeQuantBase<LowerFakeQuantPass> {
  void runOnOperation() override {
    if (failed(lowerFakeQuantOps(getOperation())))
      signalPassFailure();
  }
};

struct LowerQuantCastsPass
    : public quanta::impl::LowerQuantCastsBase<LowerQuantCastsPass> {
  void runOnOperation() override {
    RewritePatternSet patterns(&getContext());
    populateLowerQuantCastsPatterns(patterns);
    walkAndApplyPatterns(getOperation(), std::move(patterns));
    // Each cast the patterns left, with the reason they gave.
    WalkResult left = getOperation().walk([](Operation *op) {
      if (!isa<quant::QuantizeCastOp, quant::DequantizeCastOp>(op))
        return WalkResult::advance();
      std::string reason = whyNotLowerable(op);
      op->emitOpError(reason.empty() ? kUnreachable.str() : reason);
      return WalkResult::interrupt();
    });
    if (left.wasInterrupted())
      signalPassFailure();
  }
};
} // namespace

//===- FreezeQParams.cpp - Observers to quant.qcast/quant.dcast -----------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"
#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Numerics/FakeQuant.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_FREEZEQPARAMS
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// What an observer or fake-quant freezes into.
struct FrozenQParams {
  DType dtype;
  numerics::QRange range;
  numerics::QParams qparams;
  /// The normalized channel axis of per-channel qparams.
  std::optional<int64_t> axis;
};
} // namespace

/// The !quant.uniform type of `frozen` for values of `type`.
static Type getQuantizedType(RankedTensorType type,
                             const FrozenQParams &frozen) {
  MLIRContext *context = type.getContext();
  bool isSigned = frozen.dtype == DType::qint8 || frozen.dtype == DType::qint32;
  unsigned width = frozen.dtype == DType::qint32     ? 32
                   : frozen.dtype == DType::quint4x2 ? 4
                                                     : 8;
  Type storage = IntegerType::get(context, width);
  unsigned flags = isSigned ? quant::QuantizationFlags::Signed : 0;
  Type expressed = type.getElementType();
  Type element;
  if (frozen.axis) {
    SmallVector<double> scales(frozen.qparams.scale.begin(),
                               frozen.qparams.scale.end());
    element = quant::UniformQuantizedPerAxisType::get(
        flags, storage, expressed, scales, frozen.qparams.zeroPoint,
        static_cast<int32_t>(*frozen.axis), frozen.range.quantMin,
        frozen.range.quantMax);
  } else {
    element = quant::UniformQuantizedType::get(
        flags, storage, expressed, frozen.qparams.scale.front(),
        frozen.qparams.zeroPoint.front(), frozen.range.quantMin,
        frozen.range.quantMax);
  }
  return type.clone(element);
}

/// Replaces `op` (an observer or fake-quant of `input`) by the q/dq pair or,
/// for float zero points, a quanta.fake_quant with known qparams.
static void rewriteFrozen(Operation *op, Value input,
                          const FrozenQParams &frozen) {
  OpBuilder builder(op);
  Location loc = op->getLoc();
  auto type = cast<RankedTensorType>(input.getType());
  Value replacement;
  if (!frozen.qparams.floatZeroPoint.empty()) {
    auto fakeQuant = FakeQuantOp::create(builder, loc, type, input);
    fakeQuant.setScaleAttr(builder.getDenseF32ArrayAttr(frozen.qparams.scale));
    fakeQuant.setFloatZeroPointAttr(
        builder.getDenseF32ArrayAttr(frozen.qparams.floatZeroPoint));
    fakeQuant.setQuantMinAttr(builder.getI64IntegerAttr(frozen.range.quantMin));
    fakeQuant.setQuantMaxAttr(builder.getI64IntegerAttr(frozen.range.quantMax));
    fakeQuant.setAxisAttr(builder.getI64IntegerAttr(*frozen.axis));
    replacement = fakeQuant;
  } else {
    Type quantized = getQuantizedType(type, frozen);
    Value q = quant::QuantizeCastOp::create(builder, loc, quantized, input);
    replacement = quant::DequantizeCastOp::create(builder, loc, type, q);
  }
  op->getResult(0).replaceAllUsesWith(replacement);
  op->erase();
}

/// The qparams of an observer with statistics (or fixed qparams).
static FailureOr<FrozenQParams> freezeObserver(ObserveOp op) {
  ObserverAttrInterface observer = op.getObserver();
  std::optional<std::pair<DType, numerics::QRange>> dtypeAndRange =
      getObserverDTypeAndRange(observer);
  if (!dtypeAndRange)
    return op.emitOpError("cannot freeze ")
           << observer.getPyTorchClassName()
           << " into quantization parameters (only observers that compute "
              "qparams, and OneFlow's is not supported yet)";
  FailureOr<numerics::QParams> qparams =
      computeQParams(op.getLoc(), observer, op.getStatsAttr());
  if (failed(qparams))
    return failure();
  FrozenQParams frozen{dtypeAndRange->first, dtypeAndRange->second,
                       std::move(*qparams), std::nullopt};
  if (observer.isPerChannel()) {
    int64_t rank = cast<RankedTensorType>(op.getType()).getRank();
    int64_t axis = observer.getChannelAxis();
    frozen.axis = axis < 0 ? axis + rank : axis;
  }
  return frozen;
}

/// The qparams of a fake-quant: known ones, or those its module computes
/// from the statistics of its observer (FakeQuantize.calculate_qparams, or
/// ChooseQuantizationParams for the fused module).
static FailureOr<FrozenQParams> freezeFakeQuant(FakeQuantOp op) {
  FakeQuantizeAttr module = op.getFakeQuantizeAttr();
  numerics::QRange range =
      module ? module.getQRange()
             : numerics::QRange{static_cast<int64_t>(*op.getQuantMin()),
                                static_cast<int64_t>(*op.getQuantMax())};
  DType dtype = range.quantMin < 0 ? DType::qint8 : DType::quint8;
  if (module && module.getObserver())
    if (std::optional<std::pair<DType, numerics::QRange>> observerDType =
            getObserverDTypeAndRange(module.getObserver()))
      dtype = observerDType->first;
  if (range.quantMin < -128 || range.quantMax > 255)
    dtype = DType::qint32;
  FrozenQParams frozen{dtype, range, {}, std::nullopt};
  if (std::optional<int64_t> axis = op.getAxis()) {
    int64_t rank = op.getType().getRank();
    frozen.axis = *axis < 0 ? *axis + rank : *axis;
  }
  if (op.hasKnownQParams()) {
    frozen.qparams.scale = std::vector<float>(op.getScaleAttr().asArrayRef());
    if (op.getZeroPointAttr())
      frozen.qparams.zeroPoint =
          std::vector<int64_t>(op.getZeroPointAttr().asArrayRef());
    else
      frozen.qparams.floatZeroPoint =
          std::vector<float>(op.getFloatZeroPointAttr().asArrayRef());
    return frozen;
  }
  if (!op.getStatsAttr())
    return op.emitOpError("has neither known qparams nor statistics to "
                          "compute them: calibrate first");
  ObserverAttrInterface observer = module.getObserver();
  if (!module.getFused()) {
    observer = module.getObserverOrDefault();
    FailureOr<numerics::QParams> qparams =
        computeQParams(op.getLoc(), observer, op.getStatsAttr());
    if (failed(qparams))
      return failure();
    frozen.qparams = std::move(*qparams);
    return frozen;
  }
  // torch.fused_moving_avg_obs_fake_quant: ChooseQuantizationParams per
  // tensor or per row, symmetric for the symmetric qschemes.
  bool symmetric = false;
  if (auto perTensor =
          dyn_cast_or_null<MovingAverageMinMaxObserverAttr>(observer))
    symmetric = perTensor.getQscheme() == QScheme::per_tensor_symmetric;
  if (auto perChannel =
          dyn_cast_or_null<MovingAveragePerChannelMinMaxObserverAttr>(observer))
    symmetric = perChannel.getQscheme() == QScheme::per_channel_symmetric;
  auto stats = cast<MinMaxStatsAttr>(op.getStatsAttr());
  for (auto [min, max] : llvm::zip_equal(stats.getMin().asArrayRef(),
                                         stats.getMax().asArrayRef())) {
    numerics::StatusOr<numerics::ChosenQParams> chosen =
        numerics::chooseQuantizationParams(
            min, max, static_cast<int32_t>(range.quantMin),
            static_cast<int32_t>(range.quantMax), symmetric);
    if (!chosen.ok())
      return op.emitOpError() << chosen.getStatus().getMessage();
    frozen.qparams.scale.push_back(static_cast<float>(chosen->scale));
    frozen.qparams.zeroPoint.push_back(chosen->zeroPoint);
  }
  return frozen;
}

namespace {
struct FreezeQParamsPass
    : public quanta::impl::FreezeQParamsBase<FreezeQParamsPass> {
  void runOnOperation() override;
};
} // namespace

void FreezeQParamsPass::runOnOperation() {
  // Compute everything first: the function is only rewritten when every
  // observer can be frozen.
  SmallVector<std::pair<Operation *, FrozenQParams>> frozenOps;
  DenseMap<Operation *, size_t> frozenIndex;
  SmallVector<ObserveOp> reusing, floatOnly;
  WalkResult walk = getOperation().walk([&](Operation *op) {
    FailureOr<FrozenQParams> frozen = failure();
    if (auto observe = dyn_cast<ObserveOp>(op)) {
      ObserverAttrInterface observer = observe.getObserver();
      if (isa<ReuseInputObserverAttr>(observer)) {
        reusing.push_back(observe);
        return WalkResult::advance();
      }
      if (isa<PlaceholderObserverAttr, NoopObserverAttr, RecordingObserverAttr>(
              observer)) {
        floatOnly.push_back(observe);
        return WalkResult::advance();
      }
      frozen = freezeObserver(observe);
    } else if (auto fakeQuant = dyn_cast<FakeQuantOp>(op)) {
      if (!fakeQuant.getFakeQuantEnabled()) {
        frozenOps.emplace_back(op, FrozenQParams{});
        return WalkResult::advance();
      }
      frozen = freezeFakeQuant(fakeQuant);
    } else {
      return WalkResult::advance();
    }
    if (failed(frozen))
      return WalkResult::interrupt();
    frozenIndex[op] = frozenOps.size();
    frozenOps.emplace_back(op, std::move(*frozen));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();

  for (ObserveOp op : reusing) {
    ObserveOp source = findReusedObserver(op);
    if (!source) {
      op.emitOpError("reuses its input's observer, but no observer precedes "
                     "it through shape-only ops");
      return signalPassFailure();
    }
    auto it = frozenIndex.find(source);
    if (it == frozenIndex.end()) {
      floatOnly.push_back(op); // The source stays float: so does this one.
      continue;
    }
    FrozenQParams frozen = frozenOps[it->second].second;
    if (frozen.axis && op.getType() != source.getType()) {
      op.emitOpError("cannot reuse per-channel qparams through an op that "
                     "changes the shape");
      return signalPassFailure();
    }
    frozenOps.emplace_back(op, std::move(frozen));
  }

  for (auto &[op, frozen] : frozenOps) {
    Value input = op->getOperand(0);
    if (auto fakeQuant = dyn_cast<FakeQuantOp>(op);
        fakeQuant && !fakeQuant.getFakeQuantEnabled()) {
      op->getResult(0).replaceAllUsesWith(input);
      op->erase();
      continue;
    }
    rewriteFrozen(op, input, frozen);
  }
  for (ObserveOp op : floatOnly) {
    op.replaceAllUsesWith(op.getInput());
    op.erase();
  }
}

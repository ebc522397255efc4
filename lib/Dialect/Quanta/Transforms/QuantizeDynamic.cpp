//===- QuantizeDynamic.cpp - PyTorch's quantize_dynamic for Linear --------===//
//
// quanta-quantize-dynamic: each f32 Linear layer (a linalg.matmul with
// constant weights, its bias in the accumulator or added after it) becomes
// one quanta.dynamic_qmatmul, its weights quantized here by the numeric
// library as quantize_dynamic quantizes them. The kernel chooses the
// activation's qparams at run time (LowerQMatmul.cpp).
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Dialect/Quanta/Transforms/QConfigPresets.h"
#include "quanta/Numerics/Dynamic.h"
#include "quanta/Support/MatmulLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_QUANTIZEDYNAMIC
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::detail;
namespace nx = mlir::quanta::numerics;

namespace {
/// A Linear layer: out = input x weights + bias, as the importers write
/// it.
struct LinearChain {
  linalg::MatmulOp matmul;
  DenseElementsAttr weights;
  /// [N, K] instead of [K, N].
  bool transposedWeights = false;
  /// N values, or none.
  SmallVector<float> bias;
  /// After the matmul: an expand_shape keeping N last, then the bias add;
  /// or the bias add alone. Null where absent.
  tensor::ExpandShapeOp expand;
  linalg::GenericOp biasAdd;
};
} // namespace

/// The N bias values of a broadcast along dimension `dim` of an output of
/// rank `rank` (N in its last dimension), or nothing if it is no such
/// bias.
static std::optional<SmallVector<float>>
getBiasValues(std::pair<DenseElementsAttr, int64_t> broadcast, int64_t rank,
              int64_t n) {
  auto [attr, dim] = broadcast;
  if (dim != kScalarBias && dim != rank - 1)
    return std::nullopt;
  auto values = llvm::to_vector(attr.getValues<float>());
  if (values.size() == 1)
    return SmallVector<float>(n, values[0]);
  if (static_cast<int64_t>(values.size()) != n)
    return std::nullopt;
  return values;
}

/// The bias add reading `value` (its only use), if any: `value` +
/// broadcast(bias) along the last dimension.
static std::optional<std::pair<linalg::GenericOp, SmallVector<float>>>
matchFollowingBiasAdd(Value value, int64_t n) {
  if (!value.hasOneUse())
    return std::nullopt;
  auto generic = dyn_cast<linalg::GenericOp>(*value.getUsers().begin());
  if (!generic)
    return std::nullopt;
  auto add = matchBiasAdd(generic);
  if (!add)
    return std::nullopt;
  auto [attr, dim, other] = *add;
  if (generic.getDpsInputOperand(other)->get() != value)
    return std::nullopt;
  std::optional<SmallVector<float>> bias = getBiasValues(
      {attr, dim}, cast<ShapedType>(value.getType()).getRank(), n);
  if (!bias)
    return std::nullopt;
  return std::make_pair(generic, *bias);
}

static std::optional<LinearChain> matchLinear(linalg::MatmulOp matmul) {
  std::optional<MatmulWeightLayout> layout = getMatmulWeightLayout(matmul);
  auto lhsType = dyn_cast<RankedTensorType>(matmul.getInputs()[0].getType());
  auto outputType = dyn_cast<RankedTensorType>(matmul.getResult(0).getType());
  if (!layout || !lhsType || !outputType || !lhsType.hasStaticShape() ||
      !outputType.hasStaticShape() || !lhsType.getElementType().isF32() ||
      !outputType.getElementType().isF32())
    return std::nullopt;
  LinearChain chain;
  chain.matmul = matmul;
  chain.weights = getFloatConstant(matmul.getInputs()[1]);
  chain.transposedWeights = layout->transposed;
  if (!chain.weights || matchPattern(matmul.getInputs()[0], m_Constant()))
    return std::nullopt;
  const int64_t n = outputType.getDimSize(1);
  auto init = matchCoreInit(matmul.getOutputs()[0]);
  if (failed(init))
    return std::nullopt;
  if (*init) {
    std::optional<SmallVector<float>> bias = getBiasValues(**init, 2, n);
    if (!bias)
      return std::nullopt;
    chain.bias = *bias;
    return chain;
  }
  Value result = matmul.getResult(0);
  if (auto add = matchFollowingBiasAdd(result, n)) {
    std::tie(chain.biasAdd, chain.bias) = *add;
    return chain;
  }
  // ONNX's MatMul of a [B, S, K] input: collapsed, multiplied, expanded,
  // then Add.
  if (!result.hasOneUse())
    return chain;
  auto expand = dyn_cast<tensor::ExpandShapeOp>(*result.getUsers().begin());
  if (!expand || expand.getReassociationIndices().back() !=
                     ReassociationIndices{expand.getResultType().getRank() - 1})
    return chain;
  if (auto add = matchFollowingBiasAdd(expand.getResult(), n)) {
    chain.expand = expand;
    std::tie(chain.biasAdd, chain.bias) = *add;
  }
  return chain;
}

namespace {
struct QuantizeDynamicPass
    : public quanta::impl::QuantizeDynamicBase<QuantizeDynamicPass> {
  using QuantizeDynamicBase::QuantizeDynamicBase;

  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// What a Linear becomes.
  enum class Scheme {
    /// quanta.dynamic_qmatmul, weights per tensor (default_dynamic) or per
    /// output column (per_channel_dynamic).
    PerTensor,
    PerChannel,
    /// quanta.weight_only_matmul with f16 weights (float16_dynamic).
    Float16,
    /// quanta.weight_only_matmul with bf16 weights (weight_only_bf16,
    /// Quanta's), and with bf16 activations too (bf16_dot).
    BFloat16,
    BFloat16Dot,
    /// quanta.weight_only_matmul with per-column symmetric i8 weights
    /// (weight_only_int8, Quanta's).
    WeightOnlyInt8,
    /// quanta.weight_only_matmul with i4 weights, a scale per group of
    /// `group-size` k values (weight_only_int4, Quanta's), and with the
    /// activations quantized per group to s8 at run time (int4_dynamic).
    WeightOnlyInt4,
    Int4Dynamic,
  };
  /// The scheme a qconfig name or attribute stands for; null for "none"
  /// and for a qconfig that is no dynamic one.
  std::optional<Scheme> getScheme(MLIRContext *context, StringRef name);
  std::optional<Scheme> getScheme(QConfigAttr qconfig);
  /// The scheme of `op`, null if it stays float.
  FailureOr<std::optional<Scheme>> getSchemeFor(Operation *op);
  void rewrite(LinearChain chain, Scheme scheme);

  DynamicEngine dynamicEngine = DynamicEngine::onednn;
  Scheme defaultScheme = Scheme::PerTensor;
  QConfigAttr perTensorPreset, perChannelPreset, float16Preset;
};
} // namespace

/// Quanta's own schemes, which PyTorch 1.13 has no qconfig for.
static constexpr StringLiteral kWeightOnlyInt8 = "weight_only_int8",
                               kWeightOnlyInt4 = "weight_only_int4",
                               kWeightOnlyBf16 = "weight_only_bf16",
                               kBf16Dot = "bf16_dot",
                               kInt4Dynamic = "int4_dynamic";

std::optional<QuantizeDynamicPass::Scheme>
QuantizeDynamicPass::getScheme(QConfigAttr qconfig) {
  if (qconfig && qconfig == perTensorPreset)
    return Scheme::PerTensor;
  if (qconfig && qconfig == perChannelPreset)
    return Scheme::PerChannel;
  if (qconfig && qconfig == float16Preset)
    return Scheme::Float16;
  return std::nullopt;
}

std::optional<QuantizeDynamicPass::Scheme>
QuantizeDynamicPass::getScheme(MLIRContext *context, StringRef name) {
  if (name == kWeightOnlyInt8)
    return Scheme::WeightOnlyInt8;
  if (name == kWeightOnlyInt4)
    return Scheme::WeightOnlyInt4;
  if (name == kInt4Dynamic)
    return Scheme::Int4Dynamic;
  if (name == kWeightOnlyBf16)
    return Scheme::BFloat16;
  if (name == kBf16Dot)
    return Scheme::BFloat16Dot;
  return getScheme(getQConfigPreset(context, name));
}

LogicalResult QuantizeDynamicPass::initialize(MLIRContext *context) {
  std::optional<DynamicEngine> parsed = symbolizeDynamicEngine(engine);
  if (!parsed)
    return emitError(UnknownLoc::get(context))
           << "quanta-quantize-dynamic: unknown engine '" << engine
           << "' (expected onednn, qnnpack or onnx)";
  dynamicEngine = *parsed;
  perTensorPreset = getQConfigPreset(context, "default_dynamic");
  perChannelPreset = getQConfigPreset(context, "per_channel_dynamic");
  float16Preset = getQConfigPreset(context, "float16_dynamic");
  std::optional<Scheme> scheme = getScheme(context, qconfig);
  if (!scheme)
    return emitError(UnknownLoc::get(context))
           << "quanta-quantize-dynamic: qconfig '" << qconfig
           << "' is no dynamic qconfig (expected default_dynamic, "
              "per_channel_dynamic, float16_dynamic, "
           << kWeightOnlyBf16 << ", " << kBf16Dot << ", " << kWeightOnlyInt8
           << ", " << kWeightOnlyInt4 << " or " << kInt4Dynamic << ")";
  if (groupSize <= 0 || groupSize % 2 != 0)
    return emitError(UnknownLoc::get(context))
           << "quanta-quantize-dynamic: group-size must be positive and even "
              "(4-bit weights are stored two per byte), got "
           << static_cast<int64_t>(groupSize);
  defaultScheme = *scheme;
  return success();
}

FailureOr<std::optional<QuantizeDynamicPass::Scheme>>
QuantizeDynamicPass::getSchemeFor(Operation *op) {
  using Result = std::optional<Scheme>;
  Attribute attr = op->getAttr("quanta.qconfig");
  if (!attr)
    return Result(defaultScheme);
  std::optional<Scheme> scheme;
  if (auto name = dyn_cast<StringAttr>(attr)) {
    if (name.getValue() == "none")
      return Result();
    scheme = getScheme(op->getContext(), name.getValue());
  } else if (auto qconfigAttr = dyn_cast<QConfigAttr>(attr)) {
    scheme = getScheme(qconfigAttr);
  }
  if (scheme)
    return Result(scheme);
  return op->emitOpError("'quanta.qconfig' must be 'none', "
                         "'default_dynamic', 'per_channel_dynamic', "
                         "'float16_dynamic', '")
         << kWeightOnlyBf16 << "', '" << kBf16Dot << "', '" << kWeightOnlyInt8
         << "', '" << kWeightOnlyInt4 << "' or '" << kInt4Dynamic
         << "' for quanta-quantize-dynamic, got " << attr;
}

/// The weights rounded to a 16-bit float type (`type`: f16 or bf16),
/// clamped to its largest finite value first (f16: +-65504, as PyTorch's
/// fp16 prepack clamps, with a warning; here a remark at `op`), then
/// rounded to nearest even (subnormals kept, NaN kept). K x N row-major,
/// like `rows`' transpose.
static DenseElementsAttr toNarrowFloatWeights(Operation *op,
                                              ArrayRef<float> rows, int64_t k,
                                              int64_t n, FloatType type) {
  const llvm::fltSemantics &semantics = type.getFloatSemantics();
  APFloat largest = APFloat::getLargest(semantics);
  SmallString<16> printedMax;
  largest.toString(printedMax);
  bool lost;
  largest.convert(APFloat::IEEEsingle(), APFloat::rmNearestTiesToEven, &lost);
  const float max = largest.convertToFloat();
  SmallVector<APFloat> values(k * n, APFloat::getZero(semantics));
  int64_t clamped = 0;
  for (int64_t col = 0; col < n; ++col)
    for (int64_t i = 0; i < k; ++i) {
      float value = rows[col * k + i];
      if (std::abs(value) > max) {
        value = std::copysign(max, value);
        ++clamped;
      }
      APFloat narrow(value);
      narrow.convert(semantics, APFloat::rmNearestTiesToEven, &lost);
      values[i * n + col] = narrow;
    }
  if (clamped)
    op->emitRemark() << clamped << " weights outside the "
                     << (type.isF16() ? "f16" : "bf16")
                     << " range clamped to +-" << printedMax
                     << (type.isF16() ? ", as PyTorch's fp16 prepack clamps "
                                        "them"
                                      : "");
  return DenseElementsAttr::get(RankedTensorType::get({k, n}, type), values);
}

void QuantizeDynamicPass::rewrite(LinearChain chain, Scheme scheme) {
  linalg::MatmulOp matmul = chain.matmul;
  auto inputType = cast<RankedTensorType>(matmul.getInputs()[0].getType());
  auto outputType = cast<RankedTensorType>(matmul.getResult(0).getType());
  const int64_t k = inputType.getDimSize(1), n = outputType.getDimSize(1);
  // The n x k rows quantize_dynamic quantizes (nn.Linear's weight).
  auto values = llvm::to_vector(chain.weights.getValues<float>());
  std::vector<float> rows(n * k);
  for (int64_t col = 0; col < n; ++col)
    for (int64_t i = 0; i < k; ++i)
      rows[col * k + i] =
          chain.transposedWeights ? values[col * k + i] : values[i * n + col];
  Operation *last =
      chain.biasAdd ? chain.biasAdd.getOperation() : matmul.getOperation();
  OpBuilder b(last);
  Location loc = matmul.getLoc();
  DenseF32ArrayAttr bias = chain.bias.empty()
                               ? DenseF32ArrayAttr()
                               : b.getDenseF32ArrayAttr(chain.bias);
  Value result;
  if (scheme == Scheme::Float16 || scheme == Scheme::BFloat16 ||
      scheme == Scheme::BFloat16Dot) {
    FloatType type = scheme == Scheme::Float16 ? FloatType(b.getF16Type())
                                               : FloatType(b.getBF16Type());
    result = WeightOnlyMatmulOp::create(
        b, loc, outputType, matmul.getInputs()[0],
        toNarrowFloatWeights(matmul, rows, k, n, type), DenseF32ArrayAttr(),
        bias, IntegerAttr(),
        scheme == Scheme::BFloat16Dot ? b.getUnitAttr() : UnitAttr(),
        UnitAttr(), DenseI8ArrayAttr(), UnitAttr());
  } else if (scheme == Scheme::WeightOnlyInt4 ||
             scheme == Scheme::Int4Dynamic) {
    if (scheme == Scheme::Int4Dynamic &&
        (groupSize % 8 != 0 || groupSize > 16384)) {
      matmul.emitRemark("stays float: ")
          << kInt4Dynamic << " needs a group size that is a multiple of 8 "
          << "(the integer steps sum runs of 8 k values) and at most 16384 "
          << "(each group's sum exact in f32), got "
          << static_cast<int64_t>(groupSize);
      return;
    }
    nx::StatusOr<nx::DynamicWeights> quantized = nx::quantizeInt4Weights(
        rows.data(), n, k,
        nx::Int4Format{groupSize, int4Asymmetric, int4F16Scales});
    if (!quantized) {
      matmul.emitRemark("stays float: ") << quantized.getStatus().getMessage();
      return;
    }
    SmallVector<APInt> weights(k * n, APInt(4, 0));
    for (int64_t col = 0; col < n; ++col)
      for (int64_t i = 0; i < k; ++i)
        weights[i * n + col] =
            APInt(4, quantized->values[col * k + i], /*isSigned=*/true);
    result = WeightOnlyMatmulOp::create(
        b, loc, outputType, matmul.getInputs()[0],
        DenseElementsAttr::get(
            RankedTensorType::get({k, n}, b.getIntegerType(4)), weights),
        b.getDenseF32ArrayAttr(quantized->scales), bias,
        b.getI64IntegerAttr(groupSize), UnitAttr(),
        scheme == Scheme::Int4Dynamic ? b.getUnitAttr() : UnitAttr(),
        quantized->zeroPoints.empty()
            ? DenseI8ArrayAttr()
            : b.getDenseI8ArrayAttr(quantized->zeroPoints),
        int4F16Scales ? b.getUnitAttr() : UnitAttr());
  } else {
    nx::StatusOr<nx::DynamicWeights> quantized = nx::quantizeDynamicWeights(
        rows.data(), n, k, scheme != Scheme::PerTensor);
    if (!quantized) {
      matmul.emitRemark("stays float: ") << quantized.getStatus().getMessage();
      return;
    }
    SmallVector<int8_t> weights(k * n);
    for (int64_t col = 0; col < n; ++col)
      for (int64_t i = 0; i < k; ++i)
        weights[i * n + col] = quantized->values[col * k + i];
    auto weightsAttr = DenseElementsAttr::get(
        RankedTensorType::get({k, n}, b.getI8Type()), ArrayRef(weights));
    DenseF32ArrayAttr scales = b.getDenseF32ArrayAttr(quantized->scales);
    result = scheme == Scheme::WeightOnlyInt8
                 ? WeightOnlyMatmulOp::create(
                       b, loc, outputType, matmul.getInputs()[0], weightsAttr,
                       scales, bias, IntegerAttr(), UnitAttr(), UnitAttr(),
                       DenseI8ArrayAttr(), UnitAttr())
                       .getResult()
                 : DynamicQMatmulOp::create(
                       b, loc, outputType, matmul.getInputs()[0], weightsAttr,
                       scales, bias,
                       DynamicEngineAttr::get(b.getContext(), dynamicEngine),
                       DenseI32ArrayAttr(), DenseI64ArrayAttr())
                       .getResult();
  }
  if (chain.expand)
    result = tensor::ExpandShapeOp::create(
        b, loc, chain.expand.getResultType(), result,
        chain.expand.getReassociationIndices());
  last->getResult(0).replaceAllUsesWith(result);
  // The chain, last op first, then what only it read (the float weights,
  // the bias, the accumulator's fill), so that no float copy of the
  // weights is left for later passes to carry.
  // (The chain's own ops read each other: they are erased here, never
  // visited after.)
  const SmallVector<Operation *> chainOps = {chain.biasAdd.getOperation(),
                                             chain.expand.getOperation(),
                                             matmul.getOperation()};
  llvm::SetVector<Operation *> operandOps;
  for (Operation *op : chainOps) {
    if (!op)
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp();
          producer && !llvm::is_contained(chainOps, producer))
        operandOps.insert(producer);
    op->erase();
  }
  while (!operandOps.empty()) {
    Operation *op = operandOps.pop_back_val();
    if (!isOpTriviallyDead(op))
      continue;
    for (Value operand : op->getOperands())
      if (Operation *producer = operand.getDefiningOp())
        operandOps.insert(producer);
    op->erase();
  }
}

void QuantizeDynamicPass::runOnOperation() {
  SmallVector<linalg::MatmulOp> matmuls;
  getOperation()->walk([&](linalg::MatmulOp op) { matmuls.push_back(op); });
  bool anyInt4 = false;
  for (linalg::MatmulOp matmul : matmuls) {
    FailureOr<std::optional<Scheme>> scheme = getSchemeFor(matmul);
    if (failed(scheme))
      return signalPassFailure();
    if (!*scheme)
      continue;
    anyInt4 |=
        **scheme == Scheme::WeightOnlyInt4 || **scheme == Scheme::Int4Dynamic;
    if (std::optional<LinearChain> chain = matchLinear(matmul))
      rewrite(*chain, **scheme);
  }
  // The 4-bit options shape no other scheme: said, not silently ignored.
  if ((int4Asymmetric || int4F16Scales) && !anyInt4)
    getOperation()->emitWarning()
        << "quanta-quantize-dynamic: int4-asymmetric and int4-f16-scales "
           "apply to weight_only_int4 and int4_dynamic layers; none here "
           "(qconfig="
        << qconfig << ")";
}

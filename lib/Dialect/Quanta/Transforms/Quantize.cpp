//===- Quantize.cpp - Float ops between dq/q pairs to integer ops ---------===//
//
// quanta-quantize: rewrites
//
//   quant.dcast(input) x quant.dcast(quant.qcast(constant weights))
//     -> linalg.matmul [+ bias] [-> relu / relu6 / clamp] -> quant.qcast
//
// into one quanta.qmatmul whose integer constants (s8 weights, column
// offsets, requantization multipliers, output range) come from the numeric
// library's prepareIntegerGemm, the same code the reference kernels and the
// Python binding use. Anything else stays float between its dq/q pairs,
// with a remark saying why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Numerics/IntegerKernels.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/IR/Matchers.h"

#include <optional>

namespace mlir::quanta {
#define GEN_PASS_DEF_QUANTIZE
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;
namespace nx = mlir::quanta::numerics;

namespace {
/// A float matmul chain that quanta.qmatmul can replace.
struct GemmChain {
  linalg::MatmulOp matmul;
  /// The ops between the matmul and the final quant.qcast, in order.
  SmallVector<Operation *> epilogue;
  Value quantizedInput;
  quant::UniformQuantizedType inputType;
  DenseElementsAttr weights;
  quant::QuantizedType weightType;
  std::optional<DenseElementsAttr> bias;
  nx::FusedActivation activation;
};
} // namespace

/// The f32 splat or dense constant `value` is defined by.
static DenseElementsAttr getFloatConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || !attr.getElementType().isF32())
    return {};
  return attr;
}

static std::optional<float> getScalarFloat(Value value) {
  FloatAttr attr;
  if (matchPattern(value, m_Constant(&attr)) && attr.getType().isF32())
    return attr.getValue().convertToFloat();
  return std::nullopt;
}

/// The single block of `generic` if it is an elementwise 2-D op whose
/// output map is the identity.
static Block *getElementwiseBody(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() != 1 || generic.getNumLoops() != 2 ||
      generic.getNumReductionLoops() != 0 ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return nullptr;
  return generic.getBody();
}

/// The 1-D constant read by `generic`'s input `index` along the output's
/// columns ((d0, d1) -> (d1)), the broadcast of a bias.
static DenseElementsAttr getColumnBroadcast(linalg::GenericOp generic,
                                            unsigned index) {
  AffineMap map = generic.getIndexingMapsArray()[index];
  MLIRContext *context = generic.getContext();
  if (map != AffineMap::get(2, 0, getAffineDimExpr(1, context)))
    return {};
  return getFloatConstant(generic.getDpsInputOperand(index)->get());
}

/// Matches `generic` as a clamp of its only input by constants:
/// minimumf/maximumf/minnumf/maxnumf chains (TOSA's clamp and relu).
static std::optional<nx::FusedActivation>
matchClamp(linalg::GenericOp generic) {
  Block *body = getElementwiseBody(generic);
  if (!body || generic.getNumDpsInputs() != 1 ||
      !generic.getIndexingMapsArray()[0].isIdentity())
    return std::nullopt;
  nx::FusedActivation activation;
  Value current = body->getArgument(0);
  for (Operation &op : body->without_terminator()) {
    if (op.getNumOperands() != 2 || op.getOperand(0) != current)
      return std::nullopt;
    std::optional<float> bound = getScalarFloat(op.getOperand(1));
    if (!bound)
      return std::nullopt;
    if (isa<arith::MinimumFOp, arith::MinNumFOp>(op))
      activation.hi = std::min(activation.hi, *bound);
    else if (isa<arith::MaximumFOp, arith::MaxNumFOp>(op))
      activation.lo = std::max(activation.lo, *bound);
    else
      return std::nullopt;
    current = op.getResult(0);
  }
  if (body->getTerminator()->getOperand(0) != current ||
      current == body->getArgument(0))
    return std::nullopt;
  return activation;
}

/// Matches `generic` as `in + broadcast(bias)`; returns the bias and the
/// other input's index.
static std::optional<std::pair<DenseElementsAttr, unsigned>>
matchBiasAdd(linalg::GenericOp generic) {
  Block *body = getElementwiseBody(generic);
  if (!body || generic.getNumDpsInputs() != 2 ||
      !llvm::hasSingleElement(body->without_terminator()))
    return std::nullopt;
  auto add = dyn_cast<arith::AddFOp>(body->front());
  if (!add || body->getTerminator()->getOperand(0) != add.getResult() ||
      !llvm::is_contained(add->getOperands(), body->getArgument(0)) ||
      !llvm::is_contained(add->getOperands(), body->getArgument(1)))
    return std::nullopt;
  for (unsigned biasIndex : {0u, 1u}) {
    unsigned other = 1 - biasIndex;
    if (!generic.getIndexingMapsArray()[other].isIdentity())
      continue;
    if (DenseElementsAttr bias = getColumnBroadcast(generic, biasIndex))
      return std::make_pair(bias, other);
  }
  return std::nullopt;
}

/// The bias a matmul's init holds: none for a fill with 0, the constant of
/// a column broadcast (how TOSA lowers a biased matmul or convolution).
static FailureOr<std::optional<DenseElementsAttr>> matchMatmulInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    std::optional<float> value = getScalarFloat(fill.getInputs()[0]);
    if (value && *value == 0.0f)
      return std::optional<DenseElementsAttr>();
    return failure();
  }
  auto generic = init.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      !getElementwiseBody(generic) ||
      generic.getBody()->getTerminator()->getOperand(0) !=
          generic.getBody()->getArgument(0))
    return failure();
  if (DenseElementsAttr bias = getColumnBroadcast(generic, 0))
    return std::optional<DenseElementsAttr>(bias);
  return failure();
}

/// The value before a quant.dcast of an 8-bit per-tensor quantized tensor.
static FailureOr<std::pair<Value, quant::UniformQuantizedType>>
matchQuantizedActivation(Value value) {
  auto dcast = value.getDefiningOp<quant::DequantizeCastOp>();
  if (!dcast)
    return failure();
  auto type = dyn_cast<quant::UniformQuantizedType>(
      getElementTypeOrSelf(dcast.getInput().getType()));
  if (!type || type.getStorageTypeIntegralWidth() != 8 ||
      !type.getExpressedType().isF32())
    return failure();
  return std::make_pair(dcast.getInput(), type);
}

/// Why `qcast`'s input is not a matmul chain quanta.qmatmul can replace, or
/// the chain.
static FailureOr<GemmChain> matchGemmChain(quant::QuantizeCastOp qcast,
                                           std::string &whyNot) {
  GemmChain chain;
  Value current = qcast.getInput();
  auto step = [&](Value next, Operation *op) {
    chain.epilogue.insert(chain.epilogue.begin(), op);
    current = next;
  };
  if (auto generic = current.getDefiningOp<linalg::GenericOp>())
    if (std::optional<nx::FusedActivation> clamp = matchClamp(generic)) {
      chain.activation = *clamp;
      step(generic.getDpsInputOperand(0)->get(), generic);
    }
  if (auto generic = current.getDefiningOp<linalg::GenericOp>())
    if (auto biasAdd = matchBiasAdd(generic)) {
      chain.bias = biasAdd->first;
      step(generic.getDpsInputOperand(biasAdd->second)->get(), generic);
    }
  chain.matmul = current.getDefiningOp<linalg::MatmulOp>();
  if (!chain.matmul)
    return failure(); // Not a matmul: nothing to say.
  // The float values the rewrite removes must have no other user.
  SmallVector<Operation *> chainOps{chain.matmul};
  chainOps.append(chain.epilogue);
  for (Operation *op : chainOps)
    if (!op->getResult(0).hasOneUse()) {
      whyNot = "a float result of the chain has other users";
      return failure();
    }
  if (chain.matmul.hasUserDefinedMaps()) {
    whyNot = "transposed or broadcast operands are not supported yet";
    return failure();
  }
  auto input = matchQuantizedActivation(chain.matmul.getInputs()[0]);
  if (failed(input)) {
    whyNot = "the input is not dequantized from an 8-bit per-tensor type";
    return failure();
  }
  std::tie(chain.quantizedInput, chain.inputType) = *input;

  auto weightDcast =
      chain.matmul.getInputs()[1].getDefiningOp<quant::DequantizeCastOp>();
  auto weightQcast =
      weightDcast
          ? weightDcast.getInput().getDefiningOp<quant::QuantizeCastOp>()
          : quant::QuantizeCastOp();
  chain.weights =
      weightQcast ? getFloatConstant(weightQcast.getInput()) : nullptr;
  if (!chain.weights) {
    whyNot = "the weights are not a quantized float constant";
    return failure();
  }
  chain.weightType = cast<quant::QuantizedType>(
      getElementTypeOrSelf(weightQcast.getResult().getType()));
  auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(chain.weightType);
  if (!chain.weightType.isSigned() ||
      chain.weightType.getStorageTypeIntegralWidth() != 8 ||
      (perAxis && perAxis.getQuantizedDimension() != 1) ||
      (!perAxis && !isa<quant::UniformQuantizedType>(chain.weightType))) {
    whyNot = "the weights are not s8, per tensor or per output channel";
    return failure();
  }

  auto init = matchMatmulInit(chain.matmul.getOutputs()[0]);
  if (failed(init) || (*init && chain.bias)) {
    whyNot = "the accumulator does not start from zero or a bias";
    return failure();
  }
  if (*init)
    chain.bias = *init;
  return chain;
}

static nx::DType getDType(quant::QuantizedType type) {
  return type.isSigned() ? nx::DType::QInt8 : nx::DType::QUInt8;
}

/// The integer form of `chain` quantized to `outputType`, or why not.
static FailureOr<nx::IntegerGemm>
prepareGemm(const GemmChain &chain, quant::UniformQuantizedType outputType,
            SmallVectorImpl<int8_t> &weights, std::string &whyNot) {
  auto shape = cast<ShapedType>(chain.weights.getType()).getShape();
  const int64_t k = shape[0], n = shape[1];
  nx::QuantizedGemmParams params;
  params.inputType = getDType(chain.inputType);
  params.input = {static_cast<float>(chain.inputType.getScale()),
                  static_cast<int32_t>(chain.inputType.getZeroPoint())};
  params.outputType = getDType(outputType);
  params.output = {static_cast<float>(outputType.getScale()),
                   static_cast<int32_t>(outputType.getZeroPoint())};
  params.activation = chain.activation;
  if (auto perAxis =
          dyn_cast<quant::UniformQuantizedPerAxisType>(chain.weightType)) {
    for (double scale : perAxis.getScales())
      params.weight.scales.push_back(static_cast<float>(scale));
    for (int64_t zeroPoint : perAxis.getZeroPoints())
      params.weight.zeroPoints.push_back(static_cast<int32_t>(zeroPoint));
  } else {
    auto uniform = cast<quant::UniformQuantizedType>(chain.weightType);
    params.weight.scales = {static_cast<float>(uniform.getScale())};
    params.weight.zeroPoints = {static_cast<int32_t>(uniform.getZeroPoint())};
  }
  // The weights as quant.qcast stores them (PyTorch's quantize_val).
  auto values = chain.weights.getValues<float>();
  weights.reserve(k * n);
  for (int64_t index = 0; index < k * n; ++index) {
    const float value = values[index];
    if (std::isnan(value)) {
      whyNot = "the weights hold NaN";
      return failure();
    }
    const size_t ch =
        params.weight.scales.size() == 1 ? 0 : static_cast<size_t>(index % n);
    weights.push_back(static_cast<int8_t>(nx::quantizeValue(
        value, params.weight.scales[ch], params.weight.zeroPoints[ch],
        chain.weightType.getStorageTypeMin(),
        chain.weightType.getStorageTypeMax())));
  }
  std::vector<float> bias;
  if (chain.bias) {
    auto biasValues = chain.bias->getValues<float>();
    bias.assign(biasValues.begin(), biasValues.end());
  }
  nx::StatusOr<nx::IntegerGemm> gemm = nx::prepareIntegerGemm(
      params, weights.data(), k, n, bias.empty() ? nullptr : bias.data());
  if (!gemm) {
    whyNot = gemm.getStatus().getMessage();
    return failure();
  }
  // The output's storage range (u8<0:127> for reduce_range) bounds the
  // result as much as its dtype does.
  gemm->outputRange.quantMin =
      std::max(gemm->outputRange.quantMin, outputType.getStorageTypeMin());
  gemm->outputRange.quantMax =
      std::min(gemm->outputRange.quantMax, outputType.getStorageTypeMax());
  if (gemm->outputRange.quantMin > gemm->outputRange.quantMax) {
    whyNot = "the fused activation leaves no value in the output's range";
    return failure();
  }
  return std::move(*gemm);
}

static void replaceChain(quant::QuantizeCastOp qcast, GemmChain &chain,
                         const nx::IntegerGemm &gemm,
                         ArrayRef<int8_t> weights) {
  OpBuilder builder(qcast);
  MLIRContext *context = qcast.getContext();
  auto weightsType =
      RankedTensorType::get({gemm.k, gemm.n}, IntegerType::get(context, 8));
  SmallVector<int32_t> multipliers, shifts;
  for (const nx::QuantizedMultiplier &multiplier : gemm.multipliers) {
    multipliers.push_back(multiplier.multiplier);
    shifts.push_back(multiplier.shift);
  }
  std::vector<int32_t> weightZeroPoints = gemm.weightZeroPoints;
  if (llvm::all_equal(weightZeroPoints))
    weightZeroPoints.resize(1);
  auto qmatmul = QMatmulOp::create(
      builder, chain.matmul.getLoc(), qcast.getResult().getType(),
      chain.quantizedInput, DenseElementsAttr::get(weightsType, weights),
      builder.getDenseI32ArrayAttr(weightZeroPoints),
      builder.getDenseI32ArrayAttr(gemm.columnOffsets),
      builder.getDenseI32ArrayAttr(multipliers),
      builder.getDenseI32ArrayAttr(shifts),
      builder.getI32IntegerAttr(
          static_cast<int32_t>(gemm.outputRange.quantMin)),
      builder.getI32IntegerAttr(
          static_cast<int32_t>(gemm.outputRange.quantMax)));
  qcast.getResult().replaceAllUsesWith(qmatmul.getResult());
  qcast.erase();
  for (Operation *op : llvm::reverse(chain.epilogue))
    op->erase();
  chain.matmul.erase();
}

namespace {
struct QuantizePass : public quanta::impl::QuantizeBase<QuantizePass> {
  void runOnOperation() override;
};
} // namespace

void QuantizePass::runOnOperation() {
  SmallVector<quant::QuantizeCastOp> qcasts;
  getOperation()->walk([&](quant::QuantizeCastOp op) { qcasts.push_back(op); });
  llvm::SmallPtrSet<Operation *, 8> explained;
  for (quant::QuantizeCastOp qcast : qcasts) {
    std::string whyNot;
    FailureOr<GemmChain> chain = matchGemmChain(qcast, whyNot);
    auto outputType = dyn_cast<quant::UniformQuantizedType>(
        getElementTypeOrSelf(qcast.getResult().getType()));
    SmallVector<int8_t> weights;
    FailureOr<nx::IntegerGemm> gemm = failure();
    if (succeeded(chain)) {
      if (!outputType || outputType.getStorageTypeIntegralWidth() != 8)
        whyNot = "the output is not quantized to an 8-bit per-tensor type";
      else
        gemm = prepareGemm(*chain, outputType, weights, whyNot);
    }
    if (succeeded(gemm)) {
      replaceChain(qcast, *chain, *gemm, weights);
      continue;
    }
    Operation *anchor = qcast.getInput().getDefiningOp();
    if (!whyNot.empty() && anchor && explained.insert(anchor).second)
      anchor->emitRemark("stays float between dequantize and quantize: ")
          << whyNot;
  }
  // Float compute that reads dequantized values and had no integer form.
  getOperation()->walk([&](linalg::LinalgOp op) {
    bool readsDequantized = llvm::any_of(op->getOperands(), [](Value v) {
      return v.getDefiningOp<quant::DequantizeCastOp>();
    });
    if (readsDequantized && !explained.contains(op) && !isa<linalg::FillOp>(op))
      op->emitRemark("stays float between dequantize and quantize: "
                     "quanta-quantize has no integer form for '")
          << op->getName() << "' yet";
  });
}

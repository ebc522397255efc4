//===- Quantize.cpp - Float ops between dq/q pairs to integer ops ---------===//
//
// quanta-quantize: rewrites
//
//   quant.dcast(input) x quant.dcast(quant.qcast(constant weights))
//     -> core [+ bias] [-> relu / relu6 / clamp] -> quant.qcast
//
// where the core is linalg.matmul or linalg.batch_matmul (weights [K, N]
// or, as a fully connected layer's, [N, K]; a batch_matmul's broadcast
// over the batch or of batch 1: getMatmulWeightLayout) or a 2-D
// convolution (NHWC/FHWC, NHWC/HWCF, NCHW/FCHW), into one
// quanta.qmatmul: convolutions become a GEMM over the im2col matrix of the
// quantized input, which quanta.qmatmul reads in place through its window
// (NCHW inputs transposed to NHWC first, before their constant padding; a
// reshape for 1x1 NHWC kernels of stride 1), so every target needs one
// integer kernel. A depthwise convolution (NHWC with HWC or HWCM filters,
// NCHW with CHW ones) becomes quanta.qmatmul's depthwise form, whose
// column n reads channel n only (input channels repeated for a depth
// multiplier above 1). The constants (s8 weights, column offsets,
// requantization multipliers, output range) come from the numeric library's
// prepareIntegerGemm, the same code the reference kernels and the Python
// binding use. Add, mul, unary elementwise ops, max pooling and data
// movement have integer forms of their own (QuantizeElementwise.cpp), as
// do products of two activations (QuantizeProduct.cpp).
// Anything else stays float between its dq/q pairs, with a remark saying
// why.
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Numerics/IntegerKernels.h"
#include "quanta/Support/MatmulLayout.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Iterators.h"
#include "mlir/IR/Matchers.h"
#include "mlir/Interfaces/FunctionInterfaces.h"

#include <optional>

namespace mlir::quanta {
#define GEN_PASS_DEF_QUANTIZE
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::detail;
namespace nx = mlir::quanta::numerics;

namespace {
/// The float ops a GEMM over quantized values can replace.
enum class CoreKind {
  Matmul,       // [M,K] x [K,N] or [N,K]
  BatchMatmul,  // [B,M,K] x [K,N] or [N,K] (broadcast), or [1,...] of both
  ConvNhwcFhwc, // input [N,H,W,C], weights [F,KH,KW,C]
  ConvNhwcHwcf, // input [N,H,W,C], weights [KH,KW,C,F]
  ConvNchwFchw, // input [N,C,H,W], weights [F,C,KH,KW]
  // Depthwise convolutions are no GEMM: they keep their own loops.
  DepthwiseNhwcHwc,  // input [N,H,W,C], weights [KH,KW,C]
  DepthwiseNhwcHwcm, // input [N,H,W,C], weights [KH,KW,C,M],
                     // output [N,OH,OW,C,M]
  DepthwiseNchwChw,  // input [N,C,H,W], weights [C,KH,KW] (ONNX's group == C)
};

static bool isDepthwise(CoreKind kind) {
  return kind == CoreKind::DepthwiseNhwcHwc ||
         kind == CoreKind::DepthwiseNhwcHwcm ||
         kind == CoreKind::DepthwiseNchwChw;
}

/// NCHW cores run on NHWC storage: the input transposed first, the output
/// transposed back.
static bool isNchw(CoreKind kind) {
  return kind == CoreKind::ConvNchwFchw || kind == CoreKind::DepthwiseNchwChw;
}

/// A float chain quanta.qmatmul can replace.
struct GemmChain {
  linalg::LinalgOp core;
  CoreKind kind;
  /// The core's output dimension of the output channels, along which a
  /// bias broadcasts, and the weights' dimension of the same channels.
  int64_t channelDim;
  int64_t weightChannelDim;
  /// Matmuls only: the weights are [N, K] (MatmulWeightLayout).
  bool transposedWeights = false;
  /// The ops between the core and the final quant.qcast, in order.
  SmallVector<Operation *> epilogue;
  /// The quantized input, and for a matmul that reads it through a
  /// collapse (the rows of a [B, S, K] activation) that reassociation.
  Value quantizedInput;
  SmallVector<ReassociationIndices> inputCollapse;
  quant::UniformQuantizedType inputType;
  DenseElementsAttr weights;
  quant::QuantizedType weightType;
  std::optional<DenseElementsAttr> bias;
  /// The output dimension the bias of the epilogue or init broadcasts along.
  int64_t biasDim = -1;
  nx::FusedActivation activation;
  /// Convolutions only: strides and dilations (H, W), kernel size.
  SmallVector<int64_t, 2> strides, dilations;
  int64_t kernelH = 1, kernelW = 1;
};

/// The GEMM a chain computes: out[M,N] = lhs[M,K] x weights[K,N]. A
/// depthwise convolution is N such dot products of length K = KH * KW per
/// output pixel, each over its own channel.
struct GemmShape {
  int64_t m, k, n;
};
} // namespace

DenseElementsAttr quanta::detail::getFloatConstant(Value value) {
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

Block *quanta::detail::getElementwiseBody(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() != 1 || generic.getNumReductionLoops() != 0 ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return nullptr;
  return generic.getBody();
}

std::optional<std::pair<DenseElementsAttr, int64_t>>
quanta::detail::getBroadcast(linalg::LinalgOp op, unsigned index) {
  AffineMap map = op.getIndexingMapsArray()[index];
  DenseElementsAttr constant =
      getFloatConstant(op.getDpsInputOperand(index)->get());
  if (!constant || map.getNumSymbols() != 0)
    return std::nullopt;
  auto shape = cast<ShapedType>(constant.getType()).getShape();
  int64_t dim = kScalarBias;
  for (auto [result, size] : llvm::zip_equal(map.getResults(), shape)) {
    if (size == 1)
      continue;
    auto dimExpr = dyn_cast<AffineDimExpr>(result);
    if (!dimExpr || dim != kScalarBias)
      return std::nullopt;
    dim = dimExpr.getPosition();
  }
  return std::make_pair(constant, dim);
}

std::optional<nx::FusedActivation>
quanta::detail::matchClamp(linalg::GenericOp generic) {
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

std::optional<std::tuple<DenseElementsAttr, int64_t, unsigned>>
quanta::detail::matchBiasAdd(linalg::GenericOp generic) {
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
    if (auto bias = getBroadcast(generic, biasIndex))
      return std::make_tuple(bias->first, bias->second, other);
  }
  return std::nullopt;
}

FailureOr<std::optional<std::pair<DenseElementsAttr, int64_t>>>
quanta::detail::matchCoreInit(Value init) {
  if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
    std::optional<float> value = getScalarFloat(fill.getInputs()[0]);
    if (value && *value == 0.0f)
      return std::optional<std::pair<DenseElementsAttr, int64_t>>();
    return failure();
  }
  if (auto broadcast = init.getDefiningOp<linalg::BroadcastOp>()) {
    if (auto bias = getBroadcast(broadcast, 0))
      return std::optional<std::pair<DenseElementsAttr, int64_t>>(*bias);
    return failure();
  }
  auto generic = init.getDefiningOp<linalg::GenericOp>();
  if (!generic || generic.getNumDpsInputs() != 1 ||
      !getElementwiseBody(generic) ||
      generic.getBody()->getTerminator()->getOperand(0) !=
          generic.getBody()->getArgument(0))
    return failure();
  if (auto bias = getBroadcast(generic, 0))
    return std::optional<std::pair<DenseElementsAttr, int64_t>>(*bias);
  return failure();
}

/// The integers of a convolution's strides or dilations attribute.
static SmallVector<int64_t, 2> getConvAttr(DenseIntElementsAttr attr) {
  return llvm::map_to_vector<2>(
      attr.getValues<APInt>(), [](const APInt &v) { return v.getSExtValue(); });
}

/// Fills in the core fields of `chain` if `op` is one of the float ops a
/// GEMM can replace; otherwise says why not (empty if `op` is no candidate).
static LogicalResult matchCore(Operation *op, GemmChain &chain,
                               std::string &whyNot) {
  auto setConv = [&](auto conv, CoreKind kind, int64_t channelDim,
                     int64_t weightChannelDim, int64_t kernelHDim) {
    chain.core = conv;
    chain.kind = kind;
    chain.channelDim = channelDim;
    chain.weightChannelDim = weightChannelDim;
    chain.strides = getConvAttr(conv.getStrides());
    chain.dilations = getConvAttr(conv.getDilations());
    auto weights = cast<ShapedType>(conv.getInputs()[1].getType());
    chain.kernelH = weights.getDimSize(kernelHDim);
    chain.kernelW = weights.getDimSize(kernelHDim + 1);
    return success();
  };
  if (isa_and_present<linalg::MatmulOp, linalg::BatchMatmulOp>(op)) {
    std::optional<MatmulWeightLayout> layout = getMatmulWeightLayout(op);
    if (!layout) {
      whyNot = "only matmuls of the input's rows are supported: not a "
               "transposed or broadcast input, nor weights that differ per "
               "batch";
      return failure();
    }
    const bool batched = isa<linalg::BatchMatmulOp>(op);
    chain.core = cast<linalg::LinalgOp>(op);
    chain.kind = batched ? CoreKind::BatchMatmul : CoreKind::Matmul;
    chain.channelDim = batched ? 2 : 1;
    chain.weightChannelDim = layout->channelDim;
    chain.transposedWeights = layout->transposed;
    return success();
  }
  if (auto conv = dyn_cast_if_present<linalg::Conv2DNhwcFhwcOp>(op))
    return setConv(conv, CoreKind::ConvNhwcFhwc, 3, 0, 1);
  if (auto conv = dyn_cast_if_present<linalg::Conv2DNhwcHwcfOp>(op))
    return setConv(conv, CoreKind::ConvNhwcHwcf, 3, 3, 0);
  if (auto conv = dyn_cast_if_present<linalg::Conv2DNchwFchwOp>(op))
    return setConv(conv, CoreKind::ConvNchwFchw, 1, 0, 2);
  if (auto conv = dyn_cast_if_present<linalg::DepthwiseConv2DNhwcHwcOp>(op))
    return setConv(conv, CoreKind::DepthwiseNhwcHwc, 3, 2, 0);
  if (auto conv = dyn_cast_if_present<linalg::DepthwiseConv2DNhwcHwcmOp>(op))
    return setConv(conv, CoreKind::DepthwiseNhwcHwcm, 3, 2, 0);
  if (auto conv = dyn_cast_if_present<linalg::DepthwiseConv2DNchwChwOp>(op))
    return setConv(conv, CoreKind::DepthwiseNchwChw, 1, 0, 1);
  return failure();
}

/// M, K and N of the GEMM `chain` becomes.
static GemmShape getGemmShape(const GemmChain &chain) {
  auto output = cast<ShapedType>(chain.core->getResult(0).getType());
  auto weights = cast<ShapedType>(chain.weights.getType());
  if (isDepthwise(chain.kind)) {
    const int64_t k = chain.kernelH * chain.kernelW;
    const int64_t n = weights.getNumElements() / k;
    return {output.getNumElements() / n, k, n};
  }
  const int64_t n = output.getDimSize(chain.channelDim);
  const int64_t k = weights.getNumElements() / n;
  return {output.getNumElements() / n, k, n};
}

/// Where weight element (row, column) of the K x N GEMM matrix sits in the
/// core's weights: im2col orders K as (kh, kw, c) for every layout.
static int64_t getWeightIndex(const GemmChain &chain, ArrayRef<int64_t> shape,
                              int64_t row, int64_t column) {
  switch (chain.kind) {
  case CoreKind::Matmul:
  case CoreKind::BatchMatmul: // [1,] K x N or N x K
    return chain.transposedWeights ? column * shape.back() + row
                                   : row * shape.back() + column;
  case CoreKind::ConvNhwcFhwc: // [F, KH, KW, C]
    return column * shape[1] * shape[2] * shape[3] + row;
  case CoreKind::ConvNhwcHwcf: // [KH, KW, C, F]
    return row * shape[3] + column;
  case CoreKind::ConvNchwFchw: { // [F, C, KH, KW]
    const int64_t c = shape[1], kh = shape[2], kw = shape[3];
    const int64_t channel = row % c, tap = row / c;
    return ((column * c + channel) * kh + tap / kw) * kw + tap % kw;
  }
  case CoreKind::DepthwiseNhwcHwc:  // [KH, KW, C]
  case CoreKind::DepthwiseNhwcHwcm: // [KH, KW, C, M]: column = c * M + m
    return row * (shape.size() == 4 ? shape[2] * shape[3] : shape[2]) + column;
  case CoreKind::DepthwiseNchwChw: // [C, KH, KW]
    return column * shape[1] * shape[2] + row;
  }
  llvm_unreachable("unknown core kind");
}

FailureOr<std::pair<Value, quant::UniformQuantizedType>>
quanta::detail::matchQuantizedActivation(Value value) {
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

quant::UniformQuantizedType
quanta::detail::getEightBitOutputType(quant::QuantizeCastOp qcast,
                                      std::string &whyNot) {
  auto type = dyn_cast<quant::UniformQuantizedType>(
      getElementTypeOrSelf(qcast.getResult().getType()));
  if (type && type.getStorageTypeIntegralWidth() == 8 &&
      type.getExpressedType().isF32())
    return type;
  whyNot = "the output is not quantized to an 8-bit per-tensor type";
  return {};
}

/// Why `qcast`'s input is not a chain quanta.qmatmul can replace, or the
/// chain.
// One walk up the chain from the quantize to the GEMM, in the order the
// front ends write it; its steps share the cursor and the chain they build.
static FailureOr<GemmChain> matchGemmChain(quant::QuantizeCastOp qcast,
                                           std::string &whyNot,
                                           Operation *&core) {
  GemmChain chain;
  Value current = qcast.getInput();
  auto step = [&](Value next, Operation *op) {
    chain.epilogue.insert(chain.epilogue.begin(), op);
    current = next;
  };
  // Fully connected layers as TOSA and ONNX front ends write them reshape
  // between the GEMM, its bias add and its activation ([1, M, N] <-> [M, N]
  // around a batch-1 tosa.matmul): one reshape that keeps the channels as
  // the last dimension, anywhere in the epilogue.
  Operation *outputReshape = nullptr;
  auto skipReshape = [&]() {
    Operation *op = current.getDefiningOp();
    SmallVector<ReassociationIndices> groups;
    if (auto collapse = dyn_cast_if_present<tensor::CollapseShapeOp>(op))
      groups = collapse.getReassociationIndices();
    else if (auto expand = dyn_cast_if_present<tensor::ExpandShapeOp>(op))
      groups = expand.getReassociationIndices();
    if (outputReshape || groups.empty() || groups.back().size() != 1)
      return;
    outputReshape = op;
    step(op->getOperand(0), op);
  };
  skipReshape();
  if (auto generic = current.getDefiningOp<linalg::GenericOp>())
    if (std::optional<nx::FusedActivation> clamp = matchClamp(generic)) {
      chain.activation = *clamp;
      step(generic.getDpsInputOperand(0)->get(), generic);
    }
  skipReshape();
  // The bias dimension counted from the last, which a reshape keeps.
  int64_t biasDimFromEnd = -1;
  if (auto generic = current.getDefiningOp<linalg::GenericOp>())
    if (auto biasAdd = matchBiasAdd(generic)) {
      chain.bias = std::get<0>(*biasAdd);
      chain.biasDim = std::get<1>(*biasAdd);
      if (chain.biasDim >= 0)
        biasDimFromEnd =
            cast<ShapedType>(generic->getResult(0).getType()).getRank() - 1 -
            chain.biasDim;
      step(generic.getDpsInputOperand(std::get<2>(*biasAdd))->get(), generic);
    }
  skipReshape();
  // The [N,OH,OW,C,M] -> [N,OH,OW,C*M] collapse tosa-to-linalg puts
  // between a depthwise HWCM core and its bias add: the GEMM's output
  // already has the C*M channels.
  if (auto collapse = current.getDefiningOp<tensor::CollapseShapeOp>();
      collapse &&
      isa_and_present<linalg::DepthwiseConv2DNhwcHwcmOp>(
          collapse.getSrc().getDefiningOp()) &&
      collapse.getReassociationIndices() ==
          SmallVector<ReassociationIndices>{{0}, {1}, {2}, {3, 4}})
    step(collapse.getSrc(), collapse);
  if (failed(matchCore(current.getDefiningOp(), chain, whyNot)))
    return failure();
  core = chain.core;
  if (outputReshape) {
    if (chain.kind != CoreKind::Matmul && chain.kind != CoreKind::BatchMatmul) {
      whyNot = "a reshape between the core and its quantization is "
               "supported for fully connected layers only";
      return failure();
    }
    if (biasDimFromEnd >= 0)
      chain.biasDim =
          cast<ShapedType>(chain.core->getResult(0).getType()).getRank() - 1 -
          biasDimFromEnd;
  }
  // The float values the rewrite removes must have no other user.
  SmallVector<Operation *> chainOps{chain.core};
  chainOps.append(chain.epilogue);
  for (Operation *op : chainOps)
    if (!op->getResult(0).hasOneUse()) {
      whyNot = "a float result of the chain has other users";
      return failure();
    }
  // A matmul of a 3-D activation's rows (ONNX's MatMul of [B, S, K]
  // with a constant [K, N]) reads the collapse of its dequantized input:
  // the GEMM collapses the quantized one instead.
  Value coreInput = chain.core.getDpsInputs()[0];
  if (auto collapse = coreInput.getDefiningOp<tensor::CollapseShapeOp>();
      collapse && chain.kind == CoreKind::Matmul &&
      succeeded(matchQuantizedActivation(collapse.getSrc()))) {
    chain.inputCollapse = collapse.getReassociationIndices();
    coreInput = collapse.getSrc();
  }
  auto input = matchQuantizedActivation(coreInput);
  if (failed(input)) {
    whyNot = "the input is not dequantized from an 8-bit per-tensor type";
    return failure();
  }
  std::tie(chain.quantizedInput, chain.inputType) = *input;

  auto weightDcast =
      chain.core.getDpsInputs()[1].getDefiningOp<quant::DequantizeCastOp>();
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
      (perAxis && perAxis.getQuantizedDimension() != chain.weightChannelDim) ||
      (!perAxis && !isa<quant::UniformQuantizedType>(chain.weightType))) {
    whyNot = "the weights are not s8, per tensor or per output channel";
    return failure();
  }
  if (perAxis && chain.kind == CoreKind::DepthwiseNhwcHwcm &&
      cast<ShapedType>(chain.weights.getType()).getDimSize(3) != 1) {
    whyNot = "per-channel weights of a depthwise convolution with a depth "
             "multiplier above 1 (output channels on C and M) are not "
             "supported: quantize them per tensor";
    return failure();
  }

  auto init = matchCoreInit(chain.core.getDpsInits()[0]);
  if (failed(init) || (*init && chain.bias)) {
    whyNot = "the accumulator does not start from zero or a bias";
    return failure();
  }
  if (*init)
    std::tie(chain.bias, chain.biasDim) = **init;
  const int64_t n = getGemmShape(chain).n;
  if (chain.bias && chain.biasDim == kScalarBias)
    chain.bias = DenseElementsAttr::get(
        RankedTensorType::get({n}, chain.bias->getElementType()),
        *chain.bias->value_begin<Attribute>());
  else if (chain.bias && (chain.biasDim != chain.channelDim ||
                          chain.bias->getNumElements() != n)) {
    whyNot = "the bias does not broadcast along the output channels";
    return failure();
  }
  return chain;
}

nx::DType quanta::detail::getDType(quant::QuantizedType type) {
  return type.isSigned() ? nx::DType::QInt8 : nx::DType::QUInt8;
}

/// The integer form of `chain` quantized to `outputType`, or why not.
static FailureOr<nx::IntegerGemm>
prepareGemm(const GemmChain &chain, quant::UniformQuantizedType outputType,
            SmallVectorImpl<int8_t> &weights, std::string &whyNot) {
  auto shape = cast<ShapedType>(chain.weights.getType()).getShape();
  const GemmShape gemmShape = getGemmShape(chain);
  const int64_t k = gemmShape.k, n = gemmShape.n;
  nx::QuantizedGemmParams params;
  params.inputType = getDType(chain.inputType);
  params.input = getQParams(chain.inputType);
  params.outputType = getDType(outputType);
  params.output = getQParams(outputType);
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
  // The weights as quant.qcast stores them (PyTorch's quantize_val), laid
  // out as the K x N GEMM matrix.
  auto values = chain.weights.getValues<float>();
  weights.reserve(k * n);
  for (int64_t row = 0; row < k; ++row) {
    for (int64_t column = 0; column < n; ++column) {
      const float value = values[getWeightIndex(chain, shape, row, column)];
      if (std::isnan(value)) {
        whyNot = "the weights hold NaN";
        return failure();
      }
      const size_t ch =
          params.weight.scales.size() == 1 ? 0 : static_cast<size_t>(column);
      weights.push_back(static_cast<int8_t>(nx::quantizeValue(
          value, params.weight.scales[ch], params.weight.zeroPoints[ch],
          chain.weightType.getStorageTypeMin(),
          chain.weightType.getStorageTypeMax())));
    }
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
  if (failed(narrowToStorageRange(gemm->outputRange, outputType, whyNot)))
    return failure();
  return std::move(*gemm);
}

LogicalResult quanta::detail::narrowToStorageRange(
    nx::QRange &range, quant::UniformQuantizedType type, std::string &whyNot) {
  range.quantMin = std::max(range.quantMin, type.getStorageTypeMin());
  range.quantMax = std::min(range.quantMax, type.getStorageTypeMax());
  if (range.quantMin <= range.quantMax)
    return success();
  whyNot = "the fused activation leaves no value in the output's range";
  return failure();
}

Value quanta::detail::toStorage(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  auto element = cast<quant::QuantizedType>(type.getElementType());
  return quant::StorageCastOp::create(
      builder, loc, type.clone(element.getStorageType()), value);
}

Value quanta::detail::fromStorage(OpBuilder &builder, Location loc,
                                  Value storage, Type element) {
  auto type = cast<RankedTensorType>(storage.getType());
  return quant::StorageCastOp::create(builder, loc, type.clone(element),
                                      storage);
}

/// Whether `chain` is a convolution that reads its input as it lies: a 1x1
/// NHWC convolution of stride 1.
static bool isPointwiseNhwc(const GemmChain &chain) {
  return (chain.kind == CoreKind::ConvNhwcFhwc ||
          chain.kind == CoreKind::ConvNhwcHwcf) &&
         chain.kernelH == 1 && chain.kernelW == 1 &&
         llvm::all_of(chain.strides,
                      [](int64_t stride) { return stride == 1; });
}

/// The quanta.qmatmul window of a convolution that reads an implicit im2col
/// matrix: [KH, KW, SH, SW, DH, DW]; none for GEMMs and pointwise NHWC.
static std::optional<SmallVector<int64_t>>
getConvWindow(const GemmChain &chain) {
  if (chain.kind == CoreKind::Matmul || chain.kind == CoreKind::BatchMatmul ||
      isPointwiseNhwc(chain))
    return std::nullopt;
  return SmallVector<int64_t>{chain.kernelH,      chain.kernelW,
                              chain.strides[0],   chain.strides[1],
                              chain.dilations[0], chain.dilations[1]};
}

/// What the GEMM of `chain` reads: the M x K quantized input itself or a
/// reshape of it, or for convolutions the NHWC image (transposed from NCHW,
/// whose channels are strided) whose im2col matrix quanta.qmatmul reads
/// through its window.
static Value buildGemmInput(OpBuilder &builder, Location loc,
                            const GemmChain &chain, const GemmShape &shape) {
  Value input = chain.quantizedInput;
  if (chain.kind == CoreKind::Matmul && chain.inputCollapse.empty())
    return input;
  auto inputType = cast<RankedTensorType>(input.getType());
  Type element = inputType.getElementType();
  Value storage = toStorage(builder, loc, input);
  Type storageElement = getElementTypeOrSelf(storage.getType());
  auto matrixType = RankedTensorType::get({shape.m, shape.k}, storageElement);
  auto collapse = [&](Value value, ArrayRef<ReassociationIndices> groups) {
    return fromStorage(builder, loc,
                       tensor::CollapseShapeOp::create(builder, loc, matrixType,
                                                       value, groups),
                       element);
  };
  if (chain.kind == CoreKind::Matmul)
    return collapse(storage, chain.inputCollapse);
  if (chain.kind == CoreKind::BatchMatmul)
    return collapse(storage, {{0, 1}, {2}});
  if (isPointwiseNhwc(chain))
    return collapse(storage, {{0, 1, 2}, {3}});
  if (!isNchw(chain.kind))
    return input;
  // A constant padding of height and width (the storage of a padded float
  // image) moves after the transpose: the transpose is smaller, and
  // quanta-lower-x86 skips the taps of a padding it sees.
  tensor::PadOp pad;
  for (Value value = storage; !pad && value;) {
    pad = value.getDefiningOp<tensor::PadOp>();
    auto cast = value.getDefiningOp<quant::StorageCastOp>();
    value = cast ? cast.getInput() : Value();
  }
  Value constant = pad ? pad.getConstantPaddingValue() : Value();
  SmallVector<int64_t> low, high;
  if (constant && !ShapedType::isDynamicShape(pad.getStaticLow()) &&
      !ShapedType::isDynamicShape(pad.getStaticHigh()) &&
      pad.getSourceType().hasStaticShape() &&
      pad.getSourceType().getElementType() == storageElement &&
      llvm::all_of(
          ArrayRef<int64_t>{pad.getStaticLow()[0], pad.getStaticLow()[1],
                            pad.getStaticHigh()[0], pad.getStaticHigh()[1]},
          [](int64_t width) { return width == 0; })) {
    storage = pad.getSource();
    low = {0, pad.getStaticLow()[2], pad.getStaticLow()[3], 0};
    high = {0, pad.getStaticHigh()[2], pad.getStaticHigh()[3], 0};
  }
  ArrayRef<int64_t> nchw = cast<ShapedType>(storage.getType()).getShape();
  Value empty = tensor::EmptyOp::create(
      builder, loc, ArrayRef<int64_t>{nchw[0], nchw[2], nchw[3], nchw[1]},
      storageElement);
  Value nhwc = linalg::TransposeOp::create(builder, loc, storage, empty,
                                           ArrayRef<int64_t>{0, 2, 3, 1})
                   .getResult()[0];
  if (!low.empty())
    nhwc = tensor::PadOp::create(
        builder, loc,
        RankedTensorType::get({nchw[0], nchw[2] + low[1] + high[1],
                               nchw[3] + low[2] + high[2], nchw[1]},
                              storageElement),
        nhwc, getAsIndexOpFoldResult(builder.getContext(), low),
        getAsIndexOpFoldResult(builder.getContext(), high), constant);
  return fromStorage(builder, loc, nhwc, element);
}

/// The NHWC storage tensor `nhwc` transposed to NCHW.
static Value toNchw(OpBuilder &builder, Location loc, Value nhwc) {
  auto type = cast<RankedTensorType>(nhwc.getType());
  ArrayRef<int64_t> shape = type.getShape();
  Value empty = tensor::EmptyOp::create(
      builder, loc, ArrayRef<int64_t>{shape[0], shape[3], shape[1], shape[2]},
      type.getElementType());
  return linalg::TransposeOp::create(builder, loc, nhwc, empty,
                                     ArrayRef<int64_t>{0, 3, 1, 2})
      .getResult()[0];
}

/// The GEMM's M x N result in the shape and layout of the chain's output.
static Value buildGemmOutput(OpBuilder &builder, Location loc,
                             const GemmChain &chain, Value result,
                             RankedTensorType outputType) {
  if (outputType.getShape() == cast<ShapedType>(result.getType()).getShape())
    return result;
  Type element = outputType.getElementType();
  Value storage = toStorage(builder, loc, result);
  Type storageElement = getElementTypeOrSelf(storage.getType());
  if (chain.kind == CoreKind::Matmul || chain.kind == CoreKind::BatchMatmul) {
    // [M, N] to the output's [..., N] (M its leading dimensions) or [N].
    const int64_t rank = outputType.getRank();
    auto storageType = outputType.clone(storageElement);
    if (rank == 1)
      return fromStorage(builder, loc,
                         tensor::CollapseShapeOp::create(
                             builder, loc, storageType, storage, {{0, 1}}),
                         element);
    ReassociationIndices leading;
    for (int64_t dim = 0; dim < rank - 1; ++dim)
      leading.push_back(dim);
    return fromStorage(builder, loc,
                       tensor::ExpandShapeOp::create(builder, loc, storageType,
                                                     storage,
                                                     {leading, {rank - 1}}),
                       element);
  }
  // Convolutions: the GEMM's rows are (n, oh, ow), its columns the
  // channels, i.e. NHWC (NHWCM for a depthwise HWCM core without its
  // collapse); NCHW transposes it.
  const bool nchw = isNchw(chain.kind);
  ArrayRef<int64_t> shape = outputType.getShape();
  auto nhwcType = RankedTensorType::get(
      nchw ? ArrayRef<int64_t>{shape[0], shape[2], shape[3], shape[1]} : shape,
      storageElement);
  ReassociationIndices channels{3};
  if (outputType.getRank() == 5)
    channels.push_back(4);
  Value nhwc = tensor::ExpandShapeOp::create(builder, loc, nhwcType, storage,
                                             {{0, 1, 2}, channels});
  return fromStorage(builder, loc, nchw ? toNchw(builder, loc, nhwc) : nhwc,
                     element);
}

/// Replaces `qcast`'s uses by `result` and erases the float chain.
static void replaceAndErase(RewriterBase &rewriter, quant::QuantizeCastOp qcast,
                            GemmChain &chain, Value result) {
  rewriter.replaceAllUsesWith(qcast.getResult(), result);
  rewriter.eraseOp(qcast);
  for (Operation *op : llvm::reverse(chain.epilogue))
    rewriter.eraseOp(op);
  rewriter.eraseOp(chain.core);
}

/// The requantization multipliers of `gemm`, split into their two halves.
static std::pair<SmallVector<int32_t>, SmallVector<int32_t>>
splitMultipliers(const nx::IntegerGemm &gemm) {
  SmallVector<int32_t> multipliers, shifts;
  for (const nx::QuantizedMultiplier &multiplier : gemm.multipliers) {
    multipliers.push_back(multiplier.multiplier);
    shifts.push_back(multiplier.shift);
  }
  return {multipliers, shifts};
}

/// The NHWC image `input` with each channel c repeated `multiplier` times
/// (channel c * M + m of the result is c): a depthwise convolution with a
/// depth multiplier M > 1 reads it as one of multiplier 1.
static Value repeatChannels(OpBuilder &builder, Location loc, Value input,
                            int64_t multiplier) {
  Type element = getElementTypeOrSelf(input.getType());
  Value storage = toStorage(builder, loc, input);
  auto type = cast<RankedTensorType>(storage.getType());
  ArrayRef<int64_t> shape = type.getShape();
  MLIRContext *context = builder.getContext();
  auto d = [&](unsigned position) {
    return getAffineDimExpr(position, context);
  };
  auto repeatedType = RankedTensorType::get(
      {shape[0], shape[1], shape[2], shape[3], multiplier},
      type.getElementType());
  Value repeated =
      linalg::GenericOp::create(
          builder, loc, repeatedType, storage,
          tensor::EmptyOp::create(builder, loc, repeatedType.getShape(),
                                  type.getElementType())
              .getResult(),
          ArrayRef<AffineMap>{
              AffineMap::get(5, 0, {d(0), d(1), d(2), d(3)}, context),
              AffineMap::getMultiDimIdentityMap(5, context)},
          SmallVector<utils::IteratorType>(5, utils::IteratorType::parallel),
          [](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            linalg::YieldOp::create(nested, nestedLoc, args[0]);
          })
          .getResult(0);
  return fromStorage(builder, loc,
                     tensor::CollapseShapeOp::create(
                         builder, loc, repeated,
                         ArrayRef<ReassociationIndices>{{0}, {1}, {2}, {3, 4}}),
                     element);
}

static void replaceChain(RewriterBase &rewriter, quant::QuantizeCastOp qcast,
                         GemmChain &chain, const nx::IntegerGemm &gemm,
                         ArrayRef<int8_t> weights) {
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  MLIRContext *context = qcast.getContext();
  Location loc = chain.core.getLoc();
  const GemmShape shape = getGemmShape(chain);
  auto weightsType =
      RankedTensorType::get({gemm.k, gemm.n}, IntegerType::get(context, 8));
  auto [multipliers, shifts] = splitMultipliers(gemm);
  std::vector<int32_t> weightZeroPoints = gemm.weightZeroPoints;
  if (llvm::all_equal(weightZeroPoints))
    weightZeroPoints.resize(1);
  auto outputType = cast<RankedTensorType>(qcast.getResult().getType());
  Value input = buildGemmInput(builder, loc, chain, shape);
  // A depthwise convolution is the GEMM whose column n reads channel n
  // only (quanta.qmatmul's depthwise form).
  const bool depthwise = isDepthwise(chain.kind);
  const int64_t inputChannels =
      cast<ShapedType>(input.getType()).getShape().back();
  if (depthwise && inputChannels != shape.n)
    input = repeatChannels(builder, loc, input, shape.n / inputChannels);
  std::optional<SmallVector<int64_t>> window = getConvWindow(chain);
  auto qmatmul = QMatmulOp::create(
      builder, loc,
      RankedTensorType::get({shape.m, shape.n}, outputType.getElementType()),
      input, DenseElementsAttr::get(weightsType, weights),
      builder.getDenseI32ArrayAttr(weightZeroPoints),
      builder.getDenseI32ArrayAttr(gemm.columnOffsets),
      builder.getDenseI32ArrayAttr(multipliers),
      builder.getDenseI32ArrayAttr(shifts),
      builder.getI32IntegerAttr(
          static_cast<int32_t>(gemm.outputRange.quantMin)),
      builder.getI32IntegerAttr(
          static_cast<int32_t>(gemm.outputRange.quantMax)),
      window ? builder.getDenseI64ArrayAttr(*window) : DenseI64ArrayAttr(),
      depthwise ? builder.getUnitAttr() : UnitAttr());
  replaceAndErase(
      rewriter, qcast, chain,
      buildGemmOutput(builder, loc, chain, qmatmul.getResult(), outputType));
}

namespace {
/// The ops quanta-quantize's keep-float option leaves float.
struct KeptFloat {
  bool softmax = false;
  bool layerNorm = false;
};
} // namespace

/// The integer form of the float op feeding `qcast` and the ops between
/// them: a softmax or layer norm, a GEMM chain as one quanta.qmatmul, else
/// elementwise ops, pooling or data movement (quantizeNonGemm). Fails, changing
/// nothing, with `whyNot` empty when there is no candidate, or saying why
/// the candidate has no integer form (`inner`: the candidate's ops before
/// its last, which the same reason explains).
static LogicalResult quantizeChain(RewriterBase &rewriter,
                                   quant::QuantizeCastOp qcast,
                                   std::string &whyNot,
                                   SmallVectorImpl<Operation *> &inner,
                                   KeptFloat keptFloat = {}) {
  if (succeeded(
          quantizeSoftmax(rewriter, qcast, keptFloat.softmax, whyNot, inner)))
    return success();
  if (whyNot.empty() &&
      succeeded(quantizeLayerNorm(rewriter, qcast, keptFloat.layerNorm, whyNot,
                                  inner)))
    return success();
  if (!whyNot.empty())
    return failure();
  // A product of two activations (attention's) is no chain with weights.
  if (succeeded(quantizeActivationProduct(rewriter, qcast, whyNot)))
    return success();
  if (!whyNot.empty())
    return failure();
  Operation *core = nullptr;
  FailureOr<GemmChain> chain = matchGemmChain(qcast, whyNot, core);
  if (core)
    inner.push_back(core);
  SmallVector<int8_t> weights;
  FailureOr<nx::IntegerGemm> gemm = failure();
  quant::UniformQuantizedType outputType;
  if (succeeded(chain) && (outputType = getEightBitOutputType(qcast, whyNot)))
    gemm = prepareGemm(*chain, outputType, weights, whyNot);
  if (succeeded(gemm)) {
    replaceChain(rewriter, qcast, *chain, *gemm, weights);
    return success();
  }
  if (whyNot.empty())
    return quantizeNonGemm(rewriter, qcast, whyNot);
  return failure();
}

namespace {
/// A quant.qcast whose producer chain has an integer form: that form.
struct QuantizeChainPattern : public OpRewritePattern<quant::QuantizeCastOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(quant::QuantizeCastOp qcast,
                                PatternRewriter &rewriter) const override {
    std::string whyNot;
    SmallVector<Operation *> inner;
    if (succeeded(quantizeChain(rewriter, qcast, whyNot, inner)))
      return success();
    return rewriter.notifyMatchFailure(qcast, whyNot.empty() ? "no integer form"
                                                             : whyNot);
  }
};

/// A constant pad of a dequantized 8-bit tensor onto its storage integers
/// (movePadToStorage), so that the convolution or pool reading it matches.
struct MovePadToStoragePattern : public OpRewritePattern<tensor::PadOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(tensor::PadOp pad,
                                PatternRewriter &rewriter) const override {
    return movePadToStorage(rewriter, pad);
  }
};

/// An embedding lookup of a float-qparams table onto the quantized table
/// (quantizeEmbedding).
struct QuantizeEmbeddingPattern : public OpRewritePattern<linalg::GenericOp> {
  using OpRewritePattern::OpRewritePattern;
  LogicalResult matchAndRewrite(linalg::GenericOp op,
                                PatternRewriter &rewriter) const override {
    std::string whyNot;
    if (succeeded(quantizeEmbedding(rewriter, op, whyNot)))
      return success();
    return rewriter.notifyMatchFailure(op, whyNot.empty() ? "no embedding"
                                                          : whyNot);
  }
};

struct QuantizePass : public quanta::impl::QuantizeBase<QuantizePass> {
  using QuantizeBase::QuantizeBase;
  void runOnOperation() override;

  FailureOr<KeptFloat> parseKeepFloat() {
    KeptFloat kept;
    for (const std::string &name : keepFloat) {
      if (name == "softmax")
        kept.softmax = true;
      else if (name == "layer-norm")
        kept.layerNorm = true;
      else
        return getOperation().emitError("quanta-quantize: keep-float names '")
               << name << "'; it takes softmax and layer-norm";
    }
    return kept;
  }
};
} // namespace

void quanta::populateQuantizePatterns(RewritePatternSet &patterns) {
  // The pads first: the chains then read them on the storage integers.
  patterns.add<MovePadToStoragePattern>(patterns.getContext(),
                                        /*benefit=*/2);
  patterns.add<QuantizeChainPattern, QuantizeEmbeddingPattern>(
      patterns.getContext());
}

llvm::MapVector<StringRef, int64_t>
quanta::countFloatComputeOps(FunctionOpInterface func) {
  llvm::MapVector<StringRef, int64_t> counts;
  func.walk([&](linalg::LinalgOp op) {
    if (isa<linalg::FillOp>(op) ||
        !llvm::any_of(op->getResultTypes(), [](Type type) {
          return isa<FloatType>(getElementTypeOrSelf(type));
        }))
      return;
    ++counts[op->getName().getStringRef()];
  });
  return counts;
}

/// Remarks, on each function, the float compute ops left in it.
static void remarkFloatOpsLeft(ModuleOp module) {
  module.walk([](FunctionOpInterface func) {
    llvm::MapVector<StringRef, int64_t> counts = countFloatComputeOps(func);
    int64_t total = 0;
    for (auto [name, count] : counts)
      total += count;
    InFlightDiagnostic remark = func.emitRemark("quanta-quantize: ")
                                << total << " float compute op(s) left";
    for (auto [name, count] : counts)
      remark << (name == counts.front().first ? ": " : ", ") << name << " x"
             << count;
  });
}

void QuantizePass::runOnOperation() {
  FailureOr<KeptFloat> keptFloat = parseKeepFloat();
  if (failed(keptFloat))
    return signalPassFailure();
  // The same rewrites as populateQuantizePatterns, in program order, each
  // failed candidate explained by a remark.
  IRRewriter rewriter(&getContext());
  SmallVector<tensor::PadOp> pads;
  getOperation()->walk([&](tensor::PadOp pad) { pads.push_back(pad); });
  for (tensor::PadOp pad : pads)
    (void)movePadToStorage(rewriter, pad);
  SmallVector<linalg::GenericOp> generics;
  getOperation()->walk([&](linalg::GenericOp op) { generics.push_back(op); });
  for (linalg::GenericOp op : generics) {
    std::string whyNot;
    if (failed(quantizeEmbedding(rewriter, op, whyNot)) && !whyNot.empty())
      op->emitRemark("the embedding stays float: ") << whyNot;
  }
  SmallVector<quant::QuantizeCastOp> qcasts;
  getOperation()->walk([&](quant::QuantizeCastOp op) { qcasts.push_back(op); });
  llvm::SmallPtrSet<Operation *, 8> explained;
  for (quant::QuantizeCastOp qcast : qcasts) {
    std::string whyNot;
    SmallVector<Operation *> inner;
    if (succeeded(quantizeChain(rewriter, qcast, whyNot, inner, *keptFloat)))
      continue;
    Operation *anchor = qcast.getInput().getDefiningOp();
    if (!whyNot.empty() && anchor && explained.insert(anchor).second) {
      anchor->emitRemark("stays float between dequantize and quantize: ")
          << whyNot;
      // The chain's core (a softmax's reductions) is explained with its end.
      explained.insert(inner.begin(), inner.end());
      // An average's sum pooling is explained with its division.
      for (Value operand : anchor->getOperands())
        if (Operation *sum = operand.getDefiningOp();
            sum && getAveragePoolDivision(sum) == anchor)
          explained.insert(sum);
    }
  }
  // The replaced ops leave their operands (bias broadcasts, fills,
  // dequantizations) unused. Erase them here: canonicalize would also fold
  // dcast(qcast(x)) into x and so drop quantization steps from the float
  // parts.
  getOperation()->walk<WalkOrder::PostOrder, mlir::ReverseIterator>(
      [](Operation *op) {
        if (op->getNumResults() > 0 && isOpTriviallyDead(op))
          op->erase();
      });
  // Float compute that reads dequantized values and had no integer form.
  getOperation()->walk([&](linalg::LinalgOp op) {
    bool readsDequantized = llvm::any_of(op->getOperands(), [](Value v) {
      return v.getDefiningOp<quant::DequantizeCastOp>();
    });
    if (!readsDequantized || explained.contains(op) || isa<linalg::FillOp>(op))
      return;
    InFlightDiagnostic remark =
        op->emitRemark("stays float between dequantize and quantize: "
                       "quanta-quantize has no integer form for '")
        << op->getName() << "' yet";
    // The front end's name (an ONNX node: "softmax"), which the printed
    // file position loses.
    if (std::optional<StringRef> name = getLocationName(op->getLoc()))
      remark << ", in '" << *name << "'";
  });
  if (reportFloatOps)
    remarkFloatOpsLeft(getOperation());
}

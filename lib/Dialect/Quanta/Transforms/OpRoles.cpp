//===- OpRoles.cpp - How PyTorch would quantize a linalg op ---------------===//
//
// The roles follow PyTorch 1.13's default FX backend config: conv/linear
// (with bias and relu fused), add/mul (with relu fused) are quantized with
// their own output observer; reshape/transpose/pooling/relu/clamp/cat share
// their input's observer; sigmoid/softmax/tanh have fixed qparams.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/TypeSwitch.h"

#include <limits>

using namespace mlir;
using namespace mlir::quanta;

static bool isFloatTensor(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && isa<FloatType>(type.getElementType());
}

static bool isZeroFloat(Value value) {
  return matchPattern(value, m_AnyZeroFloat());
}

static bool isOneFloat(Value value) {
  return matchPattern(value, m_OneFloat());
}

static bool isMaxOp(Operation *op) {
  return isa_and_nonnull<arith::MaximumFOp, arith::MaxNumFOp>(op);
}
static bool isMinOp(Operation *op) {
  return isa_and_nonnull<arith::MinimumFOp, arith::MinNumFOp>(op);
}

/// The other operand of a commutative binary op whose one operand is `arg`.
static Value otherOperand(Operation *op, Value arg) {
  if (op->getNumOperands() != 2)
    return {};
  if (op->getOperand(0) == arg)
    return op->getOperand(1);
  if (op->getOperand(1) == arg)
    return op->getOperand(0);
  return {};
}

/// Whether `op` computes max(min(a * x + b, 1), 0) of an input argument
/// with constants a and b.
static bool isHardSigmoid(Operation *op, function_ref<bool(Value)> isInputArg) {
  if (!isMaxOp(op) || !isZeroFloat(op->getOperand(1)))
    return false;
  Operation *min = op->getOperand(0).getDefiningOp();
  if (!isMinOp(min) || !isOneFloat(min->getOperand(1)))
    return false;
  // Either operand order: canonicalize moves constants to the right.
  auto add = min->getOperand(0).getDefiningOp<arith::AddFOp>();
  if (!add)
    return false;
  for (Value term : add->getOperands()) {
    auto mul = term.getDefiningOp<arith::MulFOp>();
    if (!mul || !matchPattern(otherOperand(add, term), m_Constant()))
      continue;
    for (Value factor : mul->getOperands())
      if (isInputArg(factor) &&
          matchPattern(otherOperand(mul, factor), m_Constant()))
        return true;
  }
  return false;
}

/// Recognizes the computation of an all-parallel linalg.generic from its
/// body, in the spellings tosa-to-linalg and torch-mlir produce.
static ElementwiseKind classifyGenericBody(linalg::GenericOp generic) {
  if (generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops())
    return ElementwiseKind::None;
  Block &body = generic.getRegion().front();
  auto yield = cast<linalg::YieldOp>(body.getTerminator());
  Value result = yield.getOperand(0);
  unsigned numInputs = generic.getNumDpsInputs();
  auto isInputArg = [&](Value value) {
    auto arg = dyn_cast<BlockArgument>(value);
    return arg && arg.getOwner() == &body && arg.getArgNumber() < numInputs;
  };

  if (isInputArg(result))
    return ElementwiseKind::Copy;
  Operation *def = result.getDefiningOp();
  if (!def)
    return ElementwiseKind::None;

  if (isa<arith::AddFOp, arith::MulFOp>(def) && numInputs == 2 &&
      isInputArg(def->getOperand(0)) && isInputArg(def->getOperand(1)))
    return isa<arith::AddFOp>(def) ? ElementwiseKind::Add
                                   : ElementwiseKind::Mul;
  if (isa<math::TanhOp>(def) && isInputArg(def->getOperand(0)))
    return ElementwiseKind::Tanh;

  // relu: max(x, 0) or select(x > 0, x, 0).
  for (Value operand : def->getOperands()) {
    if (!isInputArg(operand))
      continue;
    if (isMaxOp(def) && isZeroFloat(otherOperand(def, operand)))
      return ElementwiseKind::Relu;
  }
  if (auto select = dyn_cast<arith::SelectOp>(def)) {
    auto cmp = select.getCondition().getDefiningOp<arith::CmpFOp>();
    if (cmp && isInputArg(select.getTrueValue()) &&
        isZeroFloat(select.getFalseValue()) &&
        cmp.getLhs() == select.getTrueValue() && isZeroFloat(cmp.getRhs()) &&
        (cmp.getPredicate() == arith::CmpFPredicate::OGT ||
         cmp.getPredicate() == arith::CmpFPredicate::UGT))
      return ElementwiseKind::Relu;
  }
  // clamp: min(max(x, lo), hi) or max(min(x, hi), lo) with constant bounds;
  // clamp(x, 0, FLT_MAX) is how tosa.clamp spells relu.
  if (isMaxOp(def) || isMinOp(def)) {
    for (Value operand : def->getOperands()) {
      Operation *inner = operand.getDefiningOp();
      bool nested = isMaxOp(def) ? isMinOp(inner) : isMaxOp(inner);
      if (!nested)
        continue;
      for (Value innerOperand : inner->getOperands()) {
        FloatAttr innerBound, outerBound;
        if (!isInputArg(innerOperand) ||
            !matchPattern(otherOperand(inner, innerOperand),
                          m_Constant(&innerBound)) ||
            !matchPattern(otherOperand(def, operand), m_Constant(&outerBound)))
          continue;
        FloatAttr low = isMaxOp(def) ? outerBound : innerBound;
        FloatAttr high = isMaxOp(def) ? innerBound : outerBound;
        bool unboundedAbove =
            high.getValue().isInfinity() ||
            high.getValueAsDouble() >= std::numeric_limits<float>::max();
        return low.getValue().isZero() && unboundedAbove
                   ? ElementwiseKind::Relu
                   : ElementwiseKind::Clamp;
      }
    }
  }
  // The ONNX importer's hardsigmoid max(min(a * x + b, 1), 0), hardswish
  // x * hardsigmoid(x) and leaky relu max(x, 0) + a * min(x, 0).
  if (isHardSigmoid(def, isInputArg))
    return ElementwiseKind::HardSigmoid;
  if (auto mul = dyn_cast<arith::MulFOp>(def))
    for (Value operand : mul->getOperands())
      if (isInputArg(operand) &&
          isHardSigmoid(otherOperand(mul, operand).getDefiningOp(), isInputArg))
        return ElementwiseKind::HardSwish;
  if (auto add = dyn_cast<arith::AddFOp>(def))
    for (Value positive : add->getOperands()) {
      Operation *max = positive.getDefiningOp();
      auto scaled = otherOperand(add, positive).getDefiningOp<arith::MulFOp>();
      if (!isMaxOp(max) || !scaled || !isInputArg(max->getOperand(0)) ||
          !isZeroFloat(max->getOperand(1)))
        continue;
      for (Value negative : scaled->getOperands()) {
        Operation *min = negative.getDefiningOp();
        if (isMinOp(min) && min->getOperand(0) == max->getOperand(0) &&
            isZeroFloat(min->getOperand(1)) &&
            matchPattern(otherOperand(scaled, negative), m_Constant()))
          return ElementwiseKind::LeakyRelu;
      }
    }
  // sigmoid as tosa-to-linalg writes it: 1 / (exp(-x) + 1).
  if (auto div = dyn_cast<arith::DivFOp>(def); div && isOneFloat(div.getLhs()))
    if (auto add = div.getRhs().getDefiningOp<arith::AddFOp>())
      for (Value operand : add->getOperands())
        if (auto exp = operand.getDefiningOp<math::ExpOp>())
          if (auto neg = exp.getOperand().getDefiningOp<arith::NegFOp>();
              neg && isInputArg(neg.getOperand()) &&
              isOneFloat(otherOperand(add, operand)))
            return ElementwiseKind::Sigmoid;
  return ElementwiseKind::None;
}

/// Whether a linalg.max/linalg.generic operand is a zero splat (constant or
/// linalg.fill of zero), which makes max(x, it) a relu.
static bool isZeroTensor(Value value) {
  if (auto fill = value.getDefiningOp<linalg::FillOp>())
    return isZeroFloat(fill.getInputs()[0]);
  return isZeroFloat(value);
}

static ElementwiseKind classifyElementwise(Operation *op) {
  return llvm::TypeSwitch<Operation *, ElementwiseKind>(op)
      .Case<linalg::GenericOp>(classifyGenericBody)
      .Case<linalg::AddOp>([](auto) { return ElementwiseKind::Add; })
      .Case<linalg::MulOp>([](auto) { return ElementwiseKind::Mul; })
      .Case<linalg::TanhOp>([](auto) { return ElementwiseKind::Tanh; })
      .Case<linalg::CopyOp, linalg::TransposeOp, linalg::BroadcastOp>(
          [](auto) { return ElementwiseKind::Copy; })
      .Case<linalg::MaxOp>([](linalg::MaxOp max) {
        return llvm::any_of(max.getInputs(), isZeroTensor)
                   ? ElementwiseKind::Relu
                   : ElementwiseKind::None;
      })
      .Default([](Operation *) { return ElementwiseKind::None; });
}

/// The dimension of the weight operand that indexes the output channels:
/// the loop dimension of the output's channel position (NCHW: 1, otherwise
/// the last), looked up in the weight's indexing map.
static std::optional<int64_t> findWeightChannelAxis(linalg::LinalgOp op,
                                                    unsigned weightOperand) {
  AffineMap outputMap = op.getIndexingMapMatchingResult(op->getResult(0));
  int64_t outputRank = outputMap.getNumResults();
  int64_t channelPosition =
      isa<linalg::Conv2DNchwFchwOp, linalg::DepthwiseConv2DNchwChwOp>(
          op.getOperation())
          ? 1
          : outputRank - 1;
  auto channelDim =
      dyn_cast<AffineDimExpr>(outputMap.getResult(channelPosition));
  if (!channelDim)
    return std::nullopt;
  AffineMap weightMap =
      op.getMatchingIndexingMap(&op->getOpOperand(weightOperand));
  for (auto [index, expr] : llvm::enumerate(weightMap.getResults()))
    if (auto dim = dyn_cast<AffineDimExpr>(expr);
        dim && dim.getPosition() == channelDim.getPosition())
      return static_cast<int64_t>(index);
  return std::nullopt;
}

StringRef quanta::stringifyElementwiseKind(ElementwiseKind kind) {
  switch (kind) {
  case ElementwiseKind::None:
    return "none";
  case ElementwiseKind::Copy:
    return "copy";
  case ElementwiseKind::Add:
    return "add";
  case ElementwiseKind::Mul:
    return "mul";
  case ElementwiseKind::Relu:
    return "relu";
  case ElementwiseKind::Clamp:
    return "clamp";
  case ElementwiseKind::Sigmoid:
    return "sigmoid";
  case ElementwiseKind::Tanh:
    return "tanh";
  case ElementwiseKind::HardSigmoid:
    return "hardsigmoid";
  case ElementwiseKind::HardSwish:
    return "hardswish";
  case ElementwiseKind::LeakyRelu:
    return "leaky_relu";
  }
  llvm_unreachable("unknown ElementwiseKind");
}

bool quanta::isWindowPadding(tensor::PadOp pad) {
  return pad.getConstantPaddingValue() && !pad->use_empty() &&
         llvm::all_of(pad->getUsers(), [](Operation *user) {
           auto linalgOp = dyn_cast<linalg::LinalgOp>(user);
           return linalgOp && linalg::isaConvolutionOpInterface(linalgOp);
         });
}

tensor::ExtractOp quanta::matchEmbeddingLookup(Operation *op) {
  auto generic = dyn_cast<linalg::GenericOp>(op);
  if (!generic || generic.getNumDpsInputs() != 1 ||
      generic.getNumDpsInits() != 1 ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return {};
  auto ids = dyn_cast<RankedTensorType>(generic.getDpsInputs()[0].getType());
  if (!ids || !isa<IntegerType>(ids.getElementType()))
    return {};
  Operation *terminator = generic.getBody()->getTerminator();
  auto extract = terminator->getOperand(0).getDefiningOp<tensor::ExtractOp>();
  if (!extract || extract->getParentOp() != op ||
      generic.getRegion().isAncestor(extract.getTensor().getParentRegion()))
    return {};
  auto table = cast<RankedTensorType>(extract.getTensor().getType());
  if (table.getRank() != 2 || !table.getElementType().isF32())
    return {};
  auto column = extract.getIndices()[1].getDefiningOp<linalg::IndexOp>();
  if (!column || column.getDim() != generic.getNumLoops() - 1 ||
      matchPattern(extract.getIndices()[0], m_Constant()) ||
      extract.getIndices()[0].getDefiningOp<linalg::IndexOp>())
    return {};
  return extract;
}

OpClassification quanta::classifyOp(Operation *op) {
  OpClassification result;
  auto addFloatOperands = [&](unsigned begin, unsigned end) {
    for (unsigned index = begin; index < end; ++index)
      if (isFloatTensor(op->getOperand(index)))
        result.activationOperands.push_back(index);
  };
  if (op->getNumResults() != 1 || !isFloatTensor(op->getResult(0)))
    return result;
  if (matchEmbeddingLookup(op)) {
    result.role = OpRole::Embedding;
    return result;
  }

  if (isa<linalg::MatmulOp, linalg::BatchMatmulOp, linalg::Conv2DNhwcHwcfOp,
          linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNchwFchwOp,
          linalg::DepthwiseConv2DNhwcHwcOp, linalg::DepthwiseConv2DNhwcHwcmOp,
          linalg::DepthwiseConv2DNchwChwOp>(op)) {
    auto linalgOp = cast<linalg::LinalgOp>(op);
    result.role = OpRole::Weighted;
    addFloatOperands(0, 1);
    // matmul of two activations (attention) observes both as activations;
    // convolution filters are weights even when they are arguments.
    bool isMatmul = isa<linalg::MatmulOp, linalg::BatchMatmulOp>(op);
    if (isMatmul && !isConstantDerived(op->getOperand(1))) {
      addFloatOperands(1, 2);
      return result;
    }
    result.weightOperand = 1;
    // Depthwise HWCM filters have their output channels on two dimensions
    // (C, M); with M == 1 (what tosa-to-linalg produces) C is the axis.
    if (auto depthwise = dyn_cast<linalg::DepthwiseConv2DNhwcHwcmOp>(op)) {
      auto filterType = cast<RankedTensorType>(op->getOperand(1).getType());
      if (filterType.getDimSize(3) == 1)
        result.weightChannelAxis = 2;
      return result;
    }
    result.weightChannelAxis = findWeightChannelAxis(linalgOp, 1);
    return result;
  }
  // A sum pooling grows with its window: only with the division that makes
  // it an average does it share its input's qparams (PyTorch's avg_pool2d).
  if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNchwMaxOp>(op) ||
      getAveragePoolDivision(op)) {
    result.role = OpRole::SharedQParams;
    addFloatOperands(0, 1);
    return result;
  }
  // A convolution's or pool's own padding is part of that op, as in
  // PyTorch, where it is no op of its own and never observed.
  if (auto pad = dyn_cast<tensor::PadOp>(op); pad && isWindowPadding(pad))
    return result;
  if (isa<tensor::ReshapeOp, tensor::ExpandShapeOp, tensor::CollapseShapeOp,
          tensor::PadOp, tensor::ExtractSliceOp>(op)) {
    result.role = OpRole::SharedQParams;
    addFloatOperands(0, 1);
    return result;
  }
  if (isa<tensor::ConcatOp>(op)) {
    result.role = OpRole::SharedQParams;
    addFloatOperands(0, op->getNumOperands());
    return result;
  }
  if (isa<linalg::SoftmaxOp>(op)) {
    result.role = OpRole::FixedQParamsZeroToOne;
    addFloatOperands(0, 1);
    return result;
  }

  auto linalgOp = dyn_cast<linalg::LinalgOp>(op);
  if (!linalgOp)
    return result;
  result.elementwise = classifyElementwise(op);
  unsigned numInputs = linalgOp.getNumDpsInputs();
  switch (result.elementwise) {
  case ElementwiseKind::None:
    return result;
  case ElementwiseKind::Add:
  case ElementwiseKind::Mul:
    result.role = OpRole::Binary;
    break;
  case ElementwiseKind::Copy:
  case ElementwiseKind::Relu:
  case ElementwiseKind::Clamp:
    result.role = OpRole::SharedQParams;
    // Only the value itself, not the zero tensor of a linalg.max relu.
    if (auto max = dyn_cast<linalg::MaxOp>(op);
        max && isZeroTensor(max.getInputs()[0])) {
      addFloatOperands(1, 2);
      return result;
    }
    numInputs = 1;
    break;
  // PyTorch 1.13's backend configs: hardsigmoid has sigmoid's fixed
  // qparams; hardswish and leaky relu observe their output.
  case ElementwiseKind::Sigmoid:
  case ElementwiseKind::HardSigmoid:
    result.role = OpRole::FixedQParamsZeroToOne;
    break;
  case ElementwiseKind::HardSwish:
  case ElementwiseKind::LeakyRelu:
    result.role = OpRole::Unary;
    numInputs = 1;
    break;
  case ElementwiseKind::Tanh:
    result.role = OpRole::FixedQParamsMinusOneToOne;
    break;
  }
  addFloatOperands(0, numInputs);
  return result;
}

Operation *quanta::getAveragePoolDivision(Operation *op) {
  if (!isa_and_nonnull<linalg::PoolingNhwcSumOp, linalg::PoolingNchwSumOp>(
          op) ||
      !op->getResult(0).hasOneUse())
    return nullptr;
  auto window = dyn_cast<ShapedType>(op->getOperand(1).getType());
  auto generic = dyn_cast<linalg::GenericOp>(*op->getUsers().begin());
  if (!window || !window.hasStaticShape() || !generic ||
      generic.getNumDpsInputs() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getNumLoops() != generic.getNumParallelLoops() ||
      !llvm::all_of(generic.getIndexingMapsArray(),
                    [](AffineMap map) { return map.isIdentity(); }))
    return nullptr;
  Block *body = generic.getBody();
  if (!llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  Operation &compute = body->front();
  FloatAttr constant;
  if (body->getTerminator()->getOperand(0) != compute.getResult(0) ||
      compute.getNumOperands() != 2 ||
      !matchPattern(compute.getOperand(1), m_Constant(&constant)))
    return nullptr;
  const double size = static_cast<double>(window.getNumElements());
  const double factor = constant.getValueAsDouble();
  Value input = body->getArgument(0);
  if (isa<arith::DivFOp>(compute) && compute.getOperand(0) == input &&
      factor == size)
    return generic;
  if (isa<arith::MulFOp>(compute) && compute.getOperand(0) == input &&
      factor == static_cast<double>(static_cast<float>(1.0 / size)))
    return generic;
  return nullptr;
}

bool quanta::isConstantDerived(Value value) {
  Operation *def = value.getDefiningOp();
  if (!def)
    return false;
  if (matchPattern(value, m_Constant()))
    return true;
  OpClassification classification = classifyOp(def);
  if (classification.role != OpRole::SharedQParams ||
      classification.elementwise == ElementwiseKind::Relu ||
      classification.elementwise == ElementwiseKind::Clamp)
    return false;
  return llvm::all_of(classification.activationOperands, [&](unsigned index) {
    return isConstantDerived(def->getOperand(index));
  });
}

ObserveOp quanta::findReusedObserver(ObserveOp op) {
  Value value = op.getInput();
  while (Operation *def = value.getDefiningOp()) {
    if (auto source = dyn_cast<ObserveOp>(def)) {
      if (!isa<ReuseInputObserverAttr>(source.getObserver()))
        return source;
      value = source.getInput();
      continue;
    }
    // The division of an average pooling, observed as part of it.
    if (Operation *pool = def->getNumOperands() > 0
                              ? def->getOperand(0).getDefiningOp()
                              : nullptr;
        pool && getAveragePoolDivision(pool) == def) {
      value = def->getOperand(0);
      continue;
    }
    // A pool's own padding, observed as its source.
    if (auto pad = dyn_cast<tensor::PadOp>(def); pad && isWindowPadding(pad)) {
      value = pad.getSource();
      continue;
    }
    OpClassification classification = classifyOp(def);
    if (classification.role != OpRole::SharedQParams ||
        classification.activationOperands.empty())
      break;
    value = def->getOperand(classification.activationOperands.front());
  }
  return {};
}

//===- InsertObservers.cpp - PyTorch's prepare() on linalg ----------------===//
//
// Walks a function in program order and attaches observers (or, for QAT
// qconfigs, fake-quant modules) the way PyTorch 1.13's prepare_fx does with
// its default backend config. See Passes.td for the rules.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"
#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Dialect/Quanta/Transforms/QConfigPresets.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_INSERTOBSERVERS
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// The per-channel observer `observer` with its channel axis moved to
/// `axis` (per-tensor observers are returned unchanged).
static FailureOr<Attribute> withChannelAxis(Operation *op, Attribute observer,
                                            std::optional<int64_t> axis) {
  auto missingAxis = [&]() {
    return op->emitOpError(
        "has no single output-channel dimension in its weight (depthwise "
        "HWCM filters spread channels over C and M): use a per-tensor weight "
        "observer for it (e.g. override=<op>=qnnpack)");
  };
  return llvm::TypeSwitch<Attribute, FailureOr<Attribute>>(observer)
      .Case([&](PerChannelMinMaxObserverAttr attr) -> FailureOr<Attribute> {
        if (!axis)
          return missingAxis();
        return PerChannelMinMaxObserverAttr::get(
            attr.getContext(), *axis, attr.getDtype(), attr.getQscheme(),
            attr.getReduceRange(), attr.getQuantMin(), attr.getQuantMax(),
            attr.getEps(), attr.getMemoryless());
      })
      .Case([&](MovingAveragePerChannelMinMaxObserverAttr attr)
                -> FailureOr<Attribute> {
        if (!axis)
          return missingAxis();
        return MovingAveragePerChannelMinMaxObserverAttr::get(
            attr.getContext(), attr.getAveragingConstant(), *axis,
            attr.getDtype(), attr.getQscheme(), attr.getReduceRange(),
            attr.getQuantMin(), attr.getQuantMax(), attr.getEps());
      })
      .Case([&](OneFlowMinMaxObserverAttr attr) -> FailureOr<Attribute> {
        if (!attr.getPerLayerQuantization() && axis != 0)
          return op->emitOpError("OneFlow's per-channel observer works on "
                                 "axis 0, but this weight's output channels "
                                 "are not on axis 0");
        return attr;
      })
      .Case([&](FakeQuantizeAttr attr) -> FailureOr<Attribute> {
        if (!attr.getObserver())
          return attr;
        FailureOr<Attribute> moved =
            withChannelAxis(op, attr.getObserver(), axis);
        if (failed(moved))
          return failure();
        return FakeQuantizeAttr::get(
            attr.getContext(), cast<ObserverAttrInterface>(*moved),
            attr.getQuantMin(), attr.getQuantMax(), attr.getFused());
      })
      .Default([](Attribute attr) { return attr; });
}

namespace {

struct InsertObserversPass
    : public quanta::impl::InsertObserversBase<InsertObserversPass> {
  using Base::Base;

  LogicalResult initialize(MLIRContext *context) override;
  void runOnOperation() override;

private:
  /// Observes the quantizable ops of one function.
  LogicalResult insertObservers(func::FuncOp func);
  /// Fails on an override that names neither an op nor a location of the
  /// module: a typo would otherwise leave the layer it meant quantized.
  LogicalResult checkOverridesMatch(ModuleOp module);
  /// The qconfig of `op`: its `quanta.qconfig` attribute, an override, or
  /// the pass's default.
  FailureOr<QConfigAttr> getQConfigFor(Operation *op);
  /// Makes sure `value` is observed and returns the observed value; a new
  /// observer is named uniqueName(baseName()).
  FailureOr<Value> observe(Value value, Attribute observer,
                           function_ref<std::string()> baseName,
                           Operation *forOp);
  /// A unique observer name derived from `base`.
  std::string uniqueName(const Twine &base);
  /// The name of the value an observer is attached to.
  std::string valueName(Value value);
  /// The name of an op (its location name, or "<op>_<n>").
  std::string opName(Operation *op);
  /// Observes the table of the embedding lookup `op` with its qconfig's
  /// weight observer if that is a float-qparams one (PyTorch's
  /// float_qparams_weight_only_qconfig); FX leaves embeddings of other
  /// qconfigs in float, and so does this.
  LogicalResult observeEmbeddingTable(Operation *op);
  /// The last op of the fusion chain starting at `op` (bias add and relu
  /// for weighted ops, relu for binary ops); records the ops fused.
  Operation *findFusedChainEnd(Operation *op, bool allowBias);

  QConfigAttr defaultQConfig;
  SmallVector<std::pair<std::string, QConfigAttr>> opOverrides;
  // Per-function state.
  llvm::StringSet<> usedNames;
  DenseMap<Operation *, std::string> opNames;
  llvm::StringMap<unsigned> opCounters;
  DenseSet<Operation *> fusedOps;
  std::string namePrefix;
};

} // namespace

LogicalResult InsertObserversPass::initialize(MLIRContext *context) {
  auto emitError = [&]() {
    return mlir::emitError(UnknownLoc::get(context),
                           "quanta-insert-observers: ");
  };
  FailureOr<QConfigAttr> resolved = parseQConfig(context, qconfig, emitError);
  if (failed(resolved))
    return failure();
  defaultQConfig = *resolved;
  for (const std::string &entry : overrides) {
    auto [key, value] = StringRef(entry).split('=');
    if (value.empty() || key.empty())
      return emitError() << "override '" << entry
                         << "' must be <op name or location name>=<qconfig>";
    FailureOr<QConfigAttr> override = parseQConfig(context, value, emitError);
    if (failed(override))
      return failure();
    opOverrides.emplace_back(key.trim().trim('"').str(), *override);
  }
  return success();
}

FailureOr<QConfigAttr> InsertObserversPass::getQConfigFor(Operation *op) {
  if (Attribute attr = op->getAttr("quanta.qconfig")) {
    if (auto qconfigAttr = dyn_cast<QConfigAttr>(attr))
      return qconfigAttr;
    if (auto name = dyn_cast<StringAttr>(attr))
      return parseQConfig(op->getContext(), name.getValue(),
                          [&]() { return op->emitOpError(); });
    return op->emitOpError("'quanta.qconfig' must be a preset name, 'none' "
                           "or a #quanta.qconfig, got ")
           << attr;
  }
  std::optional<StringRef> locName = getLocationName(op->getLoc());
  for (const auto &[key, override] : opOverrides)
    if (key == op->getName().getStringRef() || (locName && key == *locName))
      return override;
  return defaultQConfig;
}

std::string InsertObserversPass::uniqueName(const Twine &base) {
  std::string name = (namePrefix + base).str();
  std::string candidate = name;
  for (unsigned suffix = 1; !usedNames.insert(candidate).second; ++suffix)
    candidate = name + "_" + std::to_string(suffix);
  return candidate;
}

std::string InsertObserversPass::opName(Operation *op) {
  auto it = opNames.find(op);
  if (it != opNames.end())
    return it->second;
  OpClassification classification = classifyOp(op);
  StringRef kind = isa<linalg::GenericOp>(op) &&
                           classification.elementwise != ElementwiseKind::None
                       ? stringifyElementwiseKind(classification.elementwise)
                       : op->getName().stripDialect();
  std::string name;
  // Lowerings give helper ops (the pad of a convolution, the reshapes of a
  // flatten) the location of the op they came from: those are qualified.
  if (std::optional<StringRef> locName = getLocationName(op->getLoc()))
    name = classification.role == OpRole::SharedQParams
               ? (*locName + "." + kind).str()
               : locName->str();
  else
    name = (kind + "_" + Twine(opCounters[kind]++)).str();
  return opNames[op] = name;
}

std::string InsertObserversPass::valueName(Value value) {
  if (auto arg = dyn_cast<BlockArgument>(value))
    return "arg" + std::to_string(arg.getArgNumber());
  Operation *def = value.getDefiningOp();
  if (matchPattern(value, m_Constant()))
    return opName(def);
  return opName(def) + ".output";
}

Operation *InsertObserversPass::findFusedChainEnd(Operation *op,
                                                  bool allowBias) {
  auto singleUser = [](Operation *producer) -> Operation * {
    Value result = producer->getResult(0);
    return result.hasOneUse() ? *result.getUsers().begin() : nullptr;
  };
  // Reshapes between a convolution and its bias add (tosa-to-linalg
  // collapses the M dimension of depthwise convolutions) belong to the op.
  auto skipReshapes = [&](Operation *producer) {
    Operation *user = singleUser(producer);
    if (isa_and_nonnull<tensor::CollapseShapeOp, tensor::ExpandShapeOp,
                        tensor::ReshapeOp>(user) &&
        singleUser(user))
      return user;
    return producer;
  };
  Operation *end = op;
  if (allowBias)
    if (Operation *reshape = skipReshapes(end), *user = singleUser(reshape);
        user) {
      OpClassification classification = classifyOp(user);
      bool isBiasAdd = classification.elementwise == ElementwiseKind::Add &&
                       llvm::any_of(user->getOperands(), [&](Value operand) {
                         return operand != reshape->getResult(0) &&
                                isConstantDerived(operand);
                       });
      if (isBiasAdd) {
        fusedOps.insert(reshape);
        fusedOps.insert(user);
        end = user;
      }
    }
  if (Operation *user = singleUser(end))
    if (ElementwiseKind kind = classifyOp(user).elementwise;
        kind == ElementwiseKind::Relu ||
        (fuseClamps && kind == ElementwiseKind::Clamp)) {
      fusedOps.insert(user);
      end = user;
    }
  return end;
}

FailureOr<Value>
InsertObserversPass::observe(Value value, Attribute observer,
                             function_ref<std::string()> baseName,
                             Operation *forOp) {
  if (value.getDefiningOp<ObserveOp>() || value.getDefiningOp<FakeQuantOp>())
    return value;
  OpBuilder builder(value.getContext());
  if (Operation *def = value.getDefiningOp())
    builder.setInsertionPointAfter(def);
  else {
    // After the observers of earlier arguments, to keep argument order.
    Block *block = cast<BlockArgument>(value).getOwner();
    auto it = block->begin();
    while (it != block->end() && isa<ObserveOp, FakeQuantOp>(*it) &&
           isa<BlockArgument>(it->getOperand(0)))
      ++it;
    builder.setInsertionPoint(block, it);
  }
  Location loc = value.getLoc();
  StringAttr nameAttr = builder.getStringAttr(uniqueName(baseName()));

  ObserverAttrInterface statisticsObserver;
  Operation *observerOp;
  if (auto module = dyn_cast<FakeQuantizeAttr>(observer)) {
    std::optional<int64_t> axis;
    if (module.getObserver() && module.getObserver().isPerChannel())
      axis = module.getObserver().getChannelAxis();
    auto fakeQuant = FakeQuantOp::create(builder, loc, value.getType(), value);
    fakeQuant.setFakeQuantizeAttr(module);
    fakeQuant.setObserverEnabledAttr(builder.getBoolAttr(true));
    // FixedQParamsFakeQuantize: its scale and zero point buffers are set
    // from the observer when it is built.
    if (auto fixed =
            dyn_cast_or_null<FixedQParamsObserverAttr>(module.getObserver())) {
      fakeQuant.setScaleAttr(
          builder.getDenseF32ArrayAttr({fixed.getScale().convertToFloat()}));
      fakeQuant.setZeroPointAttr(
          builder.getDenseI64ArrayAttr({fixed.getZeroPoint()}));
    }
    if (axis)
      fakeQuant.setAxisAttr(builder.getI64IntegerAttr(*axis));
    fakeQuant.setNameAttr(nameAttr);
    statisticsObserver = module.getObserver();
    observerOp = fakeQuant;
  } else {
    statisticsObserver = cast<ObserverAttrInterface>(observer);
    observerOp = ObserveOp::create(builder, loc, value.getType(), value,
                                   statisticsObserver, nameAttr,
                                   /*stats=*/Attribute());
  }
  if (failed(mlir::verify(observerOp))) {
    forOp->emitRemark("while observing operand of this op");
    observerOp->erase();
    return failure();
  }

  DenseElementsAttr constant;
  if (foldConstantWeights && statisticsObserver &&
      matchPattern(value, m_Constant(&constant))) {
    FailureOr<Attribute> stats =
        observeConstant(loc, statisticsObserver, constant);
    if (failed(stats))
      return failure();
    if (*stats)
      observerOp->setAttr("stats", *stats);
  }
  Value observed = observerOp->getResult(0);
  value.replaceAllUsesExcept(observed, observerOp);
  return observed;
}

/// Whether `op` moves data between ops that carry its own location name,
/// as the ops one front-end op (an ONNX node) translates into do: the
/// reshapes between the row sums and the divisions inside a
/// LayerNormalization's or a Softmax's decomposition. PyTorch never sees
/// such values, only the module's input and output, so they are not
/// observed: quantized with one scale for all rows, a row's sum of squares
/// far below the others' (a ViT's class token next to its patches) would
/// round to 0, and its normalized values to noise times 1 / sqrt(eps).
static bool isInsideOneFrontEndOp(Operation *op,
                                  const OpClassification &classification) {
  std::optional<StringRef> name = getLocationName(op->getLoc());
  auto sameName = [&](Operation *other) {
    return other && getLocationName(other->getLoc()) == name;
  };
  return name && !op->use_empty() &&
         llvm::all_of(classification.activationOperands,
                      [&](unsigned index) {
                        return sameName(op->getOperand(index).getDefiningOp());
                      }) &&
         llvm::all_of(op->getUsers(), sameName);
}

void InsertObserversPass::runOnOperation() {
  ModuleOp module = getOperation();
  if (failed(checkOverridesMatch(module)))
    return signalPassFailure();
  for (auto func : module.getOps<func::FuncOp>())
    if (failed(insertObservers(func)))
      return signalPassFailure();
}

LogicalResult InsertObserversPass::checkOverridesMatch(ModuleOp module) {
  if (opOverrides.empty())
    return success();
  llvm::StringSet<> names;
  module.walk([&](Operation *op) {
    names.insert(op->getName().getStringRef());
    if (std::optional<StringRef> locName = getLocationName(op->getLoc()))
      names.insert(*locName);
  });
  for (const auto &[key, override] : opOverrides) {
    if (names.contains(key))
      continue;
    InFlightDiagnostic diag = module.emitError()
                              << "quanta-insert-observers: override '" << key
                              << "' names no op and no location of the module";
    // The closest location or op name, as a typo usually is.
    StringRef closest;
    unsigned closestDistance = 3;
    for (const auto &name : names.keys())
      if (unsigned distance = name.edit_distance(key, true, closestDistance);
          distance < closestDistance) {
        closest = name;
        closestDistance = distance;
      }
    if (!closest.empty())
      diag << "; did you mean '" << closest << "'?";
    return failure();
  }
  return success();
}

/// PyTorch's observer of an op with a fixed output range (`range`:
/// "range_0to1" or "range_neg1to1"), or, where the qconfig fake-quantizes
/// (QAT), its FixedQParamsFakeQuantize, as get_default_qat_qconfig_mapping
/// chooses.
static Attribute getFixedQParamsObserver(MLIRContext *context, StringRef range,
                                         Attribute activation) {
  std::string name = ("default_fixed_qparams_" + range).str();
  if (isa<FakeQuantizeAttr>(activation))
    return getFakeQuantizePreset(context, name + "_fake_quant");
  return getObserverPreset(context, name + "_observer");
}

/// The min/max observer of `observer` (itself, or a FakeQuantize's).
static Attribute getMinMaxObserver(Attribute observer) {
  if (auto fakeQuantize = dyn_cast<FakeQuantizeAttr>(observer))
    return fakeQuantize.getObserver();
  return observer;
}

LogicalResult InsertObserversPass::observeEmbeddingTable(Operation *op) {
  FailureOr<QConfigAttr> qconfigAttr = getQConfigFor(op);
  if (failed(qconfigAttr))
    return failure();
  if (!*qconfigAttr)
    return success();
  Attribute weight = qconfigAttr->getWeight();
  auto perChannel = dyn_cast_if_present<PerChannelMinMaxObserverAttr>(
      getMinMaxObserver(weight));
  if (!perChannel ||
      perChannel.getQscheme() != QScheme::per_channel_affine_float_qparams)
    return success();
  // One scale and zero point per row, as PyTorch's ch_axis = 0.
  FailureOr<Attribute> rowObserver = withChannelAxis(op, weight, 0);
  if (failed(rowObserver))
    return failure();
  tensor::ExtractOp lookup = matchEmbeddingLookup(op);
  FailureOr<Value> table = observe(
      lookup.getTensor(), *rowObserver, [&] { return opName(op) + ".weight"; },
      op);
  if (failed(table))
    return failure();
  lookup.getTensorMutable().assign(*table);
  return success();
}

LogicalResult InsertObserversPass::insertObservers(func::FuncOp func) {
  usedNames.clear();
  opNames.clear();
  opCounters.clear();
  fusedOps.clear();
  namePrefix.clear();
  if (auto module = func->getParentOfType<ModuleOp>();
      module && llvm::range_size(module.getOps<func::FuncOp>()) > 1)
    namePrefix = (func.getSymName() + "/").str();

  WalkResult tosaCheck = func.walk([](Operation *op) {
    if (op->getDialect() && op->getDialect()->getNamespace() == "tosa") {
      op->emitOpError("is TOSA: convert to linalg first (run quanta-prepare, "
                      "which runs the upstream tosa-to-linalg pipeline)");
      return WalkResult::interrupt();
    }
    return WalkResult::advance();
  });
  if (tosaCheck.wasInterrupted())
    return failure();

  // Observer insertion creates ops; collect the candidates first.
  SmallVector<Operation *> ops;
  func.walk([&](Operation *op) {
    if (!isa<ObserveOp, FakeQuantOp>(op))
      ops.push_back(op);
  });

  for (Operation *op : ops) {
    if (fusedOps.contains(op))
      continue;
    OpClassification classification = classifyOp(op);
    if (classification.role == OpRole::Float ||
        (classification.role == OpRole::SharedQParams &&
         isInsideOneFrontEndOp(op, classification)))
      continue;
    if (classification.role == OpRole::Embedding) {
      if (failed(observeEmbeddingTable(op)))
        return failure();
      continue;
    }
    bool allInputsConstant =
        llvm::all_of(classification.activationOperands, [&](unsigned index) {
          return isConstantDerived(op->getOperand(index));
        });
    // Shape-only ops over constants compute weights, not activations.
    if (allInputsConstant && classification.role != OpRole::Weighted)
      continue;
    FailureOr<QConfigAttr> qconfigAttr = getQConfigFor(op);
    if (failed(qconfigAttr))
      return failure();
    if (!*qconfigAttr)
      continue;
    Attribute activation = qconfigAttr->getActivation();

    for (unsigned index : classification.activationOperands) {
      Value operand = op->getOperand(index);
      if (auto pad = operand.getDefiningOp<tensor::PadOp>();
          pad && isWindowPadding(pad))
        operand = pad.getSource();
      if (failed(observe(
              operand, activation, [&] { return valueName(operand); }, op)))
        return failure();
    }
    if (classification.weightOperand) {
      FailureOr<Attribute> weightObserver = withChannelAxis(
          op, qconfigAttr->getWeight(), classification.weightChannelAxis);
      if (failed(weightObserver))
        return failure();
      Value weight = op->getOperand(*classification.weightOperand);
      if (failed(observe(
              weight, *weightObserver, [&] { return opName(op) + ".weight"; },
              op)))
        return failure();
    }

    Operation *outputOp = op;
    Attribute outputObserver = activation;
    switch (classification.role) {
    case OpRole::Weighted:
      outputOp = findFusedChainEnd(op, /*allowBias=*/true);
      break;
    case OpRole::Binary:
      outputOp = findFusedChainEnd(op, /*allowBias=*/false);
      break;
    case OpRole::SharedQParams:
      outputObserver = ReuseInputObserverAttr::get(op->getContext());
      // An average pooling is observed after its division.
      if (Operation *division = getAveragePoolDivision(op)) {
        fusedOps.insert(division);
        outputOp = division;
      }
      break;
    case OpRole::FixedQParamsZeroToOne:
      outputObserver =
          getFixedQParamsObserver(op->getContext(), "range_0to1", activation);
      break;
    case OpRole::FixedQParamsMinusOneToOne:
      outputObserver = getFixedQParamsObserver(op->getContext(),
                                               "range_neg1to1", activation);
      break;
    case OpRole::Unary:
      break;
    case OpRole::Float:
    case OpRole::Embedding:
      llvm_unreachable("float ops and embeddings are handled above");
    }
    // The output observer is named after the first op of a fused chain.
    Value output = outputOp->getResult(0);
    if (failed(observe(
            output, outputObserver, [&] { return opName(op) + ".output"; },
            op)))
      return failure();
  }
  return success();
}

//===- OutlineLoops.cpp - Large loop nests into functions of their own ----===//
//
// See quanta-outline-loops in Passes.td for why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/MemoryPlan.h"
#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Interfaces/ViewLikeInterface.h"
#include "mlir/Transforms/RegionUtils.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_OUTLINELOOPS
#define GEN_PASS_DEF_OUTLINEKERNELS
#define GEN_PASS_DEF_INLINEKERNELS
#define GEN_PASS_DEF_APPLYNOALIAS
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

/// Whether `value` can be recomputed inside another function for free: a
/// constant, a global's address, or a side-effect-free op without regions
/// (a view, cast or reshape) of such values.
static bool isRematerializable(Value value, unsigned depth = 0) {
  Operation *op = value.getDefiningOp();
  if (!op || depth > 8 || op->getNumRegions() != 0 || !isMemoryEffectFree(op))
    return false;
  if (matchPattern(value, m_Constant()) || isa<memref::GetGlobalOp>(op))
    return true;
  return llvm::all_of(op->getOperands(), [&](Value operand) {
    return isRematerializable(operand, depth + 1);
  });
}

/// Clones the defining ops of `value` (rematerializable) into `builder`'s
/// position, operands first, recording them in `mapping`.
static Value rematerialize(OpBuilder &builder, Value value,
                           IRMapping &mapping) {
  if (Value mapped = mapping.lookupOrNull(value))
    return mapped;
  Operation *op = value.getDefiningOp();
  for (Value operand : op->getOperands())
    rematerialize(builder, operand, mapping);
  builder.clone(*op, mapping);
  return mapping.lookup(value);
}

/// The bytes of a mutable global a memref value can reach: the global and
/// a byte range of it, or any global's bytes (an empty name).
struct GlobalRegion {
  StringRef global;
  int64_t begin = 0;
  int64_t end = std::numeric_limits<int64_t>::max();

  bool overlaps(const GlobalRegion &other) const {
    return (global.empty() || other.global.empty() || global == other.global) &&
           begin < other.end && other.begin < end;
  }
};

/// The region of a mutable global `value` views, if it views one: a
/// `memref.view` with a constant byte shift and a static type (an arena
/// buffer of quanta-plan-memory) is its bytes, since a view of it (subview,
/// reshape, cast) stays inside or is out of bounds; anything else reaching
/// a mutable global, through a reinterpret_cast or a base buffer (which
/// may reach the whole allocation), may touch all of it, and a memref made
/// by an op that is not a view from memref operands any global.
static std::optional<GlobalRegion>
getMutableGlobalRegion(Value value, SymbolTableCollection &symbols,
                       const DataLayout &layout) {
  Operation *view = nullptr;
  bool leavesView = false;
  while (Operation *op = value.getDefiningOp()) {
    if (auto getGlobal = dyn_cast<memref::GetGlobalOp>(op)) {
      auto global = symbols.lookupNearestSymbolFrom<memref::GlobalOp>(
          getGlobal, getGlobal.getNameAttr());
      if (!global || global.getConstant())
        return std::nullopt;
      GlobalRegion region{global.getSymName()};
      auto byteView = dyn_cast_or_null<memref::ViewOp>(view);
      std::optional<int64_t> shift;
      if (byteView && !leavesView && byteView.getType().hasStaticShape() &&
          (shift = getConstantIntValue(byteView.getByteShift()))) {
        MemRefType type = byteView.getType();
        region.begin = *shift;
        region.end =
            *shift +
            type.getNumElements() *
                static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
      }
      return region;
    }
    auto viewLike = dyn_cast<ViewLikeOpInterface>(op);
    if (!viewLike) {
      if (llvm::any_of(op->getOperandTypes(), llvm::IsaPred<BaseMemRefType>))
        return GlobalRegion{};
      return std::nullopt;
    }
    leavesView |=
        isa<memref::ReinterpretCastOp, memref::ExtractStridedMetadataOp>(op);
    view = op;
    value = viewLike.getViewSource();
  }
  // A function argument: the caller's buffer, never a private global.
  return std::nullopt;
}

/// The positions, among the arguments of the LLVM function `types` become,
/// of the aligned pointers of the memrefs at `memrefIndices`: func-to-llvm
/// expands a ranked memref into its descriptor's fields (allocated and
/// aligned pointers, offset, sizes, strides) and an unranked one into rank
/// and pointer. Upstream drops `llvm.noalias` on a memref argument unless
/// every memref is a bare pointer, hence this bookkeeping.
static SmallVector<int64_t>
getAlignedPointerPositions(TypeRange types, ArrayRef<unsigned> memrefIndices) {
  SmallVector<int64_t> positions;
  int64_t position = 0;
  for (auto [index, type] : llvm::enumerate(types)) {
    if (llvm::is_contained(memrefIndices, index))
      positions.push_back(position + 1);
    if (auto memref = dyn_cast<MemRefType>(type))
      position += 3 + 2 * memref.getRank();
    else if (isa<UnrankedMemRefType>(type))
      position += 2;
    else
      ++position;
  }
  return positions;
}

static int64_t countNestedOps(Operation *op) {
  int64_t count = 0;
  op->walk([&](Operation *) { ++count; });
  return count;
}

/// The values `op` uses from outside, in first-use order.
static llvm::SetVector<Value> getCapturedValues(Operation *op) {
  llvm::SetVector<Value> captured;
  for (Value operand : op->getOperands())
    captured.insert(operand);
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, captured);
  return captured;
}

/// Moves `op` into a new private function, placed after `after` (which
/// becomes it), and calls it; `parent` is the function around `op`.
static func::FuncOp outline(Operation *op, func::FuncOp parent,
                            Operation *&after, StringRef name,
                            SymbolTable &symbols,
                            SymbolTableCollection &symbolTables) {
  llvm::SetVector<Value> captured = getCapturedValues(op);

  // Buffers of one mutable global (the arena) that no other captured value
  // overlaps are passed as noalias arguments: recomputed inside, they are
  // views of one global at variable indices, which LLVM cannot tell apart,
  // and it keeps a reduction's accumulator in memory and the loop scalar.
  DataLayout layout = DataLayout::closest(parent);
  SmallVector<std::optional<GlobalRegion>> regions;
  for (Value value : captured)
    regions.push_back(getMutableGlobalRegion(value, symbolTables, layout));
  auto isDisjointBuffer = [&](unsigned index) {
    if (!regions[index] || regions[index]->global.empty() ||
        regions[index]->end == std::numeric_limits<int64_t>::max())
      return false;
    for (auto [other, region] : llvm::enumerate(regions))
      if (other != index && region && region->overlaps(*regions[index]))
        return false;
    return true;
  };
  SmallVector<Value> arguments;
  SmallVector<unsigned> noAliasArguments;
  for (auto [index, value] : llvm::enumerate(captured)) {
    const bool disjoint = isDisjointBuffer(index);
    if (disjoint)
      noAliasArguments.push_back(arguments.size());
    if (disjoint || !isRematerializable(value))
      arguments.push_back(value);
  }

  OpBuilder builder(parent);
  builder.setInsertionPointAfter(after);
  auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                      op->getResultTypes());
  auto func = func::FuncOp::create(builder, op->getLoc(), name, type);
  func.setPrivate();
  if (!noAliasArguments.empty())
    func->setAttr(quanta::kNoAliasArgumentsAttrName,
                  builder.getDenseI64ArrayAttr(getAlignedPointerPositions(
                      type.getInputs(), noAliasArguments)));
  // The parent's LLVM attributes (vector widths), and noinline: LLVM would
  // otherwise inline the one call back.
  SmallVector<Attribute> passthrough;
  if (auto inherited = parent->getAttrOfType<ArrayAttr>("passthrough"))
    llvm::append_range(passthrough, inherited);
  passthrough.push_back(builder.getStringAttr("noinline"));
  func->setAttr("passthrough", builder.getArrayAttr(passthrough));
  symbols.insert(func);
  after = func;

  Block *body = func.addEntryBlock();
  builder.setInsertionPointToStart(body);
  IRMapping mapping;
  for (auto [value, argument] :
       llvm::zip_equal(arguments, body->getArguments()))
    mapping.map(value, argument);
  for (Value value : captured)
    if (!mapping.contains(value))
      rematerialize(builder, value, mapping);
  Operation *clone = builder.clone(*op, mapping);
  func::ReturnOp::create(builder, op->getLoc(), clone->getResults());

  builder.setInsertionPoint(op);
  auto call = func::CallOp::create(builder, op->getLoc(), func, arguments);
  op->replaceAllUsesWith(call.getResults());
  op->erase();
  return func;
}

/// The top-level ops of `func`'s body with regions holding at least
/// `minOps` ops.
static SmallVector<Operation *> getLargeNests(func::FuncOp func,
                                              int64_t minOps) {
  SmallVector<Operation *> nests;
  for (Block &block : func.getBody())
    for (Operation &op : block)
      if (op.getNumRegions() != 0 && countNestedOps(&op) >= minOps)
        nests.push_back(&op);
  return nests;
}

static LogicalResult checkMinOps(ModuleOp module, StringRef pass,
                                 int64_t minOps) {
  if (minOps >= 1)
    return success();
  return module.emitError()
         << pass << ": min-ops must be at least 1, got " << minOps;
}

/// Outlines, in each function `takesFunction` accepts, the large nests
/// (getLargeNests) `takesNest` accepts into functions named
/// `<function><suffix><n>`, which it returns.
static SmallVector<func::FuncOp>
outlineLargeNests(ModuleOp module, int64_t minOps, StringRef suffix,
                  function_ref<bool(func::FuncOp)> takesFunction,
                  function_ref<bool(Operation *)> takesNest) {
  SymbolTable symbols(module);
  SymbolTableCollection symbolTables;
  SmallVector<func::FuncOp> outlined;
  SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
  for (func::FuncOp func : funcs) {
    if (func.isExternal() || !takesFunction(func))
      continue;
    Operation *after = func;
    unsigned index = 0;
    for (Operation *op : getLargeNests(func, minOps))
      if (takesNest(op))
        outlined.push_back(
            outline(op, func, after,
                    (func.getSymName() + suffix + Twine(index++)).str(),
                    symbols, symbolTables));
  }
  return outlined;
}

namespace {
struct OutlineLoopsPass
    : public quanta::impl::OutlineLoopsBase<OutlineLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkMinOps(module, getArgument(), minOps)))
      return signalPassFailure();
    outlineLargeNests(
        module, minOps, "__quanta_loop", [](func::FuncOp) { return true; },
        [](Operation *) { return true; });
  }
};
} // namespace

/// Whether quanta-outline-kernels gives `op` a function: its results are
/// tensors of static shapes (out-parameters the caller allocates, once
/// bufferized) and no value it makes or uses from outside is quantized
/// (their storage types come later in the pipeline) or a slice (a strided
/// buffer, which the kernel's identity-layout argument would copy).
static bool isOutlinableKernel(Operation *op) {
  auto isQuantized = [](Type type) {
    return isa<quant::QuantizedType>(getElementTypeOrSelf(type));
  };
  auto isStaticTensor = [&](Type type) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    return tensor && tensor.hasStaticShape() && !isQuantized(tensor);
  };
  if (op->getNumResults() == 0 ||
      !llvm::all_of(op->getResultTypes(), isStaticTensor))
    return false;
  return llvm::none_of(getCapturedValues(op), [&](Value value) {
    return isQuantized(value.getType()) ||
           value.getDefiningOp<tensor::ExtractSliceOp>();
  });
}

namespace {
struct OutlineKernelsPass
    : public quanta::impl::OutlineKernelsBase<OutlineKernelsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (failed(checkMinOps(module, getArgument(), minOps)))
      return signalPassFailure();
    for (func::FuncOp kernel : outlineLargeNests(
             module, minOps, "__quanta_kernel",
             [](func::FuncOp func) { return func.isPublic(); },
             isOutlinableKernel))
      kernel->setAttr(quanta::kKernelAttrName,
                      UnitAttr::get(module.getContext()));
  }
};

struct InlineKernelsPass
    : public quanta::impl::InlineKernelsBase<InlineKernelsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> kernels;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (!func->hasAttr(quanta::kKernelAttrName))
        continue;
      if (!func.getBody().hasOneBlock()) {
        func.emitError() << getArgument() << ": kernel @" << func.getSymName()
                         << " has no body or more than one block";
        return signalPassFailure();
      }
      kernels.push_back(func);
    }
    SmallVector<std::pair<func::CallOp, func::FuncOp>> calls;
    module.walk([&](func::CallOp call) {
      auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
      if (callee && callee->hasAttr(quanta::kKernelAttrName))
        calls.emplace_back(call, callee);
    });

    // The functions each kernel's copies went to, for the memory plans.
    llvm::MapVector<StringAttr, llvm::SetVector<StringAttr>> callers;
    for (auto [call, callee] : calls) {
      Block &body = callee.getBody().front();
      IRMapping mapping;
      mapping.map(body.getArguments(), call.getOperands());
      OpBuilder builder(call);
      for (Operation &op : body.without_terminator())
        builder.clone(op, mapping);
      for (auto [result, returned] : llvm::zip_equal(
               call.getResults(), body.getTerminator()->getOperands()))
        result.replaceAllUsesWith(mapping.lookupOrDefault(returned));
      auto caller = call->getParentOfType<func::FuncOp>();
      callers[callee.getSymNameAttr()].insert(caller.getSymNameAttr());
      call.erase();
    }
    addKernelPlans(module, callers);
    for (func::FuncOp kernel : kernels)
      kernel.erase();
  }

  /// Moves the memory plans of the kernels in `callers` into those of the
  /// functions their copies are in: a kernel's arena is a global of its
  /// own, which the copies use.
  static void addKernelPlans(
      ModuleOp module,
      const llvm::MapVector<StringAttr, llvm::SetVector<StringAttr>> &callers) {
    if (!module->hasAttr(quanta::kMemoryPlanAttrName))
      return;
    llvm::StringMap<quanta::MemoryPlan> plans;
    SmallVector<std::string> order;
    for (auto &[name, plan] : quanta::getMemoryPlans(module)) {
      plans[name] = plan;
      order.push_back(name);
    }
    for (auto &[kernel, functions] : callers) {
      auto found = plans.find(kernel.getValue());
      if (found == plans.end())
        continue;
      for (StringAttr function : functions) {
        quanta::MemoryPlan &plan = plans[function.getValue()];
        plan.arenaBytes += found->second.arenaBytes;
        plan.lowerBoundBytes += found->second.lowerBoundBytes;
        plan.buffers += found->second.buffers;
        plan.buffersLeft += found->second.buffersLeft;
      }
    }
    SmallVector<NamedAttribute> kept;
    for (const std::string &name : order)
      if (!callers.contains(StringAttr::get(module.getContext(), name)))
        kept.emplace_back(StringAttr::get(module.getContext(), name),
                          plans[name].toAttribute(module.getContext()));
    module->setAttr(quanta::kMemoryPlanAttrName,
                    DictionaryAttr::get(module.getContext(), kept));
  }
};
} // namespace

namespace {
struct ApplyNoAliasPass
    : public quanta::impl::ApplyNoAliasBase<ApplyNoAliasPass> {
  void runOnOperation() override {
    getOperation().walk([&](LLVM::LLVMFuncOp func) {
      auto positions = func->getAttrOfType<DenseI64ArrayAttr>(
          quanta::kNoAliasArgumentsAttrName);
      if (!positions)
        return;
      func->removeAttr(quanta::kNoAliasArgumentsAttrName);
      ArrayRef<Type> types = func.getFunctionType().getParams();
      for (int64_t position : positions.asArrayRef()) {
        if (position < 0 || position >= static_cast<int64_t>(types.size()) ||
            !isa<LLVM::LLVMPointerType>(types[position])) {
          func.emitError() << "quanta-apply-noalias: argument " << position
                           << " of " << func.getSymName()
                           << " is not a pointer; was the function "
                              "converted with bare-pointer memrefs?";
          return signalPassFailure();
        }
        func.setArgAttr(position, LLVM::LLVMDialect::getNoAliasAttrName(),
                        UnitAttr::get(func.getContext()));
      }
    });
  }
};
} // namespace

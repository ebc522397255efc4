//===- PlanMemory.cpp - Intermediate buffers in one arena by liveness -----===//
//
// See quanta-plan-memory in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/MemoryPlan.h"
#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/DataLayoutInterfaces.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/MathExtras.h"

#include <functional>
#include <limits>

namespace mlir::quanta {
#define GEN_PASS_DEF_PLANMEMORY
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// Every placement starts at a multiple of this: a cache line, and the
/// widest vector any kernel loads.
static constexpr int64_t kArenaAlignment = 64;

namespace {
/// One buffer to place: its allocation, its lifetime as positions of the
/// function's top-level ops (inclusive) and its size.
struct Buffer {
  memref::AllocOp alloc;
  int64_t first, last, bytes, alignment;
  int64_t offset = 0;
};
} // namespace

/// The position of the top-level op of `entry` that holds `op`.
static int64_t positionIn(Block &entry, Operation *op,
                          const llvm::DenseMap<Operation *, int64_t> &order) {
  return order.lookup(entry.findAncestorOpInBlock(*op));
}

/// The lifetime of `alloc` in `entry`: from its top-level op to that of the
/// last use of it or of anything derived from it (views, casts, results of
/// the ops using it). std::nullopt when one of them reaches a terminator,
/// whose successor the function does not bound.
static std::optional<std::pair<int64_t, int64_t>>
getLifetime(memref::AllocOp alloc, Block &entry,
            const llvm::DenseMap<Operation *, int64_t> &order) {
  const int64_t first = positionIn(entry, alloc, order);
  int64_t last = first;
  SmallVector<Value> worklist{alloc.getResult()};
  llvm::SmallPtrSet<Value, 8> seen;
  while (!worklist.empty()) {
    Value value = worklist.pop_back_val();
    if (!seen.insert(value).second)
      continue;
    for (Operation *user : value.getUsers()) {
      if (user->hasTrait<OpTrait::IsTerminator>())
        return std::nullopt;
      last = std::max(last, positionIn(entry, user, order));
      for (Value result : user->getResults())
        if (isa<BaseMemRefType>(result.getType()))
          worklist.push_back(result);
    }
  }
  return std::make_pair(first, last);
}

/// Places `buffers` in `order`, each at the lowest offset where it overlaps
/// no buffer placed before it whose lifetime overlaps its own; returns the
/// arena size.
static int64_t placeInOrder(MutableArrayRef<Buffer> buffers,
                            ArrayRef<int64_t> order) {
  SmallVector<Buffer *> placed;
  int64_t arenaBytes = 0;
  for (int64_t index : order) {
    Buffer *buffer = &buffers[index];
    SmallVector<Buffer *> live;
    for (Buffer *other : placed)
      if (other->first <= buffer->last && buffer->first <= other->last)
        live.push_back(other);
    llvm::sort(live, [](const Buffer *a, const Buffer *b) {
      return a->offset < b->offset;
    });
    int64_t offset = 0;
    for (Buffer *other : live) {
      if (offset + buffer->bytes <= other->offset)
        break;
      offset = std::max<int64_t>(
          offset, llvm::alignTo(other->offset + other->bytes,
                                static_cast<uint64_t>(buffer->alignment)));
    }
    buffer->offset = offset;
    placed.push_back(buffer);
    arenaBytes = std::max(arenaBytes, offset + buffer->bytes);
  }
  return arenaBytes;
}

/// Places `buffers` (sets their offsets); returns the arena size. No order
/// is best for every graph: the plan is the smallest of greedy by size
/// (TFLite's), by size and then longest lifetime, and by first use
/// (linear scan).
static int64_t placeBuffers(MutableArrayRef<Buffer> buffers) {
  auto bySize = [&](int64_t a, int64_t b) {
    return buffers[a].bytes > buffers[b].bytes;
  };
  auto bySizeThenLifetime = [&](int64_t a, int64_t b) {
    const Buffer &x = buffers[a], &y = buffers[b];
    return std::make_tuple(x.bytes, x.last - x.first) >
           std::make_tuple(y.bytes, y.last - y.first);
  };
  auto byFirstUse = [&](int64_t a, int64_t b) {
    return std::make_pair(buffers[a].first, -buffers[a].bytes) <
           std::make_pair(buffers[b].first, -buffers[b].bytes);
  };
  SmallVector<int64_t> best;
  int64_t bestBytes = std::numeric_limits<int64_t>::max();
  for (const std::function<bool(int64_t, int64_t)> &less :
       {std::function<bool(int64_t, int64_t)>(bySize),
        std::function<bool(int64_t, int64_t)>(bySizeThenLifetime),
        std::function<bool(int64_t, int64_t)>(byFirstUse)}) {
    auto order = llvm::to_vector(
        llvm::seq<int64_t>(0, static_cast<int64_t>(buffers.size())));
    llvm::stable_sort(order, less);
    const int64_t bytes = placeInOrder(buffers, order);
    if (bytes < bestBytes) {
      bestBytes = bytes;
      best = std::move(order);
    }
  }
  return placeInOrder(buffers, best);
}

/// The largest total of bytes live at one position.
static int64_t getLivenessLowerBound(ArrayRef<Buffer> buffers) {
  // (position, +bytes) at the start and (position + 1, -bytes) after the
  // end; ends sort before starts at the same position.
  SmallVector<std::pair<int64_t, int64_t>> events;
  for (const Buffer &buffer : buffers) {
    events.emplace_back(buffer.first, buffer.bytes);
    events.emplace_back(buffer.last + 1, -buffer.bytes);
  }
  llvm::sort(events);
  int64_t live = 0, peak = 0;
  for (auto [position, delta] : events) {
    live += delta;
    peak = std::max(peak, live);
  }
  return peak;
}

/// Plans the buffers of `func` and rewrites its allocations into views of
/// a new arena global; returns what it did.
static MemoryPlan planFunction(func::FuncOp func, SymbolTable &symbols) {
  MemoryPlan plan;
  if (!func.getBody().hasOneBlock())
    return plan;
  Block &entry = func.getBody().front();
  llvm::DenseMap<Operation *, int64_t> order;
  for (auto [position, op] : llvm::enumerate(entry))
    order[&op] = static_cast<int64_t>(position);
  DataLayout layout = DataLayout::closest(func);

  SmallVector<Buffer> buffers;
  func.walk([&](memref::AllocOp alloc) {
    MemRefType type = alloc.getType();
    std::optional<std::pair<int64_t, int64_t>> lifetime;
    if (type.hasStaticShape() && type.getLayout().isIdentity() &&
        !alloc->getParentOfType<scf::ParallelOp>() &&
        !alloc->getParentOfType<scf::ForallOp>())
      lifetime = getLifetime(alloc, entry, order);
    if (!lifetime) {
      ++plan.buffersLeft;
      return;
    }
    const int64_t bytes =
        type.getNumElements() *
        static_cast<int64_t>(layout.getTypeSize(type.getElementType()));
    const int64_t alignment = std::max<int64_t>(
        kArenaAlignment,
        static_cast<int64_t>(alloc.getAlignment().value_or(1)));
    buffers.push_back({alloc, lifetime->first, lifetime->second,
                       std::max<int64_t>(bytes, 1), alignment});
  });
  if (buffers.empty())
    return plan;
  plan.arenaBytes = placeBuffers(buffers);
  plan.lowerBoundBytes = getLivenessLowerBound(buffers);
  plan.buffers = static_cast<int64_t>(buffers.size());

  OpBuilder builder(func);
  auto arenaType = MemRefType::get({plan.arenaBytes}, builder.getI8Type());
  auto arena = memref::GlobalOp::create(
      builder, func.getLoc(), ("__quanta_arena_" + func.getSymName()).str(),
      builder.getStringAttr("private"), arenaType, builder.getUnitAttr(),
      /*constant=*/false, builder.getI64IntegerAttr(kArenaAlignment));
  symbols.insert(arena);
  for (Buffer &buffer : buffers) {
    builder.setInsertionPoint(buffer.alloc);
    Location loc = buffer.alloc.getLoc();
    Value bytes = memref::GetGlobalOp::create(builder, loc, arenaType,
                                              arena.getSymName());
    Value shift = arith::ConstantIndexOp::create(builder, loc, buffer.offset);
    Value view = memref::ViewOp::create(builder, loc, buffer.alloc.getType(),
                                        bytes, shift, ValueRange{});
    buffer.alloc.getResult().replaceAllUsesWith(view);
    buffer.alloc.erase();
  }
  return plan;
}

namespace {
struct PlanMemoryPass : public quanta::impl::PlanMemoryBase<PlanMemoryPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    SymbolTable symbols(module);
    SmallVector<NamedAttribute> plans;
    for (auto func : llvm::to_vector(module.getOps<func::FuncOp>())) {
      if (func.isExternal())
        continue;
      MemoryPlan plan = planFunction(func, symbols);
      plans.emplace_back(func.getSymNameAttr(),
                         plan.toAttribute(module.getContext()));
      if (report)
        func.emitRemark() << "quanta-plan-memory: " << plan.describe();
    }
    module->setAttr(kMemoryPlanAttrName,
                    DictionaryAttr::get(module.getContext(), plans));
  }
};
} // namespace

DictionaryAttr MemoryPlan::toAttribute(MLIRContext *context) const {
  Builder builder(context);
  return builder.getDictionaryAttr(
      {builder.getNamedAttr("arena_bytes",
                            builder.getI64IntegerAttr(arenaBytes)),
       builder.getNamedAttr("lower_bound_bytes",
                            builder.getI64IntegerAttr(lowerBoundBytes)),
       builder.getNamedAttr("buffers", builder.getI64IntegerAttr(buffers)),
       builder.getNamedAttr("buffers_left",
                            builder.getI64IntegerAttr(buffersLeft))});
}

std::string MemoryPlan::describe() const {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << "arena " << arenaBytes << " bytes for " << buffers << " buffers";
  if (lowerBoundBytes > 0)
    os << llvm::formatv(", {0:f2}x the liveness lower bound ({1} bytes)",
                        double(arenaBytes) / double(lowerBoundBytes),
                        lowerBoundBytes);
  os << "; " << buffersLeft << " allocation" << (buffersLeft == 1 ? "" : "s")
     << " per call";
  return text;
}

SmallVector<std::pair<std::string, MemoryPlan>>
mlir::quanta::getMemoryPlans(ModuleOp module) {
  SmallVector<std::pair<std::string, MemoryPlan>> plans;
  auto all = module->getAttrOfType<DictionaryAttr>(kMemoryPlanAttrName);
  if (!all)
    return plans;
  for (NamedAttribute entry : all) {
    auto fields = dyn_cast<DictionaryAttr>(entry.getValue());
    if (!fields)
      continue;
    auto field = [&](StringRef name) -> int64_t {
      auto value = fields.getAs<IntegerAttr>(name);
      return value ? value.getInt() : 0;
    };
    plans.emplace_back(entry.getName().str(),
                       MemoryPlan{field("arena_bytes"),
                                  field("lower_bound_bytes"), field("buffers"),
                                  field("buffers_left")});
  }
  return plans;
}

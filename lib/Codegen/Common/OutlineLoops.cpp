//===- OutlineLoops.cpp - Large loop nests into functions of their own ----===//
//
// See quanta-outline-loops in Passes.td for why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "mlir/Transforms/RegionUtils.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_OUTLINELOOPS
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

static int64_t countNestedOps(Operation *op) {
  int64_t count = 0;
  op->walk([&](Operation *) { ++count; });
  return count;
}

/// Moves `op` into a new private function, placed after `after` (which
/// becomes it), and calls it; `parent` is the function around `op`.
static void outline(Operation *op, func::FuncOp parent, Operation *&after,
                    StringRef name, SymbolTable &symbols) {
  // The values `op` uses from outside, in first-use order.
  llvm::SetVector<Value> captured;
  for (Value operand : op->getOperands())
    captured.insert(operand);
  for (Region &region : op->getRegions())
    getUsedValuesDefinedAbove(region, captured);
  SmallVector<Value> arguments;
  for (Value value : captured)
    if (!isRematerializable(value))
      arguments.push_back(value);

  OpBuilder builder(parent);
  builder.setInsertionPointAfter(after);
  auto type = builder.getFunctionType(ValueRange(arguments).getTypes(),
                                      op->getResultTypes());
  auto func = func::FuncOp::create(builder, op->getLoc(), name, type);
  func.setPrivate();
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
}

namespace {
struct OutlineLoopsPass
    : public quanta::impl::OutlineLoopsBase<OutlineLoopsPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (minOps < 1) {
      module.emitError() << "quanta-outline-loops: min-ops must be at least "
                            "1, got "
                         << static_cast<int64_t>(minOps);
      return signalPassFailure();
    }
    SymbolTable symbols(module);
    SmallVector<func::FuncOp> funcs(module.getOps<func::FuncOp>());
    for (func::FuncOp func : funcs) {
      if (func.isExternal())
        continue;
      SmallVector<Operation *> nests;
      for (Block &block : func.getBody())
        for (Operation &op : block)
          if (op.getNumRegions() != 0 && countNestedOps(&op) >= minOps)
            nests.push_back(&op);
      Operation *after = func;
      for (auto [index, op] : llvm::enumerate(nests))
        outline(op, func, after,
                (func.getSymName() + "__quanta_loop" + Twine(index)).str(),
                symbols);
    }
  }
};
} // namespace

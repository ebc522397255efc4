//===- MergeFunctions.cpp - One function for loop nests alike but for constants
//
// See quanta-merge-functions in Passes.td for why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/SymbolTable.h"
#include "llvm/ADT/DenseMap.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_MERGEFUNCTIONS
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

/// Whether `op` may hold another value in a function merged with this one:
/// a scalar constant, a constant tensor of static shape or a global's
/// address (a layer's scales, zero points, weights, tables and buffer
/// offsets), passed as an argument where they differ. An intrinsic's
/// operand stays a constant: LLVM requires immediates for some (`immarg`).
static bool isParameterizable(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op)) {
    auto tensor = dyn_cast<RankedTensorType>(constant.getType());
    return (constant.getType().isIntOrIndexOrFloat() ||
            (tensor && tensor.hasStaticShape())) &&
           llvm::none_of(op->getUsers(), llvm::IsaPred<LLVM::CallIntrinsicOp>);
  }
  return isa<memref::GetGlobalOp>(op);
}

/// The value of a parameterizable op that may differ between functions.
static Attribute getParameterValue(Operation *op) {
  if (auto constant = dyn_cast<arith::ConstantOp>(op))
    return constant.getValue();
  return cast<memref::GetGlobalOp>(op).getNameAttr();
}

namespace {
/// A function called once, by `call`: its attributes but its name, its ops
/// in pre-order, its parameterizable ops among them, and a hash of
/// everything but their values.
struct FunctionShape {
  func::FuncOp func;
  func::CallOp call;
  DictionaryAttr attributes;
  SmallVector<Operation *> ops;
  SmallVector<Operation *> parameters;
  llvm::hash_code hash;

  FunctionShape(func::FuncOp func, func::CallOp call) : func(func), call(call) {
    NamedAttrList named(func->getAttrDictionary());
    named.erase(SymbolTable::getSymbolAttrName());
    attributes = named.getDictionary(func.getContext());
    hash = llvm::hash_combine(func.getFunctionType(), attributes);
    func.getBody().walk<WalkOrder::PreOrder>([&](Operation *op) {
      ops.push_back(op);
      const bool parameter = isParameterizable(op);
      if (parameter)
        parameters.push_back(op);
      hash = llvm::hash_combine(
          hash, op->getName(), op->getNumOperands(), op->getNumRegions(),
          parameter ? Attribute() : Attribute(op->getAttrDictionary()));
      for (Type type : op->getResultTypes())
        hash = llvm::hash_combine(hash, type);
    });
  }
};
} // namespace

/// Whether the regions of `lhs` and `rhs` have the same blocks, mapping
/// their arguments in `values`.
static bool mapRegions(Operation *lhs, Operation *rhs,
                       DenseMap<Value, Value> &values) {
  for (auto [lhsRegion, rhsRegion] :
       llvm::zip_equal(lhs->getRegions(), rhs->getRegions())) {
    if (lhsRegion.getBlocks().size() != rhsRegion.getBlocks().size())
      return false;
    for (auto [lhsBlock, rhsBlock] : llvm::zip(lhsRegion, rhsRegion)) {
      if (lhsBlock.getArgumentTypes() != rhsBlock.getArgumentTypes())
        return false;
      for (auto [lhsArgument, rhsArgument] :
           llvm::zip(lhsBlock.getArguments(), rhsBlock.getArguments()))
        values[lhsArgument] = rhsArgument;
    }
  }
  return true;
}

/// Whether `rhs` computes what `lhs` does but for the values of their
/// parameterizable ops: the same ops in the same order on corresponding
/// operands, with the same types and other attributes.
static bool haveSameShape(FunctionShape &lhs, FunctionShape &rhs) {
  if (lhs.hash != rhs.hash || lhs.ops.size() != rhs.ops.size() ||
      lhs.func.getFunctionType() != rhs.func.getFunctionType() ||
      lhs.attributes != rhs.attributes)
    return false;
  DenseMap<Value, Value> values;
  for (auto [lhsArgument, rhsArgument] :
       llvm::zip(lhs.func.getArguments(), rhs.func.getArguments()))
    values[lhsArgument] = rhsArgument;
  for (auto [lhsOp, rhsOp] : llvm::zip_equal(lhs.ops, rhs.ops)) {
    if (lhsOp->getName() != rhsOp->getName() ||
        lhsOp->getNumOperands() != rhsOp->getNumOperands() ||
        lhsOp->getNumRegions() != rhsOp->getNumRegions() ||
        lhsOp->getNumSuccessors() != 0 || rhsOp->getNumSuccessors() != 0 ||
        lhsOp->getResultTypes() != rhsOp->getResultTypes())
      return false;
    if (!isParameterizable(lhsOp) &&
        lhsOp->getAttrDictionary() != rhsOp->getAttrDictionary())
      return false;
    for (auto [lhsOperand, rhsOperand] :
         llvm::zip(lhsOp->getOperands(), rhsOp->getOperands()))
      if (values.lookup(lhsOperand) != rhsOperand)
        return false;
    for (auto [lhsResult, rhsResult] :
         llvm::zip(lhsOp->getResults(), rhsOp->getResults()))
      values[lhsResult] = rhsResult;
    if (!mapRegions(lhsOp, rhsOp, values))
      return false;
  }
  return true;
}

/// Rewrites the calls of every function of `group` into calls of the first,
/// which takes as arguments the parameters whose values differ in the group;
/// erases the others.
static void mergeGroup(ArrayRef<FunctionShape *> group) {
  FunctionShape &kept = *group.front();
  SmallVector<unsigned> differing;
  for (auto [index, parameter] : llvm::enumerate(kept.parameters)) {
    Attribute value = getParameterValue(parameter);
    if (llvm::any_of(group.drop_front(), [&](FunctionShape *member) {
          return getParameterValue(member->parameters[index]) != value;
        }))
      differing.push_back(index);
  }

  // Each call computes its function's values of the differing parameters.
  for (FunctionShape *member : group) {
    func::CallOp call = member->call;
    OpBuilder builder(call);
    SmallVector<Value> operands(call.getOperands());
    for (unsigned index : differing)
      operands.push_back(
          builder.clone(*member->parameters[index])->getResult(0));
    auto merged =
        func::CallOp::create(builder, call.getLoc(), kept.func, operands);
    call.replaceAllUsesWith(merged.getResults());
    call.erase();
  }
  Block &entry = kept.func.getBody().front();
  for (unsigned index : differing) {
    Operation *parameter = kept.parameters[index];
    Value argument = entry.addArgument(parameter->getResult(0).getType(),
                                       parameter->getLoc());
    parameter->getResult(0).replaceAllUsesWith(argument);
    parameter->erase();
  }
  kept.func.setType(FunctionType::get(kept.func.getContext(),
                                      entry.getArgumentTypes(),
                                      kept.func.getResultTypes()));
  for (FunctionShape *member : group.drop_front())
    member->func.erase();
}

namespace {
struct MergeFunctionsPass
    : public quanta::impl::MergeFunctionsBase<MergeFunctionsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Private functions called once, directly (the loop nests of
    // quanta-outline-loops), and no other use of their names.
    llvm::DenseMap<StringAttr, SmallVector<Operation *, 1>> users;
    module.walk([&](Operation *op) {
      if (auto call = dyn_cast<func::CallOp>(op)) {
        users[call.getCalleeAttr().getAttr()].push_back(op);
        return;
      }
      if (op == module.getOperation() || isa<func::FuncOp>(op))
        return;
      // Any other reference to a symbol keeps it out.
      for (NamedAttribute attribute : op->getAttrs())
        attribute.getValue().walk([&](SymbolRefAttr reference) {
          users[reference.getRootReference()].push_back(op);
        });
    });
    std::vector<FunctionShape> shapes;
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isPublic() || func.isExternal())
        continue;
      auto found = users.find(func.getSymNameAttr());
      if (found != users.end() && found->second.size() == 1)
        if (auto call = dyn_cast<func::CallOp>(found->second.front()))
          shapes.emplace_back(func, call);
    }

    // Groups in the order of their first function, each member's shape
    // compared with the first's.
    SmallVector<SmallVector<FunctionShape *>> groups;
    DenseMap<size_t, SmallVector<unsigned>> groupsByHash;
    for (FunctionShape &shape : shapes) {
      SmallVector<unsigned> &candidates = groupsByHash[size_t(shape.hash)];
      auto match = llvm::find_if(candidates, [&](unsigned group) {
        return haveSameShape(*groups[group].front(), shape);
      });
      if (match != candidates.end()) {
        groups[*match].push_back(&shape);
        continue;
      }
      candidates.push_back(groups.size());
      groups.push_back({&shape});
    }
    for (ArrayRef<FunctionShape *> group : groups)
      if (group.size() > 1)
        mergeGroup(group);
  }
};
} // namespace

//===- OrderConstants.cpp - Bufferization's constants in first-use order --===//
//
// See quanta-order-constants in Passes.td for why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "llvm/ADT/MapVector.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_ORDERCONSTANTS
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

namespace {
struct OrderConstantsPass
    : public quanta::impl::OrderConstantsBase<OrderConstantsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // The globals bufferization makes for constant tensors.
    llvm::DenseMap<StringAttr, memref::GlobalOp> made;
    for (auto global : module.getOps<memref::GlobalOp>())
      if (global.getConstant() && global.isPrivate() &&
          global.getSymName().starts_with("__constant_"))
        made[global.getSymNameAttr()] = global;
    if (made.empty())
      return;

    llvm::MapVector<memref::GlobalOp, StringAttr> renamed;
    SmallVector<memref::GetGlobalOp> reads;
    module.walk([&](memref::GetGlobalOp read) {
      auto found = made.find(read.getNameAttr().getAttr());
      if (found == made.end())
        return;
      reads.push_back(read);
      if (!renamed.contains(found->second))
        renamed[found->second] = StringAttr::get(
            module.getContext(),
            "__quanta_constant_" + std::to_string(renamed.size()));
    });
    for (memref::GetGlobalOp read : reads)
      read.setName(renamed.lookup(made.lookup(read.getNameAttr().getAttr())));
    for (auto &[global, name] : llvm::reverse(renamed)) {
      global.setSymName(name);
      global->moveBefore(&module.getBody()->front());
    }
    for (auto &[name, global] : made)
      if (!renamed.contains(global))
        global.erase();
  }
};
} // namespace

//===- ProfileCalls.cpp - Time each kernel call ---------------------------===//
//
// See quanta-profile-calls in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_PROFILECALLS
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

namespace {
struct ProfileCallsPass
    : public quanta::impl::ProfileCallsBase<ProfileCallsPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (!module->hasAttr(kProfileAttrName))
      return;
    MLIRContext *context = module.getContext();
    OpBuilder builder(context);
    builder.setInsertionPointToStart(module.getBody());
    Type i64 = builder.getI64Type();
    auto declare = [&](StringRef name) {
      auto callee = func::FuncOp::create(builder, module.getLoc(), name,
                                         builder.getFunctionType({i64}, {}));
      callee.setPrivate();
      return callee;
    };
    func::FuncOp begin = declare(kProfileBeginFunction);
    func::FuncOp end = declare(kProfileEndFunction);

    SymbolTable symbols(module);
    SmallVector<Attribute> sites;
    for (auto function : module.getOps<func::FuncOp>()) {
      if (function.isExternal() || function.isPrivate())
        continue;
      for (auto call : llvm::make_early_inc_range(
               function.getBody().getOps<func::CallOp>())) {
        auto callee = symbols.lookup<func::FuncOp>(call.getCallee());
        if (!callee || callee.isExternal() || callee.isPublic())
          continue;
        Location loc = call.getLoc();
        std::string location;
        if (std::optional<StringRef> name = getLocationName(loc))
          location = name->str();
        else
          llvm::raw_string_ostream(location) << loc;
        sites.push_back(builder.getDictionaryAttr(
            {builder.getNamedAttr("kernel",
                                  builder.getStringAttr(call.getCallee())),
             builder.getNamedAttr("location",
                                  builder.getStringAttr(location))}));
        builder.setInsertionPoint(call);
        Value id = arith::ConstantIntOp::create(
            builder, loc, i64, static_cast<int64_t>(sites.size() - 1));
        func::CallOp::create(builder, loc, begin, id);
        builder.setInsertionPointAfter(call);
        func::CallOp::create(builder, loc, end, id);
      }
    }
    module->setAttr(kProfileSitesAttrName, builder.getArrayAttr(sites));
  }
};
} // namespace

//===- ConstantsAsBytes.cpp - Large constant buffers as i8 globals
//---------===//
//
// See quanta-constants-as-bytes in Passes.td for why.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/SymbolTable.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_CONSTANTSASBYTES
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

/// The bytes of `global`'s initializer when it is a constant worth storing
/// as bytes: dense, not a splat (LLVM writes those compactly), of elements
/// whose raw data is their memory image (not i1, which is bit-packed).
static std::optional<ArrayRef<char>> getByteImage(memref::GlobalOp global,
                                                  int64_t minBytes) {
  auto initial =
      dyn_cast_if_present<DenseElementsAttr>(global.getInitialValueAttr());
  MemRefType type = global.getType();
  if (!global.getConstant() || !initial || initial.isSplat() ||
      !type.getLayout().isIdentity() || !type.hasStaticShape() ||
      type.getElementType().isInteger(8))
    return std::nullopt;
  Type element = type.getElementType();
  const bool plain =
      element.isIndex() ||
      (element.isIntOrFloat() && element.getIntOrFloatBitWidth() % 8 == 0);
  ArrayRef<char> bytes = initial.getRawData();
  if (!plain || static_cast<int64_t>(bytes.size()) < minBytes)
    return std::nullopt;
  return bytes;
}

namespace {
struct ConstantsAsBytesPass
    : public quanta::impl::ConstantsAsBytesBase<ConstantsAsBytesPass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(module.getContext());
    Type i8 = builder.getI8Type();
    llvm::DenseMap<StringAttr, memref::GlobalOp> replaced;
    for (auto global :
         llvm::make_early_inc_range(module.getOps<memref::GlobalOp>())) {
      std::optional<ArrayRef<char>> bytes = getByteImage(global, minBytes);
      if (!bytes)
        continue;
      auto byteType =
          MemRefType::get({static_cast<int64_t>(bytes->size())}, i8);
      auto data = DenseElementsAttr::getFromRawBuffer(
          RankedTensorType::get(byteType.getShape(), i8), *bytes);
      builder.setInsertionPoint(global);
      auto byteGlobal = memref::GlobalOp::create(
          builder, global.getLoc(), global.getSymName(),
          global.getSymVisibilityAttr(), byteType, data, /*constant=*/true,
          builder.getI64IntegerAttr(std::max<int64_t>(
              64, static_cast<int64_t>(global.getAlignment().value_or(0)))));
      replaced[global.getSymNameAttr()] = byteGlobal;
      global.erase();
    }
    if (replaced.empty())
      return;
    module.walk([&](memref::GetGlobalOp op) {
      auto it = replaced.find(op.getNameAttr().getAttr());
      if (it == replaced.end())
        return;
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      Value bytes = memref::GetGlobalOp::create(
          builder, loc, it->second.getType(), it->second.getSymName());
      Value zero = arith::ConstantIndexOp::create(builder, loc, 0);
      Value view = memref::ViewOp::create(builder, loc, op.getType(), bytes,
                                          zero, ValueRange{});
      op.replaceAllUsesWith(view);
      op.erase();
    });
  }
};
} // namespace

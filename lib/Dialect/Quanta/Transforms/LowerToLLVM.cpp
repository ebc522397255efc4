//===- LowerToLLVM.cpp - The pipeline from tensors to the LLVM dialect ----===//
//
// What the JIT (quanta-calibrate, quant-run) and object-file emission run
// on a module of tensors: one definition, so that a model calibrates,
// runs and links through the same lowering.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIES
#define GEN_PASS_DEF_STORAGESIGNATURES
#define GEN_PASS_DEF_LOWERINTRINSICS
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

namespace {
struct LowerIntrinsicsPass
    : public quanta::impl::LowerIntrinsicsBase<LowerIntrinsicsPass> {
  void runOnOperation() override {
    getOperation()->walk([](quanta::IntrinsicOp op) {
      OpBuilder builder(op);
      auto call = LLVM::CallIntrinsicOp::create(
          builder, op.getLoc(), op.getResult().getType(), op.getNameAttr(),
          op.getOperands());
      op.getResult().replaceAllUsesWith(call.getResult(0));
      op.erase();
    });
  }
};

/// `type` with quantized elements replaced by their storage type.
static Type toStorage(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto quantized = tensor
                       ? dyn_cast<quant::QuantizedType>(tensor.getElementType())
                       : nullptr;
  return quantized ? tensor.clone(quantized.getStorageType()) : type;
}

/// `values` cast to `types` with quant.scast where they differ.
static SmallVector<Value> storageCasts(OpBuilder &builder, Location loc,
                                       ValueRange values, TypeRange types) {
  SmallVector<Value> cast;
  for (auto [value, type] : llvm::zip_equal(values, types))
    cast.push_back(value.getType() == type
                       ? value
                       : quant::StorageCastOp::create(builder, loc, type, value)
                             .getResult());
  return cast;
}

/// Gives the quantized `value` its storage type; its users get a quant.scast
/// back to the quantized type, created at the builder's insertion point.
static void retypeToStorage(OpBuilder &builder, Value value, Location loc) {
  Type quantized = value.getType();
  Type storage = toStorage(quantized);
  if (storage == quantized)
    return;
  value.setType(storage);
  auto cast = quant::StorageCastOp::create(builder, loc, quantized, value);
  value.replaceAllUsesExcept(cast.getResult(), cast);
}

struct StorageSignaturesPass
    : public quanta::impl::StorageSignaturesBase<StorageSignaturesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    OpBuilder builder(module.getContext());
    for (auto func : module.getOps<func::FuncOp>()) {
      if (func.isExternal())
        continue;
      FunctionType type = func.getFunctionType();
      auto inputs = llvm::map_to_vector(type.getInputs(), toStorage);
      auto results = llvm::map_to_vector(type.getResults(), toStorage);
      if (TypeRange(inputs) == type.getInputs() &&
          TypeRange(results) == type.getResults())
        continue;
      Block &entry = func.getBody().front();
      builder.setInsertionPointToStart(&entry);
      for (BlockArgument argument : entry.getArguments())
        retypeToStorage(builder, argument, func.getLoc());
      func.walk([&](func::ReturnOp op) {
        builder.setInsertionPoint(op);
        op->setOperands(
            storageCasts(builder, op.getLoc(), op.getOperands(), results));
      });
      func.setFunctionType(builder.getFunctionType(inputs, results));
      if (auto uses = SymbolTable::getSymbolUses(func, module)) {
        for (SymbolTable::SymbolUse use : *uses) {
          auto call = dyn_cast<func::CallOp>(use.getUser());
          if (!call)
            continue;
          builder.setInsertionPoint(call);
          call->setOperands(
              storageCasts(builder, call.getLoc(), call.getOperands(), inputs));
          builder.setInsertionPointAfter(call);
          for (Value result : call.getResults())
            retypeToStorage(builder, result, call.getLoc());
        }
      }
    }
  }
};

/// Whether the LLVM lowering copies `type` with a plain memcpy (the test of
/// upstream's MemRefCopyOpLowering).
static bool isCopiedByMemcpy(Type type) {
  auto memref = dyn_cast<MemRefType>(type);
  return memref && (memref.getLayout().isIdentity() ||
                    (memref.hasStaticShape() && memref.getNumElements() > 0 &&
                     memref::isStaticShapeAndContiguousRowMajor(memref)));
}

struct ExpandStridedCopiesPass
    : public quanta::impl::ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    getOperation()->walk([](memref::CopyOp op) {
      if (isCopiedByMemcpy(op.getSource().getType()) &&
          isCopiedByMemcpy(op.getTarget().getType()))
        return;
      OpBuilder builder(op);
      linalg::CopyOp::create(builder, op.getLoc(), op.getSource(),
                             op.getTarget());
      op.erase();
    });
  }
};
} // namespace

void quanta::buildLowerToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(quanta::createStorageSignatures());
  // quant.qcast/dcast to arithmetic; the quant.scast pairs left between
  // integer ops cancel out.
  pm.addNestedPass<func::FuncOp>(createLowerQuantCasts());
  pm.addPass(createCanonicalizerPass());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  // Results become caller-owned out-parameters: nothing leaks per call.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(quanta::createLowerIntrinsics());
  pm.addPass(quanta::createExpandStridedCopies());
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToLoopsPass());
  pm.addPass(createConvertVectorToSCFPass());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  pm.addPass(createConvertMathToLibmPass());
  pm.addPass(createConvertVectorToLLVMPass());
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createConvertMathToLLVMPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

void quanta::registerLowerToLLVMPipeline() {
  PassPipelineRegistration<>(
      "quanta-lower-to-llvm",
      "Quant casts to arithmetic, one-shot bufferization (results as "
      "out-parameters), then everything to the LLVM dialect",
      buildLowerToLLVMPipeline);
}

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
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::quanta {
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
} // namespace

void quanta::buildLowerToLLVMPipeline(OpPassManager &pm) {
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

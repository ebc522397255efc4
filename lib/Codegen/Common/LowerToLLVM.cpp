//===- LowerToLLVM.cpp - The pipeline from tensors to the LLVM dialect ----===//
//
// What the JIT (quanta-calibrate, quant-run) and object-file emission run
// on a module of tensors: one definition, so that a model calibrates,
// runs and links through the same lowering.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Conversion/AffineToStandard/AffineToStandard.h"
#include "mlir/Conversion/ArithToLLVM/ArithToLLVM.h"
#include "mlir/Conversion/ControlFlowToLLVM/ControlFlowToLLVM.h"
#include "mlir/Conversion/FuncToLLVM/ConvertFuncToLLVMPass.h"
#include "mlir/Conversion/MathToLLVM/MathToLLVM.h"
#include "mlir/Conversion/MathToLibm/MathToLibm.h"
#include "mlir/Conversion/MemRefToLLVM/MemRefToLLVM.h"
#include "mlir/Conversion/OpenMPToLLVM/ConvertOpenMPToLLVM.h"
#include "mlir/Conversion/ReconcileUnrealizedCasts/ReconcileUnrealizedCasts.h"
#include "mlir/Conversion/SCFToControlFlow/SCFToControlFlow.h"
#include "mlir/Conversion/UBToLLVM/UBToLLVM.h"
#include "mlir/Conversion/VectorToLLVM/ConvertVectorToLLVMPass.h"
#include "mlir/Conversion/VectorToSCF/VectorToSCF.h"
#include "mlir/Dialect/Bufferization/Pipelines/Passes.h"
#include "mlir/Dialect/Bufferization/Transforms/Passes.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Linalg/Passes.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/MemRef/Transforms/Passes.h"
#include "mlir/Dialect/MemRef/Utils/MemRefUtils.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/ADT/SetVector.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_ALLOCATERESULTSHAPES
#define GEN_PASS_DEF_DECOMPOSEAGGREGATES
#define GEN_PASS_DEF_EXPANDSTRIDEDCOPIES
#define GEN_PASS_DEF_STORAGESIGNATURES
#define GEN_PASS_DEF_LOWERINTRINSICS
#include "quanta/Codegen/Common/Passes.h.inc"
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

/// `type` with quantized elements replaced by their storage type, and
/// unsigned integers (ONNX's uint8 in imported signatures) by signless
/// ones: what bufferization and the LLVM lowering take.
static Type toStorage(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return type;
  if (auto quantized = dyn_cast<quant::QuantizedType>(tensor.getElementType()))
    return tensor.clone(quantized.getStorageType());
  if (auto integer = dyn_cast<IntegerType>(tensor.getElementType());
      integer && !integer.isSignless())
    return tensor.clone(
        IntegerType::get(type.getContext(), integer.getWidth()));
  return type;
}

/// `value` reinterpreted as `type`: quant.scast to or from quantized
/// types, tensor.bitcast between integer signednesses.
static Value reinterpret(OpBuilder &builder, Location loc, Type type,
                         Value value) {
  auto isQuantized = [](Type t) {
    return isa<quant::QuantizedType>(getElementTypeOrSelf(t));
  };
  if (isQuantized(type) || isQuantized(value.getType()))
    return quant::StorageCastOp::create(builder, loc, type, value);
  return tensor::BitcastOp::create(builder, loc, type, value);
}

/// `values` cast to `types` where they differ.
static SmallVector<Value> storageCasts(OpBuilder &builder, Location loc,
                                       ValueRange values, TypeRange types) {
  SmallVector<Value> cast;
  for (auto [value, type] : llvm::zip_equal(values, types))
    cast.push_back(value.getType() == type
                       ? value
                       : reinterpret(builder, loc, type, value));
  return cast;
}

/// Gives the quantized (or unsigned) `value` its storage type; its users get
/// a cast back to its type, created at the builder's insertion point.
static void retypeToStorage(OpBuilder &builder, Value value, Location loc) {
  Type quantized = value.getType();
  Type storage = toStorage(quantized);
  if (storage == quantized)
    return;
  value.setType(storage);
  Value cast = reinterpret(builder, loc, quantized, value);
  value.replaceAllUsesExcept(cast, cast.getDefiningOp());
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

/// How many trailing dimensions of `type` (static) are laid out contiguously
/// row-major: 0 when the innermost stride is not 1.
static int64_t countContiguousTrailingDims(MemRefType type) {
  SmallVector<int64_t> strides;
  int64_t offset;
  if (!type.hasStaticShape() ||
      failed(type.getStridesAndOffset(strides, offset)))
    return 0;
  int64_t dims = 0, runningStride = 1;
  for (int64_t dim = type.getRank() - 1;
       dim >= 0 && strides[dim] == runningStride; --dim, ++dims)
    runningStride *= type.getDimSize(dim);
  return dims;
}

/// A copy between non-contiguous buffers whose trailing dimensions are
/// contiguous in both (the interior of a tensor.pad): a loop nest over the
/// leading dimensions copying one contiguous block each, which lowers to
/// memcpy. Anything else becomes linalg.copy, a loop per element.
static void expandStridedCopy(memref::CopyOp op) {
  OpBuilder builder(op);
  Location loc = op.getLoc();
  auto sourceType = cast<MemRefType>(op.getSource().getType());
  auto targetType = cast<MemRefType>(op.getTarget().getType());
  const int64_t rank = sourceType.getRank();
  const int64_t blockDims = std::min(countContiguousTrailingDims(sourceType),
                                     countContiguousTrailingDims(targetType));
  if (blockDims == 0 || blockDims == rank) {
    linalg::CopyOp::create(builder, loc, op.getSource(), op.getTarget());
    op.erase();
    return;
  }
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(builder, loc, value);
  };
  SmallVector<Value> lowerBounds(rank - blockDims, index(0)),
      steps(rank - blockDims, index(1)), upperBounds;
  for (int64_t dim = 0; dim < rank - blockDims; ++dim)
    upperBounds.push_back(index(sourceType.getDimSize(dim)));
  scf::buildLoopNest(
      builder, loc, lowerBounds, upperBounds, steps,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange ivs) {
        SmallVector<OpFoldResult> offsets(ivs.begin(), ivs.end()),
            sizes(rank - blockDims, nested.getIndexAttr(1)),
            strides(rank, nested.getIndexAttr(1));
        offsets.append(blockDims, nested.getIndexAttr(0));
        for (int64_t dim = rank - blockDims; dim < rank; ++dim)
          sizes.push_back(nested.getIndexAttr(sourceType.getDimSize(dim)));
        auto block = [&](Value buffer) -> Value {
          return memref::SubViewOp::create(nested, nestedLoc, buffer, offsets,
                                           sizes, strides);
        };
        memref::CopyOp::create(nested, nestedLoc, block(op.getSource()),
                               block(op.getTarget()));
      });
  op.erase();
}

struct DecomposeAggregatesPass
    : public quanta::impl::DecomposeAggregatesBase<DecomposeAggregatesPass> {
  void runOnOperation() override {
    SmallVector<linalg::AggregatedOpInterface> aggregates;
    getOperation()->walk(
        [&](linalg::AggregatedOpInterface op) { aggregates.push_back(op); });
    IRRewriter rewriter(&getContext());
    for (linalg::AggregatedOpInterface op : aggregates) {
      rewriter.setInsertionPoint(op);
      FailureOr<SmallVector<Value>> decomposed =
          op.decomposeOperation(rewriter);
      if (failed(decomposed)) {
        op->emitOpError("could not be decomposed into linalg ops");
        return signalPassFailure();
      }
      rewriter.replaceOp(op, *decomposed);
    }
  }
};

struct ExpandStridedCopiesPass
    : public quanta::impl::ExpandStridedCopiesBase<ExpandStridedCopiesPass> {
  void runOnOperation() override {
    SmallVector<memref::CopyOp> copies;
    getOperation()->walk([&](memref::CopyOp op) {
      if (!isCopiedByMemcpy(op.getSource().getType()) ||
          !isCopiedByMemcpy(op.getTarget().getType()))
        copies.push_back(op);
    });
    for (memref::CopyOp op : copies)
      expandStridedCopy(op);
  }
};

/// Replaces `alloc` by an allocation of the type `reshape` (an expand or
/// collapse of it) gives, its other users reading and writing the inverse
/// reshape of the new buffer: for static shapes of the identity layout,
/// the same bytes in the same order.
template <typename InverseOp, typename ReshapeOp>
static void allocateReshaped(memref::AllocOp alloc, ReshapeOp reshape) {
  auto resultType = cast<MemRefType>(reshape.getType());
  if (!alloc.getType().getLayout().isIdentity() ||
      !alloc.getType().hasStaticShape() ||
      !resultType.getLayout().isIdentity() || !resultType.hasStaticShape())
    return;
  OpBuilder builder(alloc);
  auto buffer = memref::AllocOp::create(builder, alloc.getLoc(), resultType,
                                        alloc.getAlignmentAttr());
  auto view = InverseOp::create(builder, alloc.getLoc(), alloc.getType(),
                                buffer, reshape.getReassociationIndices());
  reshape.getResult().replaceAllUsesWith(buffer.getResult());
  reshape.erase();
  alloc.getResult().replaceAllUsesWith(view.getResult());
  alloc.erase();
}

struct AllocateResultShapesPass
    : public quanta::impl::AllocateResultShapesBase<AllocateResultShapesPass> {
  void runOnOperation() override {
    // In program order, each once (a reshape may be returned twice).
    llvm::SetVector<Operation *> reshapes;
    getOperation()->walk([&](func::ReturnOp op) {
      for (Value result : op.getOperands()) {
        Operation *reshape = result.getDefiningOp();
        if (isa_and_nonnull<memref::ExpandShapeOp, memref::CollapseShapeOp>(
                reshape) &&
            reshape->getOperand(0).getDefiningOp<memref::AllocOp>())
          reshapes.insert(reshape);
      }
    });
    for (Operation *reshape : reshapes) {
      // Another reshape of the same allocation may have replaced it.
      auto alloc = reshape->getOperand(0).getDefiningOp<memref::AllocOp>();
      if (!alloc)
        continue;
      if (auto expand = dyn_cast<memref::ExpandShapeOp>(reshape))
        allocateReshaped<memref::CollapseShapeOp>(alloc, expand);
      else
        allocateReshaped<memref::ExpandShapeOp>(
            alloc, cast<memref::CollapseShapeOp>(reshape));
    }
  }
};
} // namespace

void quanta::buildLowerToLLVMPipeline(OpPassManager &pm) {
  pm.addPass(quanta::createDecomposeAggregates());
  pm.addPass(quanta::createStorageSignatures());
  // Fake quantization with known qparams (an imported QDQ model run in
  // float) and quant.qcast/dcast to arithmetic; the quant.scast pairs left
  // between integer ops cancel out.
  pm.addNestedPass<func::FuncOp>(createLowerFakeQuant());
  pm.addNestedPass<func::FuncOp>(createLowerQuantCasts());
  // Identical layers' kernels once, up to quanta-inline-kernels.
  pm.addPass(quanta::createOutlineKernels());
  pm.addPass(quanta::createMergeFunctions());
  // Function passes up to quanta-inline-kernels run on the kernels in
  // parallel.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  pm.addNestedPass<func::FuncOp>(quanta::createFuseElementwise());
  bufferization::OneShotBufferizePassOptions bufferize;
  bufferize.bufferizeFunctionBoundaries = true;
  // Recurrent networks loop over time (scf.for carrying the states): once
  // quantized, a state is no longer computed into its loop argument's
  // buffer, so the loop yields a new one each step.
  bufferize.allowReturnAllocsFromLoops = true;
  bufferize.functionBoundaryTypeConversion =
      bufferization::LayoutMapOption::IdentityLayoutMap;
  pm.addPass(bufferization::createOneShotBufferizePass(bufferize));
  pm.addPass(quanta::createOrderConstants());
  pm.addPass(quanta::createConstantsAsBytes());
  // The canonicalizer folds the loops' buffer results to the buffers they
  // write (scf.for yielding its iteration argument), which shows the
  // allocation behind each reshaped result.
  pm.addNestedPass<func::FuncOp>(createCanonicalizerPass());
  // With quanta.threads: the kernels' row loops parallel, before the
  // memory plan, which keeps per-iteration buffers of parallel loops out
  // of the shared arena.
  pm.addPass(quanta::createParallelize());
  pm.addPass(quanta::createAllocateResultShapes());
  // Results become caller-owned out-parameters: nothing leaks per call.
  bufferization::BufferResultsToOutParamsPassOptions outParams;
  outParams.modifyPublicFunctions = true;
  outParams.hoistStaticAllocs = true;
  // A kernel updating an argument in place returns it: no out-parameter.
  pm.addPass(bufferization::createDropEquivalentBufferResultsPass());
  pm.addPass(bufferization::createBufferResultsToOutParamsPass(outParams));
  // What is left allocated is intermediate: one arena per function, so
  // nothing is allocated per call (before deallocation, which then has
  // nothing of it to free).
  pm.addPass(quanta::createPlanMemory());
  bufferization::buildBufferDeallocationPipeline(pm);
  pm.addPass(quanta::createLowerIntrinsics());
  pm.addPass(quanta::createExpandStridedCopies());
  // Parallel loops for linalg's parallel dimensions: with one thread
  // scf-to-cf runs them as the sequential loops convert-linalg-to-loops
  // would write. Before vector-to-scf, so that the stack buffers it makes
  // go into the parallel bodies' allocation scopes, not one shared by all
  // threads.
  pm.addNestedPass<func::FuncOp>(createConvertLinalgToParallelLoopsPass());
  pm.addPass(quanta::createParallelizeOpenMP());
  pm.addNestedPass<func::FuncOp>(createConvertVectorToSCFPass());
  pm.addPass(quanta::createInlineAllocationScopes());
  pm.addPass(quanta::createInlineKernels());
  // Each large loop nest a function of its own: LLVM's loop passes cost
  // more than linearly in a function's size.
  pm.addPass(quanta::createOutlineLoops());
  // Identical layers: their loop nests once.
  pm.addPass(quanta::createMergeFunctions());
  pm.addPass(quanta::createProfileCalls());
  pm.addPass(createSCFToControlFlowPass());
  pm.addPass(memref::createExpandStridedMetadataPass());
  pm.addPass(createLowerAffinePass());
  // GELU's erf, softmax's and sigmoid's exp, the gates' tanh: arithmetic
  // LLVM vectorizes instead of a libm call per element.
  pm.addPass(quanta::createApproximateMath(
      ApproximateMathOptions{{"erf", "exp", "tanh"}}));
  // Math LLVM has instructions for (fma, floor, roundeven, sqrt, ...) as
  // its intrinsics, which it vectorizes; a libm call (roundevenf, fmaf)
  // keeps the loop around it scalar. Only the rest goes to libm.
  ConvertMathToLLVMPassOptions mathOptions;
  mathOptions.approximateLog1p = false;
  pm.addPass(createConvertMathToLLVMPass(mathOptions));
  pm.addPass(createConvertMathToLibmPass());
  // 2-D transposes (quanta-lower-x86's byte transposes of NCHW images) as
  // one vector.shuffle each, not the default element-wise extracts and
  // inserts.
  ConvertVectorToLLVMPassOptions vectorOptions;
  vectorOptions.vectorTransposeLowering =
      vector::VectorTransposeLowering::Shuffle1D;
  pm.addPass(createConvertVectorToLLVMPass(vectorOptions));
  pm.addPass(createFinalizeMemRefToLLVMConversionPass());
  pm.addPass(createArithToLLVMConversionPass());
  pm.addPass(createConvertFuncToLLVMPass());
  pm.addPass(quanta::createApplyNoAlias());
  pm.addPass(createConvertControlFlowToLLVMPass());
  pm.addPass(createUBToLLVMConversionPass());
  pm.addPass(createConvertOpenMPToLLVMPass());
  pm.addPass(createReconcileUnrealizedCastsPass());
}

LogicalResult quanta::lowerToLLVM(ModuleOp module) {
  // Quanta's integer and narrow-weight products are lowered by the kernel
  // passes only; bufferization would otherwise reject them without naming
  // the cause.
  WalkResult kernels = module.walk([](Operation *op) {
    if (!isa<quanta::QMatmulOp, quanta::QBatchMatmulOp,
             quanta::DynamicQMatmulOp, quanta::WeightOnlyMatmulOp>(op))
      return WalkResult::advance();
    op->emitError() << "'" << op->getName()
                    << "' is lowered by the kernel passes only: run "
                       "quanta-lower-cpu (or quanta-lower-x86, "
                       "quanta-lower-neon) for the target first, e.g. "
                       "quant-run --pass-pipeline='builtin.module("
                       "quanta-lower-x86)'";
    return WalkResult::interrupt();
  });
  if (kernels.wasInterrupted())
    return failure();
  PassManager pm(module.getContext());
  buildLowerToLLVMPipeline(pm);
  // Verifying the whole module after each of the pipeline's ~60 passes took
  // half of MobileNetV2's lowering (1.5 of 3.1 s). The lit tests run the
  // passes verified (quanta-lower-to-llvm); the result is verified here.
  pm.enableVerifier(false);
  return success(succeeded(pm.run(module)) && succeeded(verify(module)));
}

//===- Parallelize.cpp - The kernels' independent loops on threads --------===//
//
// See quanta-parallelize in Passes.td.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_PARALLELIZE
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// `loop` (marked, carrying no values) as an scf.parallel of the same
/// iterations and body.
static void toParallel(scf::ForOp loop) {
  OpBuilder builder(loop);
  auto parallel = scf::ParallelOp::create(
      builder, loop.getLoc(), ValueRange{loop.getLowerBound()},
      ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  Block *body = parallel.getBody();
  // The new body ends with its scf.reduce; the loop's yield goes.
  loop.getBody()->getTerminator()->erase();
  body->getOperations().splice(body->begin(), loop.getBody()->getOperations());
  loop.getInductionVar().replaceAllUsesWith(parallel.getInductionVars()[0]);
  loop.erase();
}

/// Keeps `loop` (an scf.parallel with one scf.reduce and no results, as
/// convert-linalg-to-parallel-loops writes a linalg op's parallel
/// dimensions) parallel over its leading dimensions up to the first that
/// iterates more than once, the others sequential scf.for loops inside it:
/// OpenMP would otherwise collapse every dimension into one iteration
/// space, one element per iteration, with a division per index, and LLVM
/// could no longer vectorize the innermost loop (measured: ResNet-18 int8
/// 2.3x slower on 2 threads than on 1).
static void keepOuterDimensionsParallel(scf::ParallelOp loop) {
  const unsigned rank = loop.getNumLoops();
  unsigned parallelDims = 1;
  for (unsigned dim = 0; dim < rank; ++dim) {
    parallelDims = dim + 1;
    std::optional<int64_t> lower =
                               getConstantIntValue(loop.getLowerBound()[dim]),
                           upper =
                               getConstantIntValue(loop.getUpperBound()[dim]);
    if (!lower || !upper || *upper - *lower > 1)
      break;
  }
  if (parallelDims == rank || loop.getNumResults() != 0)
    return;
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  auto outer = scf::ParallelOp::create(
      builder, loc, loop.getLowerBound().take_front(parallelDims),
      loop.getUpperBound().take_front(parallelDims),
      loop.getStep().take_front(parallelDims));
  builder.setInsertionPointToStart(outer.getBody());
  scf::LoopNest inner = scf::buildLoopNest(
      builder, loc, loop.getLowerBound().drop_front(parallelDims),
      loop.getUpperBound().drop_front(parallelDims),
      loop.getStep().drop_front(parallelDims));
  Block *innermost = inner.loops.back().getBody();
  Block *body = loop.getBody();
  body->getTerminator()->erase();
  innermost->getOperations().splice(innermost->begin(), body->getOperations());
  for (unsigned dim = 0; dim < rank; ++dim)
    loop.getInductionVars()[dim].replaceAllUsesWith(
        dim < parallelDims ? outer.getInductionVars()[dim]
                           : inner.loops[dim - parallelDims].getInductionVar());
  loop.erase();
}

/// `scope`'s body in its place between a stack save and a restore: what
/// the LLVM lowering of memref.alloca_scope does, but before scf-to-cf,
/// which would split the body into blocks the scope does not allow.
/// convert-scf-to-openmp wraps each parallel body in a scope, and
/// vector-to-scf puts the stack buffers of the bodies' transfers in it.
static void inlineWithStackRestore(memref::AllocaScopeOp scope) {
  OpBuilder builder(scope);
  Location loc = scope.getLoc();
  Value stack = LLVM::StackSaveOp::create(
      builder, loc, LLVM::LLVMPointerType::get(builder.getContext()));
  Block *body = &scope.getBodyRegion().front();
  Operation *terminator = body->getTerminator();
  SmallVector<Value> results(terminator->getOperands());
  terminator->erase();
  scope->getBlock()->getOperations().splice(Block::iterator(scope),
                                            body->getOperations());
  LLVM::StackRestoreOp::create(builder, loc, stack);
  scope->replaceAllUsesWith(results);
  scope.erase();
}

namespace {
struct ParallelizePass : public quanta::impl::ParallelizeBase<ParallelizePass> {
  using Base::Base;
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const int64_t threads = getModuleThreads(module);
    if (phase != "loops" && phase != "openmp" && phase != "scopes") {
      module.emitError() << "quanta-parallelize: unknown phase '" << phase
                         << "' (expected loops, openmp or scopes)";
      return signalPassFailure();
    }
    if (threads == 1)
      return;
    if (phase == "loops") {
      // Outermost first: a marked loop inside one already parallel stays
      // sequential (its thread runs it).
      SmallVector<scf::ForOp> marked;
      module.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
        if (loop->hasAttr(kParallelLoopAttrName) && loop.getNumResults() == 0 &&
            !loop->getParentOfType<scf::ParallelOp>())
          marked.push_back(loop);
      });
      for (scf::ForOp loop : marked)
        if (!loop->getParentOfType<scf::ParallelOp>())
          toParallel(loop);
      return;
    }
    if (phase == "scopes") {
      SmallVector<memref::AllocaScopeOp> scopes;
      module.walk(
          [&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
      for (memref::AllocaScopeOp scope : scopes)
        inlineWithStackRestore(scope);
      return;
    }
    SmallVector<scf::ParallelOp> outermost;
    module.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost)
      keepOuterDimensionsParallel(loop);
    OpPassManager openmp(ModuleOp::getOperationName());
    ConvertSCFToOpenMPPassOptions options;
    options.numThreads = static_cast<unsigned>(threads);
    openmp.addPass(createConvertSCFToOpenMPPass(options));
    openmp.addPass(createCanonicalizerPass());
    if (failed(runPipeline(openmp, module)))
      return signalPassFailure();
  }
};
} // namespace

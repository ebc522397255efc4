//===- Parallelize.cpp - The kernels' independent loops on threads --------===//
//
// quanta-parallelize, quanta-parallelize-openmp and
// quanta-inline-allocation-scopes (Passes.td): three steps of the lowering
// to LLVM.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Conversion/SCFToOpenMP/SCFToOpenMP.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/OpenMP/OpenMPDialect.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/MathExtras.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_PARALLELIZE
#define GEN_PASS_DEF_PARALLELIZEOPENMP
#define GEN_PASS_DEF_INLINEALLOCATIONSCOPES
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// `loop` (marked, carrying no values) as an scf.parallel of the same
/// iterations, body and mark (its count of iterations, which
/// quanta-parallelize-openmp reads again).
static void toParallel(scf::ForOp loop) {
  OpBuilder builder(loop);
  auto parallel = scf::ParallelOp::create(
      builder, loop.getLoc(), ValueRange{loop.getLowerBound()},
      ValueRange{loop.getUpperBound()}, ValueRange{loop.getStep()});
  parallel->setAttr(kParallelLoopAttrName,
                    loop->getAttr(kParallelLoopAttrName));
  Block *body = parallel.getBody();
  // The new body ends with its scf.reduce; the loop's yield goes.
  loop.getBody()->getTerminator()->erase();
  body->getOperations().splice(body->begin(), loop.getBody()->getOperations());
  loop.getInductionVar().replaceAllUsesWith(parallel.getInductionVars()[0]);
  loop.erase();
}

/// Below this many iterations of its innermost bodies a loop nest stays
/// sequential: forking and joining the threads costs more than it saves
/// (measured: the digits CNN, a few thousand multiply-adds per layer, 4 us
/// on one thread and 47 us on two when every loop was parallel).
static constexpr uint64_t kMinParallelIterations = 1 << 14;

/// The iterations of a loop whose bounds are not constants, for the
/// estimate.
static constexpr uint64_t kUnknownTripCount = 64;

static uint64_t getTripCount(Value lower, Value upper, Value step) {
  std::optional<int64_t> low = getConstantIntValue(lower),
                         high = getConstantIntValue(upper),
                         stride = getConstantIntValue(step);
  if (!low || !high || !stride || *stride <= 0)
    return kUnknownTripCount;
  return *high <= *low ? 0 : llvm::divideCeil(*high - *low, *stride);
}

static uint64_t getTripCount(Operation *op) {
  if (auto loop = dyn_cast<scf::ForOp>(op))
    return getTripCount(loop.getLowerBound(), loop.getUpperBound(),
                        loop.getStep());
  if (auto loop = dyn_cast<scf::ParallelOp>(op)) {
    uint64_t trips = 1;
    for (auto [lower, upper, step] :
         llvm::zip(loop.getLowerBound(), loop.getUpperBound(), loop.getStep()))
      trips = llvm::SaturatingMultiply(trips, getTripCount(lower, upper, step));
    return trips;
  }
  return 1;
}

/// How many times the innermost bodies of the loops in `block` run, about:
/// each loop's trip count times the most its body's branches run.
static uint64_t estimateIterations(Block &block) {
  uint64_t total = 1;
  for (Operation &op : block) {
    if (op.getNumRegions() == 0)
      continue;
    uint64_t inner = 0;
    for (Region &region : op.getRegions())
      for (Block &nested : region)
        inner = std::max(inner, estimateIterations(nested));
    total = llvm::SaturatingAdd(
        total, llvm::SaturatingMultiply(getTripCount(&op), inner));
  }
  return total;
}

static bool isWorthThreads(Operation *loop) {
  if (auto work = loop->getAttrOfType<IntegerAttr>(kParallelLoopAttrName))
    return static_cast<uint64_t>(work.getInt()) >= kMinParallelIterations;
  return llvm::SaturatingMultiply(
             getTripCount(loop),
             estimateIterations(loop->getRegion(0).front())) >=
         kMinParallelIterations;
}

/// Splits `loop` (an scf.parallel with one scf.reduce and no results, as
/// convert-linalg-to-parallel-loops writes a linalg op's parallel
/// dimensions) into an scf.parallel over its first `parallelDims`
/// dimensions (0: none) with sequential scf.for loops over the others
/// inside it.
static void splitParallelLoop(scf::ParallelOp loop, unsigned parallelDims) {
  const unsigned rank = loop.getNumLoops();
  if (parallelDims >= rank || loop.getNumResults() != 0)
    return;
  OpBuilder builder(loop);
  Location loc = loop.getLoc();
  SmallVector<Value> ivs;
  if (parallelDims > 0) {
    auto outer = scf::ParallelOp::create(
        builder, loc, loop.getLowerBound().take_front(parallelDims),
        loop.getUpperBound().take_front(parallelDims),
        loop.getStep().take_front(parallelDims));
    llvm::append_range(ivs, outer.getInductionVars());
    builder.setInsertionPointToStart(outer.getBody());
  }
  scf::LoopNest inner = scf::buildLoopNest(
      builder, loc, loop.getLowerBound().drop_front(parallelDims),
      loop.getUpperBound().drop_front(parallelDims),
      loop.getStep().drop_front(parallelDims));
  for (scf::ForOp nested : inner.loops)
    ivs.push_back(nested.getInductionVar());
  Block *innermost = inner.loops.back().getBody();
  Block *body = loop.getBody();
  body->getTerminator()->erase();
  innermost->getOperations().splice(innermost->begin(), body->getOperations());
  for (auto [old, replacement] : llvm::zip_equal(loop.getInductionVars(), ivs))
    old.replaceAllUsesWith(replacement);
  loop.erase();
}

/// How many leading dimensions of `loop` stay parallel: up to the first
/// that iterates more than once. OpenMP would otherwise collapse every
/// dimension into one iteration space, one element per iteration, with a
/// division per index, and LLVM could no longer vectorize the innermost
/// loop (measured: ResNet-18 int8 2.3x slower on 2 threads than on 1).
static unsigned countOuterParallelDims(scf::ParallelOp loop) {
  const unsigned rank = loop.getNumLoops();
  for (unsigned dim = 0; dim < rank; ++dim)
    if (getTripCount(loop.getLowerBound()[dim], loop.getUpperBound()[dim],
                     loop.getStep()[dim]) > 1)
      return dim + 1;
  return rank;
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
  void runOnOperation() override {
    ModuleOp module = getOperation();
    if (getModuleThreads(module) == 1)
      return;
    // Outermost first: a marked loop inside one already parallel stays
    // sequential (its thread runs it).
    SmallVector<scf::ForOp> marked;
    module.walk<WalkOrder::PreOrder>([&](scf::ForOp loop) {
      if (loop->hasAttr(kParallelLoopAttrName) && loop.getNumResults() == 0 &&
          isWorthThreads(loop) && !loop->getParentOfType<scf::ParallelOp>())
        marked.push_back(loop);
    });
    for (scf::ForOp loop : marked)
      if (!loop->getParentOfType<scf::ParallelOp>())
        toParallel(loop);
  }
};

struct ParallelizeOpenMPPass
    : public quanta::impl::ParallelizeOpenMPBase<ParallelizeOpenMPPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    const int64_t threads = getModuleThreads(module);
    if (threads == 1) {
      // convert-linalg-to-parallel-loops wrote scf.parallel loops, each an
      // automatic allocation scope: vector-to-scf would put its stack
      // buffers in their bodies, which scf-to-cf then turns into plain
      // loops that allocate stack on every iteration (MobileNetV2 at batch
      // 32 overflowed the 8 MB stack). Sequential loops, inner first.
      SmallVector<scf::ParallelOp> loops;
      module.walk([&](scf::ParallelOp loop) { loops.push_back(loop); });
      for (scf::ParallelOp loop : loops)
        splitParallelLoop(loop, 0);
      return;
    }
    SmallVector<scf::ParallelOp> outermost;
    module.walk([&](scf::ParallelOp loop) {
      if (!loop->getParentOfType<scf::ParallelOp>())
        outermost.push_back(loop);
    });
    for (scf::ParallelOp loop : outermost)
      splitParallelLoop(
          loop, isWorthThreads(loop) ? countOuterParallelDims(loop) : 0);
    OpPassManager openmp(ModuleOp::getOperationName());
    ConvertSCFToOpenMPPassOptions options;
    options.numThreads = static_cast<unsigned>(threads);
    openmp.addPass(createConvertSCFToOpenMPPass(options));
    openmp.addPass(createCanonicalizerPass());
    if (failed(runPipeline(openmp, module)))
      return signalPassFailure();
  }
};

struct InlineAllocationScopesPass
    : public quanta::impl::InlineAllocationScopesBase<
          InlineAllocationScopesPass> {
  void runOnOperation() override {
    ModuleOp module = getOperation();
    // Upstream vector-to-scf allocates the buffer of an unrolled transfer
    // in the innermost loop around it (an scf.for is an allocation scope),
    // which scf-to-cf and LLVM turn into a stack allocation per iteration:
    // the masked edge tiles of MobileNetV2's NCHW transposes at batch 32
    // overflowed the 8 MB stack. Each buffer is written before it is read
    // in an iteration, so one per allocation scope (the function, or a
    // thread's parallel body) serves every iteration.
    module.walk([](memref::AllocaOp alloca) {
      if (!alloca.getDynamicSizes().empty() ||
          !alloca.getSymbolOperands().empty())
        return;
      // scf loops are allocation scopes in MLIR, but scf-to-cf lowers them
      // without restoring the stack.
      Operation *scope = alloca->getParentOp();
      while (scope &&
             (!scope->hasTrait<OpTrait::AutomaticAllocationScope>() ||
              isa<scf::ForOp, scf::ParallelOp, scf::ForallOp, scf::WhileOp>(
                  scope)))
        scope = scope->getParentOp();
      if (!scope || alloca->getParentOp() == scope)
        return;
      Block &entry = scope->getRegion(0).front();
      alloca->moveBefore(&entry, entry.begin());
    });
    SmallVector<memref::AllocaScopeOp> scopes;
    module.walk([&](memref::AllocaScopeOp scope) { scopes.push_back(scope); });
    for (memref::AllocaScopeOp scope : scopes)
      inlineWithStackRestore(scope);
  }
};
} // namespace

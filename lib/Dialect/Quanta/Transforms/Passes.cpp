//===- Passes.cpp - Registration of quanta passes and pipelines -----------===//

#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"

using namespace mlir;

namespace {
/// The options of PyTorch's prepare(), shared by the pipelines.
template <typename Derived>
struct PrepareOptionsBase : public PassPipelineOptions<Derived> {
  template <typename T> using Option = mlir::detail::PassOptions::Option<T>;
  template <typename T>
  using ListOption = mlir::detail::PassOptions::ListOption<T>;

  Option<std::string> qconfig{*this, "qconfig",
                              llvm::cl::desc("qconfig preset or attribute"),
                              llvm::cl::init("x86")};
  ListOption<std::string> overrides{
      *this, "override",
      llvm::cl::desc("per-op qconfig: <op name or location name>=<qconfig>")};
  Option<bool> foldConstantWeights{
      *this, "fold-constant-weights",
      llvm::cl::desc("compute statistics of constant weights now"),
      llvm::cl::init(true)};
  Option<bool> fuseClamps{
      *this, "fuse-clamps",
      llvm::cl::desc("observe an op followed by a clamp (relu6) after the "
                     "clamp, as TFLite fuses it (default: the clamp shares "
                     "the op's qparams, as in PyTorch FX)"),
      llvm::cl::init(false)};
  Option<int64_t> threads{
      *this, "threads",
      llvm::cl::desc("threads the model runs on during calibration"),
      llvm::cl::init(1)};
};

struct PreparePipelineOptions
    : public PrepareOptionsBase<PreparePipelineOptions> {};

struct PtqPipelineOptions : public PrepareOptionsBase<PtqPipelineOptions> {
  Option<std::string> entry{*this, "entry",
                            llvm::cl::desc("function to calibrate")};
  ListOption<std::string> data{
      *this, "data", llvm::cl::desc("calibration data: .npy or .npz files")};
  Option<int64_t> batchLimit{*this, "batch-limit",
                             llvm::cl::desc("stop after this many batches"),
                             llvm::cl::init(0)};
  Option<bool> quiet{*this, "quiet", llvm::cl::desc("no progress report"),
                     llvm::cl::init(false)};
  Option<std::string> recordDir{
      *this, "record-dir",
      llvm::cl::desc("directory for the tensors of RecordingObservers")};
  Option<bool> floatKernels{
      *this, "float-kernels",
      llvm::cl::desc("run the float layers on the tiled kernels (false: as "
                     "loops in the ops' own summation order)"),
      llvm::cl::init(true)};
};

} // namespace

/// The plain options of a pipeline's registered ones.
template <typename Derived>
static quanta::PrepareOptions
toPrepareOptions(const PrepareOptionsBase<Derived> &options) {
  quanta::PrepareOptions prepare;
  prepare.qconfig = options.qconfig;
  prepare.overrides.assign(options.overrides.begin(), options.overrides.end());
  prepare.foldConstantWeights = options.foldConstantWeights;
  prepare.fuseClamps = options.fuseClamps;
  return prepare;
}

void quanta::buildPreparePipeline(OpPassManager &pm,
                                  const PrepareOptions &options) {
  // Upstream's pipelines are no-ops on functions without TOSA ops.
  // addTosaToLinalgPasses leaves tosa.reshape/const_shape (tensor) and
  // tosa.const (arith) to the two passes that follow it.
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
  pm.addPass(createCanonicalizerPass());
  InsertObserversOptions insertOptions;
  insertOptions.qconfig = options.qconfig;
  insertOptions.overrides.assign(options.overrides.begin(),
                                 options.overrides.end());
  insertOptions.foldConstantWeights = options.foldConstantWeights;
  insertOptions.fuseClamps = options.fuseClamps;
  pm.addPass(createInsertObservers(insertOptions));
}

void quanta::registerQuantaPassesAndPipelines() {
  registerQuantaPasses();
  registerLowerToLLVMPipeline();
  PassPipelineRegistration<PreparePipelineOptions>(
      "quanta-prepare",
      "PyTorch's prepare(): TOSA to linalg (upstream pipeline), then "
      "quanta-insert-observers",
      [](OpPassManager &pm, const PreparePipelineOptions &options) {
        buildPreparePipeline(pm, toPrepareOptions(options));
      });
  PassPipelineRegistration<PtqPipelineOptions>(
      "quanta-ptq",
      "Post-training quantization: quanta-prepare, quanta-calibrate on the "
      "given data, quanta-freeze-qparams",
      [](OpPassManager &pm, const PtqPipelineOptions &options) {
        buildPreparePipeline(pm, toPrepareOptions(options));
        CalibrateOptions calibrate;
        calibrate.entry = options.entry;
        calibrate.data.assign(options.data.begin(), options.data.end());
        calibrate.batchLimit = options.batchLimit;
        calibrate.quiet = options.quiet;
        calibrate.recordDir = options.recordDir;
        calibrate.floatKernels = options.floatKernels;
        calibrate.threads = options.threads;
        pm.addPass(createCalibrate(calibrate));
        pm.addNestedPass<func::FuncOp>(createFreezeQParams());
      });
}

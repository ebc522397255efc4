//===- Pipelines.cpp - Quanta's named pipelines ---------------------------===//

#include "quanta/Pipelines/Pipelines.h"

#include "mlir/Conversion/TosaToArith/TosaToArith.h"
#include "mlir/Conversion/TosaToLinalg/TosaToLinalg.h"
#include "mlir/Conversion/TosaToTensor/TosaToTensor.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "mlir/Transforms/Passes.h"
#include <functional>

using namespace mlir;
using namespace mlir::quanta;

namespace {
using PassList = SmallVector<std::unique_ptr<Pass>>;

/// A pipeline whose options are those of some of its passes: `makePasses`
/// creates those passes (with default options), `build` adds the pipeline
/// to a pass manager once they are configured.
struct ComposedPipeline {
  std::function<PassList()> makePasses;
  std::function<void(OpPassManager &, PassList)> build;
};
} // namespace

/// `options` split at the spaces outside braces and quotes: `name=value`
/// (or a bare `name`) each.
static SmallVector<StringRef> splitOptions(StringRef options) {
  SmallVector<StringRef> tokens;
  int depth = 0;
  char quote = 0;
  size_t start = 0;
  for (size_t i = 0; i <= options.size(); ++i) {
    const char c = i < options.size() ? options[i] : ' ';
    if (quote) {
      quote = c == quote ? 0 : quote;
    } else if (c == '"' || c == '\'') {
      quote = c;
    } else if (c == '{' || c == '[' || c == '(') {
      ++depth;
    } else if (c == '}' || c == ']' || c == ')') {
      --depth;
    } else if (c == ' ' && depth == 0) {
      if (i > start)
        tokens.push_back(options.slice(start, i));
      start = i + 1;
    }
  }
  return tokens;
}

/// Gives each `name=value` of `options` to the first of `passes` that
/// parses it. Upstream keeps a pass's option table private (only PassInfo
/// reads it), so the passes themselves are asked; no two passes of a
/// pipeline share an option name. One that none takes is an error with
/// each pass's reason.
static LogicalResult
configurePasses(StringRef pipeline,
                MutableArrayRef<std::unique_ptr<Pass>> passes,
                StringRef options,
                function_ref<LogicalResult(const Twine &)> errorHandler) {
  for (StringRef token : splitOptions(options)) {
    std::string reasons;
    bool taken = false;
    for (std::unique_ptr<Pass> &pass : passes) {
      taken = succeeded(pass->initializeOptions(token, [&](const Twine &why) {
        // LLVM's option parser prints a bad value's reason itself.
        std::string reason = StringRef(why.str()).trim().str();
        reasons += "\n  " + pass->getArgument().str() + ": " +
                   (reason.empty() ? "rejects its value" : reason);
        return failure();
      }));
      if (taken)
        break;
    }
    if (!taken)
      return errorHandler(pipeline + ": none of its passes takes '" + token +
                          "':" + reasons);
  }
  return success();
}

/// Makes a PassList of one pass from each of `create`.
template <typename... Creators>
static std::function<PassList()> passesOf(Creators... create) {
  return [=] {
    PassList passes;
    (passes.push_back(create()), ...);
    return passes;
  };
}

static void registerComposedPipeline(StringRef name, StringRef description,
                                     ComposedPipeline pipeline) {
  registerPassPipeline(
      name, description,
      [name = name.str(),
       pipeline](OpPassManager &pm, StringRef options,
                 function_ref<LogicalResult(const Twine &)> errorHandler) {
        PassList passes = pipeline.makePasses();
        if (failed(configurePasses(name, passes, options, errorHandler)))
          return failure();
        pipeline.build(pm, std::move(passes));
        return success();
      },
      // --help lists the options under the passes that own them.
      [](function_ref<void(const mlir::detail::PassOptions &)>) {});
}

void quanta::buildFrontEndPipeline(OpPassManager &pm) {
  // Upstream's pipelines are no-ops on functions without TOSA ops.
  // addTosaToLinalgPasses leaves tosa.reshape/const_shape (tensor) and
  // tosa.const (arith) to the two passes that follow it.
  tosa::addTosaToLinalgPasses(pm, TosaToLinalgOptions(),
                              TosaToLinalgNamedOptions());
  pm.addNestedPass<func::FuncOp>(createTosaToTensorPass());
  pm.addNestedPass<func::FuncOp>(createTosaToArithPass());
  pm.addPass(createCanonicalizerPass());
}

/// quanta-prepare with its configured quanta-insert-observers.
static void addPreparePasses(OpPassManager &pm,
                             std::unique_ptr<Pass> insertObservers) {
  buildFrontEndPipeline(pm);
  pm.addPass(std::move(insertObservers));
}

static void addCalibrateAndFreeze(OpPassManager &pm,
                                  std::unique_ptr<Pass> calibrate) {
  pm.addPass(std::move(calibrate));
  pm.addNestedPass<func::FuncOp>(createFreezeQParams());
}

/// The conversion half of quanta-compile, with its configured
/// quanta-quantize.
static void addConvertPasses(OpPassManager &pm,
                             std::unique_ptr<Pass> quantize) {
  pm.addNestedPass<func::FuncOp>(createFreezeQParams());
  pm.addPass(std::move(quantize));
  pm.addPass(createPropagateLayout());
}

/// quanta-compile with its configured quanta-quantize and quanta-lower-cpu.
static void addCompilePasses(OpPassManager &pm, std::unique_ptr<Pass> quantize,
                             std::unique_ptr<Pass> kernels) {
  addConvertPasses(pm, std::move(quantize));
  pm.addPass(std::move(kernels));
}

void quanta::buildPreparePipeline(OpPassManager &pm,
                                  const PrepareOptions &options) {
  addPreparePasses(pm, createInsertObservers(options));
}

void quanta::buildPtqPipeline(OpPassManager &pm, const PrepareOptions &prepare,
                              const CalibrateOptions &calibrate) {
  addPreparePasses(pm, createInsertObservers(prepare));
  addCalibrateAndFreeze(pm, createCalibrate(calibrate));
}

void quanta::buildConvertPipeline(OpPassManager &pm,
                                  const QuantizeOptions &options) {
  addConvertPasses(pm, createQuantize(options));
}

void quanta::buildCompilePipeline(OpPassManager &pm,
                                  const CompileOptions &options) {
  addCompilePasses(pm, createQuantize(options.quantize),
                   createLowerCpu(options.kernels));
}

void quanta::registerQuantaPassesAndPipelines() {
  registerQuantaPasses();
  registerQuantaCodegenPasses();
  registerQuantaCPUPasses();
  registerQuantaCalibrationPasses();
  PassPipelineRegistration<>(
      "quanta-lower-to-llvm",
      "Quant casts to arithmetic, one-shot bufferization (results as "
      "out-parameters), then everything to the LLVM dialect",
      buildLowerToLLVMPipeline);
  registerComposedPipeline(
      "quanta-prepare",
      "PyTorch's prepare(): TOSA to linalg (upstream pipeline), then "
      "quanta-insert-observers (whose options it takes)",
      {passesOf([] { return createInsertObservers(); }),
       [](OpPassManager &pm, PassList passes) {
         addPreparePasses(pm, std::move(passes[0]));
       }});
  registerComposedPipeline(
      "quanta-ptq",
      "Post-training quantization: quanta-prepare, quanta-calibrate, "
      "quanta-freeze-qparams (the options of quanta-insert-observers and "
      "quanta-calibrate)",
      {passesOf([] { return createInsertObservers(); },
                [] { return createCalibrate(); }),
       [](OpPassManager &pm, PassList passes) {
         addPreparePasses(pm, std::move(passes[0]));
         addCalibrateAndFreeze(pm, std::move(passes[1]));
       }});
  registerComposedPipeline(
      "quanta-compile",
      "A calibrated module to kernels for its target: "
      "quanta-freeze-qparams, quanta-quantize, quanta-propagate-layout, "
      "quanta-lower-cpu (the options of quanta-quantize and "
      "quanta-lower-cpu); quant-run and quant-compile then lower it to LLVM",
      {passesOf([] { return createQuantize(); },
                [] { return createLowerCpu(); }),
       [](OpPassManager &pm, PassList passes) {
         addCompilePasses(pm, std::move(passes[0]), std::move(passes[1]));
       }});
  registerComposedPipeline(
      "quanta-compile-dynamic",
      "PyTorch's quantize_dynamic of a float module, to kernels for its "
      "target: TOSA to linalg, quanta-quantize-dynamic, quanta-lower-cpu "
      "(their options); no observers, no calibration",
      {passesOf([] { return createQuantizeDynamic(); },
                [] { return createLowerCpu(); }),
       [](OpPassManager &pm, PassList passes) {
         buildFrontEndPipeline(pm);
         pm.addPass(std::move(passes[0]));
         pm.addPass(std::move(passes[1]));
       }});
}

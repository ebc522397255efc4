//===- Quantize.cpp - Post-training quantization in one call --------------===//

#include "quanta/API/Quantize.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Dialect/Quanta/Transforms/QConfigPresets.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/Path.h"

#include <cctype>
#include <chrono>

using namespace mlir;
using namespace mlir::quanta;

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

StringRef quanta::getDefaultQConfig(const TargetDescription &target) {
  return target.getArch() == TargetArch::AArch64 ? "qnnpack" : "x86";
}

/// Adds a remark of quanta-quantize to the reasons, grouped by message
/// without the op's name, which the remark ends with when it has one.
static void addReason(std::vector<FloatOpsReason> &reasons,
                      const Diagnostic &remark) {
  std::string message = remark.str();
  std::optional<StringRef> name = getLocationName(remark.getLocation());
  if (name) {
    std::string suffix = (", in '" + *name + "'").str();
    if (StringRef(message).ends_with(suffix))
      message.resize(message.size() - suffix.size());
  }
  auto it = llvm::find_if(reasons, [&](const FloatOpsReason &reason) {
    return reason.reason == message;
  });
  if (it == reasons.end())
    it = reasons.insert(reasons.end(), FloatOpsReason{message, {}, 0});
  ++it->count;
  if (name)
    it->names.push_back(name->str());
}

FailureOr<QuantizedModel>
quanta::quantizeModel(ModuleOp floatModel, CalibrationBatches &batches,
                      const QuantizeModelOptions &options) {
  MLIRContext *context = floatModel.getContext();
  QuantizedModel result;
  result.qconfig = options.qconfig.empty()
                       ? getDefaultQConfig(options.target).str()
                       : options.qconfig;

  // Checked here, at the model, rather than by the pass's options, which
  // know no location.
  if (failed(parseQConfig(context, result.qconfig, [&] {
        return emitError(floatModel.getLoc(), "qconfig: ");
      })))
    return failure();

  result.calibrated = floatModel.clone();
  // A pre-quantized model (QDQ: fake quantizations with the model's own
  // qparams) keeps its qparams: observers would quantize it a second time.
  result.preQuantized = result.calibrated
                            ->walk([](FakeQuantOp op) {
                              return op.hasKnownQParams()
                                         ? WalkResult::interrupt()
                                         : WalkResult::advance();
                            })
                            .wasInterrupted();
  PassManager prepare(context);
  if (result.preQuantized) {
    buildFrontEndPipeline(prepare);
  } else {
    PrepareOptions prepareOptions;
    prepareOptions.qconfig = result.qconfig;
    prepareOptions.overrides.assign(options.overrides.begin(),
                                    options.overrides.end());
    buildPreparePipeline(prepare, prepareOptions);
  }
  if (failed(prepare.run(*result.calibrated)))
    return failure();

  auto start = std::chrono::steady_clock::now();
  auto onProgress = [&](const CalibrationProgress &progress) {
    result.batches = progress.batches;
    if (options.onCalibrationProgress)
      options.onCalibrationProgress(progress);
  };
  if (!result.preQuantized && failed(calibrate(*result.calibrated, batches,
                                               options.calibrate, onProgress)))
    return failure();
  result.calibrationSeconds = secondsSince(start);

  start = std::chrono::steady_clock::now();
  result.converted = result.calibrated->clone();
  setModuleTarget(*result.converted, options.target);
  {
    // quanta-quantize explains each op it leaves float in a remark: the
    // result carries them instead.
    ScopedDiagnosticHandler remarks(context, [&](Diagnostic &diag) {
      if (diag.getSeverity() != DiagnosticSeverity::Remark)
        return failure();
      addReason(result.floatReasons, diag);
      return success();
    });
    PassManager convert(context);
    buildConvertPipeline(convert, options.quantize);
    if (failed(convert.run(*result.converted)))
      return failure();
  }
  result.converted->walk([&](FunctionOpInterface func) {
    FloatOpsLeft left;
    left.function = func.getName().str();
    for (auto [name, count] : countFloatComputeOps(func)) {
      left.ops.emplace_back(name.str(), count);
      left.total += count;
    }
    result.floatOps.push_back(std::move(left));
  });
  result.conversionSeconds = secondsSince(start);
  return result;
}

std::string quanta::getModelFunctionName(StringRef path) {
  std::string name;
  for (char c : llvm::sys::path::stem(path))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0])))
    name.insert(0, "model_");
  return name;
}

LogicalResult quanta::renameFunction(func::FuncOp function, StringRef name) {
  if (function.getSymName() == name)
    return success();
  auto module = function->getParentOfType<ModuleOp>();
  if (SymbolTable::lookupSymbolIn(module, name))
    return function.emitError("cannot rename the function to '")
           << name << "': the module has a symbol of that name";
  if (failed(SymbolTable::replaceAllSymbolUses(
          function, StringAttr::get(function.getContext(), name), module)))
    return function.emitError("cannot rename the function's uses to '")
           << name << "'";
  SymbolTable::setSymbolName(function, name);
  return success();
}

LogicalResult quanta::lowerForTarget(ModuleOp converted,
                                     const TargetDescription &target) {
  setModuleTarget(converted, target);
  PassManager pm(converted.getContext());
  pm.addPass(createLowerCpu());
  return pm.run(converted);
}

FailureOr<std::vector<numerics::OutputComparison>>
quanta::compareWithFloat(ModuleOp floatModel, ModuleOp converted,
                         CalibrationBatches &source) {
  Location loc = converted.getLoc();
  FailureOr<func::FuncOp> entry = findEntryFunction(floatModel, "", "entry");
  if (failed(entry))
    return failure();
  StringRef name = entry->getSymName();
  std::unique_ptr<CalibrationBatches> batches =
      splitIntoEntryBatches(source, entry->getFunctionType());
  OwningOpRef<ModuleOp> lowered = converted.clone();
  TargetDescription host = TargetDescription::host();
  if (failed(lowerForTarget(*lowered, host)))
    return failure();
  // The float model as calibration ran it: TOSA in linalg, the float
  // layers on the tiled kernels (as scalar loops, a 12-layer BERT-base
  // encoder's one check took 56 s of the driver's 77).
  OwningOpRef<ModuleOp> linalgModel = floatModel.clone();
  PassManager frontEnd(floatModel.getContext());
  buildFrontEndPipeline(frontEnd);
  if (failed(frontEnd.run(*linalgModel)) ||
      failed(lowerForTarget(*linalgModel, host)))
    return failure();
  auto reference = CompiledFunction::compile(*linalgModel, name, "check");
  if (failed(reference))
    return failure();
  auto quantized = CompiledFunction::compile(*lowered, name, "check");
  if (failed(quantized))
    return failure();
  ArrayRef<TensorSpec> resultSpecs = reference->getResults();
  for (auto [index, spec] : llvm::enumerate(resultSpecs))
    if (spec.dtypes.front() != "<f4")
      return emitError(loc) << "the check compares float32 results; result "
                            << index << " of '" << name << "' is not one";

  std::vector<numerics::OutputComparison> comparisons(resultSpecs.size());
  std::vector<std::vector<float>> referenceData, quantizedData;
  std::vector<runtime::TensorRef> referenceRefs, quantizedRefs;
  for (const TensorSpec &spec : resultSpecs) {
    referenceData.emplace_back(spec.numElements());
    quantizedData.emplace_back(spec.numElements());
    referenceRefs.push_back(
        {referenceData.back().data(), spec.shape, "<f4", ""});
    quantizedRefs.push_back(
        {quantizedData.back().data(), spec.shape, "<f4", ""});
  }
  std::vector<runtime::TensorRef> inputs;
  bool ranBatch = false;
  for (int64_t index = 0;; ++index) {
    FailureOr<bool> more = batches->next(loc, inputs);
    if (failed(more))
      return failure();
    if (!*more)
      break;
    ranBatch = true;
    for (auto [function, outputs] :
         {std::make_pair(&*reference, &referenceRefs),
          std::make_pair(&*quantized, &quantizedRefs)})
      if (llvm::Error error = function->call(inputs, *outputs))
        return emitError(loc) << "check batch " << index << ": "
                              << llvm::toString(std::move(error));
    for (auto [comparison, spec, ref, approx] : llvm::zip_equal(
             comparisons, resultSpecs, referenceData, quantizedData))
      // Class scores lie along the last axis of a result of rank >= 2.
      if (spec.numElements() > 0)
        comparison.add(ref.data(), approx.data(), spec.numElements(),
                       spec.shape.size() >= 2 ? spec.shape.back() : 1);
  }
  if (!ranBatch)
    return emitError(loc) << "the check has no batches to run";
  return comparisons;
}

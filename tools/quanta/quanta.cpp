//===- quanta.cpp - A float model and calibration data to int8 code -------===//
//
//   quanta model.onnx --data=calibration/ [-o model.o] [--header=model.h]
//       [--qconfig=x86|qnnpack|...] [--override=<op or location>=<qconfig>]
//       [--onnx-batch=N] [--onnx-dim=seq=N,...] [--check-data=...]
//       [--emit=object|mlir|qdq-mlir] [--report=DIR]
//       [--target-triple=T] [--mcpu=CPU] [--mattr=+f1,-f2] [--num-threads=N]
//
// Post-training quantization in one command, over the C++ API
// (quanta/API/Quantize.h): the model (.onnx or .mlir) is imported,
// prepared with the target's PyTorch default qconfig, calibrated in the
// JIT on the data (a directory, a glob or files of .npy/.npz: one batch
// per file, or arrays of several batches), converted to int8 and
// compiled to an object file and a C header for the target (default:
// this machine). Each phase prints one line with its time; then the int8
// model is checked against the float model on a held-out batch (the last
// calibration file, or --check-data): SQNR, largest error, top-1
// agreement, and the float ops left with the reasons.
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quantize.h"
#include "quanta/Tools/ToolMain.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

#include <chrono>
#include <cmath>
#include <cstdlib>

using namespace mlir;
namespace cl = llvm::cl;

static cl::list<std::string> dataSpecs(
    "data",
    cl::desc("calibration data: directories, globs or .npy/.npz files, one "
             "batch per file (or arrays of several batches)"),
    cl::value_desc("dir|glob|file,..."), cl::CommaSeparated, cl::OneOrMore,
    cl::cat(quanta::getToolOptionCategory()));
static cl::list<std::string> checkSpecs(
    "check-data",
    cl::desc("held-out data for the check (default: the last calibration "
             "file, left out of calibration)"),
    cl::value_desc("dir|glob|file,..."), cl::CommaSeparated,
    cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string>
    outputFile("o",
               cl::desc("the output (default: the model's name with .o, or "
                        ".mlir for --emit=mlir/qdq-mlir)"),
               cl::value_desc("path"),
               cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string> headerFile(
    "header", cl::desc("the C header (default: the object's path with .h)"),
    cl::value_desc("path"), cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string>
    qconfig("qconfig",
            cl::desc("a qconfig preset (x86, fbgemm, qnnpack, onednn, ...) "
                     "or #quanta.qconfig<...> (default: PyTorch's for the "
                     "target: x86 on x86-64, qnnpack on AArch64)"),
            cl::cat(quanta::getToolOptionCategory()));
static cl::list<std::string> overrides(
    "override",
    cl::desc("a qconfig for some ops: <op or location name>=<qconfig>, e.g. "
             "/tokens/Gather=float_qparams_weight_only to quantize an "
             "embedding (repeatable)"),
    cl::cat(quanta::getToolOptionCategory()));
static cl::list<std::string> keepFloat(
    "keep-float",
    cl::desc("ops to keep float instead of their integer forms, to measure "
             "both: softmax, layer-norm (quanta-quantize's keep-float)"),
    cl::CommaSeparated, cl::cat(quanta::getToolOptionCategory()));
enum class Emit { Object, Mlir, QdqMlir };
static cl::opt<Emit> emit(
    "emit", cl::desc("what to write"),
    cl::values(clEnumValN(Emit::Object, "object",
                          "an object file and a C header (default)"),
               clEnumValN(Emit::Mlir, "mlir",
                          "the int8 IR, before the target's kernels"),
               clEnumValN(Emit::QdqMlir, "qdq-mlir",
                          "the calibrated model as quant.qcast/dcast pairs")),
    cl::init(Emit::Object), cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string>
    reportDir("report",
              cl::desc("also write the per-layer HTML report of quanta.report "
                       "(Python) into this directory"),
              cl::value_desc("dir"), cl::cat(quanta::getToolOptionCategory()));

static const auto processStart = std::chrono::steady_clock::now();
static std::string executablePath;

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// A phase's one-line summary.
static llvm::raw_ostream &phase(StringRef name) {
  return llvm::outs() << llvm::formatv("quanta: {0,-12} ", name);
}

/// The entry's signature as "f(1x1x8x8xf32) -> (1x10xf32)".
static std::string describeSignature(func::FuncOp entry) {
  std::string text;
  llvm::raw_string_ostream os(text);
  auto printTypes = [&](TypeRange types) {
    os << "(";
    llvm::interleaveComma(types, os, [&](Type type) {
      if (auto shaped = dyn_cast<RankedTensorType>(type)) {
        for (int64_t size : shaped.getShape())
          os << size << "x";
        os << shaped.getElementType();
      } else {
        os << type;
      }
    });
    os << ")";
  };
  os << entry.getSymName();
  printTypes(entry.getArgumentTypes());
  os << " -> ";
  printTypes(entry.getResultTypes());
  return text;
}

/// A progress bar over the calibration batches on a terminal; nothing
/// elsewhere (logs get the summary line).
static quanta::CalibrationProgressCallback makeProgressBar() {
  if (!llvm::errs().is_displayed())
    return {};
  return
      [lastDraw = -1.0](const quanta::CalibrationProgress &progress) mutable {
        bool last = progress.total && progress.batches == *progress.total;
        if (progress.batches == 0 ||
            (!last && progress.runSeconds - lastDraw < 0.1))
          return;
        lastDraw = progress.runSeconds;
        constexpr int64_t width = 30;
        int64_t filled = progress.total && *progress.total > 0
                             ? progress.batches * width / *progress.total
                             : 0;
        llvm::errs() << "\rquanta: calibration  [" << std::string(filled, '#')
                     << std::string(width - filled, '.') << "] "
                     << progress.batches << "/"
                     << (progress.total ? std::to_string(*progress.total) : "?")
                     << " batches";
        if (last)
          llvm::errs() << "\r" << std::string(80, ' ') << "\r";
      };
}

/// The calibration files and the held-out files of the check, with a
/// description of where the check's data comes from.
struct DataSplit {
  std::vector<std::string> all, calibration, check;
  std::string checkSource;
};

static FailureOr<DataSplit> splitData(Location loc, size_t numArguments) {
  DataSplit split;
  FailureOr<std::vector<std::string>> files =
      quanta::expandCalibrationData(loc, dataSpecs);
  if (failed(files))
    return failure();
  split.all = std::move(*files);
  split.calibration = split.all;
  if (!checkSpecs.empty()) {
    files = quanta::expandCalibrationData(loc, checkSpecs);
    if (failed(files))
      return failure();
    split.check = std::move(*files);
    split.checkSource = "--check-data";
    return split;
  }
  // The last batch: one .npz, or one .npy per argument.
  size_t lastBatch =
      StringRef(split.calibration.back()).ends_with(".npz") ? 1 : numArguments;
  if (split.calibration.size() > lastBatch) {
    split.check.assign(split.calibration.end() - lastBatch,
                       split.calibration.end());
    split.calibration.resize(split.calibration.size() - lastBatch);
    split.checkSource = llvm::join(split.check, ", ") + ", held out";
  } else {
    split.check = split.calibration;
    split.checkSource = llvm::join(split.check, ", ") +
                        ", also calibrated on: give --check-data for a "
                        "held-out check";
  }
  return split;
}

static void printFloatOps(const quanta::QuantizedModel &model) {
  for (const quanta::FloatOpsLeft &left : model.floatOps) {
    phase("float ops") << "'" << left.function << "': " << left.total
                       << " float compute op(s) left";
    for (auto [index, op] : llvm::enumerate(left.ops))
      llvm::outs() << (index == 0 ? " (" : ", ") << op.first << " x"
                   << op.second;
    llvm::outs() << (left.ops.empty() ? "\n" : ")\n");
  }
  for (const quanta::FloatOpsReason &reason : model.floatReasons) {
    llvm::outs() << "  " << reason.count << " x " << reason.reason;
    if (!reason.names.empty()) {
      llvm::outs() << " (";
      constexpr size_t shown = 4;
      for (size_t i = 0; i < std::min(reason.names.size(), shown); ++i)
        llvm::outs() << (i ? ", " : "") << reason.names[i];
      if (reason.names.size() > shown)
        llvm::outs() << ", ...";
      llvm::outs() << ")";
    }
    llvm::outs() << "\n";
  }
}

static LogicalResult writeModule(ModuleOp module, StringRef path) {
  std::string error;
  auto output = openOutputFile(path, &error);
  if (!output)
    return emitError(module.getLoc())
           << "cannot write '" << path << "': " << error;
  module.print(output->os());
  output->keep();
  return success();
}

/// The check: the int8 model against the float model on `files`.
static LogicalResult check(ModuleOp floatModel, ModuleOp converted,
                           ArrayRef<std::string> files, size_t numArguments,
                           StringRef source) {
  Location loc = floatModel.getLoc();
  auto start = std::chrono::steady_clock::now();
  auto batches = quanta::openCalibrationFiles(loc, files, numArguments);
  if (failed(batches))
    return failure();
  auto comparisons = quanta::compareWithFloat(floatModel, converted, **batches);
  if (failed(comparisons))
    return failure();
  phase("check") << "int8 vs float on " << source << " ("
                 << llvm::formatv("{0:f1} s", secondsSince(start)) << ")\n";
  for (auto [index, comparison] : llvm::enumerate(*comparisons)) {
    double sqnr = comparison.getSqnrDb();
    llvm::outs() << "  " << (comparisons->size() > 1 ? "result " : "")
                 << (comparisons->size() > 1 ? std::to_string(index) + ": "
                                             : "")
                 << "SQNR "
                 << (std::isinf(sqnr) ? std::string(sqnr > 0 ? "inf" : "-inf")
                                      : llvm::formatv("{0:f1}", sqnr).str())
                 << " dB, max |error| "
                 << llvm::formatv("{0:g4}", comparison.getMaxAbsError());
    // Rows of one value have no classes to agree on.
    if (comparison.getRows() < comparison.getValues())
      llvm::outs() << ", top-1 agreement "
                   << llvm::formatv("{0:f1}%",
                                    comparison.getTop1Agreement() * 100)
                   << " of " << comparison.getRows() << " rows";
    llvm::outs() << "\n";
  }
  return success();
}

/// quanta.report, the Python package's, on the same model and data.
static LogicalResult writeReport(Location loc, ArrayRef<std::string> files,
                                 StringRef qconfigName) {
  // The package sits beside the tools: in the build tree, or installed.
  StringRef prefix = llvm::sys::path::parent_path(
      llvm::sys::path::parent_path(executablePath));
  std::string pythonPath;
  for (StringRef directory : {"python_packages", QUANTA_INSTALLED_PYTHON_DIR}) {
    SmallString<256> candidate(prefix);
    llvm::sys::path::append(candidate, directory, "quanta");
    if (llvm::sys::fs::is_directory(candidate)) {
      pythonPath = llvm::sys::path::parent_path(candidate).str();
      break;
    }
  }
  if (pythonPath.empty())
    return emitError(loc) << "--report: the quanta Python package is not "
                          << "beside " << executablePath
                          << " (build the QuantaPython target)";
  if (const char *existing = std::getenv("PYTHONPATH"))
    pythonPath += std::string(":") + existing;
  ::setenv("PYTHONPATH", pythonPath.c_str(), /*overwrite=*/1);
  std::string dataArg = "--data=" + llvm::join(files, ",");
  std::string qconfigArg = "--qconfig=" + qconfigName.str();
  std::string batchArg =
      "--onnx-batch=" + std::to_string(quanta::getToolOnnxBatch());
  std::string dimsArg = "--onnx-dim=" + quanta::getToolOnnxDims().str();
  SmallVector<StringRef> args = {QUANTA_PYTHON_EXECUTABLE,
                                 "-m",
                                 "quanta.report",
                                 quanta::getToolInputFile(),
                                 dataArg,
                                 qconfigArg,
                                 batchArg,
                                 dimsArg};
  std::vector<std::string> overrideArgs;
  for (const std::string &entry : overrides)
    overrideArgs.push_back("--override=" + entry);
  args.append(overrideArgs.begin(), overrideArgs.end());
  args.append({"-o", reportDir});
  std::string error;
  int status = llvm::sys::ExecuteAndWait(QUANTA_PYTHON_EXECUTABLE, args,
                                         std::nullopt, {}, 0, 0, &error);
  if (status != 0)
    return emitError(loc) << "quanta.report failed"
                          << (error.empty() ? "" : ": " + error)
                          << " (python: " << QUANTA_PYTHON_EXECUTABLE << ")";
  return success();
}

static std::string defaultOutput() {
  SmallString<256> path(llvm::sys::path::stem(quanta::getToolInputFile()));
  path += emit == Emit::Object ? ".o" : ".mlir";
  return path.str().str();
}

static LogicalResult run(ModuleOp floatModel,
                         const quanta::TargetDescription &target) {
  Location loc = floatModel.getLoc();
  FailureOr<func::FuncOp> entry =
      quanta::findEntryFunction(floatModel, "", "a model of one function");
  if (failed(entry))
    return failure();
  // An ONNX model's function is named after its file, so that the C
  // header's digits_cnn_run() says what it runs and two models link into
  // one program.
  if (StringRef path = quanta::getToolInputFile(); path.ends_with(".onnx"))
    if (failed(
            quanta::renameFunction(*entry, quanta::getModelFunctionName(path))))
      return failure();
  size_t numArguments = entry->getNumArguments();
  phase("import") << quanta::getToolInputFile() << ": "
                  << describeSignature(*entry)
                  << llvm::formatv(" ({0:f2} s)\n", secondsSince(processStart));

  FailureOr<DataSplit> data = splitData(loc, numArguments);
  if (failed(data))
    return failure();
  auto batches =
      quanta::openCalibrationFiles(loc, data->calibration, numArguments);
  if (failed(batches))
    return failure();
  quanta::QuantizeModelOptions options;
  options.qconfig = qconfig;
  options.overrides.assign(overrides.begin(), overrides.end());
  options.quantize.keepFloat.assign(keepFloat.begin(), keepFloat.end());
  options.target = target;
  options.calibrate.threads = quanta::getModuleThreads(floatModel);
  options.onCalibrationProgress = makeProgressBar();
  double compileSeconds = 0;
  options.onCalibrationProgress =
      [&, bar = options.onCalibrationProgress](
          const quanta::CalibrationProgress &progress) {
        compileSeconds = progress.compileSeconds;
        if (bar)
          bar(progress);
      };
  FailureOr<quanta::QuantizedModel> model =
      quanta::quantizeModel(floatModel, **batches, options);
  if (failed(model))
    return failure();
  if (model->preQuantized)
    phase("calibration") << "none: the model is pre-quantized (QDQ), its "
                         << "own qparams are used\n";
  else
    phase("calibration") << model->batches << " batch(es) from "
                         << data->calibration.size() << " file(s), qconfig "
                         << model->qconfig
                         << llvm::formatv(" ({0:f2} s, of which {1:f2} s JIT "
                                          "compilation)\n",
                                          model->calibrationSeconds,
                                          compileSeconds);
  int64_t floatOps = 0;
  for (const quanta::FloatOpsLeft &left : model->floatOps)
    floatOps += left.total;
  phase("conversion") << "int8, " << floatOps << " float compute op(s) left"
                      << llvm::formatv(" ({0:f2} s)\n",
                                       model->conversionSeconds);
  if (floatOps > 0 || !model->floatReasons.empty())
    printFloatOps(*model);

  // A pre-quantized model calibrated on nothing: all the data checks it.
  if (model->preQuantized && checkSpecs.empty()) {
    data->check = data->all;
    data->checkSource = llvm::join(data->all, ", ");
  }
  if (failed(check(floatModel, *model->converted, data->check, numArguments,
                   data->checkSource)))
    return failure();

  std::string output = outputFile.empty() ? defaultOutput() : outputFile;
  if (StringRef parent = llvm::sys::path::parent_path(output); !parent.empty())
    if (std::error_code error = llvm::sys::fs::create_directories(parent))
      return emitError(loc)
             << "cannot create '" << parent << "': " << error.message();
  auto start = std::chrono::steady_clock::now();
  if (emit == Emit::QdqMlir) {
    PassManager freeze(floatModel.getContext());
    freeze.addNestedPass<func::FuncOp>(quanta::createFreezeQParams());
    if (failed(freeze.run(*model->calibrated)) ||
        failed(writeModule(*model->calibrated, output)))
      return failure();
    phase("output") << output << " (the q/dq model)\n";
  } else if (emit == Emit::Mlir) {
    if (failed(writeModule(*model->converted, output)))
      return failure();
    phase("output") << output << " (the int8 IR)\n";
  } else {
    std::string header = headerFile;
    if (header.empty()) {
      SmallString<256> path(output);
      llvm::sys::path::replace_extension(path, ".h");
      header = path.str().str();
    }
    if (failed(quanta::lowerForTarget(*model->converted, target)) ||
        failed(quanta::writeObjectAndHeader(*model->converted, target, output,
                                            header,
                                            quanta::getToolInputFile())))
      return failure();
    phase("code") << output << ", " << header << " for " << target.describe()
                  << llvm::formatv(" ({0:f2} s)\n", secondsSince(start));
  }

  if (!reportDir.empty()) {
    if (failed(writeReport(loc, data->calibration, model->qconfig)))
      return failure();
    phase("report") << reportDir << "/index.html\n";
  }
  return success();
}

int main(int argc, char **argv) {
  executablePath = llvm::sys::fs::getMainExecutable(
      argv[0], reinterpret_cast<void *>(&executablePath));
  return quanta::quantaToolMain(
      argc, argv,
      "Quanta: a float model (.onnx, .mlir) and calibration data to an int8 "
      "object file and C header\n",
      run, /*defaultOnnxBatch=*/1);
}

//===- CompilerModule.cpp - Quanta's compiler API for Python --------------===//
//
// The `quanta` package's compiler side, over the public C++ API
// (quanta/API/Quanta.h) the tools and library users call: load a module
// (text, file, ONNX), run pass pipelines, calibrate it on batches streamed
// from any Python iterable, lower it for a target, compile it with the JIT
// and call it on numpy arrays. MLIR diagnostics become a quanta.Error
// (a ValueError) carrying every message with its location; warnings go to
// Python's warnings module.
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"
#include "quanta/API/Quantize.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <cstring>

#include <pybind11/functional.h>
#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

namespace py = pybind11;
using namespace mlir;

namespace {

/// The Python exception every compiler error raises (quanta.Error); the
/// module attribute owns it.
py::handle &errorType() {
  static py::handle type;
  return type;
}

/// A location as the tools print it: "file:line:col" (of the innermost
/// file location), or the name of a NameLoc.
std::string formatLocation(Location loc) {
  std::string text;
  llvm::raw_string_ostream os(text);
  if (auto name = dyn_cast<NameLoc>(loc)) {
    if (isa<FileLineColLoc>(name.getChildLoc()))
      return formatLocation(name.getChildLoc());
    os << name.getName().getValue();
  } else if (auto file = dyn_cast<FileLineColLoc>(loc)) {
    os << file.getFilename().getValue();
    // Line 0: the file as a whole (an ONNX model, a data file).
    if (file.getLine() != 0)
      os << ":" << file.getLine() << ":" << file.getColumn();
  } else if (auto fused = dyn_cast<FusedLoc>(loc)) {
    if (!fused.getLocations().empty())
      return formatLocation(fused.getLocations().front());
  } else if (auto callSite = dyn_cast<CallSiteLoc>(loc)) {
    return formatLocation(callSite.getCallee());
  }
  return text;
}

/// Collects the diagnostics of one call into the context; raises them as
/// quanta.Error when the call failed, and issues warnings.
class DiagnosticCollector {
public:
  explicit DiagnosticCollector(MLIRContext *context)
      : handler(context, [this](Diagnostic &diagnostic) {
          collect(diagnostic);
          return success();
        }) {}

  /// Raises quanta.Error unless `result` succeeded.
  void check(LogicalResult result, const std::string &what) {
    for (const std::string &warning : warnings)
      PyErr_WarnEx(PyExc_UserWarning, warning.c_str(), 1);
    warnings.clear();
    if (succeeded(result))
      return;
    std::string message = what + " failed";
    message += errors.empty() ? std::string(" (no diagnostic)")
                              : ":\n" + llvm::join(errors, "\n");
    errors.clear();
    PyErr_SetString(errorType().ptr(), message.c_str());
    throw py::error_already_set();
  }

private:
  void collect(Diagnostic &diagnostic) {
    std::string text = formatLocation(diagnostic.getLocation());
    if (!text.empty())
      text += ": ";
    switch (diagnostic.getSeverity()) {
    case DiagnosticSeverity::Error:
      text += "error: ";
      break;
    case DiagnosticSeverity::Warning:
      text += "warning: ";
      break;
    case DiagnosticSeverity::Remark:
      text += "remark: ";
      break;
    case DiagnosticSeverity::Note:
      text += "note: ";
      break;
    }
    text += diagnostic.str();
    for (const Diagnostic &note : diagnostic.getNotes())
      text +=
          "\n  " + formatLocation(note.getLocation()) + ": note: " + note.str();
    if (diagnostic.getSeverity() == DiagnosticSeverity::Error)
      errors.push_back(std::move(text));
    else if (diagnostic.getSeverity() == DiagnosticSeverity::Warning)
      warnings.push_back(std::move(text));
  }

  std::vector<std::string> errors, warnings;
  ScopedDiagnosticHandler handler;
};

/// One MLIR context with every dialect and pass Quanta knows: each Module
/// owns one (a module and the context it lives in die together).
std::shared_ptr<MLIRContext> makeContext() {
  static bool registered = [] {
    quanta::registerAllPasses();
    return true;
  }();
  (void)registered;
  DialectRegistry registry;
  quanta::registerAllDialects(registry);
  auto context = std::make_shared<MLIRContext>(registry);
  context->loadAllAvailableDialects();
  // The op in an error would repeat its constants (weights) in full.
  context->printOpOnDiagnostic(false);
  return context;
}

/// The numpy dtype string of a TensorRef ("<f4", "|i1", ...).
std::string dtypeOf(const py::array &array) {
  return py::str(array.dtype().attr("str"));
}

/// A C-order view of `object` as a TensorRef; `keep` holds the array (a
/// C-order copy when the original is not) while the view is used.
quanta::runtime::TensorRef toTensorRef(const py::handle &object,
                                       const std::string &source,
                                       std::vector<py::array> &keep) {
  if (!py::isinstance<py::array>(object))
    throw py::type_error((source.empty() ? "" : source + ": ") +
                         "expected a numpy array, got " +
                         std::string(py::str(object.get_type())));
  // A C-order copy of a strided view is exact; the dtype is kept, so that
  // a float64 batch is an error rather than silently rounded.
  py::array array =
      py::module_::import("numpy").attr("ascontiguousarray")(object);
  keep.push_back(array);
  std::vector<int64_t> shape(array.shape(), array.shape() + array.ndim());
  return {array.mutable_data(), std::move(shape), dtypeOf(array), source};
}

/// Calibration batches drawn from a Python iterable, one at a time: each
/// item is an array (one argument) or a tuple/list of arrays. A Python
/// exception (from the iterable, a bad item or the progress callback) must
/// not unwind through the C++ calibration: it is kept, calibration stops at
/// the next batch, and rethrow() raises it once calibrate() has returned.
class PythonBatches : public quanta::CalibrationBatches {
public:
  PythonBatches(py::iterable batches, std::optional<int64_t> total)
      : iterator(py::iter(batches)), total(total) {}

  std::optional<int64_t> size() const override { return total; }

  FailureOr<bool>
  next(Location loc,
       std::vector<quanta::runtime::TensorRef> &tensors) override {
    // The previous batch is released before the next is made.
    current.clear();
    tensors.clear();
    if (pending)
      return emitError(loc) << "calibration stopped by a Python exception";
    try {
      // PyIter_Next rather than py::iterator, which reads one item ahead.
      py::object item =
          py::reinterpret_steal<py::object>(PyIter_Next(iterator.ptr()));
      if (!item) {
        if (PyErr_Occurred())
          throw py::error_already_set();
        return false;
      }
      std::string name = "batch " + std::to_string(index++);
      if (py::isinstance<py::tuple>(item) || py::isinstance<py::list>(item)) {
        for (auto [argument, value] : llvm::enumerate(py::cast<py::list>(item)))
          tensors.push_back(toTensorRef(
              value, name + " argument " + std::to_string(argument), current));
      } else {
        tensors.push_back(toTensorRef(item, name, current));
      }
      return true;
    } catch (...) {
      keepException();
      return emitError(loc) << "calibration stopped by a Python exception";
    }
  }

  /// Calls `callback`, keeping what it raises.
  void guard(llvm::function_ref<void()> callback) {
    if (pending)
      return;
    try {
      callback();
    } catch (...) {
      keepException();
    }
  }

  /// Raises the kept Python exception, if any.
  void rethrow() {
    if (pending)
      throw *pending;
  }

private:
  void keepException() {
    try {
      throw;
    } catch (py::error_already_set &error) {
      pending = std::move(error);
    } catch (py::builtin_exception &error) {
      error.set_error();
      pending = py::error_already_set();
    }
  }

  py::object iterator;
  std::optional<int64_t> total;
  int64_t index = 0;
  std::vector<py::array> current;
  std::optional<py::error_already_set> pending;
};

/// A function compiled by the JIT, called on numpy arrays.
class Function {
public:
  explicit Function(quanta::CompiledFunction compiled)
      : compiled(std::move(compiled)) {}

  py::object call(const py::args &args) {
    std::vector<py::array> keep;
    std::vector<quanta::runtime::TensorRef> inputs;
    for (auto [index, value] : llvm::enumerate(args))
      inputs.push_back(toTensorRef(value, "", keep));
    py::module_ numpy = py::module_::import("numpy");
    std::vector<quanta::runtime::TensorRef> outputs;
    py::list results;
    for (const quanta::TensorSpec &spec : compiled.getResults()) {
      py::array result =
          numpy.attr("empty")(py::cast(spec.shape), spec.dtypes.front());
      results.append(result);
      outputs.push_back(
          {result.mutable_data(), spec.shape, spec.dtypes.front(), ""});
    }
    llvm::Error error = llvm::Error::success();
    {
      py::gil_scoped_release release;
      error = compiled.call(inputs, outputs);
    }
    if (error) {
      PyErr_SetString(errorType().ptr(),
                      llvm::toString(std::move(error)).c_str());
      throw py::error_already_set();
    }
    if (results.size() == 1)
      return results[0];
    return py::tuple(results);
  }

  std::string getName() const { return compiled.getName().str(); }

private:
  quanta::CompiledFunction compiled;
};

/// A module of MLIR and the context it lives in.
class Module {
public:
  static Module parse(const std::string &text, const std::string &name) {
    Module module;
    DiagnosticCollector diagnostics(module.context.get());
    module.op = parseSourceString<ModuleOp>(
        text, ParserConfig(module.context.get()), name);
    diagnostics.check(success(bool(module.op)), "parsing " + name);
    return module;
  }

  static Module load(const std::string &path, int64_t onnxBatch,
                     const std::map<std::string, int64_t> &onnxDims) {
    Module module;
    DiagnosticCollector diagnostics(module.context.get());
    auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                            /*RequiresNullTerminator=*/false);
    if (!file) {
      PyErr_SetString(
          PyExc_FileNotFoundError,
          ("cannot read '" + path + "': " + file.getError().message()).c_str());
      throw py::error_already_set();
    }
    if (StringRef(path).ends_with(".onnx")) {
      quanta::OnnxImportOptions options;
      options.batchSize = onnxBatch;
      for (const auto &[name, size] : onnxDims) {
        if (size <= 0) {
          PyErr_SetString(PyExc_ValueError,
                          ("onnx_dims['" + name + "'] is " +
                           std::to_string(size) + "; sizes are at least 1")
                              .c_str());
          throw py::error_already_set();
        }
        options.dimSizes[name] = size;
      }
      module.op = quanta::importOnnxModel(module.context.get(),
                                          (*file)->getBuffer(), path, options);
    } else {
      module.op = parseSourceString<ModuleOp>(
          (*file)->getBuffer(), ParserConfig(module.context.get()), path);
    }
    diagnostics.check(success(bool(module.op)), "loading " + path);
    return module;
  }

  Module clone() const {
    Module copy;
    // Through bytecode: the copy lives in its own context.
    std::string bytecode;
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(*op, os)))
      throw py::value_error("cannot serialize the module");
    copy.op =
        parseSourceString<ModuleOp>(bytecode, ParserConfig(copy.context.get()));
    return copy;
  }

  std::string str(bool debugInfo, int64_t elideLargerThan) const {
    std::string text;
    llvm::raw_string_ostream os(text);
    OpPrintingFlags flags;
    if (debugInfo)
      flags.enableDebugInfo();
    if (elideLargerThan > 0)
      flags.elideLargeElementsAttrs(elideLargerThan);
    op.get()->print(os, flags);
    return text;
  }

  void runPipeline(const std::string &pipeline) {
    DiagnosticCollector diagnostics(context.get());
    diagnostics.check(quanta::runPassPipeline(*op, pipeline),
                      "pipeline '" + pipeline + "'");
  }

  void calibrate(py::iterable batches, const std::string &optionText,
                 std::optional<int64_t> total,
                 std::optional<py::function> progress) {
    std::string optionError;
    FailureOr<quanta::CalibrateOptions> options =
        quanta::parseCalibrateOptions(optionText, [&](const Twine &message) {
          optionError = message.str();
          return failure();
        });
    if (failed(options))
      throw py::value_error("calibration options '" + optionText +
                            "': " + optionError);
    PythonBatches source(std::move(batches), total);
    quanta::CalibrationProgressCallback onProgress;
    if (progress)
      onProgress = [&](const quanta::CalibrationProgress &state) {
        source.guard([&] {
          (*progress)(state.batches, state.total, state.compileSeconds,
                      state.runSeconds);
        });
      };
    DiagnosticCollector diagnostics(context.get());
    LogicalResult result = quanta::calibrate(*op, source, *options, onProgress);
    source.rethrow();
    diagnostics.check(result, "calibration");
  }

  /// Records a target (default: this machine) on the module, for the
  /// kernel lowerings (`quanta.target`).
  quanta::TargetDescription setTarget(const std::string &triple,
                                      const std::string &cpu,
                                      const std::string &features) {
    llvm::Expected<quanta::TargetDescription> target =
        quanta::TargetDescription::fromLLVM(triple, cpu, features);
    if (!target)
      throw py::value_error(llvm::toString(target.takeError()));
    quanta::setModuleTarget(*op, *target);
    return *target;
  }

  void lower(const std::string &triple, const std::string &cpu,
             const std::string &features) {
    quanta::TargetDescription target = setTarget(triple, cpu, features);
    DiagnosticCollector diagnostics(context.get());
    diagnostics.check(quanta::lowerKernels(*op, target, "quanta.lower"),
                      "lowering for " + target.describe());
  }

  Function compile(const std::string &entry, int64_t threads) {
    DiagnosticCollector diagnostics(context.get());
    FailureOr<func::FuncOp> function =
        quanta::findEntryFunction(*op, entry, "entry=<name>");
    diagnostics.check(success(succeeded(function)), "compile");
    if (threads < 0)
      throw py::value_error("threads must be >= 0 (0: the OpenMP runtime's "
                            "choice), got " +
                            std::to_string(threads));
    (*op)->setAttr(
        quanta::kThreadsAttrName,
        IntegerAttr::get(IntegerType::get(context.get(), 64), threads));
    FailureOr<quanta::CompiledFunction> compiled =
        quanta::CompiledFunction::compile(*op, function->getSymName(),
                                          "quanta.compile");
    diagnostics.check(success(succeeded(compiled)), "compile");
    return Function(std::move(*compiled));
  }

  /// quanta::quantizeModel on Python batches: the calibrated and the
  /// converted modules, in this module's context, and what stayed float.
  py::dict quantize(py::iterable batches, const std::string &qconfig,
                    const std::string &triple, const std::string &cpu,
                    const std::string &features, std::optional<int64_t> total,
                    std::optional<py::function> progress,
                    const std::vector<std::string> &keepFloat) {
    llvm::Expected<quanta::TargetDescription> target =
        quanta::TargetDescription::fromLLVM(triple, cpu, features);
    if (!target)
      throw py::value_error(llvm::toString(target.takeError()));
    PythonBatches source(std::move(batches), total);
    quanta::QuantizeModelOptions options;
    options.qconfig = qconfig;
    options.target = *target;
    options.quantize.keepFloat.assign(keepFloat.begin(), keepFloat.end());
    if (progress)
      options.onCalibrationProgress =
          [&](const quanta::CalibrationProgress &state) {
            source.guard([&] {
              (*progress)(state.batches, state.total, state.compileSeconds,
                          state.runSeconds);
            });
          };
    DiagnosticCollector diagnostics(context.get());
    FailureOr<quanta::QuantizedModel> model =
        quanta::quantizeModel(*op, source, options);
    source.rethrow();
    diagnostics.check(success(succeeded(model)), "quantization");

    py::list floatOps, reasons;
    for (const quanta::FloatOpsLeft &left : model->floatOps)
      floatOps.append(py::dict(py::arg("function") = left.function,
                               py::arg("total") = left.total,
                               py::arg("ops") = left.ops));
    for (const quanta::FloatOpsReason &reason : model->floatReasons)
      reasons.append(py::dict(py::arg("reason") = reason.reason,
                              py::arg("count") = reason.count,
                              py::arg("names") = reason.names));
    return py::dict(
        py::arg("calibrated") = Module(context, std::move(model->calibrated)),
        py::arg("converted") = Module(context, std::move(model->converted)),
        py::arg("float_ops") = floatOps, py::arg("float_reasons") = reasons,
        py::arg("qconfig") = model->qconfig,
        py::arg("pre_quantized") = model->preQuantized,
        py::arg("batches") = model->batches,
        py::arg("calibration_seconds") = model->calibrationSeconds,
        py::arg("conversion_seconds") = model->conversionSeconds);
  }

  /// quanta::compareWithFloat: this (float) module against `converted`.
  py::list compareWithFloat(const Module &converted, py::iterable batches) {
    PythonBatches source(std::move(batches), std::nullopt);
    DiagnosticCollector diagnostics(context.get());
    auto comparisons = quanta::compareWithFloat(*op, *converted.op, source);
    source.rethrow();
    diagnostics.check(success(succeeded(comparisons)), "check");
    py::list results;
    for (const quanta::numerics::OutputComparison &comparison : *comparisons)
      results.append(
          py::dict(py::arg("sqnr_db") = comparison.getSqnrDb(),
                   py::arg("max_error") = comparison.getMaxAbsError(),
                   py::arg("top1_agreement") = comparison.getTop1Agreement(),
                   py::arg("rows") = comparison.getRows()));
    return results;
  }

  /// The batches as the entry takes them (quanta::splitIntoEntryBatches):
  /// a list of tuples of arrays, copies of the slices.
  py::list entryBatches(py::iterable batches) {
    DiagnosticCollector diagnostics(context.get());
    FailureOr<func::FuncOp> entry =
        quanta::findEntryFunction(*op, "", "entry=<name>");
    diagnostics.check(success(succeeded(entry)), "entry_batches");
    PythonBatches source(std::move(batches), std::nullopt);
    std::unique_ptr<quanta::CalibrationBatches> split =
        quanta::splitIntoEntryBatches(source, entry->getFunctionType());
    py::module_ numpy = py::module_::import("numpy");
    py::list result;
    std::vector<quanta::runtime::TensorRef> tensors;
    for (;;) {
      FailureOr<bool> more = split->next(op->getLoc(), tensors);
      source.rethrow();
      diagnostics.check(success(succeeded(more)), "entry_batches");
      if (!*more)
        return result;
      py::list batch;
      for (const quanta::runtime::TensorRef &tensor : tensors) {
        py::array array =
            numpy.attr("empty")(py::cast(tensor.shape), py::str(tensor.dtype));
        std::memcpy(array.mutable_data(), tensor.data, array.nbytes());
        batch.append(array);
      }
      result.append(py::tuple(batch));
    }
  }

  /// The kernels of a copy for a target (default: this machine), written
  /// as an object file and, unless `header` is empty, a C header.
  void saveObject(const std::string &path, const std::string &header,
                  const std::string &triple, const std::string &cpu,
                  const std::string &features) {
    llvm::Expected<quanta::TargetDescription> target =
        quanta::TargetDescription::fromLLVM(triple, cpu, features);
    if (!target)
      throw py::value_error(llvm::toString(target.takeError()));
    Module copy = clone();
    DiagnosticCollector diagnostics(copy.context.get());
    diagnostics.check(quanta::lowerForTarget(*copy.op, *target),
                      "lowering for " + target->describe());
    diagnostics.check(quanta::writeObjectAndHeader(*copy.op, *target, path,
                                                   header, "quanta.quantize"),
                      "writing " + path);
  }

  /// Names the only function after a model file
  /// (quanta::getModelFunctionName).
  void nameAfterFile(const std::string &path) {
    DiagnosticCollector diagnostics(context.get());
    FailureOr<func::FuncOp> entry =
        quanta::findEntryFunction(*op, "", "entry=<name>");
    diagnostics.check(success(succeeded(entry)), "naming the function");
    diagnostics.check(
        quanta::renameFunction(*entry, quanta::getModelFunctionName(path)),
        "naming the function");
  }

  std::vector<std::string> functionNames() const {
    std::vector<std::string> names;
    for (auto func : op.get().getOps<func::FuncOp>())
      if (!func.isExternal())
        names.push_back(func.getSymName().str());
    return names;
  }

private:
  Module() : context(makeContext()) {}
  Module(std::shared_ptr<MLIRContext> context, OwningOpRef<ModuleOp> op)
      : context(std::move(context)), op(std::move(op)) {}

  // Declared first: destroyed after the module that lives in it.
  std::shared_ptr<MLIRContext> context;
  OwningOpRef<ModuleOp> op;
};

} // namespace

PYBIND11_MODULE(_quanta_compiler, m) {
  m.doc() = "Quanta's compiler API (quanta/API/Quanta.h)";
  errorType() = py::exception<std::runtime_error>(m, "Error", PyExc_ValueError);

  m.def(
      "import_onnx",
      [](const std::string &path, int64_t batch,
         const std::map<std::string, int64_t> &dims) {
        return Module::load(path, batch, dims).str(/*debugInfo=*/true, 0);
      },
      py::arg("path"), py::arg("batch") = 0,
      py::arg("dims") = std::map<std::string, int64_t>(),
      "Imports an ONNX model (opsets up to 17) as MLIR text: one "
      "func.func of linalg on tensors; `dims` sizes its inputs' symbolic "
      "dimensions by name ({'seq': 128}), `batch` a symbolic first one. "
      "Raises quanta.Error with the diagnostics on bad input.");

  m.def(
      "expand_calibration_data",
      [](const std::vector<std::string> &specs) {
        MLIRContext context;
        DiagnosticCollector diagnostics(&context);
        auto files =
            quanta::expandCalibrationData(UnknownLoc::get(&context), specs);
        diagnostics.check(success(succeeded(files)), "calibration data");
        return *files;
      },
      py::arg("specs"),
      "The .npy/.npz files that files, directories and glob patterns name, "
      "in natural order (batch2 before batch10), as the quanta driver "
      "reads them.");

  py::class_<Function>(m, "Function")
      .def("__call__", &Function::call,
           "Calls the function on numpy arrays (dtypes and shapes as its "
           "signature); returns its result, or a tuple of them.")
      .def_property_readonly("name", &Function::getName);

  py::class_<Module>(m, "Module")
      .def_static("parse", &Module::parse, py::arg("text"),
                  py::arg("name") = "<string>",
                  "A module from MLIR text (generic or custom form).")
      .def_static("load", &Module::load, py::arg("path"),
                  py::arg("onnx_batch") = 0,
                  py::arg("onnx_dims") = std::map<std::string, int64_t>(),
                  "A module from an .mlir/.mlirbc file, or imported from an "
                  ".onnx model: onnx_dims sizes its symbolic dimensions by "
                  "name ({'seq': 128}), onnx_batch a symbolic first one.")
      .def("clone", &Module::clone, "A copy in a context of its own.")
      .def("to_text", &Module::str, py::arg("debug_info") = false,
           py::arg("elide_larger_than") = 0,
           "The module as MLIR text; elide_larger_than > 0 elides constants "
           "with more elements.")
      .def("__str__", [](const Module &module) { return module.str(false, 0); })
      .def_property_readonly("functions", &Module::functionNames)
      .def("run_pipeline", &Module::runPipeline, py::arg("pipeline"),
           "Runs a pass pipeline, as quant-opt's --pass-pipeline "
           "('builtin.module(...)' or the bare list).")
      .def("_calibrate", &Module::calibrate, py::arg("batches"),
           py::arg("options"), py::arg("total"), py::arg("progress"))
      .def(
          "set_target",
          [](Module &module, const std::string &triple, const std::string &cpu,
             const std::string &features) {
            module.setTarget(triple, cpu, features);
          },
          py::arg("triple") = "", py::arg("cpu") = "", py::arg("features") = "",
          "Records the target (default: this machine) that quanta-compile "
          "and the kernel lowerings lower for.")
      .def("lower", &Module::lower, py::arg("triple") = "", py::arg("cpu") = "",
           py::arg("features") = "",
           "The kernels for a target (default: this machine), as "
           "quanta-lower-x86/quanta-lower-neon.")
      .def("_quantize", &Module::quantize, py::arg("batches"),
           py::arg("qconfig"), py::arg("triple"), py::arg("cpu"),
           py::arg("features"), py::arg("total"), py::arg("progress"),
           py::arg("keep_float"))
      .def("compare_with_float", &Module::compareWithFloat,
           py::arg("converted"), py::arg("batches"),
           "This float module's outputs against those of `converted` (its "
           "int8 form) on `batches`, both in the JIT on this machine: per "
           "result a dict of sqnr_db, max_error, top1_agreement, rows.")
      .def("entry_batches", &Module::entryBatches, py::arg("batches"),
           "`batches` (arrays or tuples of arrays) as the entry function "
           "takes them: arrays of k times its first dimension are split "
           "into k batches. A list of tuples of arrays.")
      .def("save_object", &Module::saveObject, py::arg("path"),
           py::arg("header") = "", py::arg("triple") = "", py::arg("cpu") = "",
           py::arg("features") = "",
           "Lowers a copy for a target (default: this machine) and writes "
           "an object file and, given `header`, a C header.")
      .def("name_after_file", &Module::nameAfterFile, py::arg("path"),
           "Names the module's only function after a model file, as the "
           "quanta driver names an ONNX model's (digits_cnn.onnx: "
           "digits_cnn, whose C header function is digits_cnn_run).")
      .def("compile", &Module::compile, py::arg("entry") = "",
           py::arg("threads") = 1,
           "JIT-compiles a function (default: the only one) for this "
           "machine.");
}

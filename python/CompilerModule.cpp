//===- CompilerModule.cpp - Quanta's compiler entry points for Python -----===//
//
// The `quanta` package's compiler side: the same C++ API the tools call
// (today the ONNX importer). MLIR diagnostics become a Python ValueError
// carrying their messages and locations.
//
//===----------------------------------------------------------------------===//

#include "quanta/Import/OnnxImporter.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/IR/OperationSupport.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/raw_ostream.h"

#include <pybind11/pybind11.h>

namespace py = pybind11;
using namespace mlir;

/// The ONNX model at `path` as MLIR text (with locations naming the ONNX
/// nodes, which quanta-insert-observers uses as observer names).
static std::string importOnnx(const std::string &path, int64_t batch) {
  DialectRegistry registry;
  quanta::registerOnnxImportDialects(registry);
  MLIRContext context(registry);
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    llvm::raw_string_ostream os(diagnostics);
    // The model's path (the message names the node).
    Location loc = diagnostic.getLocation();
    if (auto name = dyn_cast<NameLoc>(loc))
      loc = name.getChildLoc();
    if (auto file = dyn_cast<FileLineColLoc>(loc))
      os << file.getFilename().getValue() << ": ";
    os << diagnostic.str() << "\n";
    return success();
  });
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    throw py::value_error("cannot read '" + path +
                          "': " + file.getError().message());
  quanta::OnnxImportOptions options;
  options.batchSize = batch;
  OwningOpRef<ModuleOp> module =
      quanta::importOnnxModel(&context, (*file)->getBuffer(), path, options);
  if (!module)
    throw py::value_error(diagnostics);
  std::string text;
  llvm::raw_string_ostream os(text);
  module->print(os, OpPrintingFlags().enableDebugInfo());
  return text;
}

PYBIND11_MODULE(_quanta_compiler, m) {
  m.doc() = "Quanta's compiler entry points (C++ API)";
  m.def("import_onnx", &importOnnx, py::arg("path"), py::arg("batch") = 0,
        "Imports an ONNX model (opsets up to 17) as MLIR text: one "
        "func.func of linalg on tensors; `batch` sizes its inputs' symbolic "
        "dimensions. Raises ValueError with the diagnostics on bad input.");
}

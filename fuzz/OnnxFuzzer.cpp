//===- OnnxFuzzer.cpp - libFuzzer target for the ONNX importer ------------===//
//
// A model file is user input: any byte string must import or be rejected
// with a diagnostic, and what imports must verify (the importer promises
// nothing half-built).
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir/IR/Verifier.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>

using namespace mlir;

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = quanta_fuzz::getFuzzContext();
  quanta::OnnxImportOptions options;
  options.batchSize = 2;
  OwningOpRef<ModuleOp> module = quanta::importOnnxModel(
      &context, StringRef(reinterpret_cast<const char *>(data), size),
      // No directory of its own: external-data references resolve against
      // a path that holds no files.
      "/nonexistent/fuzz.onnx", options);
  if (module && failed(verify(*module)))
    std::abort();
  return 0;
}

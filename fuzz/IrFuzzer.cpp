//===- IrFuzzer.cpp - libFuzzer target for IR and Quanta's pipelines ------===//
//
// quant-opt's input is text anyone can write: any byte string must parse or
// be rejected, and what parses must go through Quanta's pipelines (prepare;
// freeze, convert and lower for x86 and AArch64) or be rejected, without
// a crash, an out-of-memory abort or a hang. Calibration is left out: it
// JIT-compiles, seconds per input. Inputs that crash upstream's parser are
// skipped (hitsKnownUpstreamCrash).
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir;

/// Whether `text` holds a construct that crashes Debian's libMLIR 22 itself
/// while parsing, before any of Quanta's code runs. Each has an XFAIL test
/// (test/Tools/upstream-crash-*.mlir) that fails as XPASS when the fix
/// arrives; skipping them lets a run go on to find Quanta's bugs.
static bool hitsKnownUpstreamCrash(StringRef text) {
  // A dense array of `index` (parseDenseArrayAttr asks it for a bit width).
  for (size_t at = text.find("array<"); at != StringRef::npos;
       at = text.find("array<", at + 1))
    if (text.drop_front(at + 6).ltrim().starts_with("index"))
      return true;
  return false;
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = quanta_fuzz::getFuzzContext();
  // MLIR's lexer reads the byte after the text (a file's buffer has a
  // null there, libFuzzer's input does not).
  const std::string text(reinterpret_cast<const char *>(data), size);
  if (hitsKnownUpstreamCrash(text))
    return 0;
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(text, ParserConfig(&context));
  if (!module)
    return 0;
  auto run = [](ModuleOp from, StringRef pipeline) {
    OwningOpRef<ModuleOp> copy = from.clone();
    if (failed(quanta::runPassPipeline(*copy, pipeline)))
      copy = nullptr;
    return copy;
  };
  (void)run(*module, "quanta-prepare");
  if (OwningOpRef<ModuleOp> qat =
          run(*module, "quanta-prepare{qconfig=x86_qat}"))
    (void)run(*qat, "func.func(quanta-lower-fake-quant)");
  // Freeze and convert once; lower the result for both architectures.
  if (OwningOpRef<ModuleOp> converted =
          run(*module, "func.func(quanta-freeze-qparams),quanta-quantize")) {
    (void)run(*converted, "quanta-lower-x86{isa=avx2}");
    (void)run(*converted, "quanta-lower-neon{features=dotprod}");
  }
  return 0;
}

//===- quant-compile.cpp - A module to an object file and a C header ------===//
//
//   quant-compile model.mlir -o model.o --header=model.h
//       [--pass-pipeline='builtin.module(...)'] [--target-triple=T]
//       [--mcpu=CPU] [--mattr=+f1,-f2]
//
// Optionally runs a pass pipeline (e.g. quanta-quantize, quanta-lower-x86 or
// quanta-lower-neon, which lower for the target given here), checks that
// the result only uses instructions the target has, then lowers every
// public function with quanta-lower-to-llvm, the JIT's lowering, and
// writes a position-independent object file for the target (default: this
// machine, its CPU and features) and a C header declaring how to call each
// function.
//
//===----------------------------------------------------------------------===//

#include "quanta/Target/ObjectFile.h"
#include "quanta/Tools/ToolMain.h"

#include "llvm/Support/CommandLine.h"

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string>
    objectFile("o", cl::desc("the object file"), cl::value_desc("path"),
               cl::Required, cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string>
    headerFile("header", cl::desc("the C header (default: none)"),
               cl::value_desc("path"),
               cl::cat(quanta::getToolOptionCategory()));

static LogicalResult compile(ModuleOp module,
                             const quanta::TargetDescription &target) {
  return quanta::writeObjectAndHeader(module, target, objectFile, headerFile,
                                      quanta::getToolInputFile());
}

int main(int argc, char **argv) {
  return quanta::quantaToolMain(
      argc, argv, "Quanta: a module to an object file and a C header\n",
      compile);
}

//===- quant-opt.cpp - The Quanta optimizer driver ------------------------===//
//
// mlir-opt with the quanta dialect and passes, next to every upstream
// dialect, pass and extension (func, arith, tensor, linalg, tosa, quant,
// vector, memref, bufferization, scf, x86vector, arm_neon, llvm, ...), so
// that one tool runs a whole pipeline. The upstream registrations live in
// libMLIR.so and cost nothing to compile here.
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"

#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::quanta::registerAllPasses();
  mlir::DialectRegistry registry;
  mlir::quanta::registerAllDialects(registry);
  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Quanta optimizer driver\n", registry));
}

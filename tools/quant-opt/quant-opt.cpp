//===- quant-opt.cpp - The Quanta optimizer driver ------------------------===//
//
// mlir-opt with the quanta dialect and passes, next to every upstream
// dialect, pass and extension (func, arith, tensor, linalg, tosa, quant,
// vector, memref, bufferization, scf, x86vector, arm_neon, llvm, ...), so
// that one tool runs a whole pipeline. The upstream registrations live in
// libMLIR.so and cost nothing to compile here.
//
//===----------------------------------------------------------------------===//

#include "quanta/Conversion/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/IR/DialectRegistry.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

int main(int argc, char **argv) {
  mlir::registerAllPasses();
  mlir::quanta::registerQuantaPassesAndPipelines();
  mlir::quanta::registerQuantaConversionPasses();

  mlir::DialectRegistry registry;
  mlir::registerAllDialects(registry);
  mlir::registerAllExtensions(registry);
  registry.insert<mlir::quanta::QuantaDialect>();

  return mlir::asMainReturnCode(
      mlir::MlirOptMain(argc, argv, "Quanta optimizer driver\n", registry));
}

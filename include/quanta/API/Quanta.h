//===- Quanta.h - Quanta's public C++ API -----------------------*- C++ -*-===//
//
// Everything a compiler that embeds Quanta needs, in the order it is used:
//
//   DialectRegistry registry;
//   quanta::registerAllDialects(registry);       // 1. dialects, passes
//   quanta::registerAllPasses();
//   MLIRContext context(registry);
//   auto module = parseSourceFile<ModuleOp>(path, &context);
//
//   PassManager prepare(&context);               // 2. prepare(): observers
//   quanta::buildPreparePipeline(prepare, {});
//   prepare.run(*module);
//
//   quanta::CalibrateOptions options;            // 3. calibrate (JIT) on
//   auto batches = quanta::makeCalibrationBatches(...);  // any batches
//   quanta::calibrate(*module, *batches, options);
//
//   quanta::setModuleTarget(*module, target);    // 4. freeze, convert and
//   PassManager compile(&context);               //    lower the kernels
//   quanta::buildCompilePipeline(compile, {});   //    (quanta-compile)
//   compile.run(*module);
//
//   quanta::emitObjectFile(*module, target, os);  // 6a. an object + header
//   auto f = quanta::CompiledFunction::compile(   // 6b. or run it here
//       *module, "main", "me");
//   f->call(inputs, outputs);
//
// Errors are MLIR diagnostics at the offending op (or the module), through
// the context's diagnostic handler; no function aborts the process on bad
// input. docs/Library.md describes the CMake package that provides this.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_API_QUANTA_H
#define QUANTA_API_QUANTA_H

#include "quanta/Calibration/Calibration.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Import/Onnx/OnnxImporter.h"
#include "quanta/Pipelines/Pipelines.h"
#include "quanta/Support/TargetDescription.h"
#include "quanta/Target/Jit.h"
#include "quanta/Target/ObjectFile.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/DialectRegistry.h"
#include "mlir/Pass/PassManager.h"

namespace mlir::quanta {

/// Quanta's dialect beside every upstream dialect, extension and LLVM IR
/// translation: what any pipeline below may produce or consume.
void registerAllDialects(DialectRegistry &registry);

/// Upstream MLIR's passes and Quanta's passes and pipelines (what quant-opt
/// offers), so that runPassPipeline and PassManager parsing know them.
void registerAllPasses();

/// Parses `pipeline` (quant-opt's `builtin.module(...)` or a bare list of
/// passes) into `pm`. A bad pipeline is an error at `module`.
LogicalResult buildPassPipeline(ModuleOp module, StringRef pipeline,
                                OpPassManager &pm);

/// Parses `pipeline` as buildPassPipeline does and runs it on `module`.
LogicalResult runPassPipeline(ModuleOp module, StringRef pipeline);

} // namespace mlir::quanta

#endif // QUANTA_API_QUANTA_H

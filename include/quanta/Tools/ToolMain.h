//===- ToolMain.h - What quant-run and quant-compile share ------*- C++ -*-===//
//
// Both tools take one module file, may run a pass pipeline on it, and then
// lower it with quanta-lower-to-llvm; this is their common front.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TOOLS_TOOLMAIN_H
#define QUANTA_TOOLS_TOOLMAIN_H

#include "quanta/Support/TargetDescription.h"

#include "mlir/IR/BuiltinOps.h"
#include "llvm/ADT/STLFunctionalExtras.h"
#include "llvm/Support/CommandLine.h"

namespace mlir::quanta {

/// Registers MLIR's and Quanta's passes and dialects, parses the command
/// line (the tool's own options, a positional `<module>`,
/// `--pass-pipeline` and the target: `--target-triple`, `--mcpu`,
/// `--mattr`, and for ONNX models `--onnx-batch` and `--onnx-dim`), resolves
/// the target once (TargetDescription::fromLLVM; this machine's by default),
/// parses the module file (or imports it, for a
/// `.onnx` file), records the target on it
/// (`quanta.target`, which the kernel lowerings read), runs the pipeline on
/// it and calls `body` on the result, diagnostics shown against the source.
/// Returns the process exit code. `defaultOnnxBatch` is --onnx-batch's
/// default (0: a symbolic dimension is an error unless it is given).
/// Without `runPipeline`, the body runs the pipeline itself
/// (getToolPassPipeline), e.g. only when the compile cache lacks its
/// result.
int quantaToolMain(
    int argc, char **argv, StringRef description,
    llvm::function_ref<LogicalResult(ModuleOp, const TargetDescription &)> body,
    int64_t defaultOnnxBatch = 0, bool runPipeline = true);

/// The options `--help` shows: the tool's own and the target's; LLVM's
/// (several hundred, most of them back ends' internals) stay behind
/// `--help-hidden`.
llvm::cl::OptionCategory &getToolOptionCategory();

/// The module file's path, once quantaToolMain has parsed the command line.
StringRef getToolInputFile();

/// --pass-pipeline, once quantaToolMain has parsed the command line.
StringRef getToolPassPipeline();

/// --onnx-batch and --onnx-dim, once quantaToolMain has parsed the command
/// line.
int64_t getToolOnnxBatch();
StringRef getToolOnnxDims();

} // namespace mlir::quanta

#endif // QUANTA_TOOLS_TOOLMAIN_H

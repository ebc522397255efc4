//===- ToolMain.cpp - What quant-run and quant-compile share --------------===//

#include "quanta/Tools/ToolMain.h"
#include "quanta/API/Quanta.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

llvm::cl::OptionCategory &quanta::getToolOptionCategory() {
  static llvm::cl::OptionCategory category("Quanta options");
  return category;
}

static llvm::cl::opt<std::string>
    inputFile(llvm::cl::Positional, llvm::cl::desc("<module>"),
              llvm::cl::Required,
              llvm::cl::cat(quanta::getToolOptionCategory()));

static llvm::cl::opt<std::string>
    triple("target-triple",
           llvm::cl::desc("the target (default: this machine), e.g. "
                          "aarch64-linux-gnu"),
           llvm::cl::cat(quanta::getToolOptionCategory()));
static llvm::cl::opt<std::string>
    cpu("mcpu",
        llvm::cl::desc("the target CPU (default: this machine's for "
                       "its own triple, else the triple's generic "
                       "CPU), e.g. neoverse-n1"),
        llvm::cl::cat(quanta::getToolOptionCategory()));
static llvm::cl::opt<std::string>
    features("mattr",
             llvm::cl::desc("target features on top of the CPU's, as llc's "
                            "-mattr: +dotprod,-i8mm"),
             llvm::cl::cat(quanta::getToolOptionCategory()));

static llvm::cl::opt<std::string>
    pipeline("pass-pipeline",
             llvm::cl::desc("passes to run before lowering, as for quant-opt: "
                            "'builtin.module(...)' or the bare list"),
             llvm::cl::cat(quanta::getToolOptionCategory()));

// Not "threads": libLLVM registers an option of that name.
static llvm::cl::opt<int64_t> threads(
    "num-threads",
    llvm::cl::desc("threads the kernels run on: 1 (default) sequential, N, "
                   "or 0 for the OpenMP runtime's choice (OMP_NUM_THREADS, "
                   "else every core); the output is the same for any count"),
    llvm::cl::init(1), llvm::cl::cat(quanta::getToolOptionCategory()));

static llvm::cl::opt<int64_t> onnxBatch(
    "onnx-batch",
    llvm::cl::desc("for an .onnx input: the size of a symbolic first "
                   "dimension of its inputs (the batch) --onnx-dim does not "
                   "name"),
    llvm::cl::init(0), llvm::cl::cat(quanta::getToolOptionCategory()));

static llvm::cl::opt<std::string> onnxDims(
    "onnx-dim",
    llvm::cl::desc("for an .onnx input: sizes of its symbolic dimensions by "
                   "name, e.g. --onnx-dim=batch=1,seq=128"),
    llvm::cl::cat(quanta::getToolOptionCategory()));

StringRef quanta::getToolInputFile() { return inputFile; }

StringRef quanta::getToolPassPipeline() { return pipeline; }

int64_t quanta::getToolOnnxBatch() { return onnxBatch; }

StringRef quanta::getToolOnnxDims() { return onnxDims; }

int quanta::quantaToolMain(
    int argc, char **argv, StringRef description,
    llvm::function_ref<LogicalResult(ModuleOp, const TargetDescription &)> body,
    int64_t defaultOnnxBatch, bool runPipeline) {
  llvm::InitLLVM init(argc, argv);
  onnxBatch.setInitialValue(defaultOnnxBatch);
  registerAllPasses();
  llvm::cl::HideUnrelatedOptions(getToolOptionCategory());
  llvm::cl::ParseCommandLineOptions(argc, argv, description);
  const StringRef tool = llvm::sys::path::filename(argv[0]);
  llvm::Expected<TargetDescription> target =
      TargetDescription::fromLLVM(triple, cpu, features);
  if (!target) {
    llvm::errs() << tool << ": error: " << llvm::toString(target.takeError())
                 << "\n";
    return 1;
  }

  DialectRegistry registry;
  registerAllDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  // Errors point at the source line; the op as lowered would repeat its
  // constants (weights) in full.
  context.printOpOnDiagnostic(false);

  std::string error;
  auto file = openInputFile(inputFile, &error);
  if (!file) {
    llvm::errs() << tool << ": " << error << "\n";
    return 1;
  }
  llvm::SourceMgr sourceMgr;
  sourceMgr.AddNewSourceBuffer(std::move(file), llvm::SMLoc());
  SourceMgrDiagnosticHandler handler(sourceMgr, &context);
  OwningOpRef<ModuleOp> module;
  if (StringRef(inputFile).ends_with(".onnx")) {
    OnnxImportOptions options;
    options.batchSize = onnxBatch;
    if (llvm::Error error = parseOnnxDimSizes(onnxDims, options)) {
      llvm::errs() << tool << ": error: --onnx-dim: "
                   << llvm::toString(std::move(error)) << "\n";
      return 1;
    }
    module = importOnnxModel(
        &context,
        sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID())->getBuffer(),
        inputFile, options);
  } else {
    module = parseSourceFile<ModuleOp>(sourceMgr, ParserConfig(&context));
  }
  if (!module)
    return 1;
  setModuleTarget(*module, *target);
  if (threads < 0) {
    llvm::errs() << tool << ": error: --num-threads must be >= 0, got "
                 << threads << "\n";
    return 1;
  }
  if (threads != 1)
    (*module)->setAttr(kThreadsAttrName,
                       IntegerAttr::get(IntegerType::get(&context, 64),
                                        static_cast<int64_t>(threads)));
  if (runPipeline && !pipeline.empty() &&
      failed(runPassPipeline(*module, pipeline)))
    return 1;
  return failed(body(*module, *target)) ? 1 : 0;
}

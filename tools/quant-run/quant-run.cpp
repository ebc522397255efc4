//===- quant-run.cpp - JIT-run a function of a module on .npy inputs ------===//
//
//   quant-run model.mlir --entry=f --input=a.npy [--input=b.npy ...]
//       [--output=out.npy ...] [--pass-pipeline='builtin.module(...)']
//       [--benchmark=N [--ops-per-call=X]]
//
// Optionally runs a pass pipeline (e.g. quanta-quantize, quanta-lower-x86),
// lowers the module with quanta-lower-to-llvm, JIT-compiles it for this
// CPU, calls the entry once on the inputs (one .npy per argument, or one
// .npz holding them all) and writes its results as .npy files. With
// --benchmark it then repeats the call N times and prints the time per
// call (best and median) and, given --ops-per-call, the rate in GOPS.
//
// With --target-triple=aarch64-linux-gnu [--mcpu=... --mattr=...] the
// pipeline lowers for that target (quanta-lower-neon), and the function is
// compiled as quant-compile would, linked with a generated driver and run
// under qemu-aarch64 -cpu <--qemu-cpu>, with the same .npy in and out.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/Transforms/Jit.h"
#include "quanta/Dialect/Quanta/Transforms/MemoryPlan.h"
#include "quanta/Runtime/NumpyFile.h"
#include "quanta/Target/Emulator.h"
#include "quanta/Tools/ToolMain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"

#include <algorithm>
#include <chrono>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> entryName("entry",
                                      cl::desc("function to run (default: "
                                               "the module's only function)"));
static cl::list<std::string>
    inputs("input", cl::desc("an argument: one .npy per argument, in order, "
                             "or one .npz holding them all"));
static cl::list<std::string>
    outputs("output", cl::desc("where to write a result (.npy), in order"));
static cl::opt<unsigned> benchmark("benchmark", cl::desc("time N more calls"),
                                   cl::init(0));
static cl::opt<std::string> emulatorCpu(
    "qemu-cpu",
    cl::desc("the CPU model qemu emulates when the target is another "
             "architecture (AArch64): cortex-a72 (no dotprod), neoverse-n1 "
             "(dotprod), max (dotprod and i8mm), ..."),
    cl::init("max"));
static cl::opt<double> opsPerCall("ops-per-call",
                                  cl::desc("operations per call, to print "
                                           "GOPS with --benchmark"),
                                  cl::init(0));

namespace {
/// How a tensor of the entry's signature is stored in a .npy file.
struct ArrayKind {
  SmallVector<StringRef> descrs;
  size_t elementSize;
};
} // namespace

static std::optional<ArrayKind> getArrayKind(Type element) {
  if (auto quantized = dyn_cast<quant::QuantizedType>(element)) {
    if (quantized.getStorageTypeIntegralWidth() != 8)
      return std::nullopt;
    return ArrayKind{{quantized.isSigned() ? "|i1" : "|u1"}, 1};
  }
  if (element.isF32())
    return ArrayKind{{"<f4"}, 4};
  if (element.isF64())
    return ArrayKind{{"<f8"}, 8};
  // Unsigned types (ONNX's uint8 in imported signatures) are written as
  // such; signless ones read either.
  if (element.isUnsignedInteger(8))
    return ArrayKind{{"|u1"}, 1};
  if (element.isInteger(8))
    return ArrayKind{{"|i1", "|u1"}, 1};
  if (element.isInteger(16))
    return ArrayKind{{"<i2", "<u2"}, 2};
  if (element.isInteger(32))
    return ArrayKind{{"<i4", "<u4"}, 4};
  if (element.isInteger(64))
    return ArrayKind{{"<i8", "<u8"}, 8};
  return std::nullopt;
}

/// The static tensor type `type`, or an error naming `what`.
static FailureOr<std::pair<RankedTensorType, ArrayKind>>
checkSignatureType(Location loc, Type type, const Twine &what) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<ArrayKind> kind =
      tensor ? getArrayKind(tensor.getElementType()) : std::nullopt;
  if (!tensor || !tensor.hasStaticShape() || !kind)
    return emitError(loc) << what << " has type " << type
                          << "; quant-run takes static tensors of f32, f64, "
                          << "i8/i16/i32/i64 or 8-bit quantized types";
  return std::make_pair(tensor, *kind);
}

/// checkSignatureType of every type in `types`, named `what` and an index.
static FailureOr<SmallVector<std::pair<RankedTensorType, ArrayKind>>>
checkSignatureTypes(Location loc, TypeRange types, StringRef what) {
  SmallVector<std::pair<RankedTensorType, ArrayKind>> kinds;
  for (auto [index, type] : llvm::enumerate(types)) {
    auto checked = checkSignatureType(loc, type, what + " " + Twine(index));
    if (failed(checked))
      return failure();
    kinds.push_back(*checked);
  }
  return kinds;
}

/// Writes each result to its --output file.
static LogicalResult
writeResults(Location loc,
             ArrayRef<std::pair<RankedTensorType, ArrayKind>> resultKinds,
             const std::vector<std::vector<char>> &results) {
  for (auto [index, path] : llvm::enumerate(outputs)) {
    auto &[tensor, kind] = resultKinds[index];
    std::vector<int64_t> shape(tensor.getShape().begin(),
                               tensor.getShape().end());
    if (auto status =
            quanta::runtime::writeNpy(path, kind.descrs.front().str(), shape,
                                      results[index].data(), kind.elementSize);
        !status)
      return emitError(loc) << status.getMessage();
  }
  return success();
}

static LogicalResult run(ModuleOp module,
                         const quanta::TargetDescription &target) {
  Location loc = module.getLoc();
  func::FuncOp entry;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() ||
        (!entryName.empty() && func.getSymName() != entryName))
      continue;
    if (entry)
      return emitError(loc) << "the module has several functions: choose one "
                            << "with --entry";
    entry = func;
  }
  if (!entry)
    return emitError(loc) << (entryName.empty()
                                  ? std::string("the module has no function")
                                  : "no function named '" + entryName + "'");
  // Only the entry and what it calls are compiled.
  for (auto func : module.getOps<func::FuncOp>())
    if (func != entry && func.isPublic())
      func.setPrivate();
  PassManager cleanup(module.getContext());
  cleanup.addPass(createSymbolDCEPass());
  if (failed(cleanup.run(module)))
    return failure();
  FunctionType type = entry.getFunctionType();

  // The signature first, then the inputs against it, before compiling.
  auto argumentKinds = checkSignatureTypes(loc, type.getInputs(), "argument");
  auto resultKinds = checkSignatureTypes(loc, type.getResults(), "result");
  if (failed(argumentKinds) || failed(resultKinds))
    return failure();
  if (!outputs.empty() && outputs.size() != resultKinds->size())
    return emitError(loc) << "'" << entry.getSymName() << "' has "
                          << resultKinds->size() << " result(s), "
                          << outputs.size() << " --output file(s) given";
  std::vector<quanta::runtime::NumpyArray> arrays;
  if (inputs.size() == 1 && StringRef(inputs[0]).ends_with(".npz")) {
    auto archive = quanta::runtime::readNpz(inputs[0]);
    if (!archive.ok())
      return emitError(loc) << archive.getStatus().getMessage();
    arrays = std::move(*archive);
  } else {
    for (const std::string &path : inputs) {
      auto array = quanta::runtime::readNpy(path);
      if (!array.ok())
        return emitError(loc) << array.getStatus().getMessage();
      arrays.push_back(std::move(*array));
    }
  }
  if (arrays.size() != type.getNumInputs())
    return emitError(loc) << "'" << entry.getSymName() << "' takes "
                          << type.getNumInputs() << " argument(s), "
                          << arrays.size() << " given";
  for (auto [index, array] : llvm::enumerate(arrays)) {
    auto &[tensor, kind] = (*argumentKinds)[index];
    if (!llvm::is_contained(kind.descrs, array.dtype))
      return emitError(loc)
             << array.source << ": argument " << index << " has type " << tensor
             << ", found " << array.dtypeName() << " data";
    if (ArrayRef<int64_t>(array.shape) != tensor.getShape()) {
      InFlightDiagnostic diag = emitError(loc);
      diag << array.source << ": argument " << index << " expects shape (";
      llvm::interleaveComma(tensor.getShape(), diag);
      diag << "), found " << array.shapeString();
      return diag;
    }
  }
  std::vector<std::vector<char>> results;
  if (!target.isHostArch()) {
    if (benchmark > 0)
      return emitError(loc) << "--benchmark times code on this machine's "
                            << "architecture only: under emulation the "
                            << "times mean nothing";
    if (quanta::getModuleThreads(module) != 1)
      return emitError(loc) << "--num-threads: there is no OpenMP runtime for "
                            << target.getTriple() << " to link the emulated "
                            << "program with; run it with --num-threads=1";
    SmallVector<ArrayRef<char>> inputBytes;
    for (const quanta::runtime::NumpyArray &array : arrays)
      inputBytes.push_back(array.bytes);
    auto emulated = quanta::runUnderEmulator(module, entry, target, emulatorCpu,
                                             inputBytes);
    if (failed(emulated))
      return failure();
    results = std::move(*emulated);
    return writeResults(loc, *resultKinds, results);
  }
  for (auto &[tensor, kind] : *resultKinds)
    results.emplace_back(tensor.getNumElements() * kind.elementSize);

  quanta::exposeCInterface(entry);
  auto engine =
      quanta::compileForJit(module, "quant-run", /*extra=*/{}, &target);
  if (failed(engine))
    return failure();
  SmallVector<quanta::MemRefDescriptor> descriptors;
  for (quanta::runtime::NumpyArray &array : arrays)
    descriptors.emplace_back(array.bytes.data(), array.shape);
  for (auto [result, kind] : llvm::zip(results, *resultKinds))
    descriptors.emplace_back(result.data(), kind.first.getShape());
  SmallVector<void *> arguments;
  for (quanta::MemRefDescriptor &descriptor : descriptors)
    arguments.push_back(descriptor.packed());
  const std::string symbol = ("_mlir_ciface_" + entry.getSymName()).str();
  auto call = [&]() -> LogicalResult {
    if (llvm::Error error = (*engine)->invokePacked(symbol, arguments))
      return emitError(loc) << "quant-run: calling '" << entry.getSymName()
                            << "' failed: " << llvm::toString(std::move(error));
    return success();
  };
  if (failed(call()) || failed(writeResults(loc, *resultKinds, results)))
    return failure();

  if (benchmark > 0) {
    std::vector<double> seconds;
    for (unsigned i = 0; i < benchmark; ++i) {
      auto start = std::chrono::steady_clock::now();
      if (failed(call()))
        return failure();
      seconds.push_back(std::chrono::duration<double>(
                            std::chrono::steady_clock::now() - start)
                            .count());
    }
    std::sort(seconds.begin(), seconds.end());
    const double best = seconds.front(), median = seconds[seconds.size() / 2];
    llvm::outs() << llvm::format("%s: %u calls, best %.3f ms, median %.3f ms",
                                 entry.getSymName().str().c_str(),
                                 unsigned(benchmark), best * 1e3, median * 1e3);
    if (opsPerCall > 0)
      llvm::outs() << llvm::format(", %.1f GOPS (best)",
                                   opsPerCall / best * 1e-9);
    llvm::outs() << "\n";
    for (auto &[name, plan] : quanta::getMemoryPlans(module))
      if (name == entry.getSymName())
        llvm::outs() << name << ": " << plan.describe() << "\n";
  }
  return success();
}

int main(int argc, char **argv) {
  return quanta::quantaToolMain(argc, argv, "Quanta JIT runner\n", run);
}

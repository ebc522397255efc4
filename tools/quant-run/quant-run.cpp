//===- quant-run.cpp - JIT-run a function of a module on .npy inputs ------===//
//
//   quant-run model.mlir --entry=f --input=a.npy [--input=b.npy ...]
//       [--output=out.npy ...] [--pass-pipeline='builtin.module(...)']
//       [--benchmark=N [--ops-per-call=X]] [--guard-pages=after|before]
//
// Optionally runs a pass pipeline (e.g. quanta-quantize, quanta-lower-x86),
// lowers the module with quanta-lower-to-llvm, JIT-compiles it for this
// CPU (a module and pipeline the compile cache holds are neither lowered
// nor compiled again), calls the entry once on the inputs (one .npy per
// argument, or one .npz holding them all) and writes its results as .npy
// files. With --benchmark it then repeats the call N times and prints the
// time per call (best and median) and, given --ops-per-call, the rate in
// GOPS.
// --guard-pages runs it on arguments and results placed against pages the
// process may not touch, so a kernel's access past a buffer faults.
//
// With --target-triple=aarch64-linux-gnu [--mcpu=... --mattr=...] the
// pipeline lowers for that target (quanta-lower-neon), and the function is
// compiled as quant-compile would, linked with a generated driver and run
// under qemu-aarch64 -cpu <--qemu-cpu>, with the same .npy in and out.
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"
#include "quanta/Codegen/Common/MemoryPlan.h"
#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Runtime/GuardedBuffer.h"
#include "quanta/Runtime/NumpyFile.h"
#include "quanta/Target/Emulator.h"
#include "quanta/Target/Jit.h"
#include "quanta/Target/Profile.h"
#include "quanta/Tools/ToolMain.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <optional>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string> entryName("entry",
                                      cl::desc("function to run (default: "
                                               "the module's only function)"),
                                      cl::cat(quanta::getToolOptionCategory()));
static cl::list<std::string>
    inputs("input",
           cl::desc("an argument: one .npy per argument, in order, "
                    "or one .npz holding them all"),
           cl::cat(quanta::getToolOptionCategory()));
static cl::list<std::string>
    outputs("output", cl::desc("where to write a result (.npy), in order"),
            cl::cat(quanta::getToolOptionCategory()));
static cl::opt<unsigned> benchmark("benchmark", cl::desc("time N more calls"),
                                   cl::init(0),
                                   cl::cat(quanta::getToolOptionCategory()));
static cl::opt<std::string> emulatorCpu(
    "qemu-cpu",
    cl::desc("the CPU model qemu emulates when the target is another "
             "architecture (AArch64): cortex-a72 (no dotprod), neoverse-n1 "
             "(dotprod), max (dotprod and i8mm), ..."),
    cl::init("max"), cl::cat(quanta::getToolOptionCategory()));
enum class GuardPages { None, After, Before };
static cl::opt<GuardPages> guardPages(
    "guard-pages",
    cl::desc("place every argument and result against an inaccessible page, "
             "so that code reading or writing past a buffer faults (testing "
             "kernels)"),
    cl::values(clEnumValN(GuardPages::None, "none", "plain buffers"),
               clEnumValN(GuardPages::After, "after", "a page after the end"),
               clEnumValN(GuardPages::Before, "before",
                          "a page before the start")),
    cl::init(GuardPages::None), cl::cat(quanta::getToolOptionCategory()));
static cl::opt<double> opsPerCall("ops-per-call",
                                  cl::desc("operations per call, to print "
                                           "GOPS with --benchmark"),
                                  cl::init(0),
                                  cl::cat(quanta::getToolOptionCategory()));

static cl::opt<bool> profile(
    "profile",
    cl::desc("time each kernel call (each outlined loop nest: a layer or "
             "part of one) over the --benchmark calls (else one call) and "
             "print where the time goes, by layer"),
    cl::init(false), cl::cat(quanta::getToolOptionCategory()));
static cl::opt<unsigned>
    profileRows("profile-rows",
                cl::desc("how many of the slowest layers --profile "
                         "lists (0: all)"),
                cl::init(30), cl::cat(quanta::getToolOptionCategory()));

/// Writes each result to its --output file.
static LogicalResult
writeResults(Location loc, ArrayRef<quanta::TensorSpec> resultSpecs,
             const std::vector<std::vector<char>> &results) {
  for (auto [index, path] : llvm::enumerate(outputs)) {
    const quanta::TensorSpec &spec = resultSpecs[index];
    if (auto status =
            quanta::runtime::writeNpy(path, spec.dtypes.front(), spec.shape,
                                      results[index].data(), spec.elementSize);
        !status)
      return emitError(loc) << status.getMessage();
  }
  return success();
}

/// The --input files: one .npy per argument, or one .npz holding them all.
static FailureOr<std::vector<quanta::runtime::NumpyArray>>
readInputs(Location loc) {
  std::vector<quanta::runtime::NumpyArray> arrays;
  if (inputs.size() == 1 && StringRef(inputs[0]).ends_with(".npz")) {
    auto archive = quanta::runtime::readNpz(inputs[0]);
    if (!archive.ok())
      return emitError(loc) << archive.getStatus().getMessage();
    return std::move(*archive);
  }
  for (const std::string &path : inputs) {
    auto array = quanta::runtime::readNpy(path);
    if (!array.ok())
      return emitError(loc) << array.getStatus().getMessage();
    arrays.push_back(std::move(*array));
  }
  return arrays;
}

/// Times `benchmark` more calls and prints the best and median time, the
/// rate given --ops-per-call, and the function's memory plan.
static LogicalResult runBenchmark(ModuleOp module, StringRef name,
                                  StringRef compilation,
                                  llvm::function_ref<LogicalResult()> call) {
  std::vector<double> seconds;
  for (unsigned i = 0; i < benchmark; ++i) {
    auto start = std::chrono::steady_clock::now();
    if (failed(call()))
      return failure();
    seconds.push_back(
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
            .count());
  }
  std::sort(seconds.begin(), seconds.end());
  const double best = seconds.front(), median = seconds[seconds.size() / 2];
  llvm::outs() << llvm::format("%s: %u calls, best %.3f ms, median %.3f ms",
                               name.str().c_str(), unsigned(benchmark),
                               best * 1e3, median * 1e3);
  if (opsPerCall > 0)
    llvm::outs() << llvm::format(", %.1f GOPS (best)",
                                 opsPerCall / best * 1e-9);
  llvm::outs() << "\n";
  for (auto &[planName, plan] : quanta::getMemoryPlans(module))
    if (planName == name)
      llvm::outs() << planName << ": " << plan.describe() << "\n";
  llvm::outs() << name << ": " << compilation << "\n";
  return success();
}

/// The --profile table: the kernel call sites (`sites`, from
/// quanta-profile-calls) grouped by location (a layer: its padding, layout
/// change, kernel and requantization are sites of one ONNX node), each with
/// its time per call of the function and share of `seconds` (`calls`
/// calls), slowest first; what no site covers (loop nests too small to
/// outline, copies, the calls' own cost) is the rest.
static void printProfile(StringRef name, ArrayAttr sites, unsigned calls,
                         double seconds) {
  struct Layer {
    std::string location;
    double seconds = 0;
    SmallVector<StringRef> kernels;
  };
  std::vector<quanta::KernelTime> times = quanta::readKernelProfile();
  std::vector<Layer> layers;
  llvm::StringMap<size_t> layerOf;
  double covered = 0;
  for (auto [site, time] : llvm::enumerate(times)) {
    auto fields = cast<DictionaryAttr>(sites[site]);
    StringRef location = fields.getAs<StringAttr>("location").getValue();
    auto [it, inserted] = layerOf.try_emplace(location, layers.size());
    if (inserted)
      layers.push_back({location.str()});
    Layer &layer = layers[it->second];
    layer.seconds += time.seconds;
    layer.kernels.push_back(fields.getAs<StringAttr>("kernel").getValue());
    covered += time.seconds;
  }
  // Slowest first; layers of equal time in the function's order.
  llvm::stable_sort(layers, [](const Layer &lhs, const Layer &rhs) {
    return lhs.seconds > rhs.seconds;
  });
  auto share = [&](double part) {
    return seconds > 0 ? 100 * part / seconds : 0.0;
  };
  llvm::outs() << llvm::format(
      "%s: profile of %u call(s), %.3f ms per call; %zu kernel call site(s) "
      "in %zu layer(s) take %.1f%%\n",
      name.str().c_str(), calls, seconds / calls * 1e3, times.size(),
      layers.size(), share(covered));
  llvm::outs() << "   share   ms/call  layer  (kernel functions)\n";
  for (auto [index, layer] : llvm::enumerate(layers)) {
    if (profileRows != 0 && index == profileRows) {
      llvm::outs() << "  ... " << (layers.size() - profileRows)
                   << " more layer(s)\n";
      break;
    }
    llvm::outs() << llvm::format("  %5.1f%%  %8.3f  ", share(layer.seconds),
                                 layer.seconds / calls * 1e3)
                 << layer.location << "  (" << llvm::join(layer.kernels, ", ")
                 << ")\n";
  }
  llvm::outs() << llvm::format("  %5.1f%%  %8.3f  the rest\n",
                               share(seconds - covered),
                               (seconds - covered) / calls * 1e3);
}

/// Whether `module` holds matmuls, convolutions or pools that no kernel
/// lowering (quanta-lower-x86, quanta-lower-neon: `quanta.lowered_for`)
/// has compiled: run as the ops' generic loops, a model is far slower than
/// Quanta makes it (ResNet-18: 1.2 s per image against 30 ms).
static bool hasUnloweredKernels(ModuleOp module) {
  if (module->hasAttr(quanta::kLoweredForAttrName))
    return false;
  return module
      .walk([](Operation *op) {
        return isa<linalg::ContractionOpInterface,
                   linalg::ConvolutionOpInterface>(op)
                   ? WalkResult::interrupt()
                   : WalkResult::advance();
      })
      .wasInterrupted();
}

static LogicalResult run(ModuleOp module,
                         const quanta::TargetDescription &target) {
  Location loc = module.getLoc();
  // The pipeline is parsed once, first: a bad one is reported before
  // anything else. On this machine it runs when the module is compiled
  // (unless the compile cache holds it); code for the emulator is compiled
  // uncached, after it.
  const StringRef pipeline = quanta::getToolPassPipeline();
  PassManager pipelinePasses(module.getContext());
  if (!pipeline.empty() &&
      (failed(quanta::buildPassPipeline(module, pipeline, pipelinePasses)) ||
       (!target.isHostArch() && failed(pipelinePasses.run(module)))))
    return failure();
  FailureOr<func::FuncOp> entry =
      quanta::findEntryFunction(module, entryName, "--entry");
  if (failed(entry))
    return failure();
  FunctionType type = entry->getFunctionType();
  StringRef name = entry->getSymName();
  std::optional<quanta::runtime::GuardedBuffer::Guard> guard;
  if (guardPages == GuardPages::After)
    guard = quanta::runtime::GuardedBuffer::Guard::After;
  else if (guardPages == GuardPages::Before)
    guard = quanta::runtime::GuardedBuffer::Guard::Before;

  // The signature first, then the inputs against it, before compiling.
  SmallVector<quanta::TensorSpec> argumentSpecs, resultSpecs;
  for (auto [what, types, specs] :
       {std::make_tuple("argument", type.getInputs(), &argumentSpecs),
        std::make_tuple("result", type.getResults(), &resultSpecs)})
    for (auto [index, type] : llvm::enumerate(types)) {
      auto spec = quanta::getTensorSpec(
          loc, type, what + Twine(" ") + Twine(index), "quant-run");
      if (failed(spec))
        return failure();
      specs->push_back(std::move(*spec));
    }
  if (!outputs.empty() && outputs.size() != resultSpecs.size())
    return emitError(loc) << "'" << name << "' has " << resultSpecs.size()
                          << " result(s), " << outputs.size()
                          << " --output file(s) given";
  FailureOr<std::vector<quanta::runtime::NumpyArray>> arrays = readInputs(loc);
  if (failed(arrays))
    return failure();
  std::vector<quanta::runtime::TensorRef> arguments;
  for (quanta::runtime::NumpyArray &array : *arrays)
    arguments.push_back(array.ref());
  if (llvm::Error error =
          quanta::checkTensors(argumentSpecs, arguments, "argument", name))
    return emitError(loc) << llvm::toString(std::move(error));

  std::vector<std::vector<char>> results;
  if (!target.isHostArch()) {
    if (benchmark > 0 || profile)
      return emitError(loc) << (profile ? "--profile" : "--benchmark")
                            << " times code on this machine's "
                            << "architecture only: under emulation the "
                            << "times mean nothing";
    if (guard)
      return emitError(loc) << "--guard-pages guards the buffers of code run "
                            << "in this process, not under emulation";
    if (quanta::getModuleThreads(module) != 1)
      return emitError(loc) << "--num-threads: there is no OpenMP runtime for "
                            << target.getTriple() << " to link the emulated "
                            << "program with; run it with --num-threads=1";
    if (failed(quanta::pruneToEntry(module, *entry)))
      return failure();
    SmallVector<ArrayRef<char>> inputBytes;
    for (const quanta::runtime::NumpyArray &array : *arrays)
      inputBytes.push_back(array.bytes);
    auto emulated = quanta::runUnderEmulator(module, *entry, target,
                                             emulatorCpu, inputBytes);
    if (failed(emulated))
      return failure();
    results = std::move(*emulated);
    return writeResults(loc, resultSpecs, results);
  }

  if (profile)
    module->setAttr(quanta::kProfileAttrName,
                    UnitAttr::get(module.getContext()));
  // The pipeline is part of the compilation: a compiled module the cache
  // holds is neither lowered nor compiled again.
  auto compileStart = std::chrono::steady_clock::now();
  auto runPipeline = [&pipelinePasses](ModuleOp clone) {
    return pipelinePasses.run(clone);
  };
  const quanta::JitPreLowering preLowering{
      ("the pass pipeline '" + pipeline + "'").str(), runPipeline};
  auto compiled = quanta::CompiledFunction::compile(
      module, name, "quant-run", &target,
      pipeline.empty() ? nullptr : &preLowering);
  if (failed(compiled))
    return failure();
  const bool unlowered = benchmark > 0 && hasUnloweredKernels(module);
  const std::string compilation = llvm::formatv(
      "{0} in {1:F3} s",
      compiled->isFromCache() ? "loaded from the compile cache" : "compiled",
      std::chrono::duration<double>(std::chrono::steady_clock::now() -
                                    compileStart)
          .count());
  for (const quanta::TensorSpec &spec : resultSpecs)
    results.emplace_back(spec.numElements() * spec.elementSize);
  std::vector<quanta::runtime::TensorRef> resultRefs;
  for (auto [spec, result] : llvm::zip_equal(resultSpecs, results))
    resultRefs.push_back({result.data(), spec.shape, spec.dtypes.front(), ""});

  // Guarded copies of the arguments and results (copied out after a call).
  std::vector<quanta::runtime::GuardedBuffer> guarded;
  auto placeGuarded = [&](quanta::runtime::TensorRef &ref,
                          size_t size) -> LogicalResult {
    auto buffer = quanta::runtime::GuardedBuffer::create(size, *guard);
    if (!buffer.ok())
      return emitError(loc) << buffer.getStatus().getMessage();
    std::memcpy(buffer->data(), ref.data, size);
    ref.data = buffer->data();
    guarded.push_back(std::move(*buffer));
    return success();
  };
  if (guard) {
    for (auto [ref, array] : llvm::zip_equal(arguments, *arrays))
      if (failed(placeGuarded(ref, array.bytes.size())))
        return failure();
    for (auto [ref, result] : llvm::zip_equal(resultRefs, results))
      if (failed(placeGuarded(ref, result.size())))
        return failure();
  }
  auto call = [&]() -> LogicalResult {
    if (llvm::Error error = compiled->call(arguments, resultRefs))
      return emitError(loc) << "quant-run: calling '" << name
                            << "' failed: " << llvm::toString(std::move(error));
    for (auto [ref, result] : llvm::zip_equal(resultRefs, results))
      if (ref.data != result.data())
        std::memcpy(result.data(), ref.data, result.size());
    return success();
  };
  if (failed(call()) || failed(writeResults(loc, resultSpecs, results)))
    return failure();

  auto sites = module->getAttrOfType<ArrayAttr>(quanta::kProfileSitesAttrName);
  if (profile)
    quanta::resetKernelProfile(sites ? sites.size() : 0);
  auto start = std::chrono::steady_clock::now();
  if (benchmark > 0 && failed(runBenchmark(module, name, compilation, call)))
    return failure();
  if (unlowered)
    llvm::outs() << name
                 << ": note: no kernel lowering ran: these are the generic "
                    "loops of its matmuls, convolutions and pools (add "
                    "quanta-lower-x86, or quanta-lower-neon, to "
                    "--pass-pipeline for this CPU's kernels)\n";
  if (!profile)
    return success();
  if (benchmark == 0 && failed(call()))
    return failure();
  printProfile(
      name, sites, std::max(1u, unsigned(benchmark)),
      std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
          .count());
  return success();
}

int main(int argc, char **argv) {
  return quanta::quantaToolMain(argc, argv, "Quanta JIT runner\n", run,
                                /*defaultOnnxBatch=*/0,
                                /*runPipeline=*/false);
}

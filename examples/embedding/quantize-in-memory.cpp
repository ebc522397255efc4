//===- quantize-in-memory.cpp - Quanta's C++ API end to end ---------------===//
//
//   quantize-in-memory <model.mlir> <output directory>
//
// Post-training quantization of a model whose only function takes one
// float32 tensor, with calibration batches made in memory (a fixed
// pseudo-random stream here, where a real compiler would pass its own
// data): prepare, calibrate with a progress callback, freeze and convert,
// lower for this machine, write model.o and model.h, and run the int8
// model beside the float one on a batch (written with the int8 output as
// input.bin and expected.bin for call-model.c). Exits non-zero on any
// error or an int8 output far from the float one.
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"

#include "mlir/IR/Diagnostics.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Support/raw_ostream.h"

#include <algorithm>
#include <cmath>
#include <random>

using namespace mlir;

/// Batches produced on demand, one at a time: memory does not grow with
/// their number.
class RandomBatches : public quanta::CalibrationBatches {
public:
  RandomBatches(std::vector<int64_t> shape, int64_t count)
      : shape(std::move(shape)), count(count) {}

  std::optional<int64_t> size() const override { return count; }

  FailureOr<bool>
  next(Location, std::vector<quanta::runtime::TensorRef> &tensors) override {
    if (produced == count)
      return false;
    current = makeBatch(produced++);
    tensors = {{current.data(), shape, "<f4",
                "batch " + std::to_string(produced - 1)}};
    return true;
  }

  std::vector<float> makeBatch(int64_t index) const {
    std::mt19937 generator(static_cast<unsigned>(index));
    std::uniform_real_distribution<float> uniform(-1.0f, 1.0f);
    int64_t elements = 1;
    for (int64_t dim : shape)
      elements *= dim;
    std::vector<float> values(elements);
    for (float &value : values)
      value = uniform(generator);
    return values;
  }

private:
  std::vector<int64_t> shape;
  int64_t count;
  int64_t produced = 0;
  std::vector<float> current;
};

/// Runs `module`'s only function on `input`.
static FailureOr<std::vector<float>> run(ModuleOp module, StringRef name,
                                         std::vector<float> &input,
                                         const std::vector<int64_t> &shape) {
  auto compiled =
      quanta::CompiledFunction::compile(module, name, "quantize-in-memory");
  if (failed(compiled))
    return failure();
  const quanta::TensorSpec &result = compiled->getResults().front();
  std::vector<float> output(result.numElements());
  if (llvm::Error error =
          compiled->call({{input.data(), shape, "<f4", "input"}},
                         {{output.data(), result.shape, "<f4", "output"}})) {
    llvm::errs() << llvm::toString(std::move(error)) << "\n";
    return failure();
  }
  return output;
}

static LogicalResult
writeFile(StringRef path,
          function_ref<LogicalResult(llvm::raw_pwrite_stream &)> write) {
  std::error_code error;
  llvm::ToolOutputFile file(path, error, llvm::sys::fs::OF_None);
  if (error) {
    llvm::errs() << path << ": " << error.message() << "\n";
    return failure();
  }
  if (failed(write(file.os())))
    return failure();
  file.keep();
  return success();
}

int main(int argc, char **argv) {
  if (argc != 3) {
    llvm::errs() << "usage: quantize-in-memory <model.mlir> <output dir>\n";
    return 2;
  }
  quanta::registerAllPasses();
  DialectRegistry registry;
  quanta::registerAllDialects(registry);
  MLIRContext context(registry);
  OwningOpRef<ModuleOp> module = parseSourceFile<ModuleOp>(argv[1], &context);
  if (!module)
    return 1;
  auto entry =
      quanta::findEntryFunction(*module, "", "a model of one function");
  if (failed(entry))
    return 1;
  std::string name = entry->getSymName().str();
  auto inputType = dyn_cast<RankedTensorType>(entry->getArgumentTypes()[0]);
  if (entry->getNumArguments() != 1 || !inputType ||
      !inputType.hasStaticShape()) {
    entry->emitError("expected one static tensor argument");
    return 1;
  }
  std::vector<int64_t> shape(inputType.getShape().begin(),
                             inputType.getShape().end());
  // The float model, in linalg (upstream's TOSA lowering): the reference.
  OwningOpRef<ModuleOp> floatModel = module->clone();
  if (failed(quanta::runPassPipeline(
          *floatModel,
          "builtin.module(tosa-to-linalg-pipeline,"
          "func.func(tosa-to-tensor,tosa-to-arith),canonicalize)")))
    return 1;

  // 1. prepare(): PyTorch's x86 qconfig.
  quanta::PrepareOptions prepareOptions;
  prepareOptions.qconfig = "x86";
  PassManager prepare(&context);
  quanta::buildPreparePipeline(prepare, prepareOptions);
  if (failed(prepare.run(*module)))
    return 1;

  // 2. Calibrate on 16 batches made in memory.
  RandomBatches batches(shape, 16);
  auto progress = [](const quanta::CalibrationProgress &progress) {
    if (progress.batches == 0)
      llvm::outs() << "compiled for calibration\n";
    else if (progress.batches == progress.total)
      llvm::outs() << "calibrated on " << progress.batches << " batches\n";
  };
  if (failed(quanta::calibrate(*module, batches, quanta::CalibrateOptions(),
                               progress)))
    return 1;

  // 3. Observers to q/dq pairs, float ops to integer ones, and 4. kernels
  // for this machine: quanta-compile.
  const quanta::TargetDescription host = quanta::TargetDescription::host();
  quanta::setModuleTarget(*module, host);
  PassManager compile(&context);
  quanta::buildCompilePipeline(compile, quanta::CompileOptions());
  if (failed(compile.run(*module)))
    return 1;

  // 5. Run both models on a batch calibration did not see.
  std::vector<float> input = batches.makeBatch(1000);
  auto reference = run(*floatModel, name, input, shape);
  auto quantized = run(*module, name, input, shape);
  if (failed(reference) || failed(quantized))
    return 1;
  float maxError = 0, maxReference = 0;
  for (auto [want, got] : llvm::zip_equal(*reference, *quantized)) {
    maxError = std::max(maxError, std::fabs(want - got));
    maxReference = std::max(maxReference, std::fabs(want));
  }
  llvm::outs() << "int8 vs float: max |error| " << maxError << ", max |output| "
               << maxReference << "\n";

  // 6. An object file and its C header.
  SmallString<128> object(argv[2]), header(argv[2]);
  llvm::sys::path::append(object, "model.o");
  llvm::sys::path::append(header, "model.h");
  if (failed(writeFile(header,
                       [&](llvm::raw_pwrite_stream &os) {
                         return quanta::emitCHeader(*module, argv[1], host, os);
                       })) ||
      failed(writeFile(object, [&](llvm::raw_pwrite_stream &os) {
        return quanta::emitObjectFile(*module, host, os);
      })))
    return 1;
  // The input and the int8 output as raw float32, for call-model.c to
  // check that the object file computes what the JIT did.
  for (auto [file, values] : {std::make_pair("input.bin", &input),
                              std::make_pair("expected.bin", &*quantized)}) {
    SmallString<128> path(argv[2]);
    llvm::sys::path::append(path, file);
    if (failed(writeFile(path, [&](llvm::raw_pwrite_stream &os) {
          os.write(reinterpret_cast<const char *>(values->data()),
                   values->size() * sizeof(float));
          return success();
        })))
      return 1;
  }
  llvm::outs() << "wrote " << object << " and " << header << "\n";
  // int8 within a few quantization steps of float.
  return maxError <= 0.1f * maxReference ? 0 : 1;
}

//===- quanta-onnx-conformance.cpp - ONNX's backend node tests, run -------===//
//
//   quanta-onnx-conformance [--data=/usr/share/libonnx-testdata/data/node]
//       [--expected-skips=FILE] [--filter=substring] [-v]
//
// Runs ONNX's own backend node tests (Debian's libonnx-testdata: a model
// and input/output TensorProtos per test) through Quanta: every test whose
// ops the importer claims is imported, lowered by --pass-pipeline
// (default: quanta-freeze-qparams, which makes the fake quantizations QDQ
// pairs import as quant.qcast/dcast, quanta-quantize, then Quanta's float
// and integer kernels for this machine), JIT-compiled, run on the test's inputs
// and compared with its outputs at the suite's tolerances (rtol 1e-3, atol 1e-7
// for floats; integers exactly).
//
// Inputs the importer needs as constants (isOnnxConstantOperand: the
// shapes, axes, pads, clip bounds and quantization parameters some tests
// feed as inputs) become initializers first: Quanta compiles static shapes,
// and QDQ models carry their scales as initializers. So do the weights of
// QLinearConv and QLinearMatMul, as in real models, for quanta-quantize's
// integer GEMM: test_qlinearconv runs on it (its u8 weights imported as
// the s8 ones with the same values) and matches exactly; weights that
// differ per batch (test_qlinearmatmul_3D) run the q/dq float path.
//
// A test the importer rejects with a diagnostic is a skip, with the
// diagnostic as its reason; it must be listed in --expected-skips, so a
// new skip fails the run as a failure does, and a listed test that now
// passes must be removed from the list. Prints a line per test, the counts
// per op type and a last line "onnx conformance: N passed, M failed, K
// skipped". Exits non-zero on any failure.
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/CPU/Passes.h"
#include "quanta/Import/Onnx/OnnxImporter.h"
#include "quanta/Pipelines/Pipelines.h"
#include "quanta/Target/Jit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/MLIRContext.h"
#include "mlir/InitAllPasses.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Pass/PassRegistry.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/InitLLVM.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/raw_ostream.h"

#include <onnx/onnx_pb.h>

#include <array>
#include <cmath>
#include <cstring>
#include <map>
#include <set>

using namespace mlir;
namespace cl = llvm::cl;

static cl::opt<std::string>
    dataDir("data", cl::desc("the node tests' directory"),
            cl::init("/usr/share/libonnx-testdata/data/node"));
static cl::opt<std::string> expectedSkips(
    "expected-skips",
    cl::desc("the tests allowed to be skipped, one name per line"));
static cl::opt<std::string> filter("filter",
                                   cl::desc("run tests whose name contains "
                                            "this"));
static cl::opt<std::string>
    pipeline("pass-pipeline", cl::desc("passes before quanta-lower-to-llvm"),
             cl::init("func.func(quanta-freeze-qparams),quanta-quantize,"
                      "quanta-lower-x86"));
static cl::opt<bool> verbose("v", cl::desc("print the passes, not only the "
                                           "failures and skips"));

namespace {
enum class Outcome { Passed, Failed, Skipped };

struct Result {
  Outcome outcome;
  std::string reason;
};

/// A tensor's bytes in the layout of a memref of its type (i1 as bytes).
struct Buffer {
  RankedTensorType type;
  std::vector<char> bytes;
};

std::optional<std::string> readFile(StringRef path) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return std::nullopt;
  return (*file)->getBuffer().str();
}

size_t elementBytes(Type type) {
  return std::max<size_t>(1, type.getIntOrFloatBitWidth() / 8);
}

Buffer toBuffer(DenseElementsAttr attr) {
  auto type = cast<RankedTensorType>(attr.getType());
  const size_t size = elementBytes(type.getElementType());
  Buffer buffer{type, std::vector<char>(type.getNumElements() * size)};
  if (type.getElementType().isInteger(1)) {
    size_t i = 0;
    for (bool value : attr.getValues<bool>())
      buffer.bytes[i++] = value;
    return buffer;
  }
  ArrayRef<char> raw = attr.getRawData();
  for (size_t offset = 0; offset < buffer.bytes.size(); offset += size)
    std::memcpy(buffer.bytes.data() + offset,
                raw.data() + (attr.isSplat() ? 0 : offset), size);
  return buffer;
}

/// Compares a result with the expected tensor; an empty string if equal.
std::string compare(const Buffer &actual, const Buffer &expected) {
  if (actual.type.getShape() != expected.type.getShape() ||
      elementBytes(actual.type.getElementType()) !=
          elementBytes(expected.type.getElementType())) {
    std::string message;
    llvm::raw_string_ostream os(message);
    os << "result type " << actual.type << ", expected " << expected.type;
    return message;
  }
  const int64_t count = actual.type.getNumElements();
  Type element = actual.type.getElementType();
  int64_t mismatches = 0, first = -1;
  double worst = 0;
  for (int64_t i = 0; i < count; ++i) {
    bool equal;
    if (element.isF32() || element.isF64()) {
      double a, e;
      if (element.isF32()) {
        a = reinterpret_cast<const float *>(actual.bytes.data())[i];
        e = reinterpret_cast<const float *>(expected.bytes.data())[i];
      } else {
        a = reinterpret_cast<const double *>(actual.bytes.data())[i];
        e = reinterpret_cast<const double *>(expected.bytes.data())[i];
      }
      equal = (std::isnan(a) && std::isnan(e)) || a == e ||
              std::fabs(a - e) <= 1e-7 + 1e-3 * std::fabs(e);
      if (!equal)
        worst = std::max(worst, std::fabs(a - e));
    } else {
      const size_t size = elementBytes(element);
      equal = std::memcmp(actual.bytes.data() + i * size,
                          expected.bytes.data() + i * size, size) == 0;
    }
    if (!equal && mismatches++ == 0)
      first = i;
  }
  if (!mismatches)
    return "";
  std::string message;
  llvm::raw_string_ostream os(message);
  os << mismatches << " of " << count << " values differ (first at flat index "
     << first << ")";
  if (worst > 0)
    os << ", largest difference " << worst;
  return message;
}

class Runner {
public:
  explicit Runner(MLIRContext &context) : context(context) {}
  Result run(StringRef testDir, std::set<std::string> &ops);

private:
  MLIRContext &context;
};
} // namespace

/// Calls the compiled `entry` on `inputs` and compares its results with
/// `expected`.
static Result callAndCompare(quanta::JitEngine &engine, func::FuncOp entry,
                             std::vector<Buffer> &inputs,
                             const std::vector<Buffer> &expected) {
  FunctionType type = entry.getFunctionType();
  std::vector<Buffer> results;
  SmallVector<quanta::MemRefDescriptor> descriptors;
  for (Buffer &input : inputs)
    descriptors.emplace_back(input.bytes.data(), input.type.getShape());
  for (Type resultType : type.getResults()) {
    auto tensor = cast<RankedTensorType>(resultType);
    results.push_back(Buffer{
        tensor, std::vector<char>(tensor.getNumElements() *
                                  elementBytes(tensor.getElementType()))});
  }
  for (Buffer &result : results)
    descriptors.emplace_back(result.bytes.data(), result.type.getShape());
  SmallVector<void *> arguments;
  for (quanta::MemRefDescriptor &descriptor : descriptors)
    arguments.push_back(descriptor.packed());
  if (llvm::Error error = engine.invokePacked(
          ("_mlir_ciface_" + entry.getSymName()).str(), arguments))
    return {Outcome::Failed,
            "calling failed: " + llvm::toString(std::move(error))};
  for (auto [index, result] : llvm::enumerate(results)) {
    std::string difference = compare(result, expected[index]);
    if (!difference.empty())
      return {Outcome::Failed,
              "output " + std::to_string(index) + ": " + difference};
  }
  return {Outcome::Passed, ""};
}

Result Runner::run(StringRef testDir, std::set<std::string> &ops) {
  SmallString<256> modelPath(testDir);
  llvm::sys::path::append(modelPath, "model.onnx");
  std::optional<std::string> bytes = readFile(modelPath);
  onnx::ModelProto model;
  if (!bytes || !model.ParseFromString(*bytes))
    return {Outcome::Failed, "cannot read model.onnx"};
  for (const onnx::NodeProto &node : model.graph().node())
    ops.insert(node.op_type());
  for (const std::string &op : ops)
    if (!llvm::is_contained(quanta::getSupportedOnnxOps(), op))
      return {Outcome::Skipped, "op '" + op + "' is not claimed"};

  // Test data: inputs, and int64 inputs folded into the model.
  SmallString<256> dataSet(testDir);
  llvm::sys::path::append(dataSet, "test_data_set_0");
  Location loc = FileLineColLoc::get(&context, modelPath, 0, 0);
  std::vector<Buffer> inputs, expected;
  std::string diagnostics;
  ScopedDiagnosticHandler handler(&context, [&](Diagnostic &diagnostic) {
    llvm::raw_string_ostream os(diagnostics);
    if (!diagnostics.empty())
      os << "; ";
    os << diagnostic.str();
    return success();
  });
  auto readTensor = [&](StringRef kind, int index) -> FailureOr<Buffer> {
    SmallString<256> path(dataSet);
    llvm::sys::path::append(path, kind + "_" + Twine(index) + ".pb");
    std::optional<std::string> data = readFile(path);
    if (!data)
      return failure();
    auto attr = quanta::importOnnxTensor(loc, *data);
    if (failed(attr))
      return failure();
    return toBuffer(*attr);
  };
  // Inputs the importer needs as constants (shapes, bounds, quantization
  // parameters) become initializers; the others are the call's arguments.
  onnx::GraphProto *graph = model.mutable_graph();
  std::set<std::string> initializers, folded;
  for (const onnx::TensorProto &tensor : graph->initializer())
    initializers.insert(tensor.name());
  for (const onnx::NodeProto &node : model.graph().node())
    for (int i = 0; i < node.input_size(); ++i)
      if (quanta::isOnnxConstantOperand(node.op_type(), i) ||
          (i == 3 && (node.op_type() == "QLinearConv" ||
                      node.op_type() == "QLinearMatMul")))
        folded.insert(node.input(i));
  SmallVector<std::string> argumentPaths;
  int inputIndex = 0;
  for (const onnx::ValueInfoProto &info : model.graph().input()) {
    if (initializers.count(info.name()))
      continue;
    SmallString<256> path(dataSet);
    llvm::sys::path::append(path, "input_" + Twine(inputIndex++) + ".pb");
    if (!folded.count(info.name())) {
      argumentPaths.push_back(path.str().str());
      continue;
    }
    std::optional<std::string> data = readFile(path);
    onnx::TensorProto *tensor = graph->add_initializer();
    if (!data || !tensor->ParseFromString(*data))
      return {Outcome::Failed, "cannot read " + path.str().str()};
    tensor->set_name(info.name());
  }
  std::string serialized;
  model.SerializeToString(&serialized);
  OwningOpRef<ModuleOp> module =
      quanta::importOnnxModel(&context, serialized, modelPath);
  if (!module)
    return {Outcome::Skipped, diagnostics};
  for (const std::string &path : argumentPaths) {
    std::optional<std::string> data = readFile(path);
    auto attr = data ? quanta::importOnnxTensor(loc, *data)
                     : FailureOr<DenseElementsAttr>(failure());
    if (failed(attr))
      return {Outcome::Failed, "cannot read " + path + ": " + diagnostics};
    inputs.push_back(toBuffer(*attr));
  }
  for (int index = 0; index < model.graph().output_size(); ++index) {
    auto buffer = readTensor("output", index);
    if (failed(buffer))
      return {Outcome::Failed, "cannot read output_" + std::to_string(index) +
                                   ".pb: " + diagnostics};
    expected.push_back(std::move(*buffer));
  }

  auto entry = *module->getOps<func::FuncOp>().begin();
  FunctionType type = entry.getFunctionType();
  if (type.getNumInputs() != inputs.size() ||
      type.getNumResults() != expected.size())
    return {Outcome::Failed, "the function's signature does not match the "
                             "test data"};
  // Signedness aside (ui8 arguments read the tensors' i8 bytes).
  auto sameLayout = [](Type a, RankedTensorType b) {
    auto tensor = cast<RankedTensorType>(a);
    return tensor.getShape() == b.getShape() &&
           tensor.getElementTypeBitWidth() == b.getElementTypeBitWidth();
  };
  for (auto [index, input] : llvm::enumerate(inputs))
    if (!sameLayout(type.getInput(index), input.type))
      return {Outcome::Failed, "argument " + std::to_string(index) +
                                   " type differs from the test data"};

  PassManager pm(&context);
  std::string errors;
  llvm::raw_string_ostream errorStream(errors);
  if (failed(parsePassPipeline(pipeline, pm, errorStream)))
    return {Outcome::Failed, "bad --pass-pipeline: " + errors};
  if (failed(pm.run(*module)))
    return {Outcome::Failed, "the pipeline failed: " + diagnostics};
  quanta::exposeCInterface(entry);
  auto engine = quanta::compileForJit(*module, "quanta-onnx-conformance");
  if (failed(engine))
    return {Outcome::Failed, "compiling failed: " + diagnostics};

  return callAndCompare(**engine, entry, inputs, expected);
}

int main(int argc, char **argv) {
  llvm::InitLLVM init(argc, argv);
  registerAllPasses();
  quanta::registerQuantaPassesAndPipelines();
  cl::ParseCommandLineOptions(argc, argv, "ONNX backend node tests\n");

  llvm::StringSet<> allowedSkips;
  if (!expectedSkips.empty()) {
    std::optional<std::string> list = readFile(expectedSkips);
    if (!list) {
      llvm::errs() << "quanta-onnx-conformance: cannot read " << expectedSkips
                   << "\n";
      return 1;
    }
    SmallVector<StringRef> lines;
    StringRef(*list).split(lines, '\n', -1, false);
    for (StringRef line : lines) {
      line = line.split('#').first.trim();
      if (!line.empty())
        allowedSkips.insert(line);
    }
  }

  std::vector<std::string> tests;
  std::error_code ec;
  for (llvm::sys::fs::directory_iterator it(dataDir, ec), end; it != end && !ec;
       it.increment(ec))
    if (llvm::sys::path::filename(it->path()).starts_with("test_") &&
        StringRef(it->path()).contains(filter))
      tests.push_back(it->path());
  if (ec || tests.empty()) {
    llvm::errs() << "quanta-onnx-conformance: no tests in " << dataDir
                 << (ec ? ": " + ec.message() : std::string()) << "\n";
    return 1;
  }
  llvm::sort(tests);

  DialectRegistry registry;
  quanta::registerJitDialects(registry);
  quanta::registerOnnxImportDialects(registry);
  // Per op type: passed, failed, skipped.
  std::map<std::string, std::array<int, 3>> perOp;
  int counts[3] = {0, 0, 0}, notClaimed = 0;
  for (const std::string &test : tests) {
    MLIRContext context(registry);
    context.printOpOnDiagnostic(false);
    Runner runner(context);
    std::set<std::string> ops;
    Result result = runner.run(test, ops);
    const std::string name = llvm::sys::path::filename(test).str();
    if (result.outcome == Outcome::Skipped &&
        StringRef(result.reason).ends_with("is not claimed")) {
      ++notClaimed;
      continue;
    }
    if (result.outcome == Outcome::Skipped && !allowedSkips.contains(name) &&
        !expectedSkips.empty()) {
      result.outcome = Outcome::Failed;
      result.reason = "skipped but not in the expected skips: " + result.reason;
    }
    if (result.outcome == Outcome::Passed && allowedSkips.contains(name)) {
      result.outcome = Outcome::Failed;
      result.reason = "passes: remove it from the expected skips";
    }
    const int kind = int(result.outcome);
    ++counts[kind];
    for (const std::string &op : ops)
      ++perOp[op][kind];
    static const char *labels[] = {"PASS", "FAIL", "SKIP"};
    if (result.outcome != Outcome::Passed || verbose)
      llvm::outs() << labels[kind] << " " << name
                   << (result.reason.empty() ? "" : ": ") << result.reason
                   << "\n";
  }
  llvm::outs() << "\nper op type: passed / failed / skipped\n";
  for (auto &[op, opCounts] : perOp)
    llvm::outs() << "  " << op << ": " << opCounts[0] << " / " << opCounts[1]
                 << " / " << opCounts[2] << "\n";
  llvm::outs() << notClaimed << " tests use ops the importer does not claim\n";
  llvm::outs() << "onnx conformance: " << counts[0] << " passed, " << counts[1]
               << " failed, " << counts[2] << " skipped\n";
  return counts[1] == 0 ? 0 : 1;
}

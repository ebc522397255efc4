//===- Emulator.cpp - Running code for another architecture under qemu ----===//

#include "quanta/Target/Emulator.h"
#include "quanta/Target/ObjectFile.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/ScopeExit.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/ToolOutputFile.h"

using namespace mlir;
using namespace mlir::quanta;

/// The bytes of a static tensor of `type`: its storage type's, for a
/// quantized one.
static size_t getByteSize(Type type) {
  auto tensor = cast<RankedTensorType>(type);
  Type element = tensor.getElementType();
  if (auto quantized = dyn_cast<quant::QuantizedType>(element))
    element = quantized.getStorageType();
  return tensor.getNumElements() * element.getIntOrFloatBitWidth() / 8;
}

/// The C driver: checks the CPU, reads each argument from a file, calls
/// `<entry>_run` of the header and writes each result to a file.
static std::string makeDriver(StringRef entry, ArrayRef<size_t> inputSizes,
                              ArrayRef<size_t> resultSizes) {
  std::string text;
  llvm::raw_string_ostream os(text);
  os << R"(#include <stdio.h>
#include <stdlib.h>
#include "model.h"

static void *load(const char *path, size_t size) {
  void *data = malloc(size ? size : 1);
  FILE *file = fopen(path, "rb");
  if (!data || !file || fread(data, 1, size, file) != size) {
    fprintf(stderr, "cannot read %zu bytes from %s\n", size, path);
    exit(2);
  }
  fclose(file);
  return data;
}

static void store(const char *path, const void *data, size_t size) {
  FILE *file = fopen(path, "wb");
  if (!file || fwrite(data, 1, size, file) != size || fclose(file) != 0) {
    fprintf(stderr, "cannot write %s\n", path);
    exit(2);
  }
}

int main(int argc, char **argv) {
)";
  const size_t arguments = inputSizes.size() + resultSizes.size();
  os << "  const char *missing = " << entry << "_missing_cpu_feature();\n"
     << "  if (missing) {\n"
     << "    fprintf(stderr, \"this CPU lacks %s\\n\", missing);\n"
     << "    return 3;\n  }\n"
     << "  if (argc != " << arguments + 1 << ") return 2;\n";
  for (auto [index, size] : llvm::enumerate(inputSizes))
    os << "  void *arg" << index << " = load(argv[" << index + 1 << "], "
       << size << ");\n";
  for (auto [index, size] : llvm::enumerate(resultSizes))
    os << "  void *result" << index << " = malloc(" << std::max<size_t>(size, 1)
       << ");\n";
  os << "  " << entry << "_run(";
  SmallVector<std::string> names;
  for (size_t index = 0; index < inputSizes.size(); ++index)
    names.push_back("arg" + std::to_string(index));
  for (size_t index = 0; index < resultSizes.size(); ++index)
    names.push_back("result" + std::to_string(index));
  os << llvm::join(names, ", ") << ");\n";
  for (auto [index, size] : llvm::enumerate(resultSizes))
    os << "  store(argv[" << inputSizes.size() + index + 1 << "], result"
       << index << ", " << size << ");\n";
  os << "  return 0;\n}\n";
  return text;
}

/// The first of `names` on the PATH, or empty.
static std::string findProgram(ArrayRef<StringRef> names) {
  for (StringRef name : names)
    if (llvm::ErrorOr<std::string> path = llvm::sys::findProgramByName(name))
      return *path;
  return "";
}

/// Runs `program` with `arguments`, its stdout and stderr in `log`.
/// Returns its exit code (-2 when it died of a signal, `error` saying
/// which).
static int execute(StringRef program, ArrayRef<std::string> arguments,
                   StringRef log, std::string &error) {
  SmallVector<StringRef> argv{program};
  for (const std::string &argument : arguments)
    argv.push_back(argument);
  std::optional<StringRef> redirects[] = {StringRef(""), log, log};
  return llvm::sys::ExecuteAndWait(program, argv, std::nullopt, redirects,
                                   /*SecondsToWait=*/0, /*MemoryLimit=*/0,
                                   &error);
}

static std::string readLog(StringRef path) {
  auto buffer = llvm::MemoryBuffer::getFile(path);
  return buffer ? (*buffer)->getBuffer().trim().str() : "";
}

FailureOr<std::vector<std::vector<char>>>
quanta::runUnderEmulator(ModuleOp module, func::FuncOp entry,
                         const TargetDescription &target, StringRef cpuModel,
                         ArrayRef<ArrayRef<char>> inputs) {
  Location loc = module.getLoc();
  if (target.getArch() != TargetArch::AArch64)
    return emitError(loc) << "code for " << target.describe()
                          << " runs here only if it is AArch64 (under "
                          << "qemu-aarch64)";
  const std::string qemu = findProgram({"qemu-aarch64"});
  if (qemu.empty())
    return emitError(loc) << "running AArch64 code on this machine needs "
                          << "qemu-aarch64: apt-get install qemu-user";
  std::string clang = QUANTA_LLVM_TOOLS_DIR "/clang";
  if (!llvm::sys::fs::can_execute(clang))
    clang = findProgram({"clang-22", "clang"});
  const char *sysroot = "/usr/aarch64-linux-gnu";
  if (clang.empty() ||
      !llvm::sys::fs::exists(llvm::Twine(sysroot) + "/lib/libc.a") ||
      !llvm::sys::fs::is_directory("/usr/lib/gcc-cross/aarch64-linux-gnu"))
    return emitError(loc)
           << "linking AArch64 programs needs clang and the cross C library: "
           << "apt-get install clang-22 lld-22 gcc-aarch64-linux-gnu "
           << "libc6-dev-arm64-cross";

  SmallString<128> directory;
  if (std::error_code error =
          llvm::sys::fs::createUniqueDirectory("quanta-run", directory))
    return emitError(loc) << "cannot create a temporary directory: "
                          << error.message();
  llvm::scope_exit removeDirectory(
      [&] { llvm::sys::fs::remove_directories(directory); });
  auto path = [&](const llvm::Twine &name) {
    SmallString<128> result(directory);
    llvm::sys::path::append(result, name);
    return std::string(result);
  };

  SmallVector<size_t> inputSizes, resultSizes;
  for (Type type : entry.getFunctionType().getInputs())
    inputSizes.push_back(getByteSize(type));
  for (Type type : entry.getFunctionType().getResults())
    resultSizes.push_back(getByteSize(type));
  assert(inputSizes.size() == inputs.size() && "an input per argument");

  // The header describes the tensor signatures, which lowering replaces.
  std::string error;
  auto writeFile =
      [&](const std::string &file,
          llvm::function_ref<LogicalResult(llvm::raw_fd_ostream &)> write)
      -> LogicalResult {
    std::error_code code;
    llvm::raw_fd_ostream os(file, code);
    if (code)
      return emitError(loc)
             << "cannot write " << file << ": " << code.message();
    return write(os);
  };
  const std::string entryName = entry.getSymName().str();
  if (failed(writeFile(path("model.h"),
                       [&](llvm::raw_fd_ostream &os) {
                         return emitCHeader(module, "model.mlir", target, os);
                       })) ||
      failed(writeFile(path("model.o"),
                       [&](llvm::raw_fd_ostream &os) {
                         return emitObjectFile(module, target, os);
                       })) ||
      failed(writeFile(path("driver.c"), [&](llvm::raw_fd_ostream &os) {
        os << makeDriver(entryName, inputSizes, resultSizes);
        return success();
      })))
    return failure();

  const std::string program = path("model.aarch64"), log = path("log.txt");
  if (execute(clang,
              {"--target=" + target.getTriple().str(), "-O1", "-static",
               "-fuse-ld=lld", "-w", path("driver.c"), path("model.o"), "-lm",
               "-o", program},
              log, error) != 0)
    return emitError(loc) << "linking the AArch64 driver failed: " << error
                          << "\n"
                          << readLog(log);

  std::vector<std::string> arguments{"-cpu", cpuModel.str(), program};
  for (auto [index, input] : llvm::enumerate(inputs)) {
    ArrayRef<char> bytes = input;
    arguments.push_back(path("input" + llvm::Twine(index)));
    if (failed(writeFile(arguments.back(), [&](llvm::raw_fd_ostream &os) {
          os.write(bytes.data(), bytes.size());
          return success();
        })))
      return failure();
  }
  for (size_t index = 0; index < resultSizes.size(); ++index)
    arguments.push_back(path("result" + llvm::Twine(index)));
  const int status = execute(qemu, arguments, log, error);
  if (status == 3)
    return emitError(loc) << "qemu-aarch64 -cpu " << cpuModel << ": "
                          << readLog(log) << ", which '" << entryName
                          << "' was compiled for (" << target.describe() << ": "
                          << target.str() << ")";
  if (status != 0)
    return emitError(loc) << "'" << entryName << "' under qemu-aarch64 -cpu "
                          << cpuModel << " failed"
                          << (error.empty() ? "" : ": " + error) << "\n"
                          << readLog(log);

  std::vector<std::vector<char>> results;
  for (auto [index, size] : llvm::enumerate(resultSizes)) {
    auto buffer =
        llvm::MemoryBuffer::getFile(path("result" + llvm::Twine(index)));
    if (!buffer || (*buffer)->getBufferSize() != size)
      return emitError(loc) << "the emulated run wrote no result " << index;
    results.emplace_back((*buffer)->getBufferStart(),
                         (*buffer)->getBufferEnd());
  }
  return results;
}

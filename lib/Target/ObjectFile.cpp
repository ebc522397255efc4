//===- ObjectFile.cpp - Object files and C headers for a module -----------===//

#include "quanta/Target/ObjectFile.h"
#include "quanta/Codegen/Common/MemoryPlan.h"
#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Target/Jit.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Support/FileUtilities.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/InterleavedRange.h"
#include "llvm/Support/Path.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ToolOutputFile.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Target/TargetOptions.h"
#include "llvm/TargetParser/Host.h"

using namespace mlir;

namespace {
/// The C view of one tensor of a signature.
struct CBuffer {
  /// The element type in C, e.g. "uint8_t".
  std::string element;
  /// Its short name in descriptor type names, e.g. "u8".
  std::string tag;
  RankedTensorType type;

  std::string descriptorType() const {
    return "quanta_memref_" + tag + "_" + std::to_string(type.getRank()) + "d";
  }
};
} // namespace

/// How a tensor of `type` crosses the C interface, if it can.
static std::optional<CBuffer> getCBuffer(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || !tensor.hasStaticShape())
    return std::nullopt;
  Type element = tensor.getElementType();
  if (element.isF32())
    return CBuffer{"float", "f32", tensor};
  if (element.isF64())
    return CBuffer{"double", "f64", tensor};
  bool isSigned = true;
  unsigned width = 0;
  if (auto quantized = dyn_cast<quant::QuantizedType>(element)) {
    isSigned = quantized.isSigned();
    width = quantized.getStorageTypeIntegralWidth();
  } else if (auto integer = dyn_cast<IntegerType>(element)) {
    isSigned = !integer.isUnsigned();
    width = integer.getWidth();
  }
  if (!llvm::is_contained({8u, 16u, 32u, 64u}, width))
    return std::nullopt;
  const std::string bits = std::to_string(width);
  return isSigned ? CBuffer{"int" + bits + "_t", "i" + bits, tensor}
                  : CBuffer{"uint" + bits + "_t", "u" + bits, tensor};
}

static bool isCIdentifier(StringRef name) {
  return !name.empty() && !llvm::isDigit(name.front()) &&
         llvm::all_of(name,
                      [](char c) { return llvm::isAlnum(c) || c == '_'; });
}

FailureOr<SmallVector<func::FuncOp>>
quanta::getCInterfaceFunctions(ModuleOp module) {
  SmallVector<func::FuncOp> functions;
  bool valid = true;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || !func.isPublic())
      continue;
    if (!isCIdentifier(func.getSymName())) {
      func.emitOpError() << "name '" << func.getSymName()
                         << "' is not a C identifier; rename the function or "
                         << "make it private";
      valid = false;
      continue;
    }
    FunctionType type = func.getFunctionType();
    for (auto [what, types] : {std::make_pair("argument", type.getInputs()),
                               std::make_pair("result", type.getResults())}) {
      for (auto [index, type] : llvm::enumerate(types)) {
        if (getCBuffer(type))
          continue;
        func.emitOpError() << what << " " << index << " has type " << type
                           << "; a C interface takes static tensors of f32, "
                           << "f64, 8/16/32/64-bit integers or quantized "
                           << "types";
        valid = false;
      }
    }
    functions.push_back(func);
  }
  if (!valid)
    return failure();
  if (functions.empty())
    return emitError(module.getLoc())
           << "the module has no public function to compile";
  return functions;
}

static void emitDescriptorType(const CBuffer &buffer, llvm::raw_ostream &os) {
  std::string name = buffer.descriptorType();
  std::string guard = StringRef(name).upper();
  os << "#ifndef " << guard << "\n#define " << guard << "\n"
     << "typedef struct " << name << " {\n"
     << "  " << buffer.element << " *allocated;\n"
     << "  " << buffer.element << " *aligned;\n"
     << "  int64_t offset;\n";
  if (buffer.type.getRank() > 0)
    os << "  int64_t sizes[" << buffer.type.getRank() << "];\n"
       << "  int64_t strides[" << buffer.type.getRank() << "];\n";
  os << "} " << name << ";\n#endif\n\n";
}

/// `name`'s descriptor over the contiguous row-major `pointer`.
static void emitDescriptorInit(const CBuffer &buffer, StringRef name,
                               StringRef pointer, llvm::raw_ostream &os) {
  os << "  " << buffer.descriptorType() << " " << name << " = {("
     << buffer.element << " *)" << pointer << ", (" << buffer.element << " *)"
     << pointer << ", 0";
  ArrayRef<int64_t> shape = buffer.type.getShape();
  if (!shape.empty()) {
    SmallVector<int64_t> strides(shape.size(), 1);
    for (int64_t dim = static_cast<int64_t>(shape.size()) - 2; dim >= 0; --dim)
      strides[dim] = strides[dim + 1] * shape[dim + 1];
    os << ", {" << llvm::interleaved(shape) << "}, {"
       << llvm::interleaved(strides) << "}";
  }
  os << "};\n";
}

LogicalResult quanta::emitCHeader(ModuleOp module, StringRef origin,
                                  const TargetDescription &target,
                                  llvm::raw_ostream &os) {
  auto functions = getCInterfaceFunctions(module);
  if (failed(functions))
    return failure();
  os << "/* Generated by quant-compile from "
     << llvm::sys::path::filename(origin) << " for " << target.describe()
     << ". Do not edit.\n"
     << " *\n"
     << " * Each function takes MLIR memref descriptors: its arguments, then\n"
     << " * its results as out-parameters whose buffers the caller owns.\n"
     << " * Quantized tensors hold their storage integers; the comment of\n"
     << " * each function gives their scales and zero points.\n";
  if (getModuleThreads(module) == 1)
    os << " * The object file needs only the C library and libm (link with\n"
       << " * -lm).\n";
  else
    os << " * The kernels run on "
       << (getModuleThreads(module) == 0
               ? std::string("the OpenMP runtime's threads (OMP_NUM_THREADS, "
                             "else every core)")
               : std::to_string(getModuleThreads(module)) + " threads")
       << ": the object file\n"
       << " * needs the C library, libm and LLVM's OpenMP runtime (Debian's\n"
       << " * libomp-22-dev): link with -lm -L/usr/lib/llvm-22/lib -lomp\n"
       << " * -Wl,-rpath,/usr/lib/llvm-22/lib.\n";
  os << " *\n"
     << " * The code needs a CPU with " << target.str() << ". Each entry\n"
     << " * point checks at its first call that the CPU has these features,\n"
     << " * and otherwise writes the missing one to stderr and aborts;\n"
     << " * <f>_missing_cpu_feature() returns its name (NULL when the CPU has\n"
     << " * them all) for programs that would rather choose another path. */\n";
  std::string guard = "QUANTA_";
  for (char c : llvm::sys::path::filename(origin))
    guard += llvm::isAlnum(c) ? llvm::toUpper(c) : '_';
  guard += "_H";
  os << "#ifndef " << guard << "\n#define " << guard << "\n\n"
     << "#include <stdint.h>\n\n#ifdef __cplusplus\nextern \"C\" {\n#endif\n\n";

  llvm::StringSet<> declaredTypes;
  auto plans = getMemoryPlans(module);
  for (func::FuncOp func : *functions) {
    FunctionType type = func.getFunctionType();
    SmallVector<std::pair<std::string, CBuffer>> buffers;
    for (auto [index, argument] : llvm::enumerate(type.getInputs()))
      buffers.emplace_back("arg" + std::to_string(index),
                           *getCBuffer(argument));
    for (auto [index, result] : llvm::enumerate(type.getResults()))
      buffers.emplace_back("result" + std::to_string(index),
                           *getCBuffer(result));
    for (auto &[name, buffer] : buffers)
      if (declaredTypes.insert(buffer.descriptorType()).second)
        emitDescriptorType(buffer, os);

    StringRef name = func.getSymName();
    os << "/* @" << name << ":\n";
    for (auto &[bufferName, buffer] : buffers)
      os << " *   " << bufferName << ": " << buffer.type << "\n";
    os << " */\nvoid _mlir_ciface_" << name << "(";
    llvm::interleaveComma(buffers, os, [&](const auto &entry) {
      os << entry.second.descriptorType() << " *" << entry.first;
    });
    os << ");\n\n";

    os << "/* @" << name << " on contiguous row-major buffers. */\n"
       << "static inline void " << name << "_run(";
    llvm::interleaveComma(buffers, os, [&](const auto &entry) {
      bool isArgument = StringRef(entry.first).starts_with("arg");
      os << (isArgument ? "const " : "") << entry.second.element << " *"
         << entry.first;
    });
    os << ") {\n";
    for (auto &[bufferName, buffer] : buffers)
      emitDescriptorInit(buffer, bufferName + "_descriptor", bufferName, os);
    os << "  _mlir_ciface_" << name << "(";
    llvm::interleaveComma(buffers, os, [&](const auto &entry) {
      os << "&" << entry.first << "_descriptor";
    });
    os << ");\n}\n\n";
    for (auto &[planned, plan] : plans)
      if (planned == name && plan.arenaBytes + plan.buffersLeft > 0)
        os << "/* @" << name << "'s intermediate tensors: " << plan.describe()
           << ". The arena is static (.bss), allocated once with the\n"
           << " * program: calls of @" << name
           << " must not overlap in time. */\n";
    os << "/* The first feature @" << name
       << " needs that this CPU lacks, or NULL. */\n"
       << "const char *" << name << "_missing_cpu_feature(void);\n\n";
  }
  os << "#ifdef __cplusplus\n}\n#endif\n\n#endif /* " << guard << " */\n";
  return success();
}

LogicalResult quanta::emitObjectFile(ModuleOp module,
                                     const TargetDescription &target,
                                     llvm::raw_pwrite_stream &os) {
  auto functions = getCInterfaceFunctions(module);
  if (failed(functions) || failed(verifyRunsOn(module, target)) ||
      failed(verifyReadyForLLVM(module, "quant-compile")))
    return failure();
  SmallVector<std::string> names;
  for (func::FuncOp func : *functions) {
    exposeCInterface(func);
    names.push_back(func.getSymName().str());
  }
  if (failed(lowerToLLVM(module)))
    return failure();

  // fromLLVM has initialized LLVM's targets and validated the triple.
  llvm::Triple triple(target.getTriple());
  std::string error;
  const llvm::Target *llvmTarget =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!llvmTarget)
    return emitError(module.getLoc())
           << "unknown target triple '" << triple.str() << "': " << error;
  std::unique_ptr<llvm::TargetMachine> machine(llvmTarget->createTargetMachine(
      triple, target.getCpu(), target.getLLVMFeatures(), llvm::TargetOptions(),
      llvm::Reloc::PIC_, std::nullopt, llvm::CodeGenOptLevel::Aggressive));
  if (!machine)
    return emitError(module.getLoc())
           << "cannot create a target machine for '" << triple.str() << "'";

  llvm::LLVMContext llvmContext;
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(module, llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc()) << "cannot translate to LLVM IR";
  llvmModule->setTargetTriple(triple);
  llvmModule->setDataLayout(machine->createDataLayout());
  // The object's API is the C interface the header declares: the functions
  // behind the `_mlir_ciface_` wrappers stay internal, or one named `main`
  // would clash with the program's own.
  for (StringRef name : names)
    if (llvm::Function *function = llvmModule->getFunction(name))
      function->setLinkage(llvm::GlobalValue::InternalLinkage);
  addCpuCheck(*llvmModule, target, names);
  moveAllocasToEntryBlock(*llvmModule);
  if (llvm::Error error = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, machine.get())(llvmModule.get()))
    return emitError(module.getLoc())
           << "LLVM optimization failed: " << llvm::toString(std::move(error));

  // The header promises that the C library and libm are enough (the libm
  // functions are those convert-math-to-libm calls); say so if a lowering
  // ever needs more.
  static const llvm::StringSet<> cLibrary = {
      "malloc",  "free",  "aligned_alloc", "memcpy", "memset",
      "memmove", "abort", "write",         "strlen", "getauxval"};
  static const llvm::StringSet<> libm = {
      "acos", "acosh", "asin",      "asinh", "atan", "atan2", "atanh", "cbrt",
      "ceil", "cos",   "cosh",      "erf",   "exp",  "exp2",  "expm1", "floor",
      "fma",  "log",   "log10",     "log1p", "log2", "pow",   "round", "sin",
      "sinh", "sqrt",  "roundeven", "tan",   "tanh", "trunc"};
  for (llvm::Function &function : llvmModule->functions()) {
    StringRef name = function.getName();
    if (!function.isDeclaration() || function.isIntrinsic() ||
        cLibrary.contains(name) || libm.contains(name) ||
        (getModuleThreads(module) != 1 && name.starts_with("__kmpc_")) ||
        (name.ends_with("f") && libm.contains(name.drop_back())))
      continue;
    emitWarning(module.getLoc()) << "the object file calls '" << name
                                 << "', which it does not define: link it in";
  }

  llvm::legacy::PassManager codegen;
  if (machine->addPassesToEmitFile(codegen, os, nullptr,
                                   llvm::CodeGenFileType::ObjectFile))
    return emitError(module.getLoc())
           << "the target '" << triple.str() << "' cannot emit object files";
  codegen.run(*llvmModule);
  return success();
}

LogicalResult quanta::writeObjectAndHeader(ModuleOp module,
                                           const TargetDescription &target,
                                           StringRef objectPath,
                                           StringRef headerPath,
                                           StringRef origin) {
  Location loc = module.getLoc();
  std::string error;
  // The header describes the tensor signatures, which lowering replaces by
  // descriptors, and the memory plan, which lowering makes: it is written
  // from a copy taken before, with the plan added after.
  OwningOpRef<ModuleOp> signatures = module.clone();
  auto object = openOutputFile(objectPath, &error);
  if (!object)
    return emitError(loc) << "cannot write the object file: " << error;
  if (failed(emitObjectFile(module, target, object->os())))
    return failure();
  if (!headerPath.empty()) {
    auto header = openOutputFile(headerPath, &error);
    if (!header)
      return emitError(loc) << "cannot write the header: " << error;
    if (Attribute plan = module->getAttr(kMemoryPlanAttrName))
      (*signatures)->setAttr(kMemoryPlanAttrName, plan);
    if (failed(emitCHeader(*signatures, origin, target, header->os())))
      return failure();
    header->keep();
  }
  object->keep();
  return success();
}

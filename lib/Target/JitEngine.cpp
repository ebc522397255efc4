//===- JitEngine.cpp - Object code loaded into this process --------------===//

#include "quanta/Target/JitEngine.h"

#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/Support/LLVM.h"
#include "llvm/Analysis/LoopInfo.h"
#include "llvm/Bitcode/BitcodeReader.h"
#include "llvm/Bitcode/BitcodeWriter.h"
#include "llvm/ExecutionEngine/JITEventListener.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/RTDyldObjectLinkingLayer.h"
#include "llvm/ExecutionEngine/SectionMemoryManager.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Compiler.h"
#include "llvm/Support/SmallVectorMemoryBuffer.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/ThreadPool.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/Transforms/Utils/Cloning.h"
#if LLVM_ADDRESS_SANITIZER_BUILD
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Transforms/Instrumentation/AddressSanitizer.h"
#endif

#include <mutex>

using namespace mlir;
using namespace mlir::quanta;

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

static std::string getPackedName(StringRef name) {
  return ("_mlir_" + name).str();
}

/// The section of the constants' object (moveConstantDataToModule).
static constexpr StringLiteral kConstantsSection = ".rodata.quanta.constants";

static std::string getConstructorsName(unsigned partition) {
  return "__quanta_constructors_" + std::to_string(partition);
}

/// Gives each function `module` defines for other objects a wrapper
/// `_mlir_<name>(ptr arguments)`: it loads each argument from the pointer at
/// its index, calls the function, and stores a result through the pointer
/// after the arguments.
static void addPackedWrappers(llvm::Module &module) {
  SmallVector<llvm::Function *> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration() && function.hasExternalLinkage())
      functions.push_back(&function);
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *wrapperType = llvm::FunctionType::get(
      builder.getVoidTy(), {builder.getPtrTy()}, /*isVarArg=*/false);
  for (llvm::Function *function : functions) {
    auto *wrapper =
        llvm::Function::Create(wrapperType, llvm::GlobalValue::ExternalLinkage,
                               getPackedName(function->getName()), module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", wrapper));
    llvm::Value *pointers = wrapper->getArg(0);
    auto pointerAt = [&](unsigned index) {
      llvm::Value *slot =
          builder.CreateConstGEP1_64(builder.getPtrTy(), pointers, index);
      return builder.CreateLoad(builder.getPtrTy(), slot);
    };
    SmallVector<llvm::Value *> arguments;
    for (llvm::Argument &argument : function->args())
      arguments.push_back(builder.CreateLoad(argument.getType(),
                                             pointerAt(argument.getArgNo())));
    llvm::CallInst *call = builder.CreateCall(function, arguments);
    if (!call->getType()->isVoidTy())
      builder.CreateStore(call, pointerAt(function->arg_size()));
    builder.CreateRetVoid();
  }
}

/// Replaces `llvm.global_ctors` by an external function `name` calling the
/// constructors in priority order: RuntimeDyld links objects without
/// running their initializers.
static void turnConstructorsIntoFunction(llvm::Module &module, StringRef name) {
  // Priority, then position: constructors of one priority run in order.
  SmallVector<std::tuple<uint64_t, size_t, llvm::Constant *>> constructors;
  if (llvm::GlobalVariable *list =
          module.getGlobalVariable("llvm.global_ctors")) {
    if (auto *entries =
            dyn_cast_or_null<llvm::ConstantArray>(list->getInitializer()))
      for (llvm::Value *entry : entries->operands()) {
        auto *fields = cast<llvm::ConstantStruct>(entry);
        constructors.emplace_back(
            cast<llvm::ConstantInt>(fields->getOperand(0))->getZExtValue(),
            constructors.size(), fields->getOperand(1));
      }
    list->eraseFromParent();
  }
  llvm::sort(constructors);
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *type = llvm::FunctionType::get(builder.getVoidTy(), false);
  auto *function = llvm::Function::Create(
      type, llvm::GlobalValue::ExternalLinkage, name, module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "", function));
  for (auto &[priority, position, constructor] : constructors)
    builder.CreateCall(type, constructor);
  builder.CreateRetVoid();
}

void quanta::moveAllocasToEntryBlock(llvm::Module &module) {
  for (llvm::Function &function : module) {
    if (function.isDeclaration())
      continue;
    llvm::DominatorTree dominators(function);
    llvm::LoopInfo loops(dominators);
    llvm::BasicBlock &entry = function.getEntryBlock();
    SmallVector<llvm::AllocaInst *> allocas;
    for (llvm::BasicBlock &block : function)
      if (!loops.getLoopFor(&block))
        for (llvm::Instruction &instruction : block)
          if (auto *alloca = dyn_cast<llvm::AllocaInst>(&instruction))
            if (isa<llvm::ConstantInt>(alloca->getArraySize()))
              allocas.push_back(alloca);
    llvm::BasicBlock::iterator top = entry.getFirstNonPHIOrDbgOrAlloca();
    for (llvm::AllocaInst *alloca : allocas)
      if (alloca->getParent() != &entry || !alloca->comesBefore(&*top))
        alloca->moveBefore(top);
  }
}

#if LLVM_ADDRESS_SANITIZER_BUILD
/// In a sanitizer build (make check-sanitize) the code the JIT generates is
/// instrumented as Quanta's own is, after -O3: a kernel that reads or
/// writes past a heap buffer (arguments, results, calibration batches) is
/// reported by the same runtime in every execution and calibration test.
/// ASan gives no redzones to globals aligned above 32 bytes, so constants
/// and the arena (64) are not covered; the guard-page tests cover the
/// arguments and results. Globals are registered by the module's
/// constructor, which JitEngine::load calls.
static void instrumentWithAddressSanitizer(llvm::Module &module) {
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      function.addFnAttr(llvm::Attribute::SanitizeAddress);
  llvm::LoopAnalysisManager loops;
  llvm::FunctionAnalysisManager functions;
  llvm::CGSCCAnalysisManager sccs;
  llvm::ModuleAnalysisManager modules;
  llvm::PassBuilder builder;
  builder.registerModuleAnalyses(modules);
  builder.registerCGSCCAnalyses(sccs);
  builder.registerFunctionAnalyses(functions);
  builder.registerLoopAnalyses(loops);
  builder.crossRegisterProxies(loops, functions, sccs, modules);
  llvm::ModulePassManager passes;
  // Globals registered from an array by the constructor: the ELF section
  // scheme needs linker-defined section bounds a JIT does not have.
  passes.addPass(llvm::AddressSanitizerPass(
      llvm::AddressSanitizerOptions(), /*UseGlobalGC=*/false,
      /*UseOdrIndicator=*/false, llvm::AsanDtorKind::None));
  passes.run(module, modules);
}
#endif

/// The machine that generates the JIT's code: this machine's architecture
/// with `target`'s CPU and features, position-independent (the objects
/// refer to each other's symbols through the GOT, wherever RuntimeDyld
/// places them).
static llvm::orc::JITTargetMachineBuilder
getMachineBuilder(const TargetDescription &target) {
  llvm::orc::JITTargetMachineBuilder builder{llvm::Triple(target.getTriple())};
  builder.setCPU(target.getCpu().str());
  SmallVector<StringRef> features;
  target.getLLVMFeatures().split(features, ',', -1, /*KeepEmpty=*/false);
  builder.addFeatures(
      std::vector<std::string>(features.begin(), features.end()));
  builder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  builder.setRelocationModel(llvm::Reloc::PIC_);
  return builder;
}

/// The object code of `module` (partition `partition`) for `machine`, its
/// static constructors turned into a function.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
emitObjectFile(llvm::Module &module, llvm::TargetMachine &machine,
               unsigned partition) {
  turnConstructorsIntoFunction(module, getConstructorsName(partition));
  SmallVector<char, 0> object;
  llvm::raw_svector_ostream os(object);
  llvm::legacy::PassManager codegen;
  if (machine.addPassesToEmitFile(codegen, os, nullptr,
                                  llvm::CodeGenFileType::ObjectFile))
    return makeError("the target '" + machine.getTargetTriple().str() +
                     "' cannot emit object files");
  codegen.run(module);
  return std::make_unique<llvm::SmallVectorMemoryBuffer>(
      std::move(object), "partition" + std::to_string(partition) + ".o",
      /*RequiresNullTerminator=*/false);
}

/// -O3 and code generation of one partition, in a context of its own.
static llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>>
compilePartition(StringRef bitcode, const TargetDescription &target,
                 unsigned partition) {
  llvm::LLVMContext context;
  llvm::Expected<std::unique_ptr<llvm::Module>> module = llvm::parseBitcodeFile(
      llvm::MemoryBufferRef(bitcode, "partition"), context);
  if (!module)
    return module.takeError();
  auto machine = getMachineBuilder(target).createTargetMachine();
  if (!machine)
    return machine.takeError();
  // Without -O3 the code generator sees the LLVM IR as translated: no LICM,
  // GVN or strength reduction, which the index arithmetic of the kernels'
  // loops needs (measured: a 3x3 convolution at 476 GOPS instead of 838).
  if (llvm::Error error = makeOptimizingTransformer(
          /*optLevel=*/3, /*sizeLevel=*/0, machine->get())(module->get()))
    return std::move(error);
#if LLVM_ADDRESS_SANITIZER_BUILD
  instrumentWithAddressSanitizer(**module);
#endif
  return emitObjectFile(**module, **machine, partition);
}

/// Appends the bytes of `constant` (arrays, nested or not, of integers or
/// floats, or zeros) in memory order to `bytes`; false for anything else.
static bool appendConstantBytes(const llvm::Constant *constant,
                                const llvm::DataLayout &layout,
                                std::string &bytes) {
  if (auto *data = dyn_cast<llvm::ConstantDataSequential>(constant)) {
    // Elements without padding (not i1 or x86_fp80).
    if (layout.getTypeAllocSizeInBits(data->getElementType()) !=
        data->getElementType()->getPrimitiveSizeInBits())
      return false;
    bytes.append(data->getRawDataValues());
    return true;
  }
  if (isa<llvm::ConstantAggregateZero>(constant) &&
      constant->getType()->isArrayTy()) {
    bytes.append(layout.getTypeAllocSize(constant->getType()), '\0');
    return true;
  }
  auto *array = dyn_cast<llvm::ConstantArray>(constant);
  if (!array)
    return false;
  for (const llvm::Use &element : array->operands())
    if (!appendConstantBytes(cast<llvm::Constant>(element.get()), layout,
                             bytes))
      return false;
  return true;
}

/// Moves the large constant arrays of `module` (the weights) into a module
/// of their own, each as one byte string in kConstantsSection, and leaves
/// external declarations behind. The weights are most of a model's bytes, and
/// the path of a code partition costs per element: MLIR translates a constant
/// of shape [512, 512, 3, 3] to 786432 nested arrays of 3 floats, cloning a
/// partition maps each of them, bitcode writes and reads each element
/// (measured: 2.1 of ResNet-18's 3.1 s of code generation), and the
/// AsmPrinter emits a float array element by element but a byte string at
/// once.
static std::unique_ptr<llvm::Module>
moveConstantDataToModule(llvm::Module &module) {
  constexpr uint64_t kMinBytes = 16 * 1024;
  const llvm::DataLayout &layout = module.getDataLayout();
  auto data = std::make_unique<llvm::Module>(module.getName().str() + ".data",
                                             module.getContext());
  data->setTargetTriple(module.getTargetTriple());
  data->setDataLayout(layout);
  std::string bytes;
  for (llvm::GlobalVariable &global : module.globals()) {
    if (!global.isConstant() || !global.hasInitializer() ||
        global.hasSection() || global.isThreadLocal() ||
        layout.getTypeAllocSize(global.getValueType()) < kMinBytes)
      continue;
    bytes.clear();
    if (!appendConstantBytes(global.getInitializer(), layout, bytes))
      continue;
    llvm::Constant *initializer = llvm::ConstantDataArray::getRaw(
        bytes, bytes.size(), llvm::Type::getInt8Ty(module.getContext()));
    auto *copy = new llvm::GlobalVariable(
        *data, initializer->getType(), /*isConstant=*/true,
        llvm::GlobalValue::ExternalLinkage, initializer, global.getName());
    copy->setAlignment(global.getAlign());
    copy->setSection(kConstantsSection);
    // Objects refer to each other's symbols through the GOT.
    global.setInitializer(nullptr);
    global.setLinkage(llvm::GlobalValue::ExternalLinkage);
    global.setVisibility(llvm::GlobalValue::DefaultVisibility);
    global.setDSOLocal(false);
  }
  return data;
}

/// Splits `module` into up to `count` partitions of about equal code size,
/// each function given whole to the partition with the fewest instructions
/// so far, largest first. llvm::SplitModule balances function counts: a
/// loop nest and its OpenMP-outlined body (a few instructions and the
/// whole kernel) come in pairs, and its round robin put every body in one
/// partition (measured: ResNet-18 on two threads, 15422 instructions in one
/// partition, 3002 in the other). Every symbol becomes external (hidden),
/// as SplitModule's without PreserveLocals; variables go to the first
/// partition.
static void
splitBySize(llvm::Module &module, unsigned count,
            llvm::function_ref<void(std::unique_ptr<llvm::Module>)> emit) {
  auto externalize = [](llvm::GlobalValue &value) {
    if (value.hasLocalLinkage()) {
      value.setLinkage(llvm::GlobalValue::ExternalLinkage);
      value.setVisibility(llvm::GlobalValue::HiddenVisibility);
    }
    if (!value.hasName())
      value.setName("__quanta_unnamed");
  };
  for (llvm::Function &function : module)
    externalize(function);
  for (llvm::GlobalVariable &variable : module.globals())
    externalize(variable);
  for (llvm::GlobalAlias &alias : module.aliases())
    externalize(alias);

  // Largest first; ties in module order, for the same partitions each time.
  SmallVector<std::tuple<uint64_t, size_t, llvm::Function *>> functions;
  for (llvm::Function &function : module)
    if (!function.isDeclaration())
      functions.emplace_back(function.getInstructionCount(), functions.size(),
                             &function);
  llvm::sort(functions, [](const auto &a, const auto &b) {
    return std::get<0>(a) != std::get<0>(b) ? std::get<0>(a) > std::get<0>(b)
                                            : std::get<1>(a) < std::get<1>(b);
  });
  count = std::max<unsigned>(
      1, std::min<unsigned>(count, static_cast<unsigned>(functions.size())));
  SmallVector<uint64_t> sizes(count, 0);
  llvm::DenseMap<const llvm::GlobalValue *, unsigned> partitionOf;
  for (auto [size, position, function] : functions) {
    unsigned smallest =
        std::min_element(sizes.begin(), sizes.end()) - sizes.begin();
    partitionOf[function] = smallest;
    // Each function costs something, however small.
    sizes[smallest] += size + 1;
  }
  for (unsigned partition = 0; partition < count; ++partition) {
    llvm::ValueToValueMapTy map;
    emit(llvm::CloneModule(module, map, [&](const llvm::GlobalValue *value) {
      auto it = partitionOf.find(value);
      return it != partitionOf.end() ? it->second == partition : partition == 0;
    }));
  }
}

llvm::Expected<std::vector<std::unique_ptr<llvm::MemoryBuffer>>>
quanta::compileToObjects(std::unique_ptr<llvm::Module> module,
                         const TargetDescription &target, unsigned partitions) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  auto machine = getMachineBuilder(target).createTargetMachine();
  if (!machine)
    return machine.takeError();
  module->setTargetTriple((*machine)->getTargetTriple());
  module->setDataLayout((*machine)->createDataLayout());
  addPackedWrappers(*module);
  moveAllocasToEntryBlock(*module);
  std::unique_ptr<llvm::Module> data = moveConstantDataToModule(*module);

  // Each partition as bitcode: a module's context is used by one thread.
  std::vector<std::string> bitcodes;
  splitBySize(*module, std::max(partitions, 1u),
              [&](std::unique_ptr<llvm::Module> part) {
                llvm::raw_string_ostream os(bitcodes.emplace_back());
                llvm::WriteBitcodeToFile(*part, os);
              });
  module.reset();

  // The constant data (no optimization: its object is its bytes) is the
  // last object, generated beside the partitions, in the module's context,
  // which no partition uses.
  const size_t count = bitcodes.size() + (data->global_empty() ? 0 : 1);
  std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects(count);
  std::vector<std::string> errors(count);
  {
    llvm::DefaultThreadPool pool(
        llvm::hardware_concurrency(static_cast<unsigned>(count)));
    auto compile = [&](unsigned partition, auto &&generate) {
      pool.async([&, partition, generate] {
        auto object = generate();
        if (object)
          objects[partition] = std::move(*object);
        else
          errors[partition] = llvm::toString(object.takeError());
      });
    };
    if (count > bitcodes.size())
      compile(bitcodes.size(),
              [&]() -> llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> {
                auto machine = getMachineBuilder(target).createTargetMachine();
                if (!machine)
                  return machine.takeError();
                return emitObjectFile(*data, **machine, bitcodes.size());
              });
    for (unsigned partition = 0; partition < bitcodes.size(); ++partition)
      compile(partition, [&, partition] {
        return compilePartition(bitcodes[partition], target, partition);
      });
    pool.wait();
  }
  for (const std::string &error : errors)
    if (!error.empty())
      return makeError(error);
  return objects;
}

namespace {
/// Forwards the objects that hold code to the debugger's and perf's
/// listeners, which MLIR's ExecutionEngine registers too (debuggers and
/// perf see the generated code). Both copy each object they are given (the
/// debugger's copy lives as long as the code), and the constants' object
/// has nothing for either: ResNet-18's float weights (45 MB) copied twice
/// were a third of a cached calibration's linking.
class CodeObjectListener final : public llvm::JITEventListener {
public:
  void
  notifyObjectLoaded(ObjectKey key, const llvm::object::ObjectFile &object,
                     const llvm::RuntimeDyld::LoadedObjectInfo &info) override {
    if (llvm::any_of(object.sections(), [](const llvm::object::SectionRef &s) {
          llvm::Expected<StringRef> name = s.getName();
          if (!name) {
            llvm::consumeError(name.takeError());
            return false;
          }
          return *name == kConstantsSection;
        }))
      return;
    for (llvm::JITEventListener *listener : listeners)
      if (listener)
        listener->notifyObjectLoaded(key, object, info);
  }
  void notifyFreeingObject(ObjectKey key) override {
    for (llvm::JITEventListener *listener : listeners)
      if (listener)
        listener->notifyFreeingObject(key);
  }

private:
  llvm::JITEventListener *listeners[2] = {
      llvm::JITEventListener::createGDBRegistrationListener(),
      llvm::JITEventListener::createPerfJITEventListener()};
};
} // namespace

/// Calls JIT code through `function`. UBSan's -fsanitize=function reads a
/// type signature from the 8 bytes before an indirectly called function;
/// JIT code has none, and a function at the start of its object's mapping
/// (the constants' object's constructors) made that read fault.
template <typename... Arguments>
__attribute__((no_sanitize("function"))) static void
callJitCode(void (*function)(Arguments...), Arguments... arguments) {
  function(arguments...);
}

quanta::JitEngine::JitEngine() = default;

quanta::JitEngine::~JitEngine() = default;

llvm::Expected<std::unique_ptr<JitEngine>> quanta::JitEngine::load(
    const TargetDescription &target,
    std::vector<std::unique_ptr<llvm::MemoryBuffer>> objects,
    ArrayRef<StringRef> sharedLibraries, SymbolRegistrar extra,
    bool fromCache) {
  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  std::unique_ptr<JitEngine> engine(new JitEngine());
  engine->fromCache = fromCache;
  engine->listener = std::make_unique<CodeObjectListener>();
  llvm::orc::JITTargetMachineBuilder machineBuilder = getMachineBuilder(target);
  auto dataLayout = machineBuilder.getDefaultDataLayoutForTarget();
  if (!dataLayout)
    return dataLayout.takeError();
  auto jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(machineBuilder))
          .setObjectLinkingLayerCreator(
              [&](llvm::orc::ExecutionSession &session)
                  -> llvm::Expected<std::unique_ptr<llvm::orc::ObjectLayer>> {
                auto layer =
                    std::make_unique<llvm::orc::RTDyldObjectLinkingLayer>(
                        session, [](const llvm::MemoryBuffer &) {
                          return std::make_unique<llvm::SectionMemoryManager>();
                        });
                layer->registerJITEventListener(*engine->listener);
                return layer;
              })
          .create();
  if (!jit)
    return jit.takeError();
  engine->jit = std::move(*jit);
  llvm::orc::JITDylib &main = engine->jit->getMainJITDylib();
  const char prefix = dataLayout->getGlobalPrefix();
  auto process =
      llvm::orc::DynamicLibrarySearchGenerator::GetForCurrentProcess(prefix);
  if (!process)
    return process.takeError();
  main.addGenerator(std::move(*process));
  for (StringRef library : sharedLibraries) {
    auto generator = llvm::orc::DynamicLibrarySearchGenerator::Load(
        library.str().c_str(), prefix);
    if (!generator)
      return generator.takeError();
    main.addGenerator(std::move(*generator));
  }
  if (extra) {
    llvm::orc::MangleAndInterner interner(engine->jit->getExecutionSession(),
                                          *dataLayout);
    llvm::orc::SymbolMap symbols;
    extra(symbols, interner);
    if (llvm::Error error = main.define(llvm::orc::absoluteSymbols(symbols)))
      return std::move(error);
  }
  const size_t count = objects.size();
  for (std::unique_ptr<llvm::MemoryBuffer> &object : objects)
    if (llvm::Error error = engine->jit->addObjectFile(std::move(object)))
      return std::move(error);
  for (unsigned partition = 0; partition < count; ++partition) {
    auto constructors = engine->jit->lookup(getConstructorsName(partition));
    if (!constructors)
      return constructors.takeError();
    callJitCode(constructors->toPtr<void (*)()>());
  }
  return std::move(engine);
}

llvm::Expected<void (*)(void **)>
quanta::JitEngine::lookupPacked(StringRef name) {
  auto address = jit->lookup(getPackedName(name));
  if (!address)
    return address.takeError();
  return address->toPtr<void (*)(void **)>();
}

llvm::Error quanta::JitEngine::invokePacked(StringRef name,
                                            MutableArrayRef<void *> arguments) {
  auto function = lookupPacked(name);
  if (!function)
    return function.takeError();
  callJitCode(*function, arguments.data());
  return llvm::Error::success();
}

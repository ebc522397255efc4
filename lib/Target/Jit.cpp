//===- Jit.cpp - Compiling and calling tensor functions in process --------===//

#include "quanta/Target/Jit.h"
#include "quanta/Codegen/Common/MemoryPlan.h"
#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Support/MemoryLimits.h"
#include "quanta/Target/CompileCache.h"
#include "quanta/Target/Profile.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "mlir/Target/LLVMIR/Export.h"
#include "mlir/Transforms/Passes.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/Threading.h"

#include <optional>

using namespace mlir;
using namespace mlir::quanta;

quanta::MemRefDescriptor::MemRefDescriptor(void *data,
                                           ArrayRef<int64_t> shape) {
  fields.push_back(reinterpret_cast<int64_t>(data)); // allocated
  fields.push_back(reinterpret_cast<int64_t>(data)); // aligned
  fields.push_back(0);                               // offset
  fields.append(shape.begin(), shape.end());
  SmallVector<int64_t> strides(shape.size(), 1);
  for (int64_t dim = static_cast<int64_t>(shape.size()) - 2; dim >= 0; --dim)
    strides[dim] = strides[dim + 1] * shape[dim + 1];
  fields.append(strides.begin(), strides.end());
}

void quanta::exposeCInterface(func::FuncOp func) {
  MLIRContext *context = func.getContext();
  func->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                UnitAttr::get(context));
  for (unsigned index = 0; index < func.getNumArguments(); ++index)
    func.setArgAttr(index,
                    bufferization::BufferizationDialect::kWritableAttrName,
                    BoolAttr::get(context, false));
}

void quanta::registerJitDialects(DialectRegistry &registry) {
  registerAllDialects(registry);
  registerAllExtensions(registry);
  registerAllToLLVMIRTranslations(registry);
  registry.insert<QuantaDialect>();
}

LogicalResult quanta::verifyReadyForLLVM(ModuleOp module, StringRef tool) {
  // One error per kind of op, at its first occurrence.
  llvm::SmallDenseSet<OperationName> reported;
  bool fits = true;
  module.walk([&](Operation *op) {
    // Code generation writes every element of a constant (a splat too).
    if (auto constant = dyn_cast<arith::ConstantOp>(op))
      if (auto type = dyn_cast<ShapedType>(constant.getType());
          type && type.hasStaticShape()) {
        Type element = type.getElementType();
        const int64_t elementBytes =
            element.isIntOrFloat()
                ? llvm::divideCeil(element.getIntOrFloatBitWidth(), 8)
                : 8;
        if (failed(checkAllocatable(op->getLoc(), type.getNumElements(),
                                    elementBytes,
                                    Twine(tool) + ": compiling this constant")))
          fits = false;
      }
    // A fake quantization with known qparams lowers to arithmetic.
    auto fakeQuant = dyn_cast<FakeQuantOp>(op);
    if (!isa<QMatmulOp, QBatchMatmulOp, ObserveOp, FakeQuantOp>(op) ||
        (fakeQuant && fakeQuant.hasKnownQParams()) ||
        !reported.insert(op->getName()).second)
      return;
    InFlightDiagnostic diag = op->emitOpError()
                              << "cannot be compiled (" << tool << ") before ";
    if (isa<QMatmulOp, QBatchMatmulOp>(op))
      diag << "its kernel lowering: lower the module for its target first "
              "(quanta-lower-x86, quanta-lower-neon, or "
              "quanta-lower-x86{isa=generic} for another architecture; "
              "quant-run and quant-compile take it as "
              "--pass-pipeline='builtin.module(quanta-lower-x86)')";
    else
      diag << "calibration and freezing: run quanta-ptq (or "
              "quanta-calibrate and quanta-freeze-qparams) first";
  });
  return success(fits && reported.empty());
}

/// The module attributes the lowering makes that the caller reads: the
/// memory plans, the profiled call sites and the kernels' target.
static constexpr StringLiteral kLoweringAttrNames[] = {
    kMemoryPlanAttrName, kProfileSitesAttrName, kLoweredForAttrName};

/// What the lowering recorded (`metadata`: a dictionary of the attributes
/// of kLoweringAttrNames) recorded on `module`, the memory plans checked
/// for this machine's memory (the arena is requested when the code is
/// linked or first run, where failing would end the process).
static LogicalResult recordLowering(ModuleOp module, StringRef metadata,
                                    StringRef tool) {
  auto attributes = dyn_cast_or_null<DictionaryAttr>(
      parseAttribute(metadata, module.getContext()));
  if (!attributes)
    return emitError(module.getLoc())
           << tool << ": the compiled module's description is malformed";
  for (NamedAttribute attribute : attributes)
    module->setAttr(attribute.getName(), attribute.getValue());
  for (auto &[name, plan] : getMemoryPlans(module))
    if (failed(checkAllocatable(module.getLoc(), plan.arenaBytes, 1,
                                tool +
                                    ": the arena (intermediate "
                                    "buffers) of '" +
                                    name + "'")))
      return failure();
  return success();
}

/// Lowers `bytecode` (a module) to LLVM IR in a private context and
/// generates its object code for `target`; the attributes of
/// kLoweringAttrNames go to `compiled.metadata` as a dictionary's text.
static LogicalResult compileModule(ModuleOp module, StringRef bytecode,
                                   const TargetDescription &target,
                                   StringRef tool, CompiledObjects &compiled) {
  DialectRegistry registry;
  registerJitDialects(registry);
  MLIRContext jitContext(registry);
  // Multithreaded: the kernels of quanta-outline-kernels go through the
  // lowering's function passes in parallel.
  OwningOpRef<ModuleOp> jitModule =
      parseSourceString<ModuleOp>(bytecode, &jitContext);
  if (!jitModule || failed(lowerToLLVM(*jitModule)))
    return emitError(module.getLoc())
           << tool << ": cannot lower the module to LLVM for the JIT (see "
           << "the diagnostics above)";
  NamedAttrList lowering;
  for (StringRef name : kLoweringAttrNames)
    if (Attribute value = (*jitModule)->getAttr(name))
      lowering.set(name, value);
  llvm::raw_string_ostream(compiled.metadata)
      << lowering.getDictionary(&jitContext);

  auto llvmContext = std::make_unique<llvm::LLVMContext>();
  std::unique_ptr<llvm::Module> llvmModule =
      translateModuleToLLVMIR(*jitModule, *llvmContext);
  if (!llvmModule)
    return emitError(module.getLoc())
           << tool << ": cannot translate the module to LLVM IR";
  // One partition per core: the outlined kernels compile in parallel.
  auto objects =
      compileToObjects(std::move(llvmModule), target,
                       llvm::hardware_concurrency().compute_thread_count());
  if (!objects)
    return emitError(module.getLoc()) << tool << ": JIT compilation failed: "
                                      << llvm::toString(objects.takeError());
  compiled.objects = std::move(*objects);
  return success();
}

FailureOr<std::unique_ptr<JitEngine>>
quanta::compileForJit(ModuleOp module, StringRef tool, SymbolRegistrar extra,
                      const TargetDescription *target,
                      const JitPreLowering *preLowering) {
  const TargetDescription host = TargetDescription::host();
  const TargetDescription &jitTarget = target ? *target : host;
  if (!jitTarget.isHostArch())
    return emitError(module.getLoc())
           << tool << ": the JIT runs code for this machine's architecture, "
           << "not " << jitTarget.describe();
  if (SmallVector<TargetFeature> lacking = jitTarget.missingFrom(host);
      !lacking.empty())
    return emitError(module.getLoc())
           << tool << ": this machine lacks "
           << TargetDescription::getFeatureName(lacking.front())
           << ", which the target " << jitTarget.describe()
           << " has: its code cannot run here";
  auto verify = [&] {
    return success(succeeded(verifyRunsOn(module, jitTarget)) &&
                   succeeded(verifyReadyForLLVM(module, tool)));
  };
  if (!preLowering && failed(verify()))
    return failure();
  const bool profiled = module->hasAttr(kProfileAttrName);
  // Both the key's bytecode and the lowering's: an error at the module,
  // whose locations are back in place by then.
  auto serialize = [&](llvm::raw_ostream &os) {
    return writeBytecodeToFile(module, os);
  };
  auto cannotSerialize = [&] {
    return emitError(module.getLoc())
           << tool << ": cannot serialize the module";
  };
  std::optional<CompileCache> cache = CompileCache::getDefault();
  std::string key;
  std::optional<CompiledObjects> compiled;
  if (cache) {
    // The key leaves the locations out (the same model read from another
    // path is the same code), except in a profiled module, whose sites
    // they name. They are set aside and put back rather than the module
    // cloned: a clone of MobileNetV2 cost a third of a cached load.
    SmallVector<Location> locations;
    auto swapLocations = [&](bool strip) {
      size_t next = 0;
      auto swap = [&](auto &&entity) {
        if (strip) {
          locations.push_back(entity.getLoc());
          entity.setLoc(UnknownLoc::get(module.getContext()));
        } else {
          entity.setLoc(locations[next++]);
        }
      };
      module.walk([&](Operation *op) {
        swap(*op);
        for (Region &region : op->getRegions())
          for (Block &block : region)
            for (BlockArgument argument : block.getArguments())
              swap(argument);
      });
    };
    if (!profiled)
      swapLocations(/*strip=*/true);
    KeyHashStream code;
    LogicalResult serialized = serialize(code);
    if (!profiled)
      swapLocations(/*strip=*/false);
    if (failed(serialized))
      return cannotSerialize();
    if (preLowering)
      code << "\n" << preLowering->name;
    key = cache->getKey(code.getDigest(), jitTarget);
    auto entry = cache->load(key);
    if (!entry)
      emitWarning(module.getLoc())
          << tool << ": " << llvm::toString(entry.takeError())
          << "; compiling again";
    else
      compiled = std::move(*entry);
  }
  const bool fromCache = compiled.has_value();
  if (!fromCache) {
    if (preLowering && (failed(preLowering->run(module)) || failed(verify())))
      return failure();
    // The lowering runs on a copy in a private context: it must not touch
    // the caller's IR.
    std::string bytecode;
    llvm::raw_string_ostream os(bytecode);
    if (failed(serialize(os)))
      return cannotSerialize();
    compiled.emplace();
    if (failed(compileModule(module, bytecode, jitTarget, tool, *compiled)))
      return failure();
  }
  if (failed(recordLowering(module, compiled->metadata, tool)))
    return failure();
  if (cache && !fromCache)
    if (llvm::Error error = cache->store(key, *compiled))
      emitWarning(module.getLoc())
          << tool << ": " << llvm::toString(std::move(error))
          << " (the module is compiled, not cached)";

  auto symbols = [&](llvm::orc::SymbolMap &map,
                     llvm::orc::MangleAndInterner &interner) {
    if (extra)
      extra(map, interner);
    if (profiled)
      defineKernelProfileSymbols(map, interner);
  };
  // Multithreaded code calls the OpenMP runtime.
  const SmallVector<StringRef> openmpRuntime{QUANTA_OPENMP_RUNTIME};
  auto engine = JitEngine::load(jitTarget, std::move(compiled->objects),
                                getModuleThreads(module) != 1
                                    ? ArrayRef<StringRef>(openmpRuntime)
                                    : ArrayRef<StringRef>(),
                                symbols, fromCache);
  if (!engine)
    return emitError(module.getLoc())
           << tool
           << ": JIT linking failed: " << llvm::toString(engine.takeError());
  return std::move(*engine);
}

FailureOr<func::FuncOp> quanta::findEntryFunction(ModuleOp module,
                                                  StringRef name,
                                                  StringRef chooseWith) {
  func::FuncOp entry;
  for (auto func : module.getOps<func::FuncOp>()) {
    if (func.isExternal() || (!name.empty() && func.getSymName() != name))
      continue;
    if (entry)
      return emitError(module.getLoc())
             << "the module has several functions: choose one with "
             << chooseWith;
    entry = func;
  }
  if (!entry)
    return emitError(module.getLoc())
           << (name.empty() ? std::string("the module has no function")
                            : "no function named '" + name.str() + "'");
  return entry;
}

LogicalResult quanta::pruneToEntry(ModuleOp module, func::FuncOp entry) {
  for (auto func : module.getOps<func::FuncOp>())
    if (func != entry && func.isPublic())
      func.setPrivate();
  PassManager cleanup(module.getContext());
  cleanup.addPass(createSymbolDCEPass());
  // Erasing unused symbols cannot make the module invalid; verifying it
  // took a tenth of a cached MobileNetV2 load.
  cleanup.enableVerifier(false);
  return cleanup.run(module);
}

int64_t quanta::TensorSpec::numElements() const {
  int64_t count = 1;
  for (int64_t dim : shape)
    count *= dim;
  return count;
}

FailureOr<quanta::TensorSpec> quanta::getTensorSpec(Location loc, Type type,
                                                    const Twine &what,
                                                    StringRef tool) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  std::optional<TensorSpec> spec;
  if (tensor && tensor.hasStaticShape()) {
    Type element = tensor.getElementType();
    auto make = [&](std::initializer_list<const char *> dtypes,
                    size_t elementSize) {
      spec =
          TensorSpec{std::vector<int64_t>(tensor.getShape().begin(),
                                          tensor.getShape().end()),
                     SmallVector<std::string, 2>(dtypes.begin(), dtypes.end()),
                     elementSize};
    };
    auto quantized = dyn_cast<quant::QuantizedType>(element);
    if (quantized && quantized.getStorageTypeIntegralWidth() == 8)
      make({quantized.isSigned() ? "|i1" : "|u1"}, 1);
    else if (element.isF32())
      make({"<f4"}, 4);
    else if (element.isF64())
      make({"<f8"}, 8);
    // Unsigned types (ONNX's uint8 in imported signatures) are written as
    // such; signless ones read either.
    else if (element.isUnsignedInteger(8))
      make({"|u1"}, 1);
    else if (element.isInteger(8))
      make({"|i1", "|u1"}, 1);
    else if (element.isInteger(16))
      make({"<i2", "<u2"}, 2);
    else if (element.isInteger(32))
      make({"<i4", "<u4"}, 4);
    else if (element.isInteger(64))
      make({"<i8", "<u8"}, 8);
  }
  if (!spec)
    return emitError(loc) << what << " has type " << type << "; " << tool
                          << " takes static tensors of f32, f64, "
                          << "i8/i16/i32/i64 or 8-bit quantized types";
  return *spec;
}

llvm::Error quanta::checkTensors(ArrayRef<TensorSpec> specs,
                                 ArrayRef<runtime::TensorRef> tensors,
                                 StringRef what, StringRef function) {
  auto error = [](const Twine &message) {
    return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
  };
  if (specs.size() != tensors.size())
    return error("'" + function + "' takes " + Twine(specs.size()) + " " +
                 what + "(s), " + Twine(tensors.size()) + " given");
  for (auto [index, spec, tensor] : llvm::enumerate(specs, tensors)) {
    std::string prefix =
        tensor.source.empty() ? std::string() : tensor.source + ": ";
    if (!llvm::is_contained(spec.dtypes, tensor.dtype))
      return error(prefix + what + " " + Twine(index) + " takes " +
                   runtime::formatDType(spec.dtypes.front()) + " data, found " +
                   runtime::formatDType(tensor.dtype));
    if (tensor.shape != spec.shape)
      return error(prefix + what + " " + Twine(index) + " expects shape " +
                   runtime::formatShape(spec.shape) + ", found " +
                   runtime::formatShape(tensor.shape));
  }
  return llvm::Error::success();
}

FailureOr<quanta::CompiledFunction> quanta::CompiledFunction::compile(
    ModuleOp module, StringRef entryName, StringRef tool,
    const TargetDescription *target, const JitPreLowering *preLowering) {
  OwningOpRef<ModuleOp> clone = module.clone();
  auto entry = clone->lookupSymbol<func::FuncOp>(entryName);
  if (!entry || entry.isExternal())
    return emitError(module.getLoc())
           << tool << ": no function '" << entryName << "' with a body";
  CompiledFunction compiled;
  compiled.name = entry.getSymName().str();
  Location loc = module.getLoc();
  for (auto [index, type] : llvm::enumerate(entry.getArgumentTypes())) {
    auto spec = getTensorSpec(loc, type, "argument " + Twine(index), tool);
    if (failed(spec))
      return failure();
    compiled.arguments.push_back(std::move(*spec));
  }
  for (auto [index, type] : llvm::enumerate(entry.getResultTypes())) {
    auto spec = getTensorSpec(loc, type, "result " + Twine(index), tool);
    if (failed(spec))
      return failure();
    compiled.results.push_back(std::move(*spec));
  }
  if (failed(pruneToEntry(*clone, entry)))
    return failure();
  exposeCInterface(entry);
  // The signature read above is the one a cached compilation is called
  // with: the pre-lowering must keep it.
  const FunctionType signature = entry.getFunctionType();
  auto lowerKeepingSignature = [&](ModuleOp lowered) -> LogicalResult {
    if (failed(preLowering->run(lowered)))
      return failure();
    auto after = lowered.lookupSymbol<func::FuncOp>(compiled.name);
    if (after && after.getFunctionType() == signature)
      return success();
    InFlightDiagnostic diag = emitError(loc)
                              << tool << ": " << preLowering->name
                              << " changed '" << compiled.name << "'";
    if (after)
      diag << "'s signature from " << signature << " to "
           << after.getFunctionType();
    else
      diag << " away";
    return diag << ": run it with quant-opt first";
  };
  std::optional<JitPreLowering> checked;
  if (preLowering)
    checked = JitPreLowering{preLowering->name, lowerKeepingSignature};
  auto engine = compileForJit(*clone, tool, /*extra=*/{}, target,
                              checked ? &*checked : nullptr);
  if (failed(engine))
    return failure();
  for (StringRef name : kLoweringAttrNames)
    if (Attribute value = (*clone)->getAttr(name))
      module->setAttr(name, value);
  compiled.engine = std::move(*engine);
  return compiled;
}

llvm::Error
quanta::CompiledFunction::call(ArrayRef<runtime::TensorRef> inputs,
                               ArrayRef<runtime::TensorRef> outputs) {
  if (llvm::Error error = checkTensors(arguments, inputs, "argument", name))
    return error;
  if (llvm::Error error = checkTensors(results, outputs, "result", name))
    return error;
  SmallVector<MemRefDescriptor> descriptors;
  for (const runtime::TensorRef &tensor :
       llvm::concat<const runtime::TensorRef>(inputs, outputs))
    descriptors.emplace_back(tensor.data, tensor.shape);
  SmallVector<void *> packed;
  for (MemRefDescriptor &descriptor : descriptors)
    packed.push_back(descriptor.packed());
  return engine->invokePacked("_mlir_ciface_" + name, packed);
}

//===- Jit.cpp - Compiling and calling tensor functions in process --------===//

#include "quanta/Dialect/Quanta/Transforms/Jit.h"
#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Dialect/Quanta/Transforms/MemoryPlan.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Utils/MemoryLimits.h"

#include "mlir/Bytecode/BytecodeWriter.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/ExecutionEngine/OptUtils.h"
#include "mlir/InitAllDialects.h"
#include "mlir/InitAllExtensions.h"
#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "mlir/Target/LLVMIR/Dialect/All.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Target/TargetMachine.h"

using namespace mlir;

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
    if (!isa<QMatmulOp, ObserveOp, FakeQuantOp>(op) ||
        !reported.insert(op->getName()).second)
      return;
    InFlightDiagnostic diag = op->emitOpError()
                              << "cannot be compiled (" << tool << ") before ";
    if (isa<QMatmulOp>(op))
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

FailureOr<std::unique_ptr<ExecutionEngine>>
quanta::compileForJit(ModuleOp module, StringRef tool, SymbolRegistrar extra,
                      const TargetDescription *target) {
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
  if (failed(verifyRunsOn(module, jitTarget)) ||
      failed(verifyReadyForLLVM(module, tool)))
    return failure();
  // A private context: the lowering must not touch the caller's IR, and
  // the engine keeps nothing from the context once it has compiled.
  std::string bytecode;
  {
    llvm::raw_string_ostream os(bytecode);
    if (failed(writeBytecodeToFile(module, os)))
      return emitError(module.getLoc()) << tool << ": cannot serialize the "
                                        << "module";
  }
  DialectRegistry registry;
  registerJitDialects(registry);
  MLIRContext jitContext(registry);
  jitContext.disableMultithreading();
  OwningOpRef<ModuleOp> jitModule =
      parseSourceString<ModuleOp>(bytecode, &jitContext);
  PassManager pm(&jitContext);
  buildLowerToLLVMPipeline(pm);
  if (!jitModule || failed(pm.run(*jitModule)))
    return emitError(module.getLoc())
           << tool << ": cannot lower the module to LLVM for the JIT (see "
           << "the diagnostics above)";
  SmallVector<NamedAttribute> plans;
  for (auto &[name, plan] : getMemoryPlans(*jitModule)) {
    // The arena is requested when the code is linked or first run, where
    // failing would end the process.
    if (failed(checkAllocatable(module.getLoc(), plan.arenaBytes, 1,
                                tool + ": the intermediate buffers of '" +
                                    name + "'")))
      return failure();
    plans.emplace_back(StringAttr::get(module.getContext(), name),
                       plan.toAttribute(module.getContext()));
  }
  module->setAttr(kMemoryPlanAttrName,
                  DictionaryAttr::get(module.getContext(), plans));

  llvm::InitializeNativeTarget();
  llvm::InitializeNativeTargetAsmPrinter();
  // Without a transformer the engine only runs the code generator on the
  // LLVM IR as translated: no LICM, GVN or strength reduction, which the
  // index arithmetic of the kernels' loops needs (measured: a 3x3
  // convolution at 476 GOPS instead of quant-compile's 838). The same -O3
  // as quant-compile, for this host's CPU. The options hold the transformer
  // by reference (a function_ref) and create() runs it: it, and the target
  // machine it uses, must outlive that call.
  llvm::orc::JITTargetMachineBuilder machineBuilder{
      llvm::Triple(jitTarget.getTriple())};
  machineBuilder.setCPU(jitTarget.getCpu().str());
  SmallVector<StringRef> features;
  jitTarget.getLLVMFeatures().split(features, ',', -1, /*KeepEmpty=*/false);
  machineBuilder.addFeatures(
      std::vector<std::string>(features.begin(), features.end()));
  machineBuilder.setCodeGenOptLevel(llvm::CodeGenOptLevel::Aggressive);
  auto targetMachine = machineBuilder.createTargetMachine();
  if (!targetMachine)
    return emitError(module.getLoc())
           << tool << ": cannot create a target machine for this host: "
           << llvm::toString(targetMachine.takeError());
  std::unique_ptr<llvm::TargetMachine> machine = std::move(*targetMachine);
  std::function<llvm::Error(llvm::Module *)> optimize =
      makeOptimizingTransformer(/*optLevel=*/3, /*sizeLevel=*/0, machine.get());
  ExecutionEngineOptions engineOptions;
  // Multithreaded code calls the OpenMP runtime.
  const SmallVector<StringRef> openmpRuntime{QUANTA_OPENMP_RUNTIME};
  if (getModuleThreads(module) != 1)
    engineOptions.sharedLibPaths = openmpRuntime;
  engineOptions.jitCodeGenOptLevel = llvm::CodeGenOptLevel::Aggressive;
  engineOptions.transformer = optimize;
  // The engine generates code with a machine of the same description.
  auto codegenMachine = machineBuilder.createTargetMachine();
  if (!codegenMachine)
    return emitError(module.getLoc())
           << tool << ": cannot create a target machine for this host: "
           << llvm::toString(codegenMachine.takeError());
  auto engine = ExecutionEngine::create(*jitModule, engineOptions,
                                        std::move(*codegenMachine));
  if (!engine)
    return emitError(module.getLoc()) << tool << ": JIT compilation failed: "
                                      << llvm::toString(engine.takeError());
  if (extra)
    (*engine)->registerSymbols([&](llvm::orc::MangleAndInterner interner) {
      llvm::orc::SymbolMap symbols;
      extra(symbols, interner);
      return symbols;
    });
  return std::move(*engine);
}

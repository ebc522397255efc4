//===- CpuCheck.cpp - Object files check their CPU at the first call ------===//
//
// An object compiled for a CPU with dotprod, i8mm or AVX-512 dies of SIGILL
// on one without, at an instruction deep in a kernel. Instead, each entry
// point checks once, at its first call, that the running CPU has every
// feature of the target description it was compiled for (cpuid and xgetbv
// on x86-64; the kernel's HWCAP bits on AArch64, through getauxval), and
// otherwise writes which one is missing to stderr and aborts. Each public
// function `f` also gets `const char *f_missing_cpu_feature(void)`,
// returning the name of the first missing feature or NULL, so that a
// program can choose another code path instead.
//
//===----------------------------------------------------------------------===//

#include "quanta/Target/ObjectFile.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// Emits the body of the function returning the first missing feature.
class FeatureProbe {
public:
  FeatureProbe(llvm::Module &module, llvm::IRBuilder<> &builder)
      : module(module), builder(builder), i32(builder.getInt32Ty()),
        i64(builder.getInt64Ty()) {}

  /// Whether the CPU has `feature`, as an i1.
  llvm::Value *has(TargetFeature feature);

private:
  llvm::Value *bit(llvm::Value *word, unsigned position);
  /// cpuid(leaf, subleaf) register `reg` (0 eax, 1 ebx, 2 ecx, 3 edx).
  llvm::Value *cpuid(unsigned leaf, unsigned subleaf, unsigned reg);
  llvm::Value *xcr0();
  llvm::Value *maxLeaf();
  llvm::Value *hwcap(unsigned type);

  llvm::Module &module;
  llvm::IRBuilder<> &builder;
  llvm::Type *i32, *i64;
  llvm::Value *cachedXcr0 = nullptr, *cachedMaxLeaf = nullptr;
};
} // namespace

llvm::Value *FeatureProbe::bit(llvm::Value *word, unsigned position) {
  return builder.CreateICmpNE(
      builder.CreateAnd(word, llvm::ConstantInt::get(word->getType(),
                                                     uint64_t(1) << position)),
      llvm::ConstantInt::get(word->getType(), 0));
}

llvm::Value *FeatureProbe::cpuid(unsigned leaf, unsigned subleaf,
                                 unsigned reg) {
  auto *result = llvm::StructType::get(i32, i32, i32, i32);
  auto *type = llvm::FunctionType::get(result, {i32, i32}, false);
  auto *asmCall = llvm::InlineAsm::get(
      type, "cpuid", "={ax},={bx},={cx},={dx},{ax},{cx},~{dirflag},~{fpsr}",
      /*hasSideEffects=*/false);
  llvm::Value *registers = builder.CreateCall(
      type, asmCall, {builder.getInt32(leaf), builder.getInt32(subleaf)});
  return builder.CreateExtractValue(registers, reg);
}

/// The highest basic cpuid leaf: leaf 7 is read only below it.
llvm::Value *FeatureProbe::maxLeaf() {
  if (!cachedMaxLeaf)
    cachedMaxLeaf = cpuid(0, 0, 0);
  return cachedMaxLeaf;
}

/// XCR0, the register states the OS saves (0 without OSXSAVE, where
/// xgetbv would fault).
llvm::Value *FeatureProbe::xcr0() {
  if (cachedXcr0)
    return cachedXcr0;
  llvm::Function *function = builder.GetInsertBlock()->getParent();
  llvm::LLVMContext &context = module.getContext();
  llvm::Value *osxsave = bit(cpuid(1, 0, 2), 27);
  llvm::BasicBlock *before = builder.GetInsertBlock();
  auto *read = llvm::BasicBlock::Create(context, "xgetbv", function);
  auto *after = llvm::BasicBlock::Create(context, "xcr0", function);
  builder.CreateCondBr(osxsave, read, after);
  builder.SetInsertPoint(read);
  auto *type =
      llvm::FunctionType::get(llvm::StructType::get(i32, i32), {i32}, false);
  auto *asmCall = llvm::InlineAsm::get(type, "xgetbv", "={ax},={dx},{cx}",
                                       /*hasSideEffects=*/false);
  llvm::Value *value = builder.CreateExtractValue(
      builder.CreateCall(type, asmCall, {builder.getInt32(0)}), 0);
  builder.CreateBr(after);
  builder.SetInsertPoint(after);
  llvm::PHINode *phi = builder.CreatePHI(i32, 2);
  phi->addIncoming(builder.getInt32(0), before);
  phi->addIncoming(value, read);
  return cachedXcr0 = phi;
}

llvm::Value *FeatureProbe::hwcap(unsigned type) {
  llvm::FunctionCallee getauxval = module.getOrInsertFunction(
      "getauxval", llvm::FunctionType::get(i64, {i64}, false));
  return builder.CreateCall(getauxval, {builder.getInt64(type)});
}

llvm::Value *FeatureProbe::has(TargetFeature feature) {
  // AT_HWCAP and AT_HWCAP2 of <sys/auxv.h>; bits of <asm/hwcap.h>.
  constexpr unsigned kHwcap = 16, kHwcap2 = 26;
  // The OS saves the ymm (xmm and ymm state) and zmm (opmask, upper zmm and
  // hi16 zmm state) registers.
  auto osSaves = [&](uint32_t mask) {
    return builder.CreateICmpEQ(
        builder.CreateAnd(xcr0(), builder.getInt32(mask)),
        builder.getInt32(mask));
  };
  auto leaf7 = [&](unsigned subleaf, unsigned reg, unsigned position) {
    return builder.CreateAnd(
        builder.CreateICmpUGE(maxLeaf(), builder.getInt32(7)),
        bit(cpuid(7, subleaf, reg), position));
  };
  auto ymm = [&]() { return osSaves(0x6); };
  auto zmm = [&]() { return osSaves(0xe6); };
  switch (feature) {
  case TargetFeature::Avx2:
    return builder.CreateAnd(leaf7(0, 1, 5), ymm());
  case TargetFeature::Fma:
    return builder.CreateAnd(bit(cpuid(1, 0, 2), 12), ymm());
  case TargetFeature::Avx512F:
    return builder.CreateAnd(leaf7(0, 1, 16), zmm());
  case TargetFeature::Avx512BW:
    return builder.CreateAnd(leaf7(0, 1, 30), zmm());
  case TargetFeature::Avx512VL:
    return builder.CreateAnd(leaf7(0, 1, 31), zmm());
  case TargetFeature::Avx512Vnni:
    return builder.CreateAnd(leaf7(0, 2, 11), zmm());
  case TargetFeature::AvxVnni:
    return builder.CreateAnd(leaf7(1, 0, 4), ymm());
  case TargetFeature::Avx512Bf16:
    return builder.CreateAnd(leaf7(1, 0, 5), zmm());
  case TargetFeature::Neon:
    return bit(hwcap(kHwcap), 1);
  case TargetFeature::DotProd:
    return bit(hwcap(kHwcap), 20);
  case TargetFeature::I8mm:
    return bit(hwcap(kHwcap2), 13);
  }
  llvm_unreachable("unknown feature");
}

/// A private constant C string.
static llvm::Constant *cString(llvm::IRBuilder<> &builder, llvm::StringRef text,
                               const llvm::Twine &name) {
  return builder.CreateGlobalString(text, name);
}

void quanta::addCpuCheck(llvm::Module &module, const TargetDescription &target,
                         llvm::ArrayRef<std::string> functions) {
  llvm::LLVMContext &context = module.getContext();
  llvm::IRBuilder<> builder(context);
  auto *ptr = builder.getPtrTy();
  auto *i32 = builder.getInt32Ty();
  const auto internal = llvm::GlobalValue::InternalLinkage;

  // const char *__quanta_missing_cpu_feature(void): the first feature of
  // the target the CPU lacks, or null.
  auto *missing =
      llvm::Function::Create(llvm::FunctionType::get(ptr, false), internal,
                             "__quanta_missing_cpu_feature", module);
  builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", missing));
  FeatureProbe probe(module, builder);
  for (unsigned index = 0; index < kNumTargetFeatures; ++index) {
    auto feature = TargetFeature(index);
    if (!target.has(feature))
      continue;
    llvm::Value *present = probe.has(feature);
    auto *lacks = llvm::BasicBlock::Create(context, "lacks", missing);
    auto *next = llvm::BasicBlock::Create(context, "next", missing);
    builder.CreateCondBr(present, next, lacks);
    builder.SetInsertPoint(lacks);
    builder.CreateRet(cString(builder,
                              TargetDescription::getFeatureName(feature),
                              "__quanta_feature"));
    builder.SetInsertPoint(next);
  }
  builder.CreateRet(llvm::ConstantPointerNull::get(ptr));

  // void __quanta_require_cpu(const char *function): once the check has
  // passed, nothing; else the report and abort().
  auto *checked =
      new llvm::GlobalVariable(module, i32, /*isConstant=*/false, internal,
                               builder.getInt32(0), "__quanta_cpu_checked");
  auto *require = llvm::Function::Create(
      llvm::FunctionType::get(builder.getVoidTy(), {ptr}, false), internal,
      "__quanta_require_cpu", module);
  auto *entry = llvm::BasicBlock::Create(context, "entry", require);
  auto *check = llvm::BasicBlock::Create(context, "check", require);
  auto *fail = llvm::BasicBlock::Create(context, "fail", require);
  auto *passed = llvm::BasicBlock::Create(context, "passed", require);
  auto *done = llvm::BasicBlock::Create(context, "done", require);
  builder.SetInsertPoint(entry);
  llvm::LoadInst *flag = builder.CreateLoad(i32, checked);
  flag->setAtomic(llvm::AtomicOrdering::Monotonic);
  flag->setAlignment(llvm::Align(4));
  builder.CreateCondBr(builder.CreateICmpNE(flag, builder.getInt32(0)), done,
                       check);
  builder.SetInsertPoint(check);
  llvm::Value *name = builder.CreateCall(missing);
  builder.CreateCondBr(builder.CreateIsNull(name), passed, fail);
  builder.SetInsertPoint(fail);
  {
    auto *sizeType = builder.getInt64Ty();
    llvm::FunctionCallee strlen = module.getOrInsertFunction(
        "strlen", llvm::FunctionType::get(sizeType, {ptr}, false));
    llvm::FunctionCallee write = module.getOrInsertFunction(
        "write",
        llvm::FunctionType::get(sizeType, {i32, ptr, sizeType}, false));
    llvm::FunctionCallee abort = module.getOrInsertFunction(
        "abort", llvm::FunctionType::get(builder.getVoidTy(), false));
    auto print = [&](llvm::Value *text) {
      builder.CreateCall(write, {builder.getInt32(2), text,
                                 builder.CreateCall(strlen, {text})});
    };
    print(cString(builder, "quanta: ", "__quanta_message"));
    print(require->getArg(0));
    print(cString(builder,
                  " was compiled for " + target.describe() + " (" +
                      target.str() + "); this CPU lacks ",
                  "__quanta_message"));
    print(name);
    print(cString(builder, "\n", "__quanta_message"));
    builder.CreateCall(abort);
    builder.CreateUnreachable();
  }
  // Written once the check has passed (threads racing to it write the same
  // value); later calls only read it.
  builder.SetInsertPoint(passed);
  llvm::StoreInst *store = builder.CreateStore(builder.getInt32(1), checked);
  store->setAtomic(llvm::AtomicOrdering::Monotonic);
  store->setAlignment(llvm::Align(4));
  builder.CreateRetVoid();
  builder.SetInsertPoint(done);
  builder.CreateRetVoid();

  for (const std::string &function : functions) {
    // The entry point checks first.
    if (llvm::Function *entryPoint =
            module.getFunction("_mlir_ciface_" + function);
        entryPoint && !entryPoint->isDeclaration()) {
      builder.SetInsertPoint(
          &*entryPoint->getEntryBlock().getFirstInsertionPt());
      builder.CreateCall(require,
                         {cString(builder, function, "__quanta_function")});
    }
    // const char *<function>_missing_cpu_feature(void).
    auto *query = llvm::Function::Create(
        llvm::FunctionType::get(ptr, false), llvm::GlobalValue::ExternalLinkage,
        function + "_missing_cpu_feature", module);
    builder.SetInsertPoint(llvm::BasicBlock::Create(context, "entry", query));
    builder.CreateRet(builder.CreateCall(missing));
  }
}

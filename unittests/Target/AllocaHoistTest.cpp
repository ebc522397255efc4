//===- AllocaHoistTest.cpp - Allocas moved to the entry block -------------===//

#include "quanta/Target/JitEngine.h"

#include "llvm/AsmParser/Parser.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/Module.h"
#include "llvm/IR/Verifier.h"
#include "llvm/Support/SourceMgr.h"

#include "gtest/gtest.h"

using namespace mlir::quanta;

namespace {

/// A function as MLIR lowers one that passes memrefs by pointer: a
/// descriptor allocated in a block after a branch, one in a loop, one of a
/// size known only at run time, and one in the entry block after a call.
constexpr const char *kFunction = R"(
declare void @use(ptr)

define void @entry(i1 %condition, i64 %size) {
start:
  call void @use(ptr null)
  %first = alloca [9 x i64], align 8
  call void @use(ptr %first)
  br i1 %condition, label %then, label %loop
then:
  %branch = alloca [5 x i64], align 8
  call void @use(ptr %branch)
  %sized = alloca i8, i64 %size, align 8
  call void @use(ptr %sized)
  br label %loop
loop:
  %looped = alloca [7 x i64], align 8
  call void @use(ptr %looped)
  br i1 %condition, label %loop, label %exit
exit:
  ret void
}
)";

llvm::AllocaInst *findAlloca(llvm::Function &function, llvm::StringRef name) {
  for (llvm::BasicBlock &block : function)
    for (llvm::Instruction &instruction : block)
      if (instruction.getName() == name)
        return llvm::cast<llvm::AllocaInst>(&instruction);
  return nullptr;
}

TEST(AllocaHoistTest, ConstantAllocasOutsideLoopsLeadTheEntryBlock) {
  llvm::LLVMContext context;
  llvm::SMDiagnostic error;
  std::unique_ptr<llvm::Module> module =
      llvm::parseAssemblyString(kFunction, error, context);
  ASSERT_TRUE(module) << error.getMessage().str();
  moveAllocasToEntryBlock(*module);
  llvm::Function &function = *module->getFunction("entry");
  llvm::BasicBlock &entry = function.getEntryBlock();

  // Static allocas now, ahead of the first call: part of the fixed frame.
  for (llvm::StringRef name : {"first", "branch"}) {
    llvm::AllocaInst *alloca = findAlloca(function, name);
    ASSERT_TRUE(alloca) << name.str();
    EXPECT_TRUE(alloca->isStaticAlloca()) << name.str();
    EXPECT_TRUE(alloca->comesBefore(&*entry.getFirstNonPHIOrDbgOrAlloca()))
        << name.str();
  }
  // Each iteration of a loop gets a fresh alloca; a size known at run time
  // needs the block it is computed for: both stay where they are.
  EXPECT_EQ(findAlloca(function, "looped")->getParent()->getName(), "loop");
  EXPECT_EQ(findAlloca(function, "sized")->getParent()->getName(), "then");
  EXPECT_FALSE(llvm::verifyModule(*module, &llvm::errs()));
}

} // namespace

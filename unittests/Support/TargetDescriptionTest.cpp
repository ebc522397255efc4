//===- TargetDescriptionTest.cpp - The typed target description -----------===//

#include "quanta/Support/TargetDescription.h"

#include "gtest/gtest.h"

using namespace mlir::quanta;
using F = TargetFeature;

namespace {

/// The description LLVM's tables give for a triple, CPU and features;
/// fails the test with LLVM's message if there is none.
TargetDescription resolve(llvm::StringRef triple, llvm::StringRef cpu,
                          llvm::StringRef features = "") {
  llvm::Expected<TargetDescription> target =
      TargetDescription::fromLLVM(triple, cpu, features);
  if (!target) {
    ADD_FAILURE() << llvm::toString(target.takeError());
    return TargetDescription();
  }
  return *target;
}

std::string resolveError(llvm::StringRef triple, llvm::StringRef cpu,
                         llvm::StringRef features = "") {
  llvm::Expected<TargetDescription> target =
      TargetDescription::fromLLVM(triple, cpu, features);
  if (target)
    return "";
  return llvm::toString(target.takeError());
}

TEST(TargetDescriptionTest, ArmCpusHaveTheirLevels) {
  // qemu's models of the same names are what the execution tests run on.
  EXPECT_EQ(resolve("aarch64-linux-gnu", "cortex-a72").str(), "aarch64+neon");
  EXPECT_EQ(resolve("aarch64-linux-gnu", "cortex-a76").str(),
            "aarch64+neon+dotprod");
  EXPECT_EQ(resolve("aarch64-linux-gnu", "neoverse-n1").str(),
            "aarch64+neon+dotprod");
  EXPECT_EQ(resolve("aarch64-linux-gnu", "neoverse-v1").str(),
            "aarch64+neon+dotprod+i8mm");
  EXPECT_EQ(resolve("aarch64-linux-gnu", "", "+i8mm").str(),
            "aarch64+neon+i8mm");
  EXPECT_EQ(resolve("aarch64-linux-gnu", "neoverse-v1", "-i8mm").str(),
            "aarch64+neon+dotprod");
}

TEST(TargetDescriptionTest, X86CpusHaveTheirLevels) {
  EXPECT_EQ(resolve("x86_64-linux-gnu", "x86-64").str(), "x86_64");
  EXPECT_EQ(resolve("x86_64-linux-gnu", "haswell").str(), "x86_64+avx2+fma");
  EXPECT_EQ(resolve("x86_64-linux-gnu", "icelake-server").str(),
            "x86_64+avx2+fma+avx512f+avx512bw+avx512vl+avx512vnni");
  EXPECT_EQ(resolve("x86_64-linux-gnu", "alderlake").str(),
            "x86_64+avx2+fma+avxvnni");
  EXPECT_EQ(resolve("x86_64-linux-gnu", "cooperlake").str(),
            "x86_64+avx2+fma+avx512f+avx512bw+avx512vl+avx512vnni+avx512bf16");
  // Another architecture has none of the features the kernels know.
  EXPECT_EQ(resolve("riscv64-linux-gnu", "").str(), "other");
  EXPECT_EQ(resolve("i386-linux-gnu", "haswell").getArch(), TargetArch::Other);
}

TEST(TargetDescriptionTest, TheDescriptionKeepsWhatCodeGenerationNeeds) {
  TargetDescription target =
      resolve("aarch64-linux-gnu", "cortex-a76", "+i8mm");
  EXPECT_EQ(target.getTriple(), "aarch64-unknown-linux-gnu");
  EXPECT_EQ(target.getCpu(), "cortex-a76");
  EXPECT_EQ(target.getLLVMFeatures(), "+i8mm");
  EXPECT_EQ(target.describe(), "aarch64-unknown-linux-gnu (cortex-a76)");
  EXPECT_TRUE(TargetDescription::host().isHostArch());
}

TEST(TargetDescriptionTest, UnknownNamesAreErrors) {
  EXPECT_EQ(resolveError("nonsense-arch-none", "").substr(0, 43),
            "unknown target triple 'nonsense-arch-none':");
  EXPECT_EQ(resolveError("aarch64-linux-gnu", "pentium9"),
            "unknown CPU 'pentium9' for aarch64-unknown-linux-gnu (llc-22 "
            "-mtriple=aarch64-unknown-linux-gnu -mcpu=help lists the known "
            "ones)");
  EXPECT_EQ(resolveError("aarch64-linux-gnu", "", "+avx2"),
            "unknown feature 'avx2' for aarch64-unknown-linux-gnu (llc-22 "
            "-mtriple=aarch64-unknown-linux-gnu -mattr=help lists the known "
            "ones)");
  EXPECT_EQ(resolveError("aarch64-linux-gnu", "", "dotprod"),
            "feature 'dotprod' must start with '+' or '-' (e.g. +dotprod)");
}

TEST(TargetDescriptionTest, LevelsAndTheirText) {
  for (TargetArch arch : {TargetArch::X86_64, TargetArch::AArch64})
    for (llvm::StringRef level : TargetDescription::getLevelNames(arch)) {
      llvm::Expected<TargetDescription> target =
          TargetDescription::fromLevel(arch, level);
      ASSERT_TRUE(bool(target)) << level.str();
      llvm::Expected<TargetDescription> parsed =
          TargetDescription::parse(target->str());
      ASSERT_TRUE(bool(parsed)) << target->str();
      EXPECT_EQ(parsed->str(), target->str());
    }
  EXPECT_EQ(llvm::cantFail(
                TargetDescription::fromLevel(TargetArch::AArch64, "dotprod"))
                .str(),
            "aarch64+neon+dotprod");
  llvm::Expected<TargetDescription> unknown =
      TargetDescription::fromLevel(TargetArch::AArch64, "sve");
  ASSERT_FALSE(bool(unknown));
  EXPECT_EQ(llvm::toString(unknown.takeError()),
            "unknown aarch64 level 'sve' (expected i8mm, dotprod, baseline)");
  llvm::Expected<TargetDescription> wrongArch =
      TargetDescription::parse("x86_64+dotprod");
  ASSERT_FALSE(bool(wrongArch));
  EXPECT_EQ(llvm::toString(wrongArch.takeError()),
            "unknown x86_64 feature 'dotprod' in target 'x86_64+dotprod'");
}

TEST(TargetDescriptionTest, FeaturesMissingFromAnother) {
  TargetDescription v1 = resolve("aarch64-linux-gnu", "neoverse-v1");
  TargetDescription n1 = resolve("aarch64-linux-gnu", "neoverse-n1");
  EXPECT_EQ(v1.missingFrom(n1), llvm::SmallVector<F>{F::I8mm});
  EXPECT_TRUE(n1.missingFrom(v1).empty());
}

TEST(TargetDescriptionTest, InstructionsNeedTheirArchitectureAndFeatures) {
  TargetDescription a76 = resolve("aarch64-linux-gnu", "cortex-a76");
  TargetDescription haswell = resolve("x86_64-linux-gnu", "haswell");
  EXPECT_EQ(explainUnsupported("arm_neon.intr.sdot", a76), "");
  EXPECT_EQ(explainUnsupported("arm_neon.intr.usmmla", a76),
            "'arm_neon.intr.usmmla' needs the aarch64 feature i8mm, which "
            "the target aarch64-unknown-linux-gnu (cortex-a76) lacks");
  EXPECT_EQ(explainUnsupported("llvm.x86.avx2.pmadd.wd", a76),
            "'llvm.x86.avx2.pmadd.wd' is x86_64 code, but the target is "
            "aarch64-unknown-linux-gnu (cortex-a76)");
  EXPECT_EQ(explainUnsupported("llvm.x86.avx2.pmadd.wd", haswell), "");
  // vpdpbusd on ymm: AVX-VNNI, or AVX-512 VNNI with VL.
  EXPECT_EQ(explainUnsupported("llvm.x86.avx512.vpdpbusd.256", haswell),
            "'llvm.x86.avx512.vpdpbusd.256' needs the x86_64 feature "
            "avxvnni, or avx512vnni and avx512vl, which the target "
            "x86_64-unknown-linux-gnu (haswell) lacks");
  EXPECT_EQ(explainUnsupported("llvm.x86.avx512.vpdpbusd.256",
                               resolve("x86_64-linux-gnu", "icelake-server")),
            "");
  // vdpbf16ps: AVX512-BF16, which AVX-512 VNNI does not bring.
  EXPECT_EQ(explainUnsupported("llvm.x86.avx512bf16.dpbf16ps.512",
                               resolve("x86_64-linux-gnu", "icelake-server")),
            "'llvm.x86.avx512bf16.dpbf16ps.512' needs the x86_64 feature "
            "avx512bf16, which the target x86_64-unknown-linux-gnu "
            "(icelake-server) lacks");
  EXPECT_EQ(explainUnsupported("llvm.x86.avx512bf16.dpbf16ps.512",
                               resolve("x86_64-linux-gnu", "cooperlake")),
            "");
  // Target-independent operations need nothing.
  EXPECT_EQ(explainUnsupported("vector.fma", a76), "");
  EXPECT_EQ(explainUnsupported("llvm.fma", haswell), "");
}

} // namespace

//===- TargetDescription.cpp - What a target CPU can execute --------------===//

#include "quanta/Support/TargetDescription.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/MC/TargetRegistry.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/TargetParser/Triple.h"

#include <memory>

using namespace mlir::quanta;
using llvm::ArrayRef;
using llvm::SmallVector;
using llvm::StringRef;

namespace {
struct FeatureInfo {
  TargetFeature feature;
  TargetArch arch;
  StringRef name;
};
} // namespace

static constexpr FeatureInfo kFeatures[] = {
    {TargetFeature::Avx2, TargetArch::X86_64, "avx2"},
    {TargetFeature::Fma, TargetArch::X86_64, "fma"},
    {TargetFeature::Avx512F, TargetArch::X86_64, "avx512f"},
    {TargetFeature::Avx512BW, TargetArch::X86_64, "avx512bw"},
    {TargetFeature::Avx512VL, TargetArch::X86_64, "avx512vl"},
    {TargetFeature::Avx512Vnni, TargetArch::X86_64, "avx512vnni"},
    {TargetFeature::AvxVnni, TargetArch::X86_64, "avxvnni"},
    {TargetFeature::Avx512Bf16, TargetArch::X86_64, "avx512bf16"},
    {TargetFeature::Neon, TargetArch::AArch64, "neon"},
    {TargetFeature::DotProd, TargetArch::AArch64, "dotprod"},
    {TargetFeature::I8mm, TargetArch::AArch64, "i8mm"},
};

StringRef TargetDescription::getFeatureName(TargetFeature feature) {
  return kFeatures[unsigned(feature)].name;
}

TargetArch TargetDescription::getFeatureArch(TargetFeature feature) {
  return kFeatures[unsigned(feature)].arch;
}

StringRef TargetDescription::getArchName(TargetArch arch) {
  switch (arch) {
  case TargetArch::X86_64:
    return "x86_64";
  case TargetArch::AArch64:
    return "aarch64";
  case TargetArch::Other:
    return "other";
  }
  llvm_unreachable("unknown architecture");
}

static TargetArch getArch(const llvm::Triple &triple) {
  switch (triple.getArch()) {
  case llvm::Triple::x86_64:
    return TargetArch::X86_64;
  case llvm::Triple::aarch64:
    return TargetArch::AArch64;
  default:
    return TargetArch::Other;
  }
}

static void initializeLLVMTargets() {
  static const bool initialized = [] {
    llvm::InitializeAllTargetInfos();
    llvm::InitializeAllTargets();
    llvm::InitializeAllTargetMCs();
    llvm::InitializeAllAsmPrinters();
    // The CPU check's cpuid and xgetbv are inline assembly.
    llvm::InitializeAllAsmParsers();
    return true;
  }();
  (void)initialized;
}

static llvm::Error makeError(const llvm::Twine &message) {
  return llvm::createStringError(llvm::inconvertibleErrorCode(), message);
}

llvm::Expected<TargetDescription>
TargetDescription::fromLLVM(StringRef tripleText, StringRef cpuName,
                            StringRef featureText) {
  initializeLLVMTargets();
  const llvm::Triple hostTriple(llvm::sys::getDefaultTargetTriple());
  llvm::Triple triple = tripleText.empty()
                            ? hostTriple
                            : llvm::Triple(llvm::Triple::normalize(tripleText));
  std::string error;
  const llvm::Target *target =
      llvm::TargetRegistry::lookupTarget(triple, error);
  if (!target)
    return makeError("unknown target triple '" + tripleText + "': " + error);
  // A subtarget without CPU or features, to validate the names: LLVM only
  // warns about unknown ones (and then ignores them).
  std::unique_ptr<llvm::MCSubtargetInfo> plain(
      target->createMCSubtargetInfo(triple, "", ""));
  if (!plain)
    return makeError("the target '" + triple.str() +
                     "' has no subtarget information");
  std::string cpu = cpuName.str();
  SmallVector<std::string> featureList;
  if (cpu.empty() && triple == hostTriple) {
    cpu = llvm::sys::getHostCPUName().str();
    for (const auto &feature : llvm::sys::getHostCPUFeatures())
      featureList.push_back((feature.second ? "+" : "-") +
                            feature.first().str());
    llvm::sort(featureList);
  } else if (!cpu.empty() && !plain->isCPUStringValid(cpu)) {
    return makeError("unknown CPU '" + cpu + "' for " + triple.str() +
                     " (llc-22 -mtriple=" + triple.str() +
                     " -mcpu=help lists the known ones)");
  }
  SmallVector<StringRef> requested;
  featureText.split(requested, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef feature : requested) {
    StringRef name = feature.trim();
    if (!name.consume_front("+") && !name.consume_front("-"))
      return makeError("feature '" + feature +
                       "' must start with '+' or '-' (e.g. +dotprod)");
    if (llvm::none_of(plain->getAllProcessorFeatures(),
                      [&](const llvm::SubtargetFeatureKV &known) {
                        return name == known.Key;
                      }))
      return makeError("unknown feature '" + name + "' for " + triple.str() +
                       " (llc-22 -mtriple=" + triple.str() +
                       " -mattr=help lists the known ones)");
    featureList.push_back(feature.trim().str());
  }
  std::unique_ptr<llvm::MCSubtargetInfo> subtarget(
      target->createMCSubtargetInfo(triple, cpu, llvm::join(featureList, ",")));
  TargetDescription description;
  description.arch = ::getArch(triple);
  description.triple = triple.str();
  description.cpu = cpu;
  description.llvmFeatures = llvm::join(featureList, ",");
  for (const FeatureInfo &info : kFeatures)
    if (info.arch == description.arch &&
        subtarget->checkFeatures(("+" + info.name).str()))
      description.features.set(unsigned(info.feature));
  return description;
}

TargetDescription TargetDescription::host() {
  // The host's own triple, CPU and features cannot be unknown to LLVM.
  return llvm::cantFail(fromLLVM("", "", ""));
}

namespace {
struct Level {
  TargetArch arch;
  StringRef name;
  SmallVector<TargetFeature> features;
};
} // namespace

/// The levels of each architecture, best first.
static ArrayRef<Level> getLevels() {
  using F = TargetFeature;
  static const Level kLevels[] = {
      {TargetArch::X86_64,
       "avx512vnni",
       {F::Avx2, F::Fma, F::Avx512F, F::Avx512BW, F::Avx512VL, F::Avx512Vnni}},
      {TargetArch::X86_64, "avxvnni", {F::Avx2, F::Fma, F::AvxVnni}},
      {TargetArch::X86_64, "avx2", {F::Avx2, F::Fma}},
      {TargetArch::X86_64, "generic", {}},
      {TargetArch::AArch64, "i8mm", {F::Neon, F::DotProd, F::I8mm}},
      {TargetArch::AArch64, "dotprod", {F::Neon, F::DotProd}},
      {TargetArch::AArch64, "baseline", {F::Neon}},
  };
  return kLevels;
}

SmallVector<StringRef> TargetDescription::getLevelNames(TargetArch arch) {
  SmallVector<StringRef> names;
  for (const Level &level : getLevels())
    if (level.arch == arch)
      names.push_back(level.name);
  return names;
}

llvm::Expected<TargetDescription> TargetDescription::fromLevel(TargetArch arch,
                                                               StringRef name) {
  for (const Level &level : getLevels()) {
    if (level.arch != arch || level.name != name)
      continue;
    TargetDescription description;
    description.arch = arch;
    for (TargetFeature feature : level.features)
      description.features.set(unsigned(feature));
    return description;
  }
  return makeError("unknown " + getArchName(arch) + " level '" + name +
                   "' (expected " + llvm::join(getLevelNames(arch), ", ") +
                   ")");
}

std::string TargetDescription::str() const {
  std::string text = getArchName(arch).str();
  for (const FeatureInfo &info : kFeatures)
    if (has(info.feature))
      text += "+" + info.name.str();
  return text;
}

llvm::Expected<TargetDescription> TargetDescription::parse(StringRef text) {
  SmallVector<StringRef> parts;
  text.split(parts, '+');
  TargetDescription description;
  if (parts.front() == "x86_64")
    description.arch = TargetArch::X86_64;
  else if (parts.front() == "aarch64")
    description.arch = TargetArch::AArch64;
  else if (parts.front() != "other")
    return makeError("unknown architecture '" + parts.front() +
                     "' in target '" + text +
                     "' (expected x86_64, aarch64 or other)");
  for (StringRef name : llvm::drop_begin(parts)) {
    const FeatureInfo *info = llvm::find_if(
        kFeatures, [&](const FeatureInfo &info) { return info.name == name; });
    if (info == std::end(kFeatures) || info->arch != description.arch)
      return makeError("unknown " + getArchName(description.arch) +
                       " feature '" + name + "' in target '" + text + "'");
    description.features.set(unsigned(info->feature));
  }
  return description;
}

bool TargetDescription::isHostArch() const {
  return arch != TargetArch::Other &&
         arch == ::getArch(llvm::Triple(llvm::sys::getDefaultTargetTriple()));
}

SmallVector<TargetFeature>
TargetDescription::missingFrom(const TargetDescription &other) const {
  SmallVector<TargetFeature> missing;
  for (const FeatureInfo &info : kFeatures)
    if (has(info.feature) && !other.has(info.feature))
      missing.push_back(info.feature);
  return missing;
}

bool TargetDescription::hasAll(llvm::ArrayRef<TargetFeature> required) const {
  return llvm::all_of(required, [&](TargetFeature f) { return has(f); });
}

std::string TargetDescription::describe() const {
  if (triple.empty())
    return str();
  return triple + (cpu.empty() ? "" : " (" + cpu + ")");
}

std::optional<InstructionRequirement>
mlir::quanta::getInstructionRequirement(StringRef name) {
  using F = TargetFeature;
  // The first entry whose prefix `name` starts with.
  struct Entry {
    StringRef prefix;
    TargetArch arch;
    SmallVector<SmallVector<F, 2>, 2> alternatives;
  };
  static const Entry kTable[] = {
      {"llvm.x86.avx512.vpdpbusd.512", TargetArch::X86_64, {{F::Avx512Vnni}}},
      {"llvm.x86.avx512.vpdpbusd.256",
       TargetArch::X86_64,
       {{F::AvxVnni}, {F::Avx512Vnni, F::Avx512VL}}},
      {"llvm.x86.avx512.pack", TargetArch::X86_64, {{F::Avx512BW}}},
      {"llvm.x86.avx512bf16.", TargetArch::X86_64, {{F::Avx512Bf16}}},
      {"llvm.x86.avx512.", TargetArch::X86_64, {{F::Avx512F}}},
      {"llvm.x86.avx2.", TargetArch::X86_64, {{F::Avx2}}},
      {"llvm.x86.", TargetArch::X86_64, {}},
      {"x86vector.avx512.", TargetArch::X86_64, {{F::Avx512F}}},
      {"x86vector.", TargetArch::X86_64, {}},
      {"llvm.aarch64.neon.sdot", TargetArch::AArch64, {{F::DotProd}}},
      {"llvm.aarch64.neon.udot", TargetArch::AArch64, {{F::DotProd}}},
      {"llvm.aarch64.neon.usdot", TargetArch::AArch64, {{F::I8mm}}},
      {"llvm.aarch64.neon.smmla", TargetArch::AArch64, {{F::I8mm}}},
      {"llvm.aarch64.neon.ummla", TargetArch::AArch64, {{F::I8mm}}},
      {"llvm.aarch64.neon.usmmla", TargetArch::AArch64, {{F::I8mm}}},
      {"llvm.aarch64.neon.", TargetArch::AArch64, {{F::Neon}}},
      {"llvm.aarch64.", TargetArch::AArch64, {}},
      {"arm_neon.intr.sdot", TargetArch::AArch64, {{F::DotProd}}},
      {"arm_neon.2d.sdot", TargetArch::AArch64, {{F::DotProd}}},
      {"arm_neon.intr.smmla", TargetArch::AArch64, {{F::I8mm}}},
      {"arm_neon.intr.ummla", TargetArch::AArch64, {{F::I8mm}}},
      {"arm_neon.intr.usmmla", TargetArch::AArch64, {{F::I8mm}}},
      {"arm_neon.", TargetArch::AArch64, {{F::Neon}}},
  };
  for (const Entry &entry : kTable)
    if (name.starts_with(entry.prefix))
      return InstructionRequirement{entry.arch, entry.alternatives};
  return std::nullopt;
}

std::string mlir::quanta::explainUnsupported(StringRef name,
                                             const TargetDescription &target) {
  std::optional<InstructionRequirement> requirement =
      getInstructionRequirement(name);
  if (!requirement)
    return "";
  if (requirement->arch != target.getArch())
    return ("'" + name + "' is " +
            TargetDescription::getArchName(requirement->arch) +
            " code, but the target is " + target.describe())
        .str();
  if (requirement->alternatives.empty() ||
      llvm::any_of(requirement->alternatives,
                   [&](ArrayRef<TargetFeature> features) {
                     return target.hasAll(features);
                   }))
    return "";
  SmallVector<std::string> options;
  for (ArrayRef<TargetFeature> features : requirement->alternatives)
    options.push_back(llvm::join(
        llvm::map_range(features, TargetDescription::getFeatureName), " and "));
  return ("'" + name + "' needs the " +
          TargetDescription::getArchName(requirement->arch) + " feature " +
          llvm::join(options, ", or ") + ", which the target " +
          target.describe() + " lacks")
      .str();
}

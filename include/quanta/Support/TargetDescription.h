//===- TargetDescription.h - What a target CPU can execute ------*- C++ -*-===//
//
// One typed description of the machine code is generated for: its
// architecture and the instruction-set features Quanta's kernels choose
// between. It is resolved once, from a pass option, from a tool's
// --target-triple / --mcpu / --mattr (through LLVM's own subtarget tables),
// or from this host, and then consulted by everything that depends on the
// target: the kernel each lowering emits, the check that lowered IR only
// uses instructions the target has (before LLVM, which would abort), and
// the CPU check compiled into object files.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_SUPPORT_TARGETDESCRIPTION_H
#define QUANTA_SUPPORT_TARGETDESCRIPTION_H

#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/ADT/StringRef.h"
#include "llvm/Support/Error.h"

#include <bitset>
#include <optional>
#include <string>

namespace mlir::quanta {

enum class TargetArch { X86_64, AArch64, Other };

/// The features the kernels, the IR check and the run-time CPU check know.
enum class TargetFeature : unsigned {
  // x86-64.
  Avx2,
  Fma,
  Avx512F,
  Avx512BW,
  Avx512VL,
  Avx512Vnni,
  AvxVnni,
  Avx512Bf16,
  // AArch64.
  Neon,
  DotProd,
  I8mm,
};
constexpr unsigned kNumTargetFeatures = unsigned(TargetFeature::I8mm) + 1;

class TargetDescription {
public:
  /// This machine: its triple, CPU and every feature LLVM detects.
  static TargetDescription host();

  /// What LLVM's subtarget enables for `triple` (empty: this machine's),
  /// `cpu` (empty: this machine's CPU on its own triple, else the triple's
  /// generic CPU) and `features` (llc's -mattr, e.g. "+dotprod,-i8mm").
  /// Fails, with a message naming the culprit, on an unknown triple, a CPU
  /// or a feature the triple's target does not know.
  static llvm::Expected<TargetDescription> fromLLVM(llvm::StringRef triple,
                                                    llvm::StringRef cpu,
                                                    llvm::StringRef features);

  /// The architecture's kernels for a named feature level: x86
  /// "avx512vnni", "avxvnni", "avx2", "generic"; AArch64 "i8mm",
  /// "dotprod", "baseline". Fails with the names it accepts.
  static llvm::Expected<TargetDescription> fromLevel(TargetArch arch,
                                                     llvm::StringRef level);
  /// The levels of `arch`, best first.
  static llvm::SmallVector<llvm::StringRef> getLevelNames(TargetArch arch);

  /// The canonical text ("aarch64+neon+dotprod", "x86_64+avx2+fma") that
  /// `parse` reads back: how a module records its target
  /// (`quanta.target`).
  std::string str() const;
  static llvm::Expected<TargetDescription> parse(llvm::StringRef text);

  TargetArch getArch() const { return arch; }
  bool has(TargetFeature feature) const {
    return features.test(unsigned(feature));
  }
  /// Every feature of `required`.
  bool hasAll(llvm::ArrayRef<TargetFeature> required) const;
  /// The target for people: the triple and CPU it was resolved from, or
  /// its canonical text.
  std::string describe() const;
  /// The LLVM triple, CPU and feature string it was resolved from (empty
  /// when parsed or built from a level): what code generation for it uses.
  llvm::StringRef getTriple() const { return triple; }
  llvm::StringRef getCpu() const { return cpu; }
  llvm::StringRef getLLVMFeatures() const { return llvmFeatures; }
  /// Whether it was resolved for this machine's architecture.
  bool isHostArch() const;
  /// The features of this description the other lacks, in order.
  llvm::SmallVector<TargetFeature>
  missingFrom(const TargetDescription &other) const;

  /// LLVM's name of `feature` ("avx512vnni", "dotprod").
  static llvm::StringRef getFeatureName(TargetFeature feature);
  static TargetArch getFeatureArch(TargetFeature feature);
  /// "x86_64", "aarch64", "other".
  static llvm::StringRef getArchName(TargetArch arch);

private:
  TargetArch arch = TargetArch::Other;
  std::bitset<kNumTargetFeatures> features;
  std::string triple, cpu, llvmFeatures;
};

/// What an instruction (an LLVM intrinsic by name, an `arm_neon` or
/// `x86vector` op by op name) needs from the target: its architecture and
/// one of `alternatives` (each a set of features, all of them needed; none
/// means the architecture suffices).
struct InstructionRequirement {
  TargetArch arch;
  llvm::SmallVector<llvm::SmallVector<TargetFeature, 2>, 2> alternatives;
};

/// The requirement of the intrinsic or op `name`, if it is
/// architecture-specific (its name starts with "llvm.x86.",
/// "llvm.aarch64.", "arm_neon." or "x86vector.").
std::optional<InstructionRequirement>
getInstructionRequirement(llvm::StringRef name);

/// Empty if `target` can execute `name`; else why not, naming the
/// instruction and the missing architecture or feature.
std::string explainUnsupported(llvm::StringRef name,
                               const TargetDescription &target);

} // namespace mlir::quanta

#endif // QUANTA_SUPPORT_TARGETDESCRIPTION_H

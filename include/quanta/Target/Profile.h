//===- Profile.h - Time spent in each kernel call ---------------*- C++ -*-===//
//
// The run-time side of quanta-profile-calls: the JIT defines the functions
// the instrumented code calls around each kernel call, which add the call's
// time to its site's total. Process-wide (one profiled function at a time,
// called from one thread: quant-run --profile).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_PROFILE_H
#define QUANTA_TARGET_PROFILE_H

#include "llvm/ExecutionEngine/Orc/Core.h"
#include "llvm/ExecutionEngine/Orc/Mangling.h"

#include <cstdint>
#include <vector>

namespace mlir::quanta {

struct KernelTime {
  double seconds = 0;
  int64_t calls = 0;
};

/// Zeroes the totals of `sites` call sites.
void resetKernelProfile(size_t sites);

/// The totals of each site since resetKernelProfile.
std::vector<KernelTime> readKernelProfile();

/// Defines quanta_profile_begin and quanta_profile_end for the JIT.
void defineKernelProfileSymbols(llvm::orc::SymbolMap &symbols,
                                llvm::orc::MangleAndInterner &interner);

} // namespace mlir::quanta

#endif // QUANTA_TARGET_PROFILE_H

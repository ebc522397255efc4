//===- Profile.cpp - Time spent in each kernel call -----------------------===//

#include "quanta/Target/Profile.h"
#include "quanta/Codegen/Common/Passes.h"

#include <chrono>

using namespace mlir;
using namespace mlir::quanta;

namespace {
struct KernelProfile {
  std::vector<KernelTime> totals;
  std::vector<std::chrono::steady_clock::time_point> starts;
};
} // namespace

static KernelProfile &getProfile() {
  static KernelProfile profile;
  return profile;
}

// Sites beyond those reset (a profile read before its function ran) are
// not counted rather than written out of bounds.
extern "C" void quantaProfileBegin(int64_t site) {
  KernelProfile &profile = getProfile();
  if (site >= 0 && static_cast<size_t>(site) < profile.starts.size())
    profile.starts[site] = std::chrono::steady_clock::now();
}

extern "C" void quantaProfileEnd(int64_t site) {
  auto now = std::chrono::steady_clock::now();
  KernelProfile &profile = getProfile();
  if (site < 0 || static_cast<size_t>(site) >= profile.totals.size())
    return;
  KernelTime &total = profile.totals[site];
  total.seconds +=
      std::chrono::duration<double>(now - profile.starts[site]).count();
  ++total.calls;
}

void quanta::resetKernelProfile(size_t sites) {
  KernelProfile &profile = getProfile();
  profile.totals.assign(sites, KernelTime());
  profile.starts.assign(sites, std::chrono::steady_clock::time_point());
}

std::vector<KernelTime> quanta::readKernelProfile() {
  return getProfile().totals;
}

void quanta::defineKernelProfileSymbols(
    llvm::orc::SymbolMap &symbols, llvm::orc::MangleAndInterner &interner) {
  symbols[interner(kProfileBeginFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&quantaProfileBegin),
      llvm::JITSymbolFlags::Exported};
  symbols[interner(kProfileEndFunction)] = {
      llvm::orc::ExecutorAddr::fromPtr(&quantaProfileEnd),
      llvm::JITSymbolFlags::Exported};
}

//===- Emulator.h - Running code for another architecture under qemu ------===//
//
// How quant-run (and the tests) run AArch64 code on an x86-64 machine: the
// function is compiled as quant-compile would (object file and C header),
// linked statically with a small generated C driver by clang, and run by
// qemu-user with the CPU model asked for. Inputs and results cross as raw
// bytes in files; both architectures are little-endian.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_TARGET_EMULATOR_H
#define QUANTA_TARGET_EMULATOR_H

#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/BuiltinOps.h"

#include <vector>

namespace mlir::quanta {

/// Runs `entry` of `module` (tensor signature; lowered in place) for
/// `target`, an architecture qemu-user emulates here (AArch64), under
/// `qemu-<arch> -cpu <cpuModel>`, on `inputs` (each argument's bytes, row
/// major); returns each result's bytes. Errors name what is missing (qemu,
/// clang, the cross C library: with the apt-get command) or what failed
/// (the link, the emulated process, e.g. an instruction the CPU model
/// lacks), at the module's location.
FailureOr<std::vector<std::vector<char>>>
runUnderEmulator(ModuleOp module, func::FuncOp entry,
                 const TargetDescription &target, StringRef cpuModel,
                 ArrayRef<ArrayRef<char>> inputs);

} // namespace mlir::quanta

#endif // QUANTA_TARGET_EMULATOR_H

//===- MemoryLimit.h - The memory Quanta may use ----------------*- C++ -*-===//
//
// One number that every size check compares against (the .npy reader here,
// checkAllocatable for IR in Support/): no MLIR, so the runtime and the
// Python binding share it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_RUNTIME_MEMORYLIMIT_H
#define QUANTA_RUNTIME_MEMORYLIMIT_H

#include <cstdint>

namespace mlir::quanta::runtime {

/// The memory Quanta may use, in bytes: this machine's physical memory, or
/// less when the environment variable QUANTA_MEMORY_LIMIT_MB says so (a
/// shared server, a fuzzer's allocation limit); 0 when neither is known.
/// No size read from a file or IR may exceed it before it is allocated.
uint64_t getMemoryLimitBytes();

} // namespace mlir::quanta::runtime

#endif // QUANTA_RUNTIME_MEMORYLIMIT_H

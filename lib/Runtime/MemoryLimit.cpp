//===- MemoryLimit.cpp - The memory Quanta may use ------------------------===//

#include "quanta/Runtime/MemoryLimit.h"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>

namespace mlir::quanta::runtime {

uint64_t getMemoryLimitBytes() {
  const long pages = ::sysconf(_SC_PHYS_PAGES);
  const long pageSize = ::sysconf(_SC_PAGE_SIZE);
  uint64_t limit =
      pages > 0 && pageSize > 0
          ? static_cast<uint64_t>(pages) * static_cast<uint64_t>(pageSize)
          : 0;
  if (const char *megabytes = std::getenv("QUANTA_MEMORY_LIMIT_MB")) {
    char *end = nullptr;
    errno = 0;
    const unsigned long long value = std::strtoull(megabytes, &end, 10);
    if (errno == 0 && end != megabytes && *end == '\0' && value > 0 &&
        value < (uint64_t(1) << 43) && (limit == 0 || (value << 20) < limit))
      limit = value << 20;
  }
  return limit;
}

} // namespace mlir::quanta::runtime

//===- GuardedBuffer.cpp - Buffers against inaccessible pages -------------===//

#include "quanta/Runtime/GuardedBuffer.h"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <string>
#include <utility>

#include <sys/mman.h>
#include <unistd.h>

using namespace mlir::quanta;
using namespace mlir::quanta::runtime;

numerics::StatusOr<GuardedBuffer> GuardedBuffer::create(size_t size,
                                                        Guard guard) {
  const size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
  const size_t dataPages = size / page + (size % page != 0);
  if (dataPages > (SIZE_MAX / page) - 2)
    return numerics::Status::error("cannot map a guarded buffer of " +
                                   std::to_string(size) + " bytes");
  const size_t mappingSize = (dataPages + 2) * page;
  void *mapping =
      mmap(nullptr, mappingSize, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  if (mapping == MAP_FAILED)
    return numerics::Status::error("cannot map a guarded buffer of " +
                                   std::to_string(size) +
                                   " bytes: " + std::strerror(errno));
  char *firstDataPage = static_cast<char *>(mapping) + page;
  if (dataPages > 0 &&
      mprotect(firstDataPage, dataPages * page, PROT_READ | PROT_WRITE) != 0) {
    int error = errno;
    munmap(mapping, mappingSize);
    return numerics::Status::error(
        std::string("cannot make a guarded buffer writable: ") +
        std::strerror(error));
  }
  GuardedBuffer buffer;
  buffer.mapping = mapping;
  buffer.mappingSize = mappingSize;
  buffer.bufferSize = size;
  buffer.bufferStart = guard == Guard::Before
                           ? firstDataPage
                           : firstDataPage + dataPages * page - size;
  return buffer;
}

GuardedBuffer::GuardedBuffer(GuardedBuffer &&other) noexcept {
  *this = std::move(other);
}

GuardedBuffer &GuardedBuffer::operator=(GuardedBuffer &&other) noexcept {
  std::swap(mapping, other.mapping);
  std::swap(mappingSize, other.mappingSize);
  std::swap(bufferStart, other.bufferStart);
  std::swap(bufferSize, other.bufferSize);
  return *this;
}

GuardedBuffer::~GuardedBuffer() {
  if (mapping)
    munmap(mapping, mappingSize);
}

//===- GuardedBuffer.h - Buffers against inaccessible pages -----*- C++ -*-===//
//
// A buffer placed so that its last byte is followed by (or its first byte
// preceded by) a page the process may not touch: generated code that reads
// or writes one element past the buffer faults at that instruction instead
// of silently using a neighbour's memory. Tests run kernels on such buffers
// at sizes that are not multiples of their tiles (quant-run --guard-pages).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_RUNTIME_GUARDEDBUFFER_H
#define QUANTA_RUNTIME_GUARDEDBUFFER_H

#include "quanta/Numerics/Status.h"

#include <cstddef>

namespace mlir::quanta::runtime {

class GuardedBuffer {
public:
  enum class Guard {
    /// The buffer ends where an inaccessible page starts.
    After,
    /// The buffer starts where an inaccessible page ends.
    Before,
  };

  /// Maps `size` bytes (zeroed) with an inaccessible page on both sides of
  /// the pages holding them, the buffer against the `guard` one.
  static numerics::StatusOr<GuardedBuffer> create(size_t size, Guard guard);

  GuardedBuffer(GuardedBuffer &&other) noexcept;
  GuardedBuffer &operator=(GuardedBuffer &&other) noexcept;
  GuardedBuffer(const GuardedBuffer &) = delete;
  GuardedBuffer &operator=(const GuardedBuffer &) = delete;
  ~GuardedBuffer();

  char *data() const { return bufferStart; }
  size_t size() const { return bufferSize; }

private:
  GuardedBuffer() = default;

  void *mapping = nullptr;
  size_t mappingSize = 0;
  char *bufferStart = nullptr;
  size_t bufferSize = 0;
};

} // namespace mlir::quanta::runtime

#endif // QUANTA_RUNTIME_GUARDEDBUFFER_H

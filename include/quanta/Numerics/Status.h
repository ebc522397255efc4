//===- Status.h - Error reporting for the numeric library -------*- C++ -*-===//
//
// The numeric library has no LLVM/MLIR dependency so that the Python binding
// and the runtime can link it alone. Errors carry a message that callers turn
// into MLIR diagnostics (with a location) or Python exceptions.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_STATUS_H
#define QUANTA_NUMERICS_STATUS_H

#include <cassert>
#include <optional>
#include <string>
#include <utility>

namespace mlir::quanta::numerics {

/// Success, or a human-readable reason for failure.
class [[nodiscard]] Status {
public:
  static Status success() { return Status(); }
  static Status error(std::string message) {
    Status status;
    status.message = std::move(message);
    return status;
  }

  bool ok() const { return !message.has_value(); }
  explicit operator bool() const { return ok(); }
  const std::string &getMessage() const {
    assert(!ok() && "no message on success");
    return *message;
  }

private:
  std::optional<std::string> message;
};

/// A value, or the reason it could not be computed.
template <typename T> class [[nodiscard]] StatusOr {
public:
  StatusOr(T value) : value(std::move(value)) {}
  StatusOr(Status status) : status(std::move(status)) {
    assert(!this->status.ok() && "StatusOr needs a value on success");
  }

  bool ok() const { return value.has_value(); }
  explicit operator bool() const { return ok(); }
  const Status &getStatus() const { return status; }
  const T &operator*() const { return *value; }
  T &operator*() { return *value; }
  const T *operator->() const { return &*value; }
  T *operator->() { return &*value; }

private:
  Status status;
  std::optional<T> value;
};

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_STATUS_H

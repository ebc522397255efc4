//===- NumpyFile.h - Strict reader of .npy and .npz files --------*- C++
//-*-===//
//
// Calibration data arrives as NumPy files. This reader accepts exactly the
// format numpy.save / numpy.savez / numpy.savez_compressed write (format
// versions 1.0, 2.0 and 3.0) and reports everything else with the file name
// and what was expected: bad magic, unknown version, malformed header,
// Fortran order, big-endian or unknown dtypes, truncated data. No LLVM or
// MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_RUNTIME_NUMPYFILE_H
#define QUANTA_RUNTIME_NUMPYFILE_H

#include "quanta/Numerics/Status.h"
#include "quanta/Runtime/MemoryLimit.h"

#include <cstdint>
#include <string>
#include <vector>

namespace mlir::quanta::runtime {

using numerics::Status;
using numerics::StatusOr;

/// A tensor in memory its caller owns (a NumPy array, a batch read from a
/// file): C-order `shape` elements of NumPy dtype `dtype` ('<f4', '|u1',
/// ...) at `data`. `source` names it in errors.
struct TensorRef {
  void *data = nullptr;
  std::vector<int64_t> shape;
  std::string dtype;
  std::string source;

  int64_t numElements() const;
};

/// A shape as NumPy prints it: "(2, 3)", "(5,)", "()".
std::string formatShape(const std::vector<int64_t> &shape);
/// A dtype in NumPy's user-facing words ("float32", "int8", ...).
std::string formatDType(const std::string &dtype);

/// One array: its dtype as NumPy spells it ('<f4', '|u1', ...), its
/// C-order shape and its little-endian bytes.
struct NumpyArray {
  /// The file (and, inside an .npz, the member) it was read from.
  std::string source;
  std::string dtype;
  std::vector<int64_t> shape;
  std::vector<char> bytes;

  int64_t numElements() const;
  std::string shapeString() const;
  /// The dtype in NumPy's user-facing words ("float32", "int8", ...).
  std::string dtypeName() const;
  const float *asFloat32() const {
    return reinterpret_cast<const float *>(bytes.data());
  }
  /// A view of this array (valid while it lives and is not resized).
  TensorRef ref() { return {bytes.data(), shape, dtype, source}; }
};

/// Parses the contents of a .npy file; `source` names it in errors.
StatusOr<NumpyArray> parseNpy(const std::string &contents,
                              const std::string &source);

/// Reads a .npy file.
StatusOr<NumpyArray> readNpy(const std::string &path);

/// Parses every array of the .npz archive `contents` (stored or deflated
/// members), in archive order; the source of each is "<path>:<member>".
StatusOr<std::vector<NumpyArray>> parseNpz(const std::string &contents,
                                           const std::string &path);

/// Reads an .npz file (parseNpz).
StatusOr<std::vector<NumpyArray>> readNpz(const std::string &path);

/// Writes a float32 C-order .npy file (format 1.0).
/// Writes a C-order .npy file (format 1.0) of `shape` elements of NumPy
/// type `descr` ("<f4", "|i1", "|u1", "<i4", ...), `elementSize` bytes each.
Status writeNpy(const std::string &path, const std::string &descr,
                const std::vector<int64_t> &shape, const void *data,
                size_t elementSize);

Status writeNpyFloat32(const std::string &path,
                       const std::vector<int64_t> &shape, const float *data);

} // namespace mlir::quanta::runtime

#endif // QUANTA_RUNTIME_NUMPYFILE_H

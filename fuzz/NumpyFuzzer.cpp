//===- NumpyFuzzer.cpp - libFuzzer target for the .npy/.npz reader --------===//
//
// Calibration data comes from users' files: every byte string must parse or
// be rejected with a Status, never read out of bounds, overflow or request
// memory its header merely claims.
//
//===----------------------------------------------------------------------===//

#include "quanta/Runtime/NumpyFile.h"

#include <cstddef>
#include <cstdint>
#include <string>

using namespace mlir::quanta::runtime;

/// Reads every byte of an accepted array, as calibration would.
static void touch(const NumpyArray &array) {
  volatile unsigned char sum = 0;
  for (char byte : array.bytes)
    sum = sum + static_cast<unsigned char>(byte);
  (void)array.shapeString();
  (void)array.dtypeName();
}

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  const std::string bytes(reinterpret_cast<const char *>(data), size);
  if (StatusOr<NumpyArray> array = parseNpy(bytes, "input"); array.ok())
    touch(*array);
  if (StatusOr<std::vector<NumpyArray>> arrays = parseNpz(bytes, "input");
      arrays.ok())
    for (const NumpyArray &array : *arrays)
      touch(array);
  return 0;
}

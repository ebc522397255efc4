//===- TorchReductions.cpp - PyTorch's CPU float32 summation order --------===//
//
// A transcription of the float32 path of cascade_sum in PyTorch 1.13's
// aten/src/ATen/native/cpu/SumKernel.cpp for a contiguous 1-D input.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/TorchReductions.h"

#include <algorithm>
#include <cassert>
#include <cstdint>
#include <vector>

namespace mlir::quanta::numerics {

/// ATen's utils::CeilLog2 (1 for x <= 2).
static size_t ceilLog2(size_t x) {
  if (x <= 2)
    return 1;
  size_t bits = 0;
  for (size_t v = x - 1; v != 0; v >>= 1)
    ++bits;
  return bits;
}

/// row_sum over `count` groups of `width` consecutive floats, each of the
/// `width` lanes summed separately into `out`: groups are dealt round-robin
/// to 4 accumulators (ilp_factor), whose rows multi_row_sum folds through a
/// 4-level cascade; leftover groups go to accumulator 0, then accumulators
/// 1..3 are added to it in order.
static void rowSum(const float *data, size_t count, size_t width, float *out) {
  constexpr size_t kIlp = 4, kLevels = 4;
  const size_t rows = count / kIlp;
  const size_t levelPower = std::max<size_t>(4, ceilLog2(rows) / kLevels);
  const size_t levelStep = size_t(1) << levelPower;
  const size_t levelMask = levelStep - 1;
  const size_t rowWidth = kIlp * width;
  // acc[level * rowWidth + k * width + lane]
  std::vector<float> acc(kLevels * rowWidth, 0.0f);
  auto addInto = [&](float *dst, const float *src) {
    for (size_t j = 0; j < rowWidth; ++j)
      dst[j] += src[j];
  };

  size_t row = 0;
  while (row + levelStep <= rows) {
    for (size_t j = 0; j < levelStep; ++j, ++row)
      addInto(&acc[0], data + row * rowWidth);
    for (size_t level = 1; level < kLevels; ++level) {
      addInto(&acc[level * rowWidth], &acc[(level - 1) * rowWidth]);
      std::fill_n(&acc[(level - 1) * rowWidth], rowWidth, 0.0f);
      if ((row & (levelMask << (level * levelPower))) != 0)
        break;
    }
  }
  for (; row < rows; ++row)
    addInto(&acc[0], data + row * rowWidth);
  for (size_t level = 1; level < kLevels; ++level)
    addInto(&acc[0], &acc[level * rowWidth]);

  for (size_t group = rows * kIlp; group < count; ++group)
    for (size_t lane = 0; lane < width; ++lane)
      acc[lane] += data[group * width + lane];
  for (size_t k = 1; k < kIlp; ++k)
    for (size_t lane = 0; lane < width; ++lane)
      acc[lane] += acc[k * width + lane];
  std::copy_n(acc.begin(), width, out);
}

float torchSum(const float *data, size_t size, size_t vectorLanes) {
  assert(vectorLanes > 0 && "a vector has at least one lane");
  float total = 0.0f;
  if (size >= vectorLanes) {
    // vectorized_inner_sum: lane-wise sums of the whole vectors, then a
    // fresh accumulator takes the scalar tail first and the lanes after.
    const size_t vectors = size / vectorLanes;
    std::vector<float> lanes(vectorLanes);
    rowSum(data, vectors, vectorLanes, lanes.data());
    for (size_t i = vectors * vectorLanes; i < size; ++i)
      total += data[i];
    for (float lane : lanes)
      total += lane;
  } else {
    rowSum(data, size, 1, &total);
  }
  // The result is accumulated into the zero-filled output (-0.0 becomes 0.0).
  return 0.0f + total;
}

} // namespace mlir::quanta::numerics

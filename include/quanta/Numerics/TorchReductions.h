//===- TorchReductions.h - PyTorch's CPU float32 sum order ------*- C++ -*-===//
//
// Float32 sums are not associative, so reproducing PyTorch bit for bit means
// adding in the order of its CPU kernels (PyTorch 1.13,
// aten/src/ATen/native/cpu/SumKernel.cpp).
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_NUMERICS_TORCHREDUCTIONS_H
#define QUANTA_NUMERICS_TORCHREDUCTIONS_H

#include <cstddef>

namespace mlir::quanta::numerics {

/// Float lanes of ATen's Vectorized<float>: 8 for the DEFAULT and AVX2 CPU
/// capabilities, 16 for AVX512.
constexpr size_t kTorchFloatLanes = 8;

/// torch.sum(t).item() of a contiguous 1-D float32 CPU tensor, accumulated
/// in float32: `vectorLanes` interleaved cascade sums (SumKernel.cpp's
/// vectorized_inner_sum / row_sum / multi_row_sum), then the scalar tail,
/// then the lanes. Exact for PyTorch running one intra-op thread or for
/// size < 32768 (at::internal::GRAIN_SIZE); larger tensors are split per
/// thread by PyTorch.
float torchSum(const float *data, size_t size,
               size_t vectorLanes = kTorchFloatLanes);

} // namespace mlir::quanta::numerics

#endif // QUANTA_NUMERICS_TORCHREDUCTIONS_H

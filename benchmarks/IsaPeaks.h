//===- IsaPeaks.h - Instruction-mix peaks of this core ----------*- C++ -*-===//
//
// The multiply-accumulate throughput of the instruction sequences Quanta's
// x86 kernels are built from, measured on the core the benchmark runs on:
// what bounds an int8 GEMM (AVX2 without VNNI: vpmaddubsw + vpmaddwd +
// vpaddd; AVX-512 VNNI: vpdpbusd) and an fp32 one (FMA), and so how far
// int8 can be ahead of float on GEMM-bound models on this CPU. Operands are
// laundered through empty asm every iteration and every accumulator starts
// at a different value, so that no product is hoisted or shared (identical
// chains would be merged); there are enough independent chains that
// throughput, not latency, bounds each loop. The best of five runs: the
// first ones can run before the core has reached its turbo clock.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_BENCHMARKS_ISAPEAKS_H
#define QUANTA_BENCHMARKS_ISAPEAKS_H

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <immintrin.h>

namespace quanta::benchmarks {

/// Peaks in GOPS (2 ops per multiply-accumulate); 0 where this CPU lacks
/// the instructions.
struct IsaPeaks {
  /// vpmaddubsw + vpmaddwd + vpaddd (u8 x s8, 7-bit inputs exact).
  double maddubs = 0;
  /// vpmaddwd + vpaddd on i16 pairs (full-range 8-bit inputs).
  double maddwd = 0;
  /// vpdpbusd on zmm.
  double vnni512 = 0;
  /// vfmadd on ymm and zmm.
  double fma256 = 0;
  double fma512 = 0;
};

namespace detail {

template <typename Step> double peakGops(Step step, double macsPerIteration) {
  constexpr int kIterations = 20000000;
  volatile int32_t sink = 0;
  double best = 1e30;
  for (int run = 0; run < 5; ++run) {
    const auto start = std::chrono::steady_clock::now();
    sink = sink + step(kIterations);
    best = std::min(best, std::chrono::duration<double>(
                              std::chrono::steady_clock::now() - start)
                              .count());
  }
  return 2.0 * macsPerIteration * kIterations / best * 1e-9;
}

/// 8 independent AVX2 dot steps per iteration: vpmaddubsw + vpmaddwd +
/// vpaddd (256 MACs) when `kMaddUbs`, else vpmaddwd + vpaddd on i16 pairs
/// (128 MACs).
template <bool kMaddUbs>
__attribute__((target("avx2"))) int32_t avx2Peak(int iterations) {
  __m256i acc[8], a0 = _mm256_set1_epi8(3), a1 = _mm256_set1_epi8(4),
                  b0 = _mm256_set1_epi8(-5), b1 = _mm256_set1_epi8(6),
                  b2 = _mm256_set1_epi8(7), b3 = _mm256_set1_epi8(-8),
                  ones = _mm256_set1_epi16(1);
  for (int i = 0; i < 8; ++i)
    acc[i] = _mm256_set1_epi32(i);
  for (int it = 0; it < iterations; ++it) {
    __asm__ volatile(""
                     : "+x"(a0), "+x"(a1), "+x"(b0), "+x"(b1), "+x"(b2),
                       "+x"(b3));
    const __m256i as[2] = {a0, a1}, bs[4] = {b0, b1, b2, b3};
    for (int i = 0; i < 8; ++i) {
      __m256i pairs = as[i / 4];
      if constexpr (kMaddUbs)
        pairs = _mm256_madd_epi16(_mm256_maddubs_epi16(pairs, bs[i % 4]), ones);
      else
        pairs = _mm256_madd_epi16(pairs, bs[i % 4]);
      acc[i] = _mm256_add_epi32(acc[i], pairs);
    }
  }
  __m256i sum = acc[0];
  for (int i = 1; i < 8; ++i)
    sum = _mm256_add_epi32(sum, acc[i]);
  alignas(32) int32_t lanes[8];
  _mm256_store_si256(reinterpret_cast<__m256i *>(lanes), sum);
  return lanes[0];
}

/// 12 x vpdpbusd (zmm) per iteration: 768 MACs.
__attribute__((target("avx2,avx512f,avx512vnni"))) inline int32_t
vnni512Peak(int iterations) {
  __m512i acc[12], a = _mm512_set1_epi8(3), b = _mm512_set1_epi8(-5);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm512_set1_epi32(i);
  for (int it = 0; it < iterations; ++it) {
    __asm__ volatile("" : "+v"(a), "+v"(b));
    for (__m512i &x : acc)
      x = _mm512_dpbusd_epi32(x, a, b);
  }
  __m512i sum = acc[0];
  for (int i = 1; i < 12; ++i)
    sum = _mm512_add_epi32(sum, acc[i]);
  return _mm512_reduce_add_epi32(sum);
}

/// 12 independent FMAs on ymm per iteration: 96 multiply-adds.
__attribute__((target("avx2,fma"))) inline int32_t fma256Peak(int iterations) {
  __m256 acc[12], a = _mm256_set1_ps(1.0f), b = _mm256_set1_ps(0.0f);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm256_set1_ps(static_cast<float>(i));
  for (int it = 0; it < iterations; ++it) {
    __asm__ volatile("" : "+x"(a), "+x"(b));
    for (__m256 &x : acc)
      x = _mm256_fmadd_ps(a, b, x);
  }
  __m256 sum = acc[0];
  for (int i = 1; i < 12; ++i)
    sum = _mm256_add_ps(sum, acc[i]);
  return static_cast<int32_t>(_mm256_cvtss_f32(sum));
}

/// 12 independent FMAs on zmm per iteration: 192 multiply-adds.
__attribute__((target("avx2,avx512f"))) inline int32_t
fma512Peak(int iterations) {
  __m512 acc[12], a = _mm512_set1_ps(1.0f), b = _mm512_set1_ps(0.0f);
  for (int i = 0; i < 12; ++i)
    acc[i] = _mm512_set1_ps(static_cast<float>(i));
  for (int it = 0; it < iterations; ++it) {
    __asm__ volatile("" : "+v"(a), "+v"(b));
    for (__m512 &x : acc)
      x = _mm512_fmadd_ps(a, b, x);
  }
  __m512 sum = acc[0];
  for (int i = 1; i < 12; ++i)
    sum = _mm512_add_ps(sum, acc[i]);
  return static_cast<int32_t>(_mm512_reduce_add_ps(sum));
}

} // namespace detail

/// Measures every peak this CPU has the instructions for (about a second
/// each).
inline IsaPeaks measureIsaPeaks() {
  IsaPeaks peaks;
  if (!__builtin_cpu_supports("avx2"))
    return peaks;
  peaks.maddubs = detail::peakGops(detail::avx2Peak<true>, 256);
  peaks.maddwd = detail::peakGops(detail::avx2Peak<false>, 128);
  if (__builtin_cpu_supports("fma"))
    peaks.fma256 = detail::peakGops(detail::fma256Peak, 96);
  if (__builtin_cpu_supports("avx512f"))
    peaks.fma512 = detail::peakGops(detail::fma512Peak, 192);
  if (__builtin_cpu_supports("avx512vnni"))
    peaks.vnni512 = detail::peakGops(detail::vnni512Peak, 768);
  return peaks;
}

} // namespace quanta::benchmarks

#endif // QUANTA_BENCHMARKS_ISAPEAKS_H

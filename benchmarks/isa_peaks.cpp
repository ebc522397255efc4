//===- isa_peaks.cpp - Print this core's instruction-mix peaks ------------===//
//
// Prints IsaPeaks.h's measurements, one "name GOPS" line each (0: not on
// this CPU), and the ratio of the best int8 to the best fp32 peak: the
// furthest ahead of float an int8 GEMM can be on this core. The model
// benchmarks (transformers_vs_pytorch.py) print it beside their ratios.
//
//   build/bin/quanta-isa-peaks
//
//===----------------------------------------------------------------------===//

#include "IsaPeaks.h"

#include <algorithm>
#include <cstdio>

int main() {
  const quanta::benchmarks::IsaPeaks peaks =
      quanta::benchmarks::measureIsaPeaks();
  std::printf("int8-vpmaddubsw %.1f\nint8-vpmaddwd %.1f\nint8-vpdpbusd-zmm "
              "%.1f\nfp32-fma-ymm %.1f\nfp32-fma-zmm %.1f\n",
              peaks.maddubs, peaks.maddwd, peaks.vnni512, peaks.fma256,
              peaks.fma512);
  const double int8 = std::max({peaks.maddubs, peaks.maddwd, peaks.vnni512});
  const double fp32 = std::max(peaks.fma256, peaks.fma512);
  std::printf("int8/fp32 %.2f\n", fp32 > 0 ? int8 / fp32 : 0.0);
  return 0;
}

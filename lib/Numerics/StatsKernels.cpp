//===- StatsKernels.cpp - The observers' per-element loops ----------------===//
//
// Portable and AVX2 implementations of StatsKernels.h; kernels() picks one
// set at run time. The AVX2 functions are compiled for AVX2 alone (target
// attribute), so the library itself needs no -march flag. There is no FMA:
// every vector operation rounds like the scalar expression it replaces.
// Defining QUANTA_PORTABLE_KERNELS leaves the portable set alone (to test
// it on an AVX2 machine).
//
//===----------------------------------------------------------------------===//

#include "StatsKernels.h"

#include <vector>

#if (defined(__x86_64__) || defined(__i386__)) &&                              \
    !defined(QUANTA_PORTABLE_KERNELS)
#include <immintrin.h>
#define QUANTA_AVX2_KERNELS 1
#define QUANTA_AVX2 __attribute__((target("avx2")))
#endif

namespace mlir::quanta::numerics::detail {

//===----------------------------------------------------------------------===//
// Portable
//===----------------------------------------------------------------------===//

static void foldMinMaxLanesPortable(const float *data, size_t size,
                                    LaneMinMax &lanes) {
  bool nan = false;
  // _mm256_min_ps(acc, x) is acc < x ? acc : x. A constant inner trip
  // count lets the compiler vectorize.
  auto fold = [&](size_t lane, float x) {
    nan |= x != x;
    lanes.min[lane] = lanes.min[lane] < x ? lanes.min[lane] : x;
    lanes.max[lane] = lanes.max[lane] > x ? lanes.max[lane] : x;
  };
  const size_t vectorFloats = size - size % kMinMaxLanes;
  for (size_t i = 0; i < vectorFloats; i += kMinMaxLanes)
    for (size_t j = 0; j < kMinMaxLanes; ++j)
      fold(j, data[i + j]);
  for (size_t j = 0; vectorFloats + j < size; ++j)
    fold(j, data[vectorFloats + j]);
  lanes.sawNaN |= nan;
}

static void foldMinMaxRunsPortable(const float *data, size_t runs,
                                   size_t length, size_t channels, float *min,
                                   float *max, bool &sawNaN) {
  for (size_t r = 0, c = 0; r < runs; ++r, c = c + 1 == channels ? 0 : c + 1) {
    LaneMinMax lanes;
    foldMinMaxLanesPortable(data + r * length, length, lanes);
    sawNaN |= lanes.sawNaN;
    for (size_t j = 0; j < kMinMaxLanes; ++j) {
      min[c] = std::min(min[c], lanes.min[j]);
      max[c] = std::max(max[c], lanes.max[j]);
    }
  }
}

/// Columns [0, columns) of `rows` rows `stride` floats apart.
static void foldColumnsPortable(const float *data, size_t rows, size_t stride,
                                size_t columns, float *min, float *max,
                                bool &sawNaN) {
  bool nan = false;
  for (size_t r = 0; r < rows; ++r) {
    const float *row = data + r * stride;
    for (size_t k = 0; k < columns; ++k) {
      nan |= row[k] != row[k];
      min[k] = min[k] < row[k] ? min[k] : row[k];
      max[k] = max[k] > row[k] ? max[k] : row[k];
    }
  }
  sawNaN |= nan;
}

static void foldMinMaxColumnsPortable(const float *data, size_t rows,
                                      size_t width, float *min, float *max,
                                      bool &sawNaN) {
  foldColumnsPortable(data, rows, width, width, min, max, sawNaN);
}

static void countHistcBinsPortable(const float *data, size_t size,
                                   const HistcBins &edges, uint64_t *counts,
                                   LaneMinMax *extrema) {
  if (extrema)
    foldMinMaxLanesPortable(data, size, *extrema);
  for (size_t i = 0; i < size; ++i)
    if (int64_t bin = histcBin(data[i], edges); bin >= 0)
      ++counts[bin];
}

//===----------------------------------------------------------------------===//
// AVX2
//===----------------------------------------------------------------------===//

#ifdef QUANTA_AVX2_KERNELS

namespace {
constexpr size_t kVector = kMinMaxLanes;

/// Running min/max of 8 lanes.
struct MinMax8 {
  __m256 min, max;

  QUANTA_AVX2 MinMax8()
      : min(_mm256_set1_ps(kInf)), max(_mm256_set1_ps(-kInf)) {}
  QUANTA_AVX2 void fold(__m256 x) {
    // On a tie, the second operand (x) is returned.
    min = _mm256_min_ps(min, x);
    max = _mm256_max_ps(max, x);
  }
  QUANTA_AVX2 void fold(const MinMax8 &later) {
    min = _mm256_min_ps(min, later.min);
    max = _mm256_max_ps(max, later.max);
  }
};

/// An unordered compare flags a NaN in either operand.
QUANTA_AVX2 __m256 orNaN(__m256 nan, __m256 x, __m256 y) {
  return _mm256_or_ps(nan, _mm256_cmp_ps(x, y, _CMP_UNORD_Q));
}

QUANTA_AVX2 bool anyLane(__m256 mask) { return _mm256_movemask_ps(mask) != 0; }
} // namespace

/// Four accumulator chains (one would be latency bound) reading four
/// streams (faster from L3 than one): chain c folds the `floats` floats at
/// `data + c * stride`, in order.
QUANTA_AVX2 static void foldFourStreams(const float *data, size_t stride,
                                        size_t floats, MinMax8 (&chain)[4],
                                        __m256 &nan) {
  for (size_t i = 0; i < floats; i += kVector) {
    __m256 x[4];
    for (size_t c = 0; c < 4; ++c) {
      x[c] = _mm256_loadu_ps(data + c * stride + i);
      chain[c].fold(x[c]);
    }
    nan = orNaN(orNaN(nan, x[0], x[1]), x[2], x[3]);
  }
}

/// Whole vectors per stream when `floats` floats are split in four.
static size_t quarterFloats(size_t floats) {
  return floats / kVector / 4 * kVector;
}

QUANTA_AVX2 static void foldMinMaxLanesAvx2(const float *data, size_t size,
                                            LaneMinMax &lanes) {
  // Each chain takes a contiguous quarter of the whole vectors, so that
  // lane j still only sees elements j mod 8 in order. Folding the chains in
  // memory order keeps ties going to the later element: the lanes are the
  // single chain's of ATen, bit for bit.
  const size_t vectorFloats = size - size % kVector;
  const size_t quarter = quarterFloats(vectorFloats);
  MinMax8 chain[4];
  chain[0].min = _mm256_loadu_ps(lanes.min);
  chain[0].max = _mm256_loadu_ps(lanes.max);
  __m256 nan = _mm256_setzero_ps();
  foldFourStreams(data, quarter, quarter, chain, nan);
  // The vectors left over extend the last chain.
  for (size_t i = 4 * quarter; i < vectorFloats; i += kVector) {
    const __m256 x = _mm256_loadu_ps(data + i);
    chain[3].fold(x);
    nan = orNaN(nan, x, x);
  }
  for (size_t c = 1; c < 4; ++c)
    chain[0].fold(chain[c]);
  _mm256_storeu_ps(lanes.min, chain[0].min);
  _mm256_storeu_ps(lanes.max, chain[0].max);
  lanes.sawNaN |= anyLane(nan);
  // The last size % 8 elements go to lanes 0, 1, ...
  foldMinMaxLanesPortable(data + vectorFloats, size - vectorFloats, lanes);
}

QUANTA_AVX2 static void foldMinMaxRunsAvx2(const float *data, size_t runs,
                                           size_t length, size_t channels,
                                           float *min, float *max,
                                           bool &sawNaN) {
  if (length < kVector)
    return foldMinMaxRunsPortable(data, runs, length, channels, min, max,
                                  sawNaN);
  // Lane-wise accumulators per channel. The order does not matter: a run
  // is read as four streams, and its last vector may overlap the previous.
  std::vector<float> accMin(channels * kVector, kInf);
  std::vector<float> accMax(channels * kVector, -kInf);
  __m256 nan = _mm256_setzero_ps();
  const size_t quarter = quarterFloats(length);
  for (size_t r = 0, c = 0; r < runs; ++r, c = c + 1 == channels ? 0 : c + 1) {
    const float *run = data + r * length;
    MinMax8 chain[4];
    chain[0].min = _mm256_loadu_ps(&accMin[c * kVector]);
    chain[0].max = _mm256_loadu_ps(&accMax[c * kVector]);
    foldFourStreams(run, quarter, quarter, chain, nan);
    for (size_t i = 4 * quarter; i < length; i += kVector) {
      const __m256 x = _mm256_loadu_ps(run + std::min(i, length - kVector));
      chain[1].fold(x);
      nan = orNaN(nan, x, x);
    }
    chain[0].fold(chain[1]);
    chain[2].fold(chain[3]);
    chain[0].fold(chain[2]);
    _mm256_storeu_ps(&accMin[c * kVector], chain[0].min);
    _mm256_storeu_ps(&accMax[c * kVector], chain[0].max);
  }
  for (size_t k = 0; k < channels * kVector; ++k) {
    min[k / kVector] = std::min(min[k / kVector], accMin[k]);
    max[k / kVector] = std::max(max[k / kVector], accMax[k]);
  }
  sawNaN |= anyLane(nan);
}

/// Folds rows a, b, c and d into the accumulators, `width` whole vectors.
QUANTA_AVX2 static void foldFourRows(const float *a, const float *b,
                                     const float *c, const float *d,
                                     size_t width, float *min, float *max,
                                     __m256 &nan) {
  for (size_t k = 0; k < width; k += kVector) {
    const __m256 w = _mm256_loadu_ps(a + k), x = _mm256_loadu_ps(b + k);
    const __m256 y = _mm256_loadu_ps(c + k), z = _mm256_loadu_ps(d + k);
    nan = orNaN(orNaN(nan, w, x), y, z);
    const __m256 rowsMin =
        _mm256_min_ps(_mm256_min_ps(w, x), _mm256_min_ps(y, z));
    const __m256 rowsMax =
        _mm256_max_ps(_mm256_max_ps(w, x), _mm256_max_ps(y, z));
    _mm256_storeu_ps(min + k, _mm256_min_ps(_mm256_loadu_ps(min + k), rowsMin));
    _mm256_storeu_ps(max + k, _mm256_max_ps(_mm256_loadu_ps(max + k), rowsMax));
  }
}

QUANTA_AVX2 static void foldMinMaxColumnsAvx2(const float *data, size_t rows,
                                              size_t width, float *min,
                                              float *max, bool &sawNaN) {
  const size_t vectorWidth = width - width % kVector;
  __m256 nan = _mm256_setzero_ps();
  // Four rows per pass, one from each quarter of the rows: a quarter of
  // the accumulator traffic, and four streams.
  const size_t quarter = rows / 4;
  for (size_t r = 0; r < quarter; ++r) {
    const float *row = data + r * width;
    const size_t step = quarter * width;
    foldFourRows(row, row + step, row + 2 * step, row + 3 * step, vectorWidth,
                 min, max, nan);
  }
  for (size_t r = 4 * quarter; r < rows; ++r) {
    const float *row = data + r * width;
    foldFourRows(row, row, row, row, vectorWidth, min, max, nan);
  }
  sawNaN |= anyLane(nan);
  foldColumnsPortable(data + vectorWidth, rows, width, width - vectorWidth,
                      min + vectorWidth, max + vectorWidth, sawNaN);
}

/// histcBin of 8 values, -1 for the skipped ones.
///
/// Counted values (left <= x <= right, or NaN) also have
/// 0 <= x - left <= width in float32, so their quotient q is NaN or in
/// [0, bins]: truncating, then clamping to [0, bins - 1] gives histcBin, the
/// conversion's 0x80000000 for NaN becoming bin 0 (truncateToInt64 gives
/// INT64_MIN).
QUANTA_AVX2 static __m256i histcBins8(__m256 x, const HistcBins &edges) {
  const __m256 left = _mm256_set1_ps(edges.left);
  const __m256 right = _mm256_set1_ps(edges.right);
  const __m256 q =
      _mm256_mul_ps(_mm256_div_ps(_mm256_sub_ps(x, left),
                                  _mm256_set1_ps(edges.right - edges.left)),
                    _mm256_set1_ps(static_cast<float>(edges.bins)));
  __m256i bin =
      _mm256_min_epi32(_mm256_cvttps_epi32(q),
                       _mm256_set1_epi32(static_cast<int32_t>(edges.bins - 1)));
  bin = _mm256_max_epi32(bin, _mm256_setzero_si256());
  // Skips values outside the edges, but not NaN.
  const __m256 skip = _mm256_or_ps(_mm256_cmp_ps(x, left, _CMP_LT_OQ),
                                   _mm256_cmp_ps(x, right, _CMP_GT_OQ));
  return _mm256_or_si256(bin, _mm256_castps_si256(skip));
}

/// Stores the slots of the 8 floats at `data` (their bins, offset into the
/// partial histograms) at `slots`, folding them into `minMax` and `nan`
/// when kFold.
template <bool kFold>
QUANTA_AVX2 static inline void
storeSlots(const float *data, const HistcBins &edges, __m256i copyOffset,
           int32_t *slots, MinMax8 &minMax, __m256 &nan) {
  const __m256 x = _mm256_loadu_ps(data);
  if constexpr (kFold) {
    minMax.fold(x);
    nan = orNaN(nan, x, x);
  }
  _mm256_store_si256(reinterpret_cast<__m256i *>(slots),
                     _mm256_add_epi32(histcBins8(x, edges), copyOffset));
}

/// Counts the histc bins of `vectors` whole vectors in the partial
/// histograms at `binZero` (see countHistcBinsAvx2).
///
/// Scattered increments (one load-add-store each, about one per cycle here)
/// bound the loop. It is software-pipelined: the slots of vector v go to a
/// ring while the increments of vector v - kDistance are made, so that each
/// slot is read long after its store and the vector work of later elements
/// overlaps the increments of earlier ones.
template <bool kFold>
QUANTA_AVX2 static void countVectors(const float *data, size_t vectors,
                                     const HistcBins &edges, __m256i copyOffset,
                                     uint32_t *binZero, MinMax8 &minMax,
                                     __m256 &nan) {
  constexpr size_t kDistance = 8, kRing = 2 * kDistance;
  alignas(32) int32_t ring[kRing * kVector];
  auto slotsOf = [&](size_t v) { return ring + v % kRing * kVector; };
  const size_t lead = std::min(kDistance, vectors);
  for (size_t v = 0; v < lead; ++v)
    storeSlots<kFold>(data + v * kVector, edges, copyOffset, slotsOf(v), minMax,
                      nan);
  // The scattered increments keep too few loads in flight for the
  // hardware prefetcher to hide DRAM: fetch a cache line 64 vectors (2 KiB)
  // ahead (measured on 16M floats from DRAM: 0.60 -> 0.39 ns per element;
  // no change from the last-level cache).
  constexpr size_t kPrefetch = 64;
  for (size_t v = lead; v < vectors; ++v) {
    if (v % 2 == 0 && v + kPrefetch < vectors)
      _mm_prefetch(
          reinterpret_cast<const char *>(data + (v + kPrefetch) * kVector),
          _MM_HINT_T0);
    storeSlots<kFold>(data + v * kVector, edges, copyOffset, slotsOf(v), minMax,
                      nan);
    const int32_t *slots = slotsOf(v - kDistance);
    for (size_t lane = 0; lane < kVector; ++lane)
      ++binZero[slots[lane]];
  }
  for (size_t v = vectors - lead; v < vectors; ++v) {
    const int32_t *slots = slotsOf(v);
    for (size_t lane = 0; lane < kVector; ++lane)
      ++binZero[slots[lane]];
  }
}

QUANTA_AVX2 static void countHistcBinsAvx2(const float *data, size_t size,
                                           const HistcBins &edges,
                                           uint64_t *counts,
                                           LaneMinMax *extrema) {
  const int64_t bins = edges.bins;
  // bins as a float must be exact and a bin must fit in int32.
  if (bins > (int64_t(1) << 24))
    return countHistcBinsPortable(data, size, edges, counts, extrema);
  // Each lane counts into one of kCopies partial histograms, so that equal
  // bins in neighbouring elements rarely chain through memory. A copy
  // starts with a slot for the skipped values (bin -1). The counts are
  // exact integers; the caller applies PyTorch's float32 saturation.
  constexpr int32_t kCopies = 4;
  const bool useCopies = bins <= 16384 && size >= 64 * size_t(bins);
  const auto stride = static_cast<int32_t>(bins + 1);
  const int32_t s = useCopies ? stride : 0;
  std::vector<uint32_t> partial((useCopies ? kCopies : 1) * stride);
  uint32_t *const binZero = partial.data() + 1;
  const __m256i copyOffset =
      _mm256_setr_epi32(0, s, 2 * s, 3 * s, 0, s, 2 * s, 3 * s);
  // One chain: lane j folds the elements j mod 8 in order, as
  // foldMinMaxLanes does.
  MinMax8 minMax;
  __m256 nan = _mm256_setzero_ps();
  if (extrema) {
    minMax.min = _mm256_loadu_ps(extrema->min);
    minMax.max = _mm256_loadu_ps(extrema->max);
  }
  // Flushes the partial counts before any could reach 2^32.
  constexpr size_t kFlushElements = size_t(1) << 30;
  const size_t vectorFloats = size - size % kVector;
  for (size_t begin = 0; begin < vectorFloats; begin += kFlushElements) {
    const size_t vectors =
        (std::min(vectorFloats, begin + kFlushElements) - begin) / kVector;
    if (extrema)
      countVectors<true>(data + begin, vectors, edges, copyOffset, binZero,
                         minMax, nan);
    else
      countVectors<false>(data + begin, vectors, edges, copyOffset, binZero,
                          minMax, nan);
    for (size_t copy = 0; copy * stride < partial.size(); ++copy)
      for (int64_t b = 0; b < bins; ++b)
        counts[b] += binZero[copy * stride + b];
    std::fill(partial.begin(), partial.end(), 0u);
  }
  if (extrema) {
    _mm256_storeu_ps(extrema->min, minMax.min);
    _mm256_storeu_ps(extrema->max, minMax.max);
    extrema->sawNaN |= anyLane(nan);
  }
  // The last size % 8 elements (and their lanes 0, 1, ...).
  countHistcBinsPortable(data + vectorFloats, size - vectorFloats, edges,
                         counts, extrema);
}

#endif // QUANTA_AVX2_KERNELS

//===----------------------------------------------------------------------===//
// Dispatch
//===----------------------------------------------------------------------===//

namespace {
/// One implementation of every kernel.
struct KernelSet {
  decltype(&foldMinMaxLanesPortable) foldMinMaxLanes;
  decltype(&foldMinMaxRunsPortable) foldMinMaxRuns;
  decltype(&foldMinMaxColumnsPortable) foldMinMaxColumns;
  decltype(&countHistcBinsPortable) countHistcBins;
};
} // namespace

static constexpr KernelSet kPortable = {
    foldMinMaxLanesPortable, foldMinMaxRunsPortable, foldMinMaxColumnsPortable,
    countHistcBinsPortable};
#ifdef QUANTA_AVX2_KERNELS
static constexpr KernelSet kAvx2 = {foldMinMaxLanesAvx2, foldMinMaxRunsAvx2,
                                    foldMinMaxColumnsAvx2, countHistcBinsAvx2};
#endif

/// The one dispatch point: the AVX2 set if the CPU has AVX2.
static const KernelSet &kernels() {
  static const KernelSet &selected = []() -> const KernelSet & {
#ifdef QUANTA_AVX2_KERNELS
    if (__builtin_cpu_supports("avx2"))
      return kAvx2;
#endif
    return kPortable;
  }();
  return selected;
}

void foldMinMaxLanes(const float *data, size_t size, LaneMinMax &lanes) {
  kernels().foldMinMaxLanes(data, size, lanes);
}

void foldMinMaxRuns(const float *data, size_t runs, size_t length,
                    size_t channels, float *min, float *max, bool &sawNaN) {
  kernels().foldMinMaxRuns(data, runs, length, channels, min, max, sawNaN);
}

void foldMinMaxColumns(const float *data, size_t rows, size_t width, float *min,
                       float *max, bool &sawNaN) {
  kernels().foldMinMaxColumns(data, rows, width, min, max, sawNaN);
}

void countHistcBins(const float *data, size_t size, const HistcBins &edges,
                    uint64_t *counts, LaneMinMax *extrema) {
  kernels().countHistcBins(data, size, edges, counts, extrema);
}

} // namespace mlir::quanta::numerics::detail

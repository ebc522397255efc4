//===- TiledGemm.h - Register-tiled GEMM loops shared by the kernels ------===//
//
// The one GEMM design of Quanta's kernels, integer and float, x86 and
// AArch64: B (the weights) is packed at compile time into strips of L
// output columns (L = 32-bit lanes of a vector), [N / L][K / g][L][g] with
// g consecutive k values per lane (the k groups of `stripInterleave`
// strips interleaved); a tile of MR rows x NV strips keeps its accumulators
// in registers across the k loop, which gives each row's g input values to
// the dot step (broadcast to every lane, or a lane of a longer load taken
// by a by-element instruction) and issues one dot step per accumulator; an
// epilogue per accumulator vector produces the L outputs it writes: no
// second pass over memory. Column tiles are outside row tiles, so a K x L
// * NV panel of B stays in cache while every row block streams past it.
//
// A kernel (LowerQMatmul.cpp, LowerFloatMatmul.cpp) supplies the packed
// weights, the tile shapes (GemmTiling) and the steps that differ per
// target: the accumulators' start, the inputs of a k group, the dot step,
// the accumulators' layout (a dot step may cover two rows) and the
// epilogue.
//
// K may be made of `segments` equal runs (the taps of a convolution's
// implicit im2col matrix, each a run of C channels), each padded to whole
// k groups. The kernel locates each row's input once per tile (rowBase,
// or a table of RowClasses) and each k group relative to it
// (groupInput; for a convolution, an offset table indexed by the
// group): one k loop over all groups, as long as a GEMM's, instead of a
// short loop per tap (measured on AVX2: a 3x3 convolution at 202 GOPS with
// a loop per tap, the GEMM of the same shape at 221). Rows that skip taps
// (a padded convolution's border pixels) loop over the few runs of
// consecutive groups they read. Where those classes are too small for
// whole tiles and B too large for L1 (a 7x7 image), the tiles loop over
// one tap at a time instead, keeping partial sums in memory (tapBlocking).
//
// With threads, all of a GEMM's tiles sit in one loop over the threads'
// chunks, each a run of column groups or of every class's whole row tiles
// (chooseChunks): one parallel region per GEMM.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_CONVERSION_QUANTATOVECTOR_TILEDGEMM_H
#define QUANTA_LIB_CONVERSION_QUANTATOVECTOR_TILEDGEMM_H

#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/PatternMatch.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/SmallVector.h"

namespace mlir::quanta {

/// The rows of a GEMM in classes that each read their own subset of the k
/// groups, in order: a convolution's output pixels by the taps of theirs
/// that fall inside the image (ImageWindow::classifyRows).
struct RowClasses {
  /// Every row once, class after class, and where its input starts (what
  /// the kernel's rowBase would compute, looked up instead: a tile's rows
  /// are not consecutive).
  SmallVector<int64_t> rows, rowBases;
  /// Class c is rows[rowStarts[c] .. rowStarts[c + 1]).
  SmallVector<int64_t> rowStarts;
  /// Class c reads the runs of consecutive k groups
  /// [runBegins[j], runEnds[j]) for j in [runStarts[c], runStarts[c + 1]):
  /// few and long (a loop over each, as a GEMM's; a table lookup per k
  /// group cost a 3x3 convolution 9%).
  SmallVector<int64_t> runBegins, runEnds;
  SmallVector<int64_t> runStarts;
  /// Empty, or per class the paddedN values its accumulators start from in
  /// addition to the kernel's (the k groups it skips, for an integer
  /// kernel; see LowerQMatmul.cpp).
  SmallVector<int32_t> startOffsets;

  int64_t size() const { return rowStarts.size() - 1; }
};

/// A convolution's implicit im2col matrix over an NHWC image flattened to
/// 1-D, `channels` values per pixel (C padded to whole k groups): row
/// (b, oh, ow) starts at pixel (b, oh * SH - padTop, ow * SW - padLeft),
/// and k group g of tap (kh, kw) lies (kh * DH * W + kw * DW) pixels plus
/// its channels further: the same offset for every row, hence one table.
/// With padding, the image is the unpadded one, and a row reads only the
/// taps that fall inside it (classifyRows).
struct ImageWindow {
  int64_t height, width, channels;
  int64_t kernelH, kernelW, strideH, strideW, dilationH, dilationW;
  /// The output rows and columns computed (no more than the window fits
  /// on the padded image).
  int64_t outputHeight, outputWidth;
  /// Padding around the image, not stored: its taps are skipped.
  int64_t padTop = 0, padLeft = 0;

  /// The flat position of `row`'s first value (negative, or past a line,
  /// for a row whose window starts in the padding), as a map of the row.
  AffineMap rowStartMap(MLIRContext *context) const;
  Value rowStart(OpBuilder &b, Location loc, Value row) const;
  /// Every k group's offset from its row's start, `group` values per group
  /// and `groupsPerTap` per tap, as a constant index tensor.
  Value groupOffsets(OpBuilder &b, Location loc, int64_t groupsPerTap,
                     int64_t group) const;
  /// The output pixels of `batch` images by the rectangle of taps of
  /// theirs inside the image, each class with those taps' k groups
  /// (`groupsPerTap` per tap, taps in order kh * KW + kw); `skippedTaps`
  /// receives each class's taps outside the image.
  RowClasses
  classifyRows(MLIRContext *context, int64_t batch, int64_t groupsPerTap,
               SmallVectorImpl<SmallVector<int64_t>> &skippedTaps) const;
};

/// The tile shapes of a kernel.
struct GemmTiling {
  /// 32-bit lanes per vector: output columns per strip.
  int64_t lanes;
  /// k values per lane and dot step.
  int64_t group;
  /// Rows x strips of the main tile.
  int64_t rows, strips;
  /// Strips of the tile of half the main tile's rows, for rows left over.
  int64_t halfStrips;
  /// Strips of the one-row tile for the rows left over, and its k split
  /// (independent accumulator sets, summed in the epilogue; 1 keeps the
  /// order of the k sum).
  int64_t rowStrips, rowSplit;
  /// A second main tile (0 rows: none), taken instead of the first where
  /// it leaves less work to the smaller tiles (TiledGemm::chooseMainTile).
  int64_t otherRows = 0, otherStrips = 0;
  /// Rows of the input one dot step reads: 2 for AArch64's smmla, whose
  /// accumulators hold 2 rows x 2 columns. Every tile has a multiple of it
  /// (the one-row tile becomes one of rowsPerDot rows).
  int64_t rowsPerDot = 1;
  /// k groups whose inputs one load of a row gives (loadInputs): 4 for
  /// NEON's by-element sdot and fmla, which take one 32-bit lane of a
  /// 16-byte load each, so that the vector pipes do no broadcasts.
  int64_t groupsPerLoad = 1;
  /// Strips whose weights are packed k group by k group together, so that
  /// a tile reads those of one group from consecutive addresses: 2 on
  /// AArch64, whose ldp loads two q registers in 3 uops where two ldr take
  /// 4 (a Neoverse N1 sdot loop dispatches 3 uops a cycle). Every tile's
  /// strips are a multiple of it.
  int64_t stripInterleave = 1;
};

class TiledGemm {
public:
  virtual ~TiledGemm() = default;

protected:
  TiledGemm(Operation *op, const GemmTiling &tiling, int64_t m, int64_t k,
            int64_t n, int64_t segments = 1);

  /// The accumulator of output (row, column .. column + L) before the k
  /// loop, `output` being the output tensor with the tiles before this one
  /// written; `inBounds` is false when the strip may reach past N.
  virtual Value initialAccumulator(Value output, Value row, Value column,
                                   bool inBounds) = 0;
  /// Where `row`'s input starts, for groupInput; the row itself by
  /// default.
  virtual Value rowBase(Value row) { return row; }
  /// The dot step's lhs for k group `kGroup` of the row at `base`
  /// (rowBase): its g input values broadcast to every lane, or the row's
  /// (or row pair's) values as the step reads them.
  virtual Value groupInput(Value base, Value kGroup) = 0;
  /// With groupsPerLoad > 1: the inputs of the groupsPerLoad consecutive k
  /// groups from `kGroup` of the row at `base`, in one load...
  virtual Value loadInputs(Value base, Value kGroup);
  /// ... and the dot step's lhs for the `index`-th of them.
  virtual Value inputOfGroup(Value inputs, int64_t index);
  /// acc plus the g products per lane of lhs and rhs.
  virtual Value dot(Value acc, Value lhs, Value rhs) = 0;
  /// The dot step's rhs: the weights of output columns `column` .. + L at
  /// k group `kGroup`, packed at `offset` (a packedVector read by default).
  virtual Value loadWeights(Value offset, Value column, Value kGroup);
  /// The accumulator of a dot row from its rows' L values (each the
  /// accumulatorType's element type), and back: the identity for one row
  /// per dot step, else the dot step's own layout (2 x 2 blocks for
  /// smmla). The sum of two accumulators is their rows' sums.
  virtual Value toAccumulator(ArrayRef<Value> rows);
  virtual SmallVector<Value> fromAccumulator(Value acc);
  /// k groups per scale block: 0 (the default) for one sum over K; else
  /// the k loop runs block by block, each block's products summed from
  /// zero and added to the accumulator by scaleBlock (weights quantized in
  /// groups along k, each group's scale applied once to its partial sum).
  /// GEMMs without row classes only, one accumulator set (rowSplit 1).
  virtual int64_t groupsPerScaleBlock() const { return 0; }
  /// The value the block starting at k group `firstGroup` of the row at
  /// `base` (rowBase) sums its products for output columns `column` .. + L
  /// from: zero (an accumulatorType) by default.
  virtual Value blockStart(Value base, Value firstGroup, Value column);
  /// The accumulator after that block, whose products for output columns
  /// `column` .. + L sum to `partial`.
  virtual Value scaleBlock(Value acc, Value partial, Value base,
                           Value firstGroup, Value column);
  /// The L outputs at (row, column) from the final accumulator, in the
  /// output's type; with pairedStrips, in the type narrowPairs reads.
  virtual Value finish(Value acc, Value row, Value column) = 0;
  /// With pairedStrips: the 4L outputs of two pairs of strips (finish's
  /// values of strips s, s + 1 of one pair, then of the other), the first
  /// pair's 2L columns first, each pair's in column order.
  virtual Value narrowPairs(ArrayRef<Value> outputs);

  /// Emits the loops over every tile, writing into `output`; the column
  /// loops carry a `quanta.dot_step` attribute naming `step`. With
  /// `rowClasses`, one class after another, each tile of a class's rows
  /// reading that class's k groups.
  Value emitTiles(Value output, StringRef step);

  /// `values` (row-major K x N) packed into strips, each segment and N
  /// zero-padded (to paddedK x paddedN), as a flat constant of `element`.
  template <typename T> Value packWeights(ArrayRef<T> values, Type element) {
    SmallVector<T> packedValues = packValues(values);
    auto type = RankedTensorType::get(
        {static_cast<int64_t>(packedValues.size())}, element);
    return createConstant(
        DenseElementsAttr::get(type, ArrayRef<T>(packedValues)));
  }
  /// The values packWeights makes its constant of.
  template <typename T> SmallVector<T> packValues(ArrayRef<T> values) {
    const int64_t groups = paddedK / tiling.group;
    const int64_t segmentK = k / segments,
                  paddedSegmentK = segmentGroups * tiling.group;
    SmallVector<T> packedValues(paddedN * paddedK, T(0));
    SmallVector<int64_t> columns(tiling.lanes);
    for (int64_t strip = 0; strip < paddedN / tiling.lanes; ++strip) {
      for (int64_t lane = 0; lane < tiling.lanes; ++lane)
        columns[lane] = columnAt(strip * tiling.lanes + lane);
      for (int64_t g = 0; g < groups; ++g) {
        // A k group lies in one segment (a whole number of groups long);
        // its rows past the segment's K are padding.
        const int64_t segment = g * tiling.group / paddedSegmentK,
                      first = g * tiling.group % paddedSegmentK,
                      rows = std::min(tiling.group, segmentK - first);
        if (rows <= 0)
          continue;
        T *packedGroup = packedValues.data() + packedOffset(strip, g);
        for (int64_t lane = 0; lane < tiling.lanes; ++lane) {
          if (columns[lane] >= n)
            continue;
          const T *source =
              values.data() + (segment * segmentK + first) * n + columns[lane];
          for (int64_t j = 0; j < rows; ++j)
            packedGroup[lane * tiling.group + j] = source[j * n];
        }
      }
    }
    return packedValues;
  }

  /// The [batch..] x K x N tensor `weights`, computed at run time (the
  /// second operand of an activation product), packed as packWeights packs
  /// constants, by a linalg.generic over the packed layout: [batch..] x
  /// the packed size, of `element` (by default the weights'), each value
  /// through `convert` if given. One segment.
  Value packAtRunTime(
      Value weights, Type element = {},
      function_ref<Value(OpBuilder &, Location, Value)> convert = nullptr);

  /// The output column that packed column `position` (strip * L + lane)
  /// computes: itself, or with laneInterleavedPairs, the order of the x86
  /// packs.
  int64_t columnAt(int64_t position) const;
  /// Where the L x g weights of `strip`, k group `kGroup` start in the
  /// packed weights: strip after strip, or with stripInterleave I, the k
  /// groups of I strips interleaved.
  int64_t packedOffset(int64_t strip, int64_t kGroup) const {
    const int64_t interleave = tiling.stripInterleave,
                  groups = paddedK / tiling.group;
    return ((strip / interleave * groups + kGroup) * interleave +
            strip % interleave) *
           tiling.lanes * tiling.group;
  }

  Value index(int64_t value);
  Value createConstant(TypedAttr value);

  OpBuilder b;
  Location loc;
  GemmTiling tiling;
  int64_t m, k, n;
  /// Runs of K (see above) and the k groups of one padded run.
  int64_t segments, segmentGroups;
  /// The threads the kernel runs on (the module's quanta.threads).
  int64_t threads;
  int64_t paddedK, paddedN;
  /// The packed weights and the vector type a dot step reads from them.
  Value packed;
  VectorType packedVector;
  /// The accumulators' type (what toAccumulator makes).
  VectorType accumulatorType;
  /// Set by a kernel whose rows read different k groups.
  std::optional<RowClasses> rowClasses;
  /// Set by a kernel (before packing) whose epilogue narrows the outputs of
  /// two pairs of strips at once (narrowPairs), as x86's saturating packs
  /// do: one vpackuswb of two vpackssdw per 4 accumulators instead of a
  /// clamp and a two-uop vpmovusdb each (measured: a 3136 x 256 x 64 VNNI
  /// GEMM, whose K leaves the epilogue a third of the work, from 483 to 511
  /// GOPS). AArch64's saturating narrows (sqxtn, sqxtn2, sqxtun) do the
  /// same for the smmla kernel, whose tiles pair their strips.
  bool pairedStrips = false;
  /// With pairedStrips: the narrowing works within 128-bit lanes (x86's
  /// packs), so each pair's columns are packed in the order they
  /// interleave in (columnAt).
  bool laneInterleavedPairs = false;

private:
  /// The class being emitted: its index and its range of the run tables.
  struct ClassTables {
    Value rows, rowBases, runBegins, runEnds, startOffsets;
    Value index, runBegin, runEnd;
  };

  Value tile(Value output, Value position0, Value strip0, int64_t rows,
             int64_t strips, int64_t split, Value lastPosition,
             const ClassTables *classes);
  SmallVector<Value> groupLoops(ValueRange bases, Value strip0, ValueRange init,
                                int64_t dotRows, int64_t strips, int64_t split,
                                const ClassTables *classes);
  Value rowLoops(Value output, Value rowBegin, Value rowEnd, int64_t rows,
                 int64_t strips, int64_t split, StringRef step,
                 Value lastPosition, const ClassTables *classes);
  Value rowTiles(Value output, Value begin, Value wholeEnd, Value halfEnd,
                 Value singleStart, Value end, Value lastPosition,
                 StringRef step, const ClassTables *classes);
  Value emitClassTiles(Value output, StringRef step, const RowClasses &classes);
  void chooseMainTile();
  /// Strips of the widest tile shape, a multiple of every other's.
  int64_t widestStrips() const;
  /// Sets chunks and shareColumns (see TiledGemm.cpp).
  void chooseChunks(bool tapBlocked);
  /// `body` once, or with chunks > 1 in the loop over the chunks (the
  /// threads' parallel loop), `chunk` its induction variable; `init` is what
  /// the loop carries (the output, the partial sums).
  SmallVector<Value>
  forEachChunk(ValueRange init,
               function_ref<SmallVector<Value>(ValueRange)> body);
  /// The rows RowSplit's tiles cover, from `begin`: the whole tiles to
  /// wholeEnd, a half tile to halfEnd, one-row tiles from singleStart to end.
  struct ChunkRows {
    int64_t begin, wholeEnd, halfEnd, singleStart, end;
  };
  /// The rows [begin, begin + count) as each chunk tiles them: all of them,
  /// or where chunks share rows, its run of whole tiles.
  SmallVector<ChunkRows> chunkRows(int64_t begin, int64_t count) const;
  /// An index constant of `values`.
  Value indexTable(ArrayRef<int64_t> values);
  /// The current chunk's value of `perChunk` (a constant if they are
  /// equal).
  Value chunkValue(ArrayRef<int64_t> perChunk);
  RowClasses tapClasses() const;
  std::optional<RowClasses> tapBlocking() const;

  /// What the tiles being emitted do: all of a GEMM's work, or one of the
  /// three phases of blocking by tap (emitTiles), which keep every row's
  /// accumulators in `partialSums` between them.
  enum class Phase { Whole, Start, Accumulate, Finish };
  Phase phase = Phase::Whole;
  Value partialSums;
  /// The threads' shares of the GEMM (chooseChunks): their count, whether
  /// they split the columns (else the rows), and while the tiles are
  /// emitted, the current one (null with one chunk).
  int64_t chunks = 1;
  bool shareColumns = false;
  Value chunk;
  /// The bytes of B a column group's tiles keep in L1 (x86 cores have
  /// 32 to 48 KB of L1 data cache).
  static constexpr int64_t kTapBlockingBytes = 32 * 1024;
};

/// Registers of `bits` for the function around `kernel` (see TiledGemm.cpp).
void requireVectorWidth(Operation *kernel, int64_t bits);
/// Vectors of `bits` for the loops LLVM vectorizes in `func` (see
/// TiledGemm.cpp).
void preferVectorWidth(FunctionOpInterface func, int64_t bits);

class QMatmulOp;
class QBatchMatmulOp;
class DynamicQMatmulOp;
class WeightOnlyMatmulOp;
class TargetDescription;
} // namespace mlir::quanta

namespace mlir::linalg {
class TransposeOp;
} // namespace mlir::linalg

namespace mlir::tensor {
class PadOp;
} // namespace mlir::tensor

namespace mlir::quanta {

// Each of these builds its kernel before the op with a builder of its own
// and then replaces the op through `rewriter` (so the op's replacement and
// erasure reach a pattern driver; the kernel's ops are not reported).

/// Replaces `op` by its tiled kernel for `target` (the best dot step it
/// has; plain vector arithmetic on other architectures), or a depthwise
/// one by the kernel of LowerQDepthwise.cpp. `pass` names the pass in
/// diagnostics.
LogicalResult lowerQMatmul(RewriterBase &rewriter, QMatmulOp op,
                           const TargetDescription &target, StringRef pass);

/// Replaces `op` by the tiled kernel of `target`'s best dot step, one batch
/// after another (the threads' loop), each batch's rhs packed and its
/// column offsets computed at run time before the loop.
LogicalResult lowerQBatchMatmul(RewriterBase &rewriter, QBatchMatmulOp op,
                                const TargetDescription &target);

/// Replaces `op` (PyTorch's dynamic Linear) by its prologue (the input's
/// min, max and qparams, its quantization) and the tiled kernel of
/// `target`'s best dot step with a float epilogue.
LogicalResult lowerDynamicQMatmul(RewriterBase &rewriter, DynamicQMatmulOp op,
                                  const TargetDescription &target,
                                  StringRef pass);

/// Replaces `op` by the f32 tiled kernel of `target` reading its narrow
/// weights (f16 or i8) and widening them in registers.
LogicalResult lowerWeightOnlyMatmul(RewriterBase &rewriter,
                                    WeightOnlyMatmulOp op,
                                    const TargetDescription &target);

/// Replaces the depthwise `op`, whose weights are `weights`, by the
/// depthwise kernel for `target`.
LogicalResult lowerQDepthwise(RewriterBase &rewriter, QMatmulOp op,
                              const TargetDescription &target,
                              ArrayRef<int8_t> weights);

/// The tensor.pad of constant value that makes `op`'s image (through its
/// storage cast), padding height and width only, which a kernel can read
/// inside instead of the padded copy; null otherwise.
tensor::PadOp getSkippablePad(QMatmulOp op);

/// Replaces an f32 linalg.matmul or linalg.batch_matmul with constant
/// weights that is one GEMM (getMatmulWeightLayout), or an f32 2-D NHWC
/// convolution with a constant filter, by its tiled FMA kernel
/// for `target`; returns failure without changing anything when `op` is
/// neither.
LogicalResult lowerFloatGemm(RewriterBase &rewriter, Operation *op,
                             const TargetDescription &target);

/// Whether `op` is a window reduction lowerWindowReduction takes: on
/// static tensors, its parallel loops first, then a few reduction
/// iterations (a depthwise convolution's or a pool's taps), the innermost
/// parallel dimension last in its output and in every input its body reads
/// (LowerWindows.cpp).
bool isWindowReduction(Operation *op);

/// Replaces a window reduction by one loop nest over its outputs, the taps
/// unrolled in the body (the same values, in the same order, as the op's
/// loops), applying a float result's elementwise consumers there too;
/// returns failure without changing anything when `op` is not one.
LogicalResult lowerWindowReduction(RewriterBase &rewriter, Operation *op);

/// f32 NCHW convolutions (constant filters), depthwise convolutions and
/// pools of transposed images as their NHWC forms between two transposes
/// (NhwcImages.cpp).
void populateNhwcImagePatterns(RewritePatternSet &patterns);

/// Those rewrites and the propagate-layout ones on `module`, so that the
/// float kernels of an NCHW graph run NHWC from its inputs to its outputs.
void convertImagesToNhwc(ModuleOp module);

/// Replaces a linalg.transpose between NCHW and NHWC (permutation
/// [0, 2, 3, 1] or [0, 3, 1, 2]) of a static tensor by 16x16 vector tiles
/// (LowerTranspose.cpp); returns failure without changing anything
/// otherwise.
LogicalResult lowerImageTranspose(RewriterBase &rewriter,
                                  linalg::TransposeOp op);

} // namespace mlir::quanta

#endif // QUANTA_LIB_CONVERSION_QUANTATOVECTOR_TILEDGEMM_H

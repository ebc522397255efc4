//===- LowerFloatMatmul.cpp - f32 matmuls and convolutions to FMA tiles ---===//
//
// The float kernel of the tiled GEMM design (TiledGemm.h), for the layers a
// model keeps in float and as the anchor that int8 code is measured
// against: f32 weights packed one k value per lane (g = 1), the
// accumulators starting from the op's init tensor, and one fused
// multiply-add per k, in k order. Each output is therefore the same
// sequential sum as the linalg op's, each step rounded once (FMA) instead
// of twice: the contraction every production float GEMM makes. The one-row
// tile keeps one accumulator set (rowSplit 1) so that the order holds there
// too.
//
// A 2-D convolution is the GEMM of its implicit im2col matrix, as for
// quanta.qmatmul: rows (n, oh, ow), k in the (kh, kw, c) order of the NHWC
// convolutions' own reduction loops, read in place through an ImageWindow.
// NCHW convolutions reach it as NHWC ones between transposes (NhwcImages.cpp;
// their own loops reduce in (c, kh, kw) order, so there the sum's order
// differs from the op's).
//
//===----------------------------------------------------------------------===//

#include "ElementwiseEpilogue.h"
#include "IntegerDot.h"
#include "TiledGemm.h"
#include "VectorRequantize.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Support/MatmulLayout.h"
#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// What the float kernel computes: an M x K input (a matrix, or the im2col
/// matrix of `image` over the flattened NHWC `input`) times K x N weights
/// (row-major, or `packedWeights`, packed at run time by packAtRunTime)
/// plus the M x N init tensor.
struct FloatGemm {
  Value input, init;
  SmallVector<float> weights;
  int64_t m, k, n;
  std::optional<ImageWindow> image;
  Value packedWeights = {};
  /// quanta.weight_only_matmul: the weights stored narrow instead, K x N
  /// row-major (`weights` empty): f16 bit patterns, or i8 values...
  Type narrowElement = {};
  SmallVector<int16_t> narrowWeights = {};
  /// ... and per output column, applied to the sum (i8 weights).
  SmallVector<float> columnScales = {}, columnBias = {};
  /// i4 weights: the scale of each run of `groupSize` k values of each
  /// column, (K / groupSize) x N.
  SmallVector<float> groupScales = {};
  int64_t groupSize = 0;
  /// Asymmetric i4 weights: a zero point per scale, in the weights' -8..7
  /// (empty for symmetric ones), and with f32 activations `groupSums`,
  /// each row's group sums (f32, M x K / groupSize), which the zero points'
  /// share of a block's sum is taken from.
  SmallVector<int8_t> groupZeroPoints = {};
  Value groupSums = {};
  /// i4 weights: the group scales stored as f16 (each one an f16 value).
  bool f16Scales = false;
  /// i4 weights: converted by a 16-entry table lookup (AVX-512's vpermps
  /// takes the low 4 bits of each index lane) instead of shifts with sign
  /// and conversions.
  bool nibbleLookup = false;
  /// bf16 weights and `input` rounded to bf16 (M x K padded to even),
  /// pairs of k values summed by AVX512-BF16's vdpbf16ps.
  bool bf16Dot = false;
  /// i4 weights with int8_activations: `input` holds the M x K s8 values,
  /// `activationScales` (f32) and `activationSums` (the sum of the group's
  /// values, i32) one per row and group (M x K / groupSize), the products
  /// summed by this integer step.
  std::optional<DotStep> int8Dot = std::nullopt;
  Value activationScales = {}, activationSums = {};
  /// The elementwise ops after the product applied to its outputs in
  /// registers (bias add, activation, residual add).
  ElementwiseEpilogue epilogue = {};
};

class FloatGemmLowering : public TiledGemm {
public:
  FloatGemmLowering(Operation *op, const GemmTiling &tiling,
                    const FloatGemm &gemm, StringRef stepName)
      : TiledGemm(op, tiling, gemm.m, gemm.k, gemm.n,
                  gemm.image ? gemm.image->kernelH * gemm.image->kernelW : 1),
        gemm(gemm), stepName(stepName) {}

  using TiledGemm::packAtRunTime;
  /// Where build() creates the kernel from here on.
  void setInsertionPoint(Operation *op) { b.setInsertionPoint(op); }

  Value build() {
    Type f32 = b.getF32Type();
    accumulatorType = VectorType::get({tiling.lanes}, f32);
    packedVector = accumulatorType;
    if (isInt4()) {
      packed = gemm.int8Dot ? packNibbleQuads() : packNibbles();
      SmallVector<float> scales(gemm.k / gemm.groupSize * paddedN, 0.0f);
      for (int64_t g = 0; g < gemm.k / gemm.groupSize; ++g)
        llvm::copy(ArrayRef(gemm.groupScales).slice(g * gemm.n, gemm.n),
                   scales.begin() + g * paddedN);
      auto scalesType =
          RankedTensorType::get({static_cast<int64_t>(scales.size())},
                                gemm.f16Scales ? Type(b.getF16Type()) : f32);
      if (gemm.f16Scales) {
        SmallVector<APFloat> halves;
        for (float scale : scales) {
          APFloat half(scale);
          bool lost = false;
          half.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven,
                       &lost);
          halves.push_back(half);
        }
        groupScales =
            createConstant(DenseElementsAttr::get(scalesType, halves));
      } else {
        groupScales = createConstant(
            DenseElementsAttr::get(scalesType, ArrayRef(scales)));
      }
      if (!gemm.groupZeroPoints.empty())
        negatedZeroPoints = negatedZeroPointTable();
    } else if (gemm.narrowElement) {
      packedVector =
          VectorType::get({tiling.lanes * tiling.group}, storageElement());
      packed = storageElement().isInteger(16)
                   ? packWeights(ArrayRef<int16_t>(gemm.narrowWeights),
                                 storageElement())
                   : packWeights(ArrayRef<int8_t>(SmallVector<int8_t>(
                                     gemm.narrowWeights.begin(),
                                     gemm.narrowWeights.end())),
                                 storageElement());
      if (!gemm.columnScales.empty())
        columnScales = columnTable(gemm.columnScales);
      if (!gemm.columnBias.empty())
        columnBias = columnTable(gemm.columnBias);
    } else {
      packed = gemm.packedWeights
                   ? gemm.packedWeights
                   : packWeights(ArrayRef<float>(gemm.weights), f32);
    }
    if (gemm.image)
      groupOffsets = gemm.image->groupOffsets(b, loc, segmentGroups, 1);
    epilogueMatrices = gemm.epilogue.elementMatrices(b, loc);
    return emitTiles(gemm.init, stepName);
  }

private:
  /// The init tensor's values, read where the tile is about to write them.
  Value initialAccumulator(Value output, Value row, Value column,
                           bool inBounds) override {
    Value pad = createConstant(b.getF32FloatAttr(0.0f));
    return vector::TransferReadOp::create(b, loc, accumulatorType, output,
                                          ValueRange{row, column}, pad,
                                          ArrayRef<bool>{inBounds});
  }
  Value rowBase(Value row) override {
    return gemm.image ? gemm.image->rowStart(b, loc, row) : row;
  }
  /// Where input k of the row at `base` is.
  SmallVector<Value> inputIndices(Value base, Value kk) {
    if (!gemm.image)
      return {base, kk};
    return {arith::AddIOp::create(
        b, loc, base, tensor::ExtractOp::create(b, loc, groupOffsets, kk))};
  }
  Value groupInput(Value base, Value kk) override {
    if (gemm.bf16Dot) {
      // The row's pair of bf16 inputs as one 32-bit lane, in every lane.
      Value pad = createConstant(b.getFloatAttr(b.getBF16Type(), 0.0));
      Value pair = vector::TransferReadOp::create(
          b, loc, VectorType::get({2}, b.getBF16Type()), gemm.input,
          ValueRange{base, arith::MulIOp::create(b, loc, kk, index(2))}, pad,
          ArrayRef<bool>{true});
      Value word = vector::ExtractOp::create(
          b, loc,
          vector::BitCastOp::create(b, loc,
                                    VectorType::get({1}, b.getI32Type()), pair),
          ArrayRef<int64_t>{0});
      return vector::BitCastOp::create(
          b, loc, VectorType::get({2 * tiling.lanes}, b.getBF16Type()),
          vector::BroadcastOp::create(
              b, loc, VectorType::get({tiling.lanes}, b.getI32Type()), word));
    }
    if (gemm.int8Dot) {
      // The row's 8 s8 values of the group, as two 32-bit words.
      Value pad = createConstant(b.getI8IntegerAttr(0));
      Value bytes = vector::TransferReadOp::create(
          b, loc, VectorType::get({tiling.group}, b.getI8Type()), gemm.input,
          ValueRange{base, arith::MulIOp::create(b, loc, kk, index(8))}, pad,
          ArrayRef<bool>{true});
      return vector::BitCastOp::create(
          b, loc, VectorType::get({2}, b.getI32Type()), bytes);
    }
    if (isInt4()) {
      // The pair of k values a byte of each lane's weights holds.
      Value pad = createConstant(b.getF32FloatAttr(0.0f));
      return vector::TransferReadOp::create(
          b, loc, VectorType::get({2}, b.getF32Type()), gemm.input,
          ValueRange{base, arith::MulIOp::create(b, loc, kk, index(2))}, pad,
          ArrayRef<bool>{true});
    }
    Value value =
        tensor::ExtractOp::create(b, loc, gemm.input, inputIndices(base, kk));
    return vector::BroadcastOp::create(b, loc, accumulatorType, value);
  }
  /// groupsPerLoad inputs in one load, each taken by a by-element fmla
  /// (NEON: fmla v.4s, v.4s, v.s[index]).
  Value loadInputs(Value base, Value kk) override {
    Value pad = createConstant(b.getF32FloatAttr(0.0f));
    return vector::TransferReadOp::create(
        b, loc, VectorType::get({tiling.groupsPerLoad}, b.getF32Type()),
        gemm.input, inputIndices(base, kk), pad, ArrayRef<bool>{true});
  }
  Value inputOfGroup(Value inputs, int64_t index) override {
    return vector::BroadcastOp::create(
        b, loc, accumulatorType,
        vector::ExtractOp::create(b, loc, inputs, ArrayRef<int64_t>{index}));
  }
  /// Narrow weights are widened in registers (vcvtph2ps, vpmovsxbd +
  /// vcvtdq2ps; fcvtl, sxtl + scvtf): exact.
  Value dot(Value acc, Value lhs, Value rhs) override {
    if (gemm.int8Dot) {
      // The low nibbles' 4 k values per lane times the input's first word,
      // the high ones' times its second.
      auto bytesType = VectorType::get({4 * tiling.lanes}, b.getI8Type());
      for (int64_t j = 0; j < 2; ++j) {
        Value word =
            vector::ExtractOp::create(b, loc, lhs, ArrayRef<int64_t>{j});
        Value input = vector::BitCastOp::create(
            b, loc, bytesType,
            vector::BroadcastOp::create(
                b, loc, VectorType::get({tiling.lanes}, b.getI32Type()), word));
        Value nibbles = vector::ExtractStridedSliceOp::create(
            b, loc, rhs, ArrayRef<int64_t>{j * 4 * tiling.lanes},
            ArrayRef<int64_t>{4 * tiling.lanes}, ArrayRef<int64_t>{1});
        acc = emitDotStep(b, loc, *gemm.int8Dot, acc, nibbles, input,
                          /*signedLhs=*/false);
      }
      return acc;
    }
    if (isInt4()) {
      // Two k values: the low nibbles' weights, then the high ones'.
      for (int64_t j = 0; j < 2; ++j) {
        Value input = vector::BroadcastOp::create(
            b, loc, accumulatorType,
            vector::ExtractOp::create(b, loc, lhs, ArrayRef<int64_t>{j}));
        Value weights = vector::ExtractStridedSliceOp::create(
            b, loc, rhs, ArrayRef<int64_t>{j * tiling.lanes},
            ArrayRef<int64_t>{tiling.lanes}, ArrayRef<int64_t>{1});
        acc = vector::FMAOp::create(b, loc, input, weights, acc);
      }
      return acc;
    }
    if (gemm.bf16Dot)
      return callIntrinsic(
          b, loc, "llvm.x86.avx512bf16.dpbf16ps.512", accumulatorType,
          {acc, lhs,
           vector::BitCastOp::create(
               b, loc, VectorType::get({2 * tiling.lanes}, b.getBF16Type()),
               rhs)});
    if (Type narrow = gemm.narrowElement) {
      auto wide = cast<VectorType>(accumulatorType);
      rhs = isa<FloatType>(narrow)
                ? arith::ExtFOp::create(
                      b, loc, wide,
                      vector::BitCastOp::create(
                          b, loc, VectorType::get({tiling.lanes}, narrow), rhs)
                          .getResult())
                      .getResult()
                : arith::SIToFPOp::create(b, loc, wide, rhs).getResult();
    }
    return vector::FMAOp::create(b, loc, lhs, rhs, acc);
  }
  Value finish(Value acc, Value row, Value column) override {
    auto type = cast<VectorType>(accumulatorType);
    if (columnScales)
      acc = arith::MulFOp::create(
          b, loc, acc, readColumns(b, loc, columnScales, column, type));
    if (columnBias)
      acc = arith::AddFOp::create(
          b, loc, acc, readColumns(b, loc, columnBias, column, type));
    if (gemm.epilogue.empty())
      return acc;
    // Columns past N (the last strip's padding) read zeros.
    return gemm.epilogue.applyAt(b, loc, acc, row, column,
                                 createConstant(b.getF32FloatAttr(0.0f)),
                                 epilogueMatrices);
  }
  /// i4 weights, packed in pairs of k values (tiling.group 2): lane j's
  /// byte of each pair holds the first k value's weight in its low nibble
  /// and the second's in its high one, so that one sign-extending load of
  /// L bytes and three shifts give both k values' L weights.
  Value packNibbles() {
    SmallVector<int8_t> values =
        packValues(ArrayRef<int8_t>(SmallVector<int8_t>(
            gemm.narrowWeights.begin(), gemm.narrowWeights.end())));
    SmallVector<int8_t> bytes(values.size() / 2);
    for (size_t at = 0; at < bytes.size(); ++at)
      bytes[at] =
          static_cast<int8_t>((static_cast<uint8_t>(values[2 * at]) & 0xFu) |
                              (static_cast<uint8_t>(values[2 * at + 1]) << 4));
    return createConstant(DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                              b.getI8Type()),
        ArrayRef(bytes)));
  }
  /// i4 weights for the integer steps, packed in runs of 8 k values per
  /// lane (tiling.group 8), each weight stored unsigned (w + 8, 0..15):
  /// byte j of a lane's 4 holds k value j in its low nibble and k value
  /// j + 4 in its high one, so that a mask and a shift give the two 4-byte
  /// runs the u8 x s8 steps read (the + 8 is taken back by the row's
  /// activationOffsets).
  Value packNibbleQuads() {
    SmallVector<int8_t> values =
        packValues(ArrayRef<int8_t>(SmallVector<int8_t>(
            gemm.narrowWeights.begin(), gemm.narrowWeights.end())));
    SmallVector<int8_t> bytes(values.size() / 2);
    for (size_t lane = 0; lane < values.size() / 8; ++lane)
      for (size_t j = 0; j < 4; ++j) {
        const unsigned low = static_cast<unsigned>(values[8 * lane + j] + 8),
                       high =
                           static_cast<unsigned>(values[8 * lane + j + 4] + 8);
        bytes[4 * lane + j] = static_cast<int8_t>(low | (high << 4));
      }
    return createConstant(DenseElementsAttr::get(
        RankedTensorType::get({static_cast<int64_t>(bytes.size())},
                              b.getI8Type()),
        ArrayRef(bytes)));
  }
  /// i4 weights: the L bytes of a pair of k values, sign-extended to i32
  /// lanes (x86 has no byte shifts: LLVM emulates them with several
  /// instructions), each nibble shifted out with its sign and converted:
  /// the first k value's L weights, then the second's.
  Value loadWeights(Value offset, Value column, Value kGroup) override {
    if (!isInt4())
      return TiledGemm::loadWeights(offset, column, kGroup);
    Value pad = createConstant(b.getI8IntegerAttr(0));
    if (gemm.int8Dot) {
      // 4L bytes: the low nibbles (a mask), then the high ones (a shift of
      // 32-bit lanes and the mask: x86 has no byte shifts).
      Value bytes = vector::TransferReadOp::create(
          b, loc, VectorType::get({4 * tiling.lanes}, b.getI8Type()), packed,
          ValueRange{arith::DivUIOp::create(b, loc, offset, index(2))}, pad,
          ArrayRef<bool>{true});
      auto wordsType = VectorType::get({tiling.lanes}, b.getI32Type());
      Value words = vector::BitCastOp::create(b, loc, wordsType, bytes);
      Value mask = splat(b, loc, wordsType, 0x0F0F0F0F);
      Value low = arith::AndIOp::create(b, loc, words, mask);
      Value high = arith::AndIOp::create(
          b, loc,
          arith::ShRUIOp::create(b, loc, words, splat(b, loc, wordsType, 4)),
          mask);
      auto bytesType = cast<VectorType>(bytes.getType());
      return vector::ShuffleOp::create(
          b, loc, vector::BitCastOp::create(b, loc, bytesType, low),
          vector::BitCastOp::create(b, loc, bytesType, high),
          llvm::to_vector(llvm::seq<int64_t>(0, 8 * tiling.lanes)));
    }
    Value bytes = vector::TransferReadOp::create(
        b, loc, VectorType::get({tiling.lanes}, b.getI8Type()), packed,
        ValueRange{arith::DivUIOp::create(b, loc, offset, index(2))}, pad,
        ArrayRef<bool>{true});
    auto wordsType = VectorType::get({tiling.lanes}, b.getI32Type());
    auto shift = [&](int32_t bits) -> Value {
      return createConstant(
          DenseElementsAttr::get(wordsType, b.getI32IntegerAttr(bits)));
    };
    auto type = cast<VectorType>(accumulatorType);
    Value low, high;
    if (gemm.nibbleLookup) {
      // Each nibble indexes a table of its signed values: one vpermps for
      // the low nibbles, a shift and one for the high ones (measured on an
      // Intel Xeon, a 4096 x 4096 GEMV: 0.87 ms with shifts and
      // conversions, 0.73 ms with the table).
      SmallVector<float> nibbleValues;
      for (int32_t nibble = 0; nibble < 16; ++nibble)
        nibbleValues.push_back(
            static_cast<float>(nibble < 8 ? nibble : nibble - 16));
      Value table =
          createConstant(DenseElementsAttr::get(type, ArrayRef(nibbleValues)));
      Value words = arith::ExtUIOp::create(b, loc, wordsType, bytes);
      low = callIntrinsic(b, loc, "llvm.x86.avx512.permvar.sf.512", type,
                          ValueRange{table, words});
      high = callIntrinsic(
          b, loc, "llvm.x86.avx512.permvar.sf.512", type,
          ValueRange{table, arith::ShRUIOp::create(b, loc, words, shift(4))});
    } else {
      Value words = arith::ExtSIOp::create(b, loc, wordsType, bytes);
      low = arith::SIToFPOp::create(
          b, loc, type,
          arith::ShRSIOp::create(
              b, loc, arith::ShLIOp::create(b, loc, words, shift(28)),
              shift(28)));
      high = arith::SIToFPOp::create(
          b, loc, type, arith::ShRSIOp::create(b, loc, words, shift(4)));
    }
    return vector::ShuffleOp::create(
        b, loc, low, high,
        llvm::to_vector(llvm::seq<int64_t>(0, 2 * tiling.lanes)));
  }
  /// i4 weights: each group's scale applied once, to its partial sums.
  int64_t groupsPerScaleBlock() const override {
    return isInt4() ? gemm.groupSize / tiling.group : 0;
  }
  /// The scale group of the block starting at k group `firstGroup`.
  Value scaleGroup(Value firstGroup) {
    return arith::DivUIOp::create(b, loc, firstGroup,
                                  index(groupsPerScaleBlock()));
  }
  /// What a block's sum starts from: int8_activations' -8 x the row's
  /// group sum for symmetric weights (stored + 8), -(zero point + 8) x it
  /// per column for asymmetric ones; with f32 activations and zero points,
  /// -zero point x the group sum per column; else zero.
  Value blockStart(Value base, Value firstGroup, Value column) override {
    Value sums = gemm.int8Dot ? gemm.activationSums : gemm.groupSums;
    if (!sums)
      return TiledGemm::blockStart(base, firstGroup, column);
    Value group = scaleGroup(firstGroup);
    Value sum =
        tensor::ExtractOp::create(b, loc, sums, ValueRange{base, group});
    auto words = VectorType::get({tiling.lanes}, b.getI32Type());
    if (!negatedZeroPoints)
      return vector::BroadcastOp::create(
          b, loc, words,
          arith::MulIOp::create(b, loc, sum,
                                createConstant(b.getI32IntegerAttr(-8))));
    Value pad = createConstant(b.getI8IntegerAttr(0));
    Value zeroPoints = arith::ExtSIOp::create(
        b, loc, words,
        vector::TransferReadOp::create(
            b, loc, VectorType::get({tiling.lanes}, b.getI8Type()),
            negatedZeroPoints,
            ValueRange{arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, group, index(paddedN)),
                column)},
            pad, ArrayRef<bool>{true}));
    if (gemm.int8Dot)
      return arith::MulIOp::create(
          b, loc, vector::BroadcastOp::create(b, loc, words, sum), zeroPoints);
    auto type = cast<VectorType>(accumulatorType);
    return arith::MulFOp::create(
        b, loc, arith::SIToFPOp::create(b, loc, type, zeroPoints),
        vector::BroadcastOp::create(b, loc, type, sum));
  }
  /// The zero points negated, group-major with rows of paddedN (i8):
  /// -(zero point + 8) for the integer steps (whose weights are stored
  /// + 8), -zero point for the float ones.
  Value negatedZeroPointTable() {
    const int64_t groups = gemm.k / gemm.groupSize;
    const int8_t stored = gemm.int8Dot ? 8 : 0;
    SmallVector<int8_t> table(groups * paddedN, 0);
    for (int64_t g = 0; g < groups; ++g)
      for (int64_t column = 0; column < gemm.n; ++column)
        table[g * paddedN + column] = static_cast<int8_t>(
            -(gemm.groupZeroPoints[g * gemm.n + column] + stored));
    return createConstant(DenseElementsAttr::get(
        RankedTensorType::get({groups * paddedN}, b.getI8Type()),
        ArrayRef(table)));
  }
  /// acc + partial * scale: int8_activations' scale is the row's input
  /// scale times the weights', its partial the exact integer sum.
  Value scaleBlock(Value acc, Value partial, Value base, Value firstGroup,
                   Value column) override {
    auto type = cast<VectorType>(accumulatorType);
    Value group = scaleGroup(firstGroup);
    Value at = arith::AddIOp::create(
        b, loc, arith::MulIOp::create(b, loc, group, index(paddedN)), column);
    Value scales =
        gemm.f16Scales
            ? arith::ExtFOp::create(
                  b, loc, type,
                  readColumns(b, loc, groupScales, at,
                              VectorType::get(type.getShape(), b.getF16Type())))
                  .getResult()
            : readColumns(b, loc, groupScales, at, type);
    if (gemm.int8Dot) {
      partial = arith::SIToFPOp::create(b, loc, type, partial);
      scales = arith::MulFOp::create(
          b, loc,
          vector::BroadcastOp::create(
              b, loc, type,
              tensor::ExtractOp::create(b, loc, gemm.activationScales,
                                        ValueRange{base, group})),
          scales);
    }
    return vector::FMAOp::create(b, loc, partial, scales, acc);
  }
  bool isInt4() const {
    return gemm.narrowElement && gemm.narrowElement.isInteger(4);
  }
  /// How narrow weights are stored: f16 and bf16 as their i16 bit
  /// patterns (a DenseElementsAttr of integers packs like any other), i8
  /// as they are.
  Type storageElement() {
    return isa<FloatType>(gemm.narrowElement) ? Type(b.getI16Type())
                                              : Type(b.getI8Type());
  }
  /// `values` (one per output column) padded to paddedN, as a constant.
  Value columnTable(ArrayRef<float> values) {
    SmallVector<float> padded(values);
    padded.resize(paddedN, 0.0f);
    return createConstant(DenseElementsAttr::get(
        RankedTensorType::get({paddedN}, b.getF32Type()), ArrayRef(padded)));
  }

  const FloatGemm &gemm;
  StringRef stepName;
  Value groupOffsets, columnScales, columnBias, groupScales, negatedZeroPoints;
  llvm::DenseMap<Value, Value> epilogueMatrices;
};
} // namespace

/// Registers per target: 16 ymm hold a 6 x 2 tile (12 accumulators, 2
/// weight vectors, 1 broadcast); 32 zmm an 8 x 2 one, or a 7 x 2 one where M
/// leaves rows over 8 (the 49 and 196 rows of ResNet's 7x7 and 14x14
/// images): the rows left to the smaller tiles, run after the main ones,
/// read all of B once more (measured on an Intel Xeon, six 7x7x512 3x3
/// convolutions: best 13.9 -> 12.2 ms; ResNet-18 29.2 -> 27.3 ms). The one-row
/// tile needs more accumulators than the FMA latency times its ports to stay
/// busy. 32 NEON q registers hold 8 x 2 accumulators of 4 lanes, 8 rows'
/// inputs of 4 k each (loaded once for 4 by-element fmla) and 2 weight
/// vectors; the one-row tile has 8 strips, each a chain of fmla (llvm-mca,
/// Neoverse N1, 1 x 1024 x 1024: 3.6 MACs a cycle with 4 strips, 4.1 with
/// 8, its load-bound limit 4.8).
static GemmTiling getFloatTiling(const TargetDescription &target) {
  switch (target.getArch()) {
  case TargetArch::AArch64:
    return {4,
            1,
            8,
            2,
            4,
            8,
            1,
            0,
            0,
            /*rowsPerDot=*/1,
            /*groupsPerLoad=*/4,
            /*stripInterleave=*/2};
  case TargetArch::X86_64:
    if (target.has(TargetFeature::Avx512F))
      return {16, 1, 8, 2, 2, 4, 1, /*otherRows=*/7, /*otherStrips=*/2};
    return {8, 1, 6, 2, 2, 8, 1};
  case TargetArch::Other:
    return {4, 1, 4, 2, 2, 4, 1};
  }
  llvm_unreachable("unknown architecture");
}

/// The values of the f32 constant `value`, if it is one.
static std::optional<SmallVector<float>> getFloatConstant(Value value) {
  ElementsAttr constant;
  if (!matchPattern(value, m_Constant(&constant)))
    return std::nullopt;
  auto values = constant.tryGetValues<float>();
  if (!values)
    return std::nullopt;
  return SmallVector<float>(values->begin(), values->end());
}

static bool isStaticF32(Value value) {
  auto type = dyn_cast<RankedTensorType>(value.getType());
  return type && type.hasStaticShape() && type.getElementType().isF32();
}

/// The values of `op`'s weights (its second input) if they are a constant
/// and every operand is a static f32 tensor.
static std::optional<SmallVector<float>> getWeights(linalg::LinalgOp op) {
  if (!op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperands(), isStaticF32))
    return std::nullopt;
  return getFloatConstant(op.getDpsInputs()[1]);
}

/// A linalg.matmul or linalg.batch_matmul on static f32 tensors with
/// constant weights that is one GEMM (getMatmulWeightLayout) as a FloatGemm,
/// a batch's input and init collapsed to matrices.
static std::optional<FloatGemm> matchMatmul(OpBuilder &b, linalg::LinalgOp op) {
  std::optional<MatmulWeightLayout> layout = getMatmulWeightLayout(op);
  if (!layout)
    return std::nullopt;
  std::optional<SmallVector<float>> weights = getWeights(op);
  if (!weights)
    return std::nullopt;
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  ArrayRef<int64_t> lhs = cast<RankedTensorType>(input.getType()).getShape();
  const int64_t k = lhs.back();
  const int64_t n = cast<RankedTensorType>(init.getType()).getShape().back();
  if (layout->transposed) {
    SmallVector<float> rows(k * n);
    for (int64_t row = 0; row < k; ++row)
      for (int64_t column = 0; column < n; ++column)
        rows[row * n + column] = (*weights)[column * k + row];
    *weights = std::move(rows);
  }
  if (lhs.size() == 3) {
    const ReassociationIndices batchRows[] = {{0, 1}, {2}};
    input = tensor::CollapseShapeOp::create(b, op.getLoc(), input, batchRows);
    init = tensor::CollapseShapeOp::create(b, op.getLoc(), init, batchRows);
  }
  const int64_t m = cast<RankedTensorType>(input.getType()).getDimSize(0);
  return FloatGemm{input, init, std::move(*weights), m, k, n, std::nullopt};
}

/// `value` transposed by `permutation`.
/// A 2-D NHWC convolution (FHWC or HWCF filter) on static f32 tensors with
/// a constant filter as a FloatGemm over the flattened input, its init
/// tensor collapsed to M x F. The filter becomes the (kh, kw, c) x f
/// matrix.
static std::optional<FloatGemm> matchConvolution(OpBuilder &b,
                                                 linalg::LinalgOp op) {
  const bool fhwc = isa<linalg::Conv2DNhwcFhwcOp>(op);
  if (!fhwc && !isa<linalg::Conv2DNhwcHwcfOp>(op))
    return std::nullopt;
  std::optional<SmallVector<float>> filter = getWeights(op);
  if (!filter)
    return std::nullopt;
  auto strides = op->getAttrOfType<DenseIntElementsAttr>("strides");
  auto dilations = op->getAttrOfType<DenseIntElementsAttr>("dilations");
  if (!strides || !dilations)
    return std::nullopt;
  auto stride = llvm::to_vector(strides.getValues<int64_t>());
  auto dilation = llvm::to_vector(dilations.getValues<int64_t>());
  Location loc = op.getLoc();
  Value input = op.getDpsInputs()[0], init = op.getDpsInits()[0];
  ArrayRef<int64_t> in = cast<RankedTensorType>(input.getType()).getShape(),
                    out = cast<RankedTensorType>(init.getType()).getShape();
  ArrayRef<int64_t> w =
      cast<RankedTensorType>(op.getDpsInputs()[1].getType()).getShape();
  // FHWC: [F, KH, KW, C]; HWCF: [KH, KW, C, F].
  const int64_t filters = out[3], channels = in[3];
  const int64_t kernelH = fhwc ? w[1] : w[0];
  const int64_t kernelW = fhwc ? w[2] : w[1];
  const int64_t k = kernelH * kernelW * channels;
  // linalg bounds the loops by the output; the last window must fit.
  if ((out[1] - 1) * stride[0] + (kernelH - 1) * dilation[0] >= in[1] ||
      (out[2] - 1) * stride[1] + (kernelW - 1) * dilation[1] >= in[2])
    return std::nullopt;
  SmallVector<float> weights(k * filters);
  for (int64_t kh = 0; kh < kernelH; ++kh)
    for (int64_t kw = 0; kw < kernelW; ++kw)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t f = 0; f < filters; ++f) {
          const int64_t row = (kh * kernelW + kw) * channels + c;
          weights[row * filters + f] =
              (*filter)[fhwc ? f * k + row : row * filters + f];
        }
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, input, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}});
  Value matrix = tensor::CollapseShapeOp::create(
      b, loc, init, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
  return FloatGemm{flat,
                   matrix,
                   std::move(weights),
                   out[0] * out[1] * out[2],
                   k,
                   filters,
                   ImageWindow{in[1], in[2], channels, kernelH, kernelW,
                               stride[0], stride[1], dilation[0], dilation[1],
                               out[1], out[2]}};
}

/// A linalg.matmul or linalg.batch_matmul (default maps) of two static f32
/// tensors neither of which is a constant, such as attention's Q.K^T and
/// P.V: per batch, B packed at run time (K x N values, against the
/// M x K x N of the product), then the tiles of constant weights. The
/// batches are independent, so their loop is the one the threads share.
static FailureOr<scf::ForOp> lowerActivationProduct(RewriterBase &rewriter,
                                                    linalg::LinalgOp op,
                                                    const GemmTiling &tiling,
                                                    StringRef step) {
  if (!op.hasPureTensorSemantics() ||
      !llvm::all_of(op->getOperands(), isStaticF32))
    return failure();
  auto batched = dyn_cast<linalg::BatchMatmulOp>(op.getOperation());
  auto plain = dyn_cast<linalg::MatmulOp>(op.getOperation());
  if ((batched && batched.hasUserDefinedMaps()) ||
      (plain && plain.hasUserDefinedMaps()))
    return failure();
  Value lhs = op.getDpsInputs()[0], rhs = op.getDpsInputs()[1],
        init = op.getDpsInits()[0];
  ArrayRef<int64_t> lhsShape = cast<RankedTensorType>(lhs.getType()).getShape();
  const int64_t rank = lhsShape.size();
  const int64_t batches = batched ? lhsShape[0] : 1, m = lhsShape[rank - 2],
                k = lhsShape[rank - 1],
                n = cast<RankedTensorType>(rhs.getType()).getShape().back();
  Location loc = op.getLoc();
  OpBuilder b(op);
  // The offsets, sizes and strides of batch `batch` of a [B, ...] tensor.
  struct Slice {
    SmallVector<OpFoldResult> offsets, sizes, strides;
  };
  auto batchSlice = [&](OpBuilder &nb, Value value, Value batch) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(value.getType()).getShape();
    Slice slice{{batch}, {nb.getIndexAttr(1)}, {}};
    for (int64_t size : shape.drop_front()) {
      slice.offsets.push_back(nb.getIndexAttr(0));
      slice.sizes.push_back(nb.getIndexAttr(size));
    }
    slice.strides.assign(shape.size(), nb.getIndexAttr(1));
    return slice;
  };
  // `value`'s batch `batch`, without the batch dimension.
  auto batchOf = [&](OpBuilder &nb, Value value, Value batch) -> Value {
    if (!batched)
      return value;
    auto type = cast<RankedTensorType>(value.getType());
    Slice slice = batchSlice(nb, value, batch);
    return tensor::ExtractSliceOp::create(
        nb, loc,
        RankedTensorType::get(type.getShape().drop_front(),
                              type.getElementType()),
        value, slice.offsets, slice.sizes, slice.strides);
  };
  // B of every batch packed before the loop (one buffer of the arena, not
  // one per parallel iteration); the kernel, built once in the loop's
  // body, reads its batch's.
  FloatGemm gemm{lhs, init, {}, m, k, n, std::nullopt};
  FloatGemmLowering lowering(op, tiling, gemm, step);
  Value packed = lowering.packAtRunTime(rhs);
  auto zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto loop = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, batches),
      arith::ConstantIndexOp::create(b, loc, 1), ValueRange{init},
      [&](OpBuilder &nb, Location, Value batch, ValueRange output) {
        // The kernel builds before the yield, which then takes its result.
        auto yield = scf::YieldOp::create(nb, loc, output);
        nb.setInsertionPoint(yield);
        gemm.input = batchOf(nb, lhs, batch);
        gemm.init = batchOf(nb, output[0], batch);
        gemm.packedWeights = batchOf(nb, packed, batch);
        lowering.setInsertionPoint(yield);
        Value result = lowering.build();
        if (batched) {
          Slice slice = batchSlice(nb, output[0], batch);
          result = tensor::InsertSliceOp::create(nb, loc, result, output[0],
                                                 slice.offsets, slice.sizes,
                                                 slice.strides);
        }
        yield->setOperands(result);
      });
  if (batches > 1)
    loop->setAttr(kParallelLoopAttrName, b.getUnitAttr());
  rewriter.replaceOp(op, loop.getResults());
  return loop;
}

LogicalResult mlir::quanta::lowerFloatGemm(RewriterBase &rewriter,
                                           Operation *operation,
                                           const TargetDescription &target) {
  auto op = dyn_cast<linalg::LinalgOp>(operation);
  if (!op)
    return failure();
  OpBuilder b(operation);
  GemmTiling tiling = getFloatTiling(target);
  const bool neon = target.getArch() == TargetArch::AArch64;
  StringRef step = neon ? "fmla" : "fma";
  const bool product =
      llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp>(operation);
  std::optional<FloatGemm> gemm =
      product ? matchMatmul(b, op) : matchConvolution(b, op);
  if (!gemm && product) {
    // Weights that are not one constant GEMM's (computed, or constants that
    // differ per batch): packed at run time.
    FailureOr<scf::ForOp> loop =
        lowerActivationProduct(rewriter, op, tiling, step);
    if (failed(loop))
      return failure();
    if (target.getArch() == TargetArch::X86_64)
      requireVectorWidth(*loop, tiling.lanes * 32);
    return success();
  }
  if (!gemm)
    return failure();
  // With an epilogue, the kernel replaces its last op, where all the
  // epilogue's inputs are defined.
  gemm->epilogue = ElementwiseEpilogue::match(operation->getResult(0),
                                              /*throughRowExpansion=*/true);
  Operation *replaced =
      gemm->epilogue.empty() ? operation : gemm->epilogue.getLast();
  b.setInsertionPoint(replaced);
  FloatGemmLowering lowering(operation, tiling, *gemm, step);
  lowering.setInsertionPoint(replaced);
  Value result = lowering.build();
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(operation, tiling.lanes * 32);
  // The M x N result back in the op's shape: rows (batch, m) or
  // (n, oh, ow).
  auto type = cast<RankedTensorType>(operation->getResult(0).getType());
  if (type.getRank() > 2) {
    auto rows = llvm::to_vector_of<int64_t, 2>(
        llvm::seq<int64_t>(0, type.getRank() - 1));
    result = tensor::ExpandShapeOp::create(
        b, operation->getLoc(), type, result,
        ArrayRef<ReassociationIndices>{rows, {type.getRank() - 1}});
  }
  if (gemm->epilogue.empty())
    rewriter.replaceOp(operation, result);
  else
    gemm->epilogue.replace(rewriter, operation, result);
  return success();
}

/// The sums of each row's groups of `grouped` (M x groups x group size,
/// f32 or i8) in k order from 0: f32, or i32 for i8 values.
static Value sumGroups(OpBuilder &b, Location loc, Value grouped) {
  auto type = cast<RankedTensorType>(grouped.getType());
  const bool integer = type.getElementType().isInteger(8);
  Type element = integer ? Type(b.getI32Type()) : Type(b.getF32Type());
  SmallVector<int64_t> shape(type.getShape().drop_back());
  MLIRContext *context = b.getContext();
  AffineMap all = AffineMap::getMultiDimIdentityMap(3, context);
  AffineMap perGroup = AffineMap::get(
      3, 0, {b.getAffineDimExpr(0), b.getAffineDimExpr(1)}, context);
  Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  Value init = linalg::FillOp::create(
                   b, loc, zero,
                   ValueRange{tensor::EmptyOp::create(b, loc, shape, element)})
                   .getResult(0);
  return linalg::GenericOp::create(
             b, loc, TypeRange{init.getType()}, ValueRange{grouped},
             ValueRange{init}, ArrayRef<AffineMap>{all, perGroup},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel,
                                           utils::IteratorType::reduction},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               Value sum =
                   integer
                       ? arith::AddIOp::create(
                             nb, nloc, args[1],
                             arith::ExtSIOp::create(nb, nloc, element, args[0]))
                             .getResult()
                       : arith::AddFOp::create(nb, nloc, args[1], args[0])
                             .getResult();
               linalg::YieldOp::create(nb, nloc, sum);
             })
      .getResult(0);
}

/// `gemm.input` as M x groups x group size.
static Value groupedInput(OpBuilder &b, Location loc, const FloatGemm &gemm) {
  const ReassociationIndices rows[] = {{0}, {1, 2}};
  return tensor::ExpandShapeOp::create(
      b, loc,
      RankedTensorType::get(
          {gemm.m, gemm.k / gemm.groupSize, gemm.groupSize},
          cast<RankedTensorType>(gemm.input.getType()).getElementType()),
      gemm.input, rows);
}

/// int8_activations: `gemm.input` quantized per row and group of
/// gemm.groupSize k values as numerics::quantizeInt8Group quantizes it (in
/// linalg ops before the kernel), its scales and its group sums (for the
/// weights' + 8 and zero points: blockStart) beside it.
static void quantizeInputGroups(OpBuilder &b, Location loc, FloatGemm &gemm) {
  const int64_t groups = gemm.k / gemm.groupSize;
  Type f32 = b.getF32Type(), i8 = b.getI8Type();
  const ReassociationIndices rows[] = {{0}, {1, 2}};
  Value input = groupedInput(b, loc, gemm);
  auto grouped = cast<RankedTensorType>(input.getType());
  MLIRContext *context = b.getContext();
  AffineMap all = AffineMap::getMultiDimIdentityMap(3, context);
  AffineMap perGroup = AffineMap::get(
      3, 0, {b.getAffineDimExpr(0), b.getAffineDimExpr(1)}, context);
  AffineMap groupMap = AffineMap::getMultiDimIdentityMap(2, context);
  const utils::IteratorType parallel = utils::IteratorType::parallel,
                            reduction = utils::IteratorType::reduction;
  auto filled = [&](Type element, TypedAttr value, ArrayRef<int64_t> shape) {
    Value empty = tensor::EmptyOp::create(b, loc, shape, element);
    Value fill = arith::ConstantOp::create(b, loc, value);
    return linalg::FillOp::create(b, loc, fill, ValueRange{empty}).getResult(0);
  };
  // amax: arith.maximumf keeps a NaN.
  Value largest =
      linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get({gemm.m, groups}, f32)},
          ValueRange{input},
          ValueRange{filled(f32, b.getF32FloatAttr(0.0f), {gemm.m, groups})},
          ArrayRef<AffineMap>{all, perGroup},
          ArrayRef<utils::IteratorType>{parallel, parallel, reduction},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc,
                arith::MaximumFOp::create(
                    nb, nloc, args[1],
                    math::AbsFOp::create(nb, nloc, args[0]).getResult())
                    .getResult());
          })
          .getResult(0);
  auto constant = [&](OpBuilder &nb, Location nloc, float value) -> Value {
    return arith::ConstantOp::create(nb, nloc, nb.getF32FloatAttr(value));
  };
  // Per group, once: the scale amax / 127 (the quiet NaN for a NaN or
  // infinite amax, one NaN on every target: inf - inf would give x86's
  // negative default NaN) and the inverse 127 / amax (0 where it is not
  // finite).
  const float infinity = std::numeric_limits<float>::infinity();
  auto groupType = RankedTensorType::get({gemm.m, groups}, f32);
  auto perGroupValues = linalg::GenericOp::create(
      b, loc, TypeRange{groupType, groupType}, ValueRange{largest},
      ValueRange{tensor::EmptyOp::create(b, loc, groupType.getShape(), f32),
                 tensor::EmptyOp::create(b, loc, groupType.getShape(), f32)},
      ArrayRef<AffineMap>{groupMap, groupMap, groupMap},
      ArrayRef<utils::IteratorType>{parallel, parallel},
      [&](OpBuilder &nb, Location nloc, ValueRange args) {
        auto below = [&](Value value, float bound) -> Value {
          return arith::CmpFOp::create(nb, nloc, arith::CmpFPredicate::OLT,
                                       value, constant(nb, nloc, bound));
        };
        Value scale = arith::SelectOp::create(
            nb, nloc, below(args[0], infinity),
            arith::DivFOp::create(nb, nloc, args[0],
                                  constant(nb, nloc, 127.0f)),
            constant(nb, nloc, std::numeric_limits<float>::quiet_NaN()));
        Value inverse = arith::DivFOp::create(
            nb, nloc, constant(nb, nloc, 127.0f), args[0]);
        inverse = arith::SelectOp::create(nb, nloc, below(inverse, infinity),
                                          inverse, constant(nb, nloc, 0.0f));
        linalg::YieldOp::create(nb, nloc, ValueRange{scale, inverse});
      });
  gemm.activationScales = perGroupValues.getResult(0);
  // The values: clamp(round_half_even(x * inverse)); maxnumf/minnumf take
  // -127 over a NaN product, which fptosi must not see.
  Value values =
      linalg::GenericOp::create(
          b, loc, TypeRange{RankedTensorType::get(grouped.getShape(), i8)},
          ValueRange{input, perGroupValues.getResult(1)},
          ValueRange{tensor::EmptyOp::create(b, loc, grouped.getShape(), i8)},
          ArrayRef<AffineMap>{all, perGroup, all},
          ArrayRef<utils::IteratorType>{parallel, parallel, parallel},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value scaled = arith::MulFOp::create(nb, nloc, args[0], args[1]);
            Value clamped = arith::MinNumFOp::create(
                nb, nloc,
                arith::MaxNumFOp::create(nb, nloc, scaled,
                                         constant(nb, nloc, -127.0f)),
                constant(nb, nloc, 127.0f));
            linalg::YieldOp::create(
                nb, nloc,
                arith::FPToSIOp::create(
                    nb, nloc, nb.getI8Type(),
                    math::RoundEvenOp::create(nb, nloc, clamped))
                    .getResult());
          })
          .getResult(0);
  gemm.activationSums = sumGroups(b, loc, values);
  gemm.input = tensor::CollapseShapeOp::create(
      b, loc, RankedTensorType::get({gemm.m, gemm.k}, i8), values, rows);
}

/// The integer step of int8_activations on `target`: vpdpbusd or
/// vpmaddubsw (u8 weights + 8 times s8 inputs: pair sums of at most
/// 2 x 15 x 127, never saturating), sdot (0..15 read as s8 are the same
/// values), else vector arithmetic.
static DotStep chooseNibbleDotStep(const TargetDescription &target) {
  switch (target.getArch()) {
  case TargetArch::AArch64:
    return target.has(TargetFeature::DotProd) ? DotStep::NeonDot
                                              : DotStep::Generic;
  case TargetArch::Other:
    return DotStep::Generic;
  case TargetArch::X86_64:
    return chooseX86DotStep(target, [] { return true; });
  }
  llvm_unreachable("unknown architecture");
}

static StringRef getNibbleStepName(DotStep step) {
  switch (step) {
  case DotStep::Vnni512:
    return "nibbles+vpdpbusd.512";
  case DotStep::Vnni:
    return "nibbles+vpdpbusd";
  case DotStep::MaddUbs:
    return "nibbles+vpmaddubsw";
  case DotStep::NeonDot:
    return "nibbles+sdot";
  default:
    return "nibbles+generic";
  }
}

LogicalResult
mlir::quanta::lowerWeightOnlyMatmul(RewriterBase &rewriter,
                                    WeightOnlyMatmulOp op,
                                    const TargetDescription &target) {
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType outputType = op.getOutput().getType();
  FloatGemm gemm;
  gemm.input = op.getInput();
  gemm.m = outputType.getDimSize(0);
  gemm.k = op.getInput().getType().getDimSize(1);
  gemm.n = outputType.getDimSize(1);
  gemm.narrowElement = op.getWeights().getElementType();
  if (isa<FloatType>(gemm.narrowElement)) {
    auto values = op.getWeights().tryGetValues<APFloat>();
    if (!values)
      return op.emitOpError("needs weights whose values can be read, got ")
             << op.getWeights();
    for (const APFloat &value : *values)
      gemm.narrowWeights.push_back(
          static_cast<int16_t>(value.bitcastToAPInt().getZExtValue()));
  } else {
    auto values = op.getWeights().tryGetValues<APInt>();
    if (!values)
      return op.emitOpError("needs weights whose values can be read, got ")
             << op.getWeights();
    for (const APInt &value : *values)
      gemm.narrowWeights.push_back(static_cast<int16_t>(value.getSExtValue()));
  }
  // The sum starts from the bias with f16 and bf16 weights, from 0 with
  // integer ones (the bias is added after the scale).
  std::optional<ArrayRef<float>> bias = op.getBias();
  if (std::optional<int64_t> group = op.getGroupSize()) {
    gemm.groupSize = *group;
    gemm.groupScales = llvm::to_vector(*op.getScales());
    if (std::optional<ArrayRef<int8_t>> zeroPoints = op.getZeroPoints())
      gemm.groupZeroPoints.assign(zeroPoints->begin(), zeroPoints->end());
    gemm.f16Scales = op.getF16Scales();
  } else if (std::optional<ArrayRef<float>> scales = op.getScales()) {
    gemm.columnScales.assign(scales->begin(), scales->end());
    if (bias)
      gemm.columnBias.assign(bias->begin(), bias->end());
  }
  Value empty =
      tensor::EmptyOp::create(b, loc, outputType.getShape(), b.getF32Type());
  if (bias && gemm.columnScales.empty()) {
    auto biasType = RankedTensorType::get({gemm.n}, b.getF32Type());
    Value biasValues = arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(biasType, *bias));
    gemm.init = linalg::BroadcastOp::create(b, loc, biasValues, empty,
                                            ArrayRef<int64_t>{0})
                    .getResult()[0];
  } else {
    Value zero = arith::ConstantOp::create(b, loc, b.getF32FloatAttr(0.0f));
    gemm.init =
        linalg::FillOp::create(b, loc, zero, ValueRange{empty}).getResult(0);
  }
  if (gemm.m == 0 || gemm.n == 0 || gemm.k == 0) {
    // Nothing to multiply: the init is the result (the scale of a zero sum
    // is 0; the bias is added).
    Value result = gemm.init;
    if (!gemm.columnBias.empty()) {
      auto biasType = RankedTensorType::get({gemm.n}, b.getF32Type());
      result =
          linalg::BroadcastOp::create(
              b, loc,
              arith::ConstantOp::create(
                  b, loc,
                  DenseElementsAttr::get(biasType, ArrayRef(gemm.columnBias))),
              empty, ArrayRef<int64_t>{0})
              .getResult()[0];
    }
    rewriter.replaceOp(op, result);
    return success();
  }
  const bool neon = target.getArch() == TargetArch::AArch64;
  GemmTiling tiling = getFloatTiling(target);
  if (op.getBf16Activations()) {
    // The dot step is vdpbf16ps. Upstream's x86vector.avx512.dot is that
    // instruction; the kernels' x86 steps are quanta.intrinsic ops, lowered
    // by the one pass they all go through, so this one is too (x86vector's
    // own LLVM lowering is not in Quanta's pipelines).
    if (target.getArch() != TargetArch::X86_64 ||
        !target.has(TargetFeature::Avx512Bf16) ||
        !target.has(TargetFeature::Avx512F))
      return op.emitOpError(
          "bf16_activations needs AVX512-BF16 (vdpbf16ps), which the target "
          "lacks; bf16 weights without it (qconfig weight_only_bf16) keep the "
          "activations f32 on any CPU");
    gemm.bf16Dot = true;
    tiling.group = 2;
    tiling.groupsPerLoad = 1;
    // The input rounded to bf16 once (vcvtneps2bf16), K padded to even.
    auto bf16 = b.getBF16Type();
    auto type = RankedTensorType::get({gemm.m, gemm.k}, bf16);
    auto identity = b.getMultiDimIdentityMap(2);
    Value rounded =
        linalg::GenericOp::create(
            b, loc, type, ValueRange{gemm.input},
            ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), bf16)},
            ArrayRef<AffineMap>{identity, identity},
            ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                          utils::IteratorType::parallel},
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              linalg::YieldOp::create(
                  nb, nloc,
                  arith::TruncFOp::create(nb, nloc, bf16, args[0]).getResult());
            })
            .getResult(0);
    if (gemm.k % 2 != 0) {
      SmallVector<OpFoldResult> low(2, b.getIndexAttr(0)), high = low;
      high[1] = b.getIndexAttr(1);
      Value zero = arith::ConstantOp::create(b, loc, b.getFloatAttr(bf16, 0.0));
      rounded = tensor::PadOp::create(
          b, loc, RankedTensorType::get({gemm.m, gemm.k + 1}, bf16), rounded,
          low, high, zero);
    }
    gemm.input = rounded;
  } else if (op.getInt8Activations()) {
    quantizeInputGroups(b, loc, gemm);
    gemm.int8Dot = chooseNibbleDotStep(target);
    // 8 k values per lane and step; a smaller tile than the float one's:
    // each accumulator has its block's partial sum beside it. On zmm the
    // one-row tile takes 8 strips: each strip's two vpdpbusd per step are
    // one dependency chain (latency 5), which 4 strips leave idle
    // (a 2048 x 2048 GEMV, one noisy run: 0.128 -> 0.087 ms).
    const int64_t lanes =
        *gemm.int8Dot == DotStep::Vnni512 ? 16
        : *gemm.int8Dot == DotStep::Vnni || *gemm.int8Dot == DotStep::MaddUbs
            ? 8
            : tiling.lanes;
    tiling = {lanes, 8, 4, 2, 2, lanes == 16 ? 8 : 4, 1};
  } else if (gemm.narrowElement.isInteger(4)) {
    if (!gemm.groupZeroPoints.empty())
      gemm.groupSums = sumGroups(b, loc, groupedInput(b, loc, gemm));
    // Pairs of k values per byte; one input pair per load.
    tiling.group = 2;
    tiling.groupsPerLoad = 1;
    gemm.nibbleLookup = target.getArch() == TargetArch::X86_64 &&
                        target.has(TargetFeature::Avx512F);
  }
  // bf16 widens by a 16-bit shift (LLVM's fpext of bfloat).
  StringRef step =
      gemm.int8Dot                  ? getNibbleStepName(*gemm.int8Dot)
      : gemm.bf16Dot                ? "vdpbf16ps"
      : gemm.narrowElement.isF16()  ? (neon ? "fcvtl+fmla" : "vcvtph2ps+fma")
      : gemm.narrowElement.isBF16() ? (neon ? "shll+fmla" : "vpslld+fma")
      : gemm.narrowElement.isInteger(4)
          ? (neon                ? "nibbles+scvtf+fmla"
             : gemm.nibbleLookup ? "nibbles+vpermps+fma"
                                 : "nibbles+vcvtdq2ps+fma")
          : (neon ? "scvtf+fmla" : "vcvtdq2ps+fma");
  Value result = FloatGemmLowering(op, tiling, gemm, step).build();
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(op, tiling.lanes * 32);
  rewriter.replaceOp(op, result);
  return success();
}

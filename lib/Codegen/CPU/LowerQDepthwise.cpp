//===- LowerQDepthwise.cpp - Depthwise quanta.qmatmul to vector code ------===//
//
// The integer depthwise convolution kernel (quanta.qmatmul's depthwise
// form) on every target, in one design: the channels in the lanes of i32
// vectors (L = 16 with AVX-512, else 8), and for each output row and block
// of L channels the KH * KW filter taps, centred on their zero points,
// loaded once and kept in registers while the row's pixels stream past
// them R at a time (R accumulators in the registers the taps leave). Each tap
// of a pixel is one widening load of L input bytes and one multiply-add: the
// input is widened to i16 and both operands sign-extended from i16, which x86
// selects as vpmaddwd (a zero high half of each input lane makes it one exact
// product; VNNI fuses the add into vpdpwssd) and AArch64 as smull/smlal. The
// accumulators start from the column offsets and end in the requantization of
// the tiled GEMM (VectorRequantizer), then a clamp and a narrowing store: one
// pass over the input and the output.
//
// A constant padding of the image (the tensor.pad quanta-quantize leaves
// before the op) is not materialized: interior pixels read the image
// unchecked, border pixels (rows and columns whose window leaves the
// image) take the padding value for each tap outside it. Channels past
// the last whole block are read and written masked.
//
// Upstream has no depthwise lowering that keeps its operands in registers
// (linalg's depthwise convolutions vectorize across the output width with
// a read per tap and pixel, and requantization is not theirs to fuse).
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"
#include "VectorRequantize.h"

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/bit.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// Emits the depthwise kernel of one quanta.qmatmul.
class DepthwiseLowering {
public:
  DepthwiseLowering(QMatmulOp op, const TargetDescription &target,
                    ArrayRef<int8_t> weights);
  Value build();
  int64_t getLanes() const { return lanes; }

private:
  /// What every pixel of one output row and channel block reads.
  struct Block {
    Value batch, firstInputRow, outputRow, channel;
    bool inBounds;
    /// The centred filter taps (kh * KW + kw) and the column offsets, as
    /// i32 vectors.
    SmallVector<Value> taps;
    Value offsets;
  };

  Value index(int64_t value) {
    return arith::ConstantIndexOp::create(b, loc, value);
  }
  Value emitRow(Value output, Value row);
  Value emitBlock(Value output, Block &block, bool interiorRow);
  Value emitColumns(Value output, const Block &block, int64_t from, int64_t to,
                    int64_t step, bool checked);
  Value emitPixels(Value output, const Block &block, Value firstColumn,
                   int64_t count, bool checked);
  Value readTap(const Block &block, Value inputRow, Value inputColumn,
                bool checked);

  QMatmulOp op;
  OpBuilder b;
  Location loc;
  ArrayRef<int8_t> weights;
  int64_t lanes, pixelsPerStep;
  bool signedInput;
  VectorType byteVector, wordVector, i32Vector;
  QMatmulOp::Window window;
  /// The image read: the input, or the image inside its constant padding.
  Value image;
  int64_t batches, height, width, channels, paddedChannels;
  int64_t padTop = 0, padLeft = 0, padValue = 0;
  int64_t outputHeight, outputWidth;
  /// Output rows and columns whose window lies inside the image.
  int64_t interiorRowBegin, interiorRowEnd, interiorColumnBegin,
      interiorColumnEnd;
  Value filter, offsets;
  std::optional<VectorRequantizer> requantizer;
  VectorRequantizer::Kind epilogue;
};
} // namespace

/// [begin, end) of the outputs (along a dimension of `size` image values
/// with `pad` before them) whose window of `kernel` taps `dilation` apart
/// at `stride` lies inside the image.
static std::pair<int64_t, int64_t> interiorRange(int64_t outputs, int64_t size,
                                                 int64_t pad, int64_t kernel,
                                                 int64_t stride,
                                                 int64_t dilation) {
  const int64_t begin = std::min(outputs, (pad + stride - 1) / stride);
  // The last output o with o * stride - pad + (kernel - 1) * dilation <
  // size.
  const int64_t last = size - 1 + pad - (kernel - 1) * dilation;
  const int64_t end = last < 0 ? 0 : std::min(outputs, last / stride + 1);
  return {begin, std::max(begin, end)};
}

DepthwiseLowering::DepthwiseLowering(QMatmulOp op,
                                     const TargetDescription &target,
                                     ArrayRef<int8_t> weights)
    : op(op), b(op), loc(op.getLoc()), weights(weights),
      window(*op.getConvWindow()) {
  using F = TargetFeature;
  const bool x86 = target.getArch() == TargetArch::X86_64;
  lanes = x86 && target.hasAll({F::Avx512F, F::Avx512BW}) ? 16 : 8;
  epilogue = target.getArch() == TargetArch::AArch64 && target.has(F::Neon)
                 ? VectorRequantizer::Kind::Neon
                 : VectorRequantizer::Kind::HighHalves;
  // Pixels per step: as many accumulators as the vector registers left by
  // the taps and two temporaries, at most 8 (measured on AVX-512: a
  // 112x112x32 3x3 at 119 GOPS with 8, 109 with 4); 4 where the taps alone
  // do not fit (5x5 on 16 registers), which then share each reload of a
  // tap. Registers of a whole vector: 32 zmm, 16 ymm, 8 pairs of SSE
  // registers, 16 pairs of AArch64 q registers.
  const int64_t registers =
      !x86 ? 16 : (lanes == 16 ? 32 : (target.has(F::Avx2) ? 16 : 8));
  const int64_t left = registers - window.kernelH * window.kernelW - 2;
  pixelsPerStep =
      left < 4 ? 4 : std::min<int64_t>(8, llvm::bit_floor(uint64_t(left)));
  byteVector = VectorType::get({lanes}, b.getI8Type());
  wordVector = VectorType::get({lanes}, b.getI16Type());
  i32Vector = VectorType::get({lanes}, b.getI32Type());
  auto input = cast<quant::UniformQuantizedType>(
      op.getInput().getType().getElementType());
  signedInput = input.isSigned();

  ArrayRef<int64_t> padded = op.getInput().getType().getShape();
  batches = padded[0];
  channels = padded[3];
  paddedChannels = (channels + lanes - 1) / lanes * lanes;
  outputHeight = QMatmulOp::Window::outputSize(
      padded[1], window.kernelH, window.strideH, window.dilationH);
  outputWidth = QMatmulOp::Window::outputSize(padded[2], window.kernelW,
                                              window.strideW, window.dilationW);
  height = padded[1];
  width = padded[2];
  if (tensor::PadOp pad = getSkippablePad(op)) {
    APInt value;
    (void)matchPattern(pad.getConstantPaddingValue(), m_ConstantInt(&value));
    padValue = signedInput ? value.getSExtValue() : value.getZExtValue();
    image = pad.getSource();
    height = pad.getSourceType().getDimSize(1);
    width = pad.getSourceType().getDimSize(2);
    padTop = pad.getStaticLow()[1];
    padLeft = pad.getStaticLow()[2];
  } else {
    image = quant::StorageCastOp::create(
        b, loc, op.getInput().getType().clone(b.getI8Type()), op.getInput());
  }
  std::tie(interiorRowBegin, interiorRowEnd) =
      interiorRange(outputHeight, height, padTop, window.kernelH,
                    window.strideH, window.dilationH);
  std::tie(interiorColumnBegin, interiorColumnEnd) =
      interiorRange(outputWidth, width, padLeft, window.kernelW, window.strideW,
                    window.dilationW);
}

Value DepthwiseLowering::readTap(const Block &block, Value inputRow,
                                 Value inputColumn, bool checked) {
  Value valid;
  if (checked) {
    // Inside the image, or the padding value; the read itself clamped.
    auto inside = [&](Value at, int64_t size) {
      Value low = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sge, at,
                                        index(0));
      Value high = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, at,
                                         index(size));
      return arith::AndIOp::create(b, loc, low, high);
    };
    auto clamp = [&](Value at, int64_t size) -> Value {
      return arith::MinSIOp::create(
          b, loc, arith::MaxSIOp::create(b, loc, at, index(0)),
          index(size - 1));
    };
    valid = arith::AndIOp::create(b, loc, inside(inputRow, height),
                                  inside(inputColumn, width));
    inputRow = clamp(inputRow, height);
    inputColumn = clamp(inputColumn, width);
  }
  Value zero = arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0);
  Value bytes = vector::TransferReadOp::create(
      b, loc, byteVector, image,
      ValueRange{block.batch, inputRow, inputColumn, block.channel}, zero,
      ArrayRef<bool>{block.inBounds});
  Value words =
      signedInput
          ? arith::ExtSIOp::create(b, loc, wordVector, bytes).getResult()
          : arith::ExtUIOp::create(b, loc, wordVector, bytes).getResult();
  if (checked)
    words = arith::SelectOp::create(b, loc, valid, words,
                                    splat(b, loc, wordVector, padValue));
  return arith::ExtSIOp::create(b, loc, i32Vector, words);
}

/// `count` consecutive pixels of the block's row from `firstColumn`: their
/// accumulators side by side, tap after tap.
Value DepthwiseLowering::emitPixels(Value output, const Block &block,
                                    Value firstColumn, int64_t count,
                                    bool checked) {
  SmallVector<Value> acc(count, block.offsets);
  Value firstInputColumn =
      arith::MulIOp::create(b, loc, firstColumn, index(window.strideW));
  for (int64_t kh = 0; kh < window.kernelH; ++kh) {
    Value inputRow = arith::AddIOp::create(b, loc, block.firstInputRow,
                                           index(kh * window.dilationH));
    for (int64_t kw = 0; kw < window.kernelW; ++kw) {
      Value tap = block.taps[kh * window.kernelW + kw];
      for (int64_t p = 0; p < count; ++p) {
        // (column + p) * SW - padLeft + kw * DW.
        Value inputColumn = arith::AddIOp::create(
            b, loc, firstInputColumn,
            index(p * window.strideW - padLeft + kw * window.dilationW));
        Value x = readTap(block, inputRow, inputColumn, checked);
        acc[p] = arith::AddIOp::create(b, loc, acc[p],
                                       arith::MulIOp::create(b, loc, x, tap));
      }
    }
  }
  const auto outputMin = static_cast<int32_t>(op.getOutputMin());
  const auto outputMax = static_cast<int32_t>(op.getOutputMax());
  for (int64_t p = 0; p < count; ++p) {
    Value requantized = requantizer->requantize(acc[p], block.channel);
    Value clamped = arith::MinSIOp::create(
        b, loc,
        arith::MaxSIOp::create(b, loc, requantized,
                               splat(b, loc, i32Vector, outputMin)),
        splat(b, loc, i32Vector, outputMax));
    Value bytes = arith::TruncIOp::create(b, loc, byteVector, clamped);
    Value row = arith::AddIOp::create(
        b, loc, block.outputRow,
        arith::AddIOp::create(b, loc, firstColumn, index(p)));
    output = vector::TransferWriteOp::create(b, loc, bytes, output,
                                             ValueRange{row, block.channel},
                                             ArrayRef<bool>{block.inBounds})
                 .getResult();
  }
  return output;
}

/// Columns [from, to) of the block's row, `step` pixels at a time (to -
/// from a multiple of it).
Value DepthwiseLowering::emitColumns(Value output, const Block &block,
                                     int64_t from, int64_t to, int64_t step,
                                     bool checked) {
  if (from >= to)
    return output;
  return scf::ForOp::create(
             b, loc, index(from), index(to), index(step), ValueRange{output},
             [&](OpBuilder &nb, Location, Value column, ValueRange current) {
               OpBuilder::InsertionGuard guard(b);
               b.setInsertionPointToStart(nb.getInsertionBlock());
               scf::YieldOp::create(
                   b, loc,
                   emitPixels(current[0], block, column, step, checked));
             })
      .getResult(0);
}

Value DepthwiseLowering::emitBlock(Value output, Block &block,
                                   bool interiorRow) {
  block.taps.clear();
  for (int64_t tap = 0; tap < window.kernelH * window.kernelW; ++tap) {
    Value at = arith::AddIOp::create(b, loc, block.channel,
                                     index(tap * paddedChannels));
    block.taps.push_back(arith::ExtSIOp::create(
        b, loc, i32Vector, readColumns(b, loc, filter, at, wordVector)));
  }
  block.offsets = readColumns(b, loc, offsets, block.channel, i32Vector);
  if (!interiorRow)
    return emitColumns(output, block, 0, outputWidth, 1, /*checked=*/true);
  output = emitColumns(output, block, 0, interiorColumnBegin, 1, true);
  // The interior in steps of pixelsPerStep, then of halves of it for the
  // rest (a 7x7 image's 5 interior columns: one step of 4 and one of 1).
  int64_t begin = interiorColumnBegin;
  for (int64_t step = pixelsPerStep; step >= 1; step /= 2) {
    const int64_t end = begin + (interiorColumnEnd - begin) / step * step;
    output = emitColumns(output, block, begin, end, step, false);
    begin = end;
  }
  return emitColumns(output, block, interiorColumnEnd, outputWidth, 1, true);
}

/// Output row `row` (b * OH + oh): every channel block, whole blocks in a
/// loop, the masked one after them.
Value DepthwiseLowering::emitRow(Value output, Value row) {
  Block block;
  block.batch = arith::DivUIOp::create(b, loc, row, index(outputHeight));
  Value outputRowInImage =
      arith::RemUIOp::create(b, loc, row, index(outputHeight));
  block.firstInputRow = arith::SubIOp::create(
      b, loc,
      arith::MulIOp::create(b, loc, outputRowInImage, index(window.strideH)),
      index(padTop));
  block.outputRow = arith::MulIOp::create(b, loc, row, index(outputWidth));
  // Interior rows skip the row checks; the others check every tap.
  const bool allInterior =
      interiorRowBegin == 0 && interiorRowEnd == outputHeight;
  Value interior;
  if (!allInterior)
    interior = arith::AndIOp::create(
        b, loc,
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::uge,
                              outputRowInImage, index(interiorRowBegin)),
        arith::CmpIOp::create(b, loc, arith::CmpIPredicate::ult,
                              outputRowInImage, index(interiorRowEnd)));
  auto rowOfBlock = [&](Value current) -> Value {
    if (allInterior)
      return emitBlock(current, block, true);
    return scf::IfOp::create(
               b, loc, interior,
               [&](OpBuilder &nb, Location) {
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPointToStart(nb.getInsertionBlock());
                 scf::YieldOp::create(b, loc, emitBlock(current, block, true));
               },
               [&](OpBuilder &nb, Location) {
                 OpBuilder::InsertionGuard guard(b);
                 b.setInsertionPointToStart(nb.getInsertionBlock());
                 scf::YieldOp::create(b, loc, emitBlock(current, block, false));
               })
        .getResult(0);
  };
  const int64_t wholeChannels = channels / lanes * lanes;
  if (wholeChannels > 0)
    output =
        scf::ForOp::create(
            b, loc, index(0), index(wholeChannels), index(lanes),
            ValueRange{output},
            [&](OpBuilder &nb, Location, Value channel, ValueRange current) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(nb.getInsertionBlock());
              block.channel = channel;
              block.inBounds = true;
              scf::YieldOp::create(b, loc, rowOfBlock(current[0]));
            })
            .getResult(0);
  if (wholeChannels < channels) {
    block.channel = index(wholeChannels);
    block.inBounds = false;
    output = rowOfBlock(output);
  }
  return output;
}

Value DepthwiseLowering::build() {
  // Per channel, padded to whole blocks: the taps centred on the weight
  // zero points (|w - zb| <= 255 fits i16), the offsets and the
  // requantization constants (padding channels: multiplier 0).
  const int64_t taps = window.kernelH * window.kernelW;
  ArrayRef<int32_t> zeroPoints = op.getWeightZeroPoints();
  SmallVector<int16_t> centred(taps * paddedChannels, 0);
  SmallVector<int32_t> offsetValues(paddedChannels, 0),
      multipliers(paddedChannels, 0), totalShifts(paddedChannels, 33);
  for (int64_t c = 0; c < channels; ++c) {
    const int32_t zero = zeroPoints.size() == 1 ? zeroPoints[0] : zeroPoints[c];
    for (int64_t tap = 0; tap < taps; ++tap)
      centred[tap * paddedChannels + c] =
          static_cast<int16_t>(weights[tap * channels + c] - zero);
    offsetValues[c] = op.getColumnOffsets()[c];
    multipliers[c] = op.getMultipliers()[c];
    totalShifts[c] = 31 - op.getShifts()[c];
  }
  auto constant = [&](auto values, Type element) -> Value {
    auto type =
        RankedTensorType::get({static_cast<int64_t>(values.size())}, element);
    return arith::ConstantOp::create(
        b, loc, DenseElementsAttr::get(type, ArrayRef(values)));
  };
  filter = constant(centred, b.getI16Type());
  offsets = constant(offsetValues, b.getI32Type());
  auto outputType = cast<quant::UniformQuantizedType>(
      op.getOutput().getType().getElementType());
  requantizer.emplace(b, loc, epilogue, lanes, multipliers, totalShifts,
                      outputType.getZeroPoint());

  Value output = tensor::EmptyOp::create(
      b, loc, op.getOutput().getType().getShape(), b.getI8Type());
  // Each output row writes its own pixels: the threads may share them out.
  auto rows = scf::ForOp::create(
      b, loc, index(0), index(batches * outputHeight), index(1),
      ValueRange{output},
      [&](OpBuilder &nb, Location, Value row, ValueRange current) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        scf::YieldOp::create(b, loc, emitRow(current[0], row));
      });
  // Its work, as quanta-parallelize counts it: a multiply-add per tap and
  // channel vector of each output pixel. Counted from the loops inside,
  // not all of constant bounds, a 56x56x144 3x3 convolution stayed on one
  // thread (0.074 ms; 0.044 on two with the count).
  rows->setAttr(kParallelLoopAttrName,
                b.getI64IntegerAttr(batches * outputHeight * outputWidth *
                                    llvm::divideCeil(channels, lanes) *
                                    window.kernelH * window.kernelW));
  rows->setAttr("quanta.dot_step", b.getStringAttr("depthwise"));
  return quant::StorageCastOp::create(b, loc, op.getOutput().getType(),
                                      rows.getResult(0));
}

LogicalResult mlir::quanta::lowerQDepthwise(RewriterBase &rewriter,
                                            QMatmulOp op,
                                            const TargetDescription &target,
                                            ArrayRef<int8_t> weights) {
  DepthwiseLowering lowering(op, target, weights);
  Value result = lowering.build();
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(op, lowering.getLanes() * 32);
  rewriter.replaceOp(op, result);
  return success();
}

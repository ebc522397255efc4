//===- LowerQMatmul.cpp - quanta.qmatmul to tiled vector code -------------===//
//
// The integer kernel of the tiled GEMM design (TiledGemm.h): s8 weights
// packed in groups of g = 4 (2 for vpmaddwd) k values per 32-bit lane, i32
// accumulators starting from the column offsets, and an epilogue that
// requantizes (the numeric library's 64-bit single rounding) and clamps.
//
// A target is a DotStep: how g products per lane are accumulated. x86 has
// four (AVX-512 VNNI vpdpbusd on zmm; AVX-VNNI vpdpbusd on ymm; AVX2 vpmaddubsw
// + vpmaddwd, used only where the operand ranges rule out its i16 saturation;
// AVX2 sign-extended vpmaddwd, exact for every range), AArch64 three (sdot
// by element; smmla/usmmla on row pairs; smull + sadalp, ARMv8.0) and a
// generic one in plain vector arithmetic for any target. Upstream x86vector
// has no vpmaddubsw/vpmaddwd/vpdpbusd op (its avx.dot.i8 is AVX-VNNI-INT8
// vpdpbssd), so the x86 steps are quanta.intrinsic ops naming the LLVM
// intrinsic (llvm.call_intrinsic would block buffer deallocation, which
// cannot know its memory effects); the AArch64 steps use upstream
// arm_neon ops where they exist (sdot, smmla, usmmla, smull) and
// quanta.intrinsic for saddlp, which arm_neon lacks. Upstream has no
// vector.contract -> sdot lowering, and its contract -> smmla one needs
// an N x K right operand with even M and N and K % 8 == 0, with no control
// over packing or the epilogue: the steps are emitted directly.
//
//===----------------------------------------------------------------------===//

#include "DynamicQParams.h"
#include "ElementwiseEpilogue.h"
#include "IntegerDot.h"
#include "TiledGemm.h"
#include "VectorRequantize.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Numerics/Dynamic.h"
#include "quanta/Numerics/IntegerKernels.h"
#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmNeon/ArmNeonDialect.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// The sign the dot step reads its input bytes with. An input of the other
/// sign is flipped (xor 0x80: x + 128 as u8, x - 128 as s8), the column
/// offsets absorbing the difference.
enum class InputSign { Any, Unsigned, Signed };

struct KernelShape {
  DotStep step;
  GemmTiling tiling;
  InputSign inputSign;
  /// Outputs narrowed two pairs of strips at once with saturating packs
  /// (x86) or narrows (AArch64): TiledGemm's pairedStrips.
  bool packs;
  VectorRequantizer::Kind epilogue;
  StringRef name;
};
} // namespace

static KernelShape getKernelShape(DotStep step) {
  switch (step) {
  // 32 zmm registers: an 8 x 2 or a 6 x 4 tile of accumulators, a half
  // tile of 4 strips (a 196 x 256 x 2304 GEMM, its last 4 rows in a half
  // tile: 0.311 ms instead of 0.314 with 2).
  case DotStep::Vnni512:
    return {step, {16, 4, 8, 2, 4, 4, 2, 6, 4},        InputSign::Unsigned,
            true, VectorRequantizer::Kind::HighHalves, "vpdpbusd.512"};
  case DotStep::Vnni:
    return {step,
            {8, 4, 6, 2, 2, 4, 2},
            InputSign::Unsigned,
            true,
            VectorRequantizer::Kind::HighHalves,
            "vpdpbusd"};
  case DotStep::MaddUbs:
    return {step,
            {8, 4, 4, 2, 2, 4, 2},
            InputSign::Unsigned,
            true,
            VectorRequantizer::Kind::HighHalves,
            "vpmaddubsw+vpmaddwd"};
  case DotStep::MaddWd:
    return {step,
            {8, 2, 4, 2, 2, 4, 2},
            InputSign::Any,
            true,
            VectorRequantizer::Kind::HighHalves,
            "vpmaddwd"};
  case DotStep::Generic:
    return {step,
            {8, 4, 4, 2, 2, 4, 2},
            InputSign::Any,
            false,
            VectorRequantizer::Kind::HighHalves,
            "generic"};
  // 32 q registers. sdot: 7 x 3 accumulators, 7 input loads (4 k groups
  // each) and 3 weight vectors per group (interleaved: one ldp and one
  // ldr): 84 sdot to 19 loads a step, which keeps a Neoverse N1's dispatch
  // (3 uops a cycle; 2 per 16-byte ldr, 3 per ldp) below its 2 sdot a
  // cycle (llvm-mca on the k loop compiled for a Neoverse N1: 8 x 2 tiles
  // of the same design 91% of the sdot peak, 7 x 3 100%). The half tile
  // has 3 rows of 3 strips, the one-row tile 6 strips and 2 accumulator
  // sets: a single row loads 16 weights per sdot, and the loop's other
  // instructions compete with those loads for dispatch; 48 sdot a step
  // leave few of them, and 6 strips half the column groups' fixed costs
  // (llvm-mca, Neoverse N1, 1 x 1024 x 1024, whole kernel: 13.2 MACs a
  // cycle with 3 strips and one set, 15.2 with 3 and 4 sets, 15.4 with 6
  // and 2, of a load-bound limit of 19.2).
  case DotStep::NeonDot:
    return {step,
            {4, 4, 7, 3, 3, 6, 2, 0, 0, /*rowsPerDot=*/1,
             /*groupsPerLoad=*/4, /*stripInterleave=*/3},
            InputSign::Signed,
            false,
            VectorRequantizer::Kind::Neon,
            "sdot"};
  // 4 row pairs x 2 strips of 2 x 2 column pairs: 16 accumulators, 4
  // packed input loads and 4 weight loads per 16 smmla (llvm-mca on a
  // Neoverse V1: 4 smmla a cycle, its peak).
  case DotStep::NeonMmla:
    return {step,
            {4, 8, 8, 2, 4, 4, 1, 0, 0, /*rowsPerDot=*/2,
             /*groupsPerLoad=*/1, /*stripInterleave=*/2},
            InputSign::Any,
            true,
            VectorRequantizer::Kind::Neon,
            "smmla"};
  // 4 rows x 1 strip, each accumulator 4 q registers (4 partial sums of
  // 4 columns): 16 accumulator registers, 4 input and 4 weight loads per
  // 32 smull and 32 sadalp (llvm-mca on a Neoverse N1: one smull a cycle,
  // the bound of its one multiply pipe). K is padded to 16 per segment.
  case DotStep::NeonWiden:
    return {step,  {4, 16, 4, 1, 2, 2, 1},        InputSign::Signed,
            false, VectorRequantizer::Kind::Neon, "smull+sadalp"};
  }
  llvm_unreachable("unknown dot step");
}

/// Whether vpmaddubsw cannot saturate: every pair of packed weights (k, k+1)
/// of a column, times inputs anywhere in [lo, hi] (0 <= lo), sums within i16.
/// Pairs start at even offsets of each of the K / segmentK runs, which the
/// packing pads separately.
static bool isMaddUbsExact(ArrayRef<int8_t> weights, int64_t k, int64_t n,
                           int64_t segmentK, int64_t lo, int64_t hi) {
  for (int64_t start = 0; start < k; start += segmentK)
    for (int64_t kk = start; kk < start + segmentK; kk += 2)
      for (int64_t col = 0; col < n; ++col) {
        int64_t maxSum = 0, minSum = 0;
        for (int64_t j = kk; j < std::min(kk + 2, start + segmentK); ++j) {
          int64_t w = weights[j * n + col];
          maxSum += w > 0 ? hi * w : lo * w;
          minSum += w > 0 ? lo * w : hi * w;
        }
        if (maxSum > INT16_MAX || minSum < INT16_MIN)
          return false;
      }
  return true;
}

namespace {
/// The epilogue of a dynamic Linear (quanta.dynamic_qmatmul): the
/// accumulator converted to f32 and scaled by a factor of the input known
/// only at run time and one of each column's weights, in the engine's order
/// (numerics::dynamicLinear).
struct FloatEpilogue {
  DynamicEngine engine;
  /// f32, computed before the kernel: onednn's f32(1 / input scale),
  /// QNNPACK's and ONNX Runtime's f32(input scale).
  Value inputFactor;
  /// One per column, or one for all.
  SmallVector<float> weightScales;
  std::optional<SmallVector<float>> bias;
  /// The float consumers applied to the output in registers (GELU after a
  /// Linear), and their M x N inputs.
  ElementwiseEpilogue elementwise;
  llvm::DenseMap<Value, Value> elementwiseMatrices;
};

/// What one integer kernel computes, in quanta.qmatmul's terms: a
/// quanta.qmatmul, or one batch of a quanta.qbatch_matmul, whose weights
/// (its rhs) and column offsets are known only at run time, or a dynamic
/// Linear, whose output is float.
struct IntegerGemmOperands {
  /// Where the kernel is built.
  Operation *anchor;
  /// The quantized input (a matrix, or an NHWC image with `window`) and the
  /// quantized M x N output.
  RankedTensorType inputType, outputType;
  int64_t k;
  std::optional<QMatmulOp::Window> window;
  /// One value per output column, or one for all.
  SmallVector<int32_t> weightZeroPoints, multipliers, shifts;
  /// N values; none when the kernel's caller computes them at run time.
  SmallVector<int32_t> columnOffsets;
  int32_t outputMin, outputMax;
  /// The padding around the image the kernel may skip (getSkippablePad).
  tensor::PadOp skippablePad;
  /// Instead of the requantization: an f32 output.
  std::optional<FloatEpilogue> floatEpilogue = std::nullopt;
};

static IntegerGemmOperands getOperands(QMatmulOp op) {
  return {op,
          op.getInput().getType(),
          op.getOutput().getType(),
          cast<ShapedType>(op.getWeights().getType()).getDimSize(0),
          op.getConvWindow(),
          llvm::to_vector(op.getWeightZeroPoints()),
          llvm::to_vector(op.getMultipliers()),
          llvm::to_vector(op.getShifts()),
          llvm::to_vector(op.getColumnOffsets()),
          static_cast<int32_t>(op.getOutputMin()),
          static_cast<int32_t>(op.getOutputMax()),
          getSkippablePad(op)};
}

/// Emits the tiled kernel of one quanta.qmatmul: configure(), then
/// build(input) with the packed weights (and at run time, the column
/// offsets and row sums) set, or buildWithConstantWeights().
class QMatmulLowering : public TiledGemm {
public:
  QMatmulLowering(const IntegerGemmOperands &operands, const KernelShape &shape,
                  ArrayRef<int8_t> weights);
  /// The kernel's constants and how it reads its operands; with
  /// `runTimeWeights`, packed weights of the element packedElement() and
  /// column offsets computed by the caller (no compile-time weights).
  void configure(bool runTimeWeights = false);
  /// The whole kernel of a quanta.qmatmul: its weights packed, its input
  /// prepared, the tiles.
  Value buildWithConstantWeights(Value quantizedInput);
  /// The tiles on `prepared` (prepareInput's), `packedWeights`, and at run
  /// time this batch's column offsets (runTimeOffsets's, [paddedN]) and
  /// row sums (computeRowSums's, [M]; with weight zero points only): the
  /// M x N output's storage.
  Value build(Value prepared, Value packedWeights, Value runTimeOffsets = {},
              Value runTimeRowSums = {});

  void setInsertionPoint(Operation *op) { b.setInsertionPoint(op); }
  using TiledGemm::packAtRunTime;
  /// Whether the weights have zero points, whose term needs the row sums
  /// (computeRowSums; known after configure()).
  bool hasZeroPointTerm() const { return hasWeightZeroPoints; }
  /// The weights' element in the packed layout (i16 pairs for vpmaddwd).
  Type packedElement() const { return packedVector.getElementType(); }
  Value prepareInput(Value storage);
  Value computeRowSums(Value storage);
  /// The [batch] x K x N weights `storage` (s8 as the dot step reads them,
  /// after `toWeight`) as packed column offsets, [batch] x paddedN:
  /// -(za + flipDelta) * colsum + K * za * zb, what quanta.qmatmul's
  /// column_offsets and the sign flip hold for constant weights.
  Value
  runTimeOffsets(Value storage, int64_t inputZeroPoint,
                 function_ref<Value(OpBuilder &, Location, Value)> toWeight);
  /// The constant weights packed as the dot step reads them.
  Value packConstantWeights();
  /// The packed column offsets, [paddedN], of the constant weights and the
  /// input zero point `zeroPoint` (i32) known only at run time:
  /// -(za + flipDelta) * colsum, + K * za * zb with weight zero points.
  Value zeroPointOffsets(Value zeroPoint);

private:
  Value initialAccumulator(Value output, Value row, Value column,
                           bool inBounds) override;
  Value rowBase(Value row) override;
  Value groupInput(Value base, Value kGroup) override;
  Value loadInputs(Value base, Value kGroup) override;
  Value inputOfGroup(Value inputs, int64_t index) override;
  Value dot(Value acc, Value lhs, Value rhs) override;
  Value toAccumulator(ArrayRef<Value> rows) override;
  SmallVector<Value> fromAccumulator(Value acc) override;
  Value finish(Value acc, Value row, Value column) override;
  Value finishFloat(Value acc, Value row, Value column);
  Value narrowPairs(ArrayRef<Value> outputs) override;

  Value callIntrinsic(StringRef name, Type type, ValueRange args) {
    return quanta::callIntrinsic(b, loc, name, type, args);
  }
  Value constantTensor(ArrayRef<int32_t> values);
  Value packRowPairs(Value prepared);
  Value readInput(VectorType type, Value base, Value kGroup, Value from = {});
  int64_t outputZeroPoint();
  Value narrowPairsNeon(ArrayRef<Value> outputs);
  Value clampBytes(Value bytes);
  void classifyImageRows();

  IntegerGemmOperands operands;
  KernelShape shape;
  bool signedInput = false, hasWeightZeroPoints = false;
  /// What the dot step reads for every stored input value: x + flipDelta
  /// (0, or +-128 where the sign bit is flipped; see InputSign).
  int64_t flipDelta = 0;
  /// The input packed into row pairs (NeonMmla; packRowPairs).
  bool rowPairs = false;
  ArrayRef<int8_t> weights;
  /// An implicit im2col input: its window over the padded image, or over
  /// the image inside `pad` when the kernel skips the padding's taps (all
  /// steps but NeonMmla, whose row pairs are packed from the padded image).
  std::optional<ImageWindow> image;
  tensor::PadOp pad;
  Value input, groupOffsets, offsets, weightZero, rowSums;
  std::optional<VectorRequantizer> requantizer;
  /// With a float epilogue: per packed column, the weights' factor
  /// (onednn: f32(1 / scale), QNNPACK: the scale) and the bias.
  Value columnFactors, columnBias;
  VectorType i32Vector;
  /// The dot step's input operand (i16 pairs for vpmaddwd, else bytes).
  VectorType lhsVector;
  /// What readInput reads per k group: the g bytes of one row, or with
  /// rowPairs a pair's 2g.
  VectorType groupVector;
  /// vpmaddwd reading s8 weights (see build).
  bool widenWeights = false;
};
} // namespace

/// The tensor.pad of constant value that makes `op`'s image (through its
/// storage cast), padding height and width only: the kernel reads the
/// image inside it and skips the taps that fall in the padding, as
/// oneDNN's convolutions do (9% of a 14x14 3x3 convolution's work with
/// padding 1). Null otherwise.
tensor::PadOp mlir::quanta::getSkippablePad(QMatmulOp op) {
  if (!op.getWindow())
    return {};
  auto cast = op.getInput().getDefiningOp<quant::StorageCastOp>();
  auto pad = cast ? cast.getInput().getDefiningOp<tensor::PadOp>() : nullptr;
  if (!pad)
    return {};
  Value value = pad.getConstantPaddingValue();
  APInt padding;
  if (!value || !matchPattern(value, m_ConstantInt(&padding)) ||
      !pad.getSourceType().hasStaticShape() ||
      !pad.getSourceType().getElementType().isInteger(8))
    return {};
  ArrayRef<int64_t> low = pad.getStaticLow(), high = pad.getStaticHigh();
  if (ShapedType::isDynamicShape(low) || ShapedType::isDynamicShape(high) ||
      low[0] != 0 || high[0] != 0 || low[3] != 0 || high[3] != 0)
    return {};
  return pad;
}

QMatmulLowering::QMatmulLowering(const IntegerGemmOperands &operands,
                                 const KernelShape &shape,
                                 ArrayRef<int8_t> weights)
    : TiledGemm(
          operands.anchor, shape.tiling, operands.outputType.getDimSize(0),
          operands.k, operands.outputType.getDimSize(1),
          operands.window ? operands.window->kernelH * operands.window->kernelW
                          : 1),
      operands(operands), shape(shape), weights(weights),
      pad(shape.step == DotStep::NeonMmla ? tensor::PadOp()
                                          : operands.skippablePad) {
  if (const std::optional<QMatmulOp::Window> &window = operands.window) {
    ArrayRef<int64_t> shape = operands.inputType.getShape();
    ArrayRef<int64_t> stored =
        pad ? pad.getSourceType().getShape() : ArrayRef<int64_t>(shape);
    image = ImageWindow{
        stored[1],
        stored[2],
        segmentGroups * tiling.group,
        window->kernelH,
        window->kernelW,
        window->strideH,
        window->strideW,
        window->dilationH,
        window->dilationW,
        QMatmulOp::Window::outputSize(shape[1], window->kernelH,
                                      window->strideH, window->dilationH),
        QMatmulOp::Window::outputSize(shape[2], window->kernelW,
                                      window->strideW, window->dilationW)};
    if (pad) {
      image->padTop = pad.getStaticLow()[1];
      image->padLeft = pad.getStaticLow()[2];
    }
  }
}

Value QMatmulLowering::constantTensor(ArrayRef<int32_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI32Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

/// The input as the kernel reads it: the sign bit flipped where the step
/// reads the other sign (InputSign), i16 pairs for vpmaddwd, zero-padded to
/// whole k groups (an image's channels, a matrix's rows), an image
/// flattened.
Value QMatmulLowering::prepareInput(Value storage) {
  Type element = shape.step == DotStep::MaddWd ? b.getI16Type() : b.getI8Type();
  const bool flip = flipDelta != 0;
  auto storageType = cast<RankedTensorType>(storage.getType());
  const int64_t rank = storageType.getRank();
  Value prepared = storage;
  if (flip || element != b.getI8Type()) {
    auto type = storageType.clone(element);
    Value empty = tensor::EmptyOp::create(b, loc, type.getShape(), element);
    auto identity = b.getMultiDimIdentityMap(rank);
    prepared =
        linalg::GenericOp::create(
            b, loc, type, storage, empty,
            ArrayRef<AffineMap>{identity, identity},
            SmallVector<utils::IteratorType>(rank,
                                             utils::IteratorType::parallel),
            [&](OpBuilder &nb, Location nloc, ValueRange args) {
              Value v = args[0];
              if (flip)
                v = arith::XOrIOp::create(nb, nloc, v,
                                          arith::ConstantIntOp::create(
                                              nb, nloc, nb.getI8Type(), 0x80));
              else if (element != nb.getI8Type())
                v = signedInput ? arith::ExtSIOp::create(nb, nloc, element, v)
                                      .getResult()
                                : arith::ExtUIOp::create(nb, nloc, element, v)
                                      .getResult();
              linalg::YieldOp::create(nb, nloc, v);
            })
            .getResult(0);
  }
  // The padding meets zero weights: any value would do.
  const int64_t last = storageType.getDimSize(rank - 1);
  const int64_t paddedLast = image ? image->channels : paddedK;
  if (paddedLast != last) {
    Value zero = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
    SmallVector<int64_t> paddedShape(storageType.getShape());
    paddedShape.back() = paddedLast;
    SmallVector<OpFoldResult> low(rank, b.getIndexAttr(0)), high = low;
    high.back() = b.getIndexAttr(paddedLast - last);
    prepared = tensor::PadOp::create(
        b, loc, RankedTensorType::get(paddedShape, element), prepared, low,
        high, zero);
  }
  if (!image)
    return prepared;
  return tensor::CollapseShapeOp::create(
      b, loc, prepared, ArrayRef<ReassociationIndices>{{0, 1, 2, 3}});
}

/// The input rows in pairs for smmla, [ceil(M / 2)][K / 8][2][8] (flat):
/// each k group of 8 bytes of row 2p next to the same of row 2p + 1 (the
/// last row again for an odd M, which the tiles' repeated last row then
/// writes twice with the same values), so that one 16-byte load is an
/// smmla operand. A convolution's rows are read through its window, as
/// the other steps read them in place: its implicit im2col matrix is
/// written out. This costs one pass over the rows' inputs, which every
/// column tile reads again; gathering the pair in the k loop instead
/// takes a vector-pipe zip per pair and group, a fifth of the smmla
/// throughput with 4 column pairs (measured with llvm-mca on a Neoverse
/// V1: 80% of the smmla peak, 100% from packed pairs).
Value QMatmulLowering::packRowPairs(Value prepared) {
  const int64_t pairs = llvm::divideCeil(m, 2), groups = paddedK / tiling.group;
  Value packedPairs = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{pairs * groups * 2 * tiling.group},
      b.getI8Type());
  auto pairLoop = scf::ForOp::create(
      b, loc, index(0), index(pairs), index(1), ValueRange{packedPairs},
      [&](OpBuilder &nb, Location, Value pair, ValueRange pairArgs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        Value first = arith::MulIOp::create(b, loc, pair, index(2));
        Value second = arith::MinUIOp::create(
            b, loc, arith::AddIOp::create(b, loc, first, index(1)),
            index(m - 1));
        Value base0 = image ? image->rowStart(b, loc, first) : first;
        Value base1 = image ? image->rowStart(b, loc, second) : second;
        Value pairStart = arith::MulIOp::create(
            b, loc, pair, index(groups * 2 * tiling.group));
        auto groupLoop = scf::ForOp::create(
            b, loc, index(0), index(groups), index(1), pairArgs,
            [&](OpBuilder &gb, Location, Value g, ValueRange groupArgs) {
              OpBuilder::InsertionGuard guard(b);
              b.setInsertionPointToStart(gb.getInsertionBlock());
              SmallVector<int64_t> concat =
                  llvm::to_vector(llvm::seq<int64_t>(0, 2 * tiling.group));
              auto rowGroup = VectorType::get({tiling.group}, b.getI8Type());
              Value both = vector::ShuffleOp::create(
                  b, loc, readInput(rowGroup, base0, g, prepared),
                  readInput(rowGroup, base1, g, prepared), concat);
              Value at = arith::AddIOp::create(
                  b, loc, pairStart,
                  arith::MulIOp::create(b, loc, g, index(2 * tiling.group)));
              scf::YieldOp::create(b, loc,
                                   vector::TransferWriteOp::create(
                                       b, loc, both, groupArgs[0],
                                       ValueRange{at}, ArrayRef<bool>{true})
                                       .getResult());
            });
        scf::YieldOp::create(b, loc, groupLoop.getResults());
      });
  return pairLoop.getResult(0);
}

/// A `type` vector of the kernel's input, or of the prepared input `from`
/// before packRowPairs, from k group `kGroup` on, of the row whose input
/// starts at `base`: a matrix row, a pixel of the flattened image (through
/// the group's offset), or a packed row pair.
Value QMatmulLowering::readInput(VectorType type, Value base, Value kGroup,
                                 Value from) {
  const bool packedPair = rowPairs && !from;
  if (!from)
    from = input;
  Type element = type.getElementType();
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  SmallVector<Value> indices;
  if (packedPair)
    indices = {arith::AddIOp::create(
        b, loc, base,
        arith::MulIOp::create(b, loc, kGroup, index(2 * tiling.group)))};
  else if (image)
    indices = {arith::AddIOp::create(
        b, loc, base, tensor::ExtractOp::create(b, loc, groupOffsets, kGroup))};
  else
    indices = {base,
               arith::MulIOp::create(b, loc, kGroup, index(tiling.group))};
  return vector::TransferReadOp::create(b, loc, type, from, indices, pad,
                                        ArrayRef<bool>{true});
}

/// The packed row pair of `row` (with rowPairs), else the row.
Value QMatmulLowering::rowBase(Value row) {
  if (!rowPairs)
    return row;
  Value pair = arith::DivUIOp::create(b, loc, row, index(2));
  return arith::MulIOp::create(
      b, loc, pair, index(paddedK / tiling.group * 2 * tiling.group));
}

/// The dot step's lhs of group `kGroup`: its g input values broadcast to
/// every lane, or for the AArch64 steps that read per-lane inputs, a row's
/// 16 bytes (NeonWiden) or a row pair's (NeonMmla).
Value QMatmulLowering::groupInput(Value base, Value kGroup) {
  Value group = readInput(groupVector, base, kGroup);
  if (shape.step == DotStep::NeonWiden || shape.step == DotStep::NeonMmla)
    return group;
  Value word = vector::BitCastOp::create(
      b, loc, VectorType::get({1}, b.getI32Type()), group);
  Value scalar = vector::ExtractOp::create(b, loc, word, ArrayRef<int64_t>{0});
  Value splat = vector::BroadcastOp::create(b, loc, i32Vector, scalar);
  return vector::BitCastOp::create(b, loc, lhsVector, splat);
}

/// NeonDot: the 4 groups from `kGroup` in one 16-byte load...
Value QMatmulLowering::loadInputs(Value base, Value kGroup) {
  return readInput(
      VectorType::get({tiling.groupsPerLoad * tiling.group}, b.getI8Type()),
      base, kGroup);
}

/// ... and group `index` as sdot's by-element operand: its 32-bit lane
/// broadcast, which LLVM folds into the instruction (sdot v.4s, v.16b,
/// v.4b[index]).
Value QMatmulLowering::inputOfGroup(Value inputs, int64_t index) {
  auto words = VectorType::get({tiling.groupsPerLoad}, b.getI32Type());
  Value word = vector::ExtractOp::create(
      b, loc, vector::BitCastOp::create(b, loc, words, inputs),
      ArrayRef<int64_t>{index});
  return vector::BitCastOp::create(
      b, loc, lhsVector, vector::BroadcastOp::create(b, loc, i32Vector, word));
}

/// NeonMmla keeps 2 rows x 2 columns per q register: the accumulator of a
/// strip (4 columns) of rows r0, r1 is [r0 c0 c1, r1 c0 c1 | r0 c2 c3,
/// r1 c2 c3]. NeonWiden keeps 4 partial sums per column: [[c0 x 4], [c1 x
/// 4], ...], the row's value in the first of them.
Value QMatmulLowering::toAccumulator(ArrayRef<Value> rows) {
  switch (shape.step) {
  case DotStep::NeonMmla:
    return vector::ShuffleOp::create(b, loc, rows[0], rows[1],
                                     ArrayRef<int64_t>{0, 1, 4, 5, 2, 3, 6, 7});
  case DotStep::NeonWiden: {
    Value zero = createConstant(cast<TypedAttr>(b.getZeroAttr(i32Vector)));
    Value acc = createConstant(cast<TypedAttr>(b.getZeroAttr(accumulatorType)));
    for (int64_t c = 0; c < tiling.lanes; ++c)
      acc = vector::InsertOp::create(
          b, loc,
          vector::ShuffleOp::create(b, loc, rows[0], zero,
                                    ArrayRef<int64_t>{c, 4, 4, 4}),
          acc, ArrayRef<int64_t>{c});
    return acc;
  }
  default:
    return TiledGemm::toAccumulator(rows);
  }
}

SmallVector<Value> QMatmulLowering::fromAccumulator(Value acc) {
  auto lanes = [&](Value v, ArrayRef<int64_t> positions) -> Value {
    return vector::ShuffleOp::create(b, loc, v, v, positions);
  };
  switch (shape.step) {
  case DotStep::NeonMmla:
    return {lanes(acc, {0, 1, 4, 5}), lanes(acc, {2, 3, 6, 7})};
  case DotStep::NeonWiden: {
    // Two rounds of pairwise sums (addp).
    auto column = [&](int64_t c) -> Value {
      return vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{c});
    };
    auto addPairs = [&](Value lhs, Value rhs) -> Value {
      return arith::AddIOp::create(
          b, loc,
          vector::ShuffleOp::create(b, loc, lhs, rhs,
                                    ArrayRef<int64_t>{0, 2, 4, 6}),
          vector::ShuffleOp::create(b, loc, lhs, rhs,
                                    ArrayRef<int64_t>{1, 3, 5, 7}));
    };
    return {addPairs(addPairs(column(0), column(1)),
                     addPairs(column(2), column(3)))};
  }
  default:
    return TiledGemm::fromAccumulator(acc);
  }
}

Value QMatmulLowering::dot(Value acc, Value lhs, Value rhs) {
  switch (shape.step) {
  case DotStep::Vnni512:
  case DotStep::Vnni:
  case DotStep::MaddUbs:
  case DotStep::Generic:
  case DotStep::NeonDot:
    return emitDotStep(b, loc, shape.step, acc, lhs, rhs, signedInput);
  case DotStep::MaddWd:
    if (widenWeights)
      rhs = arith::ExtSIOp::create(b, loc, lhsVector, rhs);
    return arith::AddIOp::create(
        b, loc, acc,
        callIntrinsic("llvm.x86.avx2.pmadd.wd", i32Vector, {lhs, rhs}));
  case DotStep::NeonMmla: {
    // Two smmla (usmmla for a u8 input), one per column pair of the strip.
    auto quarter = VectorType::get({4}, b.getI32Type());
    SmallVector<Value> halves;
    for (int64_t half = 0; half < 2; ++half) {
      Value part = vector::ExtractStridedSliceOp::create(
          b, loc, acc, ArrayRef<int64_t>{4 * half}, ArrayRef<int64_t>{4},
          ArrayRef<int64_t>{1});
      Value weightsPart = vector::ExtractStridedSliceOp::create(
          b, loc, rhs, ArrayRef<int64_t>{16 * half}, ArrayRef<int64_t>{16},
          ArrayRef<int64_t>{1});
      halves.push_back(signedInput
                           ? arm_neon::SmmlaOp::create(b, loc, quarter, part,
                                                       lhs, weightsPart)
                                 .getResult()
                           : arm_neon::UsmmlaOp::create(b, loc, quarter, part,
                                                        lhs, weightsPart)
                                 .getResult());
    }
    return vector::ShuffleOp::create(b, loc, halves[0], halves[1],
                                     llvm::to_vector(llvm::seq<int64_t>(0, 8)));
  }
  case DotStep::NeonWiden: {
    // Per column c: the row's 16 bytes times the column's 16 weights as two
    // smull (i16 products of s8 values, at most 2^14: exact), each added
    // pairwise into the column's 4 partial sums (sadalp).
    auto products = VectorType::get({8}, b.getI16Type());
    auto slice = [&](Value v, int64_t offset, int64_t size) -> Value {
      return vector::ExtractStridedSliceOp::create(
          b, loc, v, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{size},
          ArrayRef<int64_t>{1});
    };
    for (int64_t c = 0; c < tiling.lanes; ++c) {
      Value sums = vector::ExtractOp::create(b, loc, acc, ArrayRef<int64_t>{c});
      for (int64_t half = 0; half < 2; ++half) {
        Value product = arm_neon::SMullOp::create(
            b, loc, products, slice(lhs, 8 * half, 8),
            slice(rhs, tiling.group * c + 8 * half, 8));
        sums = arith::AddIOp::create(
            b, loc, sums,
            callIntrinsic("llvm.aarch64.neon.saddlp", i32Vector, product));
      }
      acc = vector::InsertOp::create(b, loc, sums, acc, ArrayRef<int64_t>{c});
    }
    return acc;
  }
  }
  llvm_unreachable("unknown dot step");
}

/// out = clamp((acc * mul + 2^(t-1)) >> t + zo): requantize() of the
/// numeric library on L lanes.
Value QMatmulLowering::finish(Value acc, Value row, Value column) {
  if (hasWeightZeroPoints) {
    Value rowSum = tensor::ExtractOp::create(b, loc, rowSums, row);
    Value sums = vector::BroadcastOp::create(b, loc, i32Vector, rowSum);
    acc = arith::SubIOp::create(
        b, loc, acc,
        arith::MulIOp::create(
            b, loc, readColumns(b, loc, weightZero, column, i32Vector), sums));
  }
  if (operands.floatEpilogue)
    return finishFloat(acc, row, column);
  Value result = requantizer->requantize(acc, column);
  if (pairedStrips)
    return result;
  return arith::TruncIOp::create(
      b, loc, VectorType::get({tiling.lanes}, b.getI8Type()),
      arith::MinSIOp::create(
          b, loc,
          arith::MaxSIOp::create(b, loc, result,
                                 splat(b, loc, i32Vector, operands.outputMin)),
          splat(b, loc, i32Vector, operands.outputMax)));
}

/// numerics::dynamicLinear's output from the accumulator, one float
/// operation at a time in its order (LLVM contracts none of them into an
/// FMA without fast-math flags): onednn (acc + bias * s) * (1 / s) with s
/// = f32(1 / sa) * f32(1 / sw), QNNPACK (sw * sa) * acc + bias (+0 without
/// one, as QNNPACK adds), ONNX Runtime the same without that +0.
Value QMatmulLowering::finishFloat(Value acc, Value row, Value column) {
  const FloatEpilogue &epilogue = *operands.floatEpilogue;
  auto floatVector = VectorType::get({tiling.lanes}, b.getF32Type());
  Value value = arith::SIToFPOp::create(b, loc, floatVector, acc);
  Value weightFactor = readColumns(b, loc, columnFactors, column, floatVector);
  Value inputFactor =
      vector::BroadcastOp::create(b, loc, floatVector, epilogue.inputFactor);
  Value bias = epilogue.bias
                   ? readColumns(b, loc, columnBias, column, floatVector)
                   : Value();
  if (epilogue.engine != DynamicEngine::onednn) {
    Value multiplier = arith::MulFOp::create(b, loc, weightFactor, inputFactor);
    value = arith::MulFOp::create(b, loc, multiplier, value);
    if (!bias && epilogue.engine == DynamicEngine::qnnpack)
      bias = createConstant(cast<TypedAttr>(b.getZeroAttr(floatVector)));
    if (bias)
      value = arith::AddFOp::create(b, loc, value, bias);
  } else {
    Value biasScale = arith::MulFOp::create(b, loc, inputFactor, weightFactor);
    Value one = createConstant(DenseElementsAttr::get(floatVector, 1.0f));
    Value outputScale = arith::DivFOp::create(b, loc, one, biasScale);
    if (bias)
      value = arith::AddFOp::create(
          b, loc, value, arith::MulFOp::create(b, loc, bias, biasScale));
    value = arith::MulFOp::create(b, loc, value, outputScale);
  }
  if (epilogue.elementwise.empty())
    return value;
  // Columns past N (the last strip's padding) read zeros.
  return epilogue.elementwise.applyAt(b, loc, value, row, column,
                                      createConstant(b.getF32FloatAttr(0.0f)),
                                      epilogue.elementwiseMatrices);
}

int64_t QMatmulLowering::outputZeroPoint() {
  return cast<quant::UniformQuantizedType>(operands.outputType.getElementType())
      .getZeroPoint();
}

/// `bytes`, saturated to the output's storage type, clamped to a narrower
/// output range.
Value QMatmulLowering::clampBytes(Value bytes) {
  auto type = cast<VectorType>(bytes.getType());
  const bool signedOutput =
      cast<quant::UniformQuantizedType>(operands.outputType.getElementType())
          .isSigned();
  const int64_t storageMin = signedOutput ? INT8_MIN : 0,
                storageMax = signedOutput ? INT8_MAX : UINT8_MAX;
  if (operands.outputMin > storageMin) {
    Value lo = splat(b, loc, type, operands.outputMin);
    bytes = signedOutput
                ? arith::MaxSIOp::create(b, loc, bytes, lo).getResult()
                : arith::MaxUIOp::create(b, loc, bytes, lo).getResult();
  }
  if (operands.outputMax < storageMax) {
    Value hi = splat(b, loc, type, operands.outputMax);
    bytes = signedOutput
                ? arith::MinSIOp::create(b, loc, bytes, hi).getResult()
                : arith::MinUIOp::create(b, loc, bytes, hi).getResult();
  }
  return bytes;
}

/// sqxtn and sqxtn2 saturate each pair's two i32 vectors into one of i16,
/// sqxtun (sqxtn for an s8 output) both pairs' into 16 bytes, consecutive
/// columns in order: 3 instructions per 4 vectors where a clamp and two
/// narrows each took 16.
Value QMatmulLowering::narrowPairsNeon(ArrayRef<Value> outputs) {
  auto words = VectorType::get({4}, b.getI16Type());
  auto halfBytes = VectorType::get({8}, b.getI8Type());
  const bool signedOutput =
      cast<quant::UniformQuantizedType>(operands.outputType.getElementType())
          .isSigned();
  auto concat = [&](Value lhs, Value rhs) -> Value {
    const int64_t size = 2 * cast<VectorType>(lhs.getType()).getDimSize(0);
    return vector::ShuffleOp::create(
        b, loc, lhs, rhs, llvm::to_vector(llvm::seq<int64_t>(0, size)));
  };
  auto pairWords = [&](Value first, Value second) {
    return concat(callIntrinsic("llvm.aarch64.neon.sqxtn", words, first),
                  callIntrinsic("llvm.aarch64.neon.sqxtn", words, second));
  };
  StringRef toBytes =
      signedOutput ? "llvm.aarch64.neon.sqxtn" : "llvm.aarch64.neon.sqxtun";
  Value bytes = concat(
      callIntrinsic(toBytes, halfBytes, pairWords(outputs[0], outputs[1])),
      callIntrinsic(toBytes, halfBytes, pairWords(outputs[2], outputs[3])));
  return clampBytes(bytes);
}

/// Two vpackssdw and a vpackuswb (vpacksswb for an s8 output) saturate the
/// four vectors of finish to the output's storage type, as a clamp would;
/// a narrower output range is clamped on the bytes, four vectors at once.
/// A vpermq gathers each pair's 8-byte pieces (see TiledGemm::columnAt).
/// LLVM 22's InstCombine folds the extraction of each half into its own
/// permute: two vpermq where one and a vextracti64x4 store would do (one
/// uop per four accumulators; not worked around).
Value QMatmulLowering::narrowPairs(ArrayRef<Value> outputs) {
  if (shape.epilogue == VectorRequantizer::Kind::Neon)
    return narrowPairsNeon(outputs);
  const int64_t lanes = tiling.lanes;
  const bool zmm = lanes == 16;
  auto words = VectorType::get({2 * lanes}, b.getI16Type());
  auto bytes = VectorType::get({4 * lanes}, b.getI8Type());
  StringRef packDwords =
      zmm ? "llvm.x86.avx512.packssdw.512" : "llvm.x86.avx2.packssdw";
  auto outputType =
      cast<quant::UniformQuantizedType>(operands.outputType.getElementType());
  const bool signedOutput = outputType.isSigned();
  StringRef packWords =
      signedOutput
          ? (zmm ? "llvm.x86.avx512.packsswb.512" : "llvm.x86.avx2.packsswb")
          : (zmm ? "llvm.x86.avx512.packuswb.512" : "llvm.x86.avx2.packuswb");
  Value packed = callIntrinsic(
      packWords, bytes,
      {callIntrinsic(packDwords, words, {outputs[0], outputs[1]}),
       callIntrinsic(packDwords, words, {outputs[2], outputs[3]})});
  packed = clampBytes(packed);
  auto qwords = VectorType::get({lanes / 2}, b.getI64Type());
  SmallVector<int64_t> order;
  for (int64_t parity : {0, 1})
    for (int64_t q = parity; q < lanes / 2; q += 2)
      order.push_back(q);
  Value pieces = vector::BitCastOp::create(b, loc, qwords, packed);
  return vector::BitCastOp::create(
      b, loc, bytes, vector::ShuffleOp::create(b, loc, pieces, pieces, order));
}

/// sum_k a[m][k] of the stored input (before any sign flip), for the
/// weight zero points: over a matrix's rows (of each batch, for a batch of
/// matrices), or over an image's windows.
Value QMatmulLowering::computeRowSums(Value storage) {
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned position) {
    return getAffineDimExpr(position, context);
  };
  // Matrix: ([batch,] m, k) -> a[batch][m][k], sums[batch][m]. Image: (b,
  // oh, ow, kh, kw, c) -> a[b][oh * SH + kh * DH][ow * SW + kw * DW][c],
  // sums[b][oh][ow].
  ArrayRef<int64_t> storageShape =
      cast<RankedTensorType>(storage.getType()).getShape();
  unsigned loops = storageShape.size();
  SmallVector<AffineExpr> inputIndex, sumIndex;
  for (unsigned dim = 0; dim < loops; ++dim)
    inputIndex.push_back(d(dim));
  sumIndex.assign(inputIndex.begin(), inputIndex.end() - 1);
  SmallVector<int64_t> sumShape(storageShape.drop_back());
  SmallVector<Value> inputs{storage};
  if (image) {
    loops = 6;
    inputIndex = {d(0), d(1) * image->strideH + d(3) * image->dilationH,
                  d(2) * image->strideW + d(4) * image->dilationW, d(5)};
    sumIndex = {d(0), d(1), d(2)};
    sumShape = {operands.inputType.getDimSize(0), image->outputHeight,
                image->outputWidth};
    // linalg infers the loop bounds from the operands' shapes: an unread
    // [KH, KW, C] operand bounds the window's loops, as a filter does.
    inputs.push_back(tensor::EmptyOp::create(
        b, loc,
        ArrayRef<int64_t>{image->kernelH, image->kernelW,
                          operands.inputType.getDimSize(3)},
        b.getI8Type()));
  }
  SmallVector<AffineMap> maps{AffineMap::get(loops, 0, inputIndex, context)};
  if (image)
    maps.push_back(AffineMap::get(loops, 0, {d(3), d(4), d(5)}, context));
  maps.push_back(AffineMap::get(loops, 0, sumIndex, context));
  SmallVector<utils::IteratorType> iterators(loops,
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), sumIndex.size(),
              utils::IteratorType::parallel);
  Value zeroSum = arith::ConstantIntOp::create(b, loc, b.getI32Type(), 0);
  Value init =
      linalg::FillOp::create(
          b, loc, zeroSum,
          ValueRange{tensor::EmptyOp::create(b, loc, sumShape, b.getI32Type())})
          .getResult(0);
  Value sums =
      linalg::GenericOp::create(
          b, loc, init.getType(), inputs, init, maps, iterators,
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value v =
                signedInput
                    ? arith::ExtSIOp::create(nb, nloc, nb.getI32Type(), args[0])
                          .getResult()
                    : arith::ExtUIOp::create(nb, nloc, nb.getI32Type(), args[0])
                          .getResult();
            linalg::YieldOp::create(
                nb, nloc,
                arith::AddIOp::create(nb, nloc, args.back(), v).getResult());
          })
          .getResult(0);
  if (!image)
    return sums;
  return tensor::CollapseShapeOp::create(
      b, loc, sums, ArrayRef<ReassociationIndices>{{0, 1, 2}});
}

/// The column offsets: added before the k loop instead of in the epilogue
/// (a load instead of an add there), the same sum modulo 2^32 as every
/// dot step wraps.
Value QMatmulLowering::initialAccumulator(Value, Value, Value column, bool) {
  return readColumns(b, loc, offsets, column, i32Vector);
}

void QMatmulLowering::configure(bool runTimeWeights) {
  auto element =
      cast<quant::UniformQuantizedType>(operands.inputType.getElementType());
  signedInput = element.isSigned();
  // vpmaddwd reads i16 pairs, the other steps groups of 4 bytes. Below one
  // full tile of rows, vpmaddwd is bound by reading its weights: it reads
  // them as s8 and widens them in registers (vpmovsxbw), half the bytes.
  const bool wordPairs = shape.step == DotStep::MaddWd;
  widenWeights = wordPairs && m < tiling.rows;
  Type inputElement = wordPairs ? b.getI16Type() : b.getI8Type();
  packedVector = VectorType::get({tiling.lanes * tiling.group},
                                 wordPairs && !widenWeights ? inputElement
                                                            : b.getI8Type());
  i32Vector = VectorType::get({tiling.lanes}, b.getI32Type());
  // A float output is written vector by vector: nothing to narrow.
  pairedStrips = shape.packs && !operands.floatEpilogue;
  laneInterleavedPairs =
      pairedStrips && shape.epilogue != VectorRequantizer::Kind::Neon;
  rowPairs = shape.step == DotStep::NeonMmla;
  // The dot step's input: g bytes broadcast to the L lanes, a row pair's 2
  // x 8 bytes (smmla), or a row's 16 bytes (smull).
  groupVector =
      VectorType::get({tiling.group * (rowPairs ? 2 : 1)}, inputElement);
  switch (shape.step) {
  case DotStep::NeonMmla:
    lhsVector = VectorType::get({16}, inputElement);
    accumulatorType = VectorType::get({2 * tiling.lanes}, b.getI32Type());
    break;
  case DotStep::NeonWiden:
    // One q register per column: a 2-D vector, which LLVM keeps as an
    // array of registers (a 16-lane one is split and rejoined by
    // shuffles at every step, and spills).
    lhsVector = VectorType::get({16}, inputElement);
    accumulatorType =
        VectorType::get({tiling.lanes, tiling.lanes}, b.getI32Type());
    break;
  default:
    lhsVector = VectorType::get({tiling.lanes * tiling.group}, inputElement);
    accumulatorType = i32Vector;
    break;
  }
  if ((shape.inputSign == InputSign::Unsigned && signedInput) ||
      (shape.inputSign == InputSign::Signed && !signedInput))
    flipDelta = signedInput ? 128 : -128;

  // Epilogue constants, padded to whole tiles.
  auto perChannel = [&](ArrayRef<int32_t> values, int64_t col) {
    return values.size() == 1 ? values[0] : values[col];
  };
  // Padding columns (multiplier 0) take a shift every path accepts.
  SmallVector<int32_t> offsetValues(paddedN, 0), multiplierValues(paddedN, 0),
      zeroValues(paddedN, 0), totalShifts(paddedN, 33);
  // Flipping the sign bit adds flipDelta to every input: take flipDelta *
  // colsum back out of the offsets (at run time: runTimeOffsets).
  const std::vector<int32_t> columnSums =
      flipDelta && !runTimeWeights
          ? numerics::computeColumnSums(weights.data(), k, n)
          : std::vector<int32_t>();
  // Indexed by packed column (the kernel reads them as it reads B).
  for (int64_t at = 0; at < paddedN; ++at) {
    const int64_t col = columnAt(at);
    if (col >= n)
      continue;
    if (!runTimeWeights) {
      int64_t offset = operands.columnOffsets[col];
      if (flipDelta)
        offset -= flipDelta * int64_t(columnSums[col]);
      offsetValues[at] = static_cast<int32_t>(offset); // wraps like the acc
    }
    multiplierValues[at] = perChannel(operands.multipliers, col);
    totalShifts[at] = 31 - perChannel(operands.shifts, col);
    zeroValues[at] = perChannel(operands.weightZeroPoints, col);
    hasWeightZeroPoints |= zeroValues[at] != 0;
  }
  if (!runTimeWeights)
    offsets = constantTensor(offsetValues);
  if (hasWeightZeroPoints)
    weightZero = constantTensor(zeroValues);
  if (const std::optional<FloatEpilogue> &epilogue = operands.floatEpilogue) {
    // Padding columns: factor 0, bias 0 (never written).
    SmallVector<float> factors(paddedN, 0.0f), bias(paddedN, 0.0f);
    for (int64_t at = 0; at < paddedN; ++at) {
      const int64_t col = columnAt(at);
      if (col >= n)
        continue;
      const float scale = epilogue->weightScales.size() == 1
                              ? epilogue->weightScales[0]
                              : epilogue->weightScales[col];
      // ideep's prepack keeps 1 / weight scale, divided in double.
      factors[at] = epilogue->engine == DynamicEngine::onednn
                        ? static_cast<float>(1.0 / static_cast<double>(scale))
                        : scale;
      if (epilogue->bias)
        bias[at] = (*epilogue->bias)[col];
    }
    auto tableType = RankedTensorType::get({paddedN}, b.getF32Type());
    columnFactors =
        createConstant(DenseElementsAttr::get(tableType, ArrayRef(factors)));
    if (epilogue->bias)
      columnBias =
          createConstant(DenseElementsAttr::get(tableType, ArrayRef(bias)));
    return;
  }
  requantizer.emplace(b, loc, shape.epilogue, tiling.lanes, multiplierValues,
                      totalShifts, outputZeroPoint());
}

Value QMatmulLowering::buildWithConstantWeights(Value quantizedInput) {
  configure();
  auto storageType = operands.inputType.clone(b.getI8Type());
  Value storage =
      quant::StorageCastOp::create(b, loc, storageType, quantizedInput);
  if (hasWeightZeroPoints)
    rowSums = computeRowSums(storage);
  Value prepared = prepareInput(pad ? pad.getSource() : storage);
  return quant::StorageCastOp::create(b, loc, operands.outputType,
                                      build(prepared, packConstantWeights()));
}

Value QMatmulLowering::packConstantWeights() {
  if (packedElement() == b.getI8Type())
    return packWeights(weights, packedElement());
  SmallVector<int16_t> widened(weights.begin(), weights.end());
  return packWeights(ArrayRef<int16_t>(widened), packedElement());
}

Value QMatmulLowering::zeroPointOffsets(Value zeroPoint) {
  const std::vector<int32_t> columnSums =
      numerics::computeColumnSums(weights.data(), k, n);
  // Per packed column: colsum, and K * zb (wrapping like the accumulator).
  SmallVector<int32_t> sums(paddedN, 0), zeroTerms(paddedN, 0);
  for (int64_t at = 0; at < paddedN; ++at)
    if (const int64_t col = columnAt(at); col < n) {
      sums[at] = columnSums[col];
      const int64_t zb = operands.weightZeroPoints.size() == 1
                             ? operands.weightZeroPoints[0]
                             : operands.weightZeroPoints[col];
      zeroTerms[at] = static_cast<int32_t>(static_cast<uint32_t>(k * zb));
    }
  Type i32 = b.getI32Type();
  // -(za + flipDelta), the same factor for every column.
  Value factor = arith::SubIOp::create(
      b, loc, arith::ConstantIntOp::create(b, loc, i32, -flipDelta), zeroPoint);
  SmallVector<Value> inputs{constantTensor(sums)};
  if (hasWeightZeroPoints)
    inputs.push_back(constantTensor(zeroTerms));
  auto type = RankedTensorType::get({paddedN}, i32);
  auto identity = b.getMultiDimIdentityMap(1);
  SmallVector<AffineMap> maps(inputs.size() + 1, identity);
  return linalg::GenericOp::create(
             b, loc, type, inputs,
             ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), i32)},
             maps, ArrayRef<utils::IteratorType>{utils::IteratorType::parallel},
             [&](OpBuilder &nb, Location nloc, ValueRange args) {
               // -(za + flipDelta) * colsum [+ K * zb * za]
               Value offset = arith::MulIOp::create(nb, nloc, args[0], factor);
               if (hasWeightZeroPoints)
                 offset = arith::AddIOp::create(
                     nb, nloc, offset,
                     arith::MulIOp::create(nb, nloc, args[1], zeroPoint));
               linalg::YieldOp::create(nb, nloc, offset);
             })
      .getResult(0);
}

Value QMatmulLowering::build(Value prepared, Value packedWeights,
                             Value runTimeOffsets, Value runTimeRowSums) {
  input = prepared;
  packed = packedWeights;
  if (runTimeOffsets)
    offsets = runTimeOffsets;
  if (runTimeRowSums)
    rowSums = runTimeRowSums;
  if (image)
    groupOffsets = image->groupOffsets(b, loc, segmentGroups, tiling.group);
  if (rowPairs)
    input = packRowPairs(input);
  else if (image)
    classifyImageRows();
  Value output = tensor::EmptyOp::create(
      b, loc, ArrayRef<int64_t>{m, n},
      operands.floatEpilogue ? Type(b.getF32Type()) : Type(b.getI8Type()));
  StringRef stepName = shape.name;
  if (rowPairs && !signedInput)
    stepName = "usmmla";
  return emitTiles(output, stepName);
}

Value QMatmulLowering::runTimeOffsets(
    Value storage, int64_t inputZeroPoint,
    function_ref<Value(OpBuilder &, Location, Value)> toWeight) {
  MLIRContext *context = b.getContext();
  auto d = [&](unsigned position) {
    return getAffineDimExpr(position, context);
  };
  ArrayRef<int64_t> shape =
      cast<RankedTensorType>(storage.getType()).getShape();
  const int64_t batches = shape[0];
  Type i32 = b.getI32Type();
  // colsum[batch][n] = sum_k w[batch][k][n].
  Value zero = arith::ConstantIntOp::create(b, loc, i32, 0);
  Value init =
      linalg::FillOp::create(b, loc, zero,
                             ValueRange{tensor::EmptyOp::create(
                                 b, loc, ArrayRef<int64_t>{batches, n}, i32)})
          .getResult(0);
  Value columnSums =
      linalg::GenericOp::create(
          b, loc, init.getType(), storage, init,
          ArrayRef<AffineMap>{AffineMap::get(3, 0, {d(0), d(1), d(2)}, context),
                              AffineMap::get(3, 0, {d(0), d(2)}, context)},
          ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                        utils::IteratorType::reduction,
                                        utils::IteratorType::parallel},
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            Value w = arith::ExtSIOp::create(nb, nloc, nb.getI32Type(),
                                             toWeight(nb, nloc, args[0]));
            linalg::YieldOp::create(
                nb, nloc,
                arith::AddIOp::create(nb, nloc, args[1], w).getResult());
          })
          .getResult(0);
  // In packed column order, padding columns 0 (as packWeights leaves them).
  SmallVector<int64_t> columns;
  for (int64_t at = 0; at < paddedN; ++at)
    columns.push_back(columnAt(at));
  Value columnTable = createConstant(
      DenseElementsAttr::get(RankedTensorType::get({paddedN}, b.getIndexType()),
                             ArrayRef<int64_t>(columns)));
  const int64_t weightZeroPoint = operands.weightZeroPoints[0];
  auto type = RankedTensorType::get({batches, paddedN}, i32);
  return linalg::GenericOp::create(
             b, loc, type, ValueRange{},
             ValueRange{tensor::EmptyOp::create(b, loc, type.getShape(), i32)},
             ArrayRef<AffineMap>{AffineMap::getMultiDimIdentityMap(2, context)},
             ArrayRef<utils::IteratorType>{utils::IteratorType::parallel,
                                           utils::IteratorType::parallel},
             [&](OpBuilder &nb, Location nloc, ValueRange) {
               Value batch = linalg::IndexOp::create(nb, nloc, 0);
               Value column = tensor::ExtractOp::create(
                   nb, nloc, columnTable,
                   ValueRange{linalg::IndexOp::create(nb, nloc, 1)});
               auto constant = [&](int64_t value) -> Value {
                 return arith::ConstantIntOp::create(nb, nloc, nb.getI32Type(),
                                                     value);
               };
               Value valid = arith::CmpIOp::create(
                   nb, nloc, arith::CmpIPredicate::ult, column,
                   arith::ConstantIndexOp::create(nb, nloc, n));
               Value sum = tensor::ExtractOp::create(
                   nb, nloc, columnSums,
                   ValueRange{batch, arith::MinUIOp::create(
                                         nb, nloc, column,
                                         arith::ConstantIndexOp::create(
                                             nb, nloc, n - 1))});
               // Wraps like the i32 accumulator, as the constant offsets do.
               Value offset = arith::AddIOp::create(
                   nb, nloc,
                   arith::MulIOp::create(
                       nb, nloc, sum, constant(-(inputZeroPoint + flipDelta))),
                   constant(static_cast<int32_t>(k * inputZeroPoint *
                                                 weightZeroPoint)));
               linalg::YieldOp::create(
                   nb, nloc,
                   arith::SelectOp::create(nb, nloc, valid, offset, constant(0))
                       .getResult());
             })
      .getResult(0);
}

/// The output pixels in classes by their taps inside the image (see
/// ImageWindow::classifyRows; one class without `pad`), each row's input
/// start a table entry (measured: a 1x1 convolution of stride 2, K = 256,
/// 2.5% faster than computing it per row and tile). A skipped tap would
/// have added the padding value, as the dot step reads it, times its
/// weights: each class's accumulators start from that sum.
void QMatmulLowering::classifyImageRows() {
  SmallVector<SmallVector<int64_t>> skippedTaps;
  rowClasses =
      image->classifyRows(b.getContext(), operands.inputType.getDimSize(0),
                          segmentGroups, skippedTaps);
  if (!pad)
    return;
  APInt padding;
  matchPattern(pad.getConstantPaddingValue(), m_ConstantInt(&padding));
  const int64_t value =
      (signedInput ? padding.getSExtValue() : padding.getZExtValue()) +
      flipDelta;
  if (value == 0)
    return;
  const int64_t channels = k / segments;
  for (ArrayRef<int64_t> taps : skippedTaps) {
    SmallVector<int32_t> start(paddedN, 0);
    for (int64_t at = 0; at < paddedN; ++at) {
      const int64_t col = columnAt(at);
      if (col >= n)
        continue;
      int64_t sum = 0;
      for (int64_t tap : taps)
        for (int64_t c = 0; c < channels; ++c)
          sum += weights[(tap * channels + c) * n + col];
      // Wraps like the i32 accumulator.
      start[at] = static_cast<int32_t>(static_cast<uint32_t>(value * sum));
    }
    llvm::append_range(rowClasses->startOffsets, start);
  }
}

/// The i8 `weights` of `op`, K x N row-major.
static FailureOr<SmallVector<int8_t>>
getWeightValues(Operation *op, ElementsAttr attr, StringRef pass) {
  // i8 storage read as bytes, not an APInt per value (with packValues'
  // per-element index arithmetic: 0.3 s of quanta-lower-x86's 0.44 s on
  // ResNet-18).
  if (auto bytes = attr.tryGetValues<int8_t>())
    return SmallVector<int8_t>(bytes->begin(), bytes->end());
  auto values = attr.tryGetValues<APInt>();
  if (!values)
    return op->emitOpError()
           << pass << " needs weights whose values can be read, got " << attr;
  SmallVector<int8_t> weights;
  for (APInt value : *values)
    weights.push_back(static_cast<int8_t>(value.getSExtValue()));
  return weights;
}

/// The best step `target` has for a GEMM of `rows` rows. On AArch64,
/// i8mm's smmla does twice the products of dotprod's sdot per instruction,
/// sdot four times those of ARMv8.0's widening multiplies; but smmla
/// multiplies row pairs, and a single row (a GEMV) would compute a copy of
/// itself: both read 16 weights per instruction, so sdot's by-element form
/// does the same useful products without packing row pairs (llvm-mca on a
/// Neoverse V1, 1 x 1024 x 1024: see benchmarks/neon_kernels_mca.py). On
/// AVX2, vpmaddubsw only where `isMaddUbsExact` says saturation is
/// impossible for the input's storage range [lo, hi] (flipped to u8 for s8
/// inputs).
static DotStep
chooseDotStep(const TargetDescription &target, int64_t rows,
              quant::UniformQuantizedType input,
              function_ref<bool(int64_t lo, int64_t hi)> isMaddUbsExact) {
  using F = TargetFeature;
  switch (target.getArch()) {
  case TargetArch::AArch64:
    if (target.has(F::I8mm) && (rows > 1 || !target.has(F::DotProd)))
      return DotStep::NeonMmla;
    if (target.has(F::DotProd))
      return DotStep::NeonDot;
    return target.has(F::Neon) ? DotStep::NeonWiden : DotStep::Generic;
  case TargetArch::Other:
    return DotStep::Generic;
  case TargetArch::X86_64:
    break;
  }
  return chooseX86DotStep(target, [&] {
    int64_t lo = input.getStorageTypeMin(), hi = input.getStorageTypeMax();
    if (input.isSigned()) {
      lo += 128;
      hi += 128;
    }
    return isMaddUbsExact(lo, hi);
  });
}

LogicalResult mlir::quanta::lowerQMatmul(RewriterBase &rewriter, QMatmulOp op,
                                         const TargetDescription &target,
                                         StringRef pass) {
  FailureOr<SmallVector<int8_t>> weights =
      getWeightValues(op, op.getWeights(), pass);
  if (failed(weights))
    return failure();
  if (op.getDepthwise())
    return lowerQDepthwise(rewriter, op, target, *weights);
  auto shape = cast<ShapedType>(op.getWeights().getType()).getShape();
  // An image input's K is a run of C channels per tap.
  const int64_t segmentK =
      op.getWindow() ? op.getInput().getType().getDimSize(3) : shape[0];
  KernelShape kernel = getKernelShape(chooseDotStep(
      target, op.getOutput().getType().getDimSize(0),
      cast<quant::UniformQuantizedType>(
          op.getInput().getType().getElementType()),
      [&](int64_t lo, int64_t hi) {
        return isMaddUbsExact(*weights, shape[0], shape[1], segmentK, lo, hi);
      }));
  Value result = QMatmulLowering(getOperands(op), kernel, *weights)
                     .buildWithConstantWeights(op.getInput());
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(op, kernel.tiling.lanes * 32);
  rewriter.replaceOp(op, result);
  return success();
}

/// The rhs of a quanta.qbatch_matmul as the dot steps read weights: s8.
/// Storage that is s8, or u8 within [0, 127] (reduce_range's u8<0:127>),
/// is read as it is; other u8 storage has its sign bit flipped (b - 128),
/// its zero point with it.
struct RunTimeWeights {
  bool flip;
  int64_t zeroPoint, min, max;

  explicit RunTimeWeights(quant::UniformQuantizedType type)
      : flip(!type.isSigned() && type.getStorageTypeMax() > INT8_MAX),
        zeroPoint(type.getZeroPoint() - (flip ? 128 : 0)),
        min(type.getStorageTypeMin() - (flip ? 128 : 0)),
        max(type.getStorageTypeMax() - (flip ? 128 : 0)) {}

  /// Converts a stored i8 value to the weight, and that to `element`.
  Value convert(OpBuilder &b, Location loc, Value stored, Type element) const {
    Value weight = stored;
    if (flip)
      weight = arith::XOrIOp::create(
          b, loc, weight,
          arith::ConstantIntOp::create(b, loc, b.getI8Type(), 0x80));
    if (element != weight.getType())
      weight = arith::ExtSIOp::create(b, loc, element, weight);
    return weight;
  }
};

/// The [B, ...] tensor `value`'s batch `batch`, without the batch
/// dimension.
static Value sliceBatch(OpBuilder &b, Location loc, Value value, Value batch) {
  auto type = cast<RankedTensorType>(value.getType());
  SmallVector<OpFoldResult> offsets{batch}, sizes{b.getIndexAttr(1)},
      strides(type.getRank(), b.getIndexAttr(1));
  for (int64_t size : type.getShape().drop_front()) {
    offsets.push_back(b.getIndexAttr(0));
    sizes.push_back(b.getIndexAttr(size));
  }
  return tensor::ExtractSliceOp::create(
      b, loc,
      RankedTensorType::get(type.getShape().drop_front(),
                            type.getElementType()),
      value, offsets, sizes, strides);
}

LogicalResult mlir::quanta::lowerQBatchMatmul(RewriterBase &rewriter,
                                              QBatchMatmulOp op,
                                              const TargetDescription &target) {
  auto lhsType =
      cast<quant::UniformQuantizedType>(op.getLhs().getType().getElementType());
  auto rhsType =
      cast<quant::UniformQuantizedType>(op.getRhs().getType().getElementType());
  ArrayRef<int64_t> lhsShape = op.getLhs().getType().getShape();
  const int64_t batches = lhsShape[0], m = lhsShape[1], k = lhsShape[2],
                n = op.getRhs().getType().getDimSize(2);
  const RunTimeWeights weights(rhsType);
  // vpmaddubsw is exact when no two products of an input in [lo, hi] and a
  // weight in [min, max] sum outside i16.
  KernelShape kernel = getKernelShape(
      chooseDotStep(target, m, lhsType, [&](int64_t lo, int64_t hi) {
        const int64_t products[] = {lo * weights.min, lo * weights.max,
                                    hi * weights.min, hi * weights.max};
        return 2 * *llvm::max_element(products) <= INT16_MAX &&
               2 * *llvm::min_element(products) >= INT16_MIN;
      }));
  auto outputType = op.getOutput().getType();
  IntegerGemmOperands operands{
      op,
      RankedTensorType::get({m, k}, lhsType),
      RankedTensorType::get({m, n}, outputType.getElementType()),
      k,
      std::nullopt,
      {static_cast<int32_t>(weights.zeroPoint)},
      {static_cast<int32_t>(op.getMultiplier())},
      {static_cast<int32_t>(op.getShift())},
      {},
      static_cast<int32_t>(op.getOutputMin()),
      static_cast<int32_t>(op.getOutputMax()),
      {}};
  QMatmulLowering lowering(operands, kernel, {});
  lowering.configure(/*runTimeWeights=*/true);
  // Every batch's operands prepared before the loop (buffers of the arena,
  // not one per parallel iteration); the kernel, built once in the loop's
  // body, reads its batch's.
  OpBuilder b(op);
  Location loc = op.getLoc();
  auto storage = [&](Value value) -> Value {
    auto type = cast<RankedTensorType>(value.getType());
    return quant::StorageCastOp::create(b, loc, type.clone(b.getI8Type()),
                                        value);
  };
  Value lhs = storage(op.getLhs()), rhs = storage(op.getRhs());
  Value prepared = lowering.prepareInput(lhs);
  Value rowSums =
      weights.zeroPoint != 0 ? lowering.computeRowSums(lhs) : Value();
  Type packedElement = lowering.packedElement();
  auto toPacked = [&](OpBuilder &nb, Location nloc, Value stored) {
    return weights.convert(nb, nloc, stored, packedElement);
  };
  auto toWeight = [&](OpBuilder &nb, Location nloc, Value stored) {
    return weights.convert(nb, nloc, stored, nb.getI8Type());
  };
  Value packed = lowering.packAtRunTime(rhs, packedElement, toPacked);
  Value offsets =
      lowering.runTimeOffsets(rhs, lhsType.getZeroPoint(), toWeight);
  Value output =
      tensor::EmptyOp::create(b, loc, outputType.getShape(), b.getI8Type());
  Value zero = arith::ConstantIndexOp::create(b, loc, 0);
  auto loop = scf::ForOp::create(
      b, loc, zero, arith::ConstantIndexOp::create(b, loc, batches),
      arith::ConstantIndexOp::create(b, loc, 1), ValueRange{output},
      [&](OpBuilder &nb, Location, Value batch, ValueRange iterArgs) {
        // The kernel builds before the yield, which then takes its result.
        auto yield = scf::YieldOp::create(nb, loc, iterArgs);
        nb.setInsertionPoint(yield);
        lowering.setInsertionPoint(yield);
        Value result = lowering.build(
            sliceBatch(nb, loc, prepared, batch),
            sliceBatch(nb, loc, packed, batch),
            sliceBatch(nb, loc, offsets, batch),
            rowSums ? sliceBatch(nb, loc, rowSums, batch) : Value());
        SmallVector<OpFoldResult> at{batch, nb.getIndexAttr(0),
                                     nb.getIndexAttr(0)};
        SmallVector<OpFoldResult> sizes{nb.getIndexAttr(1), nb.getIndexAttr(m),
                                        nb.getIndexAttr(n)};
        SmallVector<OpFoldResult> strides(3, nb.getIndexAttr(1));
        yield->setOperands(tensor::InsertSliceOp::create(
                               nb, loc, result, iterArgs[0], at, sizes, strides)
                               .getResult());
      });
  if (batches > 1)
    loop->setAttr(kParallelLoopAttrName, b.getUnitAttr());
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(loop, kernel.tiling.lanes * 32);
  rewriter.replaceOp(
      op, quant::StorageCastOp::create(b, loc, outputType, loop.getResult(0))
              .getResult());
  return success();
}

/// numerics::dynamicLinear's output for an input of K = 0, whose qparams
/// and accumulators do not depend on it: a constant.
static FailureOr<Value> emptyProductOutput(OpBuilder &b, DynamicQMatmulOp op) {
  RankedTensorType type = op.getOutput().getType();
  const int64_t m = type.getDimSize(0), n = type.getDimSize(1);
  ArrayRef<float> scales = op.getWeightScales();
  numerics::DynamicWeights weights{{}, {scales.begin(), scales.end()}, {}};
  SmallVector<float> bias, output(m * n);
  if (std::optional<ArrayRef<float>> values = op.getBias())
    bias.assign(values->begin(), values->end());
  if (numerics::Status status = numerics::dynamicLinear(
          toNumericDynamicEngine(op.getEngine()), nullptr, m, 0, weights, n,
          bias.empty() ? nullptr : bias.data(), output.data());
      !status)
    return op.emitOpError() << status.getMessage();
  return arith::ConstantOp::create(
             b, op.getLoc(), DenseElementsAttr::get(type, ArrayRef(output)))
      .getResult();
}

LogicalResult mlir::quanta::lowerDynamicQMatmul(RewriterBase &rewriter,
                                                DynamicQMatmulOp op,
                                                const TargetDescription &target,
                                                StringRef pass) {
  FailureOr<SmallVector<int8_t>> weights =
      getWeightValues(op, op.getWeights(), pass);
  if (failed(weights))
    return failure();
  OpBuilder b(op);
  Location loc = op.getLoc();
  RankedTensorType inputType = op.getInput().getType(),
                   outputType = op.getOutput().getType();
  // The input: a matrix, or with a window an image read as its im2col
  // matrix.
  const int64_t m = outputType.getDimSize(0),
                k = cast<ShapedType>(op.getWeights().getType()).getDimSize(0),
                n = outputType.getDimSize(1), rank = inputType.getRank();
  if (m == 0) {
    rewriter.replaceOp(op, tensor::EmptyOp::create(
                               b, loc, outputType.getShape(), b.getF32Type())
                               .getResult());
    return success();
  }
  if (k == 0) {
    FailureOr<Value> output = emptyProductOutput(b, op);
    if (failed(output))
      return failure();
    rewriter.replaceOp(op, *output);
    return success();
  }
  // The float consumers of the output run in the kernel, which is built
  // where the last of them was: after every input they read.
  ElementwiseEpilogue elementwise =
      ElementwiseEpilogue::match(op.getOutput(), /*throughRowExpansion=*/true);
  Operation *anchor = elementwise.empty() ? op : elementwise.getLast();
  b.setInsertionPoint(anchor);
  const DynamicEngine engine = op.getEngine();
  const bool onednn = engine == DynamicEngine::onednn;
  // The activation's u8 range: onednn's reorder reaches 128 (x = max lands
  // on 127.5 when the zero point rounded down), QNNPACK's and MLAS's all of
  // 0..255.
  auto activationType = quant::UniformQuantizedType::get(
      0, b.getI8Type(), b.getF32Type(), 1.0, 0, 0, onednn ? 128 : 255);
  KernelShape kernel = getKernelShape(
      chooseDotStep(target, m, activationType, [&](int64_t lo, int64_t hi) {
        return isMaddUbsExact(*weights, k, n, k, lo, hi);
      }));

  // The prologue: min and max, the qparams, each engine's input factor.
  Value flat = tensor::CollapseShapeOp::create(
      b, loc, op.getInput(),
      ArrayRef<ReassociationIndices>{
          llvm::to_vector(llvm::seq<int64_t>(0, rank))});
  auto [min, max] = emitMinMax(b, loc, flat, kernel.tiling.lanes);
  DynamicActivationQParams qparams =
      engine == DynamicEngine::onnx
          ? emitOnnxQParams(b, loc, min, max)
          : emitChooseQParams(b, loc, min, max, onednn ? 127 : 255);
  Type f32 = b.getF32Type();
  auto c32 = [&](float value) -> Value {
    return arith::ConstantOp::create(b, loc, b.getF32FloatAttr(value));
  };
  // inputFactor scales the accumulators, quantizeFactor the input.
  Value inputFactor, quantizeFactor;
  if (onednn) {
    quantizeFactor = arith::TruncFOp::create(
        b, loc, f32,
        arith::DivFOp::create(
            b, loc, arith::ConstantOp::create(b, loc, b.getF64FloatAttr(1.0)),
            qparams.scale));
    inputFactor = quantizeFactor;
  } else if (engine == DynamicEngine::onnx) {
    // ONNX Runtime checks nothing more; MLAS divides by the scale.
    inputFactor = arith::TruncFOp::create(b, loc, f32, qparams.scale);
    quantizeFactor = inputFactor;
  } else {
    inputFactor = arith::TruncFOp::create(b, loc, f32, qparams.scale);
    // QNNPACK refuses a requantization scale sw * sa that is not a
    // positive normal float; the products of the extreme weight scales
    // bound every column's (rounding is monotonic).
    ArrayRef<float> scales = op.getWeightScales();
    auto [lowest, highest] = std::minmax_element(scales.begin(), scales.end());
    Value smallest = arith::MulFOp::create(b, loc, c32(*lowest), inputFactor),
          largest = arith::MulFOp::create(b, loc, c32(*highest), inputFactor);
    Value normal = arith::AndIOp::create(
        b, loc,
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OGE, smallest,
                              c32(std::numeric_limits<float>::min())),
        arith::CmpFOp::create(b, loc, arith::CmpFPredicate::OLE, largest,
                              c32(std::numeric_limits<float>::max())));
    inputFactor =
        arith::SelectOp::create(b, loc, normal, inputFactor,
                                c32(std::numeric_limits<float>::quiet_NaN()));
    quantizeFactor = arith::DivFOp::create(b, loc, c32(1.0f), inputFactor);
  }
  Value zeroPoint = arith::SIToFPOp::create(b, loc, f32, qparams.zeroPoint);

  // The input quantized (a parallel pass over it).
  auto bytesType = inputType.clone(b.getI8Type());
  auto identity = b.getMultiDimIdentityMap(rank);
  Value quantized =
      linalg::GenericOp::create(
          b, loc, bytesType, ValueRange{op.getInput()},
          ValueRange{tensor::EmptyOp::create(b, loc, bytesType.getShape(),
                                             b.getI8Type())},
          ArrayRef<AffineMap>{identity, identity},
          SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
          [&](OpBuilder &nb, Location nloc, ValueRange args) {
            linalg::YieldOp::create(
                nb, nloc,
                emitQuantizeActivation(nb, nloc, engine, args[0],
                                       quantizeFactor, zeroPoint));
          })
          .getResult(0);

  FloatEpilogue epilogue;
  epilogue.engine = engine;
  epilogue.inputFactor = inputFactor;
  epilogue.weightScales = llvm::to_vector(op.getWeightScales());
  if (std::optional<ArrayRef<float>> bias = op.getBias())
    epilogue.bias = llvm::to_vector(*bias);
  epilogue.elementwiseMatrices = elementwise.elementMatrices(b, loc);
  epilogue.elementwise = elementwise;
  SmallVector<int32_t> weightZeroPoints{0};
  if (std::optional<ArrayRef<int32_t>> zeroPoints = op.getWeightZeroPoints())
    weightZeroPoints.assign(zeroPoints->begin(), zeroPoints->end());
  IntegerGemmOperands operands{anchor,
                               inputType.clone(activationType),
                               outputType,
                               k,
                               op.getConvWindow(),
                               std::move(weightZeroPoints),
                               {0},
                               {0},
                               {},
                               0,
                               0,
                               {},
                               std::move(epilogue)};
  QMatmulLowering lowering(operands, kernel, *weights);
  lowering.configure(/*runTimeWeights=*/true);
  Value prepared = lowering.prepareInput(quantized);
  Value offsets = lowering.zeroPointOffsets(qparams.zeroPoint);
  // sum_k a for the weight zero points' term (none without them).
  Value rowSums = lowering.hasZeroPointTerm()
                      ? lowering.computeRowSums(quantized)
                      : Value();
  Value result = lowering.build(prepared, lowering.packConstantWeights(),
                                offsets, rowSums);
  if (target.getArch() == TargetArch::X86_64)
    requireVectorWidth(anchor, kernel.tiling.lanes * 32);
  if (elementwise.empty())
    rewriter.replaceOp(op, result);
  else
    elementwise.replace(rewriter, op, result);
  return success();
}

//===- LowerTranspose.cpp - Image layout transposes as 16x16 vector tiles -===//
//
// The NCHW <-> NHWC transposes that quanta-quantize puts around the
// convolutions of NCHW models, and that the float lowering puts around
// NCHW convolutions, are 2-D transposes of each image: [C, H * W] to
// [H * W, C] and back. As linalg.transpose loops, one element per
// iteration with one side strided, they cost as much as a third of a
// quantized 3x3 convolution (56x56x64: 0.12 ms of 0.42). As 16x16 tiles
// read row by row, transposed in registers (one vector.shuffle each, see
// the transpose lowering of buildLowerToLLVMPipeline) and written row by
// row, both sides are contiguous.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"

using namespace mlir;
using namespace mlir::quanta;

/// Tiles of kTile x kTile elements.
static constexpr int64_t kTile = 16;

/// The kTile rows of a tile of 32-bit elements transposed by log2(kTile)
/// stages of two-row shuffles: at stride s, rows r and r + s (r without bit
/// s) exchange, in each run of 2s columns, r's second half for r + s's
/// first. Each shuffle is one instruction (vpermt2ps and the unpacks on
/// AVX-512, zip/trn on NEON), where the 256-lane vector.shuffle of
/// Shuffle1D spills.
static SmallVector<Value> transposeWordRows(OpBuilder &b, Location loc,
                                            SmallVector<Value> rows) {
  for (int64_t stride = kTile / 2; stride >= 1; stride /= 2) {
    SmallVector<int64_t> first, second;
    for (int64_t start = 0; start < kTile; start += 2 * stride)
      for (int64_t half = 0; half < 2; ++half)
        for (int64_t t = 0; t < stride; ++t) {
          // half 0 from the first row, half 1 from the second (+ kTile).
          first.push_back(half * kTile + start + t);
          second.push_back(half * kTile + start + stride + t);
        }
    SmallVector<Value> next(kTile);
    for (int64_t r = 0; r < kTile; ++r) {
      if (r & stride)
        continue;
      next[r] =
          vector::ShuffleOp::create(b, loc, rows[r], rows[r + stride], first);
      next[r + stride] =
          vector::ShuffleOp::create(b, loc, rows[r], rows[r + stride], second);
    }
    rows = std::move(next);
  }
  return rows;
}

/// Emits `output` = the [N, R, S] `input` transposed to [N, S, R] in tiles:
/// whole tiles with in-bounds transfers, the edges masked.
static Value transposeTiles(OpBuilder &b, Location loc, Value input,
                            Value output) {
  auto type = cast<RankedTensorType>(input.getType());
  const int64_t batch = type.getDimSize(0), rows = type.getDimSize(1),
                columns = type.getDimSize(2);
  Type element = type.getElementType();
  auto tileType = VectorType::get({kTile, kTile}, element);
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(b, loc, value);
  };
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  // One loop nest over [rowBegin, rowEnd) x [columnBegin, columnEnd) in
  // tiles, in bounds or masked.
  auto nest = [&](Value out, int64_t rowBegin, int64_t rowEnd,
                  int64_t columnBegin, int64_t columnEnd, bool inBounds) {
    if (rowBegin >= rowEnd || columnBegin >= columnEnd)
      return out;
    SmallVector<Value> lower{index(0), index(rowBegin), index(columnBegin)},
        upper{index(batch), index(rowEnd), index(columnEnd)},
        steps{index(1), index(kTile), index(kTile)};
    // Whole tiles of 32-bit elements: row by row, each row one load or
    // store (a 2-D transfer would go through a stack buffer).
    if (inBounds && element.getIntOrFloatBitWidth() == 32)
      return scf::buildLoopNest(
                 b, loc, lower, upper, steps, ValueRange{out},
                 [&](OpBuilder &nb, Location nloc, ValueRange ivs,
                     ValueRange args) -> scf::ValueVector {
                   auto rowType = VectorType::get({kTile}, element);
                   auto at = [&](Value base, int64_t offset) -> Value {
                     return arith::AddIOp::create(
                         nb, nloc, base,
                         arith::ConstantIndexOp::create(nb, nloc, offset));
                   };
                   SmallVector<Value> rows;
                   for (int64_t r = 0; r < kTile; ++r)
                     rows.push_back(vector::TransferReadOp::create(
                         nb, nloc, rowType, input,
                         ValueRange{ivs[0], at(ivs[1], r), ivs[2]}, pad,
                         ArrayRef<bool>{true}));
                   Value result = args[0];
                   for (auto [r, row] : llvm::enumerate(
                            transposeWordRows(nb, nloc, std::move(rows))))
                     result = vector::TransferWriteOp::create(
                                  nb, nloc, row, result,
                                  ValueRange{ivs[0], at(ivs[2], r), ivs[1]},
                                  ArrayRef<bool>{true})
                                  .getResult();
                   return {result};
                 })
          .results[0];
    return scf::buildLoopNest(b, loc, lower, upper, steps, ValueRange{out},
                              [&](OpBuilder &nb, Location nloc, ValueRange ivs,
                                  ValueRange args) -> scf::ValueVector {
                                Value tile = vector::TransferReadOp::create(
                                    nb, nloc, tileType, input,
                                    ValueRange{ivs[0], ivs[1], ivs[2]}, pad,
                                    ArrayRef<bool>{inBounds, inBounds});
                                Value transposed = vector::TransposeOp::create(
                                    nb, nloc, tile, ArrayRef<int64_t>{1, 0});
                                return {vector::TransferWriteOp::create(
                                            nb, nloc, transposed, args[0],
                                            ValueRange{ivs[0], ivs[2], ivs[1]},
                                            ArrayRef<bool>{inBounds, inBounds})
                                            .getResult()};
                              })
        .results[0];
  };
  const int64_t wholeRows = rows - rows % kTile,
                wholeColumns = columns - columns % kTile;
  output = nest(output, 0, wholeRows, 0, wholeColumns, true);
  output = nest(output, 0, wholeRows, wholeColumns, columns, false);
  return nest(output, wholeRows, rows, 0, columns, false);
}

LogicalResult mlir::quanta::lowerImageTranspose(RewriterBase &rewriter,
                                                linalg::TransposeOp op) {
  auto inputType = dyn_cast<RankedTensorType>(op.getInput().getType());
  if (!op.hasPureTensorSemantics() || !inputType ||
      !inputType.hasStaticShape() || inputType.getRank() != 4 ||
      !inputType.getElementType().isIntOrFloat() ||
      inputType.getElementType().getIntOrFloatBitWidth() > 32)
    return failure();
  // NCHW -> NHWC: [N, C, H * W] -> [N, H * W, C]; NHWC -> NCHW: the
  // reverse. Either way a transpose of dimensions 1 and 2 of 3.
  ArrayRef<int64_t> permutation = op.getPermutation();
  SmallVector<ReassociationIndices> inputGroups, outputGroups;
  if (permutation == ArrayRef<int64_t>{0, 2, 3, 1}) {
    inputGroups = {{0}, {1}, {2, 3}};
    outputGroups = {{0}, {1, 2}, {3}};
  } else if (permutation == ArrayRef<int64_t>{0, 3, 1, 2}) {
    inputGroups = {{0}, {1, 2}, {3}};
    outputGroups = {{0}, {1}, {2, 3}};
  } else {
    return failure();
  }
  OpBuilder b(op);
  Location loc = op.getLoc();
  Value input =
      tensor::CollapseShapeOp::create(b, loc, op.getInput(), inputGroups);
  Value output =
      tensor::CollapseShapeOp::create(b, loc, op.getInit(), outputGroups);
  Value result = tensor::ExpandShapeOp::create(
      b, loc, op.getResult()[0].getType(),
      transposeTiles(b, loc, input, output), outputGroups);
  rewriter.replaceOp(op, result);
  return success();
}

//===- QuantizeEmbedding.cpp - Embedding tables stored quantized ----------===//
//
// The embedding part of quanta-quantize (Passes.td): a lookup whose table
// carries PyTorch's per-row float-qparams fake quantization reads the
// quantized table instead, as torch.ao.nn.quantized.Embedding and
// EmbeddingBag do, with their numerics (numerics::EmbeddingRow).
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Numerics/FakeQuant.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;

/// The table of `lookup` quantized to `bits` as the lookup reads it: one
/// byte per value (8 bits) or two values per byte, the even column in the
/// low nibble (4 bits), rows of ceil(D / 2) bytes.
static DenseElementsAttr packTable(ArrayRef<int64_t> quantized, int64_t rows,
                                   int64_t columns, int64_t bits,
                                   MLIRContext *context) {
  const int64_t rowBytes = bits == 8 ? columns : llvm::divideCeil(columns, 2);
  SmallVector<int8_t> bytes(rows * rowBytes, 0);
  for (int64_t row = 0; row < rows; ++row)
    for (int64_t column = 0; column < columns; ++column) {
      const auto value =
          static_cast<uint8_t>(quantized[row * columns + column]);
      int8_t &byte = bytes[row * rowBytes + (bits == 8 ? column : column / 2)];
      byte = static_cast<int8_t>(bits == 8 ? value
                                           : static_cast<uint8_t>(byte) |
                                                 value << (column % 2 * 4));
    }
  auto type =
      RankedTensorType::get({rows, rowBytes}, IntegerType::get(context, 8));
  return DenseElementsAttr::get(type, ArrayRef<int8_t>(bytes));
}

LogicalResult quanta::detail::quantizeEmbedding(RewriterBase &rewriter,
                                                Operation *op,
                                                std::string &whyNot) {
  tensor::ExtractOp lookup = matchEmbeddingLookup(op);
  if (!lookup)
    return failure();
  auto fakeQuant = lookup.getTensor().getDefiningOp<FakeQuantOp>();
  if (!fakeQuant || !fakeQuant.getFloatZeroPoint())
    return failure();
  DenseElementsAttr table;
  if (!matchPattern(fakeQuant.getInput(), m_Constant(&table))) {
    whyNot = "the embedding table is not a constant";
    return failure();
  }
  if (!fakeQuant.hasKnownQParams() || !fakeQuant.getFakeQuantEnabled() ||
      fakeQuant.getAxis() != 0) {
    whyNot = "the embedding table's fake quantization is not per row with "
             "known qparams";
    return failure();
  }
  // PyTorch's quantized embeddings: quint8 and quint4x2, full ranges.
  const int64_t quantMin = fakeQuant.getQuantMin().value_or(0),
                quantMax = fakeQuant.getQuantMax().value_or(255);
  if (quantMin != 0 || (quantMax != 255 && quantMax != 15)) {
    whyNot = "the embedding table's range [" + std::to_string(quantMin) + ", " +
             std::to_string(quantMax) + "] is neither quint8's nor quint4x2's";
    return failure();
  }
  const int64_t bits = quantMax == 255 ? 8 : 4;
  const int64_t rows = table.getType().getDimSize(0),
                columns = table.getType().getDimSize(1);
  ArrayRef<float> scales = fakeQuant.getScaleAttr().asArrayRef(),
                  zeroPoints = fakeQuant.getFloatZeroPointAttr().asArrayRef();
  SmallVector<int64_t> quantized;
  quantized.reserve(rows * columns);
  SmallVector<float> rowScales, rowBiases;
  auto values = table.getValues<float>();
  for (int64_t row = 0; row < rows; ++row) {
    for (int64_t column = 0; column < columns; ++column)
      quantized.push_back(numerics::quantizeFloatZeroPoint(
          values[row * columns + column], scales[row], zeroPoints[row],
          quantMin, quantMax));
    numerics::EmbeddingRow params =
        numerics::getEmbeddingRow(scales[row], zeroPoints[row], bits);
    rowScales.push_back(params.scale);
    rowBiases.push_back(params.bias);
  }

  // The lookup reads byte (row, column or column / 2), its nibble with 4
  // bits, and computes fma(q, scale[row], bias[row]).
  // The tables before the op, through the rewriter (a pattern driver sees
  // every op it creates).
  rewriter.setInsertionPoint(op);
  Location loc = lookup.getLoc();
  MLIRContext *context = op->getContext();
  auto rowVector = [&](ArrayRef<float> data) -> Value {
    auto type = RankedTensorType::get({rows}, rewriter.getF32Type());
    return arith::ConstantOp::create(rewriter, loc,
                                     DenseElementsAttr::get(type, data));
  };
  Value packed = arith::ConstantOp::create(
      rewriter, loc, packTable(quantized, rows, columns, bits, context));
  Value scaleTable = rowVector(rowScales), biasTable = rowVector(rowBiases);
  rewriter.setInsertionPoint(lookup);
  Value row = lookup.getIndices()[0], column = lookup.getIndices()[1];
  auto index = [&](int64_t value) -> Value {
    return arith::ConstantIndexOp::create(rewriter, loc, value);
  };
  Value byteColumn =
      bits == 8 ? column
                : arith::DivUIOp::create(rewriter, loc, column, index(2));
  Value byte = tensor::ExtractOp::create(rewriter, loc, packed,
                                         ValueRange{row, byteColumn});
  Type i32 = rewriter.getI32Type();
  Value q = arith::ExtUIOp::create(rewriter, loc, i32, byte);
  if (bits == 4) {
    Value shift = arith::IndexCastOp::create(
        rewriter, loc, i32,
        arith::MulIOp::create(
            rewriter, loc,
            arith::RemUIOp::create(rewriter, loc, column, index(2)), index(4)));
    q = arith::AndIOp::create(
        rewriter, loc, arith::ShRUIOp::create(rewriter, loc, q, shift),
        arith::ConstantIntOp::create(rewriter, loc, i32, 15));
  }
  Value value = math::FmaOp::create(
      rewriter, loc,
      arith::UIToFPOp::create(rewriter, loc, rewriter.getF32Type(), q),
      tensor::ExtractOp::create(rewriter, loc, scaleTable, row),
      tensor::ExtractOp::create(rewriter, loc, biasTable, row));
  rewriter.replaceOp(lookup, value);
  if (fakeQuant->use_empty())
    rewriter.eraseOp(fakeQuant);
  return success();
}

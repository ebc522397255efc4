//===- LowerFloatMatmul.cpp - f32 linalg.matmul to tiled FMA code ---------===//
//
// The float kernel of the tiled GEMM design (TiledGemm.h), for the layers a
// model keeps in float and as the anchor that int8 code is measured
// against: f32 weights packed one k value per lane (g = 1), the
// accumulators starting from the matmul's init tensor, and one fused
// multiply-add per k, in k order. Each output is therefore the same
// sequential sum as linalg.matmul's, each step rounded once (FMA) instead of
// twice: the contraction every production float GEMM makes. The one-row
// tile keeps one accumulator set (rowSplit 1) so that the order holds there
// too.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
class FloatMatmulLowering : public TiledGemm {
public:
  FloatMatmulLowering(linalg::MatmulOp op, const GemmTiling &tiling,
                      ArrayRef<float> weights, int64_t m, int64_t k, int64_t n)
      : TiledGemm(op, tiling, m, k, n), op(op), weights(weights) {}

  Value build() {
    Type f32 = b.getF32Type();
    packedVector = VectorType::get({tiling.lanes}, f32);
    accumulatorType = packedVector;
    packed = packWeights(weights, f32);
    input = op.getInputs()[0];
    return emitTiles(op.getOutputs()[0], "fma");
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
  Value broadcastInput(Value row, Value kk) override {
    Value value = tensor::ExtractOp::create(b, loc, input, ValueRange{row, kk});
    return vector::BroadcastOp::create(b, loc, accumulatorType, value);
  }
  Value dot(Value acc, Value lhs, Value rhs) override {
    return vector::FMAOp::create(b, loc, lhs, rhs, acc);
  }
  Value finish(Value acc, Value, Value) override { return acc; }

  linalg::MatmulOp op;
  ArrayRef<float> weights;
  Value input;
};
} // namespace

/// Registers per ISA: 16 ymm hold a 6 x 2 tile (12 accumulators, 2 weight
/// vectors, 1 broadcast); 32 zmm an 8 x 2 one. The one-row tile needs more
/// accumulators than the FMA latency times its ports to stay busy.
static GemmTiling getFloatTiling(StringRef isa) {
  if (isa == "avx512vnni")
    return {16, 1, 8, 2, 4, 1};
  return {8, 1, 6, 2, 8, 1};
}

LogicalResult mlir::quanta::lowerFloatMatmul(Operation *operation,
                                             StringRef isa) {
  auto op = dyn_cast<linalg::MatmulOp>(operation);
  if (!op || !op.hasPureTensorSemantics() || op.hasUserDefinedMaps())
    return failure();
  auto lhsType = dyn_cast<RankedTensorType>(op.getInputs()[0].getType());
  auto rhsType = dyn_cast<RankedTensorType>(op.getInputs()[1].getType());
  auto initType = dyn_cast<RankedTensorType>(op.getOutputs()[0].getType());
  for (RankedTensorType type : {lhsType, rhsType, initType})
    if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
      return failure();
  ElementsAttr constant;
  if (!matchPattern(op.getInputs()[1], m_Constant(&constant)))
    return failure();
  auto values = constant.tryGetValues<float>();
  if (!values)
    return failure();
  SmallVector<float> weights(values->begin(), values->end());
  GemmTiling tiling = getFloatTiling(isa);
  Value result =
      FloatMatmulLowering(op, tiling, weights, lhsType.getDimSize(0),
                          lhsType.getDimSize(1), rhsType.getDimSize(1))
          .build();
  requireVectorWidth(op, tiling.lanes * 32);
  op->getResult(0).replaceAllUsesWith(result);
  op->erase();
  return success();
}

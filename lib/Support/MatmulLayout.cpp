//===- MatmulLayout.cpp - How a linalg matmul reads its weights -----------===//

#include "quanta/Support/MatmulLayout.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"

using namespace mlir;

std::optional<quanta::MatmulWeightLayout>
quanta::getMatmulWeightLayout(Operation *op) {
  if (!isa_and_present<linalg::MatmulOp, linalg::BatchMatmulOp>(op))
    return std::nullopt;
  auto linalgOp = cast<linalg::LinalgOp>(op);
  const bool batched = isa<linalg::BatchMatmulOp>(op);
  // The loops: [batch,] m, n, k.
  const unsigned numDims = batched ? 4 : 3;
  MLIRContext *context = op->getContext();
  auto dim = [&](unsigned position) {
    return getAffineDimExpr(position + (batched ? 1 : 0), context);
  };
  AffineExpr m = dim(0), n = dim(1), k = dim(2);
  auto map = [&](ArrayRef<AffineExpr> results, bool withBatch) {
    SmallVector<AffineExpr> all;
    if (withBatch)
      all.push_back(getAffineDimExpr(0, context));
    all.append(results.begin(), results.end());
    return AffineMap::get(numDims, 0, all, context);
  };
  SmallVector<AffineMap> maps = linalgOp.getIndexingMapsArray();
  if (maps[0] != map({m, k}, batched) || maps[2] != map({m, n}, batched))
    return std::nullopt;
  auto weights = cast<ShapedType>(op->getOperand(1).getType());
  for (bool transposed : {false, true}) {
    SmallVector<AffineExpr> results = transposed
                                          ? SmallVector<AffineExpr>{n, k}
                                          : SmallVector<AffineExpr>{k, n};
    const int64_t channelDim = transposed ? 0 : 1;
    if (maps[1] == map(results, false))
      return MatmulWeightLayout{transposed, channelDim};
    if (batched && maps[1] == map(results, true) && weights.getRank() == 3 &&
        weights.getDimSize(0) == 1)
      return MatmulWeightLayout{transposed, channelDim + 1};
  }
  return std::nullopt;
}

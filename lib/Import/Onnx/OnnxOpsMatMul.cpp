//===- OnnxOpsMatMul.cpp - Matrix products --------------------------------===//
//
// Translates MatMul and Gemm, and holds the batched matrix product
// QLinearMatMul and MatMulInteger share.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

FailureOr<Value> onnx_import::matmul(Graph &g, Value lhs, Value rhs, Type acc) {
  RankedTensorType lhsType = tensorType(lhs), rhsType = tensorType(rhs);
  if (lhsType.getRank() == 0 || rhsType.getRank() == 0)
    return g.error() << "MatMul of a scalar";
  const bool lhsVector = lhsType.getRank() == 1,
             rhsVector = rhsType.getRank() == 1;
  if (lhsVector)
    lhs = g.reshape(lhs, {1, lhsType.getDimSize(0)});
  if (rhsVector)
    rhs = g.reshape(rhs, {rhsType.getDimSize(0), 1});
  lhsType = tensorType(lhs);
  rhsType = tensorType(rhs);
  ArrayRef<int64_t> ls = lhsType.getShape(), rs = rhsType.getShape();
  const int64_t m = ls[ls.size() - 2], k = ls.back(), n = rs.back();
  if (rs[rs.size() - 2] != k)
    return g.error() << "the operands " << lhsType << " and " << rhsType
                     << " do not match in K";
  auto batch = broadcastShapes(ls.drop_back(2), rs.drop_back(2));
  if (!batch)
    return g.error() << "the batch dims of " << lhsType << " and " << rhsType
                     << " do not broadcast";
  SmallVector<int64_t> resultShape(*batch);
  resultShape.append({m, n});
  int64_t batchSize = 1;
  for (int64_t dim : *batch)
    batchSize *= dim;
  Value product;
  if (rs.size() == 2) {
    // [..., M, K] x [K, N]: one GEMM with the batch folded into M.
    Value flat = g.reshape(lhs, {batchSize * m, k});
    auto type = RankedTensorType::get({batchSize * m, n}, acc);
    product = linalg::MatmulOp::create(g.b, g.loc, TypeRange{type},
                                       ValueRange{flat, rhs},
                                       ValueRange{g.filled(type, 0)})
                  .getResult(0);
  } else {
    auto broadcastTo = [&](Value value, ArrayRef<int64_t> tail) {
      SmallVector<int64_t> shape(*batch);
      shape.append(tail.begin(), tail.end());
      RankedTensorType type = tensorType(value);
      if (type.getShape() != ArrayRef<int64_t>(shape)) {
        // Missing leading dims first, then size-1 dims broadcast by a
        // generic.
        SmallVector<int64_t> padded(shape.size() - type.getRank(), 1);
        padded.append(type.getShape().begin(), type.getShape().end());
        value = g.reshape(value, padded);
        value = g.elementwise(
            {value}, withShape(value, shape),
            [](OpBuilder &, Location, ValueRange a) { return a[0]; });
      }
      return g.reshape(value, {batchSize, tail[0], tail[1]});
    };
    Value l = broadcastTo(lhs, {m, k}), r = broadcastTo(rhs, {k, n});
    auto type = RankedTensorType::get({batchSize, m, n}, acc);
    product = linalg::BatchMatmulOp::create(g.b, g.loc, TypeRange{type},
                                            ValueRange{l, r},
                                            ValueRange{g.filled(type, 0)})
                  .getResult(0);
  }
  SmallVector<int64_t> shape(resultShape);
  if (rhsVector)
    shape.pop_back();
  if (lhsVector)
    shape.erase(shape.end() - (rhsVector ? 1 : 2));
  return g.reshape(product, shape);
}

LogicalResult onnx_import::translateMatMul(Graph &g) {
  auto lhs = g.floatInput(0, "A"), rhs = g.floatInput(1, "B");
  if (failed(lhs) || failed(rhs))
    return failure();
  auto result = matmul(g, *lhs, *rhs, g.b.getF32Type());
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

FailureOr<Value> onnx_import::gemm(Graph &g, Value a, Value b, Value c,
                                   bool transA, bool transB, float alpha,
                                   float beta) {
  if (tensorType(a).getRank() != 2 || tensorType(b).getRank() != 2)
    return g.error() << "A and B must be matrices";
  // A constant B (weights) is transposed at import (Graph::transpose).
  Value lhs = transA ? g.transpose(a, {1, 0}) : a;
  Value rhs = transB ? g.transpose(b, {1, 0}) : b;
  auto product = matmul(g, lhs, rhs, g.b.getF32Type());
  if (failed(product))
    return failure();
  Value result = *product;
  RankedTensorType type = tensorType(result);
  if (alpha != 1.0f)
    result = g.elementwise({result}, type,
                           [&](OpBuilder &b, Location loc, ValueRange args) {
                             return arith::MulFOp::create(
                                 b, loc, floatConst(b, loc, alpha), args[0]);
                           });
  if (!c || beta == 0.0f)
    return result;
  DenseElementsAttr constant;
  if (matchPattern(c, m_Constant(&constant)) &&
      constant.getElementType().isF32()) {
    // beta * C folded at import.
    SmallVector<float> scaled;
    for (float value : constant.getValues<float>())
      scaled.push_back(beta * value);
    c = g.constant(DenseElementsAttr::get(cast<ShapedType>(constant.getType()),
                                          ArrayRef<float>(scaled)));
  } else if (beta != 1.0f) {
    c = g.elementwise({c}, tensorType(c),
                      [&](OpBuilder &b, Location loc, ValueRange args) {
                        return arith::MulFOp::create(
                            b, loc, floatConst(b, loc, beta), args[0]);
                      });
  }
  auto shape = broadcastShapes(type.getShape(), tensorType(c).getShape());
  if (!shape || *shape != type.getShape())
    return g.error() << "C " << c.getType() << " does not broadcast to "
                     << type;
  return g.elementwise({result, c}, type,
                       [](OpBuilder &b, Location loc, ValueRange args) {
                         return addF(b, loc, args[0], args[1]);
                       });
}

LogicalResult onnx_import::translateGemm(Graph &g) {
  auto a = g.floatInput(0, "A"), b = g.floatInput(1, "B");
  if (failed(a) || failed(b))
    return failure();
  Value c;
  if (g.hasInput(2)) {
    auto given = g.input(2);
    if (failed(given))
      return failure();
    c = *given;
  }
  auto result =
      gemm(g, *a, *b, c, g.intAttr("transA", 0), g.intAttr("transB", 0),
           g.floatAttr("alpha", 1.0f), g.floatAttr("beta", 1.0f));
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

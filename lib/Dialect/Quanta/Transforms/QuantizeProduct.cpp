//===- QuantizeProduct.cpp - Products of two activations to integers ------===//
//
// The activation-product part of quanta-quantize (Passes.td): a
// linalg.batch_matmul (or 2-D matmul) of two dequantized 8-bit activations
// from a zero accumulator, quantized on its way out, becomes one
// quanta.qbatch_matmul: attention's Q.K^T and softmax(.).V, whose second
// operand is computed at run time and so cannot be a quanta.qmatmul's
// constant weights. PyTorch FX 1.13 observes these matmuls too (torch.matmul
// and torch.bmm take the binary ops' qconfig) but runs its
// quantized::matmul as a float product between dequantization and
// quantization; here the product is integer, with the GEMM's requantization.
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Numerics/IntegerKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::detail;
namespace nx = mlir::quanta::numerics;

/// Whether `value` is a dequantized activation rather than dequantized
/// constant weights (quant.dcast(quant.qcast(constant)), which
/// quanta.qmatmul takes).
static bool isDequantizedActivation(Value value) {
  auto dcast = value.getDefiningOp<quant::DequantizeCastOp>();
  if (!dcast)
    return false;
  auto qcast = dcast.getInput().getDefiningOp<quant::QuantizeCastOp>();
  return !qcast || !matchPattern(qcast.getInput(), m_Constant());
}

static bool isZeroFill(Value init) {
  auto fill = init.getDefiningOp<linalg::FillOp>();
  FloatAttr value;
  return fill && matchPattern(fill.getInputs()[0], m_Constant(&value)) &&
         value.getValue().isZero();
}

/// `value` (a quantized [M, X] tensor) as a batch of one, [1, M, X].
static Value asBatchOfOne(OpBuilder &builder, Location loc, Value value) {
  auto type = cast<RankedTensorType>(value.getType());
  Value storage = toStorage(builder, loc, value);
  auto storageType = cast<RankedTensorType>(storage.getType());
  Value expanded = tensor::ExpandShapeOp::create(
      builder, loc,
      RankedTensorType::get(
          {1, storageType.getDimSize(0), storageType.getDimSize(1)},
          storageType.getElementType()),
      storage, ArrayRef<ReassociationIndices>{{0, 1}, {2}});
  return fromStorage(builder, loc, expanded, type.getElementType());
}

LogicalResult quanta::detail::quantizeActivationProduct(
    RewriterBase &rewriter, quant::QuantizeCastOp qcast, std::string &whyNot) {
  Operation *core = qcast.getInput().getDefiningOp();
  if (!isa_and_present<linalg::MatmulOp, linalg::BatchMatmulOp>(core))
    return failure();
  auto product = cast<linalg::LinalgOp>(core);
  if (!isDequantizedActivation(product.getDpsInputs()[1]))
    return failure();
  auto batched = dyn_cast<linalg::BatchMatmulOp>(core);
  auto plain = dyn_cast<linalg::MatmulOp>(core);
  if ((batched && batched.hasUserDefinedMaps()) ||
      (plain && plain.hasUserDefinedMaps())) {
    whyNot = "a product of two activations with transposed or broadcast "
             "operands (indexing maps of its own) has no integer form";
    return failure();
  }
  if (!core->getResult(0).hasOneUse()) {
    whyNot = "a float result of the chain has other users";
    return failure();
  }
  auto lhs = matchQuantizedActivation(product.getDpsInputs()[0]);
  auto rhs = matchQuantizedActivation(product.getDpsInputs()[1]);
  if (failed(lhs) || failed(rhs)) {
    whyNot = "a product of two activations needs both dequantized from "
             "8-bit per-tensor types";
    return failure();
  }
  if (!isZeroFill(product.getDpsInits()[0])) {
    whyNot = "the accumulator does not start from zero";
    return failure();
  }
  quant::UniformQuantizedType outputType = getEightBitOutputType(qcast, whyNot);
  if (!outputType)
    return failure();
  const int64_t k = cast<ShapedType>(lhs->first.getType()).getShape().back();
  nx::StatusOr<nx::IntegerProduct> prepared = nx::prepareIntegerProduct(
      getDType(lhs->second), getQParams(lhs->second), getDType(rhs->second),
      getQParams(rhs->second), getDType(outputType), getQParams(outputType), k);
  if (!prepared) {
    whyNot = prepared.getStatus().getMessage();
    return failure();
  }
  if (failed(narrowToStorageRange(prepared->outputRange, outputType, whyNot)))
    return failure();

  rewriter.setInsertionPoint(qcast);
  Location loc = core->getLoc();
  Value lhsValue = lhs->first, rhsValue = rhs->first;
  auto resultType = cast<RankedTensorType>(qcast.getResult().getType());
  RankedTensorType batchType = resultType;
  if (plain) {
    lhsValue = asBatchOfOne(rewriter, loc, lhsValue);
    rhsValue = asBatchOfOne(rewriter, loc, rhsValue);
    batchType = RankedTensorType::get(
        {1, resultType.getDimSize(0), resultType.getDimSize(1)},
        resultType.getElementType());
  }
  Value result = QBatchMatmulOp::create(
      rewriter, loc, batchType, lhsValue, rhsValue,
      rewriter.getI32IntegerAttr(prepared->multiplier.multiplier),
      rewriter.getI32IntegerAttr(prepared->multiplier.shift),
      rewriter.getI32IntegerAttr(
          static_cast<int32_t>(prepared->outputRange.quantMin)),
      rewriter.getI32IntegerAttr(
          static_cast<int32_t>(prepared->outputRange.quantMax)));
  if (plain)
    result = fromStorage(rewriter, loc,
                         tensor::CollapseShapeOp::create(
                             rewriter, loc, toStorage(rewriter, loc, result),
                             ArrayRef<ReassociationIndices>{{0, 1}, {2}}),
                         resultType.getElementType());
  rewriter.replaceAllUsesWith(qcast.getResult(), result);
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(core);
  return success();
}

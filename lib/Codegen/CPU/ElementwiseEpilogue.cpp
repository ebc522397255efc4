//===- ElementwiseEpilogue.cpp - Elementwise consumers fused into a kernel ===//

#include "ElementwiseEpilogue.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/IR/IRMapping.h"

using namespace mlir;
using namespace mlir::quanta;

using Read = ElementwiseEpilogue::Read;

/// How each input of `generic` is read when it is the stage after
/// `previous` (of static f32 type `type`); nothing if it cannot be fused.
static std::optional<SmallVector<Read>>
matchStage(linalg::GenericOp generic, Value previous, RankedTensorType type) {
  const int64_t rank = type.getRank();
  if (generic->getNumResults() != 1 || generic.getNumDpsInits() != 1 ||
      generic.getResult(0).getType() != type ||
      generic.getNumLoops() != static_cast<unsigned>(rank) ||
      generic.getNumParallelLoops() != generic.getNumLoops())
    return std::nullopt;
  OpOperand *init = generic.getDpsInitOperand(0);
  AffineMap identity =
      AffineMap::getMultiDimIdentityMap(rank, generic.getContext());
  if (!generic.getMatchingBlockArgument(init).use_empty() ||
      generic.getMatchingIndexingMap(init) != identity)
    return std::nullopt;
  SmallVector<Read> reads;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    AffineMap map = generic.getMatchingIndexingMap(input);
    auto inputType = dyn_cast<RankedTensorType>(input->get().getType());
    if (!inputType || !inputType.getElementType().isF32())
      return std::nullopt;
    if (map == identity && input->get() == previous)
      reads.push_back(Read::Chain);
    else if (map == identity && inputType == type)
      reads.push_back(Read::Element);
    else if (map.getNumResults() == 1 &&
             map.getResult(0) ==
                 getAffineDimExpr(rank - 1, generic.getContext()) &&
             inputType.getShape() ==
                 ArrayRef<int64_t>{type.getDimSize(rank - 1)})
      reads.push_back(Read::Column);
    else
      return std::nullopt;
  }
  if (!llvm::is_contained(reads, Read::Chain))
    return std::nullopt;
  Block *body = generic.getBody();
  for (Operation &op : body->without_terminator()) {
    if (!isa<arith::ArithDialect, math::MathDialect>(op.getDialect()) ||
        !op.hasTrait<OpTrait::Elementwise>() || op.getNumRegions() != 0 ||
        !llvm::all_of(op.getResultTypes(),
                      [](Type type) { return type.isIntOrFloat(); }))
      return std::nullopt;
    // Values from outside the body: scalar constants, which become splats.
    for (Value operand : op.getOperands())
      if (operand.getParentBlock() != body &&
          !operand.getDefiningOp<arith::ConstantOp>())
        return std::nullopt;
  }
  if (body->getTerminator()->getOperand(0).getParentBlock() != body)
    return std::nullopt;
  return reads;
}

ElementwiseEpilogue ElementwiseEpilogue::match(Value result,
                                               bool throughRowExpansion) {
  ElementwiseEpilogue epilogue;
  auto type = dyn_cast<RankedTensorType>(result.getType());
  if (!type || !type.hasStaticShape() || !type.getElementType().isF32())
    return epilogue;
  Value previous = result;
  while (!previous.use_empty()) {
    Operation *user = *previous.getUsers().begin();
    if (!llvm::all_of(previous.getUsers(),
                      [&](Operation *other) { return other == user; }))
      break;
    // Once, the rows expanded into leading dimensions, N kept last.
    auto expansion = dyn_cast<tensor::ExpandShapeOp>(user);
    if (expansion && throughRowExpansion && !epilogue.expansion &&
        expansion.getReassociationIndices().back().size() == 1) {
      epilogue.expansion = expansion;
      epilogue.stagesBeforeExpansion = epilogue.stages.size();
      previous = expansion.getResult();
      type = expansion.getResultType();
      continue;
    }
    auto generic = dyn_cast<linalg::GenericOp>(user);
    if (!generic)
      break;
    std::optional<SmallVector<Read>> reads =
        matchStage(generic, previous, type);
    if (!reads)
      break;
    epilogue.stages.push_back({generic, std::move(*reads)});
    previous = generic.getResult(0);
  }
  // An expansion no stage follows stays where it is.
  if (epilogue.stagesBeforeExpansion == epilogue.stages.size())
    epilogue.expansion = {};
  return epilogue;
}

Value ElementwiseEpilogue::apply(
    OpBuilder &b, Location loc, Value value,
    function_ref<Value(Value input, Read read)> read) const {
  auto vectorType = dyn_cast<VectorType>(value.getType());
  auto like = [&](Type scalar) -> Type {
    return vectorType ? VectorType::get(vectorType.getShape(), scalar) : scalar;
  };
  for (const Stage &stage : stages) {
    linalg::GenericOp generic = stage.generic;
    Block *body = generic.getBody();
    IRMapping mapping;
    for (auto [index, input] : llvm::enumerate(generic.getDpsInputs()))
      mapping.map(body->getArgument(index),
                  stage.reads[index] == Read::Chain
                      ? value
                      : read(input, stage.reads[index]));
    for (Operation &op : body->without_terminator()) {
      SmallVector<Value> operands;
      for (Value operand : op.getOperands()) {
        if (Value mapped = mapping.lookupOrNull(operand)) {
          operands.push_back(mapped);
          continue;
        }
        TypedAttr constant =
            operand.getDefiningOp<arith::ConstantOp>().getValue();
        if (vectorType)
          constant = DenseElementsAttr::get(
              cast<ShapedType>(like(constant.getType())), constant);
        operands.push_back(arith::ConstantOp::create(b, loc, constant));
      }
      OperationState state(loc, op.getName());
      state.addOperands(operands);
      state.addAttributes(op.getAttrs());
      for (Type type : op.getResultTypes())
        state.addTypes(like(type));
      mapping.map(op.getResults(), b.create(state)->getResults());
    }
    value = mapping.lookup(body->getTerminator()->getOperand(0));
  }
  return value;
}

Value ElementwiseEpilogue::applyAt(
    OpBuilder &b, Location loc, Value value, Value row, Value column, Value pad,
    const llvm::DenseMap<Value, Value> &matrices) const {
  auto type = cast<VectorType>(value.getType());
  return apply(b, loc, value, [&](Value input, Read read) -> Value {
    if (read == Read::Column)
      return vector::TransferReadOp::create(
          b, loc, type, input, ValueRange{column}, pad, ArrayRef<bool>{false});
    return vector::TransferReadOp::create(b, loc, type, matrices.lookup(input),
                                          ValueRange{row, column}, pad,
                                          ArrayRef<bool>{false});
  });
}

llvm::DenseMap<Value, Value>
ElementwiseEpilogue::elementMatrices(OpBuilder &b, Location loc) const {
  llvm::DenseMap<Value, Value> matrices;
  for (const Stage &stage : stages)
    for (auto [input, read] : llvm::zip(
             linalg::GenericOp(stage.generic).getDpsInputs(), stage.reads)) {
      if (read != Read::Element || matrices.count(input))
        continue;
      auto type = cast<RankedTensorType>(input.getType());
      if (type.getRank() == 2) {
        matrices[input] = input;
        continue;
      }
      auto rows = llvm::to_vector_of<int64_t, 2>(
          llvm::seq<int64_t>(0, type.getRank() - 1));
      matrices[input] = tensor::CollapseShapeOp::create(
          b, loc, input,
          ArrayRef<ReassociationIndices>{rows, {type.getRank() - 1}});
    }
  return matrices;
}

void ElementwiseEpilogue::replace(RewriterBase &rewriter, Operation *kernel,
                                  Value fused) const {
  tensor::ExpandShapeOp expand = expansion;
  if (expand) {
    rewriter.setInsertionPoint(getLast());
    fused = tensor::ExpandShapeOp::create(rewriter, expand.getLoc(),
                                          expand.getResultType(), fused,
                                          expand.getReassociationIndices());
  }
  rewriter.replaceOp(getLast(), fused);
  // The chain's other ops, users before their producers.
  SmallVector<Operation *> chain;
  for (auto [index, stage] : llvm::enumerate(stages)) {
    if (expand && index == stagesBeforeExpansion)
      chain.push_back(expand);
    chain.push_back(stage.generic);
  }
  for (Operation *op : llvm::reverse(ArrayRef(chain).drop_back()))
    rewriter.eraseOp(op);
  rewriter.eraseOp(kernel);
}

//===- FuseUnaryChains.cpp - Elementwise functions of one tensor as one op ===//
//
// Exporters write an activation as a chain of elementwise nodes of one
// tensor: torch 1.13's GELU is Div(x, sqrt 2), Erf, Add 1, Mul x, Mul 0.5;
// SiLU is Sigmoid, Mul x. Translated node by node, each node's output would
// be observed and quantized on its own (a GELU: four requantizations and
// float ops between them), where PyTorch observes such a module's output
// only. As ONNX Runtime's graph optimizer fuses Gelu, the importer fuses
// each such chain into one linalg.generic of that tensor: the same float
// ops in the same order (the float model computes the same values),
// observed once, which quanta-quantize turns into one 256-entry lookup
// table.
//
//===----------------------------------------------------------------------===//

#include "OnnxGraph.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/IR/IRMapping.h"
#include "mlir/IR/Matchers.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

/// The f32 value a one-element constant tensor holds.
static std::optional<FloatAttr> getScalarConstant(Value value) {
  DenseElementsAttr attr;
  if (!matchPattern(value, m_Constant(&attr)) || attr.getNumElements() != 1 ||
      !attr.getElementType().isF32())
    return std::nullopt;
  return *attr.value_begin<FloatAttr>();
}

/// Whether `op` is an f32 elementwise op the fusion can take apart: every
/// loop parallel, one result read through the identity, inputs read
/// through the identity or one-element constants, a body of region-free
/// scalar ops that do not read the loop indices.
static bool isFusable(linalg::GenericOp op) {
  if (op.getNumDpsInits() != 1 || op->getNumResults() != 1 ||
      op.getNumLoops() != op.getNumParallelLoops() ||
      !op.getIndexingMapsArray().back().isIdentity() ||
      !getElementTypeOrSelf(op->getResult(0).getType()).isF32() ||
      !op.getRegionOutputArgs()[0].use_empty())
    return false;
  auto resultType = cast<RankedTensorType>(op->getResult(0).getType());
  for (OpOperand *input : op.getDpsInputOperands()) {
    if (getScalarConstant(input->get()))
      continue;
    if (!op.getMatchingIndexingMap(input).isIdentity() ||
        input->get().getType() != resultType)
      return false;
  }
  return llvm::all_of(op.getBody()->without_terminator(), [](Operation &body) {
    return body.getNumRegions() == 0 && !isa<linalg::IndexOp>(body);
  });
}

namespace {
/// The elementwise ops of one tensor `root` that end in a fusable op.
struct UnaryChain {
  Value root;
  /// The ops feeding the last one, each read once, by the chain.
  llvm::SmallSetVector<Operation *, 8> producers;

  /// Adds what `value` reads: false when it is a second tensor.
  bool add(Value value) {
    if (getScalarConstant(value))
      return true;
    auto producer = value.getDefiningOp<linalg::GenericOp>();
    if (producer && isFusable(producer) && value.hasOneUse()) {
      producers.insert(producer);
      return llvm::all_of(producer.getDpsInputs(),
                          [&](Value input) { return add(input); });
    }
    if (root && root != value)
      return false;
    root = value;
    return true;
  }
};
} // namespace

/// The scalar `op` yields for its input values, its body cloned into
/// `builder`'s block: `root` is `argument`, one-element constants become
/// arith constants, the chain's producers are emitted first.
static Value emitBody(OpBuilder &builder, linalg::GenericOp op, Value root,
                      Value argument) {
  IRMapping mapping;
  for (OpOperand *input : op.getDpsInputOperands()) {
    Value value = input->get(), scalar;
    if (value == root)
      scalar = argument;
    else if (std::optional<FloatAttr> constant = getScalarConstant(value))
      scalar = arith::ConstantOp::create(builder, op.getLoc(), *constant);
    else
      scalar = emitBody(builder, value.getDefiningOp<linalg::GenericOp>(), root,
                        argument);
    mapping.map(op.getMatchingBlockArgument(input), scalar);
  }
  for (Operation &bodyOp : op.getBody()->without_terminator())
    builder.clone(bodyOp, mapping);
  return mapping.lookupOrDefault(op.getBody()->getTerminator()->getOperand(0));
}

void onnx_import::fuseUnaryChains(func::FuncOp func) {
  for (Operation &op :
       llvm::make_early_inc_range(func.getBody().front().getOperations())) {
    auto last = dyn_cast<linalg::GenericOp>(op);
    if (!last || !isFusable(last))
      continue;
    UnaryChain chain;
    if (!llvm::all_of(last.getDpsInputs(),
                      [&](Value input) { return chain.add(input); }) ||
        !chain.root || chain.producers.empty() ||
        chain.root.getType() != last->getResult(0).getType())
      continue;
    OpBuilder b(last);
    auto type = cast<RankedTensorType>(last->getResult(0).getType());
    auto identity = b.getMultiDimIdentityMap(type.getRank());
    auto fused = linalg::GenericOp::create(
        b, last.getLoc(), type, chain.root, last.getDpsInits()[0],
        ArrayRef<AffineMap>{identity, identity},
        SmallVector<utils::IteratorType>(type.getRank(),
                                         utils::IteratorType::parallel),
        [&](OpBuilder &nested, Location loc, ValueRange args) {
          linalg::YieldOp::create(nested, loc,
                                  emitBody(nested, last, chain.root, args[0]));
        });
    hoistConstants(fused);
    last->replaceAllUsesWith(fused->getResults());
    last.erase();
    // Each producer's only user is in the chain: erase users first.
    for (Operation *producer : chain.producers)
      producer->dropAllUses();
    for (Operation *producer : chain.producers)
      producer->erase();
  }
}

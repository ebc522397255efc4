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

namespace {
/// One operand of an Einsum equation: its letters, with the ellipsis (if
/// any) at `ellipsisAt`.
struct EinsumTerm {
  std::string letters;
  std::optional<size_t> ellipsisAt;
};
} // namespace

/// Parses one term ("bij", "...ii"); false if it is malformed.
static bool parseEinsumTerm(StringRef text, EinsumTerm &term) {
  text = text.trim();
  for (size_t at = 0; at < text.size();) {
    if (text.substr(at).starts_with("...")) {
      if (term.ellipsisAt)
        return false;
      term.ellipsisAt = term.letters.size();
      at += 3;
      continue;
    }
    if (!llvm::isAlpha(text[at]))
      return false;
    term.letters.push_back(text[at++]);
  }
  return true;
}

/// Einsum as one linalg.generic: the loops are the output's dimensions
/// (the broadcast ellipsis first where the output has it, then its
/// letters) and then every summed letter; each operand reads its letters'
/// loops (a repeated letter: the diagonal) and the ellipsis's loops
/// right-aligned (size-1 dimensions broadcast), the body multiplies the
/// operands and adds to the accumulator, in the order of the loops.
LogicalResult onnx_import::translateEinsum(Graph &g) {
  std::string equation = g.stringAttr("equation", "");
  auto [lhs, rhs] = StringRef(equation).split("->");
  const bool explicitOutput = StringRef(equation).contains("->");
  SmallVector<StringRef> termTexts;
  lhs.split(termTexts, ',');
  const int numInputs = g.node->input_size();
  if (int(termTexts.size()) != numInputs)
    return g.error() << "the equation '" << equation << "' has "
                     << termTexts.size() << " input terms for " << numInputs
                     << " inputs";
  SmallVector<EinsumTerm> terms(numInputs);
  SmallVector<Value> inputs;
  SmallVector<ArrayRef<int64_t>> shapes;
  llvm::StringMap<int64_t> letterSizes;
  int64_t ellipsisRank = 0;
  for (int index = 0; index < numInputs; ++index) {
    auto input = g.floatInput(index, "an input");
    if (failed(input))
      return failure();
    inputs.push_back(*input);
    shapes.push_back(tensorType(*input).getShape());
    EinsumTerm &term = terms[index];
    if (!parseEinsumTerm(termTexts[index], term))
      return g.error() << "the term '" << termTexts[index].trim()
                       << "' of the equation '" << equation
                       << "' is not letters and at most one '...'";
    const int64_t rank = shapes.back().size(), letters = term.letters.size();
    if (term.ellipsisAt ? rank < letters : rank != letters)
      return g.error() << "the term '" << termTexts[index].trim() << "' has "
                       << letters << " letters for input " << index
                       << " of rank " << rank;
    if (term.ellipsisAt)
      ellipsisRank = std::max(ellipsisRank, rank - letters);
  }
  // The ellipsis's sizes (right-aligned broadcast) and each letter's.
  SmallVector<int64_t> ellipsisSizes(ellipsisRank, 1);
  for (int index = 0; index < numInputs; ++index) {
    const EinsumTerm &term = terms[index];
    ArrayRef<int64_t> shape = shapes[index];
    const int64_t own =
        term.ellipsisAt ? int64_t(shape.size() - term.letters.size()) : 0;
    for (size_t position = 0; position < term.letters.size(); ++position) {
      const size_t dim =
          position +
          (term.ellipsisAt && position >= *term.ellipsisAt ? own : 0);
      auto [it, inserted] = letterSizes.try_emplace(
          StringRef(&term.letters[position], 1), shape[dim]);
      if (!inserted && it->second != shape[dim])
        return g.error() << "letter '" << term.letters[position]
                         << "' has sizes " << it->second << " and "
                         << shape[dim];
    }
    for (int64_t e = 0; e < own; ++e) {
      int64_t &size = ellipsisSizes[ellipsisRank - own + e];
      const int64_t dimSize = shape[*term.ellipsisAt + e];
      if (size != 1 && dimSize != 1 && size != dimSize)
        return g.error() << "the '...' dimensions of " << shapes[index].size()
                         << "-D input " << index << " do not broadcast";
      if (dimSize != 1)
        size = dimSize;
    }
  }
  // The output: explicit, or numpy's implicit one (the ellipsis, then the
  // letters used once, in alphabetical order).
  EinsumTerm output;
  if (explicitOutput) {
    if (!parseEinsumTerm(rhs, output))
      return g.error() << "the output '" << rhs.trim() << "' of the equation '"
                       << equation << "' is not letters and at most one '...'";
  } else {
    llvm::StringMap<int> uses;
    for (const EinsumTerm &term : terms)
      for (char letter : term.letters)
        ++uses[StringRef(&letter, 1)];
    for (char letter = 'A'; letter <= 'z'; ++letter)
      if (llvm::isAlpha(letter) && uses.lookup(StringRef(&letter, 1)) == 1)
        output.letters.push_back(letter);
    if (ellipsisRank > 0)
      output.ellipsisAt = 0;
  }
  for (char letter : output.letters)
    if (!letterSizes.count(StringRef(&letter, 1)) ||
        llvm::count(output.letters, letter) != 1)
      return g.error() << "output letter '" << letter
                       << "' is not an input's, or repeats";
  // Loops: the output's dimensions, then the summed letters.
  MLIRContext *context = g.b.getContext();
  SmallVector<int64_t> loopSizes, outputShape;
  llvm::StringMap<unsigned> letterLoops;
  SmallVector<unsigned> ellipsisLoops;
  auto addEllipsisLoops = [&] {
    for (int64_t size : ellipsisSizes) {
      ellipsisLoops.push_back(loopSizes.size());
      loopSizes.push_back(size);
      outputShape.push_back(size);
    }
  };
  for (size_t position = 0; position <= output.letters.size(); ++position) {
    if (output.ellipsisAt == position)
      addEllipsisLoops();
    if (position == output.letters.size())
      break;
    StringRef letter(&output.letters[position], 1);
    letterLoops[letter] = loopSizes.size();
    loopSizes.push_back(letterSizes.lookup(letter));
    outputShape.push_back(loopSizes.back());
  }
  const size_t outputLoops = loopSizes.size();
  // As numpy.einsum, which ONNX follows: '...' is never summed over.
  if (!output.ellipsisAt && ellipsisRank > 0)
    return g.error() << "the output '" << rhs.trim() << "' drops the "
                     << ellipsisRank << " dimension(s) of '...'";
  for (const EinsumTerm &term : terms)
    for (char letter : term.letters) {
      StringRef name(&letter, 1);
      if (letterLoops.try_emplace(name, loopSizes.size()).second)
        loopSizes.push_back(letterSizes.lookup(name));
    }
  const unsigned numLoops = loopSizes.size();
  SmallVector<AffineMap> maps;
  for (int index = 0; index < numInputs; ++index) {
    const EinsumTerm &term = terms[index];
    ArrayRef<int64_t> shape = shapes[index];
    const int64_t own =
        term.ellipsisAt ? int64_t(shape.size() - term.letters.size()) : 0;
    SmallVector<AffineExpr> exprs;
    for (size_t position = 0; position <= term.letters.size(); ++position) {
      if (term.ellipsisAt == position)
        for (int64_t e = 0; e < own; ++e)
          exprs.push_back(
              shape[position + e] == 1 &&
                      ellipsisSizes[ellipsisRank - own + e] != 1
                  ? getAffineConstantExpr(0, context)
                  : getAffineDimExpr(ellipsisLoops[ellipsisRank - own + e],
                                     context));
      if (position == term.letters.size())
        break;
      exprs.push_back(getAffineDimExpr(
          letterLoops.lookup(StringRef(&term.letters[position], 1)), context));
    }
    maps.push_back(AffineMap::get(numLoops, 0, exprs, context));
  }
  SmallVector<AffineExpr> outputExprs;
  for (unsigned loop = 0; loop < outputLoops; ++loop)
    outputExprs.push_back(getAffineDimExpr(loop, context));
  maps.push_back(AffineMap::get(numLoops, 0, outputExprs, context));
  SmallVector<utils::IteratorType> iterators(numLoops,
                                             utils::IteratorType::reduction);
  std::fill_n(iterators.begin(), outputLoops, utils::IteratorType::parallel);
  auto type = RankedTensorType::get(outputShape, g.b.getF32Type());
  auto generic = linalg::GenericOp::create(
      g.b, g.loc, type, inputs, ValueRange{g.filled(type, 0.0)}, maps,
      iterators, [&](OpBuilder &b, Location loc, ValueRange args) {
        Value product = args[0];
        for (Value factor : args.drop_front().drop_back())
          product = arith::MulFOp::create(b, loc, product, factor);
        linalg::YieldOp::create(b, loc,
                                ValueRange{addF(b, loc, args.back(), product)});
      });
  g.setOutput(0, g.foldOrResult(generic));
  return success();
}

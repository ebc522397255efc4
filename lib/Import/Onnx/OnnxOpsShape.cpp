//===- OnnxOpsShape.cpp - Data movement -----------------------------------===//
//
// Translates Identity, Constant, Flatten, Reshape, Squeeze, Unsqueeze,
// Transpose, Concat, Split, Slice and Pad: shapes, axes, slices and pads
// are read at import (static shapes).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "llvm/Support/MathExtras.h"

#include <limits>
#include <numeric>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

LogicalResult onnx_import::translateIdentity(Graph &g) {
  if (DenseElementsAttr constant = g.constantInput(0)) {
    g.setOutputConstant(0, constant);
    return success();
  }
  auto x = g.input(0);
  if (failed(x))
    return failure();
  g.setOutput(0, *x, g.isUnsigned(*x));
  return success();
}

LogicalResult onnx_import::translateConstant(Graph &g) {
  Type f32 = g.b.getF32Type(), i64 = g.b.getI64Type();
  DenseElementsAttr result;
  if (const onnx::AttributeProto *attr = g.attribute("value")) {
    bool isUnsigned;
    auto value = decodeTensor(g.b.getContext(), g.loc, attr->t(), g.modelPath,
                              &isUnsigned);
    if (failed(value))
      return failure();
    result = *value;
    if (isUnsigned)
      g.unsignedConstants.insert(g.node->output(0));
  } else if (const onnx::AttributeProto *attr = g.attribute("value_float"))
    result = DenseElementsAttr::get(RankedTensorType::get({}, f32), attr->f());
  else if (const onnx::AttributeProto *attr = g.attribute("value_floats"))
    result = DenseElementsAttr::get(
        RankedTensorType::get({attr->floats_size()}, f32),
        ArrayRef<float>(attr->floats().data(), attr->floats_size()));
  else if (const onnx::AttributeProto *attr = g.attribute("value_int"))
    result = DenseElementsAttr::get(RankedTensorType::get({}, i64),
                                    int64_t(attr->i()));
  else if (const onnx::AttributeProto *attr = g.attribute("value_ints"))
    result = DenseElementsAttr::get(
        RankedTensorType::get({attr->ints_size()}, i64),
        ArrayRef<int64_t>(
            reinterpret_cast<const int64_t *>(attr->ints().data()),
            attr->ints_size()));
  if (!result)
    return g.error() << "no value attribute the importer reads (value, "
                     << "value_float(s), value_int(s))";
  g.setOutputConstant(0, result);
  return success();
}

LogicalResult onnx_import::translateReshapeLike(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const std::string &op = g.node->op_type();
  ArrayRef<int64_t> shape = type.getShape();
  SmallVector<int64_t> result;
  if (op == "Flatten") {
    // axis in [-rank, rank]: the first dimension of the inner block.
    const int64_t rank = type.getRank();
    int64_t axis = g.intAttr("axis", 1);
    if (axis < -rank || axis > rank)
      return g.error() << "axis " << axis << " is out of range for rank "
                       << rank;
    if (axis < 0)
      axis += rank;
    int64_t outer = 1, inner = 1;
    for (int64_t dim = 0; dim < rank; ++dim)
      (dim < axis ? outer : inner) *= shape[dim];
    result = {outer, inner};
  } else if (op == "Reshape") {
    auto target = g.constantInts(1, "shape");
    if (failed(target))
      return failure();
    const bool allowZero = g.intAttr("allowzero", 0) != 0;
    int64_t known = 1, inferred = -1;
    for (auto [i, size] : llvm::enumerate(*target)) {
      if (size == 0 && !allowZero) {
        if (int64_t(i) >= type.getRank())
          return g.error() << "shape entry " << i << " is 0 (copy) beyond "
                           << "the input's rank";
        size = shape[i];
      }
      if (size == -1) {
        if (inferred >= 0)
          return g.error() << "the shape has more than one -1";
        inferred = i;
      } else if (size < 0) {
        return g.error() << "shape entry " << size << " is negative";
      } else if (llvm::MulOverflow(known, size, known)) {
        // More elements than int64 counts: the input cannot have them.
        return g.error() << "cannot reshape " << type << " to a shape of "
                         << "more than 2^63 elements";
      }
      result.push_back(size);
    }
    if (inferred >= 0) {
      if (known == 0 || type.getNumElements() % known)
        return g.error() << "cannot infer the -1 of the shape for " << type;
      result[inferred] = type.getNumElements() / known;
    }
  } else {
    // Squeeze / Unsqueeze: axes from the input (opset 13) or attribute.
    SmallVector<int64_t> axes;
    if (g.hasInput(1)) {
      auto given = g.constantInts(1, "axes");
      if (failed(given))
        return failure();
      axes = *given;
    } else if (auto given = g.intsAttr("axes")) {
      axes = *given;
    }
    if (op == "Squeeze") {
      SmallVector<int64_t> normalized;
      for (int64_t axis : axes) {
        auto n = normalizeAxis(g, axis, type.getRank());
        if (failed(n))
          return failure();
        if (shape[*n] != 1)
          return g.error() << "cannot squeeze dimension " << *n << " of size "
                           << shape[*n];
        normalized.push_back(*n);
      }
      for (int64_t dim = 0; dim < type.getRank(); ++dim)
        if (axes.empty() ? shape[dim] != 1
                         : !llvm::is_contained(normalized, dim))
          result.push_back(shape[dim]);
    } else {
      const int64_t rank = type.getRank() + int64_t(axes.size());
      SmallVector<bool> inserted(rank, false);
      for (int64_t axis : axes) {
        auto n = normalizeAxis(g, axis, rank);
        if (failed(n))
          return failure();
        if (inserted[*n])
          return g.error() << "axis " << axis << " appears twice";
        inserted[*n] = true;
      }
      auto it = shape.begin();
      for (int64_t dim = 0; dim < rank; ++dim)
        result.push_back(inserted[dim] ? 1 : *it++);
    }
  }
  int64_t count = 1;
  bool overflow = false;
  for (int64_t size : result)
    overflow |= llvm::MulOverflow(count, size, count) != 0;
  if (overflow || count != type.getNumElements())
    return g.error() << "cannot reshape " << type << " to "
                     << withShape(*x, result);
  g.setOutput(0, g.reshape(*x, result), g.isUnsigned(*x));
  return success();
}

LogicalResult onnx_import::translateTranspose(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  const int64_t rank = tensorType(*x).getRank();
  SmallVector<int64_t> permutation = g.intsAttr("perm").value_or(
      llvm::to_vector(llvm::reverse(llvm::seq<int64_t>(0, rank))));
  SmallVector<int64_t> sorted(permutation);
  llvm::sort(sorted);
  if (!llvm::equal(sorted, llvm::seq<int64_t>(0, rank)))
    return g.error() << "perm is not a permutation of the input's " << rank
                     << " dimensions";
  g.setOutput(0, g.transpose(*x, permutation), g.isUnsigned(*x));
  return success();
}

LogicalResult onnx_import::translateConcat(Graph &g) {
  SmallVector<Value> inputs;
  for (int i = 0; i < g.node->input_size(); ++i) {
    auto value = g.input(i);
    if (failed(value))
      return failure();
    // Empty inputs contribute nothing.
    if (tensorType(*value).getNumElements() != 0 || g.node->input_size() == 1)
      inputs.push_back(*value);
  }
  if (inputs.empty())
    return g.error() << "every input is empty";
  RankedTensorType first = tensorType(inputs[0]);
  auto axis = normalizeAxis(g, g.intAttr("axis", 0), first.getRank());
  if (failed(axis))
    return failure();
  for (Value value : inputs) {
    RankedTensorType type = tensorType(value);
    bool fits = type.getRank() == first.getRank() &&
                type.getElementType() == first.getElementType();
    for (int64_t dim = 0; fits && dim < type.getRank(); ++dim)
      fits = dim == *axis || type.getDimSize(dim) == first.getDimSize(dim);
    if (!fits)
      return g.error() << type << " cannot be concatenated with " << first
                       << " along axis " << *axis;
  }
  // Of constants (shapes being computed): a constant.
  SmallVector<DenseElementsAttr> constants;
  for (Value value : inputs)
    if (DenseElementsAttr attr; matchPattern(value, m_Constant(&attr)))
      constants.push_back(attr);
  Value result;
  if (inputs.size() == 1) {
    result = inputs[0];
  } else if (constants.size() == inputs.size()) {
    SmallVector<int64_t> shape(first.getShape()), starts;
    shape[*axis] = 0;
    for (Value value : inputs) {
      starts.push_back(shape[*axis]);
      shape[*axis] += tensorType(value).getDimSize(*axis);
    }
    result = g.constant(remapConstant(
        constants, first.clone(shape), [&](ArrayRef<int64_t> index) {
          unsigned which =
              llvm::upper_bound(starts, index[*axis]) - starts.begin() - 1;
          SmallVector<int64_t> at(index);
          at[*axis] -= starts[which];
          return std::make_pair(
              which, linearize(at, computeStrides(
                                       tensorType(inputs[which]).getShape())));
        }));
  } else {
    result = tensor::ConcatOp::create(g.b, g.loc, *axis, inputs);
  }
  g.setOutput(0, result, g.isUnsigned(inputs[0]));
  return success();
}

/// value[offsets : offsets + sizes : strides] along every dim.
static Value extractSlice(Graph &g, Value value, ArrayRef<int64_t> offsets,
                          ArrayRef<int64_t> sizes, ArrayRef<int64_t> strides) {
  auto type = withShape(value, sizes);
  // extract_slice verifies offsets even for empty slices.
  if (type.getNumElements() == 0)
    return g.emptyLike(type);
  if (DenseElementsAttr attr; matchPattern(value, m_Constant(&attr))) {
    SmallVector<int64_t> sourceStrides =
        computeStrides(tensorType(value).getShape());
    return g.constant(remapConstant(attr, type, [&](ArrayRef<int64_t> index) {
      int64_t offset = 0;
      for (auto [dim, position] : llvm::enumerate(index))
        offset += (offsets[dim] + position * strides[dim]) * sourceStrides[dim];
      return std::make_pair(0u, offset);
    }));
  }
  MLIRContext *context = g.b.getContext();
  return tensor::ExtractSliceOp::create(
      g.b, g.loc, type, value, getAsIndexOpFoldResult(context, offsets),
      getAsIndexOpFoldResult(context, sizes),
      getAsIndexOpFoldResult(context, strides));
}

LogicalResult onnx_import::translateSplit(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  auto axis = normalizeAxis(g, g.intAttr("axis", 0), type.getRank());
  if (failed(axis))
    return failure();
  const int64_t outputs = g.node->output_size(), size = type.getDimSize(*axis);
  SmallVector<int64_t> sizes;
  if (g.hasInput(1)) {
    auto given = g.constantInts(1, "split");
    if (failed(given))
      return failure();
    sizes = *given;
  } else if (auto given = g.intsAttr("split")) {
    sizes = *given;
  } else {
    if (size % outputs)
      return g.error() << "dimension " << *axis << " of size " << size
                       << " does not split into " << outputs << " equal parts";
    sizes.assign(outputs, size / outputs);
  }
  if (int64_t(sizes.size()) != outputs ||
      llvm::any_of(sizes, [](int64_t s) { return s < 0; }) ||
      std::accumulate(sizes.begin(), sizes.end(), int64_t(0)) != size)
    return g.error() << "the split sizes do not add up to dimension " << *axis
                     << " (" << size << ") over " << outputs << " outputs";
  int64_t offset = 0;
  for (auto [index, part] : llvm::enumerate(sizes)) {
    SmallVector<int64_t> offsets(type.getRank(), 0), shape(type.getShape());
    offsets[*axis] = offset;
    shape[*axis] = part;
    g.setOutput(index,
                extractSlice(g, *x, offsets, shape,
                             SmallVector<int64_t>(type.getRank(), 1)),
                g.isUnsigned(*x));
    offset += part;
  }
  return success();
}

LogicalResult onnx_import::translateSlice(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  const int64_t rank = type.getRank();
  auto starts = g.constantInts(1, "starts");
  if (failed(starts))
    return failure();
  auto ends = g.constantInts(2, "ends");
  if (failed(ends))
    return failure();
  SmallVector<int64_t> axes, steps(starts->size(), 1);
  if (g.hasInput(3)) {
    auto given = g.constantInts(3, "axes");
    if (failed(given))
      return failure();
    axes = *given;
  } else {
    axes = llvm::to_vector(llvm::seq<int64_t>(0, starts->size()));
  }
  if (g.hasInput(4)) {
    auto given = g.constantInts(4, "steps");
    if (failed(given))
      return failure();
    steps = *given;
  }
  if (ends->size() != starts->size() || axes.size() != starts->size() ||
      steps.size() != starts->size())
    return g.error() << "starts, ends, axes and steps differ in length";
  SmallVector<int64_t> offsets(rank, 0), sizes(type.getShape()),
      strides(rank, 1);
  SmallVector<int64_t> reversed;
  for (size_t i = 0; i < axes.size(); ++i) {
    auto axis = normalizeAxis(g, axes[i], rank);
    if (failed(axis))
      return failure();
    const int64_t dim = type.getDimSize(*axis), step = steps[i];
    if (step == 0 || step == std::numeric_limits<int64_t>::min())
      return g.error() << "step " << step << " is not supported";
    auto clampIndex = [&](int64_t index, int64_t lo, int64_t hi) {
      if (index < 0)
        index =
            index < std::numeric_limits<int64_t>::min() / 2 ? lo : index + dim;
      return std::clamp(index, lo, hi);
    };
    if (step > 0) {
      const int64_t start = clampIndex((*starts)[i], 0, dim);
      const int64_t end = clampIndex((*ends)[i], 0, dim);
      offsets[*axis] = start;
      // Counted without overflow for steps up to INT64_MAX.
      sizes[*axis] = end > start ? (end - start - 1) / step + 1 : 0;
      strides[*axis] = step;
    } else {
      const int64_t start = clampIndex((*starts)[i], -1, dim - 1);
      const int64_t end = clampIndex((*ends)[i], -1, dim - 1);
      const int64_t count = start > end ? (start - end - 1) / -step + 1 : 0;
      // The same elements read forwards, then reversed.
      offsets[*axis] = count ? start + (count - 1) * step : 0;
      sizes[*axis] = count;
      strides[*axis] = -step;
      reversed.push_back(*axis);
    }
  }
  Value result = extractSlice(g, *x, offsets, sizes, strides);
  if (!reversed.empty() && tensorType(result).getNumElements() > 0) {
    MLIRContext *context = g.b.getContext();
    SmallVector<AffineExpr> exprs;
    for (int64_t dim = 0; dim < rank; ++dim) {
      AffineExpr d = getAffineDimExpr(dim, context);
      exprs.push_back(llvm::is_contained(reversed, dim) ? sizes[dim] - 1 - d
                                                        : d);
    }
    RankedTensorType resultType = tensorType(result);
    result = g.foldOrResult(linalg::GenericOp::create(
        g.b, g.loc, resultType, result, g.emptyLike(resultType),
        {AffineMap::get(rank, 0, exprs, context),
         g.b.getMultiDimIdentityMap(rank)},
        SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
        [](OpBuilder &b, Location loc, ValueRange a) {
          linalg::YieldOp::create(b, loc, a[0]);
        }));
  }
  g.setOutput(0, result, g.isUnsigned(*x));
  return success();
}

/// Pad's edge and reflect modes: each output element reads the input at
/// its position clamped into the input (edge) or mirrored at the borders
/// without repeating them (reflect, which needs pads smaller than the
/// dimension).
static FailureOr<Value> edgePad(Graph &g, Value x, ArrayRef<int64_t> low,
                                ArrayRef<int64_t> high, bool reflect) {
  RankedTensorType type = tensorType(x);
  const int64_t rank = type.getRank();
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t dim = 0; dim < rank; ++dim) {
    if (type.getDimSize(dim) == 0 ||
        (reflect && (low[dim] >= type.getDimSize(dim) ||
                     high[dim] >= type.getDimSize(dim))))
      return g.error() << "pads of dimension " << dim << " do not fit its "
                       << "size " << type.getDimSize(dim) << " in this mode";
    shape[dim] += low[dim] + high[dim];
  }
  auto resultType = type.clone(shape);
  return linalg::GenericOp::create(
             g.b, g.loc, resultType, ValueRange{}, g.emptyLike(resultType),
             SmallVector<AffineMap>{g.b.getMultiDimIdentityMap(rank)},
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &b, Location loc, ValueRange) {
               SmallVector<Value> at;
               for (int64_t dim = 0; dim < rank; ++dim) {
                 auto index = [&](int64_t v) -> Value {
                   return arith::ConstantIndexOp::create(b, loc, v);
                 };
                 Value i = arith::SubIOp::create(
                     b, loc, linalg::IndexOp::create(b, loc, dim),
                     index(low[dim]));
                 const int64_t last = type.getDimSize(dim) - 1;
                 if (reflect) {
                   // |i|, then last - |last - |i||.
                   Value negated = arith::SubIOp::create(b, loc, index(0), i);
                   i = arith::MaxSIOp::create(b, loc, i, negated);
                   Value fromEnd =
                       arith::SubIOp::create(b, loc, index(last), i);
                   Value mirrored = arith::MaxSIOp::create(
                       b, loc, fromEnd,
                       arith::SubIOp::create(b, loc, index(0), fromEnd));
                   i = arith::SubIOp::create(b, loc, index(last), mirrored);
                 } else {
                   i = arith::MinSIOp::create(
                       b, loc, arith::MaxSIOp::create(b, loc, i, index(0)),
                       index(last));
                 }
                 at.push_back(i);
               }
               linalg::YieldOp::create(
                   b, loc,
                   tensor::ExtractOp::create(b, loc, x, at).getResult());
             })
      .getResult(0);
}

LogicalResult onnx_import::translatePad(Graph &g) {
  auto x = g.input(0);
  if (failed(x))
    return failure();
  const std::string mode = g.stringAttr("mode", "constant");
  if (mode != "constant" && mode != "edge" && mode != "reflect")
    return g.error() << "mode '" << mode
                     << "' is not one of constant, edge, reflect";
  const int64_t rank = tensorType(*x).getRank();
  auto pads = g.constantInts(1, "pads");
  if (failed(pads))
    return failure();
  if (int64_t(pads->size()) != 2 * rank)
    return g.error() << "pads has " << pads->size() << " values, expected "
                     << 2 * rank;
  if (g.hasInput(3))
    return g.error() << "the axes input is not supported";
  SmallVector<int64_t> low(pads->begin(), pads->begin() + rank),
      high(pads->begin() + rank, pads->end());
  if (llvm::any_of(*pads, [](int64_t p) { return p < 0; }))
    return g.error() << "negative pads (cropping) are not supported";
  int64_t count = 1;
  for (auto [dim, before, after] :
       llvm::zip_equal(tensorType(*x).getShape(), low, high)) {
    int64_t padded = 0;
    if (llvm::AddOverflow(dim, before, padded) ||
        llvm::AddOverflow(padded, after, padded) ||
        llvm::MulOverflow(count, padded, count))
      return g.error() << "the padded tensor would have more than 2^63 "
                       << "elements";
  }
  if (mode != "constant") {
    auto edge = edgePad(g, *x, low, high, mode == "reflect");
    if (failed(edge))
      return failure();
    g.setOutput(0, *edge, g.isUnsigned(*x));
    return success();
  }
  double padValue = 0.0;
  if (g.hasInput(2)) {
    DenseElementsAttr value = g.constantInput(2);
    if (!value || value.getNumElements() != 1)
      return g.error() << "constant_value must be a constant scalar";
    if (value.getElementType().isF32())
      padValue = *value.getValues<float>().begin();
    else if (isa<IntegerType>(value.getElementType()))
      padValue = double((*value.getValues<APInt>().begin()).getSExtValue());
    else
      return g.error() << "constant_value must be f32 or an integer";
  }
  g.setOutput(0, g.pad(*x, low, high, padValue), g.isUnsigned(*x));
  return success();
}

//===- OnnxImporter.cpp - ONNX model to one function on tensors ----------===//
//
// Reads the ModelProto (protobuf from Debian's libonnx), checks its opset,
// decodes initializers (raw or typed fields, or external data next to the
// model) into DenseElementsAttrs built from the bytes (no text round trip),
// makes the graph inputs the function's arguments and translates the nodes
// in order (ONNX requires them topologically sorted). Shapes are computed
// here, op by op, not by ONNX's shape inference, whose errors are C++
// exceptions this code (built without exceptions, like LLVM) cannot catch.
//
//===----------------------------------------------------------------------===//

#include "quanta/Import/Onnx/OnnxImporter.h"
#include "OnnxOps.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/IndexingUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/Verifier.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/Path.h"

#include <cmath>
#include <cstring>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

//===----------------------------------------------------------------------===//
// Graph helpers
//===----------------------------------------------------------------------===//

InFlightDiagnostic Graph::error() {
  return emitError(loc) << node->op_type() << " node '" << nodeName << "': ";
}

bool Graph::hasInput(int index) const {
  return index < node->input_size() && !node->input(index).empty();
}

FailureOr<Value> Graph::input(int index) {
  if (!hasInput(index))
    return error() << "input " << index << " is missing";
  const std::string &name = node->input(index);
  if (auto it = values.find(name); it != values.end())
    return it->second;
  if (auto it = constants.find(name); it != constants.end()) {
    Value value = constant(it->second);
    values[name] = value;
    if (unsignedConstants.contains(name))
      unsignedValues.insert(value);
    return value;
  }
  return error() << "input '" << name << "' is not defined before the node";
}

DenseElementsAttr Graph::constantInput(int index) {
  if (!hasInput(index))
    return {};
  return constants.lookup(node->input(index));
}

FailureOr<SmallVector<int64_t>> Graph::constantInts(int index, StringRef what) {
  DenseElementsAttr attr = constantInput(index);
  if (!attr || !isa<IntegerType>(attr.getElementType()))
    return error() << "input " << index << " (" << what
                   << ") must be a constant integer tensor (an initializer, "
                   << "a Constant node or computed from shapes and "
                   << "constants): Quanta compiles static shapes";
  SmallVector<int64_t> ints;
  for (const APInt &value : attr.getValues<APInt>())
    ints.push_back(value.getSExtValue());
  return ints;
}

FailureOr<float> Graph::constantFloat(int index, StringRef what) {
  DenseElementsAttr attr = constantInput(index);
  if (!attr || !attr.getElementType().isF32() || attr.getNumElements() != 1)
    return error() << "input " << index << " (" << what
                   << ") must be a constant f32 scalar";
  return *attr.getValues<float>().begin();
}

void Graph::setOutput(int index, Value value, bool isUnsigned) {
  if (index >= node->output_size() || node->output(index).empty())
    return;
  values[node->output(index)] = value;
  if (isUnsigned)
    unsignedValues.insert(value);
}

void Graph::setOutputConstant(int index, DenseElementsAttr value) {
  if (index < node->output_size() && !node->output(index).empty())
    constants[node->output(index)] = value;
}

const onnx::AttributeProto *Graph::attribute(StringRef name) const {
  for (const onnx::AttributeProto &attr : node->attribute())
    if (attr.name() == name)
      return &attr;
  return nullptr;
}

int64_t Graph::intAttr(StringRef name, int64_t defaultValue) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->i() : defaultValue;
}

float Graph::floatAttr(StringRef name, float defaultValue) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->f() : defaultValue;
}

std::string Graph::stringAttr(StringRef name, StringRef defaultValue) const {
  const onnx::AttributeProto *attr = attribute(name);
  return attr ? attr->s() : defaultValue.str();
}

std::optional<SmallVector<int64_t>> Graph::intsAttr(StringRef name) const {
  const onnx::AttributeProto *attr = attribute(name);
  if (!attr)
    return std::nullopt;
  return SmallVector<int64_t>(attr->ints().begin(), attr->ints().end());
}

Value Graph::constant(DenseElementsAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}

Value Graph::scalar(Type type, double value) {
  if (isa<FloatType>(type))
    return arith::ConstantOp::create(b, loc, b.getFloatAttr(type, value));
  return arith::ConstantOp::create(b, loc,
                                   b.getIntegerAttr(type, int64_t(value)));
}

Value Graph::emptyLike(RankedTensorType type) {
  return tensor::EmptyOp::create(b, loc, type.getShape(),
                                 type.getElementType());
}

Value Graph::filled(RankedTensorType type, double value) {
  return linalg::FillOp::create(b, loc, scalar(type.getElementType(), value),
                                emptyLike(type))
      .getResult(0);
}

std::optional<SmallVector<int64_t>>
onnx_import::broadcastShapes(ArrayRef<int64_t> a, ArrayRef<int64_t> b) {
  size_t rank = std::max(a.size(), b.size());
  SmallVector<int64_t> shape(rank);
  for (size_t i = 0; i < rank; ++i) {
    int64_t x = i < rank - a.size() ? 1 : a[i - (rank - a.size())];
    int64_t y = i < rank - b.size() ? 1 : b[i - (rank - b.size())];
    if (x != y && x != 1 && y != 1)
      return std::nullopt;
    shape[i] = x == 1 ? y : x;
  }
  return shape;
}

void onnx_import::hoistConstants(linalg::GenericOp generic) {
  for (Operation &op :
       llvm::make_early_inc_range(generic.getBody()->without_terminator()))
    if (isa<arith::ConstantOp>(op))
      op.moveBefore(generic);
}

Value Graph::elementwise(
    ValueRange inputs, RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
  MLIRContext *context = b.getContext();
  const int64_t rank = resultType.getRank();
  SmallVector<AffineMap> maps;
  for (Value input : inputs) {
    ArrayRef<int64_t> shape =
        cast<RankedTensorType>(input.getType()).getShape();
    SmallVector<AffineExpr> exprs;
    const int64_t offset = rank - int64_t(shape.size());
    for (auto [i, size] : llvm::enumerate(shape)) {
      const int64_t dim = offset + int64_t(i);
      exprs.push_back(size == 1 && resultType.getDimSize(dim) != 1
                          ? getAffineConstantExpr(0, context)
                          : getAffineDimExpr(dim, context));
    }
    maps.push_back(AffineMap::get(rank, 0, exprs, context));
  }
  maps.push_back(b.getMultiDimIdentityMap(rank));
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  auto generic = linalg::GenericOp::create(
      b, loc, resultType, inputs, emptyLike(resultType), maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args.drop_back()));
      });
  hoistConstants(generic);
  return foldOrResult(generic);
}

Value Graph::reduce(
    Value input, ArrayRef<int64_t> axes, bool keepDims, double init,
    function_ref<Value(OpBuilder &, Location, Value, Value)> body) {
  auto type = cast<RankedTensorType>(input.getType());
  MLIRContext *context = b.getContext();
  SmallVector<int64_t> kept, keptShape;
  SmallVector<AffineExpr> outExprs;
  SmallVector<utils::IteratorType> iterators;
  for (int64_t dim = 0; dim < type.getRank(); ++dim) {
    if (llvm::is_contained(axes, dim)) {
      iterators.push_back(utils::IteratorType::reduction);
      continue;
    }
    iterators.push_back(utils::IteratorType::parallel);
    keptShape.push_back(type.getDimSize(dim));
    outExprs.push_back(getAffineDimExpr(dim, context));
  }
  auto reducedType = RankedTensorType::get(keptShape, type.getElementType());
  SmallVector<AffineMap> maps = {
      b.getMultiDimIdentityMap(type.getRank()),
      AffineMap::get(type.getRank(), 0, outExprs, context)};
  auto generic = linalg::GenericOp::create(
      b, loc, reducedType, input, filled(reducedType, init), maps, iterators,
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        linalg::YieldOp::create(nested, nestedLoc,
                                body(nested, nestedLoc, args[0], args[1]));
      });
  Value result = generic.getResult(0);
  if (!keepDims)
    return result;
  SmallVector<int64_t> shape(type.getShape());
  for (int64_t axis : axes)
    shape[axis] = 1;
  return reshape(result, shape);
}

/// A dequantized constant, quanta.fake_quant of a float constant with the
/// model's qparams: how QDQ models' weights import (DequantizeLinear of
/// constant integers). Data movement on one (a Gemm's transB, a depthwise
/// filter's reshape) is done on the constant at import, so that the
/// weights stay a quantized constant, which quanta-quantize needs; done on
/// the float tensor it would leave them float.
struct QuantizedConstant {
  DenseElementsAttr values;
  FakeQuantOp fakeQuant;
};

static std::optional<QuantizedConstant> matchQuantizedConstant(Value value) {
  auto fakeQuant = value.getDefiningOp<FakeQuantOp>();
  DenseElementsAttr values;
  if (!fakeQuant || !fakeQuant.hasKnownQParams() ||
      !matchPattern(fakeQuant.getInput(), m_Constant(&values)))
    return std::nullopt;
  return QuantizedConstant{values, fakeQuant};
}

/// The quantized dimension of a per-channel `fakeQuant`, if it is one.
static std::optional<int64_t> getQuantizedAxis(FakeQuantOp fakeQuant) {
  if (!fakeQuant.getAxis())
    return std::nullopt;
  return *fakeQuant.getAxis();
}

/// `weights` with new `values` (its data moved) and quantized dimension.
static Value moveQuantizedConstant(Graph &g, const QuantizedConstant &weights,
                                   DenseElementsAttr values,
                                   std::optional<int64_t> axis) {
  Value moved = g.constant(values);
  auto fakeQuant = cast<FakeQuantOp>(g.b.clone(*weights.fakeQuant));
  fakeQuant->setOperand(0, moved);
  fakeQuant.getResult().setType(cast<RankedTensorType>(values.getType()));
  if (axis)
    fakeQuant.setAxisAttr(g.b.getI64IntegerAttr(*axis));
  return fakeQuant.getResult();
}

Value Graph::fakeQuantize(Value input, quant::QuantizedType type) {
  SmallVector<float> scales;
  SmallVector<int64_t> zeroPoints;
  auto fakeQuant = FakeQuantOp::create(b, loc, input.getType(), input);
  if (auto perAxis = dyn_cast<quant::UniformQuantizedPerAxisType>(type)) {
    for (double scale : perAxis.getScales())
      scales.push_back(scale);
    llvm::append_range(zeroPoints, perAxis.getZeroPoints());
    fakeQuant.setAxisAttr(b.getI64IntegerAttr(perAxis.getQuantizedDimension()));
  } else {
    auto perTensor = cast<quant::UniformQuantizedType>(type);
    scales.push_back(perTensor.getScale());
    zeroPoints.push_back(perTensor.getZeroPoint());
  }
  fakeQuant.setScaleAttr(b.getDenseF32ArrayAttr(scales));
  fakeQuant.setZeroPointAttr(b.getDenseI64ArrayAttr(zeroPoints));
  fakeQuant.setQuantMinAttr(b.getI64IntegerAttr(type.getStorageTypeMin()));
  fakeQuant.setQuantMaxAttr(b.getI64IntegerAttr(type.getStorageTypeMax()));
  // ONNX Runtime writes a DequantizeLinear per consumer of a quantized
  // tensor: they share one fake quantization, as they shared one quant.qcast
  // (two would leave the float producer with two users, and float).
  for (Operation *user : input.getUsers())
    if (auto existing = dyn_cast<FakeQuantOp>(user);
        existing && existing != fakeQuant &&
        existing->getAttrDictionary() == fakeQuant->getAttrDictionary()) {
      fakeQuant.erase();
      return existing.getResult();
    }
  return fakeQuant.getResult();
}

Value Graph::reshape(Value input, ArrayRef<int64_t> shape) {
  auto type = cast<RankedTensorType>(input.getType());
  if (type.getShape() == shape)
    return input;
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  // Constants (weights) are reshaped at import.
  DenseElementsAttr constantValue;
  if (matchPattern(input, m_Constant(&constantValue)))
    return constant(constantValue.reshape(resultType));
  // A quantized one keeps its quantized dimension when a dimension of the
  // result has its size and the same number of elements before it.
  if (std::optional<QuantizedConstant> weights =
          matchQuantizedConstant(input)) {
    std::optional<int64_t> oldAxis = getQuantizedAxis(weights->fakeQuant);
    std::optional<int64_t> axis;
    if (oldAxis) {
      const int64_t before =
          ShapedType::getNumElements(type.getShape().take_front(*oldAxis));
      for (int64_t dim = 0; dim < int64_t(shape.size()) && !axis; ++dim)
        if (shape[dim] == type.getDimSize(*oldAxis) &&
            ShapedType::getNumElements(shape.take_front(dim)) == before)
          axis = dim;
    }
    if (!oldAxis || axis)
      return moveQuantizedConstant(*this, *weights,
                                   weights->values.reshape(resultType), axis);
  }
  // A scalar and a tensor of ones: an empty reassociation.
  if (type.getRank() == 0)
    return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                         ArrayRef<ReassociationIndices>{});
  if (shape.empty())
    return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                           ArrayRef<ReassociationIndices>{});
  if (type.getNumElements() == 0)
    return emptyLike(resultType);
  if (auto reassociation =
          getReassociationIndicesForReshape(type, resultType)) {
    if (type.getRank() > resultType.getRank())
      return tensor::CollapseShapeOp::create(b, loc, resultType, input,
                                             *reassociation);
    return tensor::ExpandShapeOp::create(b, loc, resultType, input,
                                         *reassociation);
  }
  // No single collapse or expand: through the flat vector.
  auto flatType =
      RankedTensorType::get({type.getNumElements()}, type.getElementType());
  Value flat = reshape(input, flatType.getShape());
  return reshape(flat, shape);
}

/// The constant an operand holds, or null.
static Attribute constantOperand(Value value) {
  Attribute attr;
  matchPattern(value, m_Constant(&attr));
  return attr;
}

DenseElementsAttr onnx_import::foldGeneric(linalg::GenericOp generic) {
  if (generic->getNumResults() != 1 || generic.getNumReductionLoops() != 0 ||
      !generic.getIndexingMapsArray().back().isIdentity())
    return {};
  auto resultType = cast<RankedTensorType>(generic->getResultTypes()[0]);
  int64_t count = 1;
  for (int64_t size : resultType.getShape())
    if (size < 0 || llvm::MulOverflow(count, size, count) ||
        count > kMaxFoldedElements)
      return {};
  SmallVector<SmallVector<Attribute>> inputs;
  SmallVector<SmallVector<int64_t>> strides;
  for (OpOperand *operand : generic.getDpsInputOperands()) {
    DenseElementsAttr value;
    if (!matchPattern(operand->get(), m_Constant(&value)))
      return {};
    inputs.push_back(llvm::to_vector(value.getValues<Attribute>()));
    strides.push_back(
        computeStrides(cast<ShapedType>(value.getType()).getShape()));
  }
  SmallVector<AffineMap> maps = generic.getIndexingMapsArray();
  Block &body = *generic.getBody();
  Value yielded = body.getTerminator()->getOperand(0);
  MLIRContext *context = generic.getContext();
  DenseMap<Value, Attribute> env;
  SmallVector<Attribute> result;
  result.reserve(resultType.getNumElements());
  SmallVector<int64_t> index(resultType.getRank(), 0);
  for (int64_t n = 0; n < resultType.getNumElements(); ++n) {
    env.clear();
    for (auto [k, values] : llvm::enumerate(inputs)) {
      int64_t offset = 0;
      if (values.size() > 1)
        for (auto [position, stride] :
             llvm::zip_equal(maps[k].compose(index), strides[k]))
          offset += position * stride;
      env[body.getArgument(k)] = values[offset];
    }
    auto lookup = [&](Value value) {
      Attribute attr = env.lookup(value);
      return attr ? attr : constantOperand(value);
    };
    for (Operation &op : body.without_terminator()) {
      if (auto indexOp = dyn_cast<linalg::IndexOp>(op)) {
        env[indexOp] =
            IntegerAttr::get(IndexType::get(context), index[indexOp.getDim()]);
        continue;
      }
      SmallVector<Attribute> operands;
      for (Value operand : op.getOperands()) {
        operands.push_back(lookup(operand));
        if (!operands.back())
          return {};
      }
      SmallVector<OpFoldResult> folded;
      if (failed(op.fold(operands, folded)) ||
          folded.size() != op.getNumResults())
        return {};
      for (auto [value, fold] : llvm::zip_equal(op.getResults(), folded)) {
        Attribute attr = isa<Attribute>(fold) ? cast<Attribute>(fold)
                                              : lookup(cast<Value>(fold));
        if (!attr)
          return {};
        env[value] = attr;
      }
    }
    Attribute element = lookup(yielded);
    auto typed = dyn_cast_or_null<TypedAttr>(element);
    if (!typed || typed.getType() != resultType.getElementType())
      return {};
    result.push_back(element);
    for (int64_t dim = resultType.getRank() - 1; dim >= 0; --dim) {
      if (++index[dim] < resultType.getDimSize(dim))
        break;
      index[dim] = 0;
    }
  }
  return DenseElementsAttr::get(resultType, result);
}

Value Graph::foldOrResult(linalg::GenericOp generic) {
  DenseElementsAttr folded = foldGeneric(generic);
  if (!folded)
    return generic.getResult(0);
  generic.erase();
  return constant(folded);
}

Value Graph::transpose(Value input, ArrayRef<int64_t> permutation) {
  auto type = cast<RankedTensorType>(input.getType());
  if (llvm::equal(permutation, llvm::seq<int64_t>(0, type.getRank())))
    return input;
  SmallVector<int64_t> shape;
  for (int64_t dim : permutation)
    shape.push_back(type.getDimSize(dim));
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  // Constants (weights: a Gemm's transB) are transposed at import, quantized
  // ones with their quantized dimension moved along.
  DenseElementsAttr constantValue;
  if (matchPattern(input, m_Constant(&constantValue)))
    return constant(transposeConstant(constantValue, permutation, resultType));
  if (std::optional<QuantizedConstant> weights = matchQuantizedConstant(input);
      weights && type.getElementType().isF32()) {
    std::optional<int64_t> axis = getQuantizedAxis(weights->fakeQuant);
    if (axis)
      axis = llvm::find(permutation, *axis) - permutation.begin();
    return moveQuantizedConstant(
        *this, *weights,
        transposeConstant(weights->values, permutation, resultType), axis);
  }
  return linalg::TransposeOp::create(b, loc, input, emptyLike(resultType),
                                     permutation)
      .getResult()[0];
}

Value Graph::pad(Value input, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
                 double padValue) {
  if (llvm::all_of(low, [](int64_t x) { return x == 0; }) &&
      llvm::all_of(high, [](int64_t x) { return x == 0; }))
    return input;
  auto type = cast<RankedTensorType>(input.getType());
  SmallVector<int64_t> shape(type.getShape());
  for (size_t dim = 0; dim < shape.size(); ++dim)
    shape[dim] += low[dim] + high[dim];
  auto resultType = RankedTensorType::get(shape, type.getElementType());
  return tensor::PadOp::create(b, loc, resultType, input,
                               getAsIndexOpFoldResult(b.getContext(), low),
                               getAsIndexOpFoldResult(b.getContext(), high),
                               scalar(type.getElementType(), padValue));
}

FailureOr<Value> Graph::floatInput(int index, StringRef what) {
  FailureOr<Value> value = input(index);
  if (failed(value))
    return failure();
  Type element = cast<RankedTensorType>(value->getType()).getElementType();
  if (!element.isF32())
    return error() << what << " has element type " << element
                   << "; the importer computes in f32 only";
  return value;
}

//===----------------------------------------------------------------------===//
// Tensors
//===----------------------------------------------------------------------===//

std::optional<ElementKind> onnx_import::getElementKind(MLIRContext *context,
                                                       int32_t dataType) {
  Builder b(context);
  switch (dataType) {
  case onnx::TensorProto::FLOAT:
    return ElementKind{b.getF32Type()};
  case onnx::TensorProto::DOUBLE:
    return ElementKind{b.getF64Type()};
  case onnx::TensorProto::UINT8:
    return ElementKind{b.getI8Type(), true};
  case onnx::TensorProto::INT8:
    return ElementKind{b.getI8Type()};
  case onnx::TensorProto::INT32:
    return ElementKind{b.getI32Type()};
  case onnx::TensorProto::INT64:
    return ElementKind{b.getI64Type()};
  case onnx::TensorProto::BOOL:
    return ElementKind{b.getI1Type()};
  default:
    return std::nullopt;
  }
}

std::string onnx_import::dataTypeName(int32_t dataType) {
  if (onnx::TensorProto::DataType_IsValid(dataType))
    return onnx::TensorProto::DataType_Name(
        onnx::TensorProto::DataType(dataType));
  return "data type " + std::to_string(dataType);
}

/// Reads an initializer stored outside the model (data_location EXTERNAL).
static FailureOr<std::string> readExternalData(Location loc,
                                               const onnx::TensorProto &tensor,
                                               StringRef modelPath) {
  std::string location;
  int64_t offset = 0, length = -1;
  for (const onnx::StringStringEntryProto &entry : tensor.external_data()) {
    if (entry.key() == "location")
      location = entry.value();
    else if (entry.key() == "offset" || entry.key() == "length") {
      int64_t value;
      if (StringRef(entry.value()).getAsInteger(10, value) || value < 0)
        return emitError(loc)
               << "initializer '" << tensor.name() << "': bad external data "
               << entry.key() << " '" << entry.value() << "'";
      (entry.key() == "offset" ? offset : length) = value;
    }
  }
  if (location.empty() || llvm::sys::path::is_absolute(location) ||
      StringRef(location).contains(".."))
    return emitError(loc) << "initializer '" << tensor.name()
                          << "': external data needs a relative location "
                          << "inside the model's directory, found '" << location
                          << "'";
  SmallString<256> path = llvm::sys::path::parent_path(modelPath);
  llvm::sys::path::append(path, location);
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return emitError(loc) << "initializer '" << tensor.name()
                          << "': cannot read its external data file '" << path
                          << "': " << file.getError().message();
  StringRef bytes = (*file)->getBuffer();
  if (offset > int64_t(bytes.size()) ||
      (length >= 0 && offset + length > int64_t(bytes.size())))
    return emitError(loc) << "initializer '" << tensor.name() << "': '" << path
                          << "' has " << bytes.size()
                          << " bytes, fewer than offset + length";
  return bytes.substr(offset, length < 0 ? StringRef::npos : length).str();
}

/// Copies `count` values of a typed repeated field into little-endian bytes
/// of `width` bits each (ONNX stores 8- and 16-bit types in int32_data).
template <typename Field>
static std::string packField(const Field &field, unsigned width) {
  std::string bytes;
  for (auto value : field) {
    uint64_t bits;
    if constexpr (std::is_same_v<decltype(value), float>)
      bits = llvm::bit_cast<uint32_t>(value);
    else if constexpr (std::is_same_v<decltype(value), double>)
      bits = llvm::bit_cast<uint64_t>(value);
    else
      bits = uint64_t(value);
    for (unsigned byte = 0; byte < width / 8; ++byte)
      bytes.push_back(char(bits >> (8 * byte)));
  }
  return bytes;
}

FailureOr<DenseElementsAttr>
onnx_import::decodeTensor(MLIRContext *context, Location loc,
                          const onnx::TensorProto &tensor, StringRef modelPath,
                          bool *isUnsigned) {
  std::optional<ElementKind> kind = getElementKind(context, tensor.data_type());
  if (!kind)
    return emitError(loc) << "tensor '" << tensor.name() << "' has type "
                          << dataTypeName(tensor.data_type())
                          << ", which the importer does not read";
  *isUnsigned = kind->isUnsigned;
  int64_t count = 1;
  for (int64_t dim : tensor.dims()) {
    if (dim < 0 || (dim > 0 && count > (int64_t(1) << 40) / dim))
      return emitError(loc) << "tensor '" << tensor.name()
                            << "' has a negative or too large dimension";
    count *= dim;
  }
  auto type = RankedTensorType::get(
      SmallVector<int64_t>(tensor.dims().begin(), tensor.dims().end()),
      kind->type);
  const unsigned width = kind->type.getIntOrFloatBitWidth();
  std::string bytes;
  if (tensor.data_location() == onnx::TensorProto::EXTERNAL) {
    auto external = readExternalData(loc, tensor, modelPath);
    if (failed(external))
      return failure();
    bytes = std::move(*external);
  } else if (tensor.has_raw_data()) {
    bytes = tensor.raw_data();
  } else {
    switch (tensor.data_type()) {
    case onnx::TensorProto::FLOAT:
      bytes = packField(tensor.float_data(), 32);
      break;
    case onnx::TensorProto::DOUBLE:
      bytes = packField(tensor.double_data(), 64);
      break;
    case onnx::TensorProto::INT64:
      bytes = packField(tensor.int64_data(), 64);
      break;
    default:
      bytes = packField(tensor.int32_data(), width == 1 ? 8 : width);
      break;
    }
  }
  const int64_t elementBytes = width == 1 ? 1 : width / 8;
  if (int64_t(bytes.size()) != count * elementBytes)
    return emitError(loc) << "tensor '" << tensor.name() << "' of type " << type
                          << " holds " << bytes.size()
                          << " bytes of data, expected "
                          << count * elementBytes;
  if (width == 1) {
    SmallVector<bool> bools;
    for (char byte : bytes)
      bools.push_back(byte != 0);
    return DenseElementsAttr::get(type, ArrayRef<bool>(bools));
  }
  return DenseElementsAttr::getFromRawBuffer(
      type, ArrayRef<char>(bytes.data(), bytes.size()));
}

/// Whether the elements of `type` (a static tensor) can be counted in int64.
static bool hasCountableElements(Type type) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor)
    return true;
  int64_t count = 1;
  for (int64_t dim : tensor.getShape())
    if (ShapedType::isDynamic(dim) || llvm::MulOverflow(count, dim, count))
      return false;
  return true;
}

/// The static tensor type of a graph input: its symbolic dimensions sized
/// by name (`options.dimSizes`), a symbolic or unknown first one by
/// `options.batchSize`; those left unbound are added to `unbound`.
static FailureOr<std::pair<RankedTensorType, bool>>
inputType(MLIRContext *context, Location loc, const onnx::ValueInfoProto &info,
          const OnnxImportOptions &options,
          SmallVectorImpl<std::string> &unbound) {
  if (!info.type().has_tensor_type())
    return emitError(loc) << "graph input '" << info.name()
                          << "' is not a tensor";
  const onnx::TypeProto::Tensor &tensor = info.type().tensor_type();
  std::optional<ElementKind> kind = getElementKind(context, tensor.elem_type());
  if (!kind)
    return emitError(loc) << "graph input '" << info.name() << "' has type "
                          << dataTypeName(tensor.elem_type())
                          << ", which the importer does not read";
  if (!tensor.has_shape())
    return emitError(loc) << "graph input '" << info.name() << "' has no shape";
  SmallVector<int64_t> shape;
  for (auto [index, dim] : llvm::enumerate(tensor.shape().dim())) {
    if (dim.has_dim_value() && dim.dim_value() >= 0) {
      shape.push_back(dim.dim_value());
      continue;
    }
    auto named = options.dimSizes.find(dim.dim_param());
    if (named != options.dimSizes.end()) {
      shape.push_back(named->second);
    } else if (index == 0 && options.batchSize > 0) {
      shape.push_back(options.batchSize);
    } else {
      unbound.push_back(
          "'" + (dim.dim_param().empty() ? std::string("?") : dim.dim_param()) +
          "' (dimension " + std::to_string(index) + " of '" + info.name() +
          "')");
      shape.push_back(1);
    }
  }
  auto type = RankedTensorType::get(shape, kind->type);
  if (!hasCountableElements(type))
    return emitError(loc) << "graph input '" << info.name() << "' has more "
                          << "than 2^63 elements";
  return std::make_pair(type, kind->isUnsigned);
}

//===----------------------------------------------------------------------===//
// The model
//===----------------------------------------------------------------------===//

/// `type` with its element type unsigned (ui8 for ONNX's uint8).
static RankedTensorType unsignedType(RankedTensorType type) {
  return type.clone(IntegerType::get(
      type.getContext(), type.getElementTypeBitWidth(), IntegerType::Unsigned));
}

static constexpr int64_t kMaxOpset = 17;

void quanta::registerOnnxImportDialects(DialectRegistry &registry) {
  registry.insert<arith::ArithDialect, func::FuncDialect, linalg::LinalgDialect,
                  math::MathDialect, quant::QuantDialect, scf::SCFDialect,
                  tensor::TensorDialect, QuantaDialect>();
}

ArrayRef<StringRef> quanta::getSupportedOnnxOps() {
  return onnx_import::supportedOps();
}

bool quanta::isOnnxConstantOperand(StringRef opType, unsigned index) {
  const OpInfo *info = lookupOp(opType);
  return info && index < 32 && (info->constantOperands >> index & 1);
}

ValueUses::ValueUses(const onnx::GraphProto &graph) {
  for (auto [index, node] : llvm::enumerate(graph.node())) {
    for (const std::string &output : node.output())
      producers[output] = index;
    for (const std::string &input : node.input())
      ++reads[input];
  }
  for (const onnx::ValueInfoProto &output : graph.output())
    ++reads[output.name()];
}

/// Folds each inference BatchNormalization into the Conv before it, as
/// PyTorch's fuse_conv_bn_eval does (in float32: w * (gamma * rsqrt(var +
/// eps)), (b - mean) * rsqrt(var + eps) * gamma + beta), when that is legal:
/// the Conv's weight (and bias) and the BN's parameters are constants and
/// the Conv's output feeds only the BN. The folded weights are new
/// constants; returns, per Conv node index, the BN node it absorbs.
static llvm::DenseMap<int, int>
foldBatchNorms(const onnx::GraphProto &graph,
               llvm::StringMap<DenseElementsAttr> &constants) {
  const ValueUses uses(graph);
  auto floats = [&](const std::string &name) -> SmallVector<float> {
    DenseElementsAttr attr = constants.lookup(name);
    if (!attr || !attr.getElementType().isF32())
      return {};
    return SmallVector<float>(attr.getValues<float>());
  };
  llvm::DenseMap<int, int> folds;
  for (auto [bnIndex, bn] : llvm::enumerate(graph.node())) {
    if (bn.op_type() != "BatchNormalization" || bn.input_size() != 5 ||
        bn.output_size() < 1 || (bn.output_size() > 1 && !bn.output(1).empty()))
      continue;
    float epsilon = 1e-5f;
    bool training = false;
    for (const onnx::AttributeProto &attr : bn.attribute()) {
      if (attr.name() == "epsilon")
        epsilon = attr.f();
      training |= attr.name() == "training_mode" && attr.i() != 0;
    }
    auto producer = uses.producers.find(bn.input(0));
    if (training || producer == uses.producers.end() ||
        uses.reads.lookup(bn.input(0)) != 1)
      continue;
    const onnx::NodeProto &conv = graph.node(producer->second);
    if (conv.op_type() != "Conv" || conv.input_size() < 2)
      continue;
    SmallVector<float> weight = floats(conv.input(1));
    SmallVector<float> gamma = floats(bn.input(1)), beta = floats(bn.input(2)),
                       mean = floats(bn.input(3)), var = floats(bn.input(4));
    const size_t channels = gamma.size();
    if (weight.empty() || channels == 0 || weight.size() % channels ||
        beta.size() != channels || mean.size() != channels ||
        var.size() != channels)
      continue;
    SmallVector<float> bias(channels, 0.0f);
    if (conv.input_size() > 2 && !conv.input(2).empty()) {
      bias = floats(conv.input(2));
      if (bias.size() != channels)
        continue;
    }
    const size_t perChannel = weight.size() / channels;
    for (size_t c = 0; c < channels; ++c) {
      const float rsqrt = 1.0f / std::sqrt(var[c] + epsilon);
      const float factor = gamma[c] * rsqrt;
      for (size_t i = 0; i < perChannel; ++i)
        weight[c * perChannel + i] *= factor;
      bias[c] = (bias[c] - mean[c]) * rsqrt * gamma[c] + beta[c];
    }
    auto weightType =
        cast<ShapedType>(constants.lookup(conv.input(1)).getType());
    constants[bn.output(0) + ".folded_weight"] =
        DenseElementsAttr::get(weightType, ArrayRef<float>(weight));
    constants[bn.output(0) + ".folded_bias"] = DenseElementsAttr::get(
        RankedTensorType::get({int64_t(channels)}, weightType.getElementType()),
        ArrayRef<float>(bias));
    folds[producer->second] = bnIndex;
  }
  return folds;
}

namespace {
class ModelImporter {
public:
  ModelImporter(MLIRContext *context, StringRef modelPath,
                const OnnxImportOptions &options)
      : context(context), modelPath(modelPath), options(options),
        fileLoc(FileLineColLoc::get(context, modelPath, 0, 0)) {}

  OwningOpRef<ModuleOp> run(StringRef bytes);

private:
  /// Parses `bytes` into `model`, which must have a non-empty graph, and
  /// reads its opset of the default domain.
  LogicalResult parseModel(StringRef bytes, onnx::ModelProto &model,
                           int64_t &opset);
  LogicalResult checkOpset(const onnx::ModelProto &model, int64_t &opset);
  /// Decodes the initializers into the graph's constants.
  LogicalResult readInitializers(const onnx::GraphProto &graphProto,
                                 Graph &graph);
  /// The function's arguments: the graph inputs that are not initializers,
  /// their types and their names with whether they are ONNX uint8.
  LogicalResult
  readInputs(const onnx::GraphProto &graphProto, const Graph &graph,
             SmallVectorImpl<Type> &argumentTypes,
             SmallVectorImpl<std::pair<std::string, bool>> &arguments);
  /// The function in `module`, its arguments the graph's values, with the
  /// builder at the start of its body.
  func::FuncOp createFunction(ModuleOp module, Graph &graph,
                              ArrayRef<Type> argumentTypes,
                              ArrayRef<std::pair<std::string, bool>> arguments);
  /// Translates the nodes in order, a Conv -> BatchNormalization pair that
  /// can be folded as one Conv.
  LogicalResult translateNodes(const onnx::GraphProto &graphProto,
                               Graph &graph);
  /// Translates `graph.node`, the node at `index`, and checks its outputs.
  /// A node `fused` from older nodes (fuseLayerNorms, fuseDynamicMatMuls)
  /// is translated at any opset.
  LogicalResult translateNode(Graph &graph, int index, bool fused = false);
  /// Returns the graph outputs, drops the constants left unused and sets the
  /// function's type and result names.
  LogicalResult returnOutputs(const onnx::GraphProto &graphProto, Graph &graph,
                              func::FuncOp func, ArrayRef<Type> argumentTypes);
  static std::string nodeName(const onnx::NodeProto &node, int index) {
    return node.name().empty() ? node.op_type() + "_" + std::to_string(index)
                               : node.name();
  }

  MLIRContext *context;
  StringRef modelPath;
  const OnnxImportOptions &options;
  Location fileLoc;
};
} // namespace

LogicalResult ModelImporter::checkOpset(const onnx::ModelProto &model,
                                        int64_t &opset) {
  opset = -1;
  for (const onnx::OperatorSetIdProto &id : model.opset_import()) {
    if (id.domain().empty() || id.domain() == "ai.onnx")
      opset = id.version();
  }
  if (opset < 0)
    return emitError(fileLoc) << "the model imports no opset of the default "
                              << "ONNX domain";
  if (opset < 1 || opset > kMaxOpset)
    return emitError(fileLoc)
           << "the model uses opset " << opset
           << "; the importer takes opsets up to " << kMaxOpset;
  return success();
}

LogicalResult ModelImporter::parseModel(StringRef bytes,
                                        onnx::ModelProto &model,
                                        int64_t &opset) {
  if (bytes.size() > size_t(INT32_MAX) ||
      !model.ParseFromArray(bytes.data(), int(bytes.size()))) {
    emitError(fileLoc) << "not a valid ONNX model: the protobuf does not "
                       << "parse (malformed or truncated)";
    return failure();
  }
  if (!model.has_graph() || model.graph().node_size() == 0) {
    emitError(fileLoc) << "the model has no graph or an empty one (is the "
                       << "file truncated?)";
    return failure();
  }
  return checkOpset(model, opset);
}

LogicalResult
ModelImporter::readInitializers(const onnx::GraphProto &graphProto,
                                Graph &graph) {
  for (const onnx::TensorProto &tensor : graphProto.initializer()) {
    bool isUnsigned;
    auto value = decodeTensor(context, fileLoc, tensor, modelPath, &isUnsigned);
    if (failed(value))
      return failure();
    graph.constants[tensor.name()] = *value;
    if (isUnsigned)
      graph.unsignedConstants.insert(tensor.name());
  }
  return success();
}

LogicalResult ModelImporter::readInputs(
    const onnx::GraphProto &graphProto, const Graph &graph,
    SmallVectorImpl<Type> &argumentTypes,
    SmallVectorImpl<std::pair<std::string, bool>> &arguments) {
  // Inputs that are initializers too are constants (older exporters list
  // the weights among the inputs).
  SmallVector<std::string> unbound;
  for (const onnx::ValueInfoProto &info : graphProto.input()) {
    if (graph.constants.count(info.name()))
      continue;
    auto type = inputType(context, fileLoc, info, options, unbound);
    if (failed(type))
      return failure();
    // uint8 stays visible in the signature (ui8), so that tools read and
    // write it as such; the body computes on signless i8.
    argumentTypes.push_back(type->second ? unsignedType(type->first)
                                         : type->first);
    arguments.emplace_back(info.name(), type->second);
  }
  // A misspelled name would otherwise go unnoticed when nothing is unbound.
  for (const auto &[name, size] : options.dimSizes) {
    bool used = false;
    for (const onnx::ValueInfoProto &info : graphProto.input())
      for (const auto &dim : info.type().tensor_type().shape().dim())
        used |= !dim.has_dim_value() && dim.dim_param() == name;
    if (!used)
      return emitError(fileLoc) << "no graph input has a symbolic dimension "
                                << "named '" << name << "'";
  }
  if (!unbound.empty()) {
    InFlightDiagnostic diag = emitError(fileLoc)
                              << "symbolic dimensions left unbound: "
                              << llvm::join(unbound, ", ");
    diag.attachNote() << "next: give each its size by name (--onnx-dim="
                      << "name=N,... in the tools, onnx_dims={'name': N} "
                      << "in Python); --onnx-batch=N sizes a first "
                      << "dimension the model leaves symbolic";
    return failure();
  }
  return success();
}

func::FuncOp ModelImporter::createFunction(
    ModuleOp module, Graph &graph, ArrayRef<Type> argumentTypes,
    ArrayRef<std::pair<std::string, bool>> arguments) {
  OpBuilder &b = graph.b;
  b.setInsertionPointToEnd(module.getBody());
  auto func = func::FuncOp::create(b, fileLoc, options.functionName,
                                   b.getFunctionType(argumentTypes, {}));
  Block *body = func.addEntryBlock();
  b.setInsertionPointToStart(body);
  for (auto [index, argument] : llvm::enumerate(arguments)) {
    Value value = body->getArgument(index);
    if (argument.second) {
      value = tensor::BitcastOp::create(
          b, fileLoc,
          cast<RankedTensorType>(value.getType()).clone(b.getI8Type()), value);
      graph.unsignedValues.insert(value);
    }
    graph.values[argument.first] = value;
    func.setArgAttr(index, "onnx.name", b.getStringAttr(argument.first));
  }
  return func;
}

LogicalResult ModelImporter::translateNodes(const onnx::GraphProto &graphProto,
                                            Graph &graph) {
  // Conv -> BatchNormalization pairs become one Conv with folded weights,
  // named after the BN's output.
  llvm::DenseMap<int, int> folds;
  if (graph.opset >= lookupOp("BatchNormalization")->sinceVersion)
    folds = foldBatchNorms(graphProto, graph.constants);
  llvm::DenseSet<int> absorbed;
  for (auto [conv, norm] : folds)
    absorbed.insert(norm);
  // Layer norms written out in opset-13 nodes become one
  // LayerNormalization, and ONNX Runtime's dynamic MatMuls (convolutions)
  // one DynamicQuantizeMatMul (DynamicQuantizeConv), translated where
  // their last node was.
  llvm::DenseMap<int, onnx::NodeProto> fusedNodes =
      fuseLayerNorms(graphProto, graph.constants, absorbed);
  for (auto &[index, node] : fuseDynamicMatMuls(
           graphProto, graph.constants, graph.unsignedConstants, absorbed))
    fusedNodes[index] = std::move(node);
  onnx::NodeProto foldedConv;
  SmallVector<onnx::NodeProto> expansion;
  for (auto [index, node] : llvm::enumerate(graphProto.node())) {
    if (absorbed.contains(index))
      continue;
    graph.node = &node;
    if (isContribQLinear(node)) {
      graph.nodeName = nodeName(node, index);
      graph.loc =
          NameLoc::get(StringAttr::get(context, graph.nodeName), fileLoc);
      expansion.clear();
      if (std::optional<std::string> why =
              expandContribQLinear(node, expansion))
        return graph.error() << *why;
      for (onnx::NodeProto &part : expansion) {
        graph.node = &part;
        if (failed(translateNode(graph, index)))
          return failure();
      }
      continue;
    }
    if (auto fusedNode = fusedNodes.find(index);
        fusedNode != fusedNodes.end()) {
      graph.node = &fusedNode->second;
      if (failed(translateNode(graph, index, /*fused=*/true)))
        return failure();
      continue;
    }
    if (auto fold = folds.find(index); fold != folds.end()) {
      const std::string &output = graphProto.node(fold->second).output(0);
      foldedConv = node;
      foldedConv.set_input(1, output + ".folded_weight");
      if (foldedConv.input_size() < 3)
        foldedConv.add_input(output + ".folded_bias");
      else
        foldedConv.set_input(2, output + ".folded_bias");
      foldedConv.set_output(0, output);
      graph.node = &foldedConv;
    }
    if (failed(translateNode(graph, index)))
      return failure();
  }
  // graph.node must not outlive foldedConv and expansion.
  graph.node = nullptr;
  return success();
}

LogicalResult ModelImporter::translateNode(Graph &graph, int index,
                                           bool fused) {
  const onnx::NodeProto &current = *graph.node;
  graph.nodeName = nodeName(current, index);
  graph.loc = NameLoc::get(StringAttr::get(context, graph.nodeName), fileLoc);
  // Of ONNX Runtime's contrib domain, QGemm and DynamicQuantizeMatMul
  // here; the other QOperator ops are expanded before
  // (expandContribQLinear).
  if (current.domain() == "com.microsoft" && current.op_type() == "QGemm")
    return translateQGemm(graph);
  if (current.domain() == "com.microsoft" &&
      current.op_type() == "DynamicQuantizeMatMul")
    return translateDynamicQuantizeMatMul(graph);
  if (current.domain() == "com.microsoft" && current.op_type() == "MatMulNBits")
    return translateMatMulNBits(graph);
  if (current.domain() == "com.microsoft" &&
      current.op_type() == "DynamicQuantizeLSTM")
    return translateDynamicQuantizeLSTM(graph);
  if (fused && current.domain() == kFusedDomain &&
      current.op_type() == kDynamicQuantizeConv)
    return translateDynamicQuantizeConv(graph);
  if (!current.domain().empty() && current.domain() != "ai.onnx") {
    graph.error() << "the op is in domain '" << current.domain()
                  << "'; the importer translates the default domain, and "
                  << "of com.microsoft ONNX Runtime's QOperator ops (QGemm, "
                  << "QLinearAdd, QLinearMul, QLinearSigmoid, "
                  << "QLinearLeakyRelu, QLinearConcat, "
                  << "QLinearGlobalAveragePool), DynamicQuantizeMatMul, "
                  << "DynamicQuantizeLSTM and MatMulNBits";
    return failure();
  }
  const OpInfo *info = lookupOp(current.op_type());
  if (!info) {
    InFlightDiagnostic diag = graph.error();
    diag << "the importer does not translate '" << current.op_type()
         << "' (supported: " << llvm::join(getSupportedOnnxOps(), ", ") << ")";
    diag.attachNote() << "next: docs/Onnx.md lists each op's limits; export "
                      << "the model with this part written in supported ops, "
                      << "or file an issue with the model";
    return failure();
  }
  // The op's definition in effect at the model's opset must be one the
  // translation implements.
  if (graph.opset < info->sinceVersion && !fused) {
    graph.error() << "at opset " << graph.opset << " the op has an older "
                  << "definition; the importer translates it from opset "
                  << info->sinceVersion
                  << " (convert the model with onnx.version_converter)";
    return failure();
  }
  if (failed(info->translate(graph)))
    return failure();
  for (int i = 0; i < current.output_size(); ++i) {
    if (current.output(i).empty())
      continue;
    // What the translation computed at import (shape computations) is a
    // constant, which later nodes can read as one (Reshape's shape).
    if (Value value = graph.values.lookup(current.output(i))) {
      DenseElementsAttr folded;
      if (matchPattern(value, m_Constant(&folded))) {
        graph.constants[current.output(i)] = folded;
        if (graph.isUnsigned(value))
          graph.unsignedConstants.insert(current.output(i));
      }
    }
    Value value = graph.values.lookup(current.output(i));
    if (!value && !graph.constants.count(current.output(i))) {
      graph.error() << "output " << i << " ('" << current.output(i)
                    << "') is not computed by the importer";
      return failure();
    }
    // Shapes computed from the model's numbers (pads, repeats, sizes)
    // could describe more elements than int64 counts; every later size
    // computation assumes they do not.
    if (value && !hasCountableElements(value.getType())) {
      graph.error() << "output " << i << " ('" << current.output(i)
                    << "') would have more than 2^63 elements";
      return failure();
    }
  }
  return success();
}

LogicalResult ModelImporter::returnOutputs(const onnx::GraphProto &graphProto,
                                           Graph &graph, func::FuncOp func,
                                           ArrayRef<Type> argumentTypes) {
  OpBuilder &b = graph.b;
  graph.loc = fileLoc;
  SmallVector<Value> results;
  for (const onnx::ValueInfoProto &info : graphProto.output()) {
    if (!graph.values.count(info.name()) &&
        !graph.constants.count(info.name())) {
      emitError(fileLoc) << "graph output '" << info.name()
                         << "' is not computed by any node";
      return failure();
    }
    const bool isUnsigned = graph.values.count(info.name())
                                ? graph.isUnsigned(graph.values[info.name()])
                                : graph.unsignedConstants.contains(info.name());
    Value value = graph.values.count(info.name())
                      ? graph.values[info.name()]
                      : graph.constant(graph.constants[info.name()]);
    if (isUnsigned)
      value = tensor::BitcastOp::create(
          b, fileLoc, unsignedType(cast<RankedTensorType>(value.getType())),
          value);
    results.push_back(value);
  }
  func::ReturnOp::create(b, fileLoc, results);
  // Constants read only at import (transposed or reshaped weights, folded
  // biases) leave unused materializations behind.
  Block *body = &func.getBody().front();
  for (Operation &op : llvm::make_early_inc_range(llvm::reverse(*body)))
    if (isOpTriviallyDead(&op))
      op.erase();
  func.setType(
      b.getFunctionType(argumentTypes, ValueRange(results).getTypes()));
  for (auto [index, info] : llvm::enumerate(graphProto.output()))
    func.setResultAttr(index, "onnx.name", b.getStringAttr(info.name()));
  return success();
}

OwningOpRef<ModuleOp> ModelImporter::run(StringRef bytes) {
  context->loadDialect<arith::ArithDialect, func::FuncDialect,
                       linalg::LinalgDialect, math::MathDialect,
                       quant::QuantDialect, scf::SCFDialect,
                       tensor::TensorDialect, QuantaDialect>();
  onnx::ModelProto model;
  int64_t opset;
  if (failed(parseModel(bytes, model, opset)))
    return nullptr;
  const onnx::GraphProto &graphProto = model.graph();

  OwningOpRef<ModuleOp> module = ModuleOp::create(fileLoc);
  OpBuilder b(context);
  Graph graph(b, opset, modelPath);
  graph.loc = fileLoc;

  if (failed(readInitializers(graphProto, graph)))
    return nullptr;
  SmallVector<Type> argumentTypes;
  SmallVector<std::pair<std::string, bool>> arguments;
  if (failed(readInputs(graphProto, graph, argumentTypes, arguments)))
    return nullptr;
  func::FuncOp func = createFunction(*module, graph, argumentTypes, arguments);
  if (failed(translateNodes(graphProto, graph)) ||
      failed(returnOutputs(graphProto, graph, func, argumentTypes)))
    return nullptr;
  fuseUnaryChains(func);
  if (failed(verify(*module)))
    return nullptr;
  return module;
}

llvm::Error quanta::parseOnnxDimSizes(StringRef spec,
                                      OnnxImportOptions &options) {
  SmallVector<StringRef> entries;
  spec.split(entries, ',', /*MaxSplit=*/-1, /*KeepEmpty=*/false);
  for (StringRef entry : entries) {
    auto [name, size] = entry.trim().split('=');
    int64_t value;
    if (name.trim().empty() || size.trim().getAsInteger(10, value) ||
        value <= 0)
      return llvm::createStringError(
          "'" + entry.str() +
          "' is not name=size with a size of at least 1 (e.g. "
          "--onnx-dim=batch=1,seq=128)");
    options.dimSizes[name.trim().str()] = value;
  }
  return llvm::Error::success();
}

OwningOpRef<ModuleOp>
quanta::importOnnxModel(MLIRContext *context, StringRef bytes,
                        StringRef modelPath, const OnnxImportOptions &options) {
  return ModelImporter(context, modelPath, options).run(bytes);
}

FailureOr<DenseElementsAttr>
quanta::importOnnxTensor(Location loc, StringRef bytes, bool *isUnsigned) {
  onnx::TensorProto tensor;
  if (bytes.size() > size_t(INT32_MAX) ||
      !tensor.ParseFromArray(bytes.data(), int(bytes.size())))
    return emitError(loc) << "not a valid ONNX TensorProto";
  bool isUnsignedTensor;
  return decodeTensor(loc.getContext(), loc, tensor, /*modelPath=*/"",
                      isUnsigned ? isUnsigned : &isUnsignedTensor);
}

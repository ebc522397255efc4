//===- QuantizeElementwise.cpp - quanta-quantize beyond GEMMs -------------===//
//
// The integer forms of quanta-quantize's other ops (QuantizeSupport.h):
//
//  - add/mul of two dequantized tensors: a linalg.generic on the storage
//    integers with the numeric library's IntegerAdd/IntegerMul constants,
//    computing exactly what IntegerAdd::apply/IntegerMul::apply compute
//    (the reference kernels checked against PyTorch's qnnpack);
//  - elementwise ops of one activation (and scalars): a 256-entry table,
//    built by evaluating the float body at compile time on every
//    dequantized input value and quantizing the result as quant.qcast
//    does. Clamp and relu are exact;
//    transcendental bodies (sigmoid, tanh) use the host's libm, which can
//    differ from the JIT's in the last float bit and so move an output
//    that lies on a rounding boundary by 1 LSB;
//  - max pooling and data movement with one quantized type in and out:
//    dequantization is monotone and quantize(dequantize(q)) == q, so they
//    commute with quantization and run on the storage integers exactly
//    (padding and initial values are quantized once);
//  - average pooling: i32 window sums of the centred storage values,
//    requantized once (the numeric library's IntegerAveragePool).
//
//===----------------------------------------------------------------------===//

#include "QuantizeSupport.h"

#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Numerics/IntegerKernels.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Matchers.h"

#include "llvm/ADT/StringMap.h"

#include <cmath>
#include <functional>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::detail;
namespace nx = mlir::quanta::numerics;

nx::ActivationQParams
quanta::detail::getQParams(quant::UniformQuantizedType type) {
  return {static_cast<float>(type.getScale()),
          static_cast<int32_t>(type.getZeroPoint())};
}

/// dequantize(q) as quant.dcast computes it for 8-bit types.
static float dequantize(int64_t q, quant::UniformQuantizedType type) {
  return static_cast<float>(q - type.getZeroPoint()) *
         static_cast<float>(type.getScale());
}

/// quant.qcast of `x` to `type` (PyTorch's quantize_val, clamped to the
/// storage range).
static int64_t quantize(float x, quant::UniformQuantizedType type) {
  return nx::quantizeValue(x, static_cast<float>(type.getScale()),
                           type.getZeroPoint(), type.getStorageTypeMin(),
                           type.getStorageTypeMax());
}

/// The quantized tensor `value` is dequantized from, if its type is `type`.
static Value getDequantizedFrom(Value value, quant::UniformQuantizedType type) {
  auto quantized = matchQuantizedActivation(value);
  if (failed(quantized) || quantized->second != type)
    return {};
  return quantized->first;
}

Value IntegerBody::constant(int64_t value, unsigned width) {
  return arith::ConstantIntOp::create(b, loc, b.getIntegerType(width), value);
}

Value IntegerBody::widen(Value storage, bool isSigned) {
  Type i32 = b.getI32Type();
  if (isSigned)
    return arith::ExtSIOp::create(b, loc, i32, storage);
  return arith::ExtUIOp::create(b, loc, i32, storage);
}

Value IntegerBody::add(Value x, Value y) {
  return arith::AddIOp::create(b, loc, x, y);
}

Value IntegerBody::sub(Value x, Value y) {
  return arith::SubIOp::create(b, loc, x, y);
}

Value IntegerBody::mul(Value x, Value y) {
  return arith::MulIOp::create(b, loc, x, y);
}

Value IntegerBody::roundingDivideByPOT(Value x, int exponent) {
  const int32_t mask = static_cast<int32_t>((int64_t(1) << exponent) - 1);
  Value zero = constant(0, 32);
  Value negative =
      arith::CmpIOp::create(b, loc, arith::CmpIPredicate::slt, x, zero);
  Value threshold =
      add(constant(mask >> 1, 32),
          arith::ExtUIOp::create(b, loc, b.getI32Type(), negative));
  Value remainder = arith::AndIOp::create(b, loc, x, constant(mask, 32));
  Value roundUp = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::sgt,
                                        remainder, threshold);
  return add(arith::ShRSIOp::create(b, loc, x, constant(exponent, 32)),
             arith::ExtUIOp::create(b, loc, b.getI32Type(), roundUp));
}

Value IntegerBody::requantize(Value x, Value multiplier, Value shift,
                              int32_t zeroPoint) {
  Type i64 = b.getI64Type();
  auto wide = [&](Value value) {
    return arith::ExtSIOp::create(b, loc, i64, value);
  };
  Value totalShift = sub(constant(31, 64), wide(shift));
  Value rounding = arith::ShLIOp::create(b, loc, constant(1, 64),
                                         sub(totalShift, constant(1, 64)));
  Value product = add(mul(wide(x), wide(multiplier)), rounding);
  return add(arith::ShRSIOp::create(b, loc, product, totalShift),
             constant(zeroPoint, 64));
}

Value IntegerBody::requantize(Value x, nx::QuantizedMultiplier m,
                              int32_t zeroPoint) {
  return requantize(x, constant(m.multiplier, 32), constant(m.shift, 32),
                    zeroPoint);
}

Value IntegerBody::clampToStorage(Value x, nx::QRange range) {
  unsigned width = cast<IntegerType>(x.getType()).getWidth();
  Value low =
      arith::MaxSIOp::create(b, loc, x, constant(range.quantMin, width));
  Value clamped =
      arith::MinSIOp::create(b, loc, low, constant(range.quantMax, width));
  return arith::TruncIOp::create(b, loc, b.getI8Type(), clamped);
}

/// A linalg.generic over storage integers shaped like `like` (same
/// iterators, its maps unless `maps` are given, one 8-bit result of
/// `resultType`'s shape), its body built by `buildBody(builder, loc,
/// inputs)`.
static Value buildStorageGeneric(
    OpBuilder &builder, linalg::GenericOp like, ValueRange inputs,
    RankedTensorType resultType,
    function_ref<Value(OpBuilder &, Location, ValueRange)> buildBody,
    ArrayRef<AffineMap> maps = {}) {
  Location loc = like.getLoc();
  auto storageType = resultType.clone(builder.getI8Type());
  Value init = tensor::EmptyOp::create(builder, loc, storageType.getShape(),
                                       builder.getI8Type());
  return linalg::GenericOp::create(
             builder, loc, storageType, inputs, ValueRange{init},
             maps.empty() ? like.getIndexingMapsArray()
                          : SmallVector<AffineMap>(maps),
             like.getIteratorTypesArray(),
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               linalg::YieldOp::create(nested, nestedLoc,
                                       buildBody(nested, nestedLoc, args));
             })
      .getResult(0);
}

//===----------------------------------------------------------------------===//
// add and mul
//===----------------------------------------------------------------------===//

/// The binary arith op of `generic` if its body is exactly
/// `yield op(in0, in1)` (either order).
static Operation *getBinaryOp(linalg::GenericOp generic) {
  Block *body = getElementwiseBody(generic);
  if (!body || generic.getNumDpsInputs() != 2 ||
      !llvm::hasSingleElement(body->without_terminator()))
    return nullptr;
  Operation &op = body->front();
  if (!isa<arith::AddFOp, arith::MulFOp>(op) ||
      body->getTerminator()->getOperand(0) != op.getResult(0))
    return nullptr;
  if (!llvm::is_contained(op.getOperands(), body->getArgument(0)) ||
      !llvm::is_contained(op.getOperands(), body->getArgument(1)))
    return nullptr;
  return &op;
}

/// IntegerAdd::apply on widened storage values.
static Value emitApply(IntegerBody &body, const nx::IntegerAdd &add, Value x,
                       Value y) {
  Value acc =
      body.add(body.mul(body.constant(add.aMultiplier, 32),
                        body.sub(x, body.constant(add.aZeroPoint, 32))),
               body.mul(body.constant(add.bMultiplier, 32),
                        body.sub(y, body.constant(add.bZeroPoint, 32))));
  Value shifted = body.add(body.roundingDivideByPOT(acc, add.shift),
                           body.constant(add.outputZeroPoint, 32));
  return body.clampToStorage(shifted, add.outputRange);
}

/// IntegerMul::apply on widened storage values.
static Value emitApply(IntegerBody &body, const nx::IntegerMul &mul, Value x,
                       Value y) {
  Value product = body.mul(body.sub(x, body.constant(mul.aZeroPoint, 32)),
                           body.sub(y, body.constant(mul.bZeroPoint, 32)));
  return body.clampToStorage(
      body.requantize(product, mul.multiplier, mul.outputZeroPoint),
      mul.outputRange);
}

using BinaryBodyBuilder = std::function<Value(IntegerBody &, Value, Value)>;

/// The body of `prepared` (an IntegerAdd or IntegerMul) with its output
/// range narrowed to the storage range of `outputType`, or why not.
template <typename Op>
static FailureOr<BinaryBodyBuilder>
getBodyBuilder(nx::StatusOr<Op> prepared,
               quant::UniformQuantizedType outputType, std::string &whyNot) {
  if (!prepared) {
    whyNot = prepared.getStatus().getMessage();
    return failure();
  }
  Op op = std::move(*prepared);
  if (failed(narrowToStorageRange(op.outputRange, outputType, whyNot)))
    return failure();
  return BinaryBodyBuilder([op](IntegerBody &body, Value x, Value y) {
    return emitApply(body, op, x, y);
  });
}

static LogicalResult quantizeBinary(RewriterBase &rewriter,
                                    quant::QuantizeCastOp qcast,
                                    linalg::GenericOp generic,
                                    std::optional<linalg::GenericOp> clamp,
                                    nx::FusedActivation activation,
                                    quant::UniformQuantizedType outputType,
                                    std::string &whyNot) {
  Operation *op = getBinaryOp(generic);
  bool isAdd = isa<arith::AddFOp>(op);
  SmallVector<Value, 2> storages;
  SmallVector<quant::UniformQuantizedType, 2> types;
  for (Value input : generic.getDpsInputs()) {
    auto quantized = matchQuantizedActivation(input);
    if (failed(quantized)) {
      whyNot = "an operand is not dequantized from an 8-bit per-tensor type";
      return failure();
    }
    types.push_back(quantized->second);
    storages.push_back(quantized->first);
  }
  const nx::DType dtype = getDType(outputType);
  if (getDType(types[0]) != dtype || getDType(types[1]) != dtype) {
    whyNot = "the operands and the result mix signed and unsigned types";
    return failure();
  }
  if (!generic->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  const nx::ActivationQParams a = getQParams(types[0]),
                              b = getQParams(types[1]),
                              out = getQParams(outputType);
  auto compute =
      isAdd
          ? getBodyBuilder(nx::prepareIntegerAdd(dtype, a, b, out, activation),
                           outputType, whyNot)
          : getBodyBuilder(nx::prepareIntegerMul(dtype, a, b, out, activation),
                           outputType, whyNot);
  if (failed(compute))
    return failure();
  // addf and mulf commute exactly, so the body's operand order is
  // irrelevant.
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = generic.getLoc();
  SmallVector<Value, 2> inputs{toStorage(builder, loc, storages[0]),
                               toStorage(builder, loc, storages[1])};
  const bool isSigned = dtype == nx::DType::QInt8;
  Value result = buildStorageGeneric(
      builder, generic, inputs, cast<RankedTensorType>(qcast.getType()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        IntegerBody body(nested, nestedLoc);
        Value x = body.widen(args[0], isSigned);
        Value y = body.widen(args[1], isSigned);
        return (*compute)(body, x, y);
      });
  rewriter.replaceAllUsesWith(qcast.getResult(),
                              fromStorage(builder, loc, result, outputType));
  rewriter.eraseOp(qcast);
  if (clamp)
    rewriter.eraseOp(*clamp);
  rewriter.eraseOp(generic);
  return success();
}

//===----------------------------------------------------------------------===//
// Lookup tables
//===----------------------------------------------------------------------===//

/// The float32 semantics of the body ops a lookup table can evaluate.
static const llvm::StringMap<float (*)(float)> kUnaryOps = {
    {arith::NegFOp::getOperationName(), [](float a) { return -a; }},
    {math::AbsFOp::getOperationName(), [](float a) { return std::fabs(a); }},
    {math::ExpOp::getOperationName(), [](float a) { return std::exp(a); }},
    {math::TanhOp::getOperationName(), [](float a) { return std::tanh(a); }},
    {math::ErfOp::getOperationName(), [](float a) { return std::erf(a); }},
    {math::LogOp::getOperationName(), [](float a) { return std::log(a); }},
    {math::SqrtOp::getOperationName(), [](float a) { return std::sqrt(a); }},
};

/// maximumf/minimumf propagate NaN; maxnumf/minnumf (fmax/fmin) drop it.
static float propagateNaN(float a, float b, float result) {
  return std::isnan(a) || std::isnan(b) ? std::nanf("") : result;
}

static const llvm::StringMap<float (*)(float, float)> kBinaryOps = {
    {arith::AddFOp::getOperationName(), [](float a, float b) { return a + b; }},
    {arith::SubFOp::getOperationName(), [](float a, float b) { return a - b; }},
    {arith::MulFOp::getOperationName(), [](float a, float b) { return a * b; }},
    {arith::DivFOp::getOperationName(), [](float a, float b) { return a / b; }},
    {arith::MaximumFOp::getOperationName(),
     [](float a, float b) { return propagateNaN(a, b, std::fmax(a, b)); }},
    {arith::MinimumFOp::getOperationName(),
     [](float a, float b) { return propagateNaN(a, b, std::fmin(a, b)); }},
    {arith::MaxNumFOp::getOperationName(),
     [](float a, float b) { return std::fmax(a, b); }},
    {arith::MinNumFOp::getOperationName(),
     [](float a, float b) { return std::fmin(a, b); }},
};

/// `body` (an elementwise body of one variable input) evaluated in float32
/// with `arguments` for its block arguments, or nullopt if it uses an op
/// this evaluator does not know.
static std::optional<float> evaluateBody(Block *body,
                                         ArrayRef<float> arguments) {
  DenseMap<Value, float> values;
  for (auto [argument, value] : llvm::zip(body->getArguments(), arguments))
    values[argument] = value;
  auto valueOf = [&](Value value) -> std::optional<float> {
    if (auto it = values.find(value); it != values.end())
      return it->second;
    FloatAttr attr;
    if (matchPattern(value, m_Constant(&attr)) && attr.getType().isF32())
      return attr.getValue().convertToFloat();
    return std::nullopt;
  };
  for (Operation &op : body->without_terminator()) {
    SmallVector<float, 2> operands;
    for (Value operand : op.getOperands()) {
      std::optional<float> value = valueOf(operand);
      if (!value)
        return std::nullopt;
      operands.push_back(*value);
    }
    std::optional<float> result;
    StringRef name = op.getName().getStringRef();
    if (auto it = kUnaryOps.find(name);
        it != kUnaryOps.end() && operands.size() == 1)
      result = it->second(operands[0]);
    else if (auto it = kBinaryOps.find(name);
             it != kBinaryOps.end() && operands.size() == 2)
      result = it->second(operands[0], operands[1]);
    if (!result)
      return std::nullopt;
    values[op.getResult(0)] = *result;
  }
  return valueOf(body->getTerminator()->getOperand(0));
}

/// The float32 value of every element of the constant `value`, if it is a
/// splat of one.
static std::optional<float> getSplatFloat(Value value) {
  DenseFPElementsAttr attr;
  if (matchPattern(value, m_Constant(&attr)) && attr.isSplat() &&
      attr.getElementType().isF32())
    return attr.getSplatValue<float>();
  return std::nullopt;
}

/// The input of an elementwise `generic` dequantized from an 8-bit tensor
/// (its map the identity) when every other input is a splat constant (a
/// scalar, such as attention's 1/sqrt(d)): the values of a table.
static std::optional<unsigned> getTableInput(linalg::GenericOp generic) {
  std::optional<unsigned> variable;
  for (OpOperand *input : generic.getDpsInputOperands()) {
    if (getSplatFloat(input->get()))
      continue;
    if (variable || !input->get().getDefiningOp<quant::DequantizeCastOp>() ||
        !generic.getMatchingIndexingMap(input).isIdentity())
      return std::nullopt;
    variable = input->getOperandNumber();
  }
  return variable;
}

static LogicalResult
quantizeWithTable(RewriterBase &rewriter, quant::QuantizeCastOp qcast,
                  linalg::GenericOp generic, unsigned variable,
                  quant::UniformQuantizedType outputType, std::string &whyNot) {
  auto input = matchQuantizedActivation(generic.getDpsInputs()[variable]);
  if (failed(input)) {
    whyNot = "the operand is not dequantized from an 8-bit per-tensor type";
    return failure();
  }
  if (!generic->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  quant::UniformQuantizedType inputType = input->second;
  SmallVector<float> arguments;
  for (Value operand : generic.getDpsInputs())
    arguments.push_back(getSplatFloat(operand).value_or(0.0f));
  // Entry i holds the output for the storage value whose bits are i
  // (biased by 128 for signed storage).
  SmallVector<int8_t> table(256, 0);
  const int64_t bias = inputType.isSigned() ? 128 : 0;
  for (int64_t q = inputType.getStorageTypeMin();
       q <= inputType.getStorageTypeMax(); ++q) {
    arguments[variable] = dequantize(q, inputType);
    std::optional<float> y = evaluateBody(generic.getBody(), arguments);
    if (!y) {
      whyNot = "its body has ops the lookup-table builder cannot evaluate";
      return failure();
    }
    if (std::isnan(*y)) {
      whyNot = "its body gives NaN for the input " +
               std::to_string(dequantize(q, inputType));
      return failure();
    }
    table[q + bias] = static_cast<int8_t>(quantize(*y, outputType));
  }
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = generic.getLoc();
  auto tableType = RankedTensorType::get({256}, builder.getI8Type());
  Value tableValue = arith::ConstantOp::create(
      builder, loc, DenseElementsAttr::get(tableType, ArrayRef(table)));
  Value result = buildStorageGeneric(
      builder, generic, {toStorage(builder, loc, input->first)},
      cast<RankedTensorType>(qcast.getType()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        IntegerBody body(nested, nestedLoc);
        Value index = body.add(body.widen(args[0], inputType.isSigned()),
                               body.constant(bias, 32));
        Value position = arith::IndexCastOp::create(
            nested, nestedLoc, nested.getIndexType(), index);
        return tensor::ExtractOp::create(nested, nestedLoc, tableValue,
                                         ValueRange{position});
      },
      {generic.getIndexingMapsArray()[variable],
       generic.getIndexingMapsArray().back()});
  rewriter.replaceAllUsesWith(qcast.getResult(),
                              fromStorage(builder, loc, result, outputType));
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(generic);
  return success();
}

//===----------------------------------------------------------------------===//
// Max pooling and data movement
//===----------------------------------------------------------------------===//

/// The storage integers of `input` (of type `from`) requantized to type
/// `to`: zo + (q - zi) * si / so with the GEMM's Q31 multiplier and one
/// rounding, clamped to the storage range (within 1 LSB of requantizing
/// the dequantized float).
static FailureOr<Value> requantizeStorage(OpBuilder &builder, Location loc,
                                          Value input,
                                          quant::UniformQuantizedType from,
                                          quant::UniformQuantizedType to,
                                          std::string &whyNot) {
  if (from.getStorageTypeIntegralWidth() != 8) {
    whyNot = "a concatenated input is not 8-bit";
    return failure();
  }
  nx::StatusOr<nx::QuantizedMultiplier> multiplier =
      nx::quantizeMultiplier(from.getScale() / to.getScale());
  if (!multiplier.ok()) {
    whyNot = multiplier.getStatus().getMessage();
    return failure();
  }
  Value storage = toStorage(builder, loc, input);
  auto type = cast<RankedTensorType>(storage.getType());
  const int64_t rank = type.getRank();
  const bool isSigned = from.isSigned();
  const nx::QRange range{to.getStorageTypeMin(), to.getStorageTypeMax()};
  return linalg::GenericOp::create(
             builder, loc, type, storage,
             tensor::EmptyOp::create(builder, loc, type.getShape(),
                                     builder.getI8Type())
                 .getResult(),
             SmallVector<AffineMap>(2, builder.getMultiDimIdentityMap(rank)),
             SmallVector<utils::IteratorType>(rank,
                                              utils::IteratorType::parallel),
             [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
               IntegerBody body(nested, nestedLoc);
               Value centred = body.sub(body.widen(args[0], isSigned),
                                        body.constant(from.getZeroPoint(), 32));
               Value result =
                   body.requantize(centred, *multiplier,
                                   static_cast<int32_t>(to.getZeroPoint()));
               linalg::YieldOp::create(nested, nestedLoc,
                                       body.clampToStorage(result, range));
             })
      .getResult(0);
}

/// The storage integers of the quantized tensors `op`'s float operands
/// are dequantized from, if all have `type`; null entries for the other
/// operands.
static FailureOr<SmallVector<Value>>
getStorageOperands(OpBuilder &builder, Operation *op,
                   quant::UniformQuantizedType type, std::string &whyNot) {
  SmallVector<Value> storages;
  for (Value operand : op->getOperands()) {
    // Index operands: reshape's shape, dynamic offsets and sizes.
    if (!isa<FloatType>(getElementTypeOrSelf(operand.getType()))) {
      storages.push_back({});
      continue;
    }
    if (Value quantized = getDequantizedFrom(operand, type)) {
      storages.push_back(toStorage(builder, op->getLoc(), quantized));
      continue;
    }
    // Concatenated inputs of other 8-bit types are requantized first.
    auto other = matchQuantizedActivation(operand);
    FailureOr<Value> requantized =
        isa<tensor::ConcatOp>(op) && succeeded(other)
            ? requantizeStorage(builder, op->getLoc(), other->first,
                                other->second, type, whyNot)
            : FailureOr<Value>(failure());
    if (failed(requantized)) {
      if (whyNot.empty())
        whyNot = "an operand is not dequantized from the result's quantized "
                 "type (only concatenation requantizes its inputs)";
      return failure();
    }
    storages.push_back(*requantized);
  }
  return storages;
}

/// linalg.transpose, broadcast and copy of a tensor dequantized from the
/// result's type: the same op on the storage integers (the named ops'
/// bodies are typed, so they are rebuilt rather than cloned).
static LogicalResult quantizeLinalgCopy(RewriterBase &rewriter,
                                        quant::QuantizeCastOp qcast,
                                        linalg::LinalgOp op,
                                        quant::UniformQuantizedType type,
                                        std::string &whyNot) {
  Value input = getDequantizedFrom(op.getDpsInputs()[0], type);
  if (!input) {
    whyNot = "the input is not dequantized from the result's quantized type "
             "(a requantizing copy is not supported yet)";
    return failure();
  }
  if (!op->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = op.getLoc();
  auto storageType =
      cast<RankedTensorType>(qcast.getType()).clone(builder.getI8Type());
  Value storage = toStorage(builder, loc, input);
  Value init = tensor::EmptyOp::create(builder, loc, storageType.getShape(),
                                       builder.getI8Type());
  Value result;
  if (auto transpose = dyn_cast<linalg::TransposeOp>(op.getOperation()))
    result = linalg::TransposeOp::create(builder, loc, storage, init,
                                         transpose.getPermutation())
                 .getResult()[0];
  else if (auto broadcast = dyn_cast<linalg::BroadcastOp>(op.getOperation()))
    result = linalg::BroadcastOp::create(builder, loc, storage, init,
                                         broadcast.getDimensions())
                 .getResult()[0];
  else
    result = linalg::CopyOp::create(builder, loc, storage, init).getResult(0);
  rewriter.replaceAllUsesWith(qcast.getResult(),
                              fromStorage(builder, loc, result, type));
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(op);
  return success();
}

/// Max pooling (NHWC or NCHW) on the storage integers: the pool's own
/// indexing maps with a signed or unsigned integer max (upstream has no
/// unsigned NCHW pooling op).
static LogicalResult quantizeMaxPool(RewriterBase &rewriter,
                                     quant::QuantizeCastOp qcast,
                                     linalg::LinalgOp pool,
                                     quant::UniformQuantizedType type,
                                     std::string &whyNot) {
  Value input = getDequantizedFrom(pool.getDpsInputs()[0], type);
  auto fill = pool.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  FloatAttr initial;
  if (!input || !fill ||
      !matchPattern(fill.getInputs()[0], m_Constant(&initial))) {
    whyNot = "max pooling needs the result's quantized type as input and a "
             "constant initial value";
    return failure();
  }
  if (!pool->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = pool.getLoc();
  auto storageType =
      cast<RankedTensorType>(qcast.getType()).clone(builder.getI8Type());
  // max(initial, x) quantizes to max(quantize(initial), q).
  const float initialValue = initial.getValue().convertToFloat();
  Value init =
      linalg::FillOp::create(
          builder, loc,
          ValueRange{arith::ConstantIntOp::create(
              builder, loc, builder.getI8Type(),
              std::isnan(initialValue) ? type.getStorageTypeMin()
                                       : quantize(initialValue, type))},
          ValueRange{tensor::EmptyOp::create(
              builder, loc, storageType.getShape(), builder.getI8Type())})
          .getResult(0);
  const bool isSigned = type.isSigned();
  auto intPool = linalg::GenericOp::create(
      builder, loc, TypeRange{storageType},
      ValueRange{toStorage(builder, loc, input), pool.getDpsInputs()[1]},
      ValueRange{init}, pool.getIndexingMapsArray(),
      pool.getIteratorTypesArray(),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        Value max = isSigned ? Value(arith::MaxSIOp::create(nested, nestedLoc,
                                                            args[0], args[2]))
                             : Value(arith::MaxUIOp::create(nested, nestedLoc,
                                                            args[0], args[2]));
        linalg::YieldOp::create(nested, nestedLoc, max);
      });
  rewriter.replaceAllUsesWith(
      qcast.getResult(),
      fromStorage(builder, loc, intPool->getResult(0), type));
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(pool);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  return success();
}

/// Average pooling (a sum pooling of a dequantized 8-bit tensor divided by
/// its window size, getAveragePoolDivision) as IntegerAveragePool: i32
/// sums of q - zi in the pooling's own loops (its indexing maps carry the
/// strides and dilations), then requantized per element.
static LogicalResult quantizeAveragePool(RewriterBase &rewriter,
                                         quant::QuantizeCastOp qcast,
                                         linalg::LinalgOp sum,
                                         linalg::GenericOp division,
                                         quant::UniformQuantizedType outputType,
                                         std::string &whyNot) {
  auto quantized = matchQuantizedActivation(sum.getDpsInputs()[0]);
  if (failed(quantized)) {
    whyNot = "the pooled input is not dequantized from an 8-bit per-tensor "
             "type";
    return failure();
  }
  auto [input, inputType] = *quantized;
  auto fill = sum.getDpsInits()[0].getDefiningOp<linalg::FillOp>();
  FloatAttr initial;
  if (!fill || !matchPattern(fill.getInputs()[0], m_Constant(&initial)) ||
      !initial.getValue().isZero()) {
    whyNot = "the sum pooling does not start from zero";
    return failure();
  }
  const nx::DType dtype = getDType(outputType);
  if (getDType(inputType) != dtype) {
    whyNot = "the input and the result mix signed and unsigned types";
    return failure();
  }
  if (!division->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  auto window = cast<ShapedType>(sum.getDpsInputs()[1].getType());
  nx::StatusOr<nx::IntegerAveragePool> pool = nx::prepareIntegerAveragePool(
      dtype, getQParams(inputType), getQParams(outputType),
      window.getNumElements());
  if (!pool) {
    whyNot = pool.getStatus().getMessage();
    return failure();
  }
  if (failed(narrowToStorageRange(pool->outputRange, outputType, whyNot)))
    return failure();

  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = sum.getLoc();
  Type i32 = builder.getI32Type();
  auto sumType = cast<RankedTensorType>(sum->getResult(0).getType()).clone(i32);
  Value zero =
      linalg::FillOp::create(
          builder, loc,
          ValueRange{arith::ConstantIntOp::create(builder, loc, i32, 0)},
          ValueRange{
              tensor::EmptyOp::create(builder, loc, sumType.getShape(), i32)})
          .getResult(0);
  const bool isSigned = dtype == nx::DType::QInt8;
  Value sums =
      linalg::GenericOp::create(
          builder, loc, sumType,
          ValueRange{toStorage(builder, loc, input), sum.getDpsInputs()[1]},
          ValueRange{zero}, sum.getIndexingMapsArray(),
          sum.getIteratorTypesArray(),
          [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
            IntegerBody body(nested, nestedLoc);
            Value centred = body.sub(body.widen(args[0], isSigned),
                                     body.constant(pool->inputZeroPoint, 32));
            linalg::YieldOp::create(nested, nestedLoc,
                                    body.add(args[2], centred));
          })
          .getResult(0);
  Value result = buildStorageGeneric(
      builder, division, sums, cast<RankedTensorType>(qcast.getType()),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange args) {
        IntegerBody body(nested, nestedLoc);
        return body.clampToStorage(
            body.requantize(args[0], pool->multiplier, pool->outputZeroPoint),
            pool->outputRange);
      });
  rewriter.replaceAllUsesWith(qcast.getResult(),
                              fromStorage(builder, loc, result, outputType));
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(division);
  rewriter.eraseOp(sum);
  if (fill->use_empty())
    rewriter.eraseOp(fill);
  return success();
}

/// Data movement that keeps every value: re-created on storage integers.
static LogicalResult quantizeDataMovement(RewriterBase &rewriter,
                                          quant::QuantizeCastOp qcast,
                                          Operation *op,
                                          quant::UniformQuantizedType type,
                                          std::string &whyNot) {
  rewriter.setInsertionPoint(qcast);
  OpBuilder &builder = rewriter;
  Location loc = op->getLoc();
  FailureOr<SmallVector<Value>> storages =
      getStorageOperands(builder, op, type, whyNot);
  if (failed(storages))
    return failure();
  if (!op->getResult(0).hasOneUse()) {
    whyNot = "the float result has other users";
    return failure();
  }
  auto storageType =
      cast<RankedTensorType>(qcast.getType()).clone(builder.getI8Type());
  Value result;
  if (auto pad = dyn_cast<tensor::PadOp>(op)) {
    FloatAttr padValue;
    Value yielded = pad.getConstantPaddingValue();
    if (!yielded || !matchPattern(yielded, m_Constant(&padValue))) {
      whyNot = "the padding value is not a constant";
      return failure();
    }
    const float value = padValue.getValue().convertToFloat();
    if (std::isnan(value)) {
      whyNot = "the padding value is NaN";
      return failure();
    }
    Value storagePad = arith::ConstantIntOp::create(
        builder, loc, builder.getI8Type(), quantize(value, type));
    result = tensor::PadOp::create(builder, loc, storageType, (*storages)[0],
                                   pad.getMixedLowPad(), pad.getMixedHighPad(),
                                   storagePad, pad.getNofold())
                 .getResult();
  } else {
    IRMapping mapping;
    for (auto [operand, storage] : llvm::zip(op->getOperands(), *storages))
      if (storage)
        mapping.map(operand, storage);
    Operation *clone = builder.clone(*op, mapping);
    clone->getResult(0).setType(storageType);
    result = clone->getResult(0);
  }
  rewriter.replaceAllUsesWith(qcast.getResult(),
                              fromStorage(builder, loc, result, type));
  rewriter.eraseOp(qcast);
  rewriter.eraseOp(op);
  return success();
}

//===----------------------------------------------------------------------===//
// Entry
//===----------------------------------------------------------------------===//

LogicalResult quanta::detail::movePadToStorage(RewriterBase &rewriter,
                                               tensor::PadOp pad) {
  auto quantized = matchQuantizedActivation(pad.getSource());
  FloatAttr padAttr;
  // A pad observed on its own (quantized again) is data movement already.
  if (llvm::any_of(pad->getUsers(), llvm::IsaPred<quant::QuantizeCastOp>))
    return failure();
  if (failed(quantized) || !pad.getConstantPaddingValue() ||
      !matchPattern(pad.getConstantPaddingValue(), m_Constant(&padAttr)) ||
      !pad.getResultType().hasStaticShape())
    return failure();
  quant::UniformQuantizedType type = quantized->second;
  const float value = padAttr.getValue().convertToFloat();
  int64_t storagePad;
  if (std::isinf(value) && value < 0) {
    // Only max pooling reads -inf padding: the storage minimum is as small
    // as any value of a window, which always holds an input pixel.
    if (!llvm::all_of(pad->getUsers(), [](Operation *user) {
          return isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNchwMaxOp>(user);
        }))
      return failure();
    storagePad = type.getStorageTypeMin();
  } else {
    storagePad = quantize(value, type);
    if (dequantize(storagePad, type) != value)
      return failure();
  }
  rewriter.setInsertionPoint(pad);
  OpBuilder &builder = rewriter;
  Location loc = pad.getLoc();
  auto storageType = pad.getResultType().clone(builder.getI8Type());
  Value padded = tensor::PadOp::create(
      builder, loc, storageType, toStorage(builder, loc, quantized->first),
      pad.getMixedLowPad(), pad.getMixedHighPad(),
      arith::ConstantIntOp::create(builder, loc, builder.getI8Type(),
                                   storagePad),
      pad.getNofold());
  Value result =
      quant::DequantizeCastOp::create(builder, loc, pad.getResultType(),
                                      fromStorage(builder, loc, padded, type));
  rewriter.replaceAllUsesWith(pad.getResult(), result);
  rewriter.eraseOp(pad);
  return success();
}

LogicalResult quanta::detail::quantizeNonGemm(RewriterBase &rewriter,
                                              quant::QuantizeCastOp qcast,
                                              std::string &whyNot) {
  Operation *producer = qcast.getInput().getDefiningOp();
  if (!producer)
    return failure();
  // Said only for candidates.
  std::string notEightBit;
  quant::UniformQuantizedType outputType =
      getEightBitOutputType(qcast, notEightBit);
  auto requireEightBit = [&]() {
    if (!outputType)
      whyNot = notEightBit;
    return bool(outputType);
  };

  if (isa<tensor::PadOp, tensor::CollapseShapeOp, tensor::ExpandShapeOp,
          tensor::ExtractSliceOp, tensor::ConcatOp, tensor::ReshapeOp>(
          producer)) {
    if (!requireEightBit())
      return failure();
    return quantizeDataMovement(rewriter, qcast, producer, outputType, whyNot);
  }
  if (isa<linalg::TransposeOp, linalg::BroadcastOp, linalg::CopyOp>(producer)) {
    if (!requireEightBit())
      return failure();
    return quantizeLinalgCopy(rewriter, qcast, cast<linalg::LinalgOp>(producer),
                              outputType, whyNot);
  }
  if (isa<linalg::PoolingNhwcMaxOp, linalg::PoolingNchwMaxOp>(producer)) {
    if (!requireEightBit())
      return failure();
    return quantizeMaxPool(rewriter, qcast, cast<linalg::LinalgOp>(producer),
                           outputType, whyNot);
  }
  auto generic = dyn_cast<linalg::GenericOp>(producer);
  if (!generic)
    return failure();
  if (Operation *sum = generic.getNumDpsInputs() == 1
                           ? generic.getDpsInputs()[0].getDefiningOp()
                           : nullptr;
      sum && getAveragePoolDivision(sum) == generic) {
    if (!requireEightBit())
      return failure();
    return quantizeAveragePool(rewriter, qcast, cast<linalg::LinalgOp>(sum),
                               generic, outputType, whyNot);
  }
  if (!getElementwiseBody(generic))
    return failure();
  // add/mul [-> clamp]
  std::optional<linalg::GenericOp> clamp;
  nx::FusedActivation activation;
  linalg::GenericOp core = generic;
  if (std::optional<nx::FusedActivation> fused = matchClamp(generic)) {
    auto before = generic.getDpsInputs()[0].getDefiningOp<linalg::GenericOp>();
    if (before && getBinaryOp(before) &&
        generic.getDpsInputs()[0].hasOneUse()) {
      clamp = generic;
      activation = *fused;
      core = before;
    }
  }
  // One activation and scalars (attention's x / sqrt(d), x + 1): a table,
  // before the integer add/mul, which takes two activations.
  if (std::optional<unsigned> variable = getTableInput(generic)) {
    if (!requireEightBit())
      return failure();
    return quantizeWithTable(rewriter, qcast, generic, *variable, outputType,
                             whyNot);
  }
  if (getBinaryOp(core)) {
    if (!requireEightBit())
      return failure();
    return quantizeBinary(rewriter, qcast, core, clamp, activation, outputType,
                          whyNot);
  }
  return failure();
}

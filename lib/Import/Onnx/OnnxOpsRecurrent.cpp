//===- OnnxOpsRecurrent.cpp - RNN, GRU and LSTM ---------------------------===//
//
// Translates ONNX's recurrent ops, each direction as:
//
//   - the input projection of every time step at once, X [seq * batch, I]
//     x W^T into a zero fill plus a bias (the Linear form quanta-quantize
//     makes an int8 GEMM);
//   - an scf.for over time carrying the hidden state (and LSTM's cell
//     state) and the output sequence: the recurrent product H x R^T (again
//     a matmul with constant weights) and the gates as elementwise generics
//     reading the projections' gate blocks through their indexing maps.
//
// ONNX Runtime's DynamicQuantizeLSTM is the same LSTM with int8 or uint8
// weights: each of the two products a quanta.dynamic_qmatmul with ONNX
// Runtime's numerics instead (its ComputeGemm: the input projection's X
// quantized once over every step, H once per step).
//
// A loop keeps the IR (and compile time) independent of the sequence
// length. The formulas are ONNX's, which PyTorch's exporter maps its
// modules to (GRU with linear_before_reset = 1).
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/InterleavedRange.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

namespace {
enum class Cell { RNN, GRU, LSTM };

/// What a recurrent node computes, read from its attributes and inputs.
struct Recurrence {
  Cell cell;
  /// Gate blocks in W and R: 1 (RNN), 3 (GRU: z, r, h), 4 (LSTM: i, o, f,
  /// c).
  int64_t gates;
  int64_t seq, batch, input, hidden, directions;
  bool reverse = false, linearBeforeReset = false, inputForget = false;
  std::optional<float> clip;
  /// Per direction: the cell's activations (f, g[, h]).
  SmallVector<SmallVector<ScalarFunction, 3>, 2> activations;
  /// [dirs, G*H, I], [dirs, G*H, H], [dirs, 2*G*H] (zeros if absent),
  /// [dirs, 3*H] or null.
  DenseElementsAttr w, r, bias, peepholes;
  /// DynamicQuantizeLSTM: per direction, the products' quantized weights
  /// (K x N: I x G*H and H x G*H) instead of w and r.
  SmallVector<DynamicMatMulConstants, 2> quantizedW = {}, quantizedR = {};
};
} // namespace

/// Rows [offset, offset + rows) of the leading dimension of `values`
/// flattened to 2-D [rows, inner].
static DenseElementsAttr rowBlock(DenseElementsAttr values, int64_t offset,
                                  int64_t rows, int64_t inner) {
  auto type = RankedTensorType::get({rows, inner}, values.getElementType());
  return remapConstant(values, type, [&](ArrayRef<int64_t> index) {
    return std::make_pair(0u, (offset + index[0]) * inner + index[1]);
  });
}

/// The activations attribute (and its alpha/beta lists), or the cell's
/// defaults, per direction.
static LogicalResult readActivations(Graph &g, Recurrence &rec) {
  const int64_t perDirection = rec.cell == Cell::LSTM  ? 3
                               : rec.cell == Cell::GRU ? 2
                                                       : 1;
  SmallVector<std::string> names;
  if (const onnx::AttributeProto *attr = g.attribute("activations"))
    names.assign(attr->strings().begin(), attr->strings().end());
  if (names.empty())
    for (int64_t d = 0; d < rec.directions; ++d) {
      if (rec.cell == Cell::RNN)
        names.push_back("Tanh");
      else
        names.push_back("Sigmoid");
      for (int64_t i = 1; i < perDirection; ++i)
        names.push_back("Tanh");
    }
  if (int64_t(names.size()) != perDirection * rec.directions)
    return g.error() << "activations lists " << names.size()
                     << " functions; expected " << perDirection << " per "
                     << "direction for " << rec.directions;
  SmallVector<float> alphas, betas;
  if (const onnx::AttributeProto *attr = g.attribute("activation_alpha"))
    alphas.assign(attr->floats().begin(), attr->floats().end());
  if (const onnx::AttributeProto *attr = g.attribute("activation_beta"))
    betas.assign(attr->floats().begin(), attr->floats().end());
  size_t nextAlpha = 0, nextBeta = 0;
  rec.activations.resize(rec.directions);
  for (auto [index, name] : llvm::enumerate(names)) {
    std::optional<float> alpha, beta;
    if (activationTakesAlpha(name) && nextAlpha < alphas.size())
      alpha = alphas[nextAlpha++];
    if (activationTakesBeta(name) && nextBeta < betas.size())
      beta = betas[nextBeta++];
    ScalarFunction function = getActivation(name, alpha, beta);
    if (!function)
      return g.error() << "activation '" << name << "' is not one ONNX "
                       << "defines for recurrent ops";
    rec.activations[index / perDirection].push_back(function);
  }
  return success();
}

/// Elements [d * count, (d + 1) * count) of `values` as a [count] tensor.
static DenseElementsAttr directionSlice(DenseElementsAttr values, int64_t d,
                                        int64_t count) {
  auto type = RankedTensorType::get({count}, values.getElementType());
  return remapConstant(values, type, [&](ArrayRef<int64_t> index) {
    return std::make_pair(0u, d * count + index[0]);
  });
}

/// DynamicQuantizeLSTM's W (input 1, [dirs, I, G*H]) or R (input 2,
/// [dirs, H, G*H]) with its scale and zero point (inputs 8, 9 or 10, 11:
/// [dirs] or [dirs, G*H]), per direction.
static LogicalResult
readQuantizedWeights(Graph &g, const Recurrence &rec, int index, StringRef name,
                     int64_t rows,
                     SmallVectorImpl<DynamicMatMulConstants> &result) {
  const int64_t columns = rec.gates * rec.hidden;
  DenseElementsAttr values = g.constantInput(index);
  if (!values || !values.getElementType().isInteger(8) ||
      cast<ShapedType>(values.getType()).getShape() !=
          ArrayRef<int64_t>{rec.directions, rows, columns})
    return g.error() << name << " (input " << index << ") must be a "
                     << "constant int8 or uint8 [" << rec.directions << ", "
                     << rows << ", " << columns << "] (directions, "
                     << (index == 1 ? "input_size" : "hidden_size")
                     << ", 4 x hidden_size)";
  const int scaleIndex = index == 1 ? 8 : 10;
  DenseElementsAttr scale = g.constantInput(scaleIndex),
                    zeroPoint = g.constantInput(scaleIndex + 1);
  auto perDirection = [&](DenseElementsAttr attr) -> std::optional<int64_t> {
    if (!attr)
      return std::nullopt;
    const int64_t count = attr.getNumElements();
    if (count == rec.directions)
      return 1;
    if (count == rec.directions * columns)
      return columns;
    return std::nullopt;
  };
  std::optional<int64_t> scaleCount = perDirection(scale);
  if (!scaleCount)
    return g.error() << name << "'s scale (input " << scaleIndex
                     << ") must be a constant of " << rec.directions << " or "
                     << rec.directions * columns
                     << " values (per direction, or per direction and "
                        "column)";
  std::optional<int64_t> zeroCount = perDirection(zeroPoint);
  if (g.hasInput(scaleIndex + 1) && !zeroCount)
    return g.error() << name << "'s zero point (input " << scaleIndex + 1
                     << ") must be a constant of as many values as a scale "
                        "per direction or per direction and column";
  const bool isUnsigned = g.unsignedConstants.contains(g.node->input(index));
  for (int64_t d = 0; d < rec.directions; ++d) {
    DynamicMatMulConstants constants;
    if (std::optional<std::string> why = readDynamicMatMulConstants(
            rowBlock(values, d * rows, rows, columns), isUnsigned,
            directionSlice(scale, d, *scaleCount),
            zeroCount ? directionSlice(zeroPoint, d, *zeroCount)
                      : DenseElementsAttr(),
            DenseElementsAttr(), constants))
      return g.error() << name << ": " << *why;
    result.push_back(std::move(constants));
  }
  return success();
}

/// Reads the node's attributes and constant weights (`quantized`:
/// DynamicQuantizeLSTM's).
static FailureOr<Recurrence> readRecurrence(Graph &g, Cell cell, Value x,
                                            bool quantized) {
  Recurrence rec;
  rec.cell = cell;
  rec.gates = cell == Cell::LSTM ? 4 : cell == Cell::GRU ? 3 : 1;
  const std::string direction = g.stringAttr("direction", "forward");
  if (direction != "forward" && direction != "reverse" &&
      direction != "bidirectional")
    return g.error() << "direction '" << direction
                     << "' is not forward, reverse or bidirectional";
  rec.directions = direction == "bidirectional" ? 2 : 1;
  rec.reverse = direction == "reverse";
  rec.hidden = g.intAttr("hidden_size", 0);
  if (const onnx::AttributeProto *attr = g.attribute("clip"))
    rec.clip = attr->f();
  rec.linearBeforeReset = g.intAttr("linear_before_reset", 0) != 0;
  rec.inputForget = g.intAttr("input_forget", 0) != 0;
  RankedTensorType xType = tensorType(x);
  if (xType.getRank() != 3)
    return g.error() << "X " << xType << " is not [seq, batch, input]";
  rec.seq = xType.getDimSize(0);
  rec.batch = xType.getDimSize(1);
  rec.input = xType.getDimSize(2);

  auto weights = [&](int index, StringRef what,
                     ArrayRef<int64_t> shape) -> FailureOr<DenseElementsAttr> {
    DenseElementsAttr value = g.constantInput(index);
    if (!value || !value.getElementType().isF32())
      return g.error() << what << " (input " << index << ") must be a "
                       << "constant f32 tensor";
    if (cast<ShapedType>(value.getType()).getShape() != shape)
      return g.error() << what << " has shape " << value.getType()
                       << "; expected [" << llvm::interleaved(shape, ", ", "")
                       << "] (directions, gates x hidden_size, ...)";
    return value;
  };
  DenseElementsAttr w = g.constantInput(1);
  if (rec.hidden <= 0 && w && cast<ShapedType>(w.getType()).getRank() == 3)
    rec.hidden =
        cast<ShapedType>(w.getType()).getDimSize(quantized ? 2 : 1) / rec.gates;
  if (rec.hidden <= 0)
    return g.error() << "hidden_size is missing or not positive";
  const int64_t gateRows = rec.gates * rec.hidden;
  if (quantized) {
    if (failed(
            readQuantizedWeights(g, rec, 1, "W", rec.input, rec.quantizedW)) ||
        failed(
            readQuantizedWeights(g, rec, 2, "R", rec.hidden, rec.quantizedR)))
      return failure();
  } else {
    auto wAttr = weights(1, "W", {rec.directions, gateRows, rec.input});
    if (failed(wAttr))
      return failure();
    auto rAttr = weights(2, "R", {rec.directions, gateRows, rec.hidden});
    if (failed(rAttr))
      return failure();
    rec.w = *wAttr;
    rec.r = *rAttr;
  }
  if (g.hasInput(3)) {
    auto bAttr = weights(3, "B", {rec.directions, 2 * gateRows});
    if (failed(bAttr))
      return failure();
    rec.bias = *bAttr;
  } else {
    rec.bias = DenseElementsAttr::get(
        RankedTensorType::get({rec.directions, 2 * gateRows}, g.b.getF32Type()),
        0.0f);
  }
  if (cell == Cell::LSTM && g.hasInput(7)) {
    auto pAttr = weights(7, "P", {rec.directions, 3 * rec.hidden});
    if (failed(pAttr))
      return failure();
    rec.peepholes = *pAttr;
  }
  // Shorter sequences per batch row are not supported; sequence_lens equal
  // to the sequence length is what exporters write.
  if (g.hasInput(4)) {
    auto lengths = g.constantInts(4, "sequence_lens");
    if (failed(lengths))
      return failure();
    if (int64_t(lengths->size()) != rec.batch ||
        llvm::any_of(*lengths, [&](int64_t n) { return n != rec.seq; }))
      return g.error() << "sequence_lens other than " << rec.seq
                       << " for every batch row is not supported";
  }
  if (failed(readActivations(g, rec)))
    return failure();
  return rec;
}

/// `lhs` [M, K] x `rhsT` [K, N] into a zero fill.
static Value product(Graph &g, Value lhs, Value rhsT) {
  auto type = RankedTensorType::get(
      {tensorType(lhs).getDimSize(0), tensorType(rhsT).getDimSize(1)},
      g.b.getF32Type());
  return linalg::MatmulOp::create(g.b, g.loc, TypeRange{type},
                                  ValueRange{lhs, rhsT},
                                  ValueRange{g.filled(type, 0)})
      .getResult(0);
}

/// Direction `d` of an initial state [directions, batch, hidden] (null:
/// zeros) as [batch, hidden].
static Value initialState(Graph &g, const Recurrence &rec, Value states,
                          int64_t d) {
  auto type = RankedTensorType::get({rec.batch, rec.hidden}, g.b.getF32Type());
  if (!states)
    return g.filled(type, 0.0);
  MLIRContext *context = g.b.getContext();
  return tensor::ExtractSliceOp::create(
      g.b, g.loc, type, states,
      getAsIndexOpFoldResult(context, {d, int64_t(0), int64_t(0)}),
      getAsIndexOpFoldResult(context, {int64_t(1), rec.batch, rec.hidden}),
      getAsIndexOpFoldResult(context, {int64_t(1), int64_t(1), int64_t(1)}));
}

namespace {
/// Builds the gate generics of one time step over [batch, hidden].
struct GateBuilder {
  Graph &g;
  const Recurrence &rec;
  SmallVector<Value> inputs;
  SmallVector<AffineMap> maps;

  /// Gate block `gate` of a [batch, G, hidden] tensor.
  unsigned gateOf(Value value, int64_t gate) {
    MLIRContext *context = g.b.getContext();
    maps.push_back(AffineMap::get(2, 0,
                                  {getAffineDimExpr(0, context),
                                   getAffineConstantExpr(gate, context),
                                   getAffineDimExpr(1, context)},
                                  context));
    inputs.push_back(value);
    return inputs.size() - 1;
  }
  /// A [batch, hidden] tensor.
  unsigned whole(Value value) {
    maps.push_back(g.b.getMultiDimIdentityMap(2));
    inputs.push_back(value);
    return inputs.size() - 1;
  }
  /// A [hidden] vector broadcast over the batch.
  unsigned perUnit(Value value) {
    MLIRContext *context = g.b.getContext();
    maps.push_back(
        AffineMap::get(2, 0, {getAffineDimExpr(1, context)}, context));
    inputs.push_back(value);
    return inputs.size() - 1;
  }
  Value build(function_ref<Value(OpBuilder &, Location, ValueRange)> body) {
    auto type =
        RankedTensorType::get({rec.batch, rec.hidden}, g.b.getF32Type());
    SmallVector<AffineMap> allMaps(maps);
    allMaps.push_back(g.b.getMultiDimIdentityMap(2));
    return linalg::GenericOp::create(
               g.b, g.loc, type, inputs, g.emptyLike(type), allMaps,
               SmallVector<utils::IteratorType>(2,
                                                utils::IteratorType::parallel),
               [&](OpBuilder &b, Location loc, ValueRange args) {
                 linalg::YieldOp::create(b, loc, body(b, loc, args));
               })
        .getResult(0);
  }
};
} // namespace

/// clip(x) if the node clips, then `activation`.
static Value activate(OpBuilder &b, Location loc, const Recurrence &rec,
                      const ScalarFunction &activation, Value x) {
  if (rec.clip) {
    x = arith::MaximumFOp::create(b, loc, x, floatConst(b, loc, -*rec.clip));
    x = arith::MinimumFOp::create(b, loc, x, floatConst(b, loc, *rec.clip));
  }
  return activation(b, loc, x);
}

/// The constant [hidden] vector `values[offset : offset + hidden]`.
static Value unitVector(Graph &g, DenseElementsAttr values, int64_t offset,
                        int64_t hidden) {
  return g.constant(remapConstant(
      values, RankedTensorType::get({hidden}, values.getElementType()),
      [&](ArrayRef<int64_t> index) {
        return std::make_pair(0u, offset + index[0]);
      }));
}

namespace {
/// One direction's results: the output sequence [seq, batch, hidden] and
/// the last hidden (and cell) state [batch, hidden].
struct DirectionResult {
  Value sequence, lastHidden, lastCell;
};
} // namespace

/// One direction `d` (`reverse`: from the last time step) of the node.
static DirectionResult runDirection(Graph &g, const Recurrence &rec, Value x,
                                    Value initialHidden, Value initialCell,
                                    int64_t d, bool reverse) {
  const int64_t h = rec.hidden, gateRows = rec.gates * h;
  Type f32 = g.b.getF32Type();
  // Biases folded into the input projection: Wb + Rb, except GRU's Rb of
  // the h gate with linear_before_reset (it is added inside r * (...)).
  SmallVector<float> bias(gateRows);
  {
    DenseElementsAttr b = rowBlock(rec.bias, d, 1, 2 * gateRows);
    SmallVector<float> values(b.getValues<float>());
    for (int64_t i = 0; i < gateRows; ++i) {
      const bool recurrentInside =
          rec.cell == Cell::GRU && rec.linearBeforeReset && i >= 2 * h;
      bias[i] = values[i] + (recurrentInside ? 0.0f : values[gateRows + i]);
    }
  }
  // W^T [I, G*H] and R^T [H, G*H] (float weights).
  const bool quantized = !rec.quantizedW.empty();
  Value wT, rT;
  if (!quantized) {
    wT = g.transpose(
        g.constant(rowBlock(rec.w, d * gateRows, gateRows, rec.input)), {1, 0});
    rT = g.transpose(g.constant(rowBlock(rec.r, d * gateRows, gateRows, h)),
                     {1, 0});
  }
  // `lhs` [M, K] times `weightsT` or, quantized, `quantizedWeights`.
  auto gateProduct = [&](Value lhs, Value weightsT,
                         ArrayRef<DynamicMatMulConstants> quantizedWeights) {
    if (!quantized)
      return product(g, lhs, weightsT);
    return createDynamicProduct(
        g, lhs, quantizedWeights[d],
        RankedTensorType::get({tensorType(lhs).getDimSize(0), gateRows}, f32));
  };
  // X W^T + bias for every step: [seq * batch, G*H] -> [seq, batch, G, H].
  Value projected = gateProduct(g.reshape(x, {rec.seq * rec.batch, rec.input}),
                                wT, rec.quantizedW);
  Value biasValue = g.constant(DenseElementsAttr::get(
      RankedTensorType::get({gateRows}, f32), ArrayRef<float>(bias)));
  projected = g.elementwise({projected, biasValue}, tensorType(projected),
                            [](OpBuilder &b, Location loc, ValueRange a) {
                              return addF(b, loc, a[0], a[1]);
                            });
  projected = g.reshape(projected, {rec.seq, rec.batch, rec.gates, h});
  // GRU without linear_before_reset multiplies r * H by R_h alone.
  Value rzrT, rhT;
  if (rec.cell == Cell::GRU && !rec.linearBeforeReset) {
    rzrT = g.transpose(g.constant(rowBlock(rec.r, d * gateRows, 2 * h, h)),
                       {1, 0});
    rhT = g.transpose(g.constant(rowBlock(rec.r, d * gateRows + 2 * h, h, h)),
                      {1, 0});
  }
  Value recurrentHBias;
  if (rec.cell == Cell::GRU && rec.linearBeforeReset)
    recurrentHBias = unitVector(g, rowBlock(rec.bias, d, 1, 2 * gateRows),
                                gateRows + 2 * h, h);
  Value peepI, peepO, peepF;
  if (rec.peepholes) {
    DenseElementsAttr p = rowBlock(rec.peepholes, d, 1, 3 * h);
    peepI = unitVector(g, p, 0, h);
    peepO = unitVector(g, p, h, h);
    peepF = unitVector(g, p, 2 * h, h);
  }

  SmallVector<Value> initial = {initialState(g, rec, initialHidden, d)};
  if (rec.cell == Cell::LSTM)
    initial.push_back(initialState(g, rec, initialCell, d));
  auto sequenceType = RankedTensorType::get({rec.seq, rec.batch, h}, f32);
  initial.push_back(g.emptyLike(sequenceType));

  auto index = [&](int64_t v) -> Value {
    return arith::ConstantIndexOp::create(g.b, g.loc, v);
  };
  auto loop = scf::ForOp::create(g.b, g.loc, index(0), index(rec.seq), index(1),
                                 initial);
  {
    OpBuilder::InsertionGuard guard(g.b);
    g.b.setInsertionPointToStart(loop.getBody());
    Value step = loop.getInductionVar();
    Value time =
        reverse
            ? Value(arith::SubIOp::create(g.b, g.loc, index(rec.seq - 1), step))
            : step;
    ValueRange state = loop.getRegionIterArgs();
    Value hidden = state[0];
    MLIRContext *context = g.b.getContext();
    auto one = g.b.getIndexAttr(1), zero = g.b.getIndexAttr(0);
    // This step's projections [batch, G, H].
    Value xw = tensor::ExtractSliceOp::create(
        g.b, g.loc, RankedTensorType::get({rec.batch, rec.gates, h}, f32),
        projected, ArrayRef<OpFoldResult>{time, zero, zero, zero},
        getAsIndexOpFoldResult(context, {int64_t(1), rec.batch, rec.gates, h}),
        ArrayRef<OpFoldResult>{one, one, one, one});
    const SmallVector<ScalarFunction, 3> &act = rec.activations[d];
    SmallVector<Value> next;
    if (rec.cell == Cell::GRU && !rec.linearBeforeReset) {
      Value hrZR = g.reshape(product(g, hidden, rzrT), {rec.batch, 2, h});
      GateBuilder reset{g, rec, {}, {}};
      unsigned xr = reset.gateOf(xw, 1), hr = reset.gateOf(hrZR, 1),
               hv = reset.whole(hidden);
      Value resetHidden =
          reset.build([&](OpBuilder &b, Location loc, ValueRange a) -> Value {
            Value r = activate(b, loc, rec, act[0], addF(b, loc, a[xr], a[hr]));
            return arith::MulFOp::create(b, loc, r, a[hv]);
          });
      Value candidate = product(g, resetHidden, rhT);
      GateBuilder gru{g, rec, {}, {}};
      unsigned xz = gru.gateOf(xw, 0), hz = gru.gateOf(hrZR, 0),
               xh = gru.gateOf(xw, 2), ch = gru.whole(candidate),
               hp = gru.whole(hidden);
      next.push_back(gru.build([&](OpBuilder &b, Location loc,
                                   ValueRange a) -> Value {
        Value z = activate(b, loc, rec, act[0], addF(b, loc, a[xz], a[hz]));
        Value n = activate(b, loc, rec, act[1], addF(b, loc, a[xh], a[ch]));
        // (1 - z) * n + z * H.
        Value keep = arith::MulFOp::create(b, loc, z, a[hp]);
        Value fresh = arith::MulFOp::create(
            b, loc, arith::SubFOp::create(b, loc, floatConst(b, loc, 1), z), n);
        return addF(b, loc, fresh, keep);
      }));
    } else {
      Value hrAll = g.reshape(gateProduct(hidden, rT, rec.quantizedR),
                              {rec.batch, rec.gates, h});
      if (rec.cell == Cell::RNN) {
        GateBuilder rnn{g, rec, {}, {}};
        unsigned xi = rnn.gateOf(xw, 0), hi = rnn.gateOf(hrAll, 0);
        next.push_back(rnn.build([&](OpBuilder &b, Location loc, ValueRange a) {
          return activate(b, loc, rec, act[0], addF(b, loc, a[xi], a[hi]));
        }));
      } else if (rec.cell == Cell::GRU) {
        GateBuilder gru{g, rec, {}, {}};
        unsigned xz = gru.gateOf(xw, 0), hz = gru.gateOf(hrAll, 0),
                 xr = gru.gateOf(xw, 1), hr = gru.gateOf(hrAll, 1),
                 xh = gru.gateOf(xw, 2), hh = gru.gateOf(hrAll, 2),
                 rb = gru.perUnit(recurrentHBias), hp = gru.whole(hidden);
        next.push_back(gru.build([&](OpBuilder &b, Location loc,
                                     ValueRange a) -> Value {
          Value z = activate(b, loc, rec, act[0], addF(b, loc, a[xz], a[hz]));
          Value r = activate(b, loc, rec, act[0], addF(b, loc, a[xr], a[hr]));
          // n = g(x W_h + Wb_h + r * (H R_h + Rb_h)).
          Value gated =
              arith::MulFOp::create(b, loc, r, addF(b, loc, a[hh], a[rb]));
          Value n = activate(b, loc, rec, act[1], addF(b, loc, a[xh], gated));
          Value keep = arith::MulFOp::create(b, loc, z, a[hp]);
          Value fresh = arith::MulFOp::create(
              b, loc, arith::SubFOp::create(b, loc, floatConst(b, loc, 1), z),
              n);
          return addF(b, loc, fresh, keep);
        }));
      } else {
        // LSTM, gates i, o, f, c: the cell state first, then the output.
        Value cell = state[1];
        GateBuilder cellGates{g, rec, {}, {}};
        unsigned xi = cellGates.gateOf(xw, 0), hi = cellGates.gateOf(hrAll, 0),
                 xf = cellGates.gateOf(xw, 2), hf = cellGates.gateOf(hrAll, 2),
                 xc = cellGates.gateOf(xw, 3), hc = cellGates.gateOf(hrAll, 3),
                 cv = cellGates.whole(cell);
        std::optional<unsigned> pi, pf;
        if (rec.peepholes) {
          pi = cellGates.perUnit(peepI);
          pf = cellGates.perUnit(peepF);
        }
        Value nextCell = cellGates.build([&](OpBuilder &b, Location loc,
                                             ValueRange a) -> Value {
          auto gate = [&](unsigned xIndex, unsigned hIndex,
                          std::optional<unsigned> peephole) {
            Value sum = addF(b, loc, a[xIndex], a[hIndex]);
            if (peephole)
              sum = addF(b, loc, sum,
                         arith::MulFOp::create(b, loc, a[*peephole], a[cv]));
            return sum;
          };
          Value i = activate(b, loc, rec, act[0], gate(xi, hi, pi));
          Value f = rec.inputForget
                        ? Value(arith::SubFOp::create(b, loc,
                                                      floatConst(b, loc, 1), i))
                        : activate(b, loc, rec, act[0], gate(xf, hf, pf));
          Value c = activate(b, loc, rec, act[1], gate(xc, hc, {}));
          return addF(b, loc, arith::MulFOp::create(b, loc, f, a[cv]),
                      arith::MulFOp::create(b, loc, i, c));
        });
        GateBuilder outGate{g, rec, {}, {}};
        unsigned xo = outGate.gateOf(xw, 1), ho = outGate.gateOf(hrAll, 1),
                 nc = outGate.whole(nextCell);
        std::optional<unsigned> po;
        if (rec.peepholes)
          po = outGate.perUnit(peepO);
        next.push_back(outGate.build([&](OpBuilder &b, Location loc,
                                         ValueRange a) -> Value {
          Value sum = addF(b, loc, a[xo], a[ho]);
          if (po)
            sum =
                addF(b, loc, sum, arith::MulFOp::create(b, loc, a[*po], a[nc]));
          Value o = activate(b, loc, rec, act[0], sum);
          return arith::MulFOp::create(b, loc, o, act[2](b, loc, a[nc]));
        }));
        next.push_back(nextCell);
      }
    }
    // The step's hidden state into the output sequence at `time`.
    next.push_back(tensor::InsertSliceOp::create(
        g.b, g.loc, next.front(), state.back(),
        ArrayRef<OpFoldResult>{time, zero, zero},
        getAsIndexOpFoldResult(context, {int64_t(1), rec.batch, h}),
        ArrayRef<OpFoldResult>{one, one, one}));
    scf::YieldOp::create(g.b, g.loc, next);
  }
  DirectionResult result;
  result.lastHidden = loop.getResult(0);
  if (rec.cell == Cell::LSTM)
    result.lastCell = loop.getResult(1);
  result.sequence = loop.getResults().back();
  return result;
}

/// Concatenates `values` ([..] each) as [1, ..] slices along a new axis
/// `axis`.
static Value stack(Graph &g, ArrayRef<Value> values, int64_t axis) {
  SmallVector<Value> expanded;
  for (Value value : values) {
    SmallVector<int64_t> shape(tensorType(value).getShape());
    shape.insert(shape.begin() + axis, 1);
    expanded.push_back(g.reshape(value, shape));
  }
  if (expanded.size() == 1)
    return expanded.front();
  return tensor::ConcatOp::create(g.b, g.loc, axis, expanded);
}

/// The node as `cell` (`quantized`: DynamicQuantizeLSTM's weights).
static LogicalResult translateRecurrentNode(Graph &g, Cell cell,
                                            bool quantized) {
  auto x = g.floatInput(0, "X");
  if (failed(x))
    return failure();
  // layout 1: X [batch, seq, input], states and outputs batch first too.
  const int64_t layout = g.intAttr("layout", 0);
  if (layout != 0 && layout != 1)
    return g.error() << "layout " << layout << " is not 0 or 1";
  const bool batchFirst = layout == 1;
  if (batchFirst && tensorType(*x).getRank() == 3)
    *x = g.transpose(*x, {1, 0, 2});
  auto rec = readRecurrence(g, cell, *x, quantized);
  if (failed(rec))
    return failure();
  // Initial states [directions, batch, hidden] (batch first: swapped).
  SmallVector<Value, 2> initial;
  for (int index : {5, 6}) {
    initial.push_back(nullptr);
    if (!g.hasInput(index) || (index == 6 && cell != Cell::LSTM))
      continue;
    auto state = g.floatInput(index, "the initial state");
    if (failed(state))
      return failure();
    if (tensorType(*state).getRank() != 3)
      return g.error() << "initial state " << state->getType()
                       << " is not of rank 3";
    Value value = batchFirst ? g.transpose(*state, {1, 0, 2}) : *state;
    if (tensorType(value).getShape() !=
        ArrayRef<int64_t>{rec->directions, rec->batch, rec->hidden})
      return g.error() << "initial state " << state->getType()
                       << " does not match " << rec->directions
                       << " direction(s), batch " << rec->batch
                       << " and hidden_size " << rec->hidden;
    initial.back() = value;
  }
  SmallVector<Value> sequences, lastHidden, lastCell;
  for (int64_t d = 0; d < rec->directions; ++d) {
    DirectionResult result = runDirection(g, *rec, *x, initial[0], initial[1],
                                          d, rec->reverse || d == 1);
    sequences.push_back(result.sequence);
    lastHidden.push_back(result.lastHidden);
    if (result.lastCell)
      lastCell.push_back(result.lastCell);
  }
  // Y [seq, directions, batch, hidden]; Y_h, Y_c [directions, batch,
  // hidden]; batch first: [batch, seq, directions, hidden] and [batch,
  // directions, hidden].
  Value y = stack(g, sequences, 1);
  SmallVector<Value> states = {stack(g, lastHidden, 0)};
  if (cell == Cell::LSTM)
    states.push_back(stack(g, lastCell, 0));
  if (batchFirst) {
    y = g.transpose(y, {2, 0, 1, 3});
    for (Value &state : states)
      state = g.transpose(state, {1, 0, 2});
  }
  g.setOutput(0, y);
  for (auto [index, state] : llvm::enumerate(states))
    g.setOutput(index + 1, state);
  return success();
}

LogicalResult onnx_import::translateRecurrent(Graph &g) {
  const std::string &op = g.node->op_type();
  return translateRecurrentNode(g,
                                op == "LSTM"  ? Cell::LSTM
                                : op == "GRU" ? Cell::GRU
                                              : Cell::RNN,
                                /*quantized=*/false);
}

LogicalResult onnx_import::translateDynamicQuantizeLSTM(Graph &g) {
  return translateRecurrentNode(g, Cell::LSTM, /*quantized=*/true);
}

//===- VectorRequantize.cpp - The integer kernels' requantization ---------===//

#include "VectorRequantize.h"

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/ArmNeon/ArmNeonDialect.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::quanta;

Value mlir::quanta::readColumns(OpBuilder &b, Location loc, Value tensor,
                                Value column, VectorType type) {
  Type element = cast<ShapedType>(tensor.getType()).getElementType();
  Value pad = arith::ConstantOp::create(b, loc, b.getZeroAttr(element));
  return vector::TransferReadOp::create(b, loc, type, tensor, column, pad,
                                        ArrayRef<bool>{true});
}

Value mlir::quanta::splat(OpBuilder &b, Location loc, VectorType type,
                          int64_t value) {
  return arith::ConstantOp::create(
      b, loc,
      DenseElementsAttr::get(cast<ShapedType>(type),
                             b.getIntegerAttr(type.getElementType(), value)));
}

Value mlir::quanta::callIntrinsic(OpBuilder &b, Location loc, StringRef name,
                                  Type type, ValueRange args) {
  return IntrinsicOp::create(b, loc, type, b.getStringAttr(name), args);
}

Value VectorRequantizer::constantTensor(ArrayRef<int32_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI32Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

Value VectorRequantizer::constantTensor64(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getI64Type());
  return arith::ConstantOp::create(b, loc,
                                   DenseElementsAttr::get(type, values));
}

VectorRequantizer::VectorRequantizer(OpBuilder &b, Location loc, Kind kind,
                                     int64_t lanes,
                                     ArrayRef<int32_t> multiplierValues,
                                     ArrayRef<int32_t> totalShiftValues,
                                     int64_t zeroPoint)
    : b(b), loc(loc), kind(kind), lanes(lanes), zeroPoint(zeroPoint),
      i32Vector(VectorType::get({lanes}, b.getI32Type())),
      i64Vector(VectorType::get({lanes}, b.getI64Type())) {
  SmallVector<int32_t> totalShifts(totalShiftValues);
  multipliers = constantTensor(multiplierValues);
  if (kind == Kind::Neon) {
    // With every t >= 32, sqdmulh's high words shift by t - 31 in i32
    // lanes; else the 64-bit products shift by t (requantizeNeon).
    neonHighWords =
        llvm::all_of(totalShifts, [](int32_t t) { return t >= 32; });
    SmallVector<int64_t> negated;
    SmallVector<int32_t> negatedHigh;
    for (int32_t t : totalShifts) {
      negated.push_back(-t);
      negatedHigh.push_back(31 - t);
    }
    negatedShifts =
        neonHighWords ? constantTensor(negatedHigh) : constantTensor64(negated);
    return;
  }
  highHalfShifts = llvm::all_of(totalShifts, [](int32_t t) { return t >= 32; });
  roundHighWords = highHalfShifts &&
                   llvm::all_of(totalShifts, [](int32_t t) { return t >= 33; });
  if (roundHighWords) {
    auto rounding = [&](int32_t t, int64_t zo) {
      return (int64_t(1) << (t - 33)) + zo * (int64_t(1) << (t - 32));
    };
    zeroPointFolded = llvm::all_of(totalShifts, [&](int32_t t) {
      return std::abs(rounding(t, zeroPoint)) < (int64_t(1) << 30);
    });
    SmallVector<int32_t> highValues;
    for (int32_t t : totalShifts)
      highValues.push_back(
          static_cast<int32_t>(rounding(t, zeroPointFolded ? zeroPoint : 0)));
    roundingHigh = constantTensor(highValues);
  } else {
    SmallVector<int64_t> evenValues, oddValues;
    for (auto [at, t] : llvm::enumerate(totalShifts))
      (at % 2 ? oddValues : evenValues).push_back(int64_t(1) << (t - 1));
    roundingEven = constantTensor64(evenValues);
    roundingOdd = constantTensor64(oddValues);
  }
  if (highHalfShifts)
    for (int32_t &t : totalShifts)
      t -= 32;
  shifts = constantTensor(totalShifts);
}

/// (acc * mul + 2^(t-1)) >> t for t >= 32 without a 64-bit shift, which
/// AVX2 lacks (vpsraq is AVX-512): the 64-bit products of the even and the
/// odd lanes (each one vpmuldq on the sign-extended halves), plus the
/// rounding, keep only their high halves, and floor(P / 2^t) is the high
/// half shifted right by t - 32 (vpsravd). |P| < 2^63 keeps the high half
/// exact and the result within i32.
///
/// For t >= 33 the rounding can wait for the high words, one i32 add
/// instead of two i64 ones: with P = H * 2^32 + r (0 <= r < 2^32),
/// H * 2^32 + 2^(t-1) is a multiple of 2^32 below the next multiple of
/// 2^t, so adding r cannot cross it, and floor((P + 2^(t-1)) / 2^t) =
/// (H + 2^(t-33)) >> (t - 32). The output zero point zo rides along as
/// zo * 2^(t-32) in the same constant, floor((x + zo * 2^s) / 2^s) being
/// floor(x / 2^s) + zo, where that stays below 2^30 in magnitude (|H| <=
/// 2^30, so the sum cannot wrap).
Value VectorRequantizer::shiftHighHalves(Value acc, Value column) {
  auto pairType = VectorType::get({lanes / 2}, b.getI64Type());
  Value thirtyTwo = splat(b, loc, pairType, 32);
  // The even lanes sign-extended in place; the odd lanes shifted down.
  auto evenLanes = [&](Value v) -> Value {
    Value pairs = vector::BitCastOp::create(b, loc, pairType, v);
    return arith::ShRSIOp::create(
        b, loc, arith::ShLIOp::create(b, loc, pairs, thirtyTwo), thirtyTwo);
  };
  auto oddLanes = [&](Value v) -> Value {
    return arith::ShRSIOp::create(
        b, loc, vector::BitCastOp::create(b, loc, pairType, v), thirtyTwo);
  };
  Value multiplier = readColumns(b, loc, multipliers, column, i32Vector);
  Value even =
      arith::MulIOp::create(b, loc, evenLanes(acc), evenLanes(multiplier));
  Value odd =
      arith::MulIOp::create(b, loc, oddLanes(acc), oddLanes(multiplier));
  if (!roundHighWords) {
    Value half = arith::DivUIOp::create(
        b, loc, column, arith::ConstantIndexOp::create(b, loc, 2));
    even = arith::AddIOp::create(
        b, loc, even, readColumns(b, loc, roundingEven, half, pairType));
    odd = arith::AddIOp::create(
        b, loc, odd, readColumns(b, loc, roundingOdd, half, pairType));
  }
  // Lane 2j takes the high word of even product j, lane 2j+1 that of odd
  // product j.
  SmallVector<int64_t> highWords;
  for (int64_t j = 0; j < lanes / 2; ++j) {
    highWords.push_back(2 * j + 1);
    highWords.push_back(lanes + 2 * j + 1);
  }
  Value high = vector::ShuffleOp::create(
      b, loc, vector::BitCastOp::create(b, loc, i32Vector, even),
      vector::BitCastOp::create(b, loc, i32Vector, odd), highWords);
  if (roundHighWords)
    high = arith::AddIOp::create(
        b, loc, high, readColumns(b, loc, roundingHigh, column, i32Vector));
  return arith::ShRSIOp::create(b, loc, high,
                                readColumns(b, loc, shifts, column, i32Vector));
}

/// (acc * mul + 2^(t-1)) >> t in 64-bit lanes, for any t: the rounding
/// multiply of the numeric library as written, used when some column has
/// t < 32 (a real multiplier of at least 0.5). Clamped to [-2^30, 2^30],
/// beyond every output range, as the high-half path's results are: adding
/// the output zero point cannot wrap.
Value VectorRequantizer::shiftWide(Value acc, Value column) {
  auto pairType = VectorType::get({lanes / 2}, b.getI64Type());
  Value wide = arith::ExtSIOp::create(b, loc, i64Vector, acc);
  Value product = arith::MulIOp::create(
      b, loc, wide,
      arith::ExtSIOp::create(
          b, loc, i64Vector,
          readColumns(b, loc, multipliers, column, i32Vector)));
  // The rounding of column c is roundingEven/Odd[c / 2] by c's parity.
  SmallVector<int64_t> interleave;
  for (int64_t j = 0; j < lanes / 2; ++j) {
    interleave.push_back(j);
    interleave.push_back(lanes / 2 + j);
  }
  Value half = arith::DivUIOp::create(
      b, loc, column, arith::ConstantIndexOp::create(b, loc, 2));
  Value rounding = vector::ShuffleOp::create(
      b, loc, readColumns(b, loc, roundingEven, half, pairType),
      readColumns(b, loc, roundingOdd, half, pairType), interleave);
  Value shifted = arith::ShRSIOp::create(
      b, loc, arith::AddIOp::create(b, loc, product, rounding),
      arith::ExtSIOp::create(b, loc, i64Vector,
                             readColumns(b, loc, shifts, column, i32Vector)));
  Value clamped = arith::MinSIOp::create(
      b, loc,
      arith::MaxSIOp::create(b, loc, shifted,
                             splat(b, loc, i64Vector, -(int64_t(1) << 30))),
      splat(b, loc, i64Vector, int64_t(1) << 30));
  return arith::TruncIOp::create(b, loc, i32Vector, clamped);
}

/// requantize() of the numeric library in NEON's own instructions
/// (r = sat32((P + 2^(t-1)) >> t) for P = acc * m, then r + zp saturated),
/// exactly:
///
/// - every t >= 32 (real multipliers below 0.5, the usual case): sqdmulh
///   gives Q = floor(P / 2^31) (2 * acc * m >> 32; it saturates only for
///   two INT32_MIN operands, and m > 0), and r = (Q + 2^(s-1)) >> s with
///   s = t - 31, which srshl by -s computes: with P = Q * 2^31 + R,
///   0 <= R < 2^31, (P + 2^(t-1)) / 2^t = (Q + 2^(s-1) + R / 2^31) / 2^s,
///   whose floor is that of (Q + 2^(s-1)) / 2^s, an integer over 2^s;
/// - otherwise smull and smull2 form P in 64-bit lanes, srshl by -t
///   computes (P + 2^(t-1)) >> t (ARM's pseudocode adds the rounding at
///   unbounded width) and sqxtn saturates it to i32 as the library does.
///
/// sqadd then adds the zero point, and the clamp that follows gives the
/// library's clamp(r + zp) for every r: the clamp range lies inside i32,
/// so a sum that saturates is beyond it either way. 3 instructions per 4
/// outputs (7 on the 64-bit path) before the narrowing, where the plain
/// 64-bit arithmetic of shiftWide took about 30 (NEON has no 64-bit min,
/// max or variable right shift). sqrdmulh (which rounds the doubled
/// product) would round twice and is not used. Wider vectors (a multiple
/// of 4 lanes) are requantized a q register at a time.
Value VectorRequantizer::requantizeNeon(Value acc, Value column) {
  // NEON's intrinsics take one q register: 4 lanes at a time.
  constexpr int64_t kQuad = 4;
  auto quad = VectorType::get({kQuad}, b.getI32Type());
  auto quadWide = VectorType::get({kQuad}, b.getI64Type());
  auto pair = VectorType::get({2}, b.getI32Type());
  auto wide = VectorType::get({2}, b.getI64Type());
  auto slice = [&](Value v, int64_t offset, int64_t size) -> Value {
    return vector::ExtractStridedSliceOp::create(
        b, loc, v, ArrayRef<int64_t>{offset}, ArrayRef<int64_t>{size},
        ArrayRef<int64_t>{1});
  };
  auto concat = [&](Value lhs, Value rhs) -> Value {
    const int64_t size = 2 * cast<VectorType>(lhs.getType()).getDimSize(0);
    return vector::ShuffleOp::create(
        b, loc, lhs, rhs, llvm::to_vector(llvm::seq<int64_t>(0, size)));
  };
  SmallVector<Value> quads;
  for (int64_t start = 0; start < lanes; start += kQuad) {
    Value at = arith::AddIOp::create(
        b, loc, column, arith::ConstantIndexOp::create(b, loc, start));
    Value part = lanes == kQuad ? acc : slice(acc, start, kQuad);
    Value multiplier = readColumns(b, loc, multipliers, at, quad);
    Value shifted;
    if (neonHighWords) {
      Value high = callIntrinsic(b, loc, "llvm.aarch64.neon.sqdmulh", quad,
                                 {part, multiplier});
      shifted =
          callIntrinsic(b, loc, "llvm.aarch64.neon.srshl", quad,
                        {high, readColumns(b, loc, negatedShifts, at, quad)});
    } else {
      Value negated = readColumns(b, loc, negatedShifts, at, quadWide);
      SmallVector<Value> narrowed;
      for (int64_t offset = 0; offset < kQuad; offset += 2) {
        Value product = arm_neon::SMullOp::create(
            b, loc, wide, slice(part, offset, 2), slice(multiplier, offset, 2));
        Value rounded = callIntrinsic(b, loc, "llvm.aarch64.neon.srshl", wide,
                                      {product, slice(negated, offset, 2)});
        narrowed.push_back(
            callIntrinsic(b, loc, "llvm.aarch64.neon.sqxtn", pair, rounded));
      }
      shifted = concat(narrowed[0], narrowed[1]);
    }
    quads.push_back(callIntrinsic(b, loc, "llvm.aarch64.neon.sqadd", quad,
                                  {shifted, splat(b, loc, quad, zeroPoint)}));
  }
  // Rejoined pairwise into the `lanes` columns.
  while (quads.size() > 1) {
    SmallVector<Value> joined;
    for (size_t i = 0; i < quads.size(); i += 2)
      joined.push_back(concat(quads[i], quads[i + 1]));
    quads = std::move(joined);
  }
  return quads.front();
}

Value VectorRequantizer::requantize(Value acc, Value column) {
  if (kind == Kind::Neon)
    return requantizeNeon(acc, column);
  Value shifted =
      highHalfShifts ? shiftHighHalves(acc, column) : shiftWide(acc, column);
  // |shifted| <= 2^30 (see shiftHighHalves, shiftWide): no wrap.
  if (zeroPointFolded)
    return shifted;
  return arith::AddIOp::create(b, loc, shifted,
                               splat(b, loc, i32Vector, zeroPoint));
}

//===- TiledGemm.cpp - Register-tiled GEMM loops shared by the kernels ----===//

#include "TiledGemm.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"

using namespace mlir;
using namespace mlir::quanta;

TiledGemm::TiledGemm(Operation *op, const GemmTiling &tiling, int64_t m,
                     int64_t k, int64_t n, int64_t segments)
    : b(op), loc(op->getLoc()), tiling(tiling), m(m), k(k), n(n),
      segments(segments),
      segmentGroups(llvm::divideCeil(k / segments, tiling.group)),
      paddedK(segments * segmentGroups * tiling.group),
      // Whole tiles of either width.
      paddedN(llvm::alignTo(
          n, tiling.lanes * std::max(tiling.strips, tiling.rowStrips))) {}

Value ImageWindow::rowStart(OpBuilder &b, Location loc, Value row) const {
  const int64_t outH = outputHeight, outW = outputWidth;
  AffineExpr r = b.getAffineDimExpr(0);
  AffineExpr batch = r.floorDiv(outH * outW),
             oh = (r % (outH * outW)).floorDiv(outW), ow = r % outW;
  AffineExpr pixel = (batch * height + oh * strideH) * width + ow * strideW;
  return affine::AffineApplyOp::create(
      b, loc, AffineMap::get(1, 0, pixel * channels), row);
}

Value ImageWindow::groupOffsets(OpBuilder &b, Location loc,
                                int64_t groupsPerTap, int64_t group) const {
  SmallVector<int64_t> values;
  for (int64_t tap = 0; tap < kernelH * kernelW; ++tap)
    for (int64_t g = 0; g < groupsPerTap; ++g) {
      const int64_t pixel =
          tap / kernelW * dilationH * width + tap % kernelW * dilationW;
      values.push_back(pixel * channels + g * group);
    }
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getIndexType());
  return arith::ConstantOp::create(
      b, loc, DenseElementsAttr::get(type, ArrayRef<int64_t>(values)));
}

Value TiledGemm::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value TiledGemm::createConstant(TypedAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}

/// The k loops over every k group, from `init`, each row's input at
/// `bases`. Returns every accumulator set.
SmallVector<Value> TiledGemm::groupLoops(ValueRange bases, Value strip0,
                                         ValueRange init, int64_t rows,
                                         int64_t strips, int64_t split) {
  const int64_t accumulators = rows * strips;
  Value stripSize = index(paddedK * tiling.lanes);
  Value stepSize = index(tiling.lanes * tiling.group);
  Value packedPad = createConstant(cast<TypedAttr>(
      b.getZeroAttr(cast<ShapedType>(packed.getType()).getElementType())));

  // acc[set][r][s] = dot(acc[set][r][s], input[row0 + r][g],
  //                      packed[strip0 + s][g]).
  auto body = [&](Value g, ValueRange accs, int64_t set) {
    SmallVector<Value> next(accs.begin(), accs.end());
    SmallVector<Value> rhs;
    for (int64_t s = 0; s < strips; ++s) {
      Value strip = arith::AddIOp::create(b, loc, strip0, index(s));
      Value offset = arith::AddIOp::create(
          b, loc, arith::MulIOp::create(b, loc, strip, stripSize),
          arith::MulIOp::create(b, loc, g, stepSize));
      rhs.push_back(vector::TransferReadOp::create(
          b, loc, packedVector, packed, ValueRange{offset}, packedPad,
          ArrayRef<bool>{true}));
    }
    for (int64_t r = 0; r < rows; ++r) {
      Value lhs = broadcastInput(bases[r], g);
      for (int64_t s = 0; s < strips; ++s) {
        int64_t slot = set * accumulators + r * strips + s;
        next[slot] = dot(next[slot], lhs, rhs[s]);
      }
    }
    return next;
  };
  const int64_t groups = paddedK / tiling.group;
  const int64_t splitGroups = groups - groups % split;
  auto mainLoop = scf::ForOp::create(
      b, loc, index(0), index(splitGroups), index(split), init,
      [&](OpBuilder &nb, Location, Value g, ValueRange accs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        SmallVector<Value> current(accs.begin(), accs.end());
        for (int64_t set = 0; set < split; ++set) {
          Value gs = arith::AddIOp::create(b, loc, g, index(set));
          current = body(gs, current, set);
        }
        scf::YieldOp::create(b, loc, current);
      });
  SmallVector<Value> accs(mainLoop.getResults());
  if (splitGroups != groups) {
    auto tail = scf::ForOp::create(
        b, loc, index(splitGroups), index(groups), index(1),
        ValueRange(accs).take_front(accumulators),
        [&](OpBuilder &nb, Location, Value g, ValueRange current) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nb.getInsertionBlock());
          scf::YieldOp::create(b, loc, body(g, current, 0));
        });
    llvm::copy(tail.getResults(), accs.begin());
  }
  return accs;
}

/// One tile: `rows` rows from row0 times `strips` strips from strip0, the k
/// loop split over `split` accumulator sets. Returns the updated output.
Value TiledGemm::tile(Value output, Value row0, Value strip0, int64_t rows,
                      int64_t strips, int64_t split) {
  const int64_t accumulators = rows * strips;
  // A narrower tile's in-bounds writes past n would land in the next row.
  const bool inBounds = n % (tiling.lanes * strips) == 0;
  auto rowOf = [&](int64_t r) {
    return arith::AddIOp::create(b, loc, row0, index(r)).getResult();
  };
  auto columnOf = [&](int64_t s) {
    return arith::MulIOp::create(
               b, loc, arith::AddIOp::create(b, loc, strip0, index(s)),
               index(tiling.lanes))
        .getResult();
  };
  // Set 0 starts from the kernel's accumulators, the others from zero.
  SmallVector<Value> init;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < strips; ++s)
      init.push_back(
          initialAccumulator(output, rowOf(r), columnOf(s), inBounds));
  init.append(accumulators * (split - 1),
              createConstant(cast<TypedAttr>(b.getZeroAttr(accumulatorType))));
  SmallVector<Value> bases;
  for (int64_t r = 0; r < rows; ++r)
    bases.push_back(rowBase(rowOf(r)));

  SmallVector<Value> accs =
      groupLoops(bases, strip0, init, rows, strips, split);
  const bool integer = isa<IntegerType>(accumulatorType.getElementType());
  for (int64_t r = 0; r < rows; ++r) {
    Value row = rowOf(r);
    for (int64_t s = 0; s < strips; ++s) {
      Value acc = accs[r * strips + s];
      for (int64_t set = 1; set < split; ++set) {
        Value other = accs[set * accumulators + r * strips + s];
        acc = integer ? arith::AddIOp::create(b, loc, acc, other).getResult()
                      : arith::AddFOp::create(b, loc, acc, other).getResult();
      }
      Value column = columnOf(s);
      output = vector::TransferWriteOp::create(b, loc, finish(acc, row, column),
                                               output, ValueRange{row, column},
                                               ArrayRef<bool>{inBounds})
                   .getResult();
    }
  }
  return output;
}

Value TiledGemm::rowLoops(Value output, int64_t rowBegin, int64_t rowEnd,
                          int64_t rows, int64_t strips, int64_t split,
                          StringRef step) {
  if (rowBegin >= rowEnd)
    return output;
  // Only the strips this tile's width needs.
  const int64_t stripEnd =
      llvm::alignTo(n, tiling.lanes * strips) / tiling.lanes;
  auto columns = scf::ForOp::create(
      b, loc, index(0), index(stripEnd), index(strips), ValueRange{output},
      [&](OpBuilder &nb, Location, Value strip0, ValueRange outer) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        auto rowLoop = scf::ForOp::create(
            b, loc, index(rowBegin), index(rowEnd), index(rows), outer,
            [&](OpBuilder &ib, Location, Value row0, ValueRange inner) {
              OpBuilder::InsertionGuard innerGuard(b);
              b.setInsertionPointToStart(ib.getInsertionBlock());
              scf::YieldOp::create(
                  b, loc, tile(inner[0], row0, strip0, rows, strips, split));
            });
        scf::YieldOp::create(b, loc, rowLoop.getResults());
      });
  columns->setAttr("quanta.dot_step", b.getStringAttr(step));
  return columns.getResult(0);
}

Value TiledGemm::emitTiles(Value output, StringRef step) {
  const int64_t tiledRows = m - m % tiling.rows;
  output = rowLoops(output, 0, tiledRows, tiling.rows, tiling.strips, 1, step);
  return rowLoops(output, tiledRows, m, 1, tiling.rowStrips, tiling.rowSplit,
                  step);
}

/// Sets the LLVM function attribute `name` (llvm.func's passthrough) of
/// `func` to `bits`, keeping a larger value it already has.
static void setVectorWidthAttribute(FunctionOpInterface func, StringRef name,
                                    int64_t bits) {
  MLIRContext *context = func->getContext();
  SmallVector<Attribute> entries;
  if (auto passthrough = func->getAttrOfType<ArrayAttr>("passthrough"))
    for (Attribute entry : passthrough) {
      auto pair = dyn_cast<ArrayAttr>(entry);
      StringAttr key = pair && pair.size() == 2 ? dyn_cast<StringAttr>(pair[0])
                                                : StringAttr();
      if (!key || key.getValue() != name) {
        entries.push_back(entry);
        continue;
      }
      int64_t existing = 0;
      if (auto value = dyn_cast<StringAttr>(pair[1]))
        if (!value.getValue().getAsInteger(10, existing))
          bits = std::max(bits, existing);
    }
  entries.push_back(ArrayAttr::get(
      context, {StringAttr::get(context, name),
                StringAttr::get(context, std::to_string(bits))}));
  func->setAttr("passthrough", ArrayAttr::get(context, entries));
}

/// Registers of `bits` for the function around a kernel, through LLVM's
/// "min-legal-vector-width" function attribute. Without the attribute,
/// which clang always sets and MLIR never does, the x86 backend of an
/// AVX-512 host widens 64-bit-lane vector code to zmm; on Intel cores zmm
/// uops close port 1 to vector work, which halves the vpmaddubsw throughput
/// of an AVX2 kernel (measured: a 3136x64x256 GEMM at 1149 us instead of
/// 587 us).
void mlir::quanta::requireVectorWidth(Operation *kernel, int64_t bits) {
  if (auto func = kernel->getParentOfType<FunctionOpInterface>())
    setVectorWidthAttribute(func, "min-legal-vector-width", bits);
}

/// LLVM's loop vectorizer picks 256-bit vectors on Intel AVX-512 cores
/// unless told otherwise ("prefer-vector-width"): the integer loops that
/// are no tiled kernel (depthwise convolutions, elementwise ops) run on
/// zmm with it (measured: a 112x112x32 depthwise 3x3 at 35 GOPS instead
/// of 27.5).
void mlir::quanta::preferVectorWidth(FunctionOpInterface func, int64_t bits) {
  setVectorWidthAttribute(func, "prefer-vector-width", bits);
  setVectorWidthAttribute(func, "min-legal-vector-width", bits);
}

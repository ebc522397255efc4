//===- TiledGemm.cpp - Register-tiled GEMM loops shared by the kernels ----===//

#include "TiledGemm.h"

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Interfaces/FunctionInterfaces.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/Threading.h"

#include <algorithm>
#include <array>
#include <map>

using namespace mlir;
using namespace mlir::quanta;

/// The threads the module around `op` runs its kernels on (0: the OpenMP
/// runtime's choice, taken to be this host's).
static int64_t getThreads(Operation *op) {
  auto module =
      isa<ModuleOp>(op) ? cast<ModuleOp>(op) : op->getParentOfType<ModuleOp>();
  const int64_t threads = module ? getModuleThreads(module) : 1;
  return threads == 0 ? llvm::hardware_concurrency().compute_thread_count()
                      : threads;
}

TiledGemm::TiledGemm(Operation *op, const GemmTiling &tiling, int64_t m,
                     int64_t k, int64_t n, int64_t segments)
    : b(op), loc(op->getLoc()), tiling(tiling), m(m), k(k), n(n),
      segments(segments),
      segmentGroups(llvm::divideCeil(k / segments, tiling.group)),
      threads(getThreads(op)), paddedK(segments * segmentGroups * tiling.group),
      // Whole tiles of every width.
      paddedN(llvm::alignTo(
          n, tiling.lanes * std::max({tiling.strips, tiling.halfStrips,
                                      tiling.rowStrips, tiling.otherStrips}))) {
}

AffineMap ImageWindow::rowStartMap(MLIRContext *context) const {
  const int64_t outH = outputHeight, outW = outputWidth;
  AffineExpr r = getAffineDimExpr(0, context);
  AffineExpr batch = r.floorDiv(outH * outW),
             oh = (r % (outH * outW)).floorDiv(outW), ow = r % outW;
  AffineExpr pixel =
      (batch * height + oh * strideH - padTop) * width + ow * strideW - padLeft;
  return AffineMap::get(1, 0, pixel * channels);
}

Value ImageWindow::rowStart(OpBuilder &b, Location loc, Value row) const {
  return affine::AffineApplyOp::create(b, loc, rowStartMap(b.getContext()),
                                       row);
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

RowClasses ImageWindow::classifyRows(
    MLIRContext *context, int64_t batch, int64_t groupsPerTap,
    SmallVectorImpl<SmallVector<int64_t>> &skippedTaps) const {
  // The taps inside the image along one axis form a range: output o reads
  // i = o * stride + t * dilation - pad, inside for t in [begin, end).
  auto insideTaps = [](int64_t o, int64_t stride, int64_t dilation, int64_t pad,
                       int64_t size, int64_t kernel) {
    auto firstAtLeast = [&](int64_t bound) {
      // The smallest t with o * stride + t * dilation - pad >= bound.
      const int64_t need = bound + pad - o * stride;
      return std::clamp<int64_t>(llvm::divideCeilSigned(need, dilation), 0,
                                 kernel);
    };
    return std::pair{firstAtLeast(0), firstAtLeast(size)};
  };
  // Classes in order of their rectangle; rows in order within each.
  std::map<std::array<int64_t, 4>, SmallVector<int64_t>> classes;
  for (int64_t oh = 0; oh < outputHeight; ++oh) {
    auto [hBegin, hEnd] =
        insideTaps(oh, strideH, dilationH, padTop, height, kernelH);
    for (int64_t ow = 0; ow < outputWidth; ++ow) {
      auto [wBegin, wEnd] =
          insideTaps(ow, strideW, dilationW, padLeft, width, kernelW);
      SmallVector<int64_t> &rows = classes[{hBegin, hEnd, wBegin, wEnd}];
      for (int64_t image = 0; image < batch; ++image)
        rows.push_back((image * outputHeight + oh) * outputWidth + ow);
    }
  }
  const AffineMap startMap = rowStartMap(context);
  RowClasses result;
  result.rowStarts.push_back(0);
  result.runStarts.push_back(0);
  for (auto &[taps, rows] : classes) {
    llvm::sort(rows);
    llvm::append_range(result.rows, rows);
    for (int64_t row : rows)
      result.rowBases.push_back(
          startMap.compose(ArrayRef<int64_t>{row}).front());
    result.rowStarts.push_back(result.rows.size());
    SmallVector<int64_t> &skipped = skippedTaps.emplace_back();
    for (int64_t kh = 0; kh < kernelH; ++kh)
      for (int64_t kw = 0; kw < kernelW; ++kw) {
        const int64_t tap = kh * kernelW + kw;
        if (kh < taps[0] || kh >= taps[1] || kw < taps[2] || kw >= taps[3]) {
          skipped.push_back(tap);
          continue;
        }
        // A tap right after the class's last run extends it.
        const int64_t begin = tap * groupsPerTap;
        if (result.runBegins.size() > size_t(result.runStarts.back()) &&
            result.runEnds.back() == begin) {
          result.runEnds.back() = begin + groupsPerTap;
        } else {
          result.runBegins.push_back(begin);
          result.runEnds.push_back(begin + groupsPerTap);
        }
      }
    result.runStarts.push_back(result.runBegins.size());
  }
  return result;
}

/// A 128-bit lane of vpackssdw(s0, s1) holds 4 outputs of strip s0, then
/// the same 4 of s1, and vpackuswb of two of those makes 16 bytes: 8 of
/// one pair, 8 of the other. Packed column (strip q of a pair, lane i)
/// computes column 8 * (i / 4) + 4 * q + i % 4 of the pair, so that each
/// pair's 8 bytes of a 128-bit lane are its consecutive columns.
int64_t TiledGemm::columnAt(int64_t position) const {
  if (!laneInterleavedPairs)
    return position;
  const int64_t pairColumns = 2 * tiling.lanes;
  const int64_t inPair = position % pairColumns, strip = inPair / tiling.lanes,
                lane = inPair % tiling.lanes;
  return position - inPair + 8 * (lane / 4) + 4 * strip + lane % 4;
}

Value TiledGemm::packAtRunTime(
    Value weights, Type element,
    function_ref<Value(OpBuilder &, Location, Value)> convert) {
  assert(segments == 1 && "run-time packing packs one segment");
  auto type = cast<RankedTensorType>(weights.getType());
  const int64_t batchDims = type.getRank() - 2;
  // The packed layout as dimensions (packedOffset): [strip groups of the
  // interleave][k groups][strip in the group][lane][k in the group], after
  // the batch.
  const int64_t interleave = tiling.stripInterleave, lanes = tiling.lanes,
                group = tiling.group;
  SmallVector<int64_t> shape(type.getShape().drop_back(2));
  shape.append({paddedN / (interleave * lanes), paddedK / group, interleave,
                lanes, group});
  const int64_t rank = shape.size();
  if (!element)
    element = type.getElementType();
  MLIRContext *context = b.getContext();
  // With laneInterleavedPairs, the column of each packed position, looked
  // up (columnAt).
  Value columnTable;
  if (laneInterleavedPairs) {
    SmallVector<int64_t> columns;
    for (int64_t position = 0; position < paddedN; ++position)
      columns.push_back(columnAt(position));
    columnTable = createConstant(DenseElementsAttr::get(
        RankedTensorType::get({paddedN}, b.getIndexType()),
        ArrayRef<int64_t>(columns)));
  }
  Value empty = tensor::EmptyOp::create(b, loc, shape, element);
  auto generic = linalg::GenericOp::create(
      b, loc, empty.getType(), ValueRange{}, ValueRange{empty},
      SmallVector<AffineMap>{AffineMap::getMultiDimIdentityMap(rank, context)},
      SmallVector<utils::IteratorType>(rank, utils::IteratorType::parallel),
      [&](OpBuilder &nested, Location nestedLoc, ValueRange) {
        SmallVector<Value> at;
        for (int64_t dim = 0; dim < rank; ++dim)
          at.push_back(linalg::IndexOp::create(nested, nestedLoc, dim));
        auto constant = [&](int64_t value) -> Value {
          return arith::ConstantIndexOp::create(nested, nestedLoc, value);
        };
        auto mulAdd = [&](Value x, int64_t factor, Value y) -> Value {
          return arith::AddIOp::create(
              nested, nestedLoc,
              arith::MulIOp::create(nested, nestedLoc, x, constant(factor)), y);
        };
        ArrayRef<Value> packedAt = ArrayRef<Value>(at).drop_front(batchDims);
        Value strip = mulAdd(packedAt[0], interleave, packedAt[2]);
        Value column = mulAdd(strip, lanes, packedAt[3]);
        if (columnTable)
          column =
              tensor::ExtractOp::create(nested, nestedLoc, columnTable, column);
        Value row = mulAdd(packedAt[1], group, packedAt[4]);
        // Padding reads a valid element and stores zero instead.
        auto inside = [&](Value position, int64_t size) {
          return arith::CmpIOp::create(nested, nestedLoc,
                                       arith::CmpIPredicate::ult, position,
                                       constant(size));
        };
        auto clamped = [&](Value position, int64_t size) -> Value {
          return arith::MinUIOp::create(nested, nestedLoc, position,
                                        constant(size - 1));
        };
        SmallVector<Value> weightsAt(at.begin(), at.begin() + batchDims);
        weightsAt.append({clamped(row, k), clamped(column, n)});
        Value value =
            tensor::ExtractOp::create(nested, nestedLoc, weights, weightsAt);
        if (convert)
          value = convert(nested, nestedLoc, value);
        Value zero = arith::ConstantOp::create(
            nested, nestedLoc, cast<TypedAttr>(nested.getZeroAttr(element)));
        Value valid = arith::AndIOp::create(nested, nestedLoc, inside(row, k),
                                            inside(column, n));
        linalg::YieldOp::create(
            nested, nestedLoc,
            arith::SelectOp::create(nested, nestedLoc, valid, value, zero)
                .getResult());
      });
  SmallVector<ReassociationIndices> flat;
  for (int64_t dim = 0; dim < batchDims; ++dim)
    flat.push_back({dim});
  flat.push_back(llvm::to_vector(llvm::seq<int64_t>(batchDims, rank)));
  return tensor::CollapseShapeOp::create(b, loc, generic.getResult(0), flat);
}

Value TiledGemm::narrowPairs(ArrayRef<Value>) {
  llvm_unreachable("a kernel with pairedStrips narrows its pairs");
}

Value TiledGemm::index(int64_t value) {
  return arith::ConstantIndexOp::create(b, loc, value);
}

Value TiledGemm::createConstant(TypedAttr value) {
  return arith::ConstantOp::create(b, loc, value);
}

Value TiledGemm::loadWeights(Value offset, Value, Value) {
  Value pad = createConstant(cast<TypedAttr>(
      b.getZeroAttr(cast<ShapedType>(packed.getType()).getElementType())));
  return vector::TransferReadOp::create(b, loc, packedVector, packed,
                                        ValueRange{offset}, pad,
                                        ArrayRef<bool>{true});
}

/// The k loops over every k group (the class's runs with `classes`), from
/// `init`, the input of each dot row (tiling.rowsPerDot rows) at `bases`.
/// Returns every accumulator set.
SmallVector<Value> TiledGemm::groupLoops(ValueRange bases, Value strip0,
                                         ValueRange init, int64_t dotRows,
                                         int64_t strips, int64_t split,
                                         const ClassTables *classes) {
  const int64_t accumulators = dotRows * strips;
  // packedOffset(strip0 + s, g), strip0 being a multiple of strips and
  // hence of the interleave.
  const int64_t interleave = tiling.stripInterleave;
  assert(strips % interleave == 0 && "a tile of whole interleaved strips");
  Value stripSize = index(paddedK * tiling.lanes);
  Value stepSize = index(interleave * tiling.lanes * tiling.group);
  // A load of a row's inputs serves groupsPerLoad k groups where they are
  // consecutive in memory: within a segment (a tap's channels), which the
  // chunks of a run, starting at segment boundaries, never leave.
  const int64_t groupsPerLoad =
      segments == 1 || segmentGroups % tiling.groupsPerLoad == 0
          ? tiling.groupsPerLoad
          : 1;

  // acc[set][q][s] = dot(acc[set][q][s], input[dot row q][g + u],
  //                      packed[strip0 + s][g + u]) for u < `groups` (1 or
  // groupsPerLoad).
  auto body = [&](Value g, ValueRange accs, int64_t set, int64_t groups) {
    SmallVector<Value> next(accs.begin(), accs.end());
    SmallVector<Value> chunks;
    if (groups > 1)
      for (int64_t q = 0; q < dotRows; ++q)
        chunks.push_back(loadInputs(bases[q], g));
    for (int64_t u = 0; u < groups; ++u) {
      Value group = u == 0 ? g : arith::AddIOp::create(b, loc, g, index(u));
      SmallVector<Value> rhs;
      for (int64_t s = 0; s < strips; ++s) {
        Value strip =
            arith::AddIOp::create(b, loc, strip0, index(s - s % interleave));
        Value offset = arith::AddIOp::create(
            b, loc,
            arith::AddIOp::create(
                b, loc, arith::MulIOp::create(b, loc, strip, stripSize),
                arith::MulIOp::create(b, loc, group, stepSize)),
            index(s % interleave * tiling.lanes * tiling.group));
        Value column = arith::MulIOp::create(
            b, loc, arith::AddIOp::create(b, loc, strip0, index(s)),
            index(tiling.lanes));
        rhs.push_back(loadWeights(offset, column, group));
      }
      for (int64_t q = 0; q < dotRows; ++q) {
        Value lhs = groups > 1 ? inputOfGroup(chunks[q], u)
                               : groupInput(bases[q], group);
        for (int64_t s = 0; s < strips; ++s) {
          int64_t slot = set * accumulators + q * strips + s;
          next[slot] = dot(next[slot], lhs, rhs[s]);
        }
      }
    }
    return next;
  };
  // The groups [begin, end): the steps that fill whole accumulator sets
  // with whole loads, then the rest one group at a time (constants folded:
  // a GEMM's loops keep constant bounds).
  const int64_t step = split * groupsPerLoad;
  auto groupRange = [&](Value begin, Value end, ValueRange accsIn) {
    Value mainEnd = b.createOrFold<arith::AddIOp>(
        loc, begin,
        b.createOrFold<arith::MulIOp>(
            loc,
            b.createOrFold<arith::DivUIOp>(
                loc, b.createOrFold<arith::SubIOp>(loc, end, begin),
                index(step)),
            index(step)));
    auto mainLoop = scf::ForOp::create(
        b, loc, begin, mainEnd, index(step), accsIn,
        [&](OpBuilder &nb, Location, Value g, ValueRange accs) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nb.getInsertionBlock());
          SmallVector<Value> current(accs.begin(), accs.end());
          for (int64_t set = 0; set < split; ++set) {
            Value gs = set == 0 ? g
                                : arith::AddIOp::create(
                                      b, loc, g, index(set * groupsPerLoad));
            current = body(gs, current, set, groupsPerLoad);
          }
          scf::YieldOp::create(b, loc, current);
        });
    SmallVector<Value> accs(mainLoop.getResults());
    std::optional<int64_t> mainEndValue = getConstantIntValue(mainEnd),
                           endValue = getConstantIntValue(end);
    if (step > 1 && (!mainEndValue || mainEndValue != endValue)) {
      auto tail = scf::ForOp::create(
          b, loc, mainEnd, end, index(1),
          ValueRange(accs).take_front(accumulators),
          [&](OpBuilder &nb, Location, Value g, ValueRange current) {
            OpBuilder::InsertionGuard guard(b);
            b.setInsertionPointToStart(nb.getInsertionBlock());
            scf::YieldOp::create(b, loc, body(g, current, 0, 1));
          });
      llvm::copy(tail.getResults(), accs.begin());
    }
    return accs;
  };
  if (!classes) {
    const int64_t block = groupsPerScaleBlock();
    if (block == 0)
      return groupRange(index(0), index(paddedK / tiling.group), init);
    assert(split == 1 && tiling.rowsPerDot == 1 &&
           "scale blocks need one accumulator set of one row per dot");
    auto blocks = scf::ForOp::create(
        b, loc, index(0), index(paddedK / tiling.group), index(block), init,
        [&](OpBuilder &nb, Location, Value first, ValueRange accs) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nb.getInsertionBlock());
          // Slot q * strips + s: dot row q, strip s.
          auto columnOf = [&](int64_t slot) -> Value {
            return arith::MulIOp::create(
                b, loc,
                arith::AddIOp::create(b, loc, strip0, index(slot % strips)),
                index(tiling.lanes));
          };
          SmallVector<Value> starts;
          for (int64_t slot = 0; slot < accumulators; ++slot)
            starts.push_back(
                blockStart(bases[slot / strips], first, columnOf(slot)));
          SmallVector<Value> partials = groupRange(
              first, arith::AddIOp::create(b, loc, first, index(block)),
              starts);
          SmallVector<Value> next;
          for (auto [slot, acc] : llvm::enumerate(accs))
            next.push_back(scaleBlock(acc, partials[slot], bases[slot / strips],
                                      first, columnOf(slot)));
          scf::YieldOp::create(b, loc, next);
        });
    return blocks.getResults();
  }
  auto runs = scf::ForOp::create(
      b, loc, classes->runBegin, classes->runEnd, index(1), init,
      [&](OpBuilder &nb, Location, Value run, ValueRange accs) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        scf::YieldOp::create(
            b, loc,
            groupRange(
                tensor::ExtractOp::create(b, loc, classes->runBegins, run),
                tensor::ExtractOp::create(b, loc, classes->runEnds, run),
                accs));
      });
  return runs.getResults();
}

Value TiledGemm::blockStart(Value, Value, Value) {
  return createConstant(b.getZeroAttr(accumulatorType));
}

Value TiledGemm::scaleBlock(Value, Value, Value, Value, Value) {
  llvm_unreachable("a kernel with scale blocks defines scaleBlock");
}

Value TiledGemm::loadInputs(Value, Value) {
  llvm_unreachable("a kernel with groupsPerLoad > 1 loads its inputs");
}

Value TiledGemm::inputOfGroup(Value, int64_t) {
  llvm_unreachable("a kernel with groupsPerLoad > 1 selects its inputs");
}

Value TiledGemm::toAccumulator(ArrayRef<Value> rows) {
  assert(rows.size() == 1 && "a kernel of several rows per dot step "
                             "combines their vectors");
  return rows.front();
}

SmallVector<Value> TiledGemm::fromAccumulator(Value acc) { return {acc}; }

/// One tile: `rows` rows from position0 (of the class's rows, with
/// `classes`; none past lastPosition, if given) times `strips` strips from
/// strip0, the k loop split over `split` accumulator sets. Returns the
/// updated output: the output tensor, or in the Start and Accumulate
/// phases, the partial sums.
// One function although long: every step of a tile (row values, start
// values, the k loops, the sums of the sets, the epilogue and its writes)
// reads the same row values, strip columns and accumulators, which its
// lambdas share; split, each part would take most of them as arguments.
Value TiledGemm::tile(Value output, Value position0, Value strip0, int64_t rows,
                      int64_t strips, int64_t split, Value lastPosition,
                      const ClassTables *classes) {
  const int64_t perDot = tiling.rowsPerDot;
  assert(rows % perDot == 0 && "a tile of whole dot rows");
  const int64_t dotRows = rows / perDot, accumulators = dotRows * strips;
  // Strips past n exist only in the last strip group, which rowLoops emits
  // with a constant strip0: each strip's columns inside n are known here.
  std::optional<int64_t> firstStrip = getConstantIntValue(strip0);
  auto columnsInside = [&](int64_t s) {
    return firstStrip
               ? std::clamp<int64_t>(n - (*firstStrip + s) * tiling.lanes, 0,
                                     tiling.lanes)
               : tiling.lanes;
  };
  const bool readsInput = phase == Phase::Whole || phase == Phase::Accumulate;
  // A dot row's input is its first row's.
  SmallVector<Value> rowValues, bases;
  for (int64_t r = 0; r < rows; ++r) {
    Value position = arith::AddIOp::create(b, loc, position0, index(r));
    // A last tile may reach past its rows (RowSplit): it repeats the last
    // one, computing and writing it again.
    if (lastPosition)
      position = arith::MinUIOp::create(b, loc, position, lastPosition);
    const bool first = r % perDot == 0;
    if (!classes) {
      rowValues.push_back(position);
      if (readsInput && first)
        bases.push_back(rowBase(position));
      continue;
    }
    rowValues.push_back(
        tensor::ExtractOp::create(b, loc, classes->rows, position));
    if (readsInput && first)
      bases.push_back(
          tensor::ExtractOp::create(b, loc, classes->rowBases, position));
  }
  auto columnOf = [&](int64_t s) {
    return arith::MulIOp::create(
               b, loc, arith::AddIOp::create(b, loc, strip0, index(s)),
               index(tiling.lanes))
        .getResult();
  };
  const bool integer = isa<IntegerType>(accumulatorType.getElementType());
  auto add = [&](Value lhs, Value rhs) -> Value {
    return integer ? arith::AddIOp::create(b, loc, lhs, rhs).getResult()
                   : arith::AddFOp::create(b, loc, lhs, rhs).getResult();
  };
  auto rowType =
      VectorType::get({tiling.lanes}, accumulatorType.getElementType());
  Value elementZero = createConstant(
      cast<TypedAttr>(b.getZeroAttr(accumulatorType.getElementType())));
  // The class's start offsets, the same for every row of a strip.
  SmallVector<Value> classStarts;
  if (classes && classes->startOffsets) {
    Value first = arith::MulIOp::create(b, loc, classes->index, index(paddedN));
    for (int64_t s = 0; s < strips; ++s) {
      Value at = arith::AddIOp::create(b, loc, first, columnOf(s));
      classStarts.push_back(vector::TransferReadOp::create(
          b, loc, rowType, classes->startOffsets, ValueRange{at}, elementZero,
          ArrayRef<bool>{true}));
    }
  }
  // Each row of set 0 starts from the kernel's initial values plus the
  // class's start offsets (from the partial sums when blocked by tap), the
  // other sets from zero; the rows of a dot row make one accumulator.
  Value partial = phase == Phase::Accumulate ? output : partialSums;
  auto rowStart = [&](int64_t r, int64_t s) -> Value {
    if (phase == Phase::Accumulate || phase == Phase::Finish)
      return vector::TransferReadOp::create(
          b, loc, rowType, partial, ValueRange{rowValues[r], columnOf(s)},
          elementZero, ArrayRef<bool>{true});
    Value acc = initialAccumulator(output, rowValues[r], columnOf(s),
                                   columnsInside(s) == tiling.lanes);
    return classStarts.empty() ? acc : add(acc, classStarts[s]);
  };
  SmallVector<Value> init;
  for (int64_t q = 0; q < dotRows; ++q)
    for (int64_t s = 0; s < strips; ++s) {
      SmallVector<Value> starts;
      for (int64_t r = q * perDot; r < (q + 1) * perDot; ++r)
        starts.push_back(rowStart(r, s));
      init.push_back(toAccumulator(starts));
    }
  init.append(accumulators * (split - 1),
              createConstant(cast<TypedAttr>(b.getZeroAttr(accumulatorType))));

  SmallVector<Value> accs =
      readsInput
          ? groupLoops(bases, strip0, init, dotRows, strips, split, classes)
          : init;
  // Every row's L values of each strip: the sets summed, then split.
  SmallVector<Value> rowSums(rows * strips);
  for (int64_t q = 0; q < dotRows; ++q)
    for (int64_t s = 0; s < strips; ++s) {
      Value acc = accs[q * strips + s];
      for (int64_t set = 1; set < split; ++set)
        acc = add(acc, accs[set * accumulators + q * strips + s]);
      for (auto [i, row] : llvm::enumerate(fromAccumulator(acc)))
        rowSums[(q * perDot + i) * strips + s] = row;
    }
  auto sumOfSets = [&](int64_t r, int64_t s) {
    return rowSums[r * strips + s];
  };
  if (phase == Phase::Start || phase == Phase::Accumulate) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t s = 0; s < strips; ++s)
        output =
            vector::TransferWriteOp::create(
                b, loc, sumOfSets(r, s), output,
                ValueRange{rowValues[r], columnOf(s)}, ArrayRef<bool>{true})
                .getResult();
    return output;
  }
  // Finished where a strip (or its pair) has columns inside n.
  SmallVector<Value> results(rows * strips);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < strips; ++s) {
      if (columnsInside(pairedStrips ? s - s % 2 : s) == 0)
        continue;
      results[r * strips + s] =
          finish(sumOfSets(r, s), rowValues[r], columnOf(s));
    }
  // The `inside` first columns of `values` at (row r, column), written in
  // bounds: LLVM 22 compiles a masked store of a truncated vector with one
  // lane enabled (n % L == 1) into a store of the whole untruncated lane on
  // AVX-512 targets (vmovss: 3 bytes past the column).
  auto write = [&](Value values, int64_t r, Value column, int64_t inside) {
    if (inside < cast<VectorType>(values.getType()).getDimSize(0))
      values = vector::ExtractStridedSliceOp::create(
          b, loc, values, ArrayRef<int64_t>{0}, ArrayRef<int64_t>{inside},
          ArrayRef<int64_t>{1});
    output = vector::TransferWriteOp::create(b, loc, values, output,
                                             ValueRange{rowValues[r], column},
                                             ArrayRef<bool>{true})
                 .getResult();
  };
  if (!pairedStrips) {
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t s = 0; s < strips; ++s)
        if (int64_t inside = columnsInside(s))
          write(results[r * strips + s], r, columnOf(s), inside);
    return output;
  }
  // The pairs with columns inside n, row by row, narrowed two at a time
  // (the last one with itself when they are odd in number).
  assert(strips % 2 == 0 && "paired strips in a tile of odd width");
  SmallVector<std::pair<int64_t, int64_t>> pairs;
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t s = 0; s < strips; s += 2)
      if (columnsInside(s) > 0)
        pairs.push_back({r, s});
  const int64_t pairColumns = 2 * tiling.lanes;
  for (size_t i = 0; i < pairs.size(); i += 2) {
    const size_t j = std::min(i + 1, pairs.size() - 1);
    auto at = [&](size_t pair, int64_t strip) {
      return results[pairs[pair].first * strips + pairs[pair].second + strip];
    };
    Value bytes = narrowPairs({at(i, 0), at(i, 1), at(j, 0), at(j, 1)});
    for (size_t pair = i; pair <= j; ++pair) {
      auto [r, s] = pairs[pair];
      write(vector::ExtractStridedSliceOp::create(
                b, loc, bytes, ArrayRef<int64_t>{pair == i ? 0 : pairColumns},
                ArrayRef<int64_t>{pairColumns}, ArrayRef<int64_t>{1}),
            r, columnOf(s), columnsInside(s) + columnsInside(s + 1));
    }
  }
  return output;
}

Value TiledGemm::rowLoops(Value output, Value rowBegin, Value rowEnd,
                          int64_t rows, int64_t strips, int64_t split,
                          StringRef step, Value lastPosition,
                          const ClassTables *classes) {
  std::optional<int64_t> begin = getConstantIntValue(rowBegin),
                         end = getConstantIntValue(rowEnd);
  if (rowBegin == rowEnd || (begin && end && *begin >= *end))
    return output;
  // The strip groups inside n in a loop, then the group n ends in, its
  // strip0 a constant (see tile), and no strips past it.
  const int64_t groupColumns = tiling.lanes * strips;
  const int64_t fullStrips = n / groupColumns * strips;
  auto rowLoop = [&](Value strip0, Value current) {
    return scf::ForOp::create(
        b, loc, rowBegin, rowEnd, index(rows), current,
        [&](OpBuilder &nb, Location, Value row0, ValueRange inner) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nb.getInsertionBlock());
          scf::YieldOp::create(b, loc,
                               tile(inner[0], row0, strip0, rows, strips, split,
                                    lastPosition, classes));
        });
  };
  // Where the chunks share the columns, each takes its run of whole
  // groups of the widest tile (a multiple of every tile's strips), the last
  // one the rest.
  Value stripBegin = index(0), stripEnd = index(fullStrips);
  const bool lastChunkOnly = chunks > 1 && shareColumns;
  if (lastChunkOnly) {
    const int64_t wide = widestStrips(), wideGroups = n / (tiling.lanes * wide);
    SmallVector<int64_t> begins, ends;
    for (int64_t c = 0; c < chunks; ++c) {
      begins.push_back(c * wideGroups / chunks * wide);
      ends.push_back(c + 1 < chunks ? (c + 1) * wideGroups / chunks * wide
                                    : fullStrips);
    }
    stripBegin = chunkValue(begins);
    stripEnd = chunkValue(ends);
  }
  if (fullStrips > 0) {
    auto columns = scf::ForOp::create(
        b, loc, stripBegin, stripEnd, index(strips), ValueRange{output},
        [&](OpBuilder &nb, Location, Value strip0, ValueRange outer) {
          OpBuilder::InsertionGuard guard(b);
          b.setInsertionPointToStart(nb.getInsertionBlock());
          scf::YieldOp::create(b, loc, rowLoop(strip0, outer[0]).getResults());
        });
    columns->setAttr("quanta.dot_step", b.getStringAttr(step));
    output = columns.getResult(0);
  }
  if (n % groupColumns == 0)
    return output;
  if (!lastChunkOnly) {
    auto lastGroup = rowLoop(index(fullStrips), output);
    lastGroup->setAttr("quanta.dot_step", b.getStringAttr(step));
    return lastGroup.getResult(0);
  }
  Value isLast = arith::CmpIOp::create(b, loc, arith::CmpIPredicate::eq, chunk,
                                       index(chunks - 1));
  auto onLast = scf::IfOp::create(
      b, loc, isLast,
      [&](OpBuilder &nb, Location) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        auto lastGroup = rowLoop(index(fullStrips), output);
        lastGroup->setAttr("quanta.dot_step", b.getStringAttr(step));
        scf::YieldOp::create(b, loc, lastGroup.getResults());
      },
      [&](OpBuilder &nb, Location) { scf::YieldOp::create(nb, loc, output); });
  return onLast.getResult(0);
}

namespace {
/// How `count` rows from `begin` are tiled: whole tiles up to wholeEnd, one
/// tile of half the rows up to halfEnd, one-row tiles from singleStart to
/// the end. Where K is large, a one-row tile reads its strips of B from L2
/// and runs at about a third of a whole tile's speed per row (a VNNI GEMM
/// at 255 GOPS for M = 1, 700 for M >= 16): a few rows left over make a
/// whole or a half tile instead, its rows past the end repeating the last
/// (measured: a 196 x 256 x 2304 VNNI GEMM, 4 rows left over, from 0.96x to
/// 0.99x oneDNN's speed).
struct RowSplit {
  int64_t wholeEnd, halfEnd, singleStart;

  RowSplit(int64_t begin, int64_t count, int64_t tileRows) {
    const int64_t half = tileRows / 2;
    int64_t left = count % tileRows;
    wholeEnd = begin + count - left;
    halfEnd = wholeEnd;
    if (left >= tileRows - tileRows / 4) {
      wholeEnd += tileRows;
      halfEnd = wholeEnd;
      left = 0;
    } else if (half >= 2 && left >= 2) {
      halfEnd += half;
      left = std::max<int64_t>(left - half, 0);
    }
    singleStart = begin + count - left;
  }
  bool pastEnd(int64_t end) const { return halfEnd > end; }
};
} // namespace

/// Whole tiles, a half tile and one-row tiles (of one dot row, repeating
/// the last row where it has fewer) over the rows [begin, end)
/// (positions of the class's rows, with `classes`), as RowSplit says.
Value TiledGemm::rowTiles(Value output, Value begin, Value wholeEnd,
                          Value halfEnd, Value singleStart, Value end,
                          Value lastPosition, StringRef step,
                          const ClassTables *classes) {
  output = rowLoops(output, begin, wholeEnd, tiling.rows, tiling.strips, 1,
                    step, lastPosition, classes);
  if (tiling.rows / 2 >= 2)
    output = rowLoops(output, wholeEnd, halfEnd, tiling.rows / 2,
                      tiling.halfStrips, 1, step, lastPosition, classes);
  return rowLoops(output, singleStart, end, tiling.rowsPerDot, tiling.rowStrips,
                  tiling.rowSplit, step, lastPosition, classes);
}

SmallVector<TiledGemm::ChunkRows> TiledGemm::chunkRows(int64_t begin,
                                                       int64_t count) const {
  RowSplit split(begin, count, tiling.rows);
  const ChunkRows all{begin, split.wholeEnd, split.halfEnd, split.singleStart,
                      begin + count};
  if (shareColumns)
    return SmallVector<ChunkRows>(chunks, all);
  // Whole tiles for every chunk, the half and one-row tiles for the last.
  const int64_t tiles = (split.wholeEnd - begin) / tiling.rows;
  SmallVector<ChunkRows> ranges;
  for (int64_t c = 0; c < chunks; ++c) {
    const int64_t from = begin + c * tiles / chunks * tiling.rows,
                  to = begin + (c + 1) * tiles / chunks * tiling.rows;
    ranges.push_back(c + 1 < chunks ? ChunkRows{from, to, to, to, to}
                                    : ChunkRows{from, all.wholeEnd, all.halfEnd,
                                                all.singleStart, all.end});
  }
  return ranges;
}

Value TiledGemm::indexTable(ArrayRef<int64_t> values) {
  auto type = RankedTensorType::get({static_cast<int64_t>(values.size())},
                                    b.getIndexType());
  return createConstant(DenseElementsAttr::get(type, values));
}

Value TiledGemm::chunkValue(ArrayRef<int64_t> perChunk) {
  // A constant where every chunk has the same (the row loops of column
  // chunks): loops found empty are not emitted.
  if (llvm::all_equal(perChunk))
    return index(perChunk.front());
  return tensor::ExtractOp::create(b, loc, indexTable(perChunk), chunk);
}

/// A loop over the classes, each tiled as RowSplit says (the chunk's share
/// of it), reading its runs of k groups.
Value TiledGemm::emitClassTiles(Value output, StringRef step,
                                const RowClasses &classes) {
  // Per class and chunk (class-major): the chunk's rows of the class.
  SmallVector<int64_t> begins, wholeEnds, halfEnds, singleStarts, ends,
      lastRows;
  for (int64_t c = 0; c < classes.size(); ++c) {
    const int64_t begin = classes.rowStarts[c], end = classes.rowStarts[c + 1];
    for (const ChunkRows &range : chunkRows(begin, end - begin)) {
      begins.push_back(range.begin);
      wholeEnds.push_back(range.wholeEnd);
      halfEnds.push_back(range.halfEnd);
      singleStarts.push_back(range.singleStart);
      ends.push_back(range.end);
      lastRows.push_back(end - 1);
    }
  }
  Value rows = indexTable(classes.rows),
        rowBases = indexTable(classes.rowBases),
        beginTable = indexTable(begins), wholeEndTable = indexTable(wholeEnds),
        halfEndTable = indexTable(halfEnds),
        singleStartTable = indexTable(singleStarts),
        endTable = indexTable(ends), lastRowTable = indexTable(lastRows),
        runBegins = indexTable(classes.runBegins),
        runEnds = indexTable(classes.runEnds),
        runStarts = indexTable(classes.runStarts), startOffsets;
  if (!classes.startOffsets.empty()) {
    auto type = RankedTensorType::get(
        {static_cast<int64_t>(classes.startOffsets.size())},
        accumulatorType.getElementType());
    startOffsets = createConstant(
        DenseElementsAttr::get(type, ArrayRef<int32_t>(classes.startOffsets)));
  }
  auto classLoop = scf::ForOp::create(
      b, loc, index(0), index(classes.size()), index(1), ValueRange{output},
      [&](OpBuilder &nb, Location, Value c, ValueRange current) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        Value next = arith::AddIOp::create(b, loc, c, index(1));
        auto at = [&](Value tensor, Value position) -> Value {
          return tensor::ExtractOp::create(b, loc, tensor, position);
        };
        Value slot =
            chunks == 1
                ? c
                : arith::AddIOp::create(
                      b, loc, arith::MulIOp::create(b, loc, c, index(chunks)),
                      chunk);
        ClassTables tables{
            rows,         rowBases, runBegins,        runEnds,
            startOffsets, c,        at(runStarts, c), at(runStarts, next)};
        scf::YieldOp::create(
            b, loc,
            rowTiles(current[0], at(beginTable, slot), at(wholeEndTable, slot),
                     at(halfEndTable, slot), at(singleStartTable, slot),
                     at(endTable, slot), at(lastRowTable, slot), step,
                     &tables));
      });
  return classLoop.getResult(0);
}

/// The time RowSplit's tiles take over `count` rows, in rows of a whole
/// tile, which it computes past the end too. A half tile's row takes 1.4,
/// a one-row tile's 3.2: they read more bytes of B per dot step, from L2
/// where a strip's K x L bytes exceed L1 (measured on a 14x14x256 3x3 VNNI
/// convolution, whose 12-row border classes ended in half tiles and whose
/// corners are one-row tiles: 0.296 ms, 0.287 without the corners, 0.229
/// without the borders).
static double rowTilesCost(int64_t count, int64_t tileRows) {
  RowSplit split(0, count, tileRows);
  return split.wholeEnd + 1.4 * (split.halfEnd - split.wholeEnd) +
         3.2 * (count - split.singleStart);
}

/// The work of RowSplit's tiles of `tileRows` rows over every class's
/// rows, in row k groups.
static double classTilesWork(const RowClasses &classes, int64_t tileRows) {
  double work = 0;
  for (int64_t c = 0; c < classes.size(); ++c) {
    int64_t groups = 0;
    for (int64_t j = classes.runStarts[c]; j < classes.runStarts[c + 1]; ++j)
      groups += classes.runEnds[j] - classes.runBegins[j];
    work += rowTilesCost(classes.rowStarts[c + 1] - classes.rowStarts[c],
                         tileRows) *
            groups;
  }
  return work;
}

/// Takes the other main tile where its tiles do less work. An 8 x 2 VNNI tile
/// covers the 12 rows of each border class of a 14x14 3x3 convolution with a
/// whole and a half tile, a 6 x 4 one with two whole tiles: 0.296 ms instead of
/// 0.288. Where M is a multiple of 8 (16, 64, 1024), the 8 x 2 tile stays: 6 x
/// 4 would leave a half and a one-row tile (M = 16: 0.90x oneDNN's speed
/// instead of 0.99x).
void TiledGemm::chooseMainTile() {
  if (tiling.otherRows == 0)
    return;
  auto work = [&](int64_t tileRows) {
    return rowClasses ? classTilesWork(*rowClasses, tileRows)
                      : rowTilesCost(m, tileRows);
  };
  if (work(tiling.otherRows) < work(tiling.rows)) {
    std::swap(tiling.rows, tiling.otherRows);
    std::swap(tiling.strips, tiling.otherStrips);
  }
}

/// The rows of each tap's k groups: a class per tap, of every row whose
/// class reads it.
RowClasses TiledGemm::tapClasses() const {
  RowClasses taps;
  taps.rowStarts.push_back(0);
  taps.runStarts.push_back(0);
  for (int64_t tap = 0; tap < segments; ++tap) {
    const int64_t begin = tap * segmentGroups, end = begin + segmentGroups;
    for (int64_t c = 0; c < rowClasses->size(); ++c) {
      auto runs =
          llvm::seq(rowClasses->runStarts[c], rowClasses->runStarts[c + 1]);
      if (llvm::none_of(runs, [&](int64_t j) {
            return rowClasses->runBegins[j] <= begin &&
                   end <= rowClasses->runEnds[j];
          }))
        continue;
      for (int64_t at = rowClasses->rowStarts[c];
           at < rowClasses->rowStarts[c + 1]; ++at) {
        taps.rows.push_back(rowClasses->rows[at]);
        taps.rowBases.push_back(rowClasses->rowBases[at]);
      }
    }
    taps.rowStarts.push_back(taps.rows.size());
    taps.runBegins.push_back(begin);
    taps.runEnds.push_back(end);
    taps.runStarts.push_back(taps.runBegins.size());
  }
  return taps;
}

/// The tap classes to tile instead of the classes, where that pays: where
/// a column group's strips of B (K x L x NV bytes) exceed L1 and the
/// classes' tiles would do more than 10% more work than the taps' (the
/// classes of a small image, too few rows for whole tiles, which read B
/// from L2). Blocked by tap, every tap's rows make whole tiles and read
/// its strips of B from L1; the partial sums cost a load and a store per
/// accumulator and tap. Measured on 3x3 VNNI convolutions of padding 1:
/// 7x7x512 0.391 -> 0.296 ms (the classes' tiles 21% over the taps');
/// 14x14x256 0.288 -> 0.310 and 28x28x128 0.306 -> 0.353 (1% over, left
/// to the classes: a tap's 64 or 32 k groups are too short a k loop).
/// With one class (no padding), the taps' tiles are the class's.
std::optional<RowClasses> TiledGemm::tapBlocking() const {
  const int64_t stripBytes =
      paddedK * tiling.lanes * packedVector.getElementTypeBitWidth() / 8;
  if (!rowClasses || segments == 1 ||
      stripBytes * tiling.strips <= kTapBlockingBytes)
    return std::nullopt;
  RowClasses taps = tapClasses();
  if (classTilesWork(*rowClasses, tiling.rows) <=
      1.1 * classTilesWork(taps, tiling.rows))
    return std::nullopt;
  return taps;
}

int64_t TiledGemm::widestStrips() const {
  const int64_t wide = std::max(
      {tiling.strips, tiling.halfStrips, tiling.rowStrips, tiling.otherStrips});
  assert(llvm::all_of(ArrayRef<int64_t>{tiling.strips, tiling.halfStrips,
                                        tiling.rowStrips},
                      [&](int64_t strips) { return wide % strips == 0; }) &&
         "every tile's strips divide the widest tile's");
  return wide;
}

/// The threads share a GEMM in one parallel region, a chunk each: of its
/// column groups where A is the smaller operand (m < n: a CNN's deep layers
/// at batch 1, fully connected layers; each thread then reads its part of
/// B instead of all of it) or the rows are too few for a whole tile per
/// thread, else of each class's whole row tiles (the last chunk also takes
/// the half and one-row tiles). A parallel loop per class, tile shape and
/// column group instead made ~100 regions of a padded 3x3 convolution, and
/// their forks, joins and unequal shares cost more than the second thread
/// gave (measured on an AMD EPYC, ResNet-18 int8 at batch 1: 4.85 ms on one
/// thread, 4.06 on two; its 28x28x128 convolutions 0.28 -> 0.33 ms).
/// Blocked by tap, a row's partial sums are updated by one tap class after
/// another, which only column chunks keep apart.
void TiledGemm::chooseChunks(bool tapBlocked) {
  if (threads <= 1)
    return;
  const int64_t wideGroups = n / (tiling.lanes * widestStrips()),
                rowTiles = m / tiling.rows;
  shareColumns = wideGroups >= threads && (m < n || rowTiles < threads);
  if (shareColumns || (!tapBlocked && rowTiles >= threads))
    chunks = threads;
}

SmallVector<Value>
TiledGemm::forEachChunk(ValueRange init,
                        function_ref<SmallVector<Value>(ValueRange)> body) {
  if (chunks == 1)
    return body(init);
  auto loop = scf::ForOp::create(
      b, loc, index(0), index(chunks), index(1), init,
      [&](OpBuilder &nb, Location, Value c, ValueRange current) {
        OpBuilder::InsertionGuard guard(b);
        b.setInsertionPointToStart(nb.getInsertionBlock());
        chunk = c;
        scf::YieldOp::create(b, loc, body(current));
      });
  // The dot steps (the nest reads its bounds from tables, which
  // quanta-parallelize cannot count), each a vector instruction as an
  // elementwise loop's iteration becomes one.
  const int64_t work = llvm::divideCeil(m, tiling.rowsPerDot) *
                       llvm::divideCeil(n, tiling.lanes) *
                       (paddedK / tiling.group);
  loop->setAttr(kParallelLoopAttrName, b.getI64IntegerAttr(work));
  chunk = Value();
  return loop.getResults();
}

Value TiledGemm::emitTiles(Value output, StringRef step) {
  assert((!rowClasses || tiling.rowsPerDot == 1) &&
         "the rows of a class are not consecutive: one row per dot step");
  chooseMainTile();
  // No more accumulator sets in the one-row tile than its k loop fills with
  // whole steps (a class's runs are at least a tap's groups long): the
  // groups left over run one at a time.
  const int64_t loopGroups =
      rowClasses ? segmentGroups : paddedK / tiling.group;
  while (tiling.rowSplit > 1 &&
         loopGroups < tiling.rowSplit * tiling.groupsPerLoad)
    tiling.rowSplit /= 2;
  std::optional<RowClasses> taps = tapBlocking();
  chooseChunks(taps.has_value());
  // Every row, without classes: the chunk's share.
  auto everyRow = [&](Value current) {
    SmallVector<ChunkRows> ranges = chunkRows(0, m);
    auto values = [&](int64_t ChunkRows::*member) {
      SmallVector<int64_t> perChunk;
      for (const ChunkRows &range : ranges)
        perChunk.push_back(range.*member);
      return perChunk;
    };
    // An end equal to its start in every chunk is the start's value: its
    // tiles are empty everywhere, and rowLoops emits none.
    auto endOf = [&](Value start, int64_t ChunkRows::*startMember,
                     int64_t ChunkRows::*endMember) {
      return values(startMember) == values(endMember)
                 ? start
                 : chunkValue(values(endMember));
    };
    Value begin = chunkValue(values(&ChunkRows::begin));
    Value wholeEnd = endOf(begin, &ChunkRows::begin, &ChunkRows::wholeEnd);
    Value halfEnd = endOf(wholeEnd, &ChunkRows::wholeEnd, &ChunkRows::halfEnd);
    Value singleStart = chunkValue(values(&ChunkRows::singleStart));
    Value end = endOf(singleStart, &ChunkRows::singleStart, &ChunkRows::end);
    RowSplit split(0, m, tiling.rows);
    const bool pastEnd =
        split.pastEnd(m) || (m - split.singleStart) % tiling.rowsPerDot != 0;
    return rowTiles(current, begin, wholeEnd, halfEnd, singleStart, end,
                    pastEnd ? index(m - 1) : Value(), step, nullptr);
  };
  if (!taps)
    return forEachChunk(output,
                        [&](ValueRange current) -> SmallVector<Value> {
                          return {rowClasses ? emitClassTiles(current[0], step,
                                                              *rowClasses)
                                             : everyRow(current[0])};
                        })
        .front();
  // The partial sums of every row start as its class's, then each tap's
  // rows add its k groups, then every row finishes (main tile chosen by
  // the classes).
  Value partial = tensor::EmptyOp::create(b, loc, ArrayRef<int64_t>{m, paddedN},
                                          accumulatorType.getElementType());
  return forEachChunk({output, partial},
                      [&](ValueRange current) -> SmallVector<Value> {
                        phase = Phase::Start;
                        Value started =
                            emitClassTiles(current[1], step, *rowClasses);
                        phase = Phase::Accumulate;
                        partialSums = emitClassTiles(started, step, *taps);
                        phase = Phase::Finish;
                        Value finished = everyRow(current[0]);
                        phase = Phase::Whole;
                        return {finished, partialSums};
                      })
      .front();
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

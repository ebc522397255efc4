//===- OnnxOpsConv.cpp - Convolutions and pooling -------------------------===//
//
// Translates Conv, ConvTranspose, MaxPool, AveragePool, GlobalMaxPool
// and GlobalAveragePool (1-D and 2-D, NCL and NCHW), and holds the
// window arithmetic the quantized convolutions share.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

#include "quanta/Support/MemoryLimits.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "llvm/Support/MathExtras.h"

#include <limits>

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

/// An NCL tensor as NCHW of height 1 (1-D windows run as 2-D ones).
static Value toImage(Graph &g, Value ncl) {
  ArrayRef<int64_t> shape = tensorType(ncl).getShape();
  return g.reshape(ncl, {shape[0], shape[1], 1, shape[2]});
}

/// The NCHW result of height 1 of a 1-D window as NCL.
static Value fromImage(Graph &g, Value image) {
  ArrayRef<int64_t> shape = tensorType(image).getShape();
  return g.reshape(image, {shape[0], shape[1], shape[3]});
}

FailureOr<Window> onnx_import::readWindow(Graph &g, ArrayRef<int64_t> inputHW,
                                          ArrayRef<int64_t> kernel, bool oneD) {
  // A 1-D window (NCL) is a 2-D one of height 1: its attributes give W.
  auto attr =
      [&](StringRef name,
          SmallVector<int64_t> default2D) -> FailureOr<SmallVector<int64_t>> {
    std::optional<SmallVector<int64_t>> given = g.intsAttr(name);
    if (!given)
      return default2D;
    const size_t expected = default2D.size() / (oneD ? 2 : 1);
    if (given->size() != expected)
      return g.error() << name << " has " << given->size() << " values, "
                       << "expected " << expected << " (the importer takes "
                       << "1-D and 2-D windows)";
    if (!oneD)
      return *given;
    if (name == "pads") // [begin, end] -> [0, begin, 0, end]
      return SmallVector<int64_t>{0, (*given)[0], 0, (*given)[1]};
    return SmallVector<int64_t>{1, (*given)[0]};
  };
  Window w;
  w.kernel.assign(kernel.begin(), kernel.end());
  if (g.attribute("kernel_shape")) {
    auto given = attr("kernel_shape", {1, 1});
    if (failed(given))
      return failure();
    w.kernel.assign(given->begin(), given->end());
  }
  if (w.kernel.size() != 2)
    return g.error() << "the importer takes 1-D and 2-D windows only";
  auto strides = attr("strides", {1, 1});
  auto dilations = attr("dilations", {1, 1});
  auto pads = attr("pads", {0, 0, 0, 0});
  if (failed(strides) || failed(dilations) || failed(pads))
    return failure();
  w.strides.assign(strides->begin(), strides->end());
  w.dilations.assign(dilations->begin(), dilations->end());
  w.padLow = {(*pads)[0], (*pads)[1]};
  w.padHigh = {(*pads)[2], (*pads)[3]};
  // Below 2^31 (as ONNX Runtime's int32 window arithmetic), so that the
  // window arithmetic on int64 cannot overflow.
  constexpr int64_t kWindowLimit = int64_t(1) << 31;
  for (int64_t i = 0; i < 2; ++i) {
    if (w.kernel[i] < 1 || w.strides[i] < 1 || w.dilations[i] < 1 ||
        w.padLow[i] < 0 || w.padHigh[i] < 0)
      return g.error() << "kernel, strides and dilations must be positive "
                       << "and pads non-negative";
    if (llvm::any_of(ArrayRef<int64_t>{w.kernel[i], w.strides[i],
                                       w.dilations[i], w.padLow[i],
                                       w.padHigh[i], inputHW[i]},
                     [&](int64_t v) { return v >= kWindowLimit; }))
      return g.error() << "kernel, strides, dilations, pads and the input's "
                       << "spatial sizes must be below 2^31";
  }
  const std::string autoPad = g.stringAttr("auto_pad", "NOTSET");
  if (autoPad == "VALID") {
    w.padLow = {0, 0};
    w.padHigh = {0, 0};
  } else if (autoPad == "SAME_UPPER" || autoPad == "SAME_LOWER") {
    for (int64_t i = 0; i < 2; ++i) {
      const int64_t out = (inputHW[i] + w.strides[i] - 1) / w.strides[i];
      const int64_t total = std::max<int64_t>(
          0, (out - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1 -
                 inputHW[i]);
      const int64_t small = total / 2;
      w.padLow[i] = autoPad == "SAME_UPPER" ? small : total - small;
      w.padHigh[i] = total - w.padLow[i];
    }
  } else if (autoPad != "NOTSET") {
    return g.error() << "auto_pad '" << autoPad << "' is not one of NOTSET, "
                     << "SAME_UPPER, SAME_LOWER, VALID";
  }
  return w;
}

int64_t onnx_import::windowOutput(const Window &w, int64_t i, int64_t in,
                                  bool ceil) {
  const int64_t span =
      in + w.padLow[i] + w.padHigh[i] - (w.kernel[i] - 1) * w.dilations[i] - 1;
  if (span < 0)
    return 0;
  int64_t out =
      (ceil ? (span + w.strides[i] - 1) / w.strides[i] : span / w.strides[i]) +
      1;
  // A window may not start in the end padding (as PyTorch and ONNX
  // Runtime round ceil_mode).
  if (ceil && (out - 1) * w.strides[i] >= in + w.padLow[i])
    --out;
  return out;
}

Value onnx_import::padForWindow(Graph &g, Value value, const Window &w,
                                ArrayRef<int64_t> out, double padValue) {
  ArrayRef<int64_t> shape = tensorType(value).getShape();
  SmallVector<int64_t> low = {0, 0, w.padLow[0], w.padLow[1]};
  SmallVector<int64_t> high = {0, 0, w.padHigh[0], w.padHigh[1]};
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t needed =
        (out[i] - 1) * w.strides[i] + (w.kernel[i] - 1) * w.dilations[i] + 1;
    high[2 + i] = std::max(high[2 + i], needed - shape[2 + i] - low[2 + i]);
  }
  return g.pad(value, low, high, padValue);
}

/// out[n, c, ...] += bias[c]: the generic bias add quanta-quantize fuses.
static Value addChannelBias(Graph &g, Value value, Value bias) {
  RankedTensorType type = tensorType(value);
  MLIRContext *context = g.b.getContext();
  const int64_t rank = type.getRank();
  SmallVector<AffineMap> maps = {
      g.b.getMultiDimIdentityMap(rank),
      AffineMap::get(rank, 0, getAffineDimExpr(1, context)),
      g.b.getMultiDimIdentityMap(rank)};
  SmallVector<utils::IteratorType> iterators(rank,
                                             utils::IteratorType::parallel);
  return linalg::GenericOp::create(
             g.b, g.loc, type, ValueRange{value, bias}, g.emptyLike(type), maps,
             iterators,
             [](OpBuilder &b, Location loc, ValueRange a) {
               linalg::YieldOp::create(b, loc, addF(b, loc, a[0], a[1]));
             })
      .getResult(0);
}

FailureOr<Value> onnx_import::convolution(Graph &g, Value x, Value weight,
                                          std::optional<Value> bias,
                                          int64_t group) {
  // A 1-D convolution (NCL, weights [M, C/group, K]) runs as 2-D of
  // height 1.
  const bool oneD =
      tensorType(x).getRank() == 3 && tensorType(weight).getRank() == 3;
  if (oneD) {
    x = toImage(g, x);
    weight = toImage(g, weight);
  }
  RankedTensorType xType = tensorType(x), wType = tensorType(weight);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return g.error() << "input " << xType << " and weight " << wType
                     << ": the importer takes 1-D and 2-D convolutions (NCL, "
                     << "NCHW) only";
  const int64_t channels = xType.getDimSize(1), m = wType.getDimSize(0);
  if (group < 1 || channels % group || m % group ||
      wType.getDimSize(1) * group != channels)
    return g.error() << "group " << group << " does not fit input " << xType
                     << " and weight " << wType;
  auto window = readWindow(g, xType.getShape().drop_front(2),
                           wType.getShape().drop_front(2), oneD);
  if (failed(window))
    return failure();
  Window &w = *window;
  SmallVector<int64_t> out = {xType.getDimSize(0), m,
                              windowOutput(w, 0, xType.getDimSize(2), false),
                              windowOutput(w, 1, xType.getDimSize(3), false)};
  if (out[2] <= 0 || out[3] <= 0)
    return g.error() << "the window does not fit the input " << xType;
  Value padded = padForWindow(g, x, w, {out[2], out[3]}, 0.0);
  Value result;
  if (group == 1) {
    result = windowOp<linalg::Conv2DNchwFchwOp>(g, {padded, weight}, out, w);
  } else if (group == channels && m == channels) {
    Value filter = g.reshape(weight, {channels, w.kernel[0], w.kernel[1]});
    result =
        windowOp<linalg::DepthwiseConv2DNchwChwOp>(g, {padded, filter}, out, w);
  } else {
    ArrayRef<int64_t> p = tensorType(padded).getShape();
    Value grouped =
        g.reshape(padded, {p[0], group, channels / group, p[2], p[3]});
    Value filter = g.reshape(
        weight, {group, m / group, channels / group, w.kernel[0], w.kernel[1]});
    Value conv = windowOp<linalg::Conv2DNgchwGfchwOp>(
        g, {grouped, filter}, {out[0], group, m / group, out[2], out[3]}, w);
    result = g.reshape(conv, out);
  }
  if (bias) {
    if (tensorType(*bias).getShape() != ArrayRef<int64_t>{m})
      return g.error() << "the bias " << bias->getType() << " does not have "
                       << m << " values";
    result = addChannelBias(g, result, *bias);
  }
  return oneD ? fromImage(g, result) : result;
}

LogicalResult onnx_import::translateConv(Graph &g) {
  auto x = g.floatInput(0, "the input"), weight = g.floatInput(1, "the weight");
  if (failed(x) || failed(weight))
    return failure();
  std::optional<Value> bias;
  if (g.hasInput(2)) {
    auto value = g.input(2);
    if (failed(value))
      return failure();
    bias = *value;
  }
  auto result = convolution(g, *x, *weight, bias, g.intAttr("group", 1));
  if (failed(result))
    return failure();
  g.setOutput(0, *result);
  return success();
}

/// ConvTranspose as a convolution: the input dilated by the strides (zeros
/// in between), padded by dilation * (k - 1) - pad, convolved with the
/// weight flipped in space and with its two channel dims swapped.
LogicalResult onnx_import::translateConvTranspose(Graph &g) {
  auto x = g.floatInput(0, "the input"), weight = g.floatInput(1, "the weight");
  if (failed(x) || failed(weight))
    return failure();
  // 1-D (NCL) runs as 2-D of height 1.
  const bool oneD =
      tensorType(*x).getRank() == 3 && tensorType(*weight).getRank() == 3;
  Value image = oneD ? toImage(g, *x) : *x;
  Value filterImage = oneD ? toImage(g, *weight) : *weight;
  RankedTensorType xType = tensorType(image), wType = tensorType(filterImage);
  if (xType.getRank() != 4 || wType.getRank() != 4)
    return g.error() << "the importer takes 1-D and 2-D transposed "
                     << "convolutions (NCL, NCHW) only";
  if (g.intAttr("group", 1) != 1)
    return g.error() << "group " << g.intAttr("group", 1)
                     << " is not supported (only 1)";
  if (wType.getDimSize(0) != xType.getDimSize(1))
    return g.error() << "the weight " << wType << " does not fit the input "
                     << xType;
  if (g.attribute("output_shape"))
    return g.error() << "output_shape is not supported; give pads instead";
  const std::string autoPad = g.stringAttr("auto_pad", "NOTSET");
  if (autoPad != "NOTSET" && autoPad != "VALID")
    return g.error() << "auto_pad '" << autoPad
                     << "' is not supported for ConvTranspose";
  auto window = readWindow(g, xType.getShape().drop_front(2),
                           wType.getShape().drop_front(2), oneD);
  if (failed(window))
    return failure();
  Window w = *window;
  SmallVector<int64_t> outputPadding =
      g.intsAttr("output_padding")
          .value_or(SmallVector<int64_t>(oneD ? 1 : 2, 0));
  if (outputPadding.size() != (oneD ? 1u : 2u))
    return g.error() << "output_padding must have " << (oneD ? 1 : 2)
                     << " value(s)";
  if (oneD)
    outputPadding.insert(outputPadding.begin(), 0);
  // Zeros between the input's pixels.
  const int64_t h = xType.getDimSize(2), wd = xType.getDimSize(3);
  SmallVector<int64_t> dilatedShape = {xType.getDimSize(0), xType.getDimSize(1),
                                       (h - 1) * w.strides[0] + 1,
                                       (wd - 1) * w.strides[1] + 1};
  Value dilated = g.filled(withShape(image, dilatedShape), 0.0);
  SmallVector<int64_t> strides = {1, 1, w.strides[0], w.strides[1]};
  MLIRContext *context = g.b.getContext();
  dilated = tensor::InsertSliceOp::create(
      g.b, g.loc, image, dilated,
      getAsIndexOpFoldResult(context, SmallVector<int64_t>{0, 0, 0, 0}),
      getAsIndexOpFoldResult(context, xType.getShape()),
      getAsIndexOpFoldResult(context, strides));
  Window conv;
  conv.kernel = w.kernel;
  conv.strides = {1, 1};
  conv.dilations = w.dilations;
  for (int64_t i = 0; i < 2; ++i) {
    const int64_t reach = w.dilations[i] * (w.kernel[i] - 1);
    if (w.padLow[i] > reach || w.padHigh[i] > reach + outputPadding[i])
      return g.error() << "pads larger than dilation * (kernel - 1) are not "
                       << "supported";
    conv.padLow.push_back(reach - w.padLow[i]);
    conv.padHigh.push_back(reach - w.padHigh[i] + outputPadding[i]);
  }
  // weight [C, M, KH, KW] -> [M, C, KH, KW], flipped in KH and KW.
  SmallVector<int64_t> filterShape = {wType.getDimSize(1), wType.getDimSize(0),
                                      w.kernel[0], w.kernel[1]};
  AffineExpr d0 = getAffineDimExpr(0, context),
             d1 = getAffineDimExpr(1, context),
             d2 = getAffineDimExpr(2, context),
             d3 = getAffineDimExpr(3, context);
  SmallVector<AffineMap> maps = {
      AffineMap::get(4, 0, {d1, d0, w.kernel[0] - 1 - d2, w.kernel[1] - 1 - d3},
                     context),
      g.b.getMultiDimIdentityMap(4)};
  auto filterType = withShape(filterImage, filterShape);
  Value filter =
      linalg::GenericOp::create(
          g.b, g.loc, filterType, filterImage, g.emptyLike(filterType), maps,
          SmallVector<utils::IteratorType>(4, utils::IteratorType::parallel),
          [](OpBuilder &b, Location loc, ValueRange a) {
            linalg::YieldOp::create(b, loc, a[0]);
          })
          .getResult(0);
  SmallVector<int64_t> out = {dilatedShape[0], filterShape[0],
                              windowOutput(conv, 0, dilatedShape[2], false),
                              windowOutput(conv, 1, dilatedShape[3], false)};
  Value padded = padForWindow(g, dilated, conv, {out[2], out[3]}, 0.0);
  Value result =
      windowOp<linalg::Conv2DNchwFchwOp>(g, {padded, filter}, out, conv);
  if (g.hasInput(2)) {
    auto bias = g.input(2);
    if (failed(bias))
      return failure();
    result = addChannelBias(g, result, *bias);
  }
  g.setOutput(0, oneD ? fromImage(g, result) : result);
  return success();
}

LogicalResult onnx_import::translatePool(Graph &g) {
  auto x = g.floatInput(0, "the input");
  if (failed(x))
    return failure();
  RankedTensorType type = tensorType(*x);
  // 1-D pooling (NCL) runs as 2-D of height 1.
  const bool oneD = type.getRank() == 3;
  if (type.getRank() != 4 && !oneD)
    return g.error() << "the input " << type
                     << ": the importer takes 1-D and 2-D pooling (NCL, "
                     << "NCHW) only";
  Value image = oneD ? toImage(g, *x) : *x;
  RankedTensorType imageType = tensorType(image);
  auto finish = [&](Value result) {
    g.setOutput(0, oneD ? fromImage(g, result) : result);
    return success();
  };
  const std::string &op = g.node->op_type();
  const bool global = StringRef(op).starts_with("Global");
  const bool isMax = StringRef(op).ends_with("MaxPool");
  if (g.node->output_size() > 1 && !g.node->output(1).empty())
    return g.error() << "the Indices output is not supported";
  if (g.intAttr("storage_order", 0) != 0)
    return g.error() << "storage_order = 1 is not supported";
  ArrayRef<int64_t> hw = imageType.getShape().drop_front(2);
  Window w;
  if (global) {
    w = Window{{hw[0], hw[1]}, {1, 1}, {1, 1}, {0, 0}, {0, 0}};
  } else {
    if (!g.attribute("kernel_shape"))
      return g.error() << "kernel_shape is required";
    auto window = readWindow(g, hw, {}, oneD);
    if (failed(window))
      return failure();
    w = *window;
  }
  const bool ceil = g.intAttr("ceil_mode", 0) != 0;
  SmallVector<int64_t> out = {imageType.getDimSize(0), imageType.getDimSize(1),
                              windowOutput(w, 0, hw[0], ceil),
                              windowOutput(w, 1, hw[1], ceil)};
  if (out[2] <= 0 || out[3] <= 0)
    return g.error() << "the window does not fit the input " << type;
  const double padValue =
      isMax ? -std::numeric_limits<double>::infinity() : 0.0;
  Value padded = padForWindow(g, image, w, {out[2], out[3]}, padValue);
  SmallVector<int64_t> kernelShape = {w.kernel[0], w.kernel[1]};
  Value kernel =
      tensor::EmptyOp::create(g.b, g.loc, kernelShape, type.getElementType());
  auto outType = withShape(image, out);
  Value init = g.filled(outType, padValue);
  auto attrs = [&] {
    return std::make_pair(g.b.getI64TensorAttr(w.strides),
                          g.b.getI64TensorAttr(w.dilations));
  };
  if (isMax) {
    auto [strides, dilations] = attrs();
    return finish(
        linalg::PoolingNchwMaxOp::create(g.b, g.loc, TypeRange{outType},
                                         ValueRange{padded, kernel},
                                         ValueRange{init}, strides, dilations)
            .getResult(0));
  }
  auto [strides, dilations] = attrs();
  Value sum = linalg::PoolingNchwSumOp::create(
                  g.b, g.loc, TypeRange{outType}, ValueRange{padded, kernel},
                  ValueRange{init}, strides, dilations)
                  .getResult(0);
  // The divisor of each output: the taps inside the input, or inside the
  // padded input with count_include_pad (never the ceil_mode extension).
  const bool includePad = g.intAttr("count_include_pad", 0) != 0;
  if (failed(quanta::checkAllocatable(g.loc, out[2], out[3] * sizeof(float),
                                      g.node->op_type() + " node '" +
                                          g.nodeName +
                                          "': the table of its divisors")))
    return failure();
  SmallVector<SmallVector<int64_t>> counts(2);
  for (int64_t i = 0; i < 2; ++i) {
    // Taps t in [0, kernel) whose position start + t * dilation lies in
    // [low, high), counted without visiting them (windows may be huge).
    const int64_t low = includePad ? -w.padLow[i] : 0,
                  high = includePad ? hw[i] + w.padHigh[i] : hw[i];
    for (int64_t o = 0; o < out[2 + i]; ++o) {
      const int64_t start = o * w.strides[i] - w.padLow[i];
      const int64_t first =
          start >= low ? 0 : llvm::divideCeil(low - start, w.dilations[i]);
      const int64_t last = std::min(
          w.kernel[i] - 1,
          high - 1 < start ? int64_t(-1) : (high - 1 - start) / w.dilations[i]);
      counts[i].push_back(std::max<int64_t>(0, last - first + 1));
    }
  }
  SmallVector<float> divisors;
  for (int64_t a : counts[0])
    for (int64_t c : counts[1])
      divisors.push_back(float(a * c));
  if (llvm::all_equal(divisors)) {
    const float divisor = divisors.front();
    return finish(g.elementwise(
        {sum}, outType, [&](OpBuilder &b, Location loc, ValueRange a) {
          return arith::DivFOp::create(b, loc, a[0],
                                       floatConst(b, loc, divisor));
        }));
  }
  auto divisorType = RankedTensorType::get({out[2], out[3]}, g.b.getF32Type());
  Value divisorTensor = g.constant(
      DenseElementsAttr::get(divisorType, ArrayRef<float>(divisors)));
  return finish(g.elementwise({sum, divisorTensor}, outType,
                              [](OpBuilder &b, Location loc, ValueRange a) {
                                return arith::DivFOp::create(b, loc, a[0],
                                                             a[1]);
                              }));
}

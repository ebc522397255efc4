//===- QuantaOps.cpp - quanta.observe and quanta.fake_quant ---------------===//

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "quanta/Numerics/Requantize.h"

#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "llvm/ADT/TypeSwitch.h"

#include <cmath>
#include <limits>

using namespace mlir;
using namespace mlir::quanta;

/// Checks a PyTorch-style channel axis (negative counts from the back, as in
/// Tensor.permute) against the rank and returns it normalized.
static FailureOr<int64_t> normalizeChannelAxis(Operation *op, int64_t axis,
                                               RankedTensorType type) {
  int64_t rank = type.getRank();
  if (rank == 0)
    return op->emitOpError("per-channel observation needs a tensor of rank "
                           ">= 1, got ")
           << type;
  if (axis < -rank || axis >= rank)
    return op->emitOpError("channel axis ")
           << axis << " is out of range for a tensor of rank " << rank
           << " (expected " << -rank << " <= ch_axis < " << rank << ")";
  return axis < 0 ? axis + rank : axis;
}

/// Checks that a per-channel value list matches the channel dimension.
static LogicalResult verifyChannelCount(Operation *op, StringRef what,
                                        size_t count, RankedTensorType type,
                                        std::optional<int64_t> axis) {
  if (!axis) {
    if (count != 1)
      return op->emitOpError() << what << " must hold one value for per-tensor "
                               << "quantization, got " << count;
    return success();
  }
  int64_t channels = type.getDimSize(*axis);
  if (!ShapedType::isDynamic(channels) &&
      static_cast<int64_t>(count) != channels)
    return op->emitOpError()
           << what << " must hold one value per channel (" << channels
           << " along axis " << *axis << "), got " << count;
  return success();
}

/// Checks the `stats` (if any) of an observer on a tensor of `type`, per
/// channel along `axis` or per tensor: quanta.observe's and those of a
/// quanta.fake_quant's module.
static LogicalResult verifyStatistics(Operation *op,
                                      ObserverAttrInterface observer,
                                      Attribute stats, RankedTensorType type,
                                      std::optional<int64_t> axis) {
  if (!stats)
    return success();
  if (!observer.collectsStatistics() || isa<RecordingObserverAttr>(observer))
    return op->emitOpError() << observer.getPyTorchClassName()
                             << " does not hold statistics, but 'stats' is set";
  if (auto histogram = dyn_cast<HistogramObserverAttr>(observer)) {
    auto histogramStats = dyn_cast<HistogramStatsAttr>(stats);
    if (!histogramStats)
      return op->emitOpError("HistogramObserver statistics must be a "
                             "#quanta.histogram_stats, got ")
             << stats;
    if (static_cast<int64_t>(histogramStats.getHistogram().size()) !=
        histogram.getBins())
      return op->emitOpError("histogram has ")
             << histogramStats.getHistogram().size()
             << " bins but the observer has bins = " << histogram.getBins();
    return success();
  }
  auto minMax = dyn_cast<MinMaxStatsAttr>(stats);
  if (!minMax)
    return op->emitOpError()
           << observer.getPyTorchClassName()
           << " statistics must be a #quanta.min_max_stats, got " << stats;
  // Per-channel observers start with no channel (PyTorch's empty buffers).
  if (axis && minMax.getMin().empty())
    return success();
  return verifyChannelCount(op, "min_max_stats", minMax.getMin().size(), type,
                            axis);
}

//===----------------------------------------------------------------------===//
// ObserveOp
//===----------------------------------------------------------------------===//

LogicalResult ObserveOp::verify() {
  ObserverAttrInterface observer = getObserver();
  auto type = cast<RankedTensorType>(getInput().getType());
  std::optional<int64_t> axis;
  if (observer.isPerChannel()) {
    FailureOr<int64_t> normalized =
        normalizeChannelAxis(*this, observer.getChannelAxis(), type);
    if (failed(normalized))
      return failure();
    axis = *normalized;
    // PyTorch's per-channel observers flatten the dimensions after the
    // channel axis (flatten(start_dim=1)), which raises for rank 1.
    if (!isa<OneFlowMinMaxObserverAttr>(observer) && type.getRank() < 2)
      return emitOpError() << observer.getPyTorchClassName()
                           << " needs a tensor of rank >= 2 (PyTorch "
                              "flattens the dimensions after the channel "
                              "axis and raises IndexError), got "
                           << type;
  }

  return verifyStatistics(*this, observer, getStatsAttr(), type, axis);
}

//===----------------------------------------------------------------------===//
// FakeQuantOp
//===----------------------------------------------------------------------===//

LogicalResult FakeQuantOp::verify() {
  auto type = cast<RankedTensorType>(getInput().getType());
  FakeQuantizeAttr module = getFakeQuantizeAttr();

  if (getObserverEnabledAttr() && !module)
    return emitOpError("'observer_enabled' needs a 'fake_quantize' module "
                       "whose observer it enables");
  if (getStatsAttr() && !module)
    return emitOpError("'stats' belong to the observer of a 'fake_quantize' "
                       "module, but there is none");
  if (module && (getQuantMinAttr() || getQuantMaxAttr()))
    return emitOpError("quant_min/quant_max come from the 'fake_quantize' "
                       "module; do not set them on the op as well");

  if (getZeroPointAttr() && getFloatZeroPointAttr())
    return emitOpError("set either 'zero_point' or 'float_zero_point', not "
                       "both");
  bool hasZeroPoint = getZeroPointAttr() || getFloatZeroPointAttr();
  if (hasZeroPoint != static_cast<bool>(getScaleAttr()))
    return emitOpError("'scale' and a zero point go together");
  if (!module && !getScaleAttr())
    return emitOpError("needs known qparams ('scale' and 'zero_point') or a "
                       "'fake_quantize' module to compute them");

  std::optional<int64_t> axis;
  if (std::optional<int64_t> rawAxis = getAxis()) {
    FailureOr<int64_t> normalized = normalizeChannelAxis(*this, *rawAxis, type);
    if (failed(normalized))
      return failure();
    axis = *normalized;
  } else if (module && module.getObserver() &&
             module.getObserver().isPerChannel()) {
    return emitOpError("the module's observer is per-channel: set 'axis'");
  }
  if (getFloatZeroPointAttr() && !axis)
    return emitOpError("'float_zero_point' (per_channel_affine_float_qparams) "
                       "is per-channel: set 'axis'");
  if (module && failed(verifyStatistics(*this, module.getObserverOrDefault(),
                                        getStatsAttr(), type, axis)))
    return failure();
  if (auto fixed = dyn_cast_or_null<FixedQParamsObserverAttr>(
          module ? module.getObserver() : nullptr)) {
    // FixedQParamsFakeQuantize copies them from its observer when built.
    float fixedScale = fixed.getScale().convertToFloat();
    if (!getScaleAttr() || !getZeroPointAttr() ||
        getScaleAttr().asArrayRef() != ArrayRef<float>(fixedScale) ||
        getZeroPointAttr().asArrayRef() !=
            ArrayRef<int64_t>(fixed.getZeroPoint()))
      return emitOpError("a FixedQParamsFakeQuantize module fake-quantizes "
                         "with its observer's qparams: set 'scale' and "
                         "'zero_point' to those of ")
             << fixed;
  }

  if (!getScaleAttr())
    return success();
  ArrayRef<float> scale = getScaleAttr().asArrayRef();
  size_t zeroPointCount = getZeroPointAttr() ? getZeroPointAttr().size()
                                             : getFloatZeroPointAttr().size();
  if (zeroPointCount != scale.size())
    return emitOpError("scale and zero point must have the same length (")
           << scale.size() << " vs " << zeroPointCount << ")";
  if (failed(verifyChannelCount(*this, "scale", scale.size(), type, axis)))
    return failure();
  for (float value : scale)
    if (numerics::Status status = numerics::validateScale(value); !status)
      return emitOpError(status.getMessage());
  if (module)
    return success();

  if (!getQuantMinAttr() || !getQuantMaxAttr())
    return emitOpError("known qparams need 'quant_min' and 'quant_max'");
  int64_t quantMin = *getQuantMin(), quantMax = *getQuantMax();
  // The checks of ATen's fake_quantize_per_{tensor,channel}_affine.
  if (quantMin > quantMax)
    return emitOpError("`quant_min` should be less than or equal to "
                       "`quant_max`, got ")
           << quantMin << " > " << quantMax;
  if (DenseI64ArrayAttr zeroPoint = getZeroPointAttr())
    for (int64_t value : zeroPoint.asArrayRef())
      if (value < quantMin || value > quantMax)
        return emitOpError("`zero_point` must be between `quant_min` and "
                           "`quant_max`, got ")
               << value << " outside [" << quantMin << ", " << quantMax << "]";
  return success();
}

/// The multiplier and shift of a requantization (one of quanta.qmatmul's
/// columns or quanta.qbatch_matmul's) as the kernels accept them.
static LogicalResult verifyRequantization(Operation *op, int32_t multiplier,
                                          int32_t shift) {
  if (multiplier != 0 && multiplier < (1 << 30))
    return op->emitOpError("multiplier ")
           << multiplier << " is not a normalized Q31 value (0 or in "
           << "[2^30, 2^31))";
  if (shift < numerics::QuantizedMultiplier::kMinShift ||
      shift > numerics::QuantizedMultiplier::kMaxShift)
    return op->emitOpError("shift ")
           << shift << " is outside ["
           << numerics::QuantizedMultiplier::kMinShift << ", "
           << numerics::QuantizedMultiplier::kMaxShift << "]";
  return success();
}

/// [output_min, output_max] (I32Attr accessors return uint32_t) inside the
/// output's storage range.
static LogicalResult verifyOutputRange(Operation *op,
                                       quant::UniformQuantizedType output,
                                       uint32_t min, uint32_t max) {
  const auto outputMin = static_cast<int32_t>(min);
  const auto outputMax = static_cast<int32_t>(max);
  const int64_t storageMin = output.getStorageTypeMin();
  const int64_t storageMax = output.getStorageTypeMax();
  if (outputMin > outputMax || outputMin < storageMin || outputMax > storageMax)
    return op->emitOpError("output range [")
           << outputMin << ", " << outputMax
           << "] is empty or outside the output storage range [" << storageMin
           << ", " << storageMax << "]";
  return success();
}

//===----------------------------------------------------------------------===//
// QMatmulOp
//===----------------------------------------------------------------------===//

/// The 8-bit per-tensor quantized element type of a static tensor of
/// `rank` (2: a matrix, 4: an NHWC image).
static FailureOr<quant::UniformQuantizedType>
getQuantized8Bit(Operation *op, StringRef what, Type type, int64_t rank = 2) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  auto element =
      tensor ? dyn_cast<quant::UniformQuantizedType>(tensor.getElementType())
             : quant::UniformQuantizedType();
  if (!element || tensor.getRank() != rank || !tensor.hasStaticShape() ||
      element.getStorageTypeIntegralWidth() != 8)
    return op->emitOpError()
           << what << " must be a static " << rank << "-D tensor of "
           << "per-tensor !quant.uniform with 8-bit storage, got " << type;
  return element;
}

/// A `window` attribute's values as a window (6 of them), if any.
static std::optional<QMatmulOp::Window>
toWindow(std::optional<ArrayRef<int64_t>> window) {
  if (!window || window->size() != 6)
    return std::nullopt;
  ArrayRef<int64_t> w = *window;
  return QMatmulOp::Window{w[0], w[1], w[2], w[3], w[4], w[5]};
}

std::optional<QMatmulOp::Window> QMatmulOp::getConvWindow() {
  return toWindow(getWindow());
}

/// The M x K shape of the im2col matrix of the NHWC image `shape` through
/// `values` (a window attribute; one channel per column when depthwise).
static FailureOr<std::pair<int64_t, int64_t>>
getIm2colShape(Operation *op, ArrayRef<int64_t> values, ArrayRef<int64_t> shape,
               bool depthwise) {
  if (values.size() != 6 ||
      llvm::any_of(values, [](int64_t v) { return v <= 0; }))
    return op->emitOpError("window must hold 6 positive values [KH, KW, SH, "
                           "SW, DH, DW], got [")
           << values << "]";
  QMatmulOp::Window w = *toWindow(values);
  if (shape[1] < w.dilationH * (w.kernelH - 1) + 1 ||
      shape[2] < w.dilationW * (w.kernelW - 1) + 1)
    return op->emitOpError("window [")
           << values << "] does not fit the " << shape[1] << "x" << shape[2]
           << " input";
  const int64_t outH = QMatmulOp::Window::outputSize(shape[1], w.kernelH,
                                                     w.strideH, w.dilationH),
                outW = QMatmulOp::Window::outputSize(shape[2], w.kernelW,
                                                     w.strideW, w.dilationW);
  return std::make_pair(shape[0] * outH * outW,
                        w.kernelH * w.kernelW * (depthwise ? 1 : shape[3]));
}

/// The M x K shape of `op`'s input as a matrix: the input itself, or the
/// im2col matrix of its window (one channel per column when depthwise).
static FailureOr<std::pair<int64_t, int64_t>>
getInputMatrixShape(QMatmulOp op) {
  if (op.getDepthwise() && !op.getWindow())
    return op.emitOpError("depthwise needs a window");
  if (!op.getWindow()) {
    if (failed(getQuantized8Bit(op, "input", op.getInput().getType())))
      return failure();
    ArrayRef<int64_t> shape = op.getInput().getType().getShape();
    return std::make_pair(shape[0], shape[1]);
  }
  if (failed(getQuantized8Bit(op, "input with a window",
                              op.getInput().getType(), 4)))
    return failure();
  return getIm2colShape(op, *op.getWindow(), op.getInput().getType().getShape(),
                        op.getDepthwise());
}

LogicalResult QMatmulOp::verify() {
  FailureOr<std::pair<int64_t, int64_t>> inputShape =
      getInputMatrixShape(*this);
  if (failed(inputShape))
    return failure();
  FailureOr<quant::UniformQuantizedType> output =
      getQuantized8Bit(*this, "output", getOutput().getType());
  if (failed(output))
    return failure();
  ArrayRef<int64_t> outputShape = getOutput().getType().getShape();
  auto weightsType = cast<ShapedType>(getWeights().getType());
  if (weightsType.getRank() != 2 || !weightsType.getElementType().isInteger(8))
    return emitOpError("weights must be a K x N tensor of i8, got ")
           << weightsType;
  const int64_t k = weightsType.getDimSize(0), n = weightsType.getDimSize(1);
  auto [inputRows, inputColumns] = *inputShape;
  if (inputColumns != k || outputShape[1] != n || inputRows != outputShape[0])
    return emitOpError("shapes do not compose: input ")
           << (getWindow() ? "im2col " : "") << inputRows << "x" << inputColumns
           << ", weights " << k << "x" << n << ", output " << outputShape[0]
           << "x" << outputShape[1];
  if (getDepthwise() && getInput().getType().getDimSize(3) != n)
    return emitOpError("a depthwise convolution's ")
           << n << " output channels must be its input's "
           << getInput().getType().getDimSize(3);
  const auto perChannel = [&](StringRef name, size_t size) -> LogicalResult {
    if (static_cast<int64_t>(size) != n)
      return emitOpError() << name << " must hold one value per output "
                           << "channel (" << n << "), got " << size;
    return success();
  };
  size_t weightZeroPoints = getWeightZeroPoints().size();
  if (weightZeroPoints != 1 &&
      failed(perChannel("weight_zero_points", weightZeroPoints)))
    return failure();
  if (failed(perChannel("column_offsets", getColumnOffsets().size())) ||
      failed(perChannel("multipliers", getMultipliers().size())) ||
      failed(perChannel("shifts", getShifts().size())))
    return failure();
  for (int32_t zeroPoint : getWeightZeroPoints())
    if (zeroPoint < -128 || zeroPoint > 127)
      return emitOpError("weight zero point ")
             << zeroPoint << " is outside the s8 range";
  for (auto [multiplier, shift] :
       llvm::zip_equal(getMultipliers(), getShifts()))
    if (failed(verifyRequantization(*this, multiplier, shift)))
      return failure();
  return verifyOutputRange(*this, *output, getOutputMin(), getOutputMax());
}

//===----------------------------------------------------------------------===//
// QBatchMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult QBatchMatmulOp::verify() {
  if (failed(getQuantized8Bit(*this, "lhs", getLhs().getType(), 3)) ||
      failed(getQuantized8Bit(*this, "rhs", getRhs().getType(), 3)))
    return failure();
  FailureOr<quant::UniformQuantizedType> output =
      getQuantized8Bit(*this, "output", getOutput().getType(), 3);
  if (failed(output))
    return failure();
  ArrayRef<int64_t> lhs = getLhs().getType().getShape(),
                    rhs = getRhs().getType().getShape(),
                    out = getOutput().getType().getShape();
  if (lhs[0] != rhs[0] || lhs[0] != out[0] || lhs[2] != rhs[1] ||
      out[1] != lhs[1] || out[2] != rhs[2])
    return emitOpError("shapes do not compose: lhs ")
           << lhs[0] << "x" << lhs[1] << "x" << lhs[2] << ", rhs " << rhs[0]
           << "x" << rhs[1] << "x" << rhs[2] << ", output " << out[0] << "x"
           << out[1] << "x" << out[2];
  if (failed(verifyRequantization(*this, static_cast<int32_t>(getMultiplier()),
                                  static_cast<int32_t>(getShift()))))
    return failure();
  return verifyOutputRange(*this, *output, getOutputMin(), getOutputMax());
}

//===----------------------------------------------------------------------===//
// Linear layers with float activations (DynamicQMatmulOp, WeightOnlyMatmulOp)
//===----------------------------------------------------------------------===//

/// Their f32 input and output are static matrices.
static LogicalResult verifyFloatMatrices(Operation *op, RankedTensorType input,
                                         RankedTensorType output) {
  for (auto [what, type] :
       {std::pair<StringRef, RankedTensorType>{"input", input},
        {"output", output}})
    if (type.getRank() != 2 || !type.hasStaticShape())
      return op->emitOpError()
             << what << " must be a static 2-D tensor of f32, got " << type;
  return success();
}

/// An M x K input times K x N weights gives the M x N output.
static LogicalResult verifyComposes(Operation *op, RankedTensorType input,
                                    RankedTensorType output, int64_t k,
                                    int64_t n) {
  if (input.getDimSize(1) == k && output.getDimSize(1) == n &&
      input.getDimSize(0) == output.getDimSize(0))
    return success();
  return op->emitOpError("shapes do not compose: input ")
         << input.getDimSize(0) << "x" << input.getDimSize(1) << ", weights "
         << k << "x" << n << ", output " << output.getDimSize(0) << "x"
         << output.getDimSize(1);
}

//===----------------------------------------------------------------------===//
// DynamicQMatmulOp
//===----------------------------------------------------------------------===//

std::optional<ConvWindow> DynamicQMatmulOp::getConvWindow() {
  return toWindow(getWindow());
}

LogicalResult DynamicQMatmulOp::verify() {
  RankedTensorType input = getInput().getType(), output = getOutput().getType();
  auto weightsType = cast<ShapedType>(getWeights().getType());
  if (weightsType.getRank() != 2 || !weightsType.getElementType().isInteger(8))
    return emitOpError("weights must be a K x N tensor of i8, got ")
           << weightsType;
  const int64_t k = weightsType.getDimSize(0), n = weightsType.getDimSize(1);
  if (std::optional<ArrayRef<int64_t>> window = getWindow()) {
    if (input.getRank() != 4 || !input.hasStaticShape())
      return emitOpError("input with a window must be a static NHWC image "
                         "of f32, got ")
             << input;
    if (output.getRank() != 2 || !output.hasStaticShape())
      return emitOpError("output must be a static 2-D tensor of f32, got ")
             << output;
    FailureOr<std::pair<int64_t, int64_t>> im2col =
        getIm2colShape(*this, *window, input.getShape(), false);
    if (failed(im2col))
      return failure();
    auto [rows, columns] = *im2col;
    if (columns != k || output.getDimSize(1) != n ||
        output.getDimSize(0) != rows)
      return emitOpError("shapes do not compose: input im2col ")
             << rows << "x" << columns << ", weights " << k << "x" << n
             << ", output " << output.getDimSize(0) << "x"
             << output.getDimSize(1);
  } else if (failed(verifyFloatMatrices(*this, input, output)) ||
             failed(verifyComposes(*this, input, output, k, n))) {
    return failure();
  }
  if (std::optional<ArrayRef<int32_t>> zeroPoints = getWeightZeroPoints()) {
    if (zeroPoints->size() != 1 &&
        static_cast<int64_t>(zeroPoints->size()) != n)
      return emitOpError("weight_zero_points must hold 1 or ")
             << n << " values (per tensor or per output column), got "
             << zeroPoints->size();
    for (int32_t zeroPoint : *zeroPoints)
      if (zeroPoint < -128 || zeroPoint > 127)
        return emitOpError("weight zero point ")
               << zeroPoint << " is outside the s8 range";
  }
  ArrayRef<float> scales = getWeightScales();
  if (scales.size() != 1 && static_cast<int64_t>(scales.size()) != n)
    return emitOpError("weight_scales must hold 1 or ")
           << n << " values (per tensor or per output column), got "
           << scales.size();
  // The symmetric weight observers clamp their scale to eps: a smaller
  // one, or a non-finite one, cannot come from quantize_dynamic. ONNX
  // models carry their own scales: positive normal floats.
  const bool onnx = getEngine() == DynamicEngine::onnx;
  const float floor = onnx ? std::numeric_limits<float>::min()
                           : std::numeric_limits<float>::epsilon();
  for (float scale : scales)
    if (!std::isfinite(scale) || !(scale >= floor))
      return emitOpError("weight scales must be finite and at least ")
             << (onnx ? "FLT_MIN (positive normal floats)"
                      : "float eps (the observers' floor)")
             << ", got " << scale;
  if (std::optional<ArrayRef<float>> bias = getBias()) {
    if (static_cast<int64_t>(bias->size()) != n)
      return emitOpError("bias must hold ")
             << n << " values (one per output column), got " << bias->size();
  }
  return success();
}

//===----------------------------------------------------------------------===//
// WeightOnlyMatmulOp
//===----------------------------------------------------------------------===//

LogicalResult WeightOnlyMatmulOp::verify() {
  RankedTensorType input = getInput().getType(), output = getOutput().getType();
  if (failed(verifyFloatMatrices(*this, input, output)))
    return failure();
  auto weightsType = cast<ShapedType>(getWeights().getType());
  Type element = weightsType.getElementType();
  // 16-bit floats are widened exactly; integers are scaled.
  const bool narrowFloat = element.isF16() || element.isBF16();
  if (weightsType.getRank() != 2 ||
      !(narrowFloat || element.isInteger(8) || element.isInteger(4)))
    return emitOpError(
               "weights must be a K x N tensor of f16, bf16, i8 or i4, got ")
           << weightsType;
  const int64_t k = weightsType.getDimSize(0), n = weightsType.getDimSize(1);
  if (failed(verifyComposes(*this, input, output, k, n)))
    return failure();
  std::optional<ArrayRef<float>> scales = getScales();
  std::optional<int64_t> group = getGroupSize();
  if (narrowFloat && scales)
    return emitOpError() << element << " weights take no scales";
  if (getBf16Activations() && !element.isBF16())
    return emitOpError("bf16_activations needs bf16 weights, got ") << element;
  if (group && !element.isInteger(4))
    return emitOpError("only i4 weights take a group_size");
  if (getInt8Activations() &&
      (!element.isInteger(4) || !group || *group % 8 != 0 || *group > 16384))
    return emitOpError("int8_activations needs i4 weights with a group_size "
                       "that is a multiple of 8 and at most 16384, got ")
           << element << " weights, group_size "
           << (group ? std::to_string(*group) : "none");
  if (element.isInteger(4) && group && (*group <= 0 || *group % 2 != 0))
    return emitOpError("i4 weights need a positive, even group_size (two "
                       "4-bit values per byte), got ")
           << *group;
  if (element.isInteger(4) && (!group || (k != 0 && k % *group != 0)))
    return emitOpError("i4 weights need a group_size dividing K = ")
           << k << ", got " << (group ? std::to_string(*group) : "none");
  if (!narrowFloat) {
    const int64_t expected = element.isInteger(4) ? k / *group * n : n;
    if (!scales || static_cast<int64_t>(scales->size()) != expected)
      return emitOpError()
             << (element.isInteger(4)
                     ? "i4 weights need (K / group_size) x N scales ("
                     : "i8 weights need one scale per output column (")
             << expected << "), got " << (scales ? scales->size() : 0);
    for (float scale : *scales)
      if (!std::isfinite(scale) || !(scale > 0.0f))
        return emitOpError("scales must be finite and positive, got ") << scale;
  }
  if (getF16Scales()) {
    if (!element.isInteger(4))
      return emitOpError("only i4 weights take f16_scales, got ") << element;
    for (float scale : *scales) {
      APFloat half(scale);
      bool lost = false;
      half.convert(APFloat::IEEEhalf(), APFloat::rmNearestTiesToEven, &lost);
      if (lost)
        return emitOpError("f16_scales needs every scale to be an f16 "
                           "value, got ")
               << scale;
    }
  }
  if (std::optional<ArrayRef<int8_t>> zeroPoints = getZeroPoints()) {
    if (!element.isInteger(4))
      return emitOpError("only i4 weights take zero_points, got ") << element;
    if (zeroPoints->size() != scales->size())
      return emitOpError("zero_points must hold one value per scale (")
             << scales->size() << "), got " << zeroPoints->size();
    for (int8_t zeroPoint : *zeroPoints)
      if (zeroPoint < -8 || zeroPoint > 7)
        return emitOpError("zero_points must be in the i4 weights' -8..7, got ")
               << static_cast<int>(zeroPoint);
  }
  if (std::optional<ArrayRef<float>> bias = getBias())
    if (static_cast<int64_t>(bias->size()) != n)
      return emitOpError("bias must hold ")
             << n << " values (one per output column), got " << bias->size();
  return success();
}

LogicalResult IntrinsicOp::verify() {
  if (!getName().starts_with("llvm."))
    return emitOpError("names an LLVM intrinsic (llvm.*), got '")
           << getName() << "'";
  return success();
}

#define GET_OP_CLASSES
#include "quanta/Dialect/Quanta/IR/QuantaOps.cpp.inc"

//===- OnnxOps.h - The node translations, shared by their files -*- C++ -*-===//
//
// The translation of each op family (OnnxOpsElementwise.cpp,
// OnnxOpsNormalization.cpp, OnnxOpsConv.cpp, OnnxOpsMatMul.cpp,
// OnnxOpsShape.cpp, OnnxOpsIndexing.cpp, OnnxOpsRecurrent.cpp,
// OnnxOpsQuant.cpp), which
// OnnxOps.cpp's table maps op
// types to, and the helpers more than one family uses.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_IMPORT_ONNXOPS_H
#define QUANTA_LIB_IMPORT_ONNXOPS_H

#include "OnnxGraph.h"

#include <functional>

namespace mlir::quanta::onnx_import {

//===----------------------------------------------------------------------===//
// Helpers more than one family uses
//===----------------------------------------------------------------------===//

inline RankedTensorType tensorType(Value value) {
  return cast<RankedTensorType>(value.getType());
}

inline RankedTensorType withShape(Value value, ArrayRef<int64_t> shape) {
  return RankedTensorType::get(shape, tensorType(value).getElementType());
}

/// A scalar function built into a body (activations).
using ScalarFunction = std::function<Value(OpBuilder &, Location, Value)>;

// Defined in OnnxOps.cpp.

/// An axis attribute or input normalized to [0, rank).
FailureOr<int64_t> normalizeAxis(Graph &g, int64_t axis, int64_t rank);

Value floatConst(OpBuilder &b, Location loc, double value);

Value addF(OpBuilder &b, Location loc, Value x, Value y);
Value maxF(OpBuilder &b, Location loc, Value x, Value y);

// Defined in OnnxOpsElementwise.cpp, used by the recurrent ops too.

/// The activation ONNX's op `name` computes (Relu, Sigmoid, Tanh,
/// LeakyRelu, HardSigmoid, Affine, ScaledTanh, ThresholdedRelu, Elu,
/// Softsign, Softplus), `alpha` and `beta` unset meaning the op's defaults;
/// null for another name.
ScalarFunction getActivation(StringRef name, std::optional<float> alpha,
                             std::optional<float> beta);
/// Whether the activation reads alpha (beta): how RNN, GRU and LSTM's
/// activation_alpha/beta lists are consumed, as ONNX Runtime does.
bool activationTakesAlpha(StringRef name);
bool activationTakesBeta(StringRef name);

// Defined in OnnxOpsConv.cpp, used by QLinearConv and ConvInteger too.

/// The window geometry of Conv, ConvTranspose and the pools along H and W.
struct Window {
  SmallVector<int64_t, 2> kernel, strides, dilations, padLow, padHigh;
};

/// Reads kernel_shape (or `kernel`), strides, dilations, pads and auto_pad
/// for the 2-D spatial input `inputHW`.
FailureOr<Window> readWindow(Graph &g, ArrayRef<int64_t> inputHW,
                             ArrayRef<int64_t> kernel, bool oneD);

/// Output size along one spatial dim (floor, or ceil for ceil_mode pools).
int64_t windowOutput(const Window &w, int64_t i, int64_t in, bool ceil);

/// `value` padded for the window, with extra end padding so that `out`
/// windows fit (ceil_mode).
Value padForWindow(Graph &g, Value value, const Window &w,
                   ArrayRef<int64_t> out, double padValue);

/// `core` into a zero fill, of result shape `shape`.
template <typename OpTy>
Value windowOp(Graph &g, ValueRange inputs, ArrayRef<int64_t> shape,
               const Window &w) {
  auto type = withShape(inputs[0], shape);
  return OpTy::create(g.b, g.loc, TypeRange{type}, inputs,
                      ValueRange{g.filled(type, 0.0)},
                      g.b.getI64TensorAttr(w.strides),
                      g.b.getI64TensorAttr(w.dilations))
      .getResult(0);
}

/// A 2-D float convolution of `x` [N,C,H,W] with `weight` [M,C/group,KH,KW].
FailureOr<Value> convolution(Graph &g, Value x, Value weight,
                             std::optional<Value> bias, int64_t group);

// Defined in OnnxOpsMatMul.cpp, used by QLinearMatMul and MatMulInteger too.

/// lhs [..., M, K] x rhs [..., K, N] with numpy's batch broadcasting (and
/// 1-D operands promoted and squeezed) in the element type of `acc`.
FailureOr<Value> matmul(Graph &g, Value lhs, Value rhs, Type acc);
/// Gemm's alpha * op(A) op(B) + beta * C (C null: none), a constant B
/// transposed at import.
FailureOr<Value> gemm(Graph &g, Value a, Value b, Value c, bool transA,
                      bool transB, float alpha, float beta);

//===----------------------------------------------------------------------===//
// Translations, each of the current node of a graph
//===----------------------------------------------------------------------===//

// OnnxOpsElementwise.cpp
LogicalResult translateBinary(Graph &g);
LogicalResult translateUnary(Graph &g);
LogicalResult translatePRelu(Graph &g);
LogicalResult translateClip(Graph &g);
LogicalResult translateMath(Graph &g);
LogicalResult translatePow(Graph &g);
LogicalResult translateMinMax(Graph &g);
LogicalResult translateCompare(Graph &g);
LogicalResult translateLogical(Graph &g);
LogicalResult translateWhere(Graph &g);
LogicalResult translateCast(Graph &g);

// OnnxOpsNormalization.cpp
LogicalResult translateSoftmax(Graph &g);
LogicalResult translateLayerNormalization(Graph &g);
LogicalResult translateReduce(Graph &g);
LogicalResult translateBatchNormalization(Graph &g);

// OnnxOpsConv.cpp
LogicalResult translateConv(Graph &g);
LogicalResult translateConvTranspose(Graph &g);
LogicalResult translatePool(Graph &g);

// OnnxOpsMatMul.cpp
LogicalResult translateMatMul(Graph &g);
LogicalResult translateGemm(Graph &g);
LogicalResult translateEinsum(Graph &g);

// OnnxOpsShape.cpp
LogicalResult translateIdentity(Graph &g);
LogicalResult translateConstant(Graph &g);
LogicalResult translateReshapeLike(Graph &g);
LogicalResult translateTranspose(Graph &g);
LogicalResult translateConcat(Graph &g);
LogicalResult translateSplit(Graph &g);
LogicalResult translateSlice(Graph &g);
LogicalResult translatePad(Graph &g);

// OnnxOpsIndexing.cpp
LogicalResult translateShape(Graph &g);
LogicalResult translateSize(Graph &g);
LogicalResult translateConstantOfShape(Graph &g);
LogicalResult translateRange(Graph &g);
LogicalResult translateExpand(Graph &g);
LogicalResult translateGather(Graph &g);
LogicalResult translateTile(Graph &g);
LogicalResult translateTrilu(Graph &g);

// OnnxOpsRecurrent.cpp: RNN, GRU, LSTM.
LogicalResult translateRecurrent(Graph &g);
/// ONNX Runtime's DynamicQuantizeLSTM (domain com.microsoft; what its
/// quantize_dynamic writes for an LSTM): LSTM's inputs with W [dirs, I,
/// 4H] and R [dirs, H, 4H] int8 or uint8 (the transposes of LSTM's), their
/// scales and zero points per direction or per direction and column; each
/// product a quanta.dynamic_qmatmul with ONNX Runtime's numerics (X
/// quantized once over every step, H once per step).
LogicalResult translateDynamicQuantizeLSTM(Graph &g);

// OnnxOpsQuant.cpp
LogicalResult translateQuantizeLinear(Graph &g);
LogicalResult translateDequantizeLinear(Graph &g);
LogicalResult translateQLinear(Graph &g);
LogicalResult translateIntegerProduct(Graph &g);
LogicalResult translateDynamicQuantizeLinear(Graph &g);

/// The constants of a dynamic MatMul as quanta.dynamic_qmatmul takes them:
/// K x N s8 weights (B minus its zero point where that fits s8; else B,
/// shifted by -128 if uint8, and `zeroPoints` likewise), their scales (one,
/// or one per column) and the bias.
struct DynamicMatMulConstants {
  DenseElementsAttr weights;
  SmallVector<float> scales;
  std::optional<SmallVector<int32_t>> zeroPoints;
  std::optional<SmallVector<float>> bias;
};
/// Reads B (K x N, int8 or uint8 as `unsignedB` says), its scale and zero
/// point (null: 0) and the bias (null: none), or says why the int8 kernels
/// cannot take them.
std::optional<std::string>
readDynamicMatMulConstants(DenseElementsAttr b, bool unsignedB,
                           DenseElementsAttr scale, DenseElementsAttr zeroPoint,
                           DenseElementsAttr bias,
                           DynamicMatMulConstants &result);
/// A ConvInteger's [F, C, KH, KW] weights as the K x N matrix of its
/// im2col product: row (kh, kw, c), column f.
DenseElementsAttr convolutionWeightMatrix(DenseElementsAttr weights);
/// The node fuseDynamicMatMuls makes of ONNX Runtime's dynamic convolution
/// (DynamicQuantizeLinear, ConvInteger, Cast, Mul, Mul, and the bias's
/// Reshape and Add): inputs x, W, W's scale, W's zero point and the bias
/// (empty names: none), ConvInteger's attributes. Its domain is the
/// importer's own: no model names it.
inline constexpr StringLiteral kDynamicQuantizeConv = "DynamicQuantizeConv";
inline constexpr StringLiteral kFusedDomain = "quanta.fused";
/// That node: x [N, C, H, W] float, into quanta.dynamic_qmatmul with a
/// window (ONNX Runtime's numerics) on the zero-padded NHWC image.
LogicalResult translateDynamicQuantizeConv(Graph &g);
/// ONNX Runtime's DynamicQuantizeMatMul (domain com.microsoft; what its
/// quantize_dynamic's DynamicQuantizeLinear, MatMulInteger, Cast, Mul, Mul
/// and Add nodes compute, fuseDynamicMatMuls): A [..., K] float, B a
/// constant K x N, into quanta.dynamic_qmatmul with ONNX Runtime's numerics.
LogicalResult translateDynamicQuantizeMatMul(Graph &g);

/// quanta.dynamic_qmatmul with ONNX Runtime's numerics of `input` (a
/// matrix, or with `window` an NHWC image padded with zeros) and
/// `constants`, into `outputType`.
Value createDynamicProduct(
    Graph &g, Value input, const DynamicMatMulConstants &constants,
    RankedTensorType outputType,
    std::optional<ArrayRef<int64_t>> window = std::nullopt);

/// ONNX Runtime's MatMulNBits (domain com.microsoft; what its 4-bit
/// weight quantizers write): A [..., K] float times B's N x K unsigned
/// 4-bit values, a scale per block of block_size k values of each column
/// and 4-bit zero points (absent: 8), into quanta.weight_only_matmul's i4
/// weights (q - 8) and zero points (minus 8; none where all are 8);
/// accuracy_level 4 (A quantized to int8 per block) as its
/// int8_activations.
LogicalResult translateMatMulNBits(Graph &g);

/// Whether `node` is one of ONNX Runtime's QOperator contrib ops (domain
/// com.microsoft: QLinearAdd, QLinearMul, QLinearSigmoid, QLinearLeakyRelu,
/// QLinearGlobalAveragePool, QLinearConcat) the importer takes.
bool isContribQLinear(const onnx::NodeProto &node);
/// ONNX Runtime's QGemm (domain com.microsoft): Gemm between dequantized A
/// and B with an i32 bias C (scale a_scale * b_scale), its output
/// quantized when y_scale is given, else float.
LogicalResult translateQGemm(Graph &g);
/// `node` (isContribQLinear) as the default-domain nodes it stands for:
/// DequantizeLinear of each input, the float op (named as `node`),
/// QuantizeLinear of the result. Returns the reason when it cannot.
std::optional<std::string>
expandContribQLinear(const onnx::NodeProto &node,
                     SmallVectorImpl<onnx::NodeProto> &expansion);

} // namespace mlir::quanta::onnx_import

#endif // QUANTA_LIB_IMPORT_ONNXOPS_H

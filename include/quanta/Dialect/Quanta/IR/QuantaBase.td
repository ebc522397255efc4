//===- QuantaBase.td - The quanta dialect and its enums ----*- tablegen -*-===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTABASE_TD
#define QUANTA_DIALECT_QUANTA_IR_QUANTABASE_TD

include "mlir/IR/AttrTypeBase.td"
include "mlir/IR/EnumAttr.td"
include "mlir/IR/OpBase.td"

def Quanta_Dialect : Dialect {
  let name = "quanta";
  let cppNamespace = "::mlir::quanta";
  let summary = "PyTorch-style observers and fake quantization";
  let description = [{
    The `quanta` dialect models the observers and fake-quant modules of
    PyTorch's `torch.ao.quantization` (and OneFlow's MinMaxObserver) as IR:
    one attribute per observer family carrying the constructor options with
    PyTorch's names and defaults, an identity op `quanta.observe` that
    attaches an observer (and, once calibrated, its statistics) to a tensor,
    and `quanta.fake_quant`, PyTorch's FakeQuantize.

    The numbers behind the attributes (quantization ranges, qparams, running
    statistics) come from the `QuantaNumerics` library, which reproduces
    PyTorch 1.13 bit for bit; the verifiers call the same library, so the IR
    rejects exactly the configurations PyTorch rejects (plus a few PyTorch
    accepts silently but that cannot quantize anything, each said so in its
    message).
  }];
  let useDefaultAttributePrinterParser = 1;
  let hasOperationAttrVerify = 1;
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

//===----------------------------------------------------------------------===//
// Enums
//===----------------------------------------------------------------------===//

def Quanta_DType : I32EnumAttr<"DType", "PyTorch dtype of an observer", [
    I32EnumAttrCase<"quint8", 0>,
    I32EnumAttrCase<"qint8", 1>,
    I32EnumAttrCase<"quint4x2", 2>,
    I32EnumAttrCase<"qint32", 3>,
    I32EnumAttrCase<"float32", 4>,
    I32EnumAttrCase<"float16", 5>,
    I32EnumAttrCase<"bfloat16", 6>,
  ]> {
  let cppNamespace = "::mlir::quanta";
  let genSpecializedAttr = 0;
}

def Quanta_QScheme : I32EnumAttr<"QScheme", "PyTorch quantization scheme", [
    I32EnumAttrCase<"per_tensor_affine", 0>,
    I32EnumAttrCase<"per_tensor_symmetric", 1>,
    I32EnumAttrCase<"per_channel_affine", 2>,
    I32EnumAttrCase<"per_channel_symmetric", 3>,
    I32EnumAttrCase<"per_channel_affine_float_qparams", 4>,
  ]> {
  let cppNamespace = "::mlir::quanta";
  let genSpecializedAttr = 0;
}

def Quanta_HistogramCalibration : I32EnumAttr<"HistogramCalibration",
    "how a HistogramObserver chooses its range", [
    I32EnumAttrCase<"pytorch", 0>,
    I32EnumAttrCase<"entropy", 1>,
    I32EnumAttrCase<"percentile", 2>,
    I32EnumAttrCase<"mse", 3>,
  ]> {
  let cppNamespace = "::mlir::quanta";
  let genSpecializedAttr = 0;
}

def Quanta_DynamicEngine : I32EnumAttr<"DynamicEngine",
    "the runtime whose dynamic Linear numerics a kernel reproduces: "
    "PyTorch's onednn or qnnpack engine, or ONNX Runtime", [
    I32EnumAttrCase<"onednn", 0>,
    I32EnumAttrCase<"qnnpack", 1>,
    I32EnumAttrCase<"onnx", 2>,
  ]> {
  let cppNamespace = "::mlir::quanta";
}

def Quanta_OneFlowFormula : I32EnumAttr<"OneFlowFormula",
    "OneFlow quantization_formula", [
    I32EnumAttrCase<"google", 0>,
    I32EnumAttrCase<"cambricon", 1>,
  ]> {
  let cppNamespace = "::mlir::quanta";
  let genSpecializedAttr = 0;
}

def Quanta_OneFlowScheme : I32EnumAttr<"OneFlowScheme",
    "OneFlow quantization_scheme", [
    I32EnumAttrCase<"symmetric", 0>,
    I32EnumAttrCase<"affine", 1>,
  ]> {
  let cppNamespace = "::mlir::quanta";
  let genSpecializedAttr = 0;
}

//===----------------------------------------------------------------------===//
// Attribute parameters with PyTorch defaults
//===----------------------------------------------------------------------===//

class Quanta_EnumParam<EnumAttrInfo info, string default>
    : EnumParameter<info> {
  let defaultValue = info.cppNamespace # "::" # info.className # "::" # default;
}

class Quanta_BoolParam<string default> : AttrParameter<"bool", ""> {
  let parser = "::mlir::quanta::detail::parseBoolParam($_parser)";
  let printer = "$_printer << ($_self ? \"true\" : \"false\")";
  let defaultValue = default;
}

def Quanta_OptionalDTypeParam
    : OptionalParameter<"std::optional<::mlir::quanta::DType>"> {
  let parser = "::mlir::quanta::detail::parseOptionalDTypeParam($_parser)";
  let printer = "$_printer << ::mlir::quanta::stringifyDType(*$_self)";
}

class Quanta_I64Param<string default> : AttrParameter<"int64_t", ""> {
  let defaultValue = default;
}

// Python floats are doubles; PyTorch stores eps, fixed scales and the like in
// float32 buffers. Parsing as double and narrowing reproduces that rounding
// (decimal -> double -> float), which a direct decimal -> float parse would
// not in rare double-rounding cases.
class Quanta_F32ParamBase
    : AttrParameter<"::llvm::APFloat", "a float32 value"> {
  let parser = "::mlir::quanta::detail::parseF32Param($_parser)";
  let printer = "::mlir::quanta::detail::printFloatParam($_printer, $_self)";
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
}

def Quanta_RequiredF32Param : Quanta_F32ParamBase;

class Quanta_F32Param<string default> : Quanta_F32ParamBase {
  let defaultValue = default;
}

class Quanta_F64Param<string default>
    : AttrParameter<"::llvm::APFloat", "a float64 value"> {
  let parser = "::mlir::quanta::detail::parseF64Param($_parser)";
  let printer = "::mlir::quanta::detail::printFloatParam($_printer, $_self)";
  let comparator = "$_lhs.bitwiseIsEqual($_rhs)";
  let defaultValue = default;
}

// Statistics must round-trip through textual IR exactly.
def Quanta_F32ArrayParam : AttrParameter<"::mlir::DenseF32ArrayAttr",
                                         "float32 values, printed exactly"> {
  let parser = "::mlir::quanta::detail::parseF32ArrayParam($_parser)";
  let printer = "::mlir::quanta::detail::printF32ArrayParam($_printer, $_self)";
}

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTABASE_TD

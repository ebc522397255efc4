//===- QuantaDialect.cpp - The quanta dialect -----------------------------===//

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Dialect/SCF/IR/SCF.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "llvm/ADT/SmallString.h"
#include "llvm/ADT/StringSet.h"
#include "llvm/ADT/TypeSwitch.h"
#include "llvm/Support/Format.h"

#include <cstdlib>
#include <limits>

using namespace mlir;
using namespace mlir::quanta;

#include "quanta/Dialect/Quanta/IR/QuantaDialect.cpp.inc"
#include "quanta/Dialect/Quanta/IR/QuantaEnums.cpp.inc"
#include "quanta/Dialect/Quanta/IR/QuantaInterfaces.cpp.inc"

#define GET_ATTRDEF_CLASSES
#include "quanta/Dialect/Quanta/IR/QuantaAttrs.cpp.inc"

void QuantaDialect::initialize() {
  addAttributes<
#define GET_ATTRDEF_LIST
#include "quanta/Dialect/Quanta/IR/QuantaAttrs.cpp.inc"
      >();
  addOperations<
#define GET_OP_LIST
#include "quanta/Dialect/Quanta/IR/QuantaOps.cpp.inc"
      >();
}

/// The target a `quanta.target` attribute describes, or why it does not.
static llvm::Expected<TargetDescription> parseTargetAttr(Attribute value) {
  auto text = dyn_cast<StringAttr>(value);
  if (!text)
    return llvm::createStringError(
        "must be a string such as \"aarch64+neon+dotprod\"");
  return TargetDescription::parse(text.getValue());
}

LogicalResult QuantaDialect::verifyOperationAttribute(Operation *op,
                                                      NamedAttribute attr) {
  if (attr.getName() == kThreadsAttrName) {
    auto threads = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<ModuleOp>(op))
      return op->emitError()
             << "'" << kThreadsAttrName << "' belongs on a builtin.module";
    if (!threads || !threads.getType().isInteger(64) || threads.getInt() < 0)
      return op->emitError()
             << "'" << kThreadsAttrName
             << "' must be an i64 thread count >= 0 (0: the OpenMP "
                "runtime's choice), got "
             << attr.getValue();
    return success();
  }
  if (attr.getName() == kParallelLoopAttrName) {
    if (!isa<scf::ForOp>(op) || !isa<UnitAttr>(attr.getValue()))
      return op->emitError() << "'" << kParallelLoopAttrName
                             << "' is a unit attribute of scf.for";
    return success();
  }
  if (attr.getName() != kTargetAttrName)
    return success();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << kTargetAttrName
                           << "' belongs on a builtin.module";
  llvm::Expected<TargetDescription> target = parseTargetAttr(attr.getValue());
  if (!target)
    return op->emitError() << "'" << kTargetAttrName << "' "
                           << llvm::toString(target.takeError());
  return success();
}

int64_t quanta::getModuleThreads(ModuleOp module) {
  auto threads = module->getAttrOfType<IntegerAttr>(kThreadsAttrName);
  return threads ? threads.getInt() : 1;
}

FailureOr<std::optional<TargetDescription>>
quanta::getModuleTarget(ModuleOp module) {
  Attribute value = module->getAttr(kTargetAttrName);
  if (!value)
    return std::optional<TargetDescription>();
  llvm::Expected<TargetDescription> target = parseTargetAttr(value);
  if (!target)
    return module.emitError() << "'" << kTargetAttrName << "' "
                              << llvm::toString(target.takeError());
  return std::optional<TargetDescription>(*target);
}

void quanta::setModuleTarget(ModuleOp module, const TargetDescription &target) {
  module->setAttr(kTargetAttrName,
                  StringAttr::get(module.getContext(), target.str()));
}

LogicalResult quanta::verifyRunsOn(Operation *root,
                                   const TargetDescription &target) {
  // One error per requirement the target misses, at its first op.
  llvm::StringSet<> reported;
  root->walk([&](Operation *op) {
    StringRef name = op->getName().getStringRef();
    if (auto intrinsic = dyn_cast<IntrinsicOp>(op))
      name = intrinsic.getName();
    else if (auto call = dyn_cast<LLVM::CallIntrinsicOp>(op))
      name = call.getIntrin();
    std::string why = explainUnsupported(name, target);
    if (why.empty())
      return;
    std::optional<InstructionRequirement> needs =
        getInstructionRequirement(name);
    std::string key = TargetDescription::getArchName(needs->arch).str();
    for (ArrayRef<TargetFeature> features : needs->alternatives)
      for (TargetFeature feature : features)
        key += "+" + TargetDescription::getFeatureName(feature).str();
    if (!reported.insert(key).second)
      return;
    InFlightDiagnostic diag = op->emitError(why);
    if (needs->arch != target.getArch())
      diag << "; lower the module for the target's architecture ("
           << (target.getArch() == TargetArch::AArch64 ? "quanta-lower-neon"
                                                       : "quanta-lower-x86")
           << ")";
    else
      diag << "; lower it for a level the target has, or choose a target "
              "that has it";
  });
  return success(reported.empty());
}

//===----------------------------------------------------------------------===//
// Attribute parameter parsing and printing
//===----------------------------------------------------------------------===//

FailureOr<bool> quanta::detail::parseBoolParam(AsmParser &parser) {
  if (succeeded(parser.parseOptionalKeyword("true")))
    return true;
  if (succeeded(parser.parseOptionalKeyword("false")))
    return false;
  return parser.emitError(parser.getCurrentLocation(),
                          "expected 'true' or 'false'");
}

/// A float literal, or nan/inf/-inf (the printer writes non-finite values
/// that way, since the MLIR lexer has no literal for them).
static ParseResult parseDouble(AsmParser &parser, double &result) {
  if (succeeded(parser.parseOptionalKeyword("nan"))) {
    result = std::numeric_limits<double>::quiet_NaN();
    return success();
  }
  bool negative = succeeded(parser.parseOptionalMinus());
  if (succeeded(parser.parseOptionalKeyword("inf")))
    result = std::numeric_limits<double>::infinity();
  else if (parser.parseFloat(result))
    return failure();
  if (negative)
    result = -result;
  return success();
}

FailureOr<llvm::APFloat> quanta::detail::parseF64Param(AsmParser &parser) {
  double value;
  if (parseDouble(parser, value))
    return failure();
  return llvm::APFloat(value);
}

FailureOr<llvm::APFloat> quanta::detail::parseF32Param(AsmParser &parser) {
  double value;
  if (parseDouble(parser, value))
    return failure();
  // Narrow like torch.tensor([python_float], dtype=torch.float32).
  return llvm::APFloat(static_cast<float>(value));
}

FailureOr<DenseF32ArrayAttr>
quanta::detail::parseF32ArrayParam(AsmParser &parser) {
  SmallVector<float> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        double value;
        if (parseDouble(parser, value))
          return failure();
        values.push_back(static_cast<float>(value));
        return success();
      }))
    return failure();
  return DenseF32ArrayAttr::get(parser.getContext(), values);
}

void quanta::detail::printF32ArrayParam(AsmPrinter &printer,
                                        DenseF32ArrayAttr values) {
  printer << "[";
  llvm::interleaveComma(values.asArrayRef(), printer, [&](float value) {
    printFloatParam(printer, llvm::APFloat(value));
  });
  printer << "]";
}

FailureOr<std::optional<DType>>
quanta::detail::parseOptionalDTypeParam(AsmParser &parser) {
  SMLoc loc = parser.getCurrentLocation();
  StringRef keyword;
  if (parser.parseKeyword(&keyword))
    return failure();
  std::optional<DType> dtype = symbolizeDType(keyword);
  if (!dtype)
    return parser.emitError(loc, "unknown dtype '") << keyword << "'";
  return std::optional<DType>(*dtype);
}

void quanta::detail::printFloatParam(AsmPrinter &printer,
                                     const llvm::APFloat &value) {
  if (value.isNaN()) {
    printer << "nan";
    return;
  }
  if (value.isInfinity()) {
    printer << (value.isNegative() ? "-inf" : "inf");
    return;
  }
  bool isSingle = &value.getSemantics() == &llvm::APFloat::IEEEsingle();
  double asDouble = isSingle ? static_cast<double>(value.convertToFloat())
                             : value.convertToDouble();
  // The MLIR float lexer needs a digit before any exponent or dot, which
  // %g always produces; use the shortest precision that round-trips through
  // parseF32Param/parseF64Param.
  llvm::SmallString<32> text;
  for (int precision = 1; precision <= 17; ++precision) {
    text.clear();
    llvm::raw_svector_ostream os(text);
    os << llvm::format("%.*g", precision, asDouble);
    double reparsed = std::strtod(text.c_str(), nullptr);
    bool roundTrips =
        isSingle ? static_cast<float>(reparsed) == value.convertToFloat()
                 : reparsed == asDouble;
    if (roundTrips)
      break;
  }
  // The MLIR lexer reads "1" and "1e-07" as integers: a float literal needs
  // a dot in its mantissa.
  StringRef digits = text.str();
  if (!digits.contains('.')) {
    size_t exponent = digits.find('e');
    text.insert(exponent == StringRef::npos ? text.end()
                                            : text.begin() + exponent,
                {'.', '0'});
  }
  printer << text;
}

//===----------------------------------------------------------------------===//
// Enum conversions to the numeric library
//===----------------------------------------------------------------------===//

std::optional<numerics::DType> quanta::toNumericDType(DType dtype) {
  switch (dtype) {
  case DType::quint8:
    return numerics::DType::QUInt8;
  case DType::qint8:
    return numerics::DType::QInt8;
  case DType::quint4x2:
    return numerics::DType::QUInt4x2;
  case DType::qint32:
    return numerics::DType::QInt32;
  case DType::float32:
  case DType::float16:
  case DType::bfloat16:
    return std::nullopt;
  }
  llvm_unreachable("unknown DType");
}

numerics::QScheme quanta::toNumericQScheme(QScheme qscheme) {
  switch (qscheme) {
  case QScheme::per_tensor_affine:
    return numerics::QScheme::PerTensorAffine;
  case QScheme::per_tensor_symmetric:
    return numerics::QScheme::PerTensorSymmetric;
  case QScheme::per_channel_affine:
    return numerics::QScheme::PerChannelAffine;
  case QScheme::per_channel_symmetric:
    return numerics::QScheme::PerChannelSymmetric;
  case QScheme::per_channel_affine_float_qparams:
    return numerics::QScheme::PerChannelAffineFloatQParams;
  }
  llvm_unreachable("unknown QScheme");
}

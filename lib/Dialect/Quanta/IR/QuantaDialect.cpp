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
    auto work = dyn_cast<IntegerAttr>(attr.getValue());
    if (!isa<scf::ForOp, scf::ParallelOp>(op) ||
        !(isa<UnitAttr>(attr.getValue()) ||
          (work && work.getType().isInteger(64) && work.getInt() >= 0)))
      return op->emitError()
             << "'" << kParallelLoopAttrName
             << "' is an attribute of scf.for or scf.parallel: unit, or an "
                "i64 count >= 0 of the iterations of its innermost loops";
    return success();
  }
  if (attr.getName() != kTargetAttrName &&
      attr.getName() != kLoweredForAttrName)
    return success();
  if (!isa<ModuleOp>(op))
    return op->emitError() << "'" << attr.getName().getValue()
                           << "' belongs on a builtin.module";
  llvm::Expected<TargetDescription> target = parseTargetAttr(attr.getValue());
  if (!target)
    return op->emitError() << "'" << attr.getName().getValue() << "' "
                           << llvm::toString(target.takeError());
  return success();
}

int64_t quanta::getModuleThreads(ModuleOp module) {
  auto threads = module->getAttrOfType<IntegerAttr>(kThreadsAttrName);
  return threads ? threads.getInt() : 1;
}

std::optional<StringRef> quanta::getLocationName(Location loc) {
  if (auto nameLoc = dyn_cast<NameLoc>(loc))
    return nameLoc.getName().strref();
  if (auto fused = dyn_cast<FusedLoc>(loc))
    for (Location inner : fused.getLocations())
      if (std::optional<StringRef> name = getLocationName(inner))
        return name;
  if (auto callSite = dyn_cast<CallSiteLoc>(loc))
    return getLocationName(callSite.getCallee());
  return std::nullopt;
}

/// The target the module attribute `name` (quanta.target,
/// quanta.lowered_for) describes, if the module has it; an error at the
/// module when it describes none.
static FailureOr<std::optional<TargetDescription>>
getTargetAttr(ModuleOp module, StringRef name) {
  Attribute value = module->getAttr(name);
  if (!value)
    return std::optional<TargetDescription>();
  llvm::Expected<TargetDescription> target = parseTargetAttr(value);
  if (!target)
    return module.emitError()
           << "'" << name << "' " << llvm::toString(target.takeError());
  return std::optional<TargetDescription>(*target);
}

FailureOr<std::optional<TargetDescription>>
quanta::getModuleTarget(ModuleOp module) {
  return getTargetAttr(module, kTargetAttrName);
}

void quanta::setModuleTarget(ModuleOp module, const TargetDescription &target) {
  module->setAttr(kTargetAttrName,
                  StringAttr::get(module.getContext(), target.str()));
}

LogicalResult quanta::recordLoweredFor(ModuleOp module,
                                       const TargetDescription &target,
                                       StringRef pass) {
  FailureOr<std::optional<TargetDescription>> earlier =
      getTargetAttr(module, kLoweredForAttrName);
  if (failed(earlier))
    return failure();
  if (*earlier && (*earlier)->str() != target.str())
    return module.emitError()
           << pass << ": the module already holds code lowered for "
           << (*earlier)->describe() << "; lowering more of it for "
           << target.describe() << " would mix the two";
  module->setAttr(kLoweredForAttrName,
                  StringAttr::get(module.getContext(), target.str()));
  return success();
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
               : target.getArch() == TargetArch::X86_64
                   ? "quanta-lower-x86"
                   : "quanta-lower-x86{isa=generic}")
           << ")";
    else
      diag << "; lower it for a level the target has, or choose a target "
              "that has it";
  });
  if (!reported.empty())
    return failure();
  // What the named instructions do not show (the vector widths a lowering
  // chose, for instance), the record of the lowering does.
  auto module = dyn_cast<ModuleOp>(root);
  if (!module)
    return success();
  FailureOr<std::optional<TargetDescription>> loweredFor =
      getTargetAttr(module, kLoweredForAttrName);
  if (failed(loweredFor))
    return failure();
  if (!*loweredFor)
    return success();
  // Features are per architecture: code for another architecture's
  // features lacks them all, while a generic lowering (no feature) is
  // plain vector code any target compiles.
  SmallVector<TargetFeature> lacking = (*loweredFor)->missingFrom(target);
  if (!lacking.empty())
    return module.emitError()
           << "the module's kernels were lowered for "
           << (*loweredFor)->describe() << ", which " << target.describe()
           << " cannot run (it lacks "
           << TargetDescription::getFeatureName(lacking.front())
           << "); lower the module from before its kernel lowering for "
              "this target instead";
  return success();
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
/// that way, since the MLIR lexer has no literal for them), as a value of
/// `semantics`. Decimal literals are read as doubles and then narrowed, as
/// torch.tensor([python_float], dtype=torch.float32) narrows them; a
/// hexadecimal literal is the bit pattern of a value of `semantics` itself,
/// as in MLIR's own float attributes (read as a double's bits, 0x3F800000
/// would be a denormal that narrows to 0).
static ParseResult parseFloatValue(AsmParser &parser,
                                   const llvm::fltSemantics &semantics,
                                   llvm::APFloat &result) {
  if (succeeded(parser.parseOptionalKeyword("nan"))) {
    result = llvm::APFloat::getQNaN(semantics);
    return success();
  }
  const SMLoc loc = parser.getCurrentLocation();
  bool negative = succeeded(parser.parseOptionalMinus());
  // The token's text: the source buffer is null-terminated.
  const char *text = parser.getCurrentLocation().getPointer();
  if (text[0] == '0' && (text[1] == 'x' || text[1] == 'X')) {
    if (negative)
      return parser.emitError(loc, "a hexadecimal float literal is a bit "
                                   "pattern and takes no minus sign");
    return parser.parseFloat(semantics, result);
  }
  double value;
  if (succeeded(parser.parseOptionalKeyword("inf")))
    value = std::numeric_limits<double>::infinity();
  else if (parser.parseFloat(value))
    return failure();
  if (negative)
    value = -value;
  result = &semantics == &llvm::APFloat::IEEEsingle()
               ? llvm::APFloat(static_cast<float>(value))
               : llvm::APFloat(value);
  return success();
}

FailureOr<llvm::APFloat> quanta::detail::parseF64Param(AsmParser &parser) {
  llvm::APFloat value(0.0);
  if (parseFloatValue(parser, llvm::APFloat::IEEEdouble(), value))
    return failure();
  return value;
}

FailureOr<llvm::APFloat> quanta::detail::parseF32Param(AsmParser &parser) {
  llvm::APFloat value(0.0f);
  if (parseFloatValue(parser, llvm::APFloat::IEEEsingle(), value))
    return failure();
  return value;
}

FailureOr<DenseF32ArrayAttr>
quanta::detail::parseF32ArrayParam(AsmParser &parser) {
  SmallVector<float> values;
  if (parser.parseCommaSeparatedList(AsmParser::Delimiter::Square, [&] {
        llvm::APFloat value(0.0f);
        if (parseFloatValue(parser, llvm::APFloat::IEEEsingle(), value))
          return failure();
        values.push_back(value.convertToFloat());
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

numerics::DynamicEngine quanta::toNumericDynamicEngine(DynamicEngine engine) {
  switch (engine) {
  case DynamicEngine::onednn:
    return numerics::DynamicEngine::Onednn;
  case DynamicEngine::qnnpack:
    return numerics::DynamicEngine::Qnnpack;
  case DynamicEngine::onnx:
    return numerics::DynamicEngine::Onnx;
  }
  llvm_unreachable("unknown DynamicEngine");
}

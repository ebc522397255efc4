//===- Quanta.cpp - Quanta's C API ----------------------------------------===//
//
// quanta-c/Quanta.h over the C++ API (quanta/API/Quanta.h). Every error,
// including a malformed QuantaTensor, is an MLIR error diagnostic in the
// module's context; nothing here aborts on bad input.
//
//===----------------------------------------------------------------------===//

#include "quanta-c/Quanta.h"

#include "quanta/API/Quanta.h"

#include "mlir/CAPI/IR.h"
#include "mlir/CAPI/Support.h"
#include "mlir/IR/Diagnostics.h"
#include "mlir/IR/Location.h"
#include "llvm/ADT/StringSwitch.h"
#include "llvm/ADT/Twine.h"
#include "llvm/Support/Error.h"

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

using namespace mlir;

namespace {

/// What a QuantaCompiledFunction points to: the function and the context
/// its call errors are reported in.
struct CompiledFunctionHandle {
  quanta::CompiledFunction function;
  MLIRContext *context;
};

} // namespace

static CompiledFunctionHandle *unwrap(QuantaCompiledFunction function) {
  return static_cast<CompiledFunctionHandle *>(function.ptr);
}

static QuantaCompiledFunction wrap(CompiledFunctionHandle *handle) {
  return QuantaCompiledFunction{handle};
}

/// The null QuantaCompiledFunction (wrap(nullptr) would be ambiguous with
/// MLIR's wrap overloads).
static QuantaCompiledFunction nullFunction() {
  return QuantaCompiledFunction{nullptr};
}

/// The NumPy dtype string (TensorRef::dtype, "<f4", "|i1", ...) of `dtype`;
/// null for a value outside the enum.
static const char *toNumpyDType(QuantaDType dtype) {
  // Through int: a C caller may pass any value.
  switch (static_cast<int>(dtype)) {
  case QuantaFloat32:
    return "<f4";
  case QuantaFloat64:
    return "<f8";
  case QuantaInt8:
    return "|i1";
  case QuantaUInt8:
    return "|u1";
  case QuantaInt16:
    return "<i2";
  case QuantaInt32:
    return "<i4";
  case QuantaInt64:
    return "<i8";
  default:
    return nullptr;
  }
}

/// The QuantaDType of a NumPy dtype string a TensorSpec holds. Every dtype
/// getTensorSpec writes first has one; the others (unsigned 16- to 64-bit
/// integers) are accepted as alternatives only and never asked for here.
static QuantaDType fromNumpyDType(StringRef dtype) {
  return llvm::StringSwitch<QuantaDType>(dtype)
      .Case("<f8", QuantaFloat64)
      .Case("|i1", QuantaInt8)
      .Case("|u1", QuantaUInt8)
      .Cases({"<i2", "<u2"}, QuantaInt16)
      .Cases({"<i4", "<u4"}, QuantaInt32)
      .Cases({"<i8", "<u8"}, QuantaInt64)
      .Default(QuantaFloat32);
}

/// `tensor` as a TensorRef named `source`, or an error at `loc` when it
/// cannot describe a tensor.
static FailureOr<quanta::runtime::TensorRef>
toTensorRef(Location loc, const QuantaTensor &tensor, const Twine &source,
            StringRef function) {
  auto error = [&]() {
    return emitError(loc) << function << ": " << source << ": ";
  };
  const char *dtype = toNumpyDType(tensor.dtype);
  if (!dtype)
    return error() << "unknown dtype " << static_cast<int>(tensor.dtype);
  if (tensor.rank < 0)
    return error() << "negative rank " << tensor.rank;
  if (tensor.rank > 0 && !tensor.shape)
    return error() << "null shape for rank " << tensor.rank;
  std::vector<int64_t> shape;
  if (tensor.rank > 0)
    shape.assign(tensor.shape, tensor.shape + tensor.rank);
  bool empty = false;
  for (auto [dim, size] : llvm::enumerate(shape)) {
    if (size < 0)
      return error() << "negative size " << size << " of dimension " << dim;
    empty |= size == 0;
  }
  if (!tensor.data && !empty)
    return error() << "null data for a tensor of "
                   << quanta::runtime::formatShape(shape);
  return quanta::runtime::TensorRef{tensor.data, std::move(shape), dtype,
                                    source.str()};
}

//===----------------------------------------------------------------------===//
// Registration and pass pipelines.
//===----------------------------------------------------------------------===//

void quantaRegisterAllDialects(MlirDialectRegistry registry) {
  quanta::registerAllDialects(*unwrap(registry));
}

void quantaRegisterAllPasses(void) { quanta::registerAllPasses(); }

MlirLogicalResult quantaRunPassPipeline(MlirModule module,
                                        MlirStringRef pipeline) {
  if (mlirModuleIsNull(module))
    return mlirLogicalResultFailure();
  return wrap(quanta::runPassPipeline(unwrap(module), unwrap(pipeline)));
}

//===----------------------------------------------------------------------===//
// Calibration.
//===----------------------------------------------------------------------===//

MlirLogicalResult quantaCalibrate(MlirModule module, MlirStringRef options,
                                  intptr_t numBatches, intptr_t numArguments,
                                  const QuantaTensor *batches) {
  static constexpr StringLiteral kName = "quantaCalibrate";
  if (mlirModuleIsNull(module))
    return mlirLogicalResultFailure();
  ModuleOp op = unwrap(module);
  Location loc = op.getLoc();
  FailureOr<quanta::CalibrateOptions> parsed =
      quanta::parseCalibrateOptions(unwrap(options), [&](const Twine &message) {
        return emitError(loc)
               << kName << ": options '" << unwrap(options) << "': " << message;
      });
  if (failed(parsed))
    return mlirLogicalResultFailure();
  if (numBatches < 0 || numArguments < 0) {
    emitError(loc) << kName << ": negative number of batches (" << numBatches
                   << ") or arguments (" << numArguments << ")";
    return mlirLogicalResultFailure();
  }
  if (numArguments > 0 && numBatches > INTPTR_MAX / numArguments) {
    emitError(loc) << kName << ": " << numBatches << " batches of "
                   << numArguments << " arguments are too many tensors";
    return mlirLogicalResultFailure();
  }
  if (numBatches > 0 && numArguments > 0 && !batches) {
    emitError(loc) << kName << ": null batches";
    return mlirLogicalResultFailure();
  }

  std::vector<std::vector<quanta::runtime::TensorRef>> refs(numBatches);
  for (intptr_t batch = 0; batch < numBatches; ++batch) {
    refs[batch].reserve(numArguments);
    for (intptr_t argument = 0; argument < numArguments; ++argument) {
      FailureOr<quanta::runtime::TensorRef> ref = toTensorRef(
          loc, batches[batch * numArguments + argument],
          "batch " + Twine(batch) + " argument " + Twine(argument), kName);
      if (failed(ref))
        return mlirLogicalResultFailure();
      refs[batch].push_back(std::move(*ref));
    }
  }
  std::unique_ptr<quanta::CalibrationBatches> source =
      quanta::makeCalibrationBatches(std::move(refs));
  return wrap(quanta::calibrate(op, *source, *parsed));
}

//===----------------------------------------------------------------------===//
// Compiled functions.
//===----------------------------------------------------------------------===//

QuantaCompiledFunction quantaCompile(MlirModule module, MlirStringRef entry) {
  if (mlirModuleIsNull(module))
    return nullFunction();
  ModuleOp op = unwrap(module);
  // The named function, or the only one when `entry` is empty (which
  // CompiledFunction::compile does not choose itself).
  FailureOr<func::FuncOp> function = quanta::findEntryFunction(
      op, unwrap(entry), "quantaCompile's `entry` argument");
  if (failed(function))
    return nullFunction();
  FailureOr<quanta::CompiledFunction> compiled =
      quanta::CompiledFunction::compile(op, function->getSymName(),
                                        "quantaCompile");
  if (failed(compiled))
    return nullFunction();
  return wrap(
      new CompiledFunctionHandle{std::move(*compiled), op.getContext()});
}

intptr_t
quantaCompiledFunctionGetNumArguments(QuantaCompiledFunction function) {
  CompiledFunctionHandle *handle = unwrap(function);
  return handle ? static_cast<intptr_t>(handle->function.getArguments().size())
                : 0;
}

intptr_t quantaCompiledFunctionGetNumResults(QuantaCompiledFunction function) {
  CompiledFunctionHandle *handle = unwrap(function);
  return handle ? static_cast<intptr_t>(handle->function.getResults().size())
                : 0;
}

/// Argument (or result) `pos` of `function`, or null when out of range or
/// `function` is null.
static const quanta::TensorSpec *getSpec(QuantaCompiledFunction function,
                                         bool result, intptr_t pos) {
  CompiledFunctionHandle *handle = unwrap(function);
  if (!handle)
    return nullptr;
  ArrayRef<quanta::TensorSpec> specs =
      result ? handle->function.getResults() : handle->function.getArguments();
  if (pos < 0 || static_cast<size_t>(pos) >= specs.size())
    return nullptr;
  return &specs[pos];
}

/// `spec` as a tensor without data (rank -1 for none).
static QuantaTensor toTensor(const quanta::TensorSpec *spec) {
  QuantaTensor tensor;
  tensor.data = nullptr;
  tensor.shape = spec ? spec->shape.data() : nullptr;
  tensor.rank = spec ? static_cast<intptr_t>(spec->shape.size()) : -1;
  tensor.dtype = spec ? fromNumpyDType(spec->dtypes.front()) : QuantaFloat32;
  return tensor;
}

QuantaTensor quantaCompiledFunctionGetArgument(QuantaCompiledFunction function,
                                               intptr_t pos) {
  return toTensor(getSpec(function, /*result=*/false, pos));
}

QuantaTensor quantaCompiledFunctionGetResult(QuantaCompiledFunction function,
                                             intptr_t pos) {
  return toTensor(getSpec(function, /*result=*/true, pos));
}

MlirLogicalResult quantaCompiledFunctionCall(QuantaCompiledFunction function,
                                             intptr_t numInputs,
                                             const QuantaTensor *inputs,
                                             intptr_t numOutputs,
                                             const QuantaTensor *outputs) {
  static constexpr StringLiteral kName = "quantaCompiledFunctionCall";
  CompiledFunctionHandle *handle = unwrap(function);
  if (!handle)
    return mlirLogicalResultFailure();
  StringRef name = handle->function.getName();
  // The function by name: a call has no place in the IR (the module may be
  // gone), and checkTensors' messages name the function anyway.
  Location loc = NameLoc::get(StringAttr::get(handle->context, name));
  auto convert =
      [&](intptr_t count, const QuantaTensor *tensors, StringRef what,
          std::vector<quanta::runtime::TensorRef> &refs) -> LogicalResult {
    if (count < 0) {
      emitError(loc) << kName << ": negative number of " << what << "s ("
                     << count << ") for '" << name << "'";
      return failure();
    }
    if (count > 0 && !tensors) {
      emitError(loc) << kName << ": null " << what << "s for '" << name << "'";
      return failure();
    }
    for (intptr_t index = 0; index < count; ++index) {
      FailureOr<quanta::runtime::TensorRef> ref =
          toTensorRef(loc, tensors[index], what + " " + Twine(index), kName);
      if (failed(ref))
        return failure();
      refs.push_back(std::move(*ref));
    }
    return success();
  };
  std::vector<quanta::runtime::TensorRef> inputRefs, outputRefs;
  if (failed(convert(numInputs, inputs, "input", inputRefs)) ||
      failed(convert(numOutputs, outputs, "output", outputRefs)))
    return mlirLogicalResultFailure();
  if (llvm::Error error = handle->function.call(inputRefs, outputRefs)) {
    emitError(loc) << kName << ": " << llvm::toString(std::move(error));
    return mlirLogicalResultFailure();
  }
  return mlirLogicalResultSuccess();
}

void quantaCompiledFunctionDestroy(QuantaCompiledFunction function) {
  delete unwrap(function);
}

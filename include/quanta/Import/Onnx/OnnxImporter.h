//===- OnnxImporter.h - ONNX models to linalg on tensors --------*- C++ -*-===//
//
// Translates an ONNX model (the default domain, opsets up to 17) into one
// func.func of linalg, tensor, arith and math ops on tensors: the form
// quanta-prepare, the JIT and the lowerings take. Pre-quantized models
// (QuantizeLinear/DequantizeLinear, QLinearConv, QLinearMatMul) arrive as
// quant.qcast/quant.dcast with !quant.uniform types holding the model's own
// scales and zero points, so quanta-quantize applies without calibration.
//
// Built over Debian's libonnx (protobuf classes and ONNX's own shape
// inference), so a compiler embedding Quanta calls it in process.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_IMPORT_ONNX_ONNXIMPORTER_H
#define QUANTA_IMPORT_ONNX_ONNXIMPORTER_H

#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/OwningOpRef.h"
#include "llvm/ADT/ArrayRef.h"
#include "llvm/ADT/StringRef.h"

#include "llvm/Support/Error.h"

#include <cstdint>
#include <map>
#include <string>

namespace mlir::quanta {

struct OnnxImportOptions {
  /// The size of each symbolic dimension, by its name in the model
  /// (`batch`, `seq`, ...): the generated code is for static shapes.
  std::map<std::string, int64_t, std::less<>> dimSizes;
  /// The size of a symbolic or unknown first dimension of an input (the
  /// batch) that `dimSizes` does not name. 0: none. Any other dimension
  /// left unbound is an error naming it.
  int64_t batchSize = 0;
  /// The name of the generated function.
  std::string functionName = "main";
};

/// Imports the serialized ModelProto `bytes`. `modelPath` names the model in
/// locations and is where external-data initializers are looked up from.
/// Errors (malformed protobuf, an opset above 17 or older than an op's
/// translation, an op or attribute
/// value the importer does not translate, a missing external-data file, ...)
/// are reported through the context's diagnostics, at a location naming the
/// model and the node, and yield a null module: nothing half-imported.
OwningOpRef<ModuleOp> importOnnxModel(MLIRContext *context,
                                      llvm::StringRef bytes,
                                      llvm::StringRef modelPath,
                                      const OnnxImportOptions &options = {});

/// A serialized TensorProto (how ONNX's test data stores inputs and
/// outputs) as an attribute built from its bytes; `isUnsigned` tells uint8
/// from int8. Errors are reported at `loc`.
FailureOr<DenseElementsAttr> importOnnxTensor(Location loc,
                                              llvm::StringRef bytes,
                                              bool *isUnsigned = nullptr);

/// Adds the bindings of `spec` ("name=size,name=size", as --onnx-dim takes
/// them) to `options.dimSizes`; an error says which entry is malformed.
llvm::Error parseOnnxDimSizes(llvm::StringRef spec, OnnxImportOptions &options);

/// The ONNX op types (default domain) the importer translates.
llvm::ArrayRef<llvm::StringRef> getSupportedOnnxOps();

/// Whether input `index` of `opType` must be a constant (an initializer or
/// a Constant node) for the importer: shapes, axes, pads, clip bounds,
/// quantization parameters.
bool isOnnxConstantOperand(llvm::StringRef opType, unsigned index);

/// The dialects imported modules use, to load into a context beforehand.
void registerOnnxImportDialects(DialectRegistry &registry);

} // namespace mlir::quanta

#endif // QUANTA_IMPORT_ONNX_ONNXIMPORTER_H

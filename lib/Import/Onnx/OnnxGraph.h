//===- OnnxGraph.h - The importer's state, shared by its files --*- C++ -*-===//
//
// OnnxImporter.cpp reads the model (protobuf, initializers, external data,
// opsets, graph inputs and outputs) and walks its nodes; the translations
// (OnnxOps.h: OnnxOps.cpp's table, one OnnxOps*.cpp file per op family)
// turn one node at a time into linalg/tensor/arith/math/quant ops on
// tensors through the helpers declared here.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_IMPORT_ONNXGRAPH_H
#define QUANTA_LIB_IMPORT_ONNXGRAPH_H

#include "quanta/Support/ConstantData.h"

#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Quant/IR/QuantTypes.h"
#include "mlir/Dialect/Utils/ReshapeOpsUtils.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/DenseSet.h"
#include "llvm/ADT/StringMap.h"
#include "llvm/ADT/StringSet.h"

#include <onnx/onnx_pb.h>

namespace mlir::quanta::onnx_import {

/// Everything the node translations read and write.
class Graph {
public:
  Graph(OpBuilder &builder, int64_t opset, StringRef modelPath)
      : b(builder), opset(opset), modelPath(modelPath) {}

  OpBuilder &b;
  /// The default domain's opset version of the model.
  int64_t opset;
  /// Where external data is looked up from.
  StringRef modelPath;
  /// The node being translated, and its location (the model and the node).
  const onnx::NodeProto *node = nullptr;
  /// The node's name, or its op type and index when it has none.
  std::string nodeName;
  Location loc = b.getUnknownLoc();

  /// An error about the current node, naming its op type and name.
  InFlightDiagnostic error();

  // Values by ONNX name. Constants (initializers, Constant nodes and what is
  // folded at import) are kept as attributes and materialized on use, so
  // that shape operands can be read at import time.
  llvm::StringMap<Value> values;
  llvm::StringMap<DenseElementsAttr> constants;
  /// Values and constants holding ONNX uint8 (MLIR's integers are
  /// signless).
  llvm::DenseSet<Value> unsignedValues;
  llvm::StringSet<> unsignedConstants;
  bool isUnsigned(Value value) const { return unsignedValues.contains(value); }

  /// Whether input `index` of the node is present (ONNX omits optional
  /// inputs with an empty name).
  bool hasInput(int index) const;
  /// Input `index` as a tensor value (constants materialized).
  FailureOr<Value> input(int index);
  /// Input `index` if it is a constant, else null.
  DenseElementsAttr constantInput(int index);
  /// Input `index` as constant integers (shapes, axes, pads, ...), or an
  /// error saying it must be a constant.
  FailureOr<SmallVector<int64_t>> constantInts(int index, StringRef what);
  /// Input `index` as one constant float, or an error.
  FailureOr<float> constantFloat(int index, StringRef what);
  /// Records output `index` of the node.
  void setOutput(int index, Value value, bool isUnsigned = false);
  void setOutputConstant(int index, DenseElementsAttr value);

  // Attributes of the current node.
  const onnx::AttributeProto *attribute(StringRef name) const;
  int64_t intAttr(StringRef name, int64_t defaultValue) const;
  float floatAttr(StringRef name, float defaultValue) const;
  std::string stringAttr(StringRef name, StringRef defaultValue) const;
  std::optional<SmallVector<int64_t>> intsAttr(StringRef name) const;

  // Builders.
  Value constant(DenseElementsAttr value);
  Value scalar(Type type, double value);
  Value emptyLike(RankedTensorType type);
  Value filled(RankedTensorType type, double value);
  /// `inputs` broadcast numpy-style to `resultType`'s shape, combined
  /// element by element by `body` (given the block's scalar arguments).
  Value
  elementwise(ValueRange inputs, RankedTensorType resultType,
              function_ref<Value(OpBuilder &, Location, ValueRange)> body);
  /// `generic`'s result as a constant when foldGeneric computes it (the
  /// op is then erased), else the result itself.
  Value foldOrResult(linalg::GenericOp generic);
  /// A reduction of `input` over `axes` (kept as size-1 dims iff
  /// `keepDims`), starting from `init`.
  Value reduce(Value input, ArrayRef<int64_t> axes, bool keepDims, double init,
               function_ref<Value(OpBuilder &, Location, Value, Value)> body);
  /// quanta.fake_quant of `input` with the qparams of `type`: how a
  /// QuantizeLinear -> DequantizeLinear pair and DequantizeLinear of
  /// constant weights import. quanta-freeze-qparams makes it the
  /// quant.qcast -> quant.dcast pair (for weights: the quantized float
  /// constant) quanta-quantize takes; canonicalize keeps it, where it
  /// folds such a pair into nothing.
  Value fakeQuantize(Value input, quant::QuantizedType type);
  Value reshape(Value input, ArrayRef<int64_t> shape);
  Value transpose(Value input, ArrayRef<int64_t> permutation);
  Value pad(Value input, ArrayRef<int64_t> low, ArrayRef<int64_t> high,
            double padValue);
  /// Input `index` as an f32 tensor, or an error naming it `what`.
  FailureOr<Value> floatInput(int index, StringRef what);
};

/// The MLIR element type of an ONNX data type the importer reads (uint8:
/// signless i8, marked unsigned), or nullopt.
struct ElementKind {
  Type type;
  bool isUnsigned = false;
};
std::optional<ElementKind> getElementKind(MLIRContext *context,
                                          int32_t dataType);
/// The ONNX name of a data type ("FLOAT16"), for errors.
std::string dataTypeName(int32_t dataType);

/// An initializer or Constant node's tensor (raw or typed fields, or
/// external data next to the model) as an attribute built from its bytes.
FailureOr<DenseElementsAttr> decodeTensor(MLIRContext *context, Location loc,
                                          const onnx::TensorProto &tensor,
                                          StringRef modelPath,
                                          bool *isUnsigned);

/// The most elements a tensor computed at import may have: shape
/// computations and masks are far smaller; a larger computation on
/// constants is left to the compiled code.
constexpr int64_t kMaxFoldedElements = int64_t(1) << 16;

/// The result of `generic` (parallel loops, inputs all constants, an
/// identity output map) computed at import, element by element, by folding
/// its body's ops (arith, math, tensor.extract, linalg.index) with MLIR's
/// own folders, so that the computation at import and in the compiled code
/// are one definition. Null when an op does not fold (a division by zero,
/// an op without a folder) or the result has more than kMaxFoldedElements.
DenseElementsAttr foldGeneric(linalg::GenericOp generic);

// Data movement on constants at import (transpose, slice, concat, gather).
using quanta::remapConstant;
using quanta::transposeConstant;

/// Which node computes each value of a graph and how many times each value
/// is read (graph outputs count as reads): what the graph-level rewrites
/// before translation (Conv-BatchNorm folding, layer-norm fusion) check.
struct ValueUses {
  explicit ValueUses(const onnx::GraphProto &graph);
  llvm::StringMap<int> producers, reads;
};

/// Moves the body's constants before `generic`: quanta-quantize's matchers
/// (clamps, lookup tables) read bodies of compute ops only, as
/// tosa-to-linalg writes them.
void hoistConstants(linalg::GenericOp generic);

/// Replaces each chain of f32 elementwise ops of one tensor (and
/// one-element constants), whose intermediate values have no other user,
/// by one linalg.generic of that tensor computing the same ops in the same
/// order (FuseUnaryChains.cpp).
void fuseUnaryChains(func::FuncOp func);

/// A LayerNormalization node for each layer norm written out in opset-13
/// nodes (ReduceMean, Sub, Pow 2, ReduceMean, Add eps, Sqrt, Div, Mul
/// gamma, Add beta over trailing axes, intermediate values read by the
/// chain only), keyed by the index of its last node, whose output it
/// computes; `replaced` receives the indices of the others
/// (FuseLayerNorms.cpp).
llvm::DenseMap<int, onnx::NodeProto>
fuseLayerNorms(const onnx::GraphProto &graph,
               const llvm::StringMap<DenseElementsAttr> &constants,
               llvm::DenseSet<int> &replaced);

/// A com.microsoft.DynamicQuantizeMatMul node for each dynamic MatMul
/// written as ONNX Runtime's quantize_dynamic writes it
/// (DynamicQuantizeLinear, MatMulInteger with constant B, Cast to float,
/// Mul by the input scale times a constant B scale, then a constant bias
/// Add if the product feeds it alone) whose constants the int8 kernels
/// take, keyed by the index of its last node; `replaced` receives the
/// others, and each DynamicQuantizeLinear all of whose outputs the chains
/// read (FuseDynamicMatMuls.cpp).
llvm::DenseMap<int, onnx::NodeProto>
fuseDynamicMatMuls(const onnx::GraphProto &graph,
                   const llvm::StringMap<DenseElementsAttr> &constants,
                   const llvm::StringSet<> &unsignedConstants,
                   llvm::DenseSet<int> &replaced);

/// The numpy broadcast of two shapes, or nullopt if they do not broadcast.
std::optional<SmallVector<int64_t>> broadcastShapes(ArrayRef<int64_t> a,
                                                    ArrayRef<int64_t> b);

/// What the importer knows of an op type.
struct OpInfo {
  /// Translates the current node of a graph.
  LogicalResult (*translate)(Graph &);
  /// The first opset whose definition of the op the translation implements
  /// (later definitions only added types or forms it also reads).
  int64_t sinceVersion;
  /// Bit i: input i must be a constant (shapes, axes, pads, bounds,
  /// quantization parameters).
  uint32_t constantOperands;
};

/// The op type's entry, or null.
const OpInfo *lookupOp(StringRef opType);
/// The translated op types, sorted.
ArrayRef<StringRef> supportedOps();

} // namespace mlir::quanta::onnx_import

#endif // QUANTA_LIB_IMPORT_ONNXGRAPH_H

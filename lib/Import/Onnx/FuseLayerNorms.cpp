//===- FuseLayerNorms.cpp - Opset-13 layer norms as LayerNormalization ----===//
//
// Before opset 17 ONNX has no LayerNormalization: exporters write nn.LayerNorm
// as nine nodes (torch 1.13: ReduceMean, Sub, Pow 2, ReduceMean, Add eps,
// Sqrt, Div, Mul gamma, Add beta). Translated node by node, each output
// would be observed and quantized on its own, the squared deviations and
// the variance included: in 8 bits they lose the small values that the
// normalization divides by (torchvision's vit_b_16 exported at opset 14
// quantized to an SQNR of -0.5 dB). PyTorch observes the module's output
// only. As ONNX Runtime's LayerNormFusion does, the importer reads such a
// chain as one LayerNormalization node over the same trailing axes, whose
// translation is the opset-17 op's (the same mean, variance and
// 1 / sqrt(variance + eps), so the float model matches PyTorch as before).
//
//===----------------------------------------------------------------------===//

#include "OnnxGraph.h"

#include "llvm/ADT/StringExtras.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

namespace {
/// The graph's producers and use counts, and its scalar constants.
class GraphIndex {
public:
  GraphIndex(const onnx::GraphProto &graph,
             const llvm::StringMap<DenseElementsAttr> &constants)
      : graph(graph), constants(constants), uses(graph) {}

  /// The node computing `name` if it is of `opType` with `inputs` inputs
  /// and one output, and `name` is read `readers` times.
  const onnx::NodeProto *producer(StringRef name, StringRef opType, int inputs,
                                  int readers, int &index) const {
    auto it = uses.producers.find(name);
    if (it == uses.producers.end() || uses.reads.lookup(name) != readers)
      return nullptr;
    index = it->second;
    return isNode(graph.node(index), opType, inputs) ? &graph.node(index)
                                                     : nullptr;
  }

  /// Whether `node` is a default-domain `opType` with `inputs` inputs and
  /// one output (a malformed model may have any other count).
  static bool isNode(const onnx::NodeProto &node, StringRef opType,
                     int inputs) {
    return node.op_type() == opType && node.domain().empty() &&
           node.input_size() == inputs && node.output_size() == 1;
  }

  /// The value of a one-element float constant: an initializer or a
  /// Constant node's `value` / `value_float`.
  std::optional<float> scalar(StringRef name) const {
    if (DenseElementsAttr attr = constants.lookup(name))
      return attr.getNumElements() == 1 && attr.getElementType().isF32()
                 ? std::optional<float>(*attr.value_begin<float>())
                 : std::nullopt;
    auto it = uses.producers.find(name);
    if (it == uses.producers.end())
      return std::nullopt;
    const onnx::NodeProto &node = graph.node(it->second);
    if (node.op_type() != "Constant")
      return std::nullopt;
    for (const onnx::AttributeProto &attr : node.attribute()) {
      if (attr.name() == "value_float")
        return attr.f();
      const onnx::TensorProto &tensor = attr.t();
      if (attr.name() != "value" ||
          tensor.data_type() != onnx::TensorProto::FLOAT)
        continue;
      int64_t elements = 1;
      for (int64_t dim : tensor.dims())
        elements *= dim;
      if (elements != 1)
        return std::nullopt;
      if (tensor.float_data_size() == 1)
        return tensor.float_data(0);
      if (tensor.raw_data().size() == sizeof(float)) {
        float value;
        std::memcpy(&value, tensor.raw_data().data(), sizeof(float));
        return value;
      }
    }
    return std::nullopt;
  }

private:
  const onnx::GraphProto &graph;
  const llvm::StringMap<DenseElementsAttr> &constants;
  const ValueUses uses;
};
} // namespace

/// The `axes` of a ReduceMean that keeps its dimensions (attribute form,
/// opsets 13 to 17), or nullopt.
static std::optional<SmallVector<int64_t>>
getKeptMeanAxes(const onnx::NodeProto &node) {
  std::optional<SmallVector<int64_t>> axes;
  for (const onnx::AttributeProto &attr : node.attribute()) {
    if (attr.name() == "keepdims" && attr.i() != 1)
      return std::nullopt;
    if (attr.name() == "axes")
      axes = SmallVector<int64_t>(attr.ints().begin(), attr.ints().end());
  }
  return axes;
}

llvm::DenseMap<int, onnx::NodeProto>
onnx_import::fuseLayerNorms(const onnx::GraphProto &graph,
                            const llvm::StringMap<DenseElementsAttr> &constants,
                            llvm::DenseSet<int> &replaced) {
  GraphIndex index(graph, constants);
  llvm::DenseMap<int, onnx::NodeProto> fused;
  // Matched from the last node back: Add(Mul(Div(d, Sqrt(Add(
  // ReduceMean(Pow(d, 2)), eps))), gamma), beta), d = Sub(x, ReduceMean(x)).
  for (auto [last, addBeta] : llvm::enumerate(graph.node())) {
    if (!GraphIndex::isNode(addBeta, "Add", 2))
      continue;
    int mulIndex, divIndex, sqrtIndex, addEpsIndex, varianceIndex, powIndex,
        subIndex, meanIndex;
    const onnx::NodeProto *mul =
        index.producer(addBeta.input(0), "Mul", 2, 1, mulIndex);
    const onnx::NodeProto *div =
        mul ? index.producer(mul->input(0), "Div", 2, 1, divIndex) : nullptr;
    const onnx::NodeProto *sqrt =
        div ? index.producer(div->input(1), "Sqrt", 1, 1, sqrtIndex) : nullptr;
    const onnx::NodeProto *addEps =
        sqrt ? index.producer(sqrt->input(0), "Add", 2, 1, addEpsIndex)
             : nullptr;
    const onnx::NodeProto *variance =
        addEps ? index.producer(addEps->input(0), "ReduceMean", 1, 1,
                                varianceIndex)
               : nullptr;
    const onnx::NodeProto *pow =
        variance ? index.producer(variance->input(0), "Pow", 2, 1, powIndex)
                 : nullptr;
    const onnx::NodeProto *sub =
        pow ? index.producer(pow->input(0), "Sub", 2, 2, subIndex) : nullptr;
    const onnx::NodeProto *mean =
        sub ? index.producer(sub->input(1), "ReduceMean", 1, 1, meanIndex)
            : nullptr;
    if (!mean || div->input(0) != pow->input(0) ||
        mean->input(0) != sub->input(0) || index.scalar(pow->input(1)) != 2.0f)
      continue;
    std::optional<float> epsilon = index.scalar(addEps->input(1));
    std::optional<SmallVector<int64_t>> meanAxes = getKeptMeanAxes(*mean),
                                        varianceAxes =
                                            getKeptMeanAxes(*variance);
    // The same trailing axes, counted from the end: [-1] or [-2, -1].
    if (!epsilon || !meanAxes || meanAxes != varianceAxes ||
        meanAxes->empty() || meanAxes->back() != -1)
      continue;
    bool trailing = true;
    for (auto [position, axis] : llvm::enumerate(*meanAxes))
      trailing &= axis == int64_t(position) - int64_t(meanAxes->size());
    if (!trailing)
      continue;
    onnx::NodeProto node;
    node.set_op_type("LayerNormalization");
    // Named as an opset-17 export names it: <module>/LayerNormalization.
    StringRef name = mean->name();
    node.set_name(name.contains('/')
                      ? (name.rsplit('/').first + "/LayerNormalization").str()
                      : "");
    node.add_input(mean->input(0));
    node.add_input(mul->input(1));
    node.add_input(addBeta.input(1));
    node.add_output(addBeta.output(0));
    onnx::AttributeProto *axis = node.add_attribute();
    axis->set_name("axis");
    axis->set_type(onnx::AttributeProto::INT);
    axis->set_i((*meanAxes)[0]);
    onnx::AttributeProto *eps = node.add_attribute();
    eps->set_name("epsilon");
    eps->set_type(onnx::AttributeProto::FLOAT);
    eps->set_f(*epsilon);
    fused[last] = std::move(node);
    for (int replacedIndex : {mulIndex, divIndex, sqrtIndex, addEpsIndex,
                              varianceIndex, powIndex, subIndex, meanIndex})
      replaced.insert(replacedIndex);
  }
  return fused;
}

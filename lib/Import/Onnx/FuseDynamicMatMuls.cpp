//===- FuseDynamicMatMuls.cpp - ONNX Runtime's dynamic MatMul as one node -===//
//
// ONNX Runtime's quantize_dynamic writes each MatMul with constant weights
// as DynamicQuantizeLinear(x) -> (xq, xs, xz), MatMulInteger(xq, B, xz,
// Bz), Cast to float, Mul(xs, B scale), Mul of the two (then the model's
// own Add of the bias). Translated node by node that is a float reduction,
// integer linalg loops and three elementwise passes, which no int8 kernel
// takes. As ONNX Runtime's MatMulIntegerToFloat/DynamicQuantizeMatMul
// fusion does, the importer reads each such chain as one
// com.microsoft.DynamicQuantizeMatMul (the bias Add included when the
// product feeds only it), which becomes quanta.dynamic_qmatmul with ONNX
// Runtime's numerics: the same values, on the int8 GEMM.
//
//===----------------------------------------------------------------------===//

#include "OnnxOps.h"

using namespace mlir;
using namespace mlir::quanta;
using namespace mlir::quanta::onnx_import;

namespace {
/// The chain of one dynamic MatMul, by node index.
struct DynamicMatMulChain {
  /// matMul is a MatMulInteger or a ConvInteger; biasShape the Reshape of a
  /// convolution's bias to [1, F, 1, 1] (ONNX Runtime's add_bias).
  int quantize, matMul, cast, scaleMul, outputMul, biasAdd = -1, biasShape = -1;
};

class DynamicMatMulMatcher {
public:
  DynamicMatMulMatcher(const onnx::GraphProto &graph,
                       const llvm::StringMap<DenseElementsAttr> &constants,
                       const llvm::StringSet<> &unsignedConstants)
      : graph(graph), constants(constants),
        unsignedConstants(unsignedConstants), uses(graph) {
    for (auto [index, node] : llvm::enumerate(graph.node()))
      for (const std::string &input : node.input())
        readers[input] = index;
  }

  /// The chain whose last Mul is `outputMul`, and its fused node.
  std::optional<DynamicMatMulChain> match(int outputMul,
                                          onnx::NodeProto &fused) const {
    const onnx::NodeProto &mul = graph.node(outputMul);
    if (!isNode(mul, "Mul", 2, 1))
      return std::nullopt;
    for (int castSide : {0, 1}) {
      DynamicMatMulChain chain;
      chain.outputMul = outputMul;
      chain.cast = producer(mul.input(castSide), "Cast", 1, 1);
      if (chain.cast < 0 || !castsToFloat(graph.node(chain.cast)))
        continue;
      const onnx::NodeProto &castNode = graph.node(chain.cast);
      chain.matMul = producer(castNode.input(0), "MatMulInteger", 0, 1);
      if (chain.matMul < 0)
        chain.matMul = producer(castNode.input(0), "ConvInteger", 0, 1);
      if (chain.matMul < 0)
        continue;
      const bool isConv = graph.node(chain.matMul).op_type() == "ConvInteger";
      const onnx::NodeProto &matMul = graph.node(chain.matMul);
      if (matMul.input_size() < 3)
        continue;
      chain.quantize =
          producer(matMul.input(0), "DynamicQuantizeLinear", 1, 3, -1);
      if (chain.quantize < 0)
        continue;
      const onnx::NodeProto &quantize = graph.node(chain.quantize);
      if (matMul.input(0) != quantize.output(0) ||
          matMul.input(2) != quantize.output(2))
        continue;
      chain.scaleMul = producer(mul.input(1 - castSide), "Mul", 2, 1);
      if (chain.scaleMul < 0)
        continue;
      const onnx::NodeProto &scaleMul = graph.node(chain.scaleMul);
      const int scaleSide = scaleMul.input(0) == quantize.output(1) ? 1 : 0;
      if (scaleMul.input(1 - scaleSide) != quantize.output(1))
        continue;
      const std::string &weightScale = scaleMul.input(scaleSide);
      const std::string weightZero =
          matMul.input_size() > 3 ? matMul.input(3) : std::string();
      DenseElementsAttr b = constants.lookup(matMul.input(1));
      // 2-D convolutions of one group, their weights as a K x N matrix.
      if (b && isConv)
        b = isGroupOne(matMul) ? convolutionWeightMatrix(b)
                               : DenseElementsAttr();
      if (!b || cast<ShapedType>(b.getType()).getRank() != 2 ||
          (!weightZero.empty() && !constants.lookup(weightZero)))
        continue;
      // A bias Add reading the product alone joins the chain: one value
      // per column of B, for a convolution reshaped to [1, F, 1, 1].
      const int64_t columns = cast<ShapedType>(b.getType()).getShape().back();
      std::string bias, output = mul.output(0);
      auto reader = readers.find(output);
      if (uses.reads.lookup(output) == 1 && reader != readers.end() &&
          isNode(graph.node(reader->second), "Add", 2, 1)) {
        const onnx::NodeProto &add = graph.node(reader->second);
        std::string other = add.input(add.input(0) == output ? 1 : 0);
        int biasShape = -1;
        if (isConv) {
          biasShape = producer(other, "Reshape", 2, 1);
          other =
              biasShape >= 0 && isChannelShape(graph.node(biasShape), columns)
                  ? graph.node(biasShape).input(0)
                  : std::string();
        }
        DenseElementsAttr values = constants.lookup(other);
        if (values && values.getElementType().isF32() &&
            cast<ShapedType>(values.getType()).getShape() ==
                ArrayRef<int64_t>{columns}) {
          bias = other;
          output = add.output(0);
          chain.biasAdd = reader->second;
          chain.biasShape = biasShape;
        }
      }
      DynamicMatMulConstants read;
      if (readDynamicMatMulConstants(
              b, unsignedConstants.contains(matMul.input(1)),
              constants.lookup(weightScale),
              weightZero.empty() ? DenseElementsAttr()
                                 : constants.lookup(weightZero),
              bias.empty() ? DenseElementsAttr() : constants.lookup(bias),
              read))
        continue;
      fused = onnx::NodeProto();
      if (isConv) {
        fused.set_op_type(kDynamicQuantizeConv.str());
        fused.set_domain(kFusedDomain.str());
        // The window: kernel_shape, strides, pads, dilations, auto_pad.
        *fused.mutable_attribute() = matMul.attribute();
      } else {
        fused.set_op_type("DynamicQuantizeMatMul");
        fused.set_domain("com.microsoft");
      }
      fused.set_name(matMul.name());
      for (const std::string &input :
           {quantize.input(0), matMul.input(1), weightScale, weightZero, bias})
        fused.add_input(input);
      fused.add_output(output);
      return chain;
    }
    return std::nullopt;
  }

  /// How many times `name` is read (graph outputs count).
  int reads(StringRef name) const { return uses.reads.lookup(name); }

private:
  static bool isGroupOne(const onnx::NodeProto &node) {
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == "group")
        return attr.i() == 1;
    return true;
  }
  /// Whether a Reshape's constant shape is [1, -1, 1, 1] or [1, F, 1, 1]
  /// (the bias of an NCHW convolution's F channels).
  bool isChannelShape(const onnx::NodeProto &reshape, int64_t channels) const {
    DenseElementsAttr shape = constants.lookup(reshape.input(1));
    if (!shape || !shape.getElementType().isInteger(64) ||
        shape.getNumElements() != 4)
      return false;
    SmallVector<int64_t> dims(shape.getValues<int64_t>());
    return dims[0] == 1 && dims[2] == 1 && dims[3] == 1 &&
           (dims[1] == -1 || dims[1] == channels);
  }
  static bool isNode(const onnx::NodeProto &node, StringRef opType, int inputs,
                     int outputs) {
    return node.op_type() == opType && node.domain().empty() &&
           (inputs == 0 || node.input_size() == inputs) &&
           node.output_size() == outputs;
  }
  static bool castsToFloat(const onnx::NodeProto &node) {
    for (const onnx::AttributeProto &attr : node.attribute())
      if (attr.name() == "to")
        return attr.i() == onnx::TensorProto::FLOAT;
    return false;
  }
  /// The node computing `name`, if it is `opType` with `inputs` inputs (0:
  /// any) and `outputs` outputs and `name` is read `readCount` times (-1:
  /// any), else -1.
  int producer(StringRef name, StringRef opType, int inputs, int outputs,
               int readCount = 1) const {
    auto it = uses.producers.find(name);
    if (it == uses.producers.end() ||
        (readCount >= 0 && uses.reads.lookup(name) != readCount) ||
        !isNode(graph.node(it->second), opType, inputs, outputs))
      return -1;
    return it->second;
  }

  const onnx::GraphProto &graph;
  const llvm::StringMap<DenseElementsAttr> &constants;
  const llvm::StringSet<> &unsignedConstants;
  const ValueUses uses;
  /// The reader of each value read once (the last reader otherwise).
  llvm::StringMap<int> readers;
};
} // namespace

llvm::DenseMap<int, onnx::NodeProto> onnx_import::fuseDynamicMatMuls(
    const onnx::GraphProto &graph,
    const llvm::StringMap<DenseElementsAttr> &constants,
    const llvm::StringSet<> &unsignedConstants, llvm::DenseSet<int> &replaced) {
  DynamicMatMulMatcher matcher(graph, constants, unsignedConstants);
  llvm::DenseMap<int, onnx::NodeProto> fused;
  // Chains per DynamicQuantizeLinear: it goes when they read all of it.
  llvm::DenseMap<int, int> chainsOf;
  for (int index = 0; index < graph.node_size(); ++index) {
    onnx::NodeProto node;
    std::optional<DynamicMatMulChain> chain = matcher.match(index, node);
    if (!chain)
      continue;
    const int last = chain->biasAdd >= 0 ? chain->biasAdd : chain->outputMul;
    for (int part : {chain->matMul, chain->cast, chain->scaleMul,
                     chain->outputMul, chain->biasAdd, chain->biasShape})
      if (part >= 0 && part != last)
        replaced.insert(part);
    fused[last] = std::move(node);
    ++chainsOf[chain->quantize];
  }
  for (const auto &[quantize, chains] : chainsOf) {
    const int count = chains;
    const onnx::NodeProto &node = graph.node(quantize);
    if (llvm::all_of(node.output(), [&](const std::string &output) {
          return matcher.reads(output) == count;
        }))
      replaced.insert(quantize);
  }
  return fused;
}

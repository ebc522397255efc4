//===- ElementwiseEpilogue.h - Elementwise consumers fused into a kernel --===//
//
// A float model's convolution or Linear layer is followed by elementwise
// linalg.generics (ONNX's bias add, then a ReLU or ReLU6 clamp, a residual
// add), each a pass over the whole output in memory. The float kernels
// apply them instead to each output while it is in registers: the same
// scalar ops of each generic's body, per lane, in the same order, so the
// values are those of the unfused graph.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_LIB_CODEGEN_CPU_ELEMENTWISEEPILOGUE_H
#define QUANTA_LIB_CODEGEN_CPU_ELEMENTWISEEPILOGUE_H

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/Builders.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::quanta {

class ElementwiseEpilogue {
public:
  /// How a fused generic's input is read at an output position.
  enum class Read {
    /// The value computed so far (the kernel's, or the previous stage's).
    Chain,
    /// Another tensor of the output's shape, at the same position.
    Element,
    /// A vector indexed by the last (channel, column) dimension alone.
    Column,
  };
  struct Stage {
    linalg::GenericOp generic;
    SmallVector<Read> reads;
  };

  /// The chain of generics after `result` (a kernel's static f32 result)
  /// that can be fused: each all-parallel over the result's shape, its
  /// output written whole (its init not read), reading the previous value
  /// and otherwise only tensors of that shape, per-column vectors and
  /// scalar constants, its body arith/math elementwise ops; each value but
  /// the last read by the next stage alone. Empty when none follows. With
  /// `throughRowExpansion`, a matrix value (M x N) expanded into leading
  /// dimensions with N last (an ONNX MatMul of a [B, S, K] input, before
  /// or after its bias add) is followed through the expansion: the stages
  /// over that shape read their other tensors as M x N matrices (collapsed
  /// like the result).
  static ElementwiseEpilogue match(Value result,
                                   bool throughRowExpansion = false);

  bool empty() const { return stages.empty(); }
  ArrayRef<Stage> getStages() const { return stages; }
  /// The op whose result the fused kernel replaces (the last stage), and
  /// where it is built so that every input is defined.
  Operation *getLast() const { return stages.back().generic; }

  /// `value` (a scalar or vector of the result's values) through every
  /// stage; `read` gives the value of each other input (a scalar, or a
  /// vector like `value`'s).
  Value apply(OpBuilder &b, Location loc, Value value,
              function_ref<Value(Value input, Read read)> read) const;

  /// apply() to a kernel's output vector at (`row`, `column`) of its M x N
  /// result: per-column inputs read at `column`, the others from
  /// `matrices` (elementMatrices') at (`row`, `column`), lanes past the
  /// last column as `pad`.
  Value applyAt(OpBuilder &b, Location loc, Value value, Value row,
                Value column, Value pad,
                const llvm::DenseMap<Value, Value> &matrices) const;

  /// The stages' inputs of the result's shape (Read::Element), each as an
  /// M x N matrix like the kernel's result (leading dimensions folded into
  /// rows), built at `b`.
  llvm::DenseMap<Value, Value> elementMatrices(OpBuilder &b,
                                               Location loc) const;

  /// Replaces the last stage's result by `fused` (of the kernel's shape;
  /// expanded as the result was) and erases the stages, the expansion and
  /// `kernel`, whose result they read.
  void replace(RewriterBase &rewriter, Operation *kernel, Value fused) const;

private:
  SmallVector<Stage> stages;
  /// Where the result's rows are expanded (null: nowhere), after the first
  /// stagesBeforeExpansion stages.
  tensor::ExpandShapeOp expansion;
  size_t stagesBeforeExpansion = 0;
};

} // namespace mlir::quanta

#endif // QUANTA_LIB_CODEGEN_CPU_ELEMENTWISEEPILOGUE_H

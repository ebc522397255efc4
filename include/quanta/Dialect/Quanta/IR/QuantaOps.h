//===- QuantaOps.h - quanta dialect operations ------------------*- C++ -*-===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H
#define QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

namespace mlir::quanta {
/// The window of a convolution whose input a GEMM reads as its implicit
/// im2col matrix (quanta.qmatmul's and quanta.dynamic_qmatmul's `window`).
struct ConvWindow {
  int64_t kernelH, kernelW, strideH, strideW, dilationH, dilationW;
  /// The output size along a spatial dimension of `size` input rows.
  static int64_t outputSize(int64_t size, int64_t kernel, int64_t stride,
                            int64_t dilation) {
    return (size - dilation * (kernel - 1) - 1) / stride + 1;
  }
};
} // namespace mlir::quanta

#define GET_OP_CLASSES
#include "quanta/Dialect/Quanta/IR/QuantaOps.h.inc"

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H

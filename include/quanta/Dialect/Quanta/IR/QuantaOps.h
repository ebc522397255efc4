//===- QuantaOps.h - quanta dialect operations ------------------*- C++ -*-===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H
#define QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

#include "mlir/Bytecode/BytecodeOpInterface.h"
#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/OpDefinition.h"
#include "mlir/Interfaces/SideEffectInterfaces.h"

#define GET_OP_CLASSES
#include "quanta/Dialect/Quanta/IR/QuantaOps.h.inc"

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_H

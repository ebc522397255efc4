//===- Passes.h - Calibration's passes --------------------------*- C++ -*-===//
//
// quanta-calibrate runs the observed model in the JIT (Target/) on data
// files; quanta-export-statistics and quanta-import-statistics carry the
// statistics between calibration runs and shards.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_CALIBRATION_PASSES_H
#define QUANTA_CALIBRATION_PASSES_H

#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/Func/IR/FuncOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/Dialect/SCF/IR/SCF.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Pass/Pass.h"

namespace mlir::quanta {

#define GEN_PASS_DECL
#include "quanta/Calibration/Passes.h.inc"

#define GEN_PASS_REGISTRATION
#include "quanta/Calibration/Passes.h.inc"

} // namespace mlir::quanta

#endif // QUANTA_CALIBRATION_PASSES_H

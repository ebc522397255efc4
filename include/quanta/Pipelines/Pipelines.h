//===- Pipelines.h - Quanta's named pipelines -------------------*- C++ -*-===//
//
// The phases of post-training quantization as named pipelines, each
// defined once here and used by quant-opt, the tools, the C++ and C APIs
// and the Python package:
//
//   quanta-prepare      TOSA to linalg, observers (PyTorch's prepare())
//   quanta-calibrate    (a pass) the model run on data, statistics folded
//   quanta-ptq          prepare + calibrate + freeze, in one pipeline
//   quanta-compile      a calibrated module to kernels for its target:
//                       freeze, quantize, propagate layouts, lower kernels
//   quanta-lower-to-llvm  kernels to the LLVM dialect (JIT, object files)
//
// A pipeline's options are those of the passes it runs, parsed by those
// passes (one definition per option, in the passes' Passes.td): each
// `name=value` goes to the pass that takes it.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_PIPELINES_PIPELINES_H
#define QUANTA_PIPELINES_PIPELINES_H

#include "quanta/Calibration/Passes.h"
#include "quanta/Codegen/CPU/Passes.h"
#include "quanta/Codegen/Common/Passes.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Pass/PassManager.h"

namespace mlir::quanta {

/// PyTorch's prepare() options: quanta-insert-observers'.
using PrepareOptions = InsertObserversOptions;

/// What quanta-prepare does before the observers: upstream TOSA to linalg
/// and canonicalize (no TOSA ops: canonicalize only).
void buildFrontEndPipeline(OpPassManager &pm);

/// quanta-prepare: upstream TOSA to linalg (a no-op on linalg input), then
/// quanta-insert-observers with `options`.
void buildPreparePipeline(OpPassManager &pm, const PrepareOptions &options);

/// quanta-ptq: quanta-prepare, quanta-calibrate, quanta-freeze-qparams.
void buildPtqPipeline(OpPassManager &pm, const PrepareOptions &prepare,
                      const CalibrateOptions &calibrate);

/// The options of quanta-compile: those of the passes it runs.
struct CompileOptions {
  QuantizeOptions quantize;
  LowerCpuOptions kernels;
};

/// The conversion half of quanta-compile: quanta-freeze-qparams,
/// quanta-quantize, quanta-propagate-layout. Its result is the int8 IR
/// for any target (quanta.qmatmul and integer linalg), before the kernels.
void buildConvertPipeline(OpPassManager &pm, const QuantizeOptions &options);

/// quanta-compile, after calibration: quanta-freeze-qparams,
/// quanta-quantize, quanta-propagate-layout, quanta-lower-cpu (the kernels
/// for the module's `quanta.target`, else this machine).
void buildCompilePipeline(OpPassManager &pm, const CompileOptions &options);

/// Registers every Quanta pass of every layer and the named pipelines.
void registerQuantaPassesAndPipelines();

} // namespace mlir::quanta

#endif // QUANTA_PIPELINES_PIPELINES_H

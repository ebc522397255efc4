/*===-- quanta-c/Quanta.h - Quanta's C API ---------------------*- C -*-===*\
|*                                                                            *|
|* Quanta's public API (quanta/API/Quanta.h) for C and for languages that    *|
|* bind to C, in the style of MLIR's C API and over its handles: a caller    *|
|* creates the MlirDialectRegistry, MlirContext and MlirModule with MLIR's   *|
|* C API (mlir-c/IR.h) and passes them here.                                 *|
|*                                                                            *|
|*   MlirDialectRegistry registry = mlirDialectRegistryCreate();             *|
|*   quantaRegisterAllDialects(registry);                                    *|
|*   quantaRegisterAllPasses();                                              *|
|*   MlirContext context = mlirContextCreateWithRegistry(registry, false);   *|
|*   mlirContextAttachDiagnosticHandler(context, handler, data, NULL);       *|
|*   MlirModule module = mlirModuleCreateParseFromFile(context, path);       *|
|*   quantaRunPassPipeline(module, "quanta-prepare");                        *|
|*   quantaCalibrate(module, "entry=f threads=2", numBatches, numArguments,  *|
|*                   batches);                                               *|
|*   quantaRunPassPipeline(module, "quanta-compile");                        *|
|*   QuantaCompiledFunction f = quantaCompile(module, entry);                *|
|*   quantaCompiledFunctionCall(f, 1, &input, 1, &output);                   *|
|*   quantaCompiledFunctionDestroy(f);                                       *|
|*                                                                            *|
|* Errors: every function that can fail returns an MlirLogicalResult (or a   *|
|* null handle) and reports why as MLIR error diagnostics in the module's    *|
|* context, which reach the handlers attached with                           *|
|* mlirContextAttachDiagnosticHandler (without one, MLIR prints them to      *|
|* stderr). No function aborts the process on bad input: malformed tensors   *|
|* (null pointers, negative ranks or dimensions, unknown dtypes) are errors   *|
|* too. What cannot be checked is the caller's: a tensor's data must hold    *|
|* the elements its shape and dtype describe.                                *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#ifndef QUANTA_C_QUANTA_H
#define QUANTA_C_QUANTA_H

#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <stdbool.h>
#include <stdint.h>

//===----------------------------------------------------------------------===//
// Visibility annotations, as MLIR_CAPI_EXPORTED (mlir-c/Support.h).
//===----------------------------------------------------------------------===//

#if (defined(_WIN32) || defined(__CYGWIN__)) &&                                \
    !defined(QUANTA_CAPI_ENABLE_WINDOWS_DLL_DECLSPEC)
// Visibility annotations disabled.
#define QUANTA_CAPI_EXPORTED
#elif defined(_WIN32) || defined(__CYGWIN__)
// Windows visibility declarations.
#if QUANTA_CAPI_BUILDING_LIBRARY
#define QUANTA_CAPI_EXPORTED __declspec(dllexport)
#else
#define QUANTA_CAPI_EXPORTED __declspec(dllimport)
#endif
#else
// Non-windows: use visibility attributes.
#define QUANTA_CAPI_EXPORTED __attribute__((visibility("default")))
#endif

#ifdef __cplusplus
extern "C" {
#endif

//===----------------------------------------------------------------------===//
// Registration and pass pipelines.
//===----------------------------------------------------------------------===//

/// Inserts Quanta's dialect, every upstream dialect and extension and the
/// LLVM IR translations into `registry`: what any pipeline below may produce
/// or consume. A context created with it (mlirContextCreateWithRegistry)
/// should then load them (mlirContextLoadAllAvailableDialects) before
/// parsing.
QUANTA_CAPI_EXPORTED void
quantaRegisterAllDialects(MlirDialectRegistry registry);

/// Registers upstream MLIR's passes and Quanta's passes and pipelines (what
/// quant-opt offers), so that quantaRunPassPipeline knows them. Process-wide;
/// call once, before the first pipeline.
QUANTA_CAPI_EXPORTED void quantaRegisterAllPasses(void);

/// Parses `pipeline`, in quant-opt's textual form (a
/// `builtin.module(...)` pipeline or a bare list of passes, e.g.
/// "quanta-prepare" or "builtin.module(func.func(quanta-freeze-qparams),
/// quanta-quantize)"), and runs it on `module`. A bad pipeline is an error
/// at the module; the passes report theirs at the ops.
QUANTA_CAPI_EXPORTED MlirLogicalResult
quantaRunPassPipeline(MlirModule module, MlirStringRef pipeline);

//===----------------------------------------------------------------------===//
// Tensors in memory.
//===----------------------------------------------------------------------===//

/// The element type of a QuantaTensor; each is the NumPy dtype of the same
/// name (float32, float64, int8, uint8, int16, int32, int64), little-endian.
enum QuantaDType {
  QuantaFloat32 = 0,
  QuantaFloat64 = 1,
  QuantaInt8 = 2,
  QuantaUInt8 = 3,
  QuantaInt16 = 4,
  QuantaInt32 = 5,
  QuantaInt64 = 6,
};
typedef enum QuantaDType QuantaDType;

/// A view of a tensor the caller owns: `rank` dimensions at `shape` (NULL
/// when `rank` is 0) of `dtype` elements, contiguous in row-major (C) order
/// at `data`. `data` may be NULL only when a dimension is 0. Nothing is
/// copied or kept beyond the call that takes it.
typedef struct {
  void *data;
  const int64_t *shape;
  intptr_t rank;
  QuantaDType dtype;
} QuantaTensor;

//===----------------------------------------------------------------------===//
// Calibration.
//===----------------------------------------------------------------------===//

/// Calibrates a prepared `module` (one with observers, after
/// "quanta-prepare"): JIT-compiles its entry function, runs it on every
/// batch and folds the statistics its observers gather into the IR,
/// continuing from statistics already there. `options` are
/// quanta-calibrate's, in quant-opt's form and parsed by that pass
/// ("entry=f threads=2 batch-limit=8", "" for the defaults; `data` and
/// `quiet` are not read: the batches are given here); a bad one is an
/// error.
/// `batches` holds `numBatches` * `numArguments` tensors, batch-major: the
/// `numArguments` arguments of batch 0, then those of batch 1, ...; each is
/// a float32 tensor in the shape of its argument. A batch that does not
/// match the entry's signature is an error; the module is then left as it
/// was.
QUANTA_CAPI_EXPORTED MlirLogicalResult
quantaCalibrate(MlirModule module, MlirStringRef options, intptr_t numBatches,
                intptr_t numArguments, const QuantaTensor *batches);

//===----------------------------------------------------------------------===//
// Compiled functions.
//===----------------------------------------------------------------------===//

/// A function of a module, JIT-compiled for this machine, that is called on
/// tensors in memory. It is independent of the module (which may change or
/// be destroyed) but reports errors in the module's context, which must
/// outlive it. Destroy it with quantaCompiledFunctionDestroy.
typedef struct {
  void *ptr;
} QuantaCompiledFunction;

/// Whether `function` is null (quantaCompile failed).
static inline bool
quantaCompiledFunctionIsNull(QuantaCompiledFunction function) {
  return !function.ptr;
}

/// Compiles the function `entry` of `module` (empty: the module's only
/// function with a body) for this machine, as quant-run does. The module
/// must be ready to run: lowered past its observers (calibrated and frozen)
/// and its integer kernels lowered for the target (e.g. "quanta-lower-x86"
/// after "quanta-quantize"). Its arguments and results must be static
/// tensors of f32, f64, i8/i16/i32/i64 or 8-bit quantized types. Returns a
/// null function on failure, after reporting why at the module.
QUANTA_CAPI_EXPORTED QuantaCompiledFunction quantaCompile(MlirModule module,
                                                          MlirStringRef entry);

/// The number of arguments of `function`.
QUANTA_CAPI_EXPORTED intptr_t
quantaCompiledFunctionGetNumArguments(QuantaCompiledFunction function);

/// The number of results of `function`.
QUANTA_CAPI_EXPORTED intptr_t
quantaCompiledFunctionGetNumResults(QuantaCompiledFunction function);

/// Argument `pos` of `function` as a tensor without data: its rank, shape
/// (owned by the function) and the dtype it takes (signless i8 arguments
/// take QuantaUInt8 data too, and signless i16/i32/i64 their unsigned
/// equivalents, which have no QuantaDType). Rank -1 and a NULL shape unless
/// 0 <= `pos` < quantaCompiledFunctionGetNumArguments(function).
QUANTA_CAPI_EXPORTED QuantaTensor quantaCompiledFunctionGetArgument(
    QuantaCompiledFunction function, intptr_t pos);

/// Result `pos` of `function` as a tensor without data, as
/// quantaCompiledFunctionGetArgument: the caller sets `data` to a buffer of
/// that shape and dtype (QuantaInt8 for a signless i8 result, which also
/// accepts a QuantaUInt8 buffer) and passes it to
/// quantaCompiledFunctionCall.
QUANTA_CAPI_EXPORTED QuantaTensor
quantaCompiledFunctionGetResult(QuantaCompiledFunction function, intptr_t pos);

/// Calls `function` on `numInputs` tensors at `inputs`, writing its
/// results into the `numOutputs` buffers `outputs` describes, which the
/// caller allocated in the shapes and dtypes of the results (see
/// quantaCompiledFunctionGetResult). Checked first, before anything runs:
/// the tensors themselves, then their number, dtypes and shapes against the
/// function's signature. A failure is reported as an error diagnostic (at
/// the location `loc("<function name>")`) in the context of the module the
/// function was compiled from, through the handlers attached to it.
QUANTA_CAPI_EXPORTED MlirLogicalResult
quantaCompiledFunctionCall(QuantaCompiledFunction function, intptr_t numInputs,
                           const QuantaTensor *inputs, intptr_t numOutputs,
                           const QuantaTensor *outputs);

/// Destroys `function` and the code compiled for it; a null function is
/// ignored.
QUANTA_CAPI_EXPORTED void
quantaCompiledFunctionDestroy(QuantaCompiledFunction function);

#ifdef __cplusplus
}
#endif

#endif // QUANTA_C_QUANTA_H

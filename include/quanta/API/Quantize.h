//===- Quantize.h - Post-training quantization in one call ------*- C++ -*-===//
//
// What the quanta driver and Python's quanta.quantize do, over the API of
// Quanta.h: a float module and calibration batches in, PyTorch's
// prepare(), calibration and convert() with the target's default qconfig,
// the int8 module out, with what stayed float and why, and a check of its
// outputs against the float module's.
//
//   auto batches = quanta::splitIntoEntryBatches(
//       *quanta::openCalibrationFiles(loc, files, 1), entryType);
//   quanta::QuantizeModelOptions options;
//   options.target = quanta::TargetDescription::host();
//   auto model = quanta::quantizeModel(*floatModule, *batches, options);
//   auto check = quanta::compareWithFloat(*floatModule, *model->converted,
//                                         *heldOutBatches);
//   quanta::lowerForTarget(*model->converted, options.target);
//   quanta::writeObjectAndHeader(*model->converted, options.target,
//                                "model.o", "model.h", "model.onnx");
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_API_QUANTIZE_H
#define QUANTA_API_QUANTIZE_H

#include "quanta/API/Quanta.h"
#include "quanta/Numerics/OutputComparison.h"

#include <string>
#include <vector>

namespace mlir::quanta {

/// The qconfig PyTorch 1.13 defaults to for the engine of `target`'s
/// architecture: "x86" on x86-64 (fbgemm/onednn), "qnnpack" on AArch64.
StringRef getDefaultQConfig(const TargetDescription &target);

struct QuantizeModelOptions {
  /// A preset name or a #quanta.qconfig; empty: getDefaultQConfig(target).
  std::string qconfig;
  /// Per-op qconfigs, "<op or location name>=<qconfig>" as
  /// quanta-insert-observers' `override` (e.g. "/tokens/Gather=
  /// float_qparams_weight_only" for an embedding).
  std::vector<std::string> overrides;
  TargetDescription target = TargetDescription::host();
  /// Calibration's options (threads, batch limit, float kernels, ...).
  CalibrateOptions calibrate;
  /// quanta-quantize's options (keepFloat: "softmax", "layer-norm", to
  /// measure their integer forms both ways).
  QuantizeOptions quantize;
  CalibrationProgressCallback onCalibrationProgress;
};

/// Float compute left in a function after conversion.
struct FloatOpsLeft {
  std::string function;
  /// By op name (countFloatComputeOps).
  std::vector<std::pair<std::string, int64_t>> ops;
  int64_t total = 0;
};

/// A reason quanta-quantize gave for keeping ops float, with the ops (their
/// front end's names where the locations have them) it applies to.
struct FloatOpsReason {
  std::string reason;
  std::vector<std::string> names;
  int64_t count = 0;
};

struct QuantizedModel {
  /// The observed module with its calibrated statistics (for reports and
  /// statistics files).
  OwningOpRef<ModuleOp> calibrated;
  /// The int8 module for any target (buildConvertPipeline's result);
  /// lowerForTarget makes its kernels.
  OwningOpRef<ModuleOp> converted;
  std::vector<FloatOpsLeft> floatOps;
  std::vector<FloatOpsReason> floatReasons;
  std::string qconfig;
  /// The model carried its own qparams (QDQ: quanta.fake_quant with known
  /// qparams): no observers, no calibration, the qconfig unused.
  bool preQuantized = false;
  int64_t batches = 0;
  double calibrationSeconds = 0, conversionSeconds = 0;
};

/// Prepares a copy of `floatModel` (buildPreparePipeline with the qconfig),
/// calibrates it on `batches` and converts it (buildConvertPipeline,
/// recording the target on it). A pre-quantized model (QDQ) is converted
/// with its own qparams, without observers or calibration. `floatModel` is left
/// as it is. Errors are diagnostics at the offending op; quanta-quantize's
/// remarks are returned in the result instead of reported.
FailureOr<QuantizedModel> quantizeModel(ModuleOp floatModel,
                                        CalibrationBatches &batches,
                                        const QuantizeModelOptions &options);

/// The outputs of `converted` against those of `floatModel` on `batches`,
/// one comparison per result, rows along the last axis of results of rank
/// >= 2 (a row per value otherwise: no classes to agree on). Both run
/// in the JIT on this machine, `converted` with this machine's kernels
/// (the tests keep the kernels of every target bit-identical).
FailureOr<std::vector<numerics::OutputComparison>>
compareWithFloat(ModuleOp floatModel, ModuleOp converted,
                 CalibrationBatches &batches);

/// The C identifier a model file names its function with: the file's stem,
/// other characters as '_' ("digits-cnn.onnx": "digits_cnn"), "model_"
/// first when it would start with a digit or be empty. The quanta driver
/// and quanta.quantize name an imported ONNX model's function so, which
/// the C header's `<name>_run` then says.
std::string getModelFunctionName(StringRef path);

/// Renames `function` and its uses in its module; an error if another
/// symbol has the name.
LogicalResult renameFunction(func::FuncOp function, StringRef name);

/// The kernels of a converted module for `target` (quanta-lower-cpu).
LogicalResult lowerForTarget(ModuleOp converted,
                             const TargetDescription &target);

} // namespace mlir::quanta

#endif // QUANTA_API_QUANTIZE_H

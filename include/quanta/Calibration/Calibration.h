//===- Calibration.h - Calibrating an observed module -----------*- C++ -*-===//
//
// What quanta-calibrate does, callable on batches from anywhere: files
// (the pass), arrays in memory (library users, the Python package), a
// stream that never fits in memory. The observed module is JIT-compiled
// once; each batch runs through it and updates the observers' running
// statistics, which are folded back into the module at the end.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_CALIBRATION_CALIBRATION_H
#define QUANTA_CALIBRATION_CALIBRATION_H

#include "quanta/Calibration/Passes.h"
#include "quanta/Runtime/NumpyFile.h"

#include "mlir/IR/BuiltinOps.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace mlir::quanta {

/// Calibration batches, read one at a time so that memory does not grow
/// with their number: each is one argument per input of the entry
/// function (float32, the entry's shapes).
class CalibrationBatches {
public:
  virtual ~CalibrationBatches() = default;
  /// How many batches there are, when known in advance (for progress).
  virtual std::optional<int64_t> size() const { return std::nullopt; }
  /// Sets `tensors` to the next batch, which the source keeps alive until
  /// the next call, and returns true; false after the last batch; failure
  /// after reporting an error at `loc`.
  virtual FailureOr<bool> next(Location loc,
                               std::vector<runtime::TensorRef> &tensors) = 0;
};

/// Where calibration is, reported after compilation (batches == 0) and
/// after each batch.
struct CalibrationProgress {
  int64_t batches = 0;
  /// The number of batches that will run, when known.
  std::optional<int64_t> total;
  double compileSeconds = 0;
  /// Time spent on the batches so far.
  double runSeconds = 0;
};

/// Called after compilation and after every batch.
using CalibrationProgressCallback =
    std::function<void(const CalibrationProgress &)>;

/// The options of calibration are quanta-calibrate's (Calibration/Passes.td),
/// `CalibrateOptions`; `data` and `quiet` are the pass's own (the files it
/// reads, its progress lines), which calibrate() does not read.
///
/// `text` (quant-opt's `name=value ...` form) as quanta-calibrate parses it.
FailureOr<CalibrateOptions>
parseCalibrateOptions(StringRef text,
                      function_ref<LogicalResult(const Twine &)> errorHandler);

/// Runs `module`'s entry on every batch (split by splitIntoEntryBatches)
/// through the JIT and folds the
/// statistics of its observers (and FakeQuantize modules) into the IR,
/// continuing from statistics already there, so that shards of a data set
/// can be calibrated in turn. A batch that does not match the entry's
/// signature, or whose tensors hold NaN or infinities where an observer
/// sees them, is an error at the module or the observer; the module is
/// then left as it was.
LogicalResult calibrate(ModuleOp module, CalibrationBatches &batches,
                        const CalibrateOptions &options,
                        const CalibrationProgressCallback &onProgress = {});

/// The batches .npy/.npz `paths` describe for an entry with `numArguments`
/// inputs: one .npy per argument in order, or one .npz per batch; for one
/// argument, an .npz of several arrays is a batch per array (as
/// np.savez(path, *batches) writes them). Only
/// the list is checked here; each file is read when its batch runs.
FailureOr<std::unique_ptr<CalibrationBatches>>
openCalibrationFiles(Location loc, ArrayRef<std::string> paths,
                     size_t numArguments);

/// Batches already in memory (each a vector of one tensor per argument).
std::unique_ptr<CalibrationBatches>
makeCalibrationBatches(std::vector<std::vector<runtime::TensorRef>> batches);

/// The .npy/.npz files `specs` name, in order: a file as it is, a
/// directory's .npy/.npz files and those a glob pattern in the file name
/// matches (`calibration/batch*.npy`), each in natural order (batch2
/// before batch10). A spec that names nothing is an error at `loc`.
FailureOr<std::vector<std::string>>
expandCalibrationData(Location loc, ArrayRef<std::string> specs);

/// `source`'s batches in the shapes of `entry`'s arguments: a batch whose
/// arrays' leading dimensions are all k times the entry's (the other
/// dimensions equal) is k batches: a file of 400 images for a model of
/// batch 1 is 400 batches. Anything else passes through, for the caller
/// to check. size() is known after the first
/// batch. `source` must outlive the result. calibrate() reads its batches
/// through this, so every way of calibrating takes such files.
std::unique_ptr<CalibrationBatches>
splitIntoEntryBatches(CalibrationBatches &source, FunctionType entry);

} // namespace mlir::quanta

#endif // QUANTA_CALIBRATION_CALIBRATION_H

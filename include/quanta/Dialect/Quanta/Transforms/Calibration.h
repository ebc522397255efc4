//===- Calibration.h - Calibrating an observed module -----------*- C++ -*-===//
//
// What quanta-calibrate does, callable on batches from anywhere: files
// (the pass), arrays in memory (library users, the Python package), a
// stream that never fits in memory. The observed module is JIT-compiled
// once; each batch runs through it and updates the observers' running
// statistics, which are folded back into the module at the end.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_CALIBRATION_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_CALIBRATION_H

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

struct CalibrationOptions {
  /// The function to run; empty: the module's only public function.
  std::string entry;
  /// Stop after this many batches (0: all).
  int64_t batchLimit = 0;
  /// Threads the model runs on (0: the OpenMP runtime's choice).
  int64_t threads = 1;
  /// Run the float layers on the tiled kernels, as quant-run does (false:
  /// as loops in the ops' own summation order).
  bool floatKernels = true;
  /// Where RecordingObservers write their tensors (none without it).
  std::string recordDir;
  /// Also write every tensor a calibrated observer sees to recordDir
  /// (as a RecordingObserver would; kept in memory until the end): the
  /// float values quanta.report compares with their quantized ones.
  bool recordObserved = false;
  /// Called after compilation and after every batch.
  std::function<void(const CalibrationProgress &)> progress;
};

/// Runs `module`'s entry on every batch through the JIT and folds the
/// statistics of its observers (and FakeQuantize modules) into the IR,
/// continuing from statistics already there, so that shards of a data set
/// can be calibrated in turn. A batch that does not match the entry's
/// signature, or whose tensors hold NaN or infinities where an observer
/// sees them, is an error at the module or the observer; the module is
/// then left as it was.
LogicalResult calibrate(ModuleOp module, CalibrationBatches &batches,
                        const CalibrationOptions &options);

/// The batches .npy/.npz `paths` describe for an entry with `numArguments`
/// inputs: one .npy per argument in order, or one .npz per batch. Only
/// the list is checked here; each file is read when its batch runs.
FailureOr<std::unique_ptr<CalibrationBatches>>
openCalibrationFiles(Location loc, ArrayRef<std::string> paths,
                     size_t numArguments);

/// Batches already in memory (each a vector of one tensor per argument).
std::unique_ptr<CalibrationBatches>
makeCalibrationBatches(std::vector<std::vector<runtime::TensorRef>> batches);

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_CALIBRATION_H

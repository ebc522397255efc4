//===- ObserverState.h - A running PyTorch observer -------------*- C++ -*-===//
//
// One observer with its running statistics: what forward() updates and
// calculate_qparams() reads in PyTorch. Calibration (through the JIT) and
// the Python binding both drive observers through this class, which only
// dispatches to the numeric library. No LLVM or MLIR dependency.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_RUNTIME_OBSERVERSTATE_H
#define QUANTA_RUNTIME_OBSERVERSTATE_H

#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/HistogramCalibration.h"
#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/QParams.h"

#include <variant>

namespace mlir::quanta::runtime {

using numerics::Status;
using numerics::StatusOr;

/// The constructor arguments of one of PyTorch's uniform observers.
struct ObserverConfig {
  numerics::ObserverKind kind = numerics::ObserverKind::MinMax;
  /// The uniform options (also inside `histogram` for HistogramObserver).
  numerics::HistogramOptions histogram;
  /// How a HistogramObserver chooses its range (PyTorch's search by
  /// default).
  numerics::HistogramCalibrationOptions calibration;
  double averagingConstant = 0.01;
  int64_t chAxis = 0;
  /// PyTorch 1.12's memoryless: statistics restart with every batch.
  bool memoryless = false;

  const numerics::UniformObserverOptions &uniform() const {
    return histogram.uniform;
  }
};

class ObserverState {
public:
  using Statistics =
      std::variant<numerics::MinMaxStats, numerics::PerChannelMinMaxStats,
                   numerics::HistogramStats>;

  /// Validates the configuration as PyTorch's constructor does.
  static StatusOr<ObserverState> create(const ObserverConfig &config);

  /// forward(x) on a C-order float32 tensor. Empty tensors are ignored, as
  /// in PyTorch; on error the statistics are unchanged.
  Status observe(const float *data, const std::vector<int64_t> &shape);

  /// calculate_qparams().
  StatusOr<numerics::QParams> calculateQParams() const;

  const ObserverConfig &getConfig() const { return config; }
  const Statistics &getStatistics() const { return statistics; }
  /// Merges the statistics `other` collected on other data into these, as
  /// if both data sets had been observed (shards of a calibration set):
  /// exact for min/max observers, PyTorch's histogram-combine algorithm for
  /// HistogramObserver. Moving averages and memoryless observers depend on
  /// the order of the batches and cannot be merged: calibrate the shards in
  /// turn instead (continuing from the statistics of the previous one).
  Status merge(const ObserverState &other);
  /// Replaces the statistics (e.g. with ones read back from IR).
  void setStatistics(Statistics newStatistics, int64_t batches);
  /// The number of non-empty batches observed.
  int64_t getNumBatches() const { return numBatches; }

private:
  explicit ObserverState(const ObserverConfig &config);

  ObserverConfig config;
  Statistics statistics;
  int64_t numBatches = 0;
};

} // namespace mlir::quanta::runtime

#endif // QUANTA_RUNTIME_OBSERVERSTATE_H

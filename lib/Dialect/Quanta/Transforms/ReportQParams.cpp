//===- ReportQParams.cpp - Print the qparams observers would give ---------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/FormatVariadic.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_REPORTQPARAMS
#include "quanta/Dialect/Quanta/Transforms/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// Prints float32 values exactly (9 significant digits round-trip) so the
/// report can be compared with PyTorch's output bit for bit.
static void printValues(raw_ostream &os, ArrayRef<float> values) {
  os << "[";
  llvm::interleaveComma(values, os, [&](float value) {
    os << llvm::format("%.9g", static_cast<double>(value));
  });
  os << "]";
}

/// Per-tensor statistics hold one value, per-channel ones a vector.
static llvm::json::Array toArray(float value) {
  return llvm::json::Array{llvm::json::Value(value)};
}
static llvm::json::Array toArray(const std::vector<float> &values) {
  return llvm::json::Array(values);
}

/// The JSON entry of one observer (format=json).
static llvm::json::Object toJson(ObserveOp op,
                                 const numerics::QParams &qparams) {
  llvm::json::Object entry{{"name", op.getName() ? *op.getName() : StringRef()},
                           {"observer", op.getObserver().getPyTorchClassName()},
                           {"scale", llvm::json::Array(qparams.scale)}};
  if (!qparams.floatZeroPoint.empty())
    entry["zero_point"] = llvm::json::Array(qparams.floatZeroPoint);
  else
    entry["zero_point"] = llvm::json::Array(qparams.zeroPoint);
  if (auto dtypeAndRange = getObserverDTypeAndRange(op.getObserver())) {
    entry["quant_min"] = dtypeAndRange->second.quantMin;
    entry["quant_max"] = dtypeAndRange->second.quantMax;
  }
  if (op.getObserver().isPerChannel())
    entry["axis"] = op.getObserver().getChannelAxis();
  if (Attribute stats = op.getStatsAttr()) {
    FailureOr<runtime::ObserverState> state =
        createObserverState(op.getLoc(), op.getObserver(), stats);
    if (succeeded(state))
      std::visit(
          [&](const auto &values) {
            entry["min"] = toArray(values.min);
            entry["max"] = toArray(values.max);
          },
          state->getStatistics());
  }
  return entry;
}

/// The text line of one observer (format=text).
static void printLine(raw_ostream &os, ObserveOp op,
                      const numerics::QParams &qparams) {
  os << (op.getName() ? *op.getName() : StringRef("<unnamed>")) << ": "
     << op.getObserver().getPyTorchClassName() << " scale=";
  printValues(os, qparams.scale);
  if (!qparams.floatZeroPoint.empty()) {
    os << " zero_point=";
    printValues(os, qparams.floatZeroPoint);
  } else {
    os << " zero_point=[";
    llvm::interleaveComma(qparams.zeroPoint, os);
    os << "]";
  }
  os << "\n";
}

namespace {
struct ReportQParamsPass
    : public quanta::impl::ReportQParamsBase<ReportQParamsPass> {
  using Base::Base;

  void runOnOperation() override {
    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> file =
        openOutputFile(output, &errorMessage);
    if (!file) {
      emitError(getOperation().getLoc())
          << "cannot open '" << output << "': " << errorMessage;
      return signalPassFailure();
    }
    raw_ostream &os = file->os();
    llvm::json::Array observers;
    WalkResult result = getOperation().walk([&](ObserveOp op) {
      if (!op.getStatsAttr() &&
          !isa<FixedQParamsObserverAttr>(op.getObserver()))
        return WalkResult::advance();
      FailureOr<numerics::QParams> qparams =
          computeQParams(op.getLoc(), op.getObserver(), op.getStatsAttr());
      if (failed(qparams))
        return WalkResult::interrupt();
      if (format == ReportFormat::Json)
        observers.push_back(toJson(op, *qparams));
      else
        printLine(os, op, *qparams);
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    if (format == ReportFormat::Json)
      os << llvm::formatv("{0:2}\n", llvm::json::Value(llvm::json::Object{
                                         {"observers", std::move(observers)}}));
    file->keep();
  }
};
} // namespace

//===- ReportQParams.cpp - Print the qparams observers would give ---------===//

#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"

#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/Format.h"
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
    WalkResult result = getOperation().walk([&](ObserveOp op) {
      if (!op.getStatsAttr() &&
          !isa<FixedQParamsObserverAttr>(op.getObserver()))
        return WalkResult::advance();
      FailureOr<numerics::QParams> qparams =
          computeQParams(op.getLoc(), op.getObserver(), op.getStatsAttr());
      if (failed(qparams))
        return WalkResult::interrupt();
      os << (op.getName() ? *op.getName() : StringRef("<unnamed>")) << ": "
         << op.getObserver().getPyTorchClassName() << " scale=";
      printValues(os, qparams->scale);
      if (!qparams->floatZeroPoint.empty()) {
        os << " zero_point=";
        printValues(os, qparams->floatZeroPoint);
      } else {
        os << " zero_point=[";
        llvm::interleaveComma(qparams->zeroPoint, os);
        os << "]";
      }
      os << "\n";
      return WalkResult::advance();
    });
    if (result.wasInterrupted())
      return signalPassFailure();
    file->keep();
  }
};
} // namespace

//===- StatisticsFiles.cpp - Export, import and merge statistics ----------===//

#include "quanta/Calibration/Passes.h"
#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"

#include "mlir/AsmParser/AsmParser.h"
#include "mlir/Support/FileUtilities.h"
#include "llvm/Support/JSON.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/ToolOutputFile.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_EXPORTSTATISTICS
#define GEN_PASS_DEF_IMPORTSTATISTICS
#include "quanta/Calibration/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

static constexpr StringLiteral kFormat = "quanta-statistics";
static constexpr int64_t kVersion = 1;

static std::string printAttr(Attribute attr) {
  std::string text;
  llvm::raw_string_ostream os(text);
  attr.print(os);
  return text;
}

namespace {
struct ExportStatisticsPass
    : public quanta::impl::ExportStatisticsBase<ExportStatisticsPass> {
  using Base::Base;

  void runOnOperation() override {
    llvm::json::Array observers;
    WalkResult walk = getOperation().walk([&](ObserveOp op) {
      if (!op.getStatsAttr())
        return WalkResult::advance();
      if (!op.getName()) {
        op.emitOpError("has statistics but no name to export them under");
        return WalkResult::interrupt();
      }
      observers.push_back(
          llvm::json::Object{{"name", *op.getName()},
                             {"observer", printAttr(op.getObserver())},
                             {"stats", printAttr(op.getStatsAttr())}});
      return WalkResult::advance();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();
    // Dropping a module's statistics would make a merge silently wrong.
    walk = getOperation().walk([&](FakeQuantOp op) {
      if (!op.getFakeQuantizeAttr() || !op.getStatsAttr())
        return WalkResult::advance();
      op.emitOpError("holds the statistics of a FakeQuantize module, which "
                     "statistics files do not carry (their moving averages "
                     "cannot be merged either): calibrate it in one run");
      return WalkResult::interrupt();
    });
    if (walk.wasInterrupted())
      return signalPassFailure();

    std::string errorMessage;
    std::unique_ptr<llvm::ToolOutputFile> output =
        openOutputFile(file, &errorMessage);
    if (!output) {
      emitError(getOperation().getLoc())
          << "cannot write statistics to '" << file << "': " << errorMessage;
      return signalPassFailure();
    }
    output->os() << llvm::formatv("{0:2}\n",
                                  llvm::json::Value(llvm::json::Object{
                                      {"format", kFormat},
                                      {"version", kVersion},
                                      {"observers", std::move(observers)}}));
    output->keep();
  }
};

/// One statistics file: observer attribute text and statistics by name.
struct StatisticsFile {
  std::string path;
  llvm::StringMap<std::pair<std::string, std::string>> entries;
};

struct ImportStatisticsPass
    : public quanta::impl::ImportStatisticsBase<ImportStatisticsPass> {
  using Base::Base;
  void runOnOperation() override;

private:
  FailureOr<StatisticsFile> readFile(const std::string &path);
};
} // namespace

FailureOr<StatisticsFile>
ImportStatisticsPass::readFile(const std::string &path) {
  Location loc = getOperation().getLoc();
  auto buffer = llvm::MemoryBuffer::getFile(path);
  if (!buffer)
    return emitError(loc) << "cannot read statistics file '" << path
                          << "': " << buffer.getError().message();
  llvm::Expected<llvm::json::Value> json =
      llvm::json::parse((*buffer)->getBuffer());
  if (!json)
    return emitError(loc) << path
                          << ": not JSON: " << llvm::toString(json.takeError());
  const llvm::json::Object *root = json->getAsObject();
  if (!root || root->getString("format") != kFormat ||
      root->getInteger("version") != kVersion)
    return emitError(loc) << path << ": not a quanta-statistics file of "
                          << "version " << kVersion;
  const llvm::json::Array *observers = root->getArray("observers");
  if (!observers)
    return emitError(loc) << path << ": no 'observers' array";
  StatisticsFile file{path, {}};
  for (const llvm::json::Value &value : *observers) {
    const llvm::json::Object *entry = value.getAsObject();
    std::optional<StringRef> name, observer, stats;
    if (entry) {
      name = entry->getString("name");
      observer = entry->getString("observer");
      stats = entry->getString("stats");
    }
    if (!name || !observer || !stats)
      return emitError(loc) << path << ": every observer entry needs "
                            << "'name', 'observer' and 'stats' strings";
    // Two entries for one observer: which to apply would be a guess.
    if (!file.entries.try_emplace(*name, observer->str(), stats->str()).second)
      return emitError(loc)
             << path << ": two entries for observer '" << *name << "'";
  }
  return file;
}

void ImportStatisticsPass::runOnOperation() {
  if (files.empty()) {
    emitError(getOperation().getLoc())
        << "quanta-import-statistics: no files (files=<a.json,b.json,...>)";
    return signalPassFailure();
  }
  SmallVector<StatisticsFile> statistics;
  for (const std::string &path : files) {
    FailureOr<StatisticsFile> file = readFile(path);
    if (failed(file))
      return signalPassFailure();
    statistics.push_back(std::move(*file));
  }

  // Merge everything before touching the IR.
  SmallVector<std::pair<ObserveOp, Attribute>> updates;
  WalkResult walk = getOperation().walk([&](ObserveOp op) {
    if (!hasRunningStatistics(op.getObserver()) || !op.getName())
      return WalkResult::advance();
    std::string observerText = printAttr(op.getObserver());
    FailureOr<runtime::ObserverState> merged =
        createObserverState(op.getLoc(), op.getObserver());
    if (failed(merged))
      return WalkResult::interrupt();
    for (const StatisticsFile &file : statistics) {
      auto it = file.entries.find(*op.getName());
      if (it == file.entries.end()) {
        op.emitOpError("has no statistics in ") << file.path;
        return WalkResult::interrupt();
      }
      const auto &[fileObserver, statsText] = it->second;
      if (fileObserver != observerText) {
        op.emitOpError("is ") << observerText << " but " << file.path
                              << " holds statistics of " << fileObserver;
        return WalkResult::interrupt();
      }
      Attribute stats = parseAttribute(statsText, op.getContext());
      if (!stats) {
        op.emitOpError("cannot parse its statistics in ") << file.path;
        return WalkResult::interrupt();
      }
      FailureOr<runtime::ObserverState> shard =
          createObserverState(op.getLoc(), op.getObserver(), stats);
      if (failed(shard))
        return WalkResult::interrupt();
      if (numerics::Status status = merged->merge(*shard); !status) {
        op.emitOpError("cannot merge the statistics of ")
            << file.path << ": " << status.getMessage();
        return WalkResult::interrupt();
      }
    }
    updates.emplace_back(op, getStatisticsAttr(op.getContext(), *merged));
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return signalPassFailure();
  for (auto &[op, stats] : updates)
    op.setStatsAttr(stats);
}

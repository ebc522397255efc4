//===- CalibrationData.cpp - Where calibration batches come from ----------===//
//
// Files (.npy per argument, .npz per batch, found in directories and by
// glob patterns), arrays in memory, and the splitting of arrays that hold
// several of the entry's batches.
//
//===----------------------------------------------------------------------===//

#include "quanta/Calibration/Calibration.h"

#include "mlir/IR/BuiltinTypes.h"
#include "mlir/IR/Diagnostics.h"
#include "llvm/ADT/STLExtras.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/GlobPattern.h"
#include "llvm/Support/Path.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

using namespace mlir;
using namespace mlir::quanta;

namespace {
/// Batches of .npy/.npz files, each read when it runs. For an entry of one
/// argument, an .npz of several arrays is a batch per array (as
/// np.savez(path, *batches) writes them).
class FileBatches : public CalibrationBatches {
public:
  FileBatches(SmallVector<std::vector<std::string>> groups, size_t numArguments)
      : groups(std::move(groups)), numArguments(numArguments) {}

  std::optional<int64_t> size() const override {
    if (numArguments == 1 && arraysPerFile > 1)
      return std::nullopt;
    return groups.size();
  }

  FailureOr<bool> next(Location loc,
                       std::vector<runtime::TensorRef> &tensors) override {
    tensors.clear();
    if (numArguments == 1 && nextArray < current.size()) {
      tensors.push_back(current[nextArray++].ref());
      return true;
    }
    if (nextIndex == groups.size())
      return false;
    const std::vector<std::string> &files = groups[nextIndex++];
    current.clear();
    if (files.size() == 1 && StringRef(files[0]).ends_with(".npz")) {
      auto arrays = runtime::readNpz(files[0]);
      if (!arrays.ok())
        return emitError(loc) << arrays.getStatus().getMessage();
      current = std::move(*arrays);
      if (current.size() != numArguments &&
          (numArguments != 1 || current.empty()))
        return emitError(loc) << files[0] << " holds " << current.size()
                              << " arrays but the entry takes " << numArguments
                              << " arguments";
      arraysPerFile = current.size();
    } else {
      for (const std::string &file : files) {
        auto array = runtime::readNpy(file);
        if (!array.ok())
          return emitError(loc) << array.getStatus().getMessage();
        current.push_back(std::move(*array));
      }
    }
    if (numArguments == 1) {
      nextArray = 1;
      tensors.push_back(current.front().ref());
      return true;
    }
    for (runtime::NumpyArray &array : current)
      tensors.push_back(array.ref());
    return true;
  }

private:
  SmallVector<std::vector<std::string>> groups;
  size_t numArguments;
  size_t nextIndex = 0;
  std::vector<runtime::NumpyArray> current;
  /// The next array of `current` to yield, for one argument.
  size_t nextArray = 0;
  size_t arraysPerFile = 0;
};

/// Batches the caller holds in memory.
class MemoryBatches : public CalibrationBatches {
public:
  explicit MemoryBatches(std::vector<std::vector<runtime::TensorRef>> batches)
      : batches(std::move(batches)) {}

  std::optional<int64_t> size() const override { return batches.size(); }

  FailureOr<bool> next(Location,
                       std::vector<runtime::TensorRef> &tensors) override {
    if (nextIndex == batches.size())
      return false;
    tensors = batches[nextIndex++];
    return true;
  }

private:
  std::vector<std::vector<runtime::TensorRef>> batches;
  size_t nextIndex = 0;
};
} // namespace

FailureOr<std::unique_ptr<CalibrationBatches>>
quanta::openCalibrationFiles(Location loc, ArrayRef<std::string> paths,
                             size_t numArguments) {
  SmallVector<std::vector<std::string>> groups;
  std::vector<std::string> pending;
  for (const std::string &path : paths) {
    if (StringRef(path).ends_with(".npz")) {
      if (!pending.empty())
        return emitError(loc) << "'" << path << "' starts a new batch but the "
                              << pending.size() << " .npy file(s) before it "
                              << "do not fill the " << numArguments
                              << " arguments of the previous one";
      groups.push_back({path});
      continue;
    }
    if (!StringRef(path).ends_with(".npy"))
      return emitError(loc) << "calibration data '" << path
                            << "' is neither a .npy nor an .npz file";
    pending.push_back(path);
    if (pending.size() == numArguments)
      groups.push_back(std::exchange(pending, {}));
  }
  if (!pending.empty())
    return emitError(loc) << "the last batch has " << pending.size()
                          << " .npy file(s) for " << numArguments
                          << " arguments";
  return std::unique_ptr<CalibrationBatches>(
      std::make_unique<FileBatches>(std::move(groups), numArguments));
}

std::unique_ptr<CalibrationBatches> quanta::makeCalibrationBatches(
    std::vector<std::vector<runtime::TensorRef>> batches) {
  return std::make_unique<MemoryBatches>(std::move(batches));
}

namespace {
/// The batches of `source` in the entry's shapes: arrays that hold k times
/// the entry's leading dimension are k batches.
class EntrySizedBatches : public CalibrationBatches {
public:
  EntrySizedBatches(CalibrationBatches &source, FunctionType entry)
      : source(source), entry(entry) {}

  std::optional<int64_t> size() const override {
    std::optional<int64_t> sourceSize = source.size();
    if (!sourceSize || slicesPerSourceBatch == 0)
      return std::nullopt;
    // Known after the first batch (others may differ: an estimate).
    return *sourceSize * slicesPerSourceBatch;
  }

  FailureOr<bool> next(Location loc,
                       std::vector<runtime::TensorRef> &tensors) override {
    if (nextSlice == numSlices) {
      FailureOr<bool> more = source.next(loc, sourceBatch);
      if (failed(more) || !*more)
        return more;
      numSlices = countSlices();
      nextSlice = 0;
      if (slicesPerSourceBatch == 0)
        slicesPerSourceBatch = numSlices;
    }
    int64_t slice = nextSlice++;
    tensors = sourceBatch;
    if (numSlices == 1)
      return true;
    for (auto [index, tensor] : llvm::enumerate(tensors)) {
      int64_t rows = getLeadingSize(index);
      int64_t rowBytes = tensor.numElements() / tensor.shape[0] *
                         std::atoi(tensor.dtype.c_str() + 2);
      tensor.data = static_cast<char *>(tensor.data) + slice * rows * rowBytes;
      tensor.shape[0] = rows;
      tensor.source += " (rows " + std::to_string(slice * rows) + " to " +
                       std::to_string((slice + 1) * rows - 1) + ")";
    }
    return true;
  }

private:
  /// The entry's leading dimension for argument `index`, 0 if it has none.
  int64_t getLeadingSize(size_t index) const {
    auto type = dyn_cast<RankedTensorType>(entry.getInput(index));
    if (!type || type.getRank() == 0 || type.isDynamicDim(0))
      return 0;
    return type.getDimSize(0);
  }

  /// How many of the entry's batches the source batch holds: k when every
  /// array's leading dimension is k times the entry's and the others are
  /// the entry's, else 1 (the arrays as they are, which the caller checks
  /// against the entry).
  int64_t countSlices() const {
    if (sourceBatch.size() != entry.getNumInputs())
      return 1;
    std::optional<int64_t> k;
    for (auto [index, tensor] : llvm::enumerate(sourceBatch)) {
      auto type = cast<RankedTensorType>(entry.getInput(index));
      int64_t rows = getLeadingSize(index);
      if (rows == 0 || tensor.dtype.size() < 3 ||
          int64_t(tensor.shape.size()) != type.getRank() ||
          tensor.shape[0] % rows != 0 || (k && *k != tensor.shape[0] / rows) ||
          !std::equal(tensor.shape.begin() + 1, tensor.shape.end(),
                      type.getShape().begin() + 1))
        return 1;
      k = tensor.shape[0] / rows;
    }
    return k && *k > 0 ? *k : 1;
  }

  CalibrationBatches &source;
  FunctionType entry;
  std::vector<runtime::TensorRef> sourceBatch;
  int64_t numSlices = 0, nextSlice = 0, slicesPerSourceBatch = 0;
};
} // namespace

/// Whether `a` sorts before `b` with digit runs compared as numbers, so
/// that batch2.npy comes before batch10.npy.
static bool naturalLess(StringRef a, StringRef b) {
  while (!a.empty() && !b.empty()) {
    if (std::isdigit(a.front()) && std::isdigit(b.front())) {
      size_t aDigits = a.find_if_not([](char c) { return std::isdigit(c); });
      size_t bDigits = b.find_if_not([](char c) { return std::isdigit(c); });
      StringRef aNumber = a.take_front(aDigits).ltrim('0');
      StringRef bNumber = b.take_front(bDigits).ltrim('0');
      if (aNumber.size() != bNumber.size())
        return aNumber.size() < bNumber.size();
      if (aNumber != bNumber)
        return aNumber < bNumber;
      a = a.drop_front(std::min(aDigits, a.size()));
      b = b.drop_front(std::min(bDigits, b.size()));
      continue;
    }
    if (a.front() != b.front())
      return a.front() < b.front();
    a = a.drop_front();
    b = b.drop_front();
  }
  return a.size() < b.size();
}

static bool isArrayFile(StringRef path) {
  return path.ends_with(".npy") || path.ends_with(".npz");
}

/// The .npy/.npz files directly in `directory` whose names match `pattern`
/// (every one without a pattern), in natural order.
static FailureOr<std::vector<std::string>>
listArrayFiles(Location loc, StringRef directory,
               const llvm::GlobPattern *pattern) {
  std::vector<std::string> files;
  std::error_code error;
  for (llvm::sys::fs::directory_iterator it(directory, error), end;
       it != end && !error; it.increment(error)) {
    StringRef name = llvm::sys::path::filename(it->path());
    if (isArrayFile(name) && (!pattern || pattern->match(name)) &&
        !llvm::sys::fs::is_directory(it->path()))
      files.push_back(it->path());
  }
  if (error)
    return emitError(loc) << "cannot list calibration data in '" << directory
                          << "': " << error.message();
  llvm::sort(files, [](const std::string &a, const std::string &b) {
    return naturalLess(a, b);
  });
  return files;
}

FailureOr<std::vector<std::string>>
quanta::expandCalibrationData(Location loc, ArrayRef<std::string> specs) {
  std::vector<std::string> paths;
  for (const std::string &spec : specs) {
    FailureOr<std::vector<std::string>> files;
    if (llvm::sys::fs::is_directory(spec)) {
      files = listArrayFiles(loc, spec, nullptr);
    } else if (StringRef(spec).find_first_of("*?[") != StringRef::npos) {
      StringRef directory = llvm::sys::path::parent_path(spec);
      StringRef name = llvm::sys::path::filename(spec);
      if (directory.find_first_of("*?[") != StringRef::npos)
        return emitError(loc)
               << "calibration data '" << spec
               << "': only the file name may hold a pattern, not the folders";
      llvm::Expected<llvm::GlobPattern> pattern =
          llvm::GlobPattern::create(name);
      if (!pattern)
        return emitError(loc) << "calibration data '" << spec
                              << "': " << llvm::toString(pattern.takeError());
      files =
          listArrayFiles(loc, directory.empty() ? "." : directory, &*pattern);
    } else if (!llvm::sys::fs::exists(spec)) {
      return emitError(loc)
             << "calibration data '" << spec << "' does not exist";
    } else {
      files = std::vector<std::string>{spec};
    }
    if (failed(files))
      return failure();
    if (files->empty())
      return emitError(loc)
             << "calibration data '" << spec << "' names no .npy or .npz file";
    llvm::append_range(paths, *files);
  }
  return paths;
}

std::unique_ptr<CalibrationBatches>
quanta::splitIntoEntryBatches(CalibrationBatches &source, FunctionType entry) {
  return std::make_unique<EntrySizedBatches>(source, entry);
}

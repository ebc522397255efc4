//===- Calibrate.cpp - Run the observed model with the JIT ----------------===//
//
// The observed module is cloned; every observer with running statistics
// becomes a call `quanta_observe(session, id, memref<*xf32>)` into the
// runtime (ObserverState, the same code the numeric tests check against
// PyTorch); a RecordingObserver becomes `quanta_record`, which keeps a copy
// of the tensor as PyTorch's forward() does. The clone is lowered to the LLVM
// dialect in a private MLIRContext, so the user's context never sees the
// lowering dialects or the LLVM translations, and JIT-compiled with
// quanta::JitEngine.
//
//===----------------------------------------------------------------------===//

#include "quanta/Calibration/Calibration.h"
#include "quanta/Calibration/Passes.h"
#include "quanta/Codegen/CPU/Passes.h"
#include "quanta/Dialect/Quanta/Transforms/ObserverStatistics.h"
#include "quanta/Dialect/Quanta/Transforms/OpRoles.h"
#include "quanta/Dialect/Quanta/Transforms/Passes.h"
#include "quanta/Numerics/FakeQuant.h"
#include "quanta/Runtime/NumpyFile.h"
#include "quanta/Support/LoadDialects.h"
#include "quanta/Support/MemoryLimits.h"
#include "quanta/Support/TargetDescription.h"
#include "quanta/Target/Jit.h"

#include "mlir/Dialect/Bufferization/IR/Bufferization.h"
#include "mlir/Dialect/LLVMIR/LLVMDialect.h"
#include "mlir/Dialect/MemRef/IR/MemRef.h"
#include "mlir/ExecutionEngine/CRunnerUtils.h"
#include "mlir/IR/Matchers.h"
#include "mlir/IR/SymbolTable.h"
#include "mlir/Pass/PassManager.h"

#include "llvm/ADT/StringSet.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Path.h"

#include <chrono>
#include <cmath>

namespace mlir::quanta {
#define GEN_PASS_DEF_CALIBRATE
#include "quanta/Calibration/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

namespace {

using FakeQuantModule = std::variant<numerics::FakeQuantize,
                                     numerics::FusedMovingAvgObsFakeQuantize>;

/// The observers and FakeQuantize modules of one calibration run, as the
/// JIT code sees them.
/// A tensor a RecordingObserver saw.
struct RecordedTensor {
  std::vector<int64_t> shape;
  std::vector<float> values;
};

struct CalibrationSession {
  std::vector<runtime::ObserverState> observers;
  std::vector<FakeQuantModule> fakeQuants;
  /// Per RecordingObserver, its tensors in batch order (tensor_val).
  std::vector<std::vector<RecordedTensor>> recordings;
  /// Per calibrated observer, the tensors it saw (with recordObserved).
  std::vector<std::vector<RecordedTensor>> observedRecordings;
  /// The first error of each observer, then of each module (reported after
  /// the batch).
  std::vector<std::optional<std::string>> errors;
  /// What the JIT code reads at kSessionSymbol to pass to the callbacks: an
  /// address in the code itself would make every compilation of a model a
  /// different module, which the compile cache could never reuse.
  const CalibrationSession *self = this;
};

} // namespace

/// A tensor the JIT code passes, in C order: strided views (e.g. of
/// extract_slice) are gathered into `storage`.
static const float *contiguousData(DynamicMemRefType<float> &view,
                                   std::vector<float> &storage) {
  int64_t expectedStride = 1;
  bool contiguous = true;
  for (int64_t dim = view.rank - 1; dim >= 0; --dim) {
    if (view.sizes[dim] > 1 && view.strides[dim] != expectedStride)
      contiguous = false;
    expectedStride *= view.sizes[dim];
  }
  if (contiguous)
    return view.data + view.offset;
  storage.reserve(expectedStride);
  for (float value : view)
    storage.push_back(value);
  return storage.data();
}

/// Called by the JIT code for every FakeQuantize module: PyTorch's forward()
/// (observe, refresh the qparams, fake-quantize) from `input` into the
/// identity-layout buffer `output` (C interface of
/// `@quanta_fake_quantize(i64, i64, memref<*xf32>, memref<*xf32>)`).
extern "C" void
quantaFakeQuantizeCallback(int64_t sessionAddress, int64_t id,
                           ::UnrankedMemRefType<float> *input,
                           ::UnrankedMemRefType<float> *output) {
  auto *session = reinterpret_cast<CalibrationSession *>(sessionAddress);
  DynamicMemRefType<float> in(*input), out(*output);
  std::vector<int64_t> shape(in.sizes, in.sizes + in.rank);
  std::vector<float> storage;
  const float *data = contiguousData(in, storage);
  numerics::Status status = std::visit(
      [&](auto &module) {
        return module.forward(data, out.data + out.offset, shape);
      },
      session->fakeQuants[id]);
  std::optional<std::string> &error =
      session->errors[session->observers.size() + id];
  if (!status && !error)
    error = status.getMessage();
}

/// Called by the JIT code for every observed tensor (C interface of
/// `func.func private @quanta_observe(i64, i64, memref<*xf32>)`).
extern "C" void quantaObserveCallback(int64_t sessionAddress, int64_t id,
                                      ::UnrankedMemRefType<float> *tensor) {
  auto *session = reinterpret_cast<CalibrationSession *>(sessionAddress);
  DynamicMemRefType<float> view(*tensor);
  std::vector<int64_t> shape(view.sizes, view.sizes + view.rank);
  std::vector<float> storage;
  const float *data = contiguousData(view, storage);
  runtime::ObserverState &observer = session->observers[id];
  std::optional<std::string> &error = session->errors[id];
  if (!session->observedRecordings.empty()) {
    RecordedTensor &recorded = session->observedRecordings[id].emplace_back();
    recorded.shape = shape;
    int64_t size = 1;
    for (int64_t dim : shape)
      size *= dim;
    recorded.values.assign(data, data + size);
  }
  if (numerics::Status status = observer.observe(data, shape); !status) {
    if (!error)
      error = status.getMessage();
    return;
  }
  // An empty tensor leaves the statistics as they were (PyTorch's forward
  // returns it untouched), possibly still the initial +inf/-inf, for which
  // calculate_qparams returns its default qparams.
  if (llvm::is_contained(shape, 0))
    return;
  // PyTorch carries NaN and infinities into min/max and fails (or returns an
  // infinite scale) only in calculate_qparams; report the batch instead.
  bool finite = std::visit(
      [](const auto &stats) {
        auto isFinite = [](auto values) {
          return llvm::all_of(ArrayRef(values),
                              [](float v) { return std::isfinite(v); });
        };
        return isFinite(stats.min) && isFinite(stats.max);
      },
      observer.getStatistics());
  if (!finite && !error)
    error = "the observed tensor holds NaN or an infinity, for which "
            "PyTorch's observers compute no valid qparams";
}

/// Called by the JIT code for every tensor a RecordingObserver sees (C
/// interface of `func.func private @quanta_record(i64, i64, memref<*xf32>)`).
extern "C" void quantaRecordCallback(int64_t sessionAddress, int64_t id,
                                     ::UnrankedMemRefType<float> *tensor) {
  auto *session = reinterpret_cast<CalibrationSession *>(sessionAddress);
  DynamicMemRefType<float> view(*tensor);
  RecordedTensor &recorded = session->recordings[id].emplace_back();
  recorded.shape.assign(view.sizes, view.sizes + view.rank);
  for (float value : view)
    recorded.values.push_back(value);
}

static constexpr StringLiteral kObserveFunction = "quanta_observe";
static constexpr StringLiteral kRecordFunction = "quanta_record";
static constexpr StringLiteral kFakeQuantizeFunction = "quanta_fake_quantize";
static constexpr StringLiteral kSessionSymbol = "quanta_calibration_session";

/// Whether calibration runs `op` as a FakeQuantize module (observing and
/// fake-quantizing with the qparams of the moment) rather than lowering it.
/// A FixedQParamsFakeQuantize has nothing to observe: it is lowered with
/// its fixed qparams.
static bool isCalibratedModule(FakeQuantOp op) {
  FakeQuantizeAttr module = op.getFakeQuantizeAttr();
  return module && op.getObserverEnabled().value_or(true) &&
         !isa_and_nonnull<FixedQParamsObserverAttr>(module.getObserver());
}

/// What calibration does with an observe op.
enum class ObserverRole { Identity, Calibrated, Recorded };

/// What the JIT code does at one observer: nothing, or call the runtime
/// with the tensor for observer (or recording) `id`. A #quanta.reuse_input
/// observer calls the observer it reuses, as PyTorch's prepare() makes them
/// one instance that sees both tensors.
struct ObserverCall {
  ObserverRole role;
  int64_t id;
};

/// Replaces the observers of `clone` (walked in the same order as the
/// original) by runtime calls numbered like the session's observers and
/// recordings; the other observers become identities.
static void rewriteObservers(ModuleOp clone, ArrayRef<ObserverCall> calls,
                             CalibrationSession &session) {
  MLIRContext *context = clone.getContext();
  OpBuilder builder(context);
  builder.setInsertionPointToStart(clone.getBody());
  Type i64 = builder.getI64Type();
  auto unranked = mlir::UnrankedMemRefType::get(builder.getF32Type(), 0);
  auto declare = [&](StringRef name, TypeRange inputs) {
    auto callee = func::FuncOp::create(builder, clone.getLoc(), name,
                                       builder.getFunctionType(inputs, {}));
    callee.setPrivate();
    callee->setAttr(LLVM::LLVMDialect::getEmitCWrapperAttrName(),
                    builder.getUnitAttr());
    return callee;
  };
  func::FuncOp observeCallee = declare(kObserveFunction, {i64, i64, unranked});
  func::FuncOp recordCallee = declare(kRecordFunction, {i64, i64, unranked});
  func::FuncOp fakeQuantizeCallee =
      declare(kFakeQuantizeFunction, {i64, i64, unranked, unranked});
  auto toUnrankedBuffer = [&](Location loc, Value tensor) -> Value {
    auto tensorType = cast<RankedTensorType>(tensor.getType());
    auto memrefType =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    Value buffer = bufferization::ToBufferOp::create(
        builder, loc, memrefType, tensor, builder.getUnitAttr());
    return memref::CastOp::create(builder, loc, unranked, buffer);
  };
  auto sessionType = MemRefType::get({}, i64);
  memref::GlobalOp::create(builder, clone.getLoc(), kSessionSymbol,
                           /*sym_visibility=*/nullptr, sessionType,
                           /*initial_value=*/nullptr, /*constant=*/true,
                           /*alignment=*/nullptr);
  auto sessionConstant = [&](Location loc) -> Value {
    Value global =
        memref::GetGlobalOp::create(builder, loc, sessionType, kSessionSymbol);
    return memref::LoadOp::create(builder, loc, global, ValueRange{});
  };

  SmallVector<ObserveOp> observers;
  clone.walk([&](ObserveOp op) { observers.push_back(op); });
  for (auto [op, call] : llvm::zip_equal(observers, calls)) {
    Value input = op.getInput();
    if (call.role != ObserverRole::Identity) {
      builder.setInsertionPoint(op);
      Location loc = op.getLoc();
      bool recorded = call.role == ObserverRole::Recorded;
      Value idValue = arith::ConstantIntOp::create(builder, loc, i64, call.id);
      func::CallOp::create(builder, loc,
                           recorded ? recordCallee : observeCallee,
                           ValueRange{sessionConstant(loc), idValue,
                                      toUnrankedBuffer(loc, input)});
    }
    op.replaceAllUsesWith(input);
    op.erase();
  }

  SmallVector<FakeQuantOp> modules;
  clone.walk([&](FakeQuantOp op) {
    if (isCalibratedModule(op))
      modules.push_back(op);
  });
  for (auto [moduleId, op] : llvm::enumerate(modules)) {
    builder.setInsertionPoint(op);
    Location loc = op.getLoc();
    RankedTensorType tensorType = op.getType();
    auto memrefType =
        MemRefType::get(tensorType.getShape(), tensorType.getElementType());
    Value output = memref::AllocOp::create(builder, loc, memrefType);
    Value idValue = arith::ConstantIntOp::create(builder, loc, i64, moduleId);
    Value unrankedOutput =
        memref::CastOp::create(builder, loc, unranked, output);
    func::CallOp::create(builder, loc, fakeQuantizeCallee,
                         ValueRange{sessionConstant(loc), idValue,
                                    toUnrankedBuffer(loc, op.getInput()),
                                    unrankedOutput});
    Value result = bufferization::ToTensorOp::create(builder, loc, tensorType,
                                                     output, /*restrict=*/true,
                                                     /*writable=*/true);
    op.replaceAllUsesWith(result);
    op.erase();
  }
}

/// Checks batch `index` against the entry's argument types.
static LogicalResult checkBatch(Location loc, int64_t index,
                                ArrayRef<runtime::TensorRef> batch,
                                FunctionType type) {
  // Each error ends with what to do next, in a note: these are the first
  // errors a newcomer with data of their own meets.
  if (batch.size() != type.getNumInputs()) {
    InFlightDiagnostic diag = emitError(loc)
                              << "calibration batch " << index << " holds "
                              << batch.size() << " arrays but the entry takes "
                              << type.getNumInputs() << " arguments";
    diag.attachNote() << "next: give one array per model input, in order: "
                      << "one .npy per input, or one .npz per batch";
    return diag;
  }
  for (auto [argIndex, tensor] : llvm::enumerate(batch)) {
    auto argType = cast<RankedTensorType>(type.getInput(argIndex));
    FailureOr<TensorSpec> spec =
        getTensorSpec(loc, argType, "argument", "quanta-calibrate");
    if (failed(spec))
      return failure();
    if (!llvm::is_contained(spec->dtypes, tensor.dtype)) {
      const std::string expected = runtime::formatDType(spec->dtypes.front());
      InFlightDiagnostic diag = emitError(loc)
                                << tensor.source << ": argument " << argIndex
                                << " expects " << expected << " data, found "
                                << runtime::formatDType(tensor.dtype);
      diag.attachNote() << "next: save the arrays as " << expected
                        << ", e.g. np.save(path, x.astype(np." << expected
                        << "))";
      return diag;
    }
    bool shapeMatches =
        static_cast<int64_t>(tensor.shape.size()) == argType.getRank();
    for (auto [dim, size] : llvm::enumerate(tensor.shape))
      shapeMatches &=
          dim < static_cast<size_t>(argType.getRank()) &&
          (argType.isDynamicDim(dim) || argType.getDimSize(dim) == size);
    if (!shapeMatches) {
      InFlightDiagnostic diag = emitError(loc);
      diag << tensor.source << ": argument " << argIndex << " expects shape (";
      llvm::interleaveComma(argType.getShape(), diag, [&](int64_t size) {
        if (ShapedType::isDynamic(size))
          diag << "?";
        else
          diag << size;
      });
      diag << "), found " << runtime::formatShape(tensor.shape);
      diag.attachNote() << "next: give arrays of the model input's shape, "
                        << "or of k times its first dimension for k batches; "
                        << "an ONNX model's batch is chosen at import "
                        << "(--onnx-batch=N)";
      return diag;
    }
  }
  return success();
}

/// The FakeQuantize module `op` describes, starting from PyTorch's initial
/// buffers (scale 1.0, zero point 0, no statistics).
static FailureOr<FakeQuantModule> createFakeQuantModule(FakeQuantOp op) {
  FakeQuantizeAttr attr = op.getFakeQuantizeAttr();
  if (!op.getType().hasStaticShape())
    return op.emitOpError("needs a static shape to run as a FakeQuantize "
                          "module during calibration");
  if (op.getStatsAttr() || op.getScaleAttr())
    return op.emitOpError("already holds statistics or qparams; a "
                          "FakeQuantize module is calibrated in one run");
  numerics::FakeQuantizeOptions options =
      attr.getFused()
          ? numerics::FusedMovingAvgObsFakeQuantize::defaultOptions()
          : numerics::FakeQuantizeOptions();
  if (ObserverAttrInterface observer = attr.getObserver()) {
    std::optional<runtime::ObserverConfig> config = getObserverConfig(observer);
    if (!config || isa<OneFlowMinMaxObserverAttr>(observer))
      return op.emitOpError("calibrates FakeQuantize modules with PyTorch's "
                            "min/max and histogram observers only, not ")
             << observer.getPyTorchClassName();
    if (config->calibration.method != numerics::HistogramCalibration::PyTorch)
      return op.emitOpError("a FakeQuantize module computes qparams as "
                            "PyTorch's HistogramObserver does, after each "
                            "batch; the entropy, percentile and MSE "
                            "calibrations are for quanta.observe");
    options.observer = config->kind;
    options.observerOptions = config->uniform();
    options.averagingConstant = config->averagingConstant;
    options.chAxis = config->chAxis;
    options.bins = config->histogram.bins;
    options.upsampleRate = config->histogram.upsampleRate;
    options.exactHistcRange = config->histogram.exactHistcRange;
  }
  if (attr.getQuantMin()) {
    options.observerOptions.quantMin = attr.getQuantMin();
    options.observerOptions.quantMax = attr.getQuantMax();
  }
  auto finish = [&](auto created) -> FailureOr<FakeQuantModule> {
    if (!created.ok())
      return op.emitOpError() << created.getStatus().getMessage();
    created->enableFakeQuant(op.getFakeQuantEnabled());
    return FakeQuantModule(std::move(*created));
  };
  if (attr.getFused())
    return finish(numerics::FusedMovingAvgObsFakeQuantize::create(options));
  return finish(numerics::FakeQuantize::create(options));
}

/// Writes what a module holds after calibration: its observer's statistics
/// and its scale/zero_point buffers (the qparams it fake-quantizes with).
static void writeBackModule(FakeQuantOp op, const FakeQuantModule &variant,
                            int64_t batches) {
  MLIRContext *context = op.getContext();
  const numerics::FakeQuantizeBase &module = std::visit(
      [](const auto &m) -> const numerics::FakeQuantizeBase & { return m; },
      variant);
  Attribute stats;
  if (module.getOptions().observer == numerics::ObserverKind::Histogram) {
    const numerics::HistogramStats &histogram = module.getHistogramStats();
    stats = HistogramStatsAttr::get(
        context, APFloat(histogram.min), APFloat(histogram.max),
        DenseF32ArrayAttr::get(context, histogram.histogram), batches);
  } else if (module.isPerChannel()) {
    stats = MinMaxStatsAttr::get(
        context,
        DenseF32ArrayAttr::get(context, module.getPerChannelStats().min),
        DenseF32ArrayAttr::get(context, module.getPerChannelStats().max),
        batches);
  } else {
    stats = MinMaxStatsAttr::get(
        context, DenseF32ArrayAttr::get(context, module.getStats().min),
        DenseF32ArrayAttr::get(context, module.getStats().max), batches);
  }
  op.setStatsAttr(stats);
  const numerics::QParams &qparams = module.getQParams();
  op.setScaleAttr(DenseF32ArrayAttr::get(context, qparams.scale));
  if (!qparams.floatZeroPoint.empty())
    op.setFloatZeroPointAttr(
        DenseF32ArrayAttr::get(context, qparams.floatZeroPoint));
  else
    op.setZeroPointAttr(DenseI64ArrayAttr::get(context, qparams.zeroPoint));
}

/// Clones `module`, rewrites its observers and modules into runtime calls
/// for `session`, lowers the clone to LLVM in a private context and
/// JIT-compiles it.
static FailureOr<std::unique_ptr<JitEngine>> createCalibrationEngine(
    ModuleOp module, StringRef entryName, ArrayRef<ObserverCall> calls,
    CalibrationSession &session, bool floatKernels, int64_t threads) {
  OwningOpRef<ModuleOp> clone = module.clone();
  (*clone)->setAttr(
      kThreadsAttrName,
      IntegerAttr::get(IntegerType::get(module.getContext(), 64), threads));
  rewriteObservers(*clone, calls, session);
  exposeCInterface((*clone).lookupSymbol<func::FuncOp>(entryName));
  // The float layers on the tiled kernels, as quant-run runs them: the
  // JIT pipeline alone would run them as scalar loops, tens of times
  // slower than PyTorch's eager calibration. Not run when the compile
  // cache holds the result (packing the weights took a third of a cached
  // ResNet-18's compilation).
  auto lower = [floatKernels](ModuleOp observed) -> LogicalResult {
    if (failed(lowerFakeQuantOps(observed)))
      return failure();
    return success(!floatKernels ||
                   succeeded(lowerKernels(observed, TargetDescription::host(),
                                          "quanta-calibrate")));
  };
  const JitPreLowering preLowering{
      floatKernels ? "calibration, float kernels" : "calibration", lower};
  return compileForJit(
      *clone, "quanta-calibrate",
      [&session](llvm::orc::SymbolMap &symbols,
                 llvm::orc::MangleAndInterner &interner) {
        symbols[interner(kSessionSymbol)] = {
            llvm::orc::ExecutorAddr::fromPtr(&session.self),
            llvm::JITSymbolFlags::Exported};
        symbols[interner("_mlir_ciface_quanta_observe")] = {
            llvm::orc::ExecutorAddr::fromPtr(&quantaObserveCallback),
            llvm::JITSymbolFlags::Exported};
        symbols[interner("_mlir_ciface_quanta_record")] = {
            llvm::orc::ExecutorAddr::fromPtr(&quantaRecordCallback),
            llvm::JITSymbolFlags::Exported};
        symbols[interner("_mlir_ciface_quanta_fake_quantize")] = {
            llvm::orc::ExecutorAddr::fromPtr(&quantaFakeQuantizeCallback),
            llvm::JITSymbolFlags::Exported};
      },
      /*target=*/nullptr, &preLowering);
}

/// A file name stem from an observer's name: characters other than
/// letters, digits, '.', '-' and '_' become '_'.
static std::string fileStem(StringRef name) {
  std::string stem = name.str();
  for (char &c : stem)
    if (!llvm::isAlnum(c) && c != '.' && c != '-' && c != '_')
      c = '_';
  return stem;
}

/// Writes the tensors of each recording observer to
/// `<recordDir>/<stem>.<batch>.npy` (stem: the op's name, or recording<k>)
/// and lists the files in the op's `quanta.recorded` attribute.
static LogicalResult
writeRecordings(StringRef recordDir, MutableArrayRef<ObserveOp> ops,
                ArrayRef<std::vector<RecordedTensor>> recordings) {
  if (ops.empty())
    return success();
  if (std::error_code error = llvm::sys::fs::create_directories(recordDir))
    return emitError(ops.front().getLoc(),
                     "quanta-calibrate: cannot create record-dir '")
           << recordDir << "': " << error.message();
  llvm::StringSet<> stems;
  SmallVector<SmallVector<Attribute>> files(ops.size());
  for (auto [index, tensors] : llvm::enumerate(recordings)) {
    ObserveOp op = ops[index];
    std::string stem = fileStem(op.getName().value_or(""));
    if (stem.empty() || !stems.insert(stem).second)
      stem = "recording" + std::to_string(index);
    stems.insert(stem);
    for (auto [batch, tensor] : llvm::enumerate(tensors)) {
      SmallString<128> path(recordDir);
      llvm::sys::path::append(path,
                              stem + "." + std::to_string(batch) + ".npy");
      std::string pathString = path.str().str();
      if (numerics::Status status = runtime::writeNpyFloat32(
              pathString, tensor.shape, tensor.values.data());
          !status)
        return op.emitOpError("cannot record its tensor: ")
               << status.getMessage();
      files[index].push_back(
          StringAttr::get(ops.front().getContext(), pathString));
    }
  }
  for (auto [op, opFiles] : llvm::zip_equal(ops, files))
    if (!opFiles.empty())
      op->setAttr("quanta.recorded",
                  ArrayAttr::get(ops.front().getContext(), opFiles));
  return success();
}

/// The function calibration runs: `entry`, or the module's only public one.
static FailureOr<func::FuncOp> findEntry(ModuleOp module, StringRef entry) {
  if (!entry.empty()) {
    auto func = module.lookupSymbol<func::FuncOp>(entry);
    if (!func || func.isExternal())
      return emitError(module.getLoc(), "quanta-calibrate: no function '")
             << entry << "' with a body to run";
    return func;
  }
  SmallVector<func::FuncOp> candidates;
  for (auto func : module.getOps<func::FuncOp>())
    if (func.isPublic() && !func.isExternal())
      candidates.push_back(func);
  if (candidates.size() != 1)
    return emitError(module.getLoc(), "quanta-calibrate: the module has ")
           << candidates.size()
           << " public functions; choose one with entry=<name>";
  return candidates.front();
}

/// The entry `options` names, if calibration can run it: float32 results
/// of static shapes, float32 or integer arguments (token ids), and sane
/// thread and batch counts.
static FailureOr<func::FuncOp> checkEntry(ModuleOp module,
                                          const CalibrateOptions &options) {
  Location loc = module.getLoc();
  FailureOr<func::FuncOp> entryFunc = findEntry(module, options.entry);
  if (failed(entryFunc))
    return failure();
  FunctionType entryType = entryFunc->getFunctionType();
  for (Type type : llvm::concat<const Type>(entryType.getInputs(),
                                            entryType.getResults())) {
    auto tensor = dyn_cast<RankedTensorType>(type);
    const bool isResult = llvm::is_contained(entryType.getResults(), type);
    Type element = tensor ? tensor.getElementType() : Type();
    if (!tensor ||
        !(element.isF32() ||
          (!isResult && isa<IntegerType>(element) && !element.isInteger(1))) ||
        (!tensor.hasStaticShape() && isResult))
      return entryFunc->emitError("quanta-calibrate runs functions of float32 "
                                  "or integer tensors with float32 results "
                                  "of static shapes; got ")
             << type;
  }
  if (options.threads < 0)
    return emitError(loc, "quanta-calibrate: threads must be >= 0, got ")
           << options.threads;
  if (options.batchLimit < 0)
    return emitError(loc, "quanta-calibrate: batch-limit must be >= 0 (0: "
                          "every batch), got ")
           << options.batchLimit;
  return entryFunc;
}

namespace {
/// What calibration does with each observer and fake-quant module.
struct CalibrationPlan {
  /// One per observer, in walk order.
  SmallVector<ObserverCall> calls;
  /// The observers with running statistics, those that record, and the
  /// FakeQuantize modules: session.observers, session.recordings and
  /// session.fakeQuants, in order.
  SmallVector<ObserveOp> calibratedOps, recordedOps;
  SmallVector<FakeQuantOp> moduleOps;
};
} // namespace

/// The observers and fake-quant modules of `module`, in walk order, each
/// given its role and, when it calibrates, its state in `session`;
/// calibration continues from statistics already in the IR (so shards of
/// the data can be calibrated in turn).
static FailureOr<CalibrationPlan>
planCalibration(ModuleOp module, const CalibrateOptions &options,
                CalibrationSession &session) {
  CalibrationPlan plan;
  llvm::DenseMap<Operation *, int64_t> calibratedIds;
  WalkResult walk = module.walk([&](ObserveOp op) {
    if (isa<ReuseInputObserverAttr>(op.getObserver())) {
      auto source = calibratedIds.find(findReusedObserver(op));
      plan.calls.push_back(
          source == calibratedIds.end()
              ? ObserverCall{ObserverRole::Identity, -1}
              : ObserverCall{ObserverRole::Calibrated, source->second});
      return WalkResult::advance();
    }
    // A weight observer whose statistics quanta-insert-observers computed
    // has seen its tensor, as PyTorch's sees the weight once: observing
    // it again per batch would not change min/max but would grow a
    // histogram, and would keep the raw weights in the JIT code (tripling
    // ResNet-18's compile time).
    bool running =
        hasRunningStatistics(op.getObserver()) &&
        !(op.getStatsAttr() && matchPattern(op.getInput(), m_Constant()));
    bool recording = isa<RecordingObserverAttr>(op.getObserver());
    if (recording && options.recordDir.empty())
      op.emitWarning("RecordingObserver: its tensors are not recorded "
                     "without record-dir=<directory>");
    bool recorded = recording && !options.recordDir.empty();
    plan.calls.push_back(
        running    ? ObserverCall{ObserverRole::Calibrated,
                               int64_t(session.observers.size())}
        : recorded ? ObserverCall{ObserverRole::Recorded,
                                  int64_t(plan.recordedOps.size())}
                   : ObserverCall{ObserverRole::Identity, -1});
    if (!running && !recorded)
      return WalkResult::advance();
    if (!cast<RankedTensorType>(op.getInput().getType())
             .getElementType()
             .isF32()) {
      op.emitOpError("calibration observes float32 tensors only");
      return WalkResult::interrupt();
    }
    if (recorded) {
      plan.recordedOps.push_back(op);
      return WalkResult::advance();
    }
    FailureOr<runtime::ObserverState> state =
        createObserverState(op.getLoc(), op.getObserver(), op.getStatsAttr());
    if (failed(state))
      return WalkResult::interrupt();
    calibratedIds[op] = int64_t(session.observers.size());
    session.observers.push_back(std::move(*state));
    plan.calibratedOps.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  walk = module.walk([&](FakeQuantOp op) {
    if (!isCalibratedModule(op))
      return WalkResult::advance();
    FailureOr<FakeQuantModule> fakeQuant = createFakeQuantModule(op);
    if (failed(fakeQuant))
      return WalkResult::interrupt();
    session.fakeQuants.push_back(std::move(*fakeQuant));
    plan.moduleOps.push_back(op);
    return WalkResult::advance();
  });
  if (walk.wasInterrupted())
    return failure();
  session.errors.resize(session.observers.size() + session.fakeQuants.size());
  session.recordings.resize(plan.recordedOps.size());
  if (options.recordObserved) {
    if (options.recordDir.empty())
      return emitError(module.getLoc(), "quanta-calibrate: record-observed "
                                        "needs record-dir=<directory>");
    session.observedRecordings.resize(plan.calibratedOps.size());
  }
  return plan;
}

static double secondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start)
      .count();
}

/// Runs `entrySymbol` of `engine` on `batch` (already read and checked)
/// and on the batches after it, up to the batch limit; an observer that
/// saw NaN or infinities is an error at it.
static LogicalResult
runBatches(Location loc, JitEngine &engine, StringRef entrySymbol,
           FunctionType entryType, CalibrationBatches &batches,
           std::vector<runtime::TensorRef> &batch,
           const CalibrateOptions &options, CalibrationPlan &plan,
           CalibrationSession &session, CalibrationProgress &progress,
           const CalibrationProgressCallback &onProgress) {
  // Result buffers, reused for every batch.
  SmallVector<std::vector<float>> results;
  for (Type type : entryType.getResults())
    results.emplace_back(cast<RankedTensorType>(type).getNumElements());

  auto start = std::chrono::steady_clock::now();
  for (int64_t index = 0; options.batchLimit == 0 || index < options.batchLimit;
       ++index) {
    if (index > 0) {
      FailureOr<bool> haveBatch = batches.next(loc, batch);
      if (failed(haveBatch))
        return failure();
      if (!*haveBatch)
        break;
      if (failed(checkBatch(loc, index, batch, entryType)))
        return failure();
    }
    SmallVector<MemRefDescriptor> descriptors;
    for (runtime::TensorRef &tensor : batch)
      descriptors.emplace_back(tensor.data, tensor.shape);
    for (auto [result, type] : llvm::zip(results, entryType.getResults()))
      descriptors.emplace_back(result.data(),
                               cast<RankedTensorType>(type).getShape());
    SmallVector<void *> arguments;
    for (MemRefDescriptor &descriptor : descriptors)
      arguments.push_back(descriptor.packed());
    if (llvm::Error error = engine.invokePacked(entrySymbol, arguments))
      return emitError(loc, "quanta-calibrate: running batch ")
             << index << " failed: " << llvm::toString(std::move(error));
    for (auto [errorIndex, error] : llvm::enumerate(session.errors))
      if (error) {
        Operation *op =
            errorIndex < plan.calibratedOps.size()
                ? plan.calibratedOps[errorIndex].getOperation()
                : plan.moduleOps[errorIndex - plan.calibratedOps.size()];
        InFlightDiagnostic diag = op->emitOpError("calibration batch ")
                                  << index;
        if (!batch.empty())
          diag << " (" << batch.front().source << ")";
        return diag << ": " << *error;
      }
    progress.batches = index + 1;
    progress.runSeconds = secondsSince(start);
    if (onProgress)
      onProgress(progress);
  }
  return success();
}

/// Once every batch ran: writes the recordings, then folds the statistics
/// into the original module. Observers the entry never reached (other
/// functions) stay as they were.
static LogicalResult foldStatistics(ModuleOp module,
                                    const CalibrateOptions &options,
                                    CalibrationPlan &plan,
                                    CalibrationSession &session,
                                    int64_t numBatches) {
  SmallVector<ObserveOp> writtenOps(plan.recordedOps);
  std::vector<std::vector<RecordedTensor>> written =
      std::move(session.recordings);
  if (options.recordObserved) {
    writtenOps.append(plan.calibratedOps);
    for (auto &tensors : session.observedRecordings)
      written.push_back(std::move(tensors));
  }
  if (failed(writeRecordings(options.recordDir, writtenOps, written)))
    return failure();
  MLIRContext *context = module.getContext();
  for (auto [op, state] :
       llvm::zip_equal(plan.calibratedOps, session.observers))
    if (state.getNumBatches() > 0)
      op.setStatsAttr(getStatisticsAttr(context, state));
  for (auto [op, fakeQuant] :
       llvm::zip_equal(plan.moduleOps, session.fakeQuants))
    writeBackModule(op, fakeQuant, numBatches);
  return success();
}

LogicalResult quanta::calibrate(ModuleOp module, CalibrationBatches &source,
                                const CalibrateOptions &options,
                                const CalibrationProgressCallback &onProgress) {
  loadDependentDialects(module.getContext(), *createCalibrate());
  Location loc = module.getLoc();
  FailureOr<func::FuncOp> entryFunc = checkEntry(module, options);
  if (failed(entryFunc))
    return failure();
  FunctionType entryType = entryFunc->getFunctionType();
  std::unique_ptr<CalibrationBatches> split =
      splitIntoEntryBatches(source, entryType);
  CalibrationBatches &batches = *split;
  // The first batch is checked against the entry before anything is
  // compiled or allocated for the shapes the IR declares.
  std::vector<runtime::TensorRef> batch;
  FailureOr<bool> haveBatch = batches.next(loc, batch);
  if (failed(haveBatch))
    return failure();
  if (!*haveBatch)
    return emitError(loc, "quanta-calibrate: no calibration batches");
  // After the first batch, which tells a source that splits its files how
  // many batches each holds.
  CalibrationProgress progress;
  progress.total = batches.size();
  if (options.batchLimit > 0)
    progress.total = progress.total
                         ? std::min(*progress.total, options.batchLimit)
                         : std::optional<int64_t>();
  if (failed(checkBatch(loc, 0, batch, entryType)))
    return failure();
  for (auto [index, type] : llvm::enumerate(entryType.getResults()))
    if (failed(checkAllocatable(
            loc, cast<RankedTensorType>(type).getNumElements(), sizeof(float),
            "result " + Twine(index) + " of the entry")))
      return failure();

  CalibrationSession session;
  FailureOr<CalibrationPlan> plan = planCalibration(module, options, session);
  if (failed(plan))
    return failure();
  auto compileStart = std::chrono::steady_clock::now();
  FailureOr<std::unique_ptr<JitEngine>> engine =
      createCalibrationEngine(module, entryFunc->getSymName(), plan->calls,
                              session, options.floatKernels, options.threads);
  if (failed(engine))
    return failure();
  // The engine generates code at the first lookup: before the batches, so
  // that their rate is the model's.
  const std::string entrySymbol =
      ("_mlir_ciface_" + entryFunc->getSymName()).str();
  if (auto lookup = (*engine)->lookupPacked(entrySymbol); !lookup)
    return emitError(loc, "quanta-calibrate: ")
           << llvm::toString(lookup.takeError());
  progress.compileSeconds = secondsSince(compileStart);
  if (onProgress)
    onProgress(progress);

  if (failed(runBatches(loc, **engine, entrySymbol, entryType, batches, batch,
                        options, *plan, session, progress, onProgress)))
    return failure();
  return foldStatistics(module, options, *plan, session, progress.batches);
}

namespace {
struct CalibratePass : public quanta::impl::CalibrateBase<CalibratePass> {
  using Base::Base;

  void runOnOperation() override {
    ModuleOp module = getOperation();
    FailureOr<func::FuncOp> entryFunc = findEntry(module, entry);
    if (failed(entryFunc))
      return signalPassFailure();
    if (data.empty()) {
      emitError(module.getLoc(),
                "quanta-calibrate: no calibration data (data=<files>)");
      return signalPassFailure();
    }
    FailureOr<std::unique_ptr<CalibrationBatches>> batches =
        openCalibrationFiles(module.getLoc(), data,
                             entryFunc->getNumArguments());
    if (failed(batches))
      return signalPassFailure();
    CalibrateOptions options = getOptions();
    options.entry = entryFunc->getSymName().str();
    // The compile time, then the batch rate at most once a second.
    double lastReport = 0;
    CalibrationProgressCallback onProgress;
    if (!quiet)
      onProgress = [&](const CalibrationProgress &progress) {
        if (progress.batches == 0) {
          llvm::errs() << llvm::formatv(
              "quanta-calibrate: compiled in {0:f1} s\n",
              progress.compileSeconds);
          return;
        }
        if (progress.runSeconds - lastReport < 1.0 &&
            progress.batches != progress.total)
          return;
        lastReport = progress.runSeconds;
        llvm::errs() << llvm::formatv(
            "quanta-calibrate: {0}/{1} batches, {2:f1} batches/s\n",
            progress.batches,
            progress.total ? std::to_string(*progress.total) : "?",
            progress.batches / std::max(progress.runSeconds, 1e-9));
      };
    if (failed(calibrate(module, **batches, options, onProgress)))
      signalPassFailure();
  }

  CalibrateOptions getOptions() const {
    CalibrateOptions options;
    options.entry = entry;
    options.data.assign(data.begin(), data.end());
    options.batchLimit = batchLimit;
    options.quiet = quiet;
    options.recordDir = recordDir;
    options.recordObserved = recordObserved;
    options.floatKernels = floatKernels;
    options.threads = threads;
    return options;
  }
};
} // namespace

FailureOr<CalibrateOptions> quanta::parseCalibrateOptions(
    StringRef text, function_ref<LogicalResult(const Twine &)> errorHandler) {
  CalibratePass pass;
  if (failed(pass.initializeOptions(text, [&](const Twine &why) {
        // LLVM's option parser prints a bad value's reason itself.
        std::string reason = StringRef(why.str()).trim().str();
        return errorHandler(reason.empty() ? "an option's value is invalid"
                                           : reason);
      })))
    return failure();
  return pass.getOptions();
}

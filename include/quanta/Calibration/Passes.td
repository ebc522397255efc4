//===- Passes.td - calibration -------------------------------*- tablegen -*-===//

#ifndef QUANTA_CALIBRATION_PASSES_TD
#define QUANTA_CALIBRATION_PASSES_TD

include "mlir/Pass/PassBase.td"

def Calibrate : Pass<"quanta-calibrate", "ModuleOp"> {
  let summary = "Run the observed model on calibration data with the JIT and "
                "fold the observers' statistics into the IR";
  let description = [{
    Calibration is the compiler running the model. The pass clones the
    module, turns every `quanta.observe` whose observer keeps running
    statistics into a call into Quanta's runtime (the same observer code the
    numeric library tests against PyTorch), lowers the clone to the LLVM
    dialect in a private context (the f32 matmuls, convolutions and
    depthwise convolutions on the tiled kernels of `quanta-lower-x86` /
    `quanta-lower-neon` for this machine, then one-shot bufferization,
    loops, LLVM; with `float-kernels=false` as loops in each op's own
    summation order, several times slower on real networks: the FMA kernels
    round each step once, which moves a maximum an observer sees in the
    last bits, and a scale by an ulp or two),
    JIT-compiles it (or loads it from the compile cache), and calls `entry` once per
    calibration batch, in order. The statistics the observers hold at the
    end are written as `stats` attributes (`#quanta.min_max_stats`,
    `#quanta.histogram_stats`) on the observe ops of the original module:
    what PyTorch's observers hold after the same `forward` calls.

    Calibration data (`data`): NumPy files. An `.npz` archive is one batch
    and holds one array per argument of `entry`, in order. `.npy` files are
    taken `N` at a time for an `N`-argument entry (one file per argument per
    batch; one file per batch for the usual single input). Every array must
    be float32, C order, with the rank and static sizes of its argument;
    any mismatch is an error naming the file, the argument and both shapes
    or dtypes, and the module is left untouched on any error.

    `quanta.fake_quant` ops with a FakeQuantize module (and the observer
    enabled) run as PyTorch's forward() does: observe, refresh scale and
    zero point, fake-quantize with them, so that everything downstream sees
    the fake-quantized values; afterwards they hold their observer's
    statistics and their scale/zero_point. Fake-quant ops with known qparams
    are lowered and simply run.

    A `#quanta.recording` observer records every tensor it sees, as
    PyTorch's RecordingObserver keeps them in `tensor_val`: with
    `record-dir`, batch `b` of an observer named `n` is written to
    `<record-dir>/n.b.npy` (float32; `recording<k>` for the k-th recording
    observer when it has no name or shares it) once every batch has run,
    and the op lists its files in a `quanta.recorded` attribute. Without
    `record-dir` a warning says that nothing is recorded.

    Statistics accumulate on top of those already in the IR, so calibrating
    twice with two halves of the data equals calibrating once with all of
    it. Progress goes to stderr unless `quiet`.
  }];
  let options = [
    Option<"entry", "entry", "std::string", /*default=*/"",
           "function to run (default: the only public function)">,
    ListOption<"data", "data", "std::string",
               "calibration data: .npy files (N per batch for N arguments) "
               "or .npz files (one batch each)">,
    Option<"batchLimit", "batch-limit", "int64_t", /*default=*/"0",
           "stop after this many batches (0: all)">,
    Option<"quiet", "quiet", "bool", /*default=*/"false",
           "do not report progress on stderr">,
    Option<"recordDir", "record-dir", "std::string", /*default=*/"",
           "directory for the tensors of RecordingObservers (.npy files)">,
    Option<"recordObserved", "record-observed", "bool", /*default=*/"false",
           "also write the tensors every calibrated observer sees to "
           "record-dir (<name>.<batch>.npy), e.g. for quanta.report">,
    Option<"floatKernels", "float-kernels", "bool", /*default=*/"true",
           "run the float matmuls and convolutions on the tiled kernels "
           "(false: as loops in the ops' own summation order)">,
    Option<"threads", "threads", "int64_t", /*default=*/"1",
           "threads the model runs on (0: the OpenMP runtime's choice); "
           "the statistics are the same for any count">,
  ];
  // The rewritten clone lives in the user's context until it is serialized.
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::bufferization::BufferizationDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def ExportStatistics : Pass<"quanta-export-statistics", "ModuleOp"> {
  let summary = "Write the observers' statistics to a file";
  let description = [{
    Writes a JSON file holding, for every named `quanta.observe` with
    statistics, its name, its observer and its statistics (as attribute
    text, which prints float32 values exactly):

        {"format": "quanta-statistics", "version": 1, "observers": [
          {"name": "conv1.output", "observer": "#quanta.histogram<...>",
           "stats": "#quanta.histogram_stats<...>"}, ...]}

    With `quanta-import-statistics` this lets a calibration set too large
    for one machine be split into shards calibrated as separate processes
    (a Slurm array, Ray tasks, a Kubernetes Job): each exports its
    statistics and one process merges them (see
    scripts/calibrate_sharded.sh).
  }];
  let options = [
    Option<"file", "file", "std::string", /*default=*/"\"-\"",
           "where to write ('-' for stdout)">,
  ];
}

def ImportStatistics : Pass<"quanta-import-statistics", "ModuleOp"> {
  let summary = "Set the observers' statistics from files, merging shards";
  let description = [{
    Reads statistics files written by `quanta-export-statistics` and sets
    the statistics of every named observer to the merge of its entries in
    all files. Merging is exact for min/max observers (the result equals
    calibrating on all the data at once) and uses PyTorch's histogram
    combination for HistogramObserver (the combined histogram
    redistributes each shard's counts over the common range, as PyTorch
    does when a batch widens the range, so it approximates the single run).
    Moving-average and memoryless observers depend on batch order and are
    rejected: calibrate their shards one after the other instead. Every
    observer must appear in every file with the same observer attribute.
  }];
  let options = [
    ListOption<"files", "files", "std::string",
               "statistics files to merge">,
  ];
}

#endif // QUANTA_CALIBRATION_PASSES_TD

//===- Passes.td - quanta transformation passes ------------*- tablegen -*-===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_TD
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_TD

include "mlir/Pass/PassBase.td"

def InsertObservers : Pass<"quanta-insert-observers", "ModuleOp"> {
  let summary = "Insert observers where PyTorch's prepare() would";
  let description = [{
    Attaches `quanta.observe` ops to a linalg-on-tensors function the way
    PyTorch's FX `prepare_fx` does for static post-training quantization:

    * Weighted ops (linalg.matmul, batch_matmul, conv_2d_nhwc_hwcf,
      conv_2d_nhwc_fhwc, conv_2d_nchw_fchw, depthwise_conv_2d_nhwc_hwc and
      depthwise_conv_2d_nhwc_hwcm) get their activation input observed with
      the qconfig's activation observer, their weight with the weight
      observer, and their output with the activation observer. A
      convolution filter is always a weight; a matmul operand is a weight
      when it is computed from constants only, otherwise (attention-style
      activation x activation) both operands are activations.
    * Elementwise add and mul get both inputs and their output observed.
    * Fusion as PyTorch fuses: a weighted op followed by a bias add (an add
      of a constant, possibly after a reshape) and/or a relu, and add/mul
      followed by a relu, are observed once, after the last op of the
      chain. relu is max(x, 0), select(x > 0, x, 0) or clamp(x, 0, +inf)
      (how tosa.clamp spells it). Other clamps (relu6, ONNX's Clip) share
      the chain's qparams, as in PyTorch FX's backend config, so the chain
      is observed before them. With `fuse-clamps` they end the chain
      instead, as TFLite fuses RELU6 and as torchvision's quantizable
      MobileNetV2 gets by replacing ReLU6 with a fused ReLU: the output is
      observed after the clamp, and its range is the clamped one
      (MobileNetV2's int8 SQNR against its float logits: 35.3 dB without,
      36.5 dB with).
    * Shape-only and range-preserving ops (reshape, expand/collapse_shape,
      transpose, pad, extract_slice, max/average pooling, standalone relu and
      clamp) share their input's observer: their output gets a
      `#quanta.reuse_input` observer. Average pooling is a sum pooling
      followed by a division by the window size (or a multiplication by its
      inverse), observed after the division; a sum pooling without it is
      not an op PyTorch quantizes and stays float.
    * sigmoid and softmax get `default_fixed_qparams_range_0to1_observer`,
      tanh `default_fixed_qparams_range_neg1to1_observer`.
    * Each value is observed once, however many quantized ops use it.
    * Observers on constant weights get their statistics at compile time
      (`fold-constant-weights`), computed with the same numeric library as
      calibration, so their qparams are known without calibration data.

    The qconfig is a preset name (`x86`, `fbgemm`, `qnnpack`, `onednn`,
    `default`, `default_per_channel`, `default_qat`, ... as PyTorch's
    `get_default_qconfig(backend)` and `default_*_qconfig`; see the docs) or
    a `#quanta.qconfig<...>` attribute. Per-op overrides name an op
    (`linalg.matmul=qnnpack`) or a location (`"fc1"=none`); an op can also
    carry a `quanta.qconfig` attribute (a preset name string, `none`, or a
    `#quanta.qconfig`), which wins over everything. `none` leaves the op in
    float.

    Per-channel weight observers: PyTorch's ch_axis = 0 denotes the output
    channel of its own weight layouts; here the pass sets `ch_axis` to the
    output-channel dimension of the linalg weight operand (N of matmul's KxN
    operand, F of HWCF and FCHW filters, C of depthwise HWC filters).

    TOSA input must be converted first (`quanta-prepare` runs the upstream
    tosa-to-linalg pipeline and then this pass).
  }];
  let options = [
    Option<"qconfig", "qconfig", "std::string", /*default=*/"\"x86\"",
           "qconfig preset name or #quanta.qconfig<...> attribute">,
    ListOption<"overrides", "override", "std::string",
               "per-op qconfig: <op name or location name>=<qconfig>">,
    Option<"foldConstantWeights", "fold-constant-weights", "bool",
           /*default=*/"true",
           "compute statistics of observers on constant weights now">,
    Option<"fuseClamps", "fuse-clamps", "bool", /*default=*/"false",
           "observe a weighted op or add/mul followed by a clamp (relu6) "
           "after the clamp, as TFLite fuses it (default: the clamp shares "
           "the op's qparams, as in PyTorch FX)">,
  ];
  let dependentDialects = ["::mlir::quanta::QuantaDialect"];
}

def LowerFakeQuant : Pass<"quanta-lower-fake-quant", "func::FuncOp"> {
  let summary = "Lower quanta.fake_quant with known qparams to linalg";
  let description = [{
    Rewrites every `quanta.fake_quant` whose qparams are known into a
    `linalg.generic` of arith/math ops computing exactly what PyTorch 1.13's
    CPU fake-quant kernels compute: `x * (1.0f / scale)` in float32, round
    half to even, the zero point added in float32 (for float zero points:
    one fused multiply-add, as PyTorch's AVX2 build computes it), clamped to
    [quant_min, quant_max], and `(q - zero_point) * scale` evaluated in
    float64 and rounded to float32 once (PyTorch's std::fmin/fmax promote to
    double; float32 is used where it provably rounds the same). Like
    PyTorch's x86 kernel, whose float-to-int64 conversion gives INT64_MIN
    for NaN and out-of-range values, NaN, +-inf and |x / scale| >= 2^63 all
    map to quant_min. Ops with `fake_quant_enabled = false` become their
    input.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::tensor::TensorDialect",
  ];
}

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
    JIT-compiles it with `mlir::ExecutionEngine`, and calls `entry` once per
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

def FreezeQParams : Pass<"quanta-freeze-qparams", "func::FuncOp"> {
  let summary = "Turn observers with statistics into quant.qcast/quant.dcast "
                "pairs with !quant.uniform types";
  let description = [{
    Computes every observer's qparams from its statistics with the numeric
    library (PyTorch's calculate_qparams, bit for bit) and replaces
    `quanta.observe` by `quant.qcast` + `quant.dcast` through a
    `!quant.uniform` type (per tensor) or `!quant.uniform` per-axis type (per
    channel, on the observer's channel axis). The storage type follows the
    observer's dtype (quint8: u8, qint8: i8, qint32: i32, quint4x2: u4) and
    its range is the observer's effective [quant_min, quant_max] (e.g.
    u8<0:127> with reduce_range). `#quanta.reuse_input` observers take the
    type of the observer they share through shape-only ops. Fake-quant ops
    with known qparams become the same pair (this is how QAT models enter
    the integer pipeline); disabled ones disappear.

    What upstream quant types cannot express stays in Quanta's own op:
    per_channel_affine_float_qparams (float zero points) becomes a
    `quanta.fake_quant` with `float_zero_point`. quint4x2 values are u4
    storage; their two-per-byte packing is a property of the kernels, not of
    the type. Placeholder, Noop and Recording observers keep their value in
    float. An observer without statistics is an error: run quanta-calibrate
    first.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

def LowerQuantCasts : Pass<"quanta-lower-quant-casts", "func::FuncOp"> {
  let summary = "Lower quant.qcast/quant.dcast the way PyTorch quantizes";
  let description = [{
    Upstream `lower-quant-ops` divides by the scale, adds the zero point,
    converts with `fptosi` (rounding toward zero) and clamps afterwards.
    PyTorch's quantize_per_tensor/per_channel multiply by the float32
    reciprocal of the scale, round half to even, add the zero point in
    float32 and clamp before converting; this pass does the latter, with
    the same arithmetic as `quanta-lower-fake-quant`, so that
    dequantize(quantize(x)) equals `quanta.fake_quant` bit for bit. Values
    cross between quantized and storage types through `quant.scast`.

    Two deliberate differences from PyTorch: values are clamped to the
    type's storage range (u8<0:127> for reduce_range), which the int8
    kernels rely on, where torch.quantize_per_tensor clamps to the whole
    dtype; and qint32 dequantization computes q - zero_point without the
    int32 wrap-around PyTorch's kernel has for saturated values.
  }];
  let dependentDialects = [
    "::mlir::arith::ArithDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::tensor::TensorDialect",
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

def ReportQParams : Pass<"quanta-report-qparams", "ModuleOp"> {
  let summary = "Print the quantization parameters of observers with "
                "statistics";
  let description = [{
    For every `quanta.observe` whose statistics are known, computes its
    qparams with the numeric library (PyTorch's calculate_qparams, bit for
    bit) and prints one line per observer to the output stream chosen by
    `output` (`-` for stdout): name, observer class, scale(s) and zero
    point(s). The IR is not changed.

    With `format=json` the report is one JSON object for programs (the
    Python package's quanta.report): per observer also its quantized range,
    channel axis and the statistics' min/max (per channel for per-channel
    observers), so that nothing has to be parsed out of attributes.
  }];
  let options = [
    Option<"output", "output", "std::string", /*default=*/"\"-\"",
           "where to print the report ('-' for stdout)">,
    Option<"format", "format", "std::string", /*default=*/"\"text\"",
           "text (a line per observer) or json">,
  ];
}

def Quantize : Pass<"quanta-quantize", "ModuleOp"> {
  let summary = "Rewrite float ops between dequantize and quantize into "
                "integer ops";
  let description = [{
    Replaces `quant.dcast` -> core (weights a quantized float constant; an
    accumulator starting from zero or a broadcast bias) -> optional bias
    add -> optional relu / relu6 / clamp -> `quant.qcast` by one
    `quanta.qmatmul`. The core is `linalg.matmul` (weights [K, N], or
    [N, K] through the `indexing_maps` of a transposed B: PyTorch's Linear,
    ONNX's Gemm with transB), `linalg.batch_matmul` with weights broadcast
    over the batch (a Linear on a [B, M, K] input) or of batch 1 (TOSA's
    fully connected layer), its batch and rows one M, or a 2-D convolution
    (`conv_2d_nhwc_fhwc`, `conv_2d_nhwc_hwcf`, `conv_2d_nchw_fchw`; any
    strides and dilations). A convolution becomes a GEMM over the im2col
    matrix of the quantized input, which `quanta.qmatmul` reads where it
    lies through its `window` attribute instead of through a copy KH * KW
    times the input's size (an NCHW input is transposed to NHWC first, a
    constant padding of it moved after the transpose; a 1x1 NHWC kernel of
    stride 1 is a plain reshape), with the weights re-laid out as a
    (kh, kw, c) x f matrix at compile time; padding is the quantized
    `tensor.pad` before it, whose taps quanta-lower-x86 skips. One integer
    kernel thus serves every layer for every target. A depthwise
    convolution (`depthwise_conv_2d_nhwc_hwc`, or `_hwcm` with the collapse
    of C and M that tosa-to-linalg adds) becomes `quanta.qmatmul`'s
    `depthwise` form, the GEMM whose column n reads channel n only
    (K = KH * KW taps; a depth multiplier M > 1 reads the input with each
    channel repeated M times), with the same constants; the lowerings give
    it a kernel of its own.
    u8 or s8 input, s8 weights per tensor or per output channel, i32 accumulation, bias quantized to i32 with scale
    s_in * s_w (PyTorch's rule), zero-point terms folded into i32 column
    offsets, requantization by a Q31 multiplier with a single rounding, and
    the activation fused into the output range. The constants come from the
    numeric library (prepareIntegerGemm), whose reference kernels match
    PyTorch's quantized linear within 1 LSB (exactly with qnnpack).

    Beyond GEMMs, on the storage integers (`linalg.generic` and named ops
    of integer type, so every target lowers them like any integer code):
    - add and mul of two dequantized 8-bit tensors (any broadcast the float
      op had), with a following clamp fused: QNNPACK's add (bit-exact with
      PyTorch's qnnpack engine) and the GEMM's requantization for mul,
      constants from the numeric library (prepareIntegerAdd/Mul);
    - any other elementwise op of one dequantized 8-bit tensor whose body
      can be evaluated at compile time (clamp, relu, sigmoid, tanh, exp,
      ...): a 256-entry table of quantize(f(dequantize(q))). Exact for
      clamps; for transcendental bodies the host libm may differ from the
      JIT's in the last float bit, so an output on a rounding boundary can
      move by 1 LSB;
    - max pooling, `tensor.pad`, `collapse_shape`,
      `expand_shape`, `reshape`, `extract_slice` and `concat` whose inputs
      and result share one quantized type: they commute with quantization
      (padding and initial values are quantized once), so they are exact;
      `concat` inputs of other 8-bit types are requantized on integers
      first (the GEMM's Q31 multiplier, one rounding: within 1 LSB);
    - average pooling (`linalg.pooling_nhwc_sum`/`_nchw_sum` divided by
      its window size, or multiplied by its inverse) of a dequantized 8-bit
      tensor into a type of the same signedness: i32 sums of q - zi over
      each window, requantized with s_i / (s_o * window) like the GEMM's
      accumulators (prepareIntegerAveragePool): one rounding, within 1 LSB
      of the float average; zero padding before it counts in the window,
      as with PyTorch's count_include_pad=True.

    Forms front ends write are accepted as they come: a fully connected
    layer may reshape between its GEMM, bias add and activation (one
    reshape that keeps the channels last: TOSA's batch-1 matmul, ONNX's
    Gemm after a Flatten); NCHW depthwise convolutions
    (`depthwise_conv_2d_nchw_chw`, ONNX's group == channels) become the
    same depthwise `quanta.qmatmul` on an NHWC transpose of the input, the
    output transposed back; `pooling_nchw_max` as well as `pooling_nhwc_max` become an
    integer max with the pool's own indexing maps; `linalg.transpose`,
    `broadcast` and `copy` move storage integers; and the constant padding
    of a dequantized tensor that nothing quantizes again (a convolution's
    or pool's own padding, as ONNX's `pads` import) moves onto the storage
    integers when its value is exact in the type (0 is the zero point;
    -inf before max pools is the storage minimum).

    Everything else stays float between its dq/q pairs, and a remark says
    why (unsupported op, transposed operands, non-constant weights, an
    accumulator that could overflow int32, a requantizing copy, ...). With
    `report-float-ops`, a remark on each function also counts the float
    compute ops left in it, by op name (0 for a model quantized entirely).
  }];
  let options = [
    Option<"reportFloatOps", "report-float-ops", "bool", /*default=*/"false",
           "remark, per function, how many float compute ops are left">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::quant::QuantDialect",
                           "::mlir::quanta::QuantaDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
}

def LowerIntrinsics : Pass<"quanta-lower-intrinsics", "ModuleOp"> {
  let summary = "Turn quanta.intrinsic into llvm.call_intrinsic";
  let description = [{
    Runs after bufferization (buffer deallocation rejects
    llvm.call_intrinsic, whose memory effects it cannot know).
  }];
  let dependentDialects = ["::mlir::LLVM::LLVMDialect"];
}

def PropagateLayout : Pass<"quanta-propagate-layout", "ModuleOp"> {
  let summary = "Convert a quantized NCHW graph to NHWC once, at its "
                "boundaries";
  let description = [{
    After `quanta-quantize`, every NCHW convolution runs on NHWC storage
    between two transposes, and the pools, pads, lookup tables and residual
    adds between convolutions run in NCHW. This pass moves each transpose
    down through the layout-agnostic ops after it (`linalg.generic`s whose
    layout-following inputs are all transposed alike and whose other inputs
    are indexed by iteration dims alone, such as pools, tables, adds,
    requantizations and bias broadcasts; constant `tensor.pad`s;
    `quant.scast` pairs) and composes it with the transpose it meets, so
    that what is left are the transposes at the graph's
    boundaries and before layout-dependent ops (a flatten), as IREE and
    TFLite convert a whole NCHW graph once. The computed values are
    unchanged. It runs its own patterns only, without folding (the quant
    casts' folders would drop quantization steps).
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::tensor::TensorDialect"];
}

def StorageSignatures : Pass<"quanta-storage-signatures", "ModuleOp"> {
  let summary = "Quantized tensors cross function boundaries as storage";
  let description = [{
    Bufferization has no buffer type for `!quant.uniform` elements. Every
    defined function's quantized arguments and results become tensors of
    their (signless) storage type, with `quant.scast` at the entry, before
    each return and around each call; the scast pairs then cancel out.
    quant-run and the headers of quant-compile read the signedness from
    the signature before lowering.
  }];
  let dependentDialects = ["::mlir::quant::QuantDialect"];
}

def AllocateResultShapes : Pass<"quanta-allocate-result-shapes"> {
  let summary = "Allocate returned buffers in the shape they are returned in";
  let description = [{
    Runs after one-shot bufferization. A function that computes a result
    in one shape and returns it reshaped (a convolution's GEMM output
    [N*OH*OW, F] returned as [N, OH, OW, F]) returns a
    `memref.expand_shape` or `memref.collapse_shape` of a `memref.alloc`;
    buffer-results-to-out-params then keeps the allocation and copies it
    into the caller's buffer on every call. This pass allocates the buffer
    in the returned shape instead and gives the computation a reshaped view
    of it, so that the function returns the allocation itself and
    buffer-results-to-out-params writes the result in place.
  }];
}

def Parallelize : Pass<"quanta-parallelize", "ModuleOp"> {
  let summary = "Run the kernels' independent loops on threads (OpenMP)";
  let description = [{
    Part of the lowering to LLVM; runs three times. With the module's
    `quanta.threads` = 1, phase `loops` does nothing and phase `openmp`
    makes every `scf.parallel` sequential loops. Phase `loops`, on buffers
    after bufferization: every `scf.for` marked `quanta.parallel` (the row loops
    of the tiled kernels) that carries no values becomes an `scf.parallel`
    (not inside another one). Phase `openmp`, once linalg ops are
    `scf.parallel` loops (convert-linalg-to-parallel-loops): upstream's
    convert-scf-to-openmp with `num_threads` = `quanta.threads` (no clause
    for 0: OMP_NUM_THREADS, else every core), then a canonicalization that
    drops the allocation scopes it wraps around bodies that allocate
    nothing. Phase `scopes` (for every thread count), after vector-to-scf,
    which puts the stack buffer of an unrolled transfer in the innermost
    loop around it (a stack allocation per iteration, once lowered): every
    static `memref.alloca` moves to the start of its allocation scope (the
    function, or a parallel body), then each scope's body is inlined
    between `llvm.intr.stacksave` and `llvm.intr.stackrestore`, as the LLVM
    lowering of `memref.alloca_scope` does, but before scf-to-cf, which
    would split the body into blocks a scope does not allow.

    Every parallel iteration writes its own part of the output and no
    reduction is split across threads, so the results are the same bytes
    for every thread count. The code then calls the LLVM OpenMP runtime
    (`libomp`, Debian's libomp-22-dev): the JIT loads it, object files link
    it (the C header gives the link line).
  }];
  let options = [
    Option<"phase", "phase", "std::string", /*default=*/"\"loops\"",
           "loops (marked scf.for to scf.parallel), openmp "
           "(scf.parallel to OpenMP) or scopes (allocation scopes inlined)">,
  ];
  let dependentDialects = [
    "::mlir::LLVM::LLVMDialect",
    "::mlir::omp::OpenMPDialect",
    "::mlir::memref::MemRefDialect",
    "::mlir::scf::SCFDialect",
  ];
}

def PlanMemory : Pass<"quanta-plan-memory", "ModuleOp"> {
  let summary = "Place a function's intermediate buffers in one arena "
                "planned by liveness";
  let description = [{
    Runs after one-shot bufferization and buffer-results-to-out-params,
    before buffer deallocation. In every function, each `memref.alloc` of a
    static, identity-layout buffer becomes a `memref.view` at a planned
    offset of one arena: a private, uninitialized `memref.global`
    `@__quanta_arena_<function>` of `i8`, 64-byte aligned, allocated once
    when the code is loaded. Nothing is allocated per call.

    A buffer lives from its allocation to the last use of it or of any view
    of it (a use inside a loop, a call or any other region counts as a use
    by the function-level op that holds it). Buffers whose lifetimes do not
    overlap share bytes. The offsets come from the greedy-by-size plan
    (largest buffer first, each at the lowest offset where it overlaps no
    live buffer already placed; TFLite's arena planner does the same). A
    buffer allocated inside a loop lives for the loop's whole execution in
    one place, which is what the fresh allocation per iteration meant.

    Left to the allocator: buffers of dynamic shape or another layout,
    buffers allocated inside `scf.parallel` / `scf.forall` (one per
    thread), and buffers a view of which reaches a terminator (yielded out
    of a loop or returned), whose lifetime the function does not bound.

    The arena makes a function non-reentrant: calls of the same compiled
    function must not overlap in time (the threads inside one call are
    fine). With `report`, a remark per function gives the arena's size,
    the liveness lower bound (the largest total of simultaneously live
    bytes, which no placement can beat) and the allocations left. The
    same numbers are attributes of the arena global
    (`quanta.lower_bound_bytes`), which quant-compile and quant-run print.
  }];
  let options = [
    Option<"report", "report", "bool", /*default=*/"false",
           "a remark per function with the arena size and its lower bound">,
  ];
}

def OutlineLoops : Pass<"quanta-outline-loops", "ModuleOp"> {
  let summary = "Give each large top-level loop nest a function of its own";
  let description = [{
    Runs in `quanta-lower-to-llvm` after the loops are final (bufferized,
    parallelized, vector transfers lowered) and before control flow is
    lowered. In every function, each top-level op with regions (a loop
    nest: one layer's kernel, or part of one) holding at least `min-ops`
    ops moves into a private function of its own, marked `noinline`,
    called in its place with the values it uses from outside as arguments.
    What can be recomputed for free (constants, `memref.get_global`, and
    views, casts and reshapes of them with constant operands, such as the
    arena buffers of `quanta-plan-memory`) is cloned into the new function
    instead, so LLVM still sees which buffers are distinct. The new
    function inherits the LLVM function attributes (`passthrough`) of its
    parent, such as the vector widths the kernels asked for.

    Why: LLVM's loop passes (IndVarSimplify, LoopLoadElimination,
    LoopRotate) cost more than linearly in the size of the function they
    run on, and a whole model lowered into one function took them most of
    its compilation time (measured on MobileNetV2 in float: `opt -O3` took
    17 s on one function of 67,000 lines of LLVM IR, 4.2 s on the 413
    functions of this pass, `llc -O3` 9.5 s and 5.8 s; `quant-compile` 30 s
    and 13.8 s). The calls cost nothing next to a layer's work (the int8
    model's latency did not move).
  }];
  let options = [
    Option<"minOps", "min-ops", "int64_t", /*default=*/"8",
           "smallest number of nested ops worth a function">,
  ];
  let dependentDialects = ["::mlir::func::FuncDialect"];
}

def ConstantsAsBytes : Pass<"quanta-constants-as-bytes", "ModuleOp"> {
  let summary = "Store large constant buffers as bytes";
  let description = [{
    Runs after one-shot bufferization. Every `memref.global` constant of
    at least `min-bytes` bytes with a dense, non-splat initializer of
    integers, floats or indices becomes a global of `i8` holding the same
    bytes (little-endian, as on every target Quanta lowers for), aligned to
    64 bytes, and each `memref.get_global` of it a `memref.view` of the byte
    global in the original type.

    Why: LLVM's AsmPrinter writes an `i8` array as one block of bytes but
    any other constant array one element at a time through APFloat/APInt;
    ResNet-18's 47 MB of packed float weights took seconds of every
    compilation, JIT included.
  }];
  let options = [
    Option<"minBytes", "min-bytes", "int64_t", /*default=*/"4096",
           "smallest constant to store as bytes">,
  ];
}

def ExpandStridedCopies : Pass<"quanta-expand-strided-copies"> {
  let summary = "Turn memref.copy between non-contiguous buffers into loops";
  let description = [{
    The LLVM lowering of memref.copy calls MLIR's runtime function
    `memrefCopy` unless both buffers are contiguous (for instance the copy
    into a padded subview that tensor.pad bufferizes to). Where the trailing
    dimensions of both buffers are contiguous (a padded NHWC interior: one
    W x C row per (n, h)), the copy becomes a loop nest over the leading
    dimensions copying one contiguous block each, which lowers to memcpy;
    otherwise linalg.copy, lowered to a loop per element. Either way the
    object files of quant-compile link with the C library alone.
  }];
  let dependentDialects = ["::mlir::linalg::LinalgDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::arith::ArithDialect"];
}

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_TD

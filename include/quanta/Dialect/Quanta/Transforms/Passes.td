//===- Passes.td - the quantization flow ---------------------*- tablegen -*-===//

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
      activation x activation) both operands are activations, as FX 1.13
      observes torch.matmul (its quantized::matmul then computes in float
      between dequantization and quantization; quanta-quantize makes it
      an int8 GEMM, quanta.qbatch_matmul).
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
    * Embedding lookups (a `linalg.generic` reading rows of a constant
      table by integer ids, ONNX's Gather) get their table observed per row
      when their qconfig's weight observer is a float-qparams one
      (`float_qparams_weight_only`, `float_qparams_weight_only_4bit`, the
      only qconfigs PyTorch quantizes embeddings with); their output is not
      observed (weight-only). With any other qconfig they stay float, as in
      FX.
    * sigmoid and softmax get `default_fixed_qparams_range_0to1_observer`,
      tanh `default_fixed_qparams_range_neg1to1_observer`.
    * Each value is observed once, however many quantized ops use it.
    * Values inside one front-end op are not observed: a reshape between
      ops that all carry its location name (the ops one ONNX node, such as
      a LayerNormalization or a Softmax, translates into) is no boundary
      PyTorch sees, so its row sums reach their division in float.
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
    Option<"format", "format", "ReportFormat", /*default=*/"ReportFormat::Text",
           "how the report is written",
           [{::llvm::cl::values(
               clEnumValN(ReportFormat::Text, "text", "a line per observer"),
               clEnumValN(ReportFormat::Json, "json",
                          "one JSON document (quanta.report reads it)"))}]>,
  ];
}

def QuantizeDynamic : Pass<"quanta-quantize-dynamic", "ModuleOp"> {
  let summary = "PyTorch's quantize_dynamic: Linear layers with int8 "
                "weights and activations quantized at run time";
  let description = [{
    `torch.ao.quantization.quantize_dynamic(model, {nn.Linear})`: every f32
    `linalg.matmul` whose right-hand side is a constant (weights [K, N], or
    [N, K] through a transposed B's maps, as PyTorch's Linear and ONNX's
    Gemm with transB) and whose accumulator starts from zero or a broadcast
    bias becomes one `quanta.dynamic_qmatmul`, together with a following
    bias add (`in + broadcast(bias)` along N, after the matmul or after an
    `expand_shape` of it that keeps N last: ONNX's MatMul on a [B, S, K]
    input followed by Add). No observers and no calibration: the weights
    are quantized here with default_dynamic_qconfig's symmetric qint8
    MinMaxObserver (per tensor) or per_channel_dynamic_qconfig's
    PerChannelMinMaxObserver (per output column), by the numeric library
    (numerics::quantizeDynamicWeights); the input's qparams are chosen at
    every call by the kernel, as PyTorch's engine does (`engine`). Products
    of two activations (attention's) stay float, as PyTorch leaves them.

    With `qconfig=float16_dynamic` (PyTorch's float16_dynamic_qconfig) a
    Linear becomes a `quanta.weight_only_matmul` of f16 weights (clamped to
    +-65504 as PyTorch's fp16 prepack clamps them, with a remark, then
    rounded to nearest even), computed in f32; with `weight_only_bf16`
    (Quanta's) one of bf16 weights (rounded to nearest even, clamped to
    bf16's largest finite value with a remark), computed in f32, and with
    `bf16_dot` the same with the activations rounded to bf16 as well and
    summed in pairs by AVX512-BF16's vdpbf16ps (the lowering refuses a
    target without it); with `weight_only_int8`
    (Quanta's; PyTorch 1.13 has no such qconfig) one of s8 weights with
    per_channel_dynamic_qconfig's per-column scales, the input staying
    float; with `weight_only_int4` (Quanta's) one of 4-bit weights with a
    symmetric scale per `group-size` k values of each column
    (numerics::quantizeInt4Weights; the group size must be even, two 4-bit
    values per byte; one that does not divide K leaves the layer float,
    with a remark; with `int4-asymmetric` each group's scale and zero point
    are PyTorch's MinMaxObserver(dtype=torch.quint4x2)'s instead, the
    op's `zero_points`; with `int4-f16-scales` the scales are rounded to
    f16 and the op's `f16_scales` stores them so; a group whose scale is
    beyond f16's range leaves the layer float, with a remark); with
    `int4_dynamic` (Quanta's) the same 4-bit weights
    and the op's `int8_activations`: each row's input quantized to s8 per
    group at run time (numerics::quantizeInt8Group), the products summed
    by the integer dot steps (the group size a multiple of 8, else the
    layer stays float with a remark). They halve, quarter or eighth
    the bytes a GEMV reads.

    An op's `quanta.qconfig` attribute ("none" or one of the qconfig names
    above) overrides `qconfig` for it; any other qconfig there is an error.
    Weights holding NaN or infinity stay float under the int8 schemes, with
    a remark (quantize_dynamic would compute a NaN scale).
  }];
  let options = [
    Option<"engine", "engine", "std::string", /*default=*/"\"onednn\"",
           "the runtime whose activation numerics the kernels reproduce: "
           "PyTorch's onednn (its default on x86; activations over 0..127) "
           "or qnnpack (0..255), or ONNX Runtime's dynamic MatMul (onnx; "
           "the weights are still quantized as quantize_dynamic does)">,
    Option<"qconfig", "qconfig", "std::string",
           /*default=*/"\"default_dynamic\"",
           "default_dynamic (int8, weights per tensor), "
           "per_channel_dynamic (int8, per output column), float16_dynamic "
           "(f16 weights, f32 compute), weight_only_bf16 (bf16 weights, f32 "
           "compute), bf16_dot (bf16 weights and activations, f32 sums: "
           "AVX512-BF16), weight_only_int8 (s8 weights per "
           "column, f32 activations), weight_only_int4 (4-bit weights, "
           "a scale per group-size k values) or int4_dynamic (the same "
           "weights, activations quantized to s8 per group at run time)">,
    Option<"groupSize", "group-size", "int64_t", /*default=*/"32",
           "weight_only_int4, int4_dynamic: the k values that share a "
           "scale (32, 64, 128, ...; even, a multiple of 8 for "
           "int4_dynamic, and must divide K)">,
    Option<"int4Asymmetric", "int4-asymmetric", "bool", /*default=*/"false",
           "weight_only_int4, int4_dynamic: each group's scale and zero "
           "point those of PyTorch's MinMaxObserver(dtype=torch.quint4x2) "
           "(affine over 0..15) instead of a symmetric scale">,
    Option<"int4F16Scales", "int4-f16-scales", "bool", /*default=*/"false",
           "weight_only_int4, int4_dynamic: the scales rounded to f16 (the "
           "values quantized with the rounded scale) and stored so: half "
           "the scale bytes the kernels read">,
  ];
  let dependentDialects = [
    "::mlir::quanta::QuantaDialect",
    "::mlir::tensor::TensorDialect",
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

    A `linalg.batch_matmul` or 2-D `linalg.matmul` (default maps) of two
    dequantized 8-bit per-tensor activations from a zero accumulator, as
    attention's Q.K^T and softmax(.).V, becomes one `quanta.qbatch_matmul`
    (a 2-D product a batch of one): exact i32 products of (a - za) and
    (b - zb), requantized by the Q31 multiplier of s_a * s_b / s_out
    (prepareIntegerProduct); the kernels pack its rhs and compute its
    column offsets at run time. A product with a float operand, a bias in
    its accumulator or maps of its own stays float, with a remark.

    Beyond GEMMs, on the storage integers (`linalg.generic` and named ops
    of integer type, so every target lowers them like any integer code):
    - add and mul of two dequantized 8-bit tensors (any broadcast the float
      op had), with a following clamp fused: QNNPACK's add (bit-exact with
      PyTorch's qnnpack engine) and the GEMM's requantization for mul,
      constants from the numeric library (prepareIntegerAdd/Mul);
    - any other elementwise op of one dequantized 8-bit tensor, and
      scalars (splat constants: attention's division by sqrt(d), 1 - x),
      whose body can be evaluated at compile time (clamp, relu, sigmoid,
      tanh, exp, ...): a 256-entry table of quantize(f(dequantize(q))).
      Exact for clamps; for transcendental bodies the table comes from the host's
      libm and the float code from polynomial approximations
      (quanta-approximate-math: within 4 float ULP), so an output on a
      rounding boundary can move by 1 LSB;
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
      as with PyTorch's count_include_pad=True;
    - softmax of a dequantized 8-bit tensor along any dimension
      (`linalg.softmax`, or the max reduction from -inf, exp(x - max), sum
      and division it decomposes into, as the ONNX importer translates
      Softmax), quantized to 8 bits (observed qparams, or PyTorch's fixed
      1/256): TFLite's lookup-table softmax with exact sums, three
      `linalg.generic`s computing the numeric library's quantizedSoftmax
      (prepareIntegerSoftmax) bit for bit: the row's integer maximum, the
      i32 sum of expTable[max - q] (exp(-s_in * d) in 2^fractionBits
      units, the table built at compile time), then
      roundeven(expTable[max - q] / (sum * s_out)) + zo in float32, within
      one output step of quantizing the float softmax. No exp at run time,
      and integer reductions vectorize where float ones (whose order fixes
      the bits) stay sequential. `keep-float=softmax` keeps it float, with
      its remark;
    - layer norm over the last dimension (as the ONNX importer translates
      LayerNormalization: mean, x - mean, its square, their mean,
      1 / sqrt(. + epsilon), times constant gamma [plus beta]) of a
      dequantized 8-bit tensor, quantized to 8 bits: one integer reduction
      (the exact i32 sums of q - zi and of its square) and one generic
      computing the numeric library's quantizedLayerNorm bit for bit (the
      row's mean and variance from the exact sums, the variance as
      N * sum(c^2) - sum(c)^2 in i64 before one rounding; then one float
      multiply-add per value), within one output step of quantizing the
      float layer norm. `keep-float=layer-norm` keeps it float;
    - embedding lookups (a `linalg.generic` reading rows of a constant
      table by integer ids, ONNX's Gather) whose table carries a per-row
      float-zero-point fake quantization (float_qparams_weight_only and
      its 4-bit variant): the table is stored quantized, one byte per value
      or two per byte (the even column in the low nibble), and each lookup
      computes fma(q, scale, bias) per row, bias = -zero_point * scale
      (float16 scale and bias for 4 bits): byte for byte
      torch.ao.nn.quantized.Embedding's and EmbeddingBag's output. The
      output stays float (weight-only).

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
    ListOption<"keepFloat", "keep-float", "std::string",
               "ops to keep float between dequantize and quantize instead "
               "of their integer forms, to measure both: softmax, "
               "layer-norm">,
  ];
  let dependentDialects = ["::mlir::affine::AffineDialect",
                           "::mlir::arith::ArithDialect",
                           "::mlir::linalg::LinalgDialect",
                           "::mlir::quant::QuantDialect",
                           "::mlir::quanta::QuantaDialect",
                           "::mlir::scf::SCFDialect",
                           "::mlir::tensor::TensorDialect"];
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

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_PASSES_TD

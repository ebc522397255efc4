//===- QuantaOps.td - quanta.observe and quanta.fake_quant -*- tablegen -*-===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_TD
#define QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_TD

include "quanta/Dialect/Quanta/IR/QuantaAttrs.td"
include "mlir/IR/OpBase.td"
include "mlir/Interfaces/SideEffectInterfaces.td"

class Quanta_Op<string mnemonic, list<Trait> traits = []>
    : Op<Quanta_Dialect, mnemonic, traits>;

def Quanta_FloatTensor : RankedTensorOf<[AnyFloat]>;

def Quanta_ObserveOp : Quanta_Op<"observe", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Attaches an observer to a tensor (an identity on values)";
  let description = [{
    Returns its input unchanged. `observer` says how the value is observed
    (one of the observer attributes, such as `#quanta.histogram<>`), `name`
    identifies it in statistics files and reports, and `stats` holds the
    statistics once known: computed at compile time for constant weights by
    `quanta-insert-observers`, or by calibration. Statistics are computed in
    float32 whatever the input type, as PyTorch's observers convert their
    input to float32.

    The op is deliberately not `Pure`: an observer must not be erased or
    merged by canonicalization while calibration is still to come.

    Example:
    ```mlir
    %w = quanta.observe %cst {name = "fc1.weight",
        observer = #quanta.per_channel_min_max<ch_axis = 1, dtype = qint8,
                                               qscheme = per_channel_symmetric>}
        : tensor<64x10xf32>
    ```
  }];
  let arguments = (ins Quanta_FloatTensor:$input,
                       Quanta_ObserverAttrInterface:$observer,
                       OptionalAttr<StrAttr>:$name,
                       OptionalAttr<AnyAttr>:$stats);
  let results = (outs Quanta_FloatTensor:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
}

def Quanta_FakeQuantOp : Quanta_Op<"fake_quant", [AllTypesMatch<["input", "output"]>]> {
  let summary = "Fake quantization (PyTorch's FakeQuantize)";
  let description = [{
    Computes, per tensor or per channel along `axis`,

        x_out = (clamp(round(x * (1 / scale) + zero_point), quant_min,
                       quant_max) - zero_point) * scale

    with round half to even and the reciprocal of the scale taken in float32,
    exactly as PyTorch's CPU kernels (`fake_quantize_per_tensor_affine`,
    `fake_quantize_per_channel_affine`) do. `float_zero_point` replaces
    `zero_point` for per_channel_affine_float_qparams.

    The qparams are known (`scale` with `zero_point` or `float_zero_point`),
    or come from a FakeQuantize module given by `fake_quantize` whose
    observer is run by calibration or training (`observer_enabled`) and
    leaves its statistics in `stats` (`#quanta.min_max_stats`, or
    `#quanta.histogram_stats` for a HistogramObserver, PyTorch's
    `default_histogram_fake_quant`);
    `fake_quant_enabled = false` makes the op an identity, as in PyTorch.
    `quanta-lower-fake-quant` lowers ops with known qparams to linalg.
  }];
  let arguments = (ins
      RankedTensorOf<[F32]>:$input,
      OptionalAttr<Quanta_FakeQuantizeAttr>:$fake_quantize,
      OptionalAttr<DenseF32ArrayAttr>:$scale,
      OptionalAttr<DenseI64ArrayAttr>:$zero_point,
      OptionalAttr<DenseF32ArrayAttr>:$float_zero_point,
      OptionalAttr<I64Attr>:$quant_min,
      OptionalAttr<I64Attr>:$quant_max,
      OptionalAttr<I64Attr>:$axis,
      DefaultValuedAttr<BoolAttr, "true">:$fake_quant_enabled,
      OptionalAttr<BoolAttr>:$observer_enabled,
      OptionalAttr<StrAttr>:$name,
      OptionalAttr<AnyAttrOf<[Quanta_MinMaxStatsAttr,
                              Quanta_HistogramStatsAttr]>>:$stats);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// Whether scale and a zero point are known.
    bool hasKnownQParams() {
      return getScale() && (getZeroPoint() || getFloatZeroPoint());
    }
  }];
}

def Quanta_QMatmulOp : Quanta_Op<"qmatmul", [Pure]> {
  let summary = "Integer matmul with requantization fused in its epilogue";
  let description = [{
    `output = requantize(input x weights)`: a quantized M x K input (u8 or
    s8 storage, per-tensor `!quant.uniform`) times constant K x N s8
    `weights`, accumulated in i32, requantized to a quantized M x N output,
    the integer semantics of PyTorch's, TFLite's and XNNPACK's quantized
    linear layers. With za, zo the input and output zero points:

        acc[m][n] = sum_k a[m][k] * w[k][n]
                    - weight_zero_points[n] * sum_k a[m][k]
                    + column_offsets[n]
        out[m][n] = clamp(((acc * multipliers[n]) + 2^(t - 1)) >> t + zo,
                          output_min, output_max),  t = 31 - shifts[n]

    `column_offsets` folds the quantized bias and the zero-point cross
    terms (bias_q[n] - za * colsum(w)[n] + K * za * zb[n]); the product and
    the rounding shift are exact in 64 bits (a single rounding, half up);
    `output_min`/`output_max` hold the output range with any fused
    relu / relu6 / clamp applied. `quanta-quantize` computes all of them
    with the numeric library (prepareIntegerGemm) from float weights, bias
    and qparams; `weight_zero_points` holds 1 value (per tensor) or N.

    With `window = [KH, KW, SH, SW, DH, DW]` the input is instead an NHWC
    image [B, H, W, C] (already padded) and `a` is its im2col matrix,
    never materialized: row (b, oh, ow) and column (kh, kw, c) read
    input[b][oh * SH + kh * DH][ow * SW + kw * DW][c], so M = B * OH * OW
    and K = KH * KW * C, with OH = (H - DH * (KH - 1) - 1) / SH + 1 and OW
    likewise. This is how `quanta-quantize` emits convolutions: the kernel
    reads each run of C channels where it lies instead of through a copy
    KH * KW times the input's size.

    With `depthwise` as well, the convolution is depthwise (one filter per
    channel, N = C): column n of the im2col matrix reads channel n only,
    so K = KH * KW taps and `weights` is [KH * KW] x C (an HWC filter):

        acc[m][n] = sum_(kh, kw) input[b][oh * SH + kh * DH]
                                      [ow * SW + kw * DW][n] * w[kh * KW + kw][n]
                    - weight_zero_points[n] * (the same sum of the input)
                    + column_offsets[n]

    and the same requantization. Quanta's lowerings give it a kernel of its
    own (channels in vector lanes, taps unrolled).
  }];
  let arguments = (ins
      RankedTensorOf<[AnyType]>:$input,
      ElementsAttr:$weights,
      DenseI32ArrayAttr:$weight_zero_points,
      DenseI32ArrayAttr:$column_offsets,
      DenseI32ArrayAttr:$multipliers,
      DenseI32ArrayAttr:$shifts,
      I32Attr:$output_min,
      I32Attr:$output_max,
      OptionalAttr<DenseI64ArrayAttr>:$window,
      UnitAttr:$depthwise);
  let results = (outs RankedTensorOf<[AnyType]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    using Window = ConvWindow;
    /// The convolution window of an implicit im2col input, if any.
    std::optional<Window> getConvWindow();
  }];
}

def Quanta_QBatchMatmulOp : Quanta_Op<"qbatch_matmul", [Pure]> {
  let summary = "Integer product of two quantized activations, requantized";
  let description = [{
    `output[b] = requantize(lhs[b] x rhs[b])` for each batch b: a quantized
    B x M x K `lhs` times a quantized B x K x N `rhs`, both computed at run
    time (attention's Q.K^T and softmax(.).V), accumulated exactly in i32
    and requantized to a quantized B x M x N output. Every operand is a
    per-tensor `!quant.uniform` with 8-bit storage, u8 or s8 on its own;
    with za, zb, zo their zero points:

        acc[b][m][n] = sum_k (lhs[b][m][k] - za) * (rhs[b][k][n] - zb)
        out[b][m][n] = clamp(((acc * multiplier) + 2^(t - 1)) >> t + zo,
                             output_min, output_max),  t = 31 - shift

    the semantics of `quanta.qmatmul` with weights known only at run time
    (its column offsets then depend on the data: the kernels compute them
    per batch). `multiplier` and `shift` are the numeric library's
    quantized s_lhs * s_rhs / s_out (prepareIntegerProduct), which
    `quanta-quantize` computes from the types.
  }];
  let arguments = (ins
      RankedTensorOf<[AnyType]>:$lhs,
      RankedTensorOf<[AnyType]>:$rhs,
      I32Attr:$multiplier,
      I32Attr:$shift,
      I32Attr:$output_min,
      I32Attr:$output_max);
  let results = (outs RankedTensorOf<[AnyType]>:$output);
  let assemblyFormat = [{
    $lhs `,` $rhs attr-dict `:` type($lhs) `,` type($rhs) `->` type($output)
  }];
  let hasVerifier = 1;
}

def Quanta_DynamicQMatmulOp : Quanta_Op<"dynamic_qmatmul", [Pure]> {
  let summary = "A dynamic quantized Linear (PyTorch's or ONNX Runtime's): "
                "float in, int8 GEMM, float out";
  let description = [{
    `torch.ao.nn.quantized.dynamic.Linear` of PyTorch 1.13 on its `engine`
    (numerics::dynamicLinear, bit for bit): an f32 M x K `input` times the
    s8 K x N `weights` (quantized at compile time, zero point 0, scales
    `weight_scales`: one, or one per output column) plus `bias`, into an
    f32 M x N output. At every call:

        min, max = aminmax(input)                       (over all M x K)
        scale, za = ChooseQuantizationParams(min, max, 0, qmax)
                                       qmax = 127 (onednn), 255 (qnnpack)
        a = the engine's u8 quantization of input       (onednn: 0..128)
        acc[m][n] = sum_k (a[m][k] - za) * weights[k][n]   (wrapping i32)
        onednn:  s = (f32(1 / scale) * f32(1 / weight_scales[n]))
                 out = (f32(acc) + bias[n] * s) * (1 / s)
        qnnpack: out = (weight_scales[n] * f32(scale)) * f32(acc) + bias[n]

    each float operation rounded to f32 (no fused multiply-add). Engine
    `onnx` is ONNX Runtime's dynamic MatMul (DynamicQuantizeLinear,
    MatMulInteger, Cast, Mul, Add as its quantize_dynamic writes them, or
    its DynamicQuantizeMatMul):

        min, max = min(min(input), 0), max(max(input), 0)
        scale = max == min ? 1 : (max - min) / 255      (f32)
        za = round_half_even(clamp(0 - min / scale, 0, 255))
        a = clamp(round_half_even(input / scale) + za, 0, 255)
        out = f32(acc) * (scale * weight_scales[n]) + bias[n]

    with no addition without a bias; its weight scales need only be
    positive normal floats. Where PyTorch raises (NaN or an infinity in
    the input, a requantization scale QNNPACK refuses) every output is NaN
    (for onnx too, where ONNX Runtime computes garbage): compiled code has
    no error channel. onednn's primitive cache, which can reuse an earlier call's
    zero point, is not reproduced (docs/PyTorchDynamicNumerics.md).

    With `weight_zero_points` (one s8 value, or one per column) the
    product reads `weights[k][n] - weight_zero_points[n]` instead: ONNX
    Runtime's asymmetric uint8 weights (weight_type QUInt8, the only
    ConvInteger weights it runs) are stored as w - 128 with zero point
    zp - 128, the same differences.

    With `window = [KH, KW, SH, SW, DH, DW]` the input is an f32 NHWC image
    [B, H, W, C] (already padded, with zeros) and the product reads its
    im2col matrix, as quanta.qmatmul's window: M = B * OH * OW rows, K =
    KH * KW * C, row (b, oh, ow) and column (kh, kw, c) reading
    input[b][oh * SH + kh * DH][ow * SW + kw * DW][c]. min and max are
    taken over the image: the same as over its im2col matrix, the range
    holding 0 (each engine's range does) and the padding being zeros. A
    dynamic convolution (ONNX Runtime's ConvInteger chain) is thus the same
    formula on the int8 GEMM reading the quantized image where it lies.
  }];
  let arguments = (ins
      RankedTensorOf<[F32]>:$input,
      ElementsAttr:$weights,
      DenseF32ArrayAttr:$weight_scales,
      OptionalAttr<DenseF32ArrayAttr>:$bias,
      Quanta_DynamicEngine:$engine,
      OptionalAttr<DenseI32ArrayAttr>:$weight_zero_points,
      OptionalAttr<DenseI64ArrayAttr>:$window);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = [{
    $input `engine` `(` $engine `)` attr-dict `:` type($input) `->`
    type($output)
  }];
  let hasVerifier = 1;
  let extraClassDeclaration = [{
    /// The convolution window of an image input, if any.
    std::optional<ConvWindow> getConvWindow();
  }];
}

def Quanta_WeightOnlyMatmulOp : Quanta_Op<"weight_only_matmul", [Pure]> {
  let summary = "A float Linear whose weights are stored in 16 or 8 bits";
  let description = [{
    An f32 M x K `input` times K x N `weights` stored narrow, into an f32
    M x N output; the activations stay float. With f16 `weights`
    (PyTorch's float16_dynamic_qconfig, which rounds the weights to f16
    and computes in f32):

        out[m][n] = bias[n] + sum_k input[m][k] * f32(weights[k][n])

    the sum in k order from the bias (0 without one), each step one fused
    multiply-add, as Quanta's f32 GEMM computes. bf16 `weights` (Quanta's
    weight_only_bf16) are the same formula. With bf16 weights and
    `bf16_activations` (Quanta's bf16_dot; AVX512-BF16's vdpbf16ps) the
    input is rounded to bf16 too (to nearest even) and the pairs of k
    values (2p, 2p + 1) summed as vdpbf16ps sums them:

        acc = bias[n]                                   (0 without one)
        for each pair p, in order:
          acc = fma(a[m][2p + 1], w[2p + 1][n], acc)
          acc = fma(a[m][2p], w[2p][n], acc)
        a = bf16(input), an odd K's last pair completed with a zero

    with denormal inputs read as zero and a denormal sum flushed to zero
    (the instruction's DAZ and FTZ), each product exact in f32. With i8 `weights` and one
    `scales` value per output column (symmetric per-channel weight-only
    int8: the weights of per_channel_dynamic_qconfig's observer, the input
    not quantized):

        out[m][n] = (sum_k input[m][k] * f32(weights[k][n])) * scales[n]
                    + bias[n]

    the sum again in k order with fused multiply-adds from 0, then one
    multiply and one add. With i4 `weights` (Quanta's 4-bit weights,
    numerics::quantizeInt4Weights) and a scale per `group_size` run of k
    values of each column (an even size dividing K), `scales` holding
    (K / group_size) x N of them group-major:

        out[m][n] = bias[n] + sum_g scales[g][n] *
                    (sum_{k in group g} input[m][k] * f32(weights[k][n]))

    each group's sum in k order with fused multiply-adds from 0, then added
    to the running sum (from the bias, 0 without one), group after group,
    by one fused multiply-add with its scale: a multiply per group and
    column instead of one per weight, as the int4 GEMVs of llama.cpp and
    ONNX Runtime's MatMulNBits apply their scales. The kernels read the
    narrow weights (two 4-bit values per byte) and widen them in registers:
    a half, a quarter or an eighth of an f32 GEMV's memory traffic.

    With i4 weights and `int8_activations` (Quanta's int4_dynamic; the
    scheme of llama.cpp's Q4_0 x Q8_0 and of MatMulNBits' accuracy level 4)
    each row's input is quantized at run time too, per group of the
    weights' `group_size` k values, symmetric s8
    (numerics::quantizeInt8Group):

        amax[m][g]  = max_{k in g} |input[m][k]|
        ascale[m][g] = amax / 127
        a[m][k]     = clamp(round_half_even(input[m][k] * (127 / amax)),
                            -127, 127)                    (0 if amax = 0)

    (each step one f32 operation), and the sum of each group is exact in
    integers:

        acc = bias[n]                                     (0 without one)
        for each group g, in order:
          acc = fma(f32(sum_{k in g} a[m][k] * weights[k][n]),
                    ascale[m][g] * scales[g][n], acc)

    so that the kernels sum 4 products per instruction (vpdpbusd, sdot)
    instead of widening every weight to f32. A NaN or infinite input makes
    every output of its row NaN. group_size must be a multiple of 8 (the
    integer steps' runs) and at most 16384 (each group's sum exact in f32).

    Asymmetric i4 weights (Quanta's `int4-asymmetric`; MatMulNBits' zero
    points, GPTQ's and AWQ's form) carry `zero_points`, one per scale
    ((K / group_size) x N, group-major, in the weights' -8..7): weight k of
    column n in group g is scales[g][n] * (weights[k][n] - zero_points[g][n]).
    With `int8_activations` the group's integer sum is that of
    a[m][k] * (weights[k][n] - zero_points[g][n]), exact as before. With
    f32 activations the zero point's share of each group's sum is taken
    once, from the row's group sum, instead of from every weight (the
    kernel's inner loop is the symmetric one's):

        s[m][g] = sum_{k in g} input[m][k]        (in k order, from 0)
        p = f32(-zero_points[g][n]) * s[m][g]
        p = fma(input[m][k], f32(weights[k][n]), p)   for k in g, in order
        acc = fma(p, scales[g][n], acc)

    `f16_scales` (Quanta's `int4-f16-scales`; llama.cpp's and GGUF's
    choice) changes no formula: every scale must be an f16 value, and the
    kernels store them as f16, half the bytes they read for scales (a
    fifth of a GEMV's traffic with f32 scales per 32 weights).
  }];
  let arguments = (ins
      RankedTensorOf<[F32]>:$input,
      ElementsAttr:$weights,
      OptionalAttr<DenseF32ArrayAttr>:$scales,
      OptionalAttr<DenseF32ArrayAttr>:$bias,
      OptionalAttr<I64Attr>:$group_size,
      UnitAttr:$bf16_activations,
      UnitAttr:$int8_activations,
      OptionalAttr<DenseI8ArrayAttr>:$zero_points,
      UnitAttr:$f16_scales);
  let results = (outs RankedTensorOf<[F32]>:$output);
  let assemblyFormat = "$input attr-dict `:` type($input) `->` type($output)";
  let hasVerifier = 1;
}

def Quanta_IntrinsicOp : Quanta_Op<"intrinsic", [Pure]> {
  let summary = "A side-effect-free LLVM vector intrinsic, named";
  let description = [{
    Calls the LLVM intrinsic `name` on vectors, e.g.
    `llvm.x86.avx2.pmadd.wd` or `llvm.x86.avx512.vpdpbusd.256`. Unlike
    `llvm.call_intrinsic` it is `Pure`, so that tensor-level kernels using
    it bufferize and pass buffer deallocation, which reject ops with
    unknown memory effects; `quanta-lower-intrinsics` turns it into
    `llvm.call_intrinsic` once that is done. Only intrinsics without memory
    effects may be named (arithmetic ones such as vpmaddubsw, vpmaddwd,
    vpdpbusd, NEON sdot).
  }];
  let arguments = (ins StrAttr:$name,
                       Variadic<AnyVectorOfNonZeroRank>:$operands);
  let results = (outs AnyVectorOfNonZeroRank:$result);
  let assemblyFormat = [{
    $name `(` $operands `)` attr-dict `:` functional-type($operands, $result)
  }];
  let hasVerifier = 1;
}

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_TD

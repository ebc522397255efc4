//===- Passes.td - Quanta conversion passes ----------------*- tablegen -*-===//

#ifndef QUANTA_CODEGEN_CPU_PASSES_TD
#define QUANTA_CODEGEN_CPU_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerX86 : Pass<"quanta-lower-x86", "ModuleOp"> {
  let summary = "Lower quanta.qmatmul (and f32 matmuls and convolutions "
                "with constant weights) to tiled, vectorized code for x86";
  let description = [{
    The target is a typed description (architecture and features, see
    `include/quanta/Support/TargetDescription.h`) resolved once from the
    `isa` option: a named level, this machine, or by default the module's
    `quanta.target` attribute (`x86_64+avx2+fma`, ...), which
    `quant-compile` and `quant-run` set from their `--target-triple`,
    `--mcpu` and `--mattr` before running a pipeline. A target of another
    architecture is an error (`quanta-lower-neon` lowers for AArch64).


    Packs each `quanta.qmatmul`'s weights at compile time into strips of 8
    (16 for zmm) output columns and emits a register-tiled kernel (scf loops over
    vector ops on tensors) whose inner step is chosen per ISA:

    - `avx512vnni`: `vpdpbusd` on zmm (u8 x s8, exact), 16 columns per strip;
    - `avxvnni`: `vpdpbusd` on ymm;
    - `avx2`: `vpmaddubsw` + `vpmaddwd` + `vpaddd` where the input's storage
      range and the actual weights make vpmaddubsw's i16 saturation
      impossible (e.g. 7-bit reduce_range activations), otherwise the exact
      `vpmaddwd` path on i16 pairs (IREE's choice for AVX2);
    - `generic`: plain vector arithmetic for any target.

    s8 inputs become u8 by flipping the sign bit for the u8 x s8 steps, the
    column offsets absorbing the change. A `quanta.qmatmul` with a
    `window` reads its NHWC image in place: K is KH * KW taps of C
    channels each (padded to whole k groups); each row's pixel is computed
    once per tile, and a constant table gives every k group's offset from
    it, so the k loop is the GEMM's single loop. When the image is a
    `tensor.pad` of a constant (height and width only), the kernel reads
    the unpadded image and skips the taps in the padding, as oneDNN does:
    the output pixels are grouped by the rectangle of their taps inside
    the image (9 classes for a 3x3 window with padding 1), each class's
    tiles loop over its runs of k groups, and its accumulators start
    higher by what the skipped taps would have added (the padding value
    times their weights). Where the classes are too few rows for whole
    tiles and the weights too large for L1 (a 7x7 image of 512 channels),
    the tiles take one tap at a time over all the rows that read it,
    keeping i32 partial sums in memory between taps. The accumulators start from
    the column offsets; the epilogue subtracts the weight-zero-point term,
    requantizes (the numeric library's requantize, exactly) and clamps, in
    registers. When every column shifts by t >= 32 (real multipliers
    below 0.5, the usual case) it keeps the high words of the 64-bit
    products of the even and odd lanes (vpmuldq) and shifts them by t - 32
    in i32 lanes (vpsravd), adding the rounding (and, where it fits, the
    output zero point) to the high words when t >= 33; otherwise it shifts
    in 64-bit lanes, which AVX2 has to emulate. The x86 steps narrow
    four accumulators at once with saturating packs (two vpackssdw, a
    vpackuswb or vpacksswb, and a vpermq to undo their 128-bit-lane
    interleave), which clamp to the output's storage range; a narrower
    output range is clamped on the bytes. The weight columns of each
    pair of strips are packed in the order the packs interleave them, so
    the bytes come out in column order. The `avx512vnni` kernel tiles
    with 8 x 2 or 6 x 4 zmm accumulators, whichever leaves fewer rows to
    half and one-row tiles (a 3x3 convolution's 12-row border classes,
    M = 16). The step chosen is recorded as a `quanta.dot_step` attribute on the tile
    loop, and the intrinsics appear by name in `quanta.intrinsic` ops.

    A depthwise `quanta.qmatmul` gets the depthwise kernel instead
    (`quanta.dot_step = "depthwise"`, the same design on every target):
    channels in the lanes of i32 vectors (16 with AVX-512, else 8), for
    each output row and block of channels the KH * KW taps (centred on the
    weight zero points, i16) loaded once and kept in registers, as many
    pixels per step as the registers the taps leave hold accumulators (8
    for a 3x3 on zmm), each tap a widening load of the input bytes and a
    multiply-add that LLVM selects as vpmaddwd (vpdpwssd with VNNI) or
    smlal; the padding of a constant `tensor.pad` before it is skipped
    (border pixels take its value for taps outside the image), channels
    past the last whole vector are masked, and the GEMM kernels'
    requantization ends it in registers. Measured against oneDNN's u8s8
    depthwise convolutions on MobileNetV2's shapes
    (`quanta-gemm-benchmark --depthwise`): 0.7-1.1x of oneDNN's AVX-512
    VNNI kernel with zmm, 1.5-1.7x of its AVX2 kernel with ymm.

    With `float` (the default), every f32 `linalg.matmul` on static
    tensors with constant weights becomes the same tiled design in float,
    its weights [K, N] or, as a fully connected layer's, [N, K]
    (`indexing_maps` of a transposed B), and so does a
    `linalg.batch_matmul` whose weights are broadcast over the batch (or
    whose batch is 1), its batch and rows one M: weights packed into
    strips of 8 (16 for `avx512vnni`) columns, 6 x 2 tiles of ymm accumulators (8 x 2 of zmm)
    starting from the init tensor, one `vector.fma` per k in k order
    (`quanta.dot_step = "fma"`). Each output is linalg.matmul's sequential
    sum with every step rounded once instead of twice, as production float
    GEMMs compute it. So do f32 `linalg.conv_2d_nhwc_fhwc` / `_hwcf`
    with a constant filter, as the GEMM of their implicit im2col matrix
    read in place (k in the convolution's own (kh, kw, c) order). Other
    matmuls (a transposed or broadcast input, weights that differ per
    batch) and convolutions are left as they are.

    Window reductions (an NHWC `depthwise_conv_2d_nhwc_hwc`, `pooling_nhwc_max`
    / `_sum`, and the integer pools `quanta-quantize` writes as generics:
    parallel loops first, at most 64 taps, channels innermost in every
    input) become one loop nest over their outputs with the taps unrolled
    (the op's own body per tap, in its loops' order: the same bytes), which
    LLVM vectorizes across the channels instead of reducing one tap at a
    time; an input padded by a `tensor.pad` that only the op reads is read
    through it (positions checked, the padding value selected) instead of
    copied into a padded image. Float ones only with `float` (the default).

    An NCHW graph's float images run NHWC from its inputs to its outputs:
    each f32 `conv_2d_nchw_fchw` (constant filter, permuted at compile
    time; k in (kh, kw, c) order where its loops use (c, kh, kw)) and
    `depthwise_conv_2d_nchw_chw` becomes its NHWC form between two
    transposes, as does a `pooling_nchw_max` / `_sum` of a transposed
    image, and `quanta-propagate-layout`'s rewrites move each transpose down
    through the bias adds, activations, pads and pools after it until it
    cancels against the next layer's: one layout change at the graph's
    boundaries instead of two transposes per convolution.

    A `quanta.dynamic_qmatmul` (PyTorch's dynamic Linear) becomes the same
    integer tiles with a float epilogue: one vector pass for the input's
    min and max, the activation qparams in scalar arithmetic (ATen's
    ChooseQuantizationParams, its double scale included), the input
    quantized to u8 as the engine quantizes it, the column offsets of its
    zero point computed per call from compile-time column sums, and each
    accumulator vector converted to f32 and scaled in the engine's order
    of float operations (`sitofp`, `mulf`, `addf`; no fused multiply-add).

    The NCHW <-> NHWC transposes left (`linalg.transpose` with
    permutation [0, 2, 3, 1] or [0, 3, 1, 2])
    become 2-D transposes of each image in 16x16 vector tiles, contiguous
    on both sides (with any ISA, `generic` included).

    The enclosing function gets LLVM's "min-legal-vector-width" (256 for
    the ymm steps, 512 for zmm) as `passthrough`: without it, LLVM on an
    AVX-512 host widens 64-bit-lane code to zmm, and zmm uops on Intel
    cores take port 1 away from vector work, halving an AVX2 kernel. With
    `avx512vnni` every function also gets "prefer-vector-width" 512, so
    that the loops LLVM vectorizes itself (elementwise integer ops, float
    depthwise convolutions) use zmm too instead of LLVM's default ymm.
  }];
  let options = [
    // A string, not an enum: the level names are TargetDescription's table
    // (Support/), which TableGen cannot read; the pass checks the name
    // against it and lists them when it is unknown.
    Option<"isa", "isa", "std::string", /*default=*/"\"target\"",
           "target (the module's `quanta.target`, which quant-compile and "
           "quant-run set from --target-triple, --mcpu and --mattr; else "
           "this machine), host (this machine), avx512vnni, avxvnni, avx2 "
           "or generic">,
    Option<"lowerFloat", "float", "bool", /*default=*/"true",
           "also lower f32 matmuls, batch matmuls and 2-D convolutions "
           "with constant weights to tiled FMA code, and f32 depthwise "
           "convolutions and pools to vectorizable loops (integer pools "
           "always)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::quanta::QuantaDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LowerNeon : Pass<"quanta-lower-neon", "ModuleOp"> {
  let summary = "Lower quanta.qmatmul (and f32 matmuls and convolutions "
                "with constant weights) to tiled NEON code for AArch64";
  let description = [{
    The AArch64 side of the kernel design of `quanta-lower-x86`, with the
    same packing at compile time, register tiles, single k loop, fused
    requantizing epilogue, image windows and skipped padding taps; each
    feature level supplies its tile shape, packing layout and dot step:

    - `i8mm` (Neoverse V1/N2, Graviton 3 and later): `usmmla` for u8
      inputs, `smmla` for s8 (`arm_neon.intr.usmmla`/`smmla`), a 2 x 8 block
      of two input rows times an 8 x 2 block of weights into 2 x 2 i32
      accumulators per instruction. The input is first packed into row
      pairs (a convolution's through its window, from the padded image),
      so that each smmla operand is one 16-byte load; tiles of 4 row pairs
      x 8 columns.
    - `dotprod` (ARMv8.2: Cortex-A76, Neoverse N1 and later): `sdot`
      (`arm_neon.intr.sdot`) in its by-element form: a 16-byte load of a
      row gives the inputs of 4 k groups, each taken from one 32-bit lane,
      so that the vector pipes do no broadcasts. u8 inputs are flipped to
      s8 (xor 0x80) and 128 times each column's weight sum is added to the
      column offsets, as XNNPACK does: exact for every range. Tiles of 8
      rows x 8 columns.
    - `baseline` (ARMv8.0: Cortex-A53/A72, Raspberry Pi 3/4): `smull`
      (s8 x s8 into exact i16 products; u8 inputs flipped as for sdot) and
      `sadalp` (pairs of products added into i32), each accumulator
      holding 4 partial sums per column, added up (addp) after the k loop.
      Tiles of 4 rows x 4 columns, 16 k per step.

    Upstream MLIR has no vector.contract -> sdot lowering, and its
    vector.contract -> smmla lowering needs an N x K right operand with
    even M and N and K % 8 == 0 and leaves packing and the epilogue to the
    caller, so the steps are emitted directly; the pairwise add (`saddlp`),
    which `arm_neon` lacks, is a `quanta.intrinsic`.

    The epilogue computes the numeric library's requantization exactly as
    the x86 kernels do (64-bit products, rounding, shift, zero point,
    clamp): the same bytes for every input. f32 matmuls and convolutions
    with constant weights become the same tiles with `fmla` by element
    (`quanta.dot_step = "fmla"`), NCHW <-> NHWC transposes 16x16 vector
    tiles; depthwise convolutions get the depthwise kernel of
    `quanta-lower-x86` (8 channels per vector, this epilogue); pools and
    float depthwise convolutions become loop nests over their outputs as
    there; what `quanta-quantize` leaves as other integer loops
    (elementwise ops, tables) is vectorized by LLVM for the target.

    The target is resolved as for `quanta-lower-x86`: `features` names a
    level, or by default the module's `quanta.target` (set by
    `quant-compile --target-triple=aarch64-linux-gnu --mcpu=...`) or this
    machine, which must then be an AArch64 one.
  }];
  let options = [
    Option<"features", "features", "std::string", /*default=*/"\"target\"",
           "target (the module's `quanta.target`, else this machine), host, "
           "i8mm, dotprod or baseline">,
    Option<"lowerFloat", "float", "bool", /*default=*/"true",
           "also lower f32 matmuls, batch matmuls and 2-D convolutions "
           "with constant weights to tiled fmla code, and f32 depthwise "
           "convolutions and pools to vectorizable loops (integer pools "
           "always)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::arm_neon::ArmNeonDialect",
    "::mlir::quanta::QuantaDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

def LowerCpu : Pass<"quanta-lower-cpu", "ModuleOp"> {
  let summary = "Lower the kernels for the module's target, x86 or AArch64";
  let description = [{
    `quanta-lower-x86{isa=target}` or `quanta-lower-neon{features=target}`,
    whichever the architecture of the module's `quanta.target` (else this
    machine) asks for: the kernel step of the `quanta-compile` pipeline,
    which is written once for every target.
  }];
  let options = [
    Option<"lowerFloat", "float", "bool", /*default=*/"true",
           "also lower f32 matmuls, batch matmuls and convolutions with "
           "constant weights to tiled kernels, and f32 depthwise "
           "convolutions and pools to vectorizable loops (integer pools "
           "always)">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::arm_neon::ArmNeonDialect",
    "::mlir::quanta::QuantaDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::math::MathDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // QUANTA_CODEGEN_CPU_PASSES_TD

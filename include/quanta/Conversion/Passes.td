//===- Passes.td - Quanta conversion passes ----------------*- tablegen -*-===//

#ifndef QUANTA_CONVERSION_PASSES_TD
#define QUANTA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerX86 : Pass<"quanta-lower-x86", "ModuleOp"> {
  let summary = "Lower quanta.qmatmul (and f32 matmuls and convolutions "
                "with constant weights) to tiled, vectorized code for x86";
  let description = [{
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
    read in place (k in the convolution's own (kh, kw, c) order), and
    `conv_2d_nchw_fchw`, its input and output transposed around the same
    kernel (k in (kh, kw, c) order where its loops use (c, kh, kw)). Other
    matmuls (a transposed or broadcast input, weights that differ per
    batch) and convolutions are left as they are.

    The NCHW <-> NHWC transposes around NCHW convolutions
    (`linalg.transpose` with permutation [0, 2, 3, 1] or [0, 3, 1, 2])
    become 2-D transposes of each image in 16x16 vector tiles, contiguous
    on both sides (with any ISA, `generic` included).

    The enclosing function gets LLVM's "min-legal-vector-width" (256 for
    the ymm steps, 512 for zmm) as `passthrough`: without it, LLVM on an
    AVX-512 host widens 64-bit-lane code to zmm, and zmm uops on Intel
    cores take port 1 away from vector work, halving an AVX2 kernel. With
    `avx512vnni` every function also gets "prefer-vector-width" 512, so
    that the loops LLVM vectorizes itself (depthwise convolutions,
    elementwise integer ops) use zmm too instead of LLVM's default ymm.
  }];
  let options = [
    Option<"isa", "isa", "std::string", /*default=*/"\"host\"",
           "host (the best this machine has), avx512vnni, avxvnni, avx2 or "
           "generic">,
    Option<"lowerFloat", "float", "bool", /*default=*/"true",
           "also lower f32 matmuls, batch matmuls and 2-D convolutions "
           "with constant weights to tiled FMA code">,
  ];
  let dependentDialects = [
    "::mlir::affine::AffineDialect",
    "::mlir::arith::ArithDialect",
    "::mlir::quanta::QuantaDialect",
    "::mlir::linalg::LinalgDialect",
    "::mlir::quant::QuantDialect",
    "::mlir::scf::SCFDialect",
    "::mlir::tensor::TensorDialect",
    "::mlir::vector::VectorDialect",
  ];
}

#endif // QUANTA_CONVERSION_PASSES_TD

//===- Passes.td - Quanta conversion passes ----------------*- tablegen -*-===//

#ifndef QUANTA_CONVERSION_PASSES_TD
#define QUANTA_CONVERSION_PASSES_TD

include "mlir/Pass/PassBase.td"

def LowerX86 : Pass<"quanta-lower-x86", "ModuleOp"> {
  let summary = "Lower quanta.qmatmul to tiled, vectorized int8 code for x86";
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
    column offsets absorbing the change. The epilogue adds the column
    offsets, subtracts the weight-zero-point term, requantizes in 64 bits
    (the numeric library's requantize) and clamps, in registers. The step
    chosen is recorded as a `quanta.dot_step` attribute on the tile loop,
    and the intrinsics appear by name in `quanta.intrinsic` ops.
  }];
  let options = [
    Option<"isa", "isa", "std::string", /*default=*/"\"host\"",
           "host (the best this machine has), avx512vnni, avxvnni, avx2 or "
           "generic">,
  ];
  let dependentDialects = [
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

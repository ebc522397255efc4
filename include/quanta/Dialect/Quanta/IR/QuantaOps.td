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
    observer is run by calibration or training (`observer_enabled`);
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
      OptionalAttr<Quanta_MinMaxStatsAttr>:$stats);
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

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAOPS_TD

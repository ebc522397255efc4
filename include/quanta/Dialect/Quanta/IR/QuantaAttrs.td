//===- QuantaAttrs.td - Observer and fake-quant attributes -*- tablegen -*-===//
//
// One attribute per PyTorch observer family. Parameters carry PyTorch's
// constructor argument names and defaults, so
//   MinMaxObserver(dtype=torch.qint8, qscheme=torch.per_tensor_symmetric)
// is written
//   #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>
// and parameters left at their defaults are omitted when printed.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTAATTRS_TD
#define QUANTA_DIALECT_QUANTA_IR_QUANTAATTRS_TD

include "quanta/Dialect/Quanta/IR/QuantaBase.td"
include "quanta/Dialect/Quanta/IR/QuantaInterfaces.td"
include "mlir/IR/BuiltinAttributeInterfaces.td"

class Quanta_Attr<string name, string attrMnemonic, list<Trait> traits = []>
    : AttrDef<Quanta_Dialect, name, traits> {
  let mnemonic = attrMnemonic;
}

class Quanta_ObserverAttr<string name, string attrMnemonic,
                          list<string> overridden = []>
    : Quanta_Attr<name, attrMnemonic, [
        DeclareAttrInterfaceMethods<Quanta_ObserverAttrInterface,
                                    overridden>]> {
  let assemblyFormat = "`<` struct(params) `>`";
}

// The options of UniformQuantizationObserverBase shared by the min/max,
// moving-average and histogram observers.
class Quanta_UniformObserverAttr<string name, string attrMnemonic,
                                 string defaultQScheme, dag leadingParams,
                                 dag trailingParams = (ins),
                                 list<string> overridden = [],
                                 code extraDeclarations = "">
    : Quanta_ObserverAttr<name, attrMnemonic, overridden> {
  let parameters = !con(leadingParams, (ins
      Quanta_EnumParam<Quanta_DType, "quint8">:$dtype,
      Quanta_EnumParam<Quanta_QScheme, defaultQScheme>:$qscheme,
      Quanta_BoolParam<"false">:$reduce_range,
      OptionalParameter<"std::optional<int64_t>">:$quant_min,
      OptionalParameter<"std::optional<int64_t>">:$quant_max,
      // torch.finfo(torch.float32).eps
      Quanta_F32Param<"::llvm::APFloat(1.1920928955078125e-07f)">:$eps),
    trailingParams);
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The options in the numeric library's terms.
    ::mlir::quanta::numerics::UniformObserverOptions getUniformOptions() const;
    /// The effective [quant_min, quant_max] (PyTorch's calculate_qmin_qmax).
    ::mlir::quanta::numerics::QRange getQRange() const;
  }] # extraDeclarations;
}

// memoryless exists in PyTorch 1.12 (seed 001) and was removed in 1.13; it is
// kept because it does not conflict with anything 1.13 has.
defvar Quanta_MemorylessParam = (ins Quanta_BoolParam<"false">:$memoryless);
defvar Quanta_AveragingConstantParam =
    (ins Quanta_F64Param<"::llvm::APFloat(0.01)">:$averaging_constant);
defvar Quanta_ChannelAxisParam = (ins Quanta_I64Param<"0">:$ch_axis);
defvar Quanta_PerChannelMethods = ["isPerChannel", "getChannelAxis"];

def Quanta_MinMaxObserverAttr : Quanta_UniformObserverAttr<"MinMaxObserver",
    "min_max", "per_tensor_affine", (ins), Quanta_MemorylessParam> {
  let summary = "torch.ao.quantization.MinMaxObserver";
}

def Quanta_MovingAverageMinMaxObserverAttr : Quanta_UniformObserverAttr<
    "MovingAverageMinMaxObserver", "moving_average_min_max",
    "per_tensor_affine", Quanta_AveragingConstantParam> {
  let summary = "torch.ao.quantization.MovingAverageMinMaxObserver";
}

def Quanta_PerChannelMinMaxObserverAttr : Quanta_UniformObserverAttr<
    "PerChannelMinMaxObserver", "per_channel_min_max", "per_channel_affine",
    Quanta_ChannelAxisParam, Quanta_MemorylessParam,
    Quanta_PerChannelMethods> {
  let summary = "torch.ao.quantization.PerChannelMinMaxObserver";
}

def Quanta_MovingAveragePerChannelMinMaxObserverAttr
    : Quanta_UniformObserverAttr<"MovingAveragePerChannelMinMaxObserver",
        "moving_average_per_channel_min_max", "per_channel_affine",
        !con(Quanta_AveragingConstantParam, Quanta_ChannelAxisParam), (ins),
        Quanta_PerChannelMethods> {
  let summary = "torch.ao.quantization.MovingAveragePerChannelMinMaxObserver";
}

def Quanta_HistogramObserverAttr : Quanta_UniformObserverAttr<
    "HistogramObserver", "histogram", "per_tensor_affine",
    (ins Quanta_I64Param<"2048">:$bins,
         Quanta_I64Param<"128">:$upsample_rate),
    // Quanta extensions: bin over the float [min, max] instead of PyTorch's
    // int()-truncated bounds, which drop values outside the truncated range;
    // and the range choice of TensorRT/TVM/TensorFlow (entropy, percentile,
    // mse) over the same histogram instead of PyTorch's search.
    (ins Quanta_BoolParam<"false">:$exact_histc_range,
         Quanta_EnumParam<Quanta_HistogramCalibration, "pytorch">:$calibration,
         Quanta_F64Param<"::llvm::APFloat(99.99)">:$percentile), [], [{
    ::mlir::quanta::numerics::HistogramOptions getHistogramOptions() const;
    ::mlir::quanta::numerics::HistogramCalibrationOptions
    getCalibrationOptions() const;
  }]> {
  let summary = "torch.ao.quantization.HistogramObserver";
  let description = [{
    PyTorch's HistogramObserver. Two Quanta extensions, off by default:
    `exact_histc_range = true` bins over the batch's float range instead of
    PyTorch's int()-truncated one, and `calibration` chooses the clipping
    range from the collected histogram by PyTorch's L2 search (`pytorch`,
    the default), minimal KL divergence (`entropy`, as TensorRT), a
    `percentile` of |x| (default 99.99), or minimal expected squared error
    (`mse`).
  }];
}

def Quanta_FixedQParamsObserverAttr : Quanta_ObserverAttr<
    "FixedQParamsObserver", "fixed_qparams"> {
  let summary = "torch.ao.quantization.FixedQParamsObserver";
  let parameters = (ins
      Quanta_RequiredF32Param:$scale,
      AttrParameter<"int64_t", "">:$zero_point,
      Quanta_EnumParam<Quanta_DType, "quint8">:$dtype,
      Quanta_EnumParam<Quanta_QScheme, "per_tensor_affine">:$qscheme,
      Quanta_I64Param<"0">:$quant_min,
      Quanta_I64Param<"255">:$quant_max);
  let genVerifyDecl = 1;
}

def Quanta_PlaceholderObserverAttr : Quanta_ObserverAttr<
    "PlaceholderObserver", "placeholder"> {
  let summary = "torch.ao.quantization.PlaceholderObserver";
  let description = [{
    Carries a dtype to the conversion without observing anything (float16
    quantization, dynamic quantization when `compute_dtype` is set).
  }];
  let parameters = (ins
      Quanta_EnumParam<Quanta_DType, "float32">:$dtype,
      StringRefParameter<"", "\"\"">:$custom_op_name,
      Quanta_OptionalDTypeParam:$compute_dtype);
}

def Quanta_NoopObserverAttr : Quanta_ObserverAttr<"NoopObserver", "noop"> {
  let summary = "torch.ao.quantization.NoopObserver";
  let parameters = (ins
      Quanta_EnumParam<Quanta_DType, "float16">:$dtype,
      StringRefParameter<"", "\"\"">:$custom_op_name);
}

def Quanta_RecordingObserverAttr : Quanta_ObserverAttr<
    "RecordingObserver", "recording"> {
  let summary = "torch.ao.quantization.RecordingObserver";
  let description = [{
    Debug observer: calibration records every tensor it sees.
  }];
  let parameters = (ins Quanta_EnumParam<Quanta_DType, "quint8">:$dtype);
}

def Quanta_ReuseInputObserverAttr : Quanta_Attr<"ReuseInputObserver",
    "reuse_input", [DeclareAttrInterfaceMethods<Quanta_ObserverAttrInterface>]> {
  let summary = "torch.ao.quantization.ReuseInputObserver";
  let description = [{
    The observed value shares the observer of the value it is computed from
    (through shape-only ops such as reshape or transpose): freezing gives it
    the same quantization parameters.
  }];
}

def Quanta_OneFlowMinMaxObserverAttr : Quanta_ObserverAttr<
    "OneFlowMinMaxObserver", "oneflow_min_max", Quanta_PerChannelMethods> {
  let summary = "oneflow.nn.MinMaxObserver";
  let description = [{
    OneFlow's observer: `google` formula (symmetric scale divides by
    2^(bits-1) - 1, affine zero point -round(min / scale) without widening the
    range to 0) or `cambricon` (a power-of-two exponent, per layer only).
    Per-channel statistics (per_layer_quantization = false) are along axis 0.
  }];
  let parameters = (ins
      Quanta_EnumParam<Quanta_OneFlowFormula, "google">:$quantization_formula,
      Quanta_I64Param<"8">:$quantization_bit,
      Quanta_EnumParam<Quanta_OneFlowScheme, "symmetric">:$quantization_scheme,
      Quanta_BoolParam<"true">:$per_layer_quantization);
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    ::mlir::quanta::numerics::OneFlowMinMaxObserverOptions
    getNumericOptions() const;
  }];
}

//===----------------------------------------------------------------------===//
// Fake quantization and qconfig
//===----------------------------------------------------------------------===//

def Quanta_FakeQuantizeAttr : Quanta_Attr<"FakeQuantize", "fake_quantize"> {
  let summary = "torch.ao.quantization.FakeQuantize (and its fused variant)";
  let description = [{
    A FakeQuantize module: the observer that feeds it and the quant range
    forwarded to that observer. With `fused = true` it is
    FusedMovingAvgObsFakeQuantize, PyTorch 1.13's default QAT fake-quant,
    whose qparams come from ATen's ChooseQuantizationParams (not from the
    observer's formula) and whose observer must be a moving-average one.
    Without an observer, PyTorch's default MovingAverageMinMaxObserver is
    meant.
  }];
  let parameters = (ins
      OptionalParameter<"::mlir::quanta::ObserverAttrInterface">:$observer,
      OptionalParameter<"std::optional<int64_t>">:$quant_min,
      OptionalParameter<"std::optional<int64_t>">:$quant_max,
      Quanta_BoolParam<"false">:$fused);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
  let extraClassDeclaration = [{
    /// The range the module fake-quantizes to: its quant_min/quant_max
    /// forwarded to the observer (PyTorch's FakeQuantize.__init__), else the
    /// observer's own range.
    ::mlir::quanta::numerics::QRange getQRange() const;
    /// The observer, or PyTorch's default MovingAverageMinMaxObserver with
    /// the module's range when there is none.
    ::mlir::quanta::ObserverAttrInterface getObserverOrDefault() const;
  }];
}

def Quanta_QConfigAttr : Quanta_Attr<"QConfig", "qconfig"> {
  let summary = "torch.ao.quantization.QConfig";
  let description = [{
    The activation and weight observers (or fake-quantize modules) that
    observer insertion attaches. Presets equal to PyTorch's
    `get_default_qconfig(backend)` are available by name (see
    `quanta-insert-observers`).
  }];
  let parameters = (ins "::mlir::Attribute":$activation,
                        "::mlir::Attribute":$weight);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

//===----------------------------------------------------------------------===//
// Statistics
//===----------------------------------------------------------------------===//

def Quanta_MinMaxStatsAttr : Quanta_Attr<"MinMaxStats", "min_max_stats"> {
  let summary = "Running min/max of an observer (per tensor or per channel)";
  let description = [{
    The running minimum and maximum an observer holds: one value each for
    per-tensor observers, one per channel otherwise. `num_batches` counts the
    batches seen (order-dependent observers, such as moving averages, cannot
    be merged across shards; it is recorded for diagnostics).
  }];
  let parameters = (ins Quanta_F32ArrayParam:$min,
                        Quanta_F32ArrayParam:$max,
                        Quanta_I64Param<"0">:$num_batches);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

def Quanta_HistogramStatsAttr : Quanta_Attr<"HistogramStats",
                                            "histogram_stats"> {
  let summary = "The histogram a HistogramObserver holds, with its range";
  let parameters = (ins Quanta_RequiredF32Param:$min,
                        Quanta_RequiredF32Param:$max,
                        Quanta_F32ArrayParam:$histogram,
                        Quanta_I64Param<"0">:$num_batches);
  let assemblyFormat = "`<` struct(params) `>`";
  let genVerifyDecl = 1;
}

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAATTRS_TD

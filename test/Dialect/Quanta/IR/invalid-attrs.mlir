// RUN: quant-opt %s -split-input-file -verify-diagnostics

// One case per rule the observer, fake-quantize, qconfig and statistics
// attributes enforce. PyTorch's rules come first, then Quanta's own (each
// message says "Quanta rule").

// MinMaxObserver raises NotImplementedError for per-channel qschemes.
// expected-error @+1 {{MinMaxObserver does not support qscheme per_channel_affine: it computes one scale per tensor}}
func.func private @f() attributes {o = #quanta.min_max<qscheme = per_channel_affine>}

// -----

// expected-error @+1 {{MovingAverageMinMaxObserver does not support qscheme per_channel_symmetric}}
func.func private @f() attributes {o = #quanta.moving_average_min_max<qscheme = per_channel_symmetric>}

// -----

// expected-error @+1 {{PerChannelMinMaxObserver does not support qscheme per_tensor_affine: it computes one scale per channel}}
func.func private @f() attributes {o = #quanta.per_channel_min_max<qscheme = per_tensor_affine>}

// -----

// expected-error @+1 {{MovingAveragePerChannelMinMaxObserver does not support qscheme per_tensor_symmetric}}
func.func private @f() attributes {o = #quanta.moving_average_per_channel_min_max<qscheme = per_tensor_symmetric>}

// -----

// expected-error @+1 {{HistogramObserver does not support qscheme per_channel_affine_float_qparams}}
func.func private @f() attributes {o = #quanta.histogram<qscheme = per_channel_affine_float_qparams>}

// -----

// _validate_qmin_qmax: the range must include zero.
// expected-error @+1 {{quant_min (5) must be <= 0 <= quant_max (10): the quantized range must include zero}}
func.func private @f() attributes {o = #quanta.min_max<quant_min = 5, quant_max = 10>}

// -----

// expected-error @+1 {{quant_min (-10) must be <= 0 <= quant_max (-1)}}
func.func private @f() attributes {o = #quanta.min_max<dtype = qint8, quant_min = -10, quant_max = -1>}

// -----

// _validate_qmin_qmax: quant_min < quant_max.
// expected-error @+1 {{quant_min (0) must be < quant_max (0): the quantized range needs at least two values}}
func.func private @f() attributes {o = #quanta.histogram<quant_min = 0, quant_max = 0>}

// -----

// calculate_qmin_qmax: a qint8 range holds at most 256 values.
// expected-error @+1 {{quantized range [-200, 200] has 401 values but qint8 holds at most 256}}
func.func private @f() attributes {o = #quanta.per_channel_min_max<dtype = qint8, quant_min = -200, quant_max = 200>}

// -----

// calculate_qmin_qmax: a customized qint32 range holds at most 2**31 values.
// expected-error @+1 {{has 4294967296 values but PyTorch allows at most 2**31 for a customized qint32 range}}
func.func private @f() attributes {o = #quanta.min_max<dtype = qint32, quant_min = -2147483648, quant_max = 2147483647>}

// -----

// expected-error @+1 {{quantized range [0, 1000] has 1001 values but quint8 holds at most 256 (Quanta rule}}
func.func private @f() attributes {o = #quanta.min_max<quant_min = 0, quant_max = 1000>}

// -----

// expected-error @+1 {{quantized range [0, 16] does not fit quint4x2, whose values are 0..15 (Quanta rule}}
func.func private @f() attributes {o = #quanta.per_channel_min_max<dtype = quint4x2, qscheme = per_channel_affine_float_qparams, quant_min = 0, quant_max = 16>}

// -----

// expected-error @+1 {{only quant_min is set: give both quant_min and quant_max or neither (Quanta rule}}
func.func private @f() attributes {o = #quanta.min_max<quant_min = 0>}

// -----

// expected-error @+1 {{only quant_max is set}}
func.func private @f() attributes {o = #quanta.moving_average_min_max<quant_max = 127>}

// -----

// MinMaxObserver: "Cannot reduce range for symmetric quantization for quint8".
// expected-error @+1 {{MinMaxObserver cannot reduce the range of per_tensor_symmetric quint8 quantization}}
func.func private @f() attributes {o = #quanta.min_max<qscheme = per_tensor_symmetric, reduce_range = true>}

// -----

// Inherited by MovingAverageMinMaxObserver.
// expected-error @+1 {{MovingAverageMinMaxObserver cannot reduce the range of per_tensor_symmetric quint8 quantization}}
func.func private @f() attributes {o = #quanta.moving_average_min_max<qscheme = per_tensor_symmetric, reduce_range = true>}

// -----

// expected-error @+1 {{PerChannelMinMaxObserver cannot reduce the range of per_channel_symmetric quint8 quantization}}
func.func private @f() attributes {o = #quanta.per_channel_min_max<qscheme = per_channel_symmetric, reduce_range = true>}

// -----

// expected-error @+1 {{MovingAveragePerChannelMinMaxObserver cannot reduce the range of per_channel_symmetric quint8}}
func.func private @f() attributes {o = #quanta.moving_average_per_channel_min_max<qscheme = per_channel_symmetric, reduce_range = true>}

// -----

// expected-error @+1 {{eps (0.000000) must be finite and > 0: it is the smallest scale (Quanta rule}}
func.func private @f() attributes {o = #quanta.min_max<eps = 0.0>}

// -----

// expected-error @+1 {{eps (-1.000000) must be finite and > 0}}
func.func private @f() attributes {o = #quanta.per_channel_min_max<eps = -1.0>}

// -----

// PyTorch asserts "Default Observer only works for qint8, quint8 and quint4x2 data type".
// expected-error @+1 {{MinMaxObserver accepts dtype qint8, quint8, quint4x2 or qint32, not float32}}
func.func private @f() attributes {o = #quanta.min_max<dtype = float32>}

// -----

// expected-error @+1 {{HistogramObserver accepts dtype qint8, quint8, quint4x2 or qint32, not float16}}
func.func private @f() attributes {o = #quanta.histogram<dtype = float16>}

// -----

// expected-error @+1 {{averaging_constant must be in (0, 1], got 0}}
func.func private @f() attributes {o = #quanta.moving_average_min_max<averaging_constant = 0.0>}

// -----

// expected-error @+1 {{averaging_constant must be in (0, 1], got 1.5}}
func.func private @f() attributes {o = #quanta.moving_average_per_channel_min_max<averaging_constant = 1.5>}

// -----

// expected-error @+1 {{bins}}
func.func private @f() attributes {o = #quanta.histogram<bins = 0>}

// -----

// expected-error @+1 {{upsample_rate}}
func.func private @f() attributes {o = #quanta.histogram<upsample_rate = 0>}

// -----

// expected-error @+1 {{percentile}}
func.func private @f() attributes {o = #quanta.histogram<calibration = percentile, percentile = 0.0>}

// -----

// expected-error @+1 {{FixedQParamsObserver scale must be finite and positive, got 0}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.0, zero_point = 0>}

// -----

// expected-error @+1 {{zero_point (300) must lie in [quant_min, quant_max] = [0, 255]}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.5, zero_point = 300>}

// -----

// expected-error @+1 {{quant_min (10) must be less than quant_max (10)}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.5, zero_point = 10, quant_min = 10, quant_max = 10>}

// -----

// expected-error @+1 {{FixedQParamsObserver supports only per-tensor quantization, got per_channel_affine}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.5, zero_point = 0, qscheme = per_channel_affine>}

// -----

// expected-error @+1 {{FixedQParamsObserver needs a quantized dtype, got float32}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.5, zero_point = 0, dtype = float32>}

// -----

// A required parameter.
// expected-error @+1 {{struct is missing required parameter: zero_point}}
func.func private @f() attributes {o = #quanta.fixed_qparams<scale = 0.5>}

// -----

// OneFlow: quantization_bit in [2, 8].
// expected-error @+1 {{quantization_bit}}
func.func private @f() attributes {o = #quanta.oneflow_min_max<quantization_bit = 1>}

// -----

// expected-error @+1 {{quantization_bit}}
func.func private @f() attributes {o = #quanta.oneflow_min_max<quantization_bit = 9>}

// -----

// OneFlow: cambricon is per-layer only.
// expected-error @+1 {{cambricon}}
func.func private @f() attributes {o = #quanta.oneflow_min_max<quantization_formula = cambricon, per_layer_quantization = false>}

// -----

// expected-error @+1 {{FakeQuantize takes quant_min and quant_max together}}
func.func private @f() attributes {o = #quanta.fake_quantize<quant_min = 0>}

// -----

// PyTorch: "calculate_qparams should not be called for PlaceholderObserver".
// expected-error @+1 {{FakeQuantize needs an observer that computes qparams; calculate_qparams raises for PlaceholderObserver}}
func.func private @f() attributes {o = #quanta.fake_quantize<observer = #quanta.placeholder<>>}

// -----

// expected-error @+1 {{FusedMovingAvgObsFakeQuantize only works with MovingAverageMinMaxObserver or MovingAveragePerChannelMinMaxObserver}}
func.func private @f() attributes {o = #quanta.fake_quantize<observer = #quanta.min_max<>, fused = true>}

// -----

// expected-error @+1 {{FusedMovingAvgObsFakeQuantize supports per-channel fake quantization only on axis 0}}
func.func private @f() attributes {o = #quanta.fake_quantize<observer = #quanta.moving_average_per_channel_min_max<ch_axis = 1>, fused = true>}

// -----

// FakeQuantize: "quant_min must be less than or equal to quant_max".
// expected-error @+1 {{quant_min (10) must be less than or equal to quant_max (5)}}
func.func private @f() attributes {o = #quanta.fake_quantize<quant_min = 10, quant_max = 5>}

// -----

// FakeQuantize: "quant_min out of bound" (torch.iinfo(qint8).min = -128).
// expected-error @+1 {{quant_min (-129) out of bound for qint8 (min -128)}}
func.func private @f() attributes {o = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<dtype = qint8, qscheme = per_tensor_symmetric>, quant_min = -129, quant_max = 127>}

// -----

// FakeQuantize: "quant_max out of bound" (quint8 by default).
// expected-error @+1 {{quant_max (256) out of bound for quint8 (max 255)}}
func.func private @f() attributes {o = #quanta.fake_quantize<quant_min = 0, quant_max = 256>}

// -----

// FakeQuantize forwards its range to the observer, whose rules apply.
// expected-error @+1 {{the range FakeQuantize forwards to its observer is invalid: quant_min (1) must be <= 0 <= quant_max (255)}}
func.func private @f() attributes {o = #quanta.fake_quantize<quant_min = 1, quant_max = 255>}

// -----

// Within torch.iinfo(qint32), but a customized qint32 range holds at most
// 2**31 values.
// expected-error @+1 {{the range FusedMovingAvgObsFakeQuantize forwards to its observer is invalid: quantized range [-2147483648, 2147483647] has 4294967296 values}}
func.func private @f() attributes {o = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<dtype = qint32>, quant_min = -2147483648, quant_max = 2147483647, fused = true>}

// -----

// expected-error @+1 {{qconfig activation must be an observer or a fake_quantize attribute, got 1 : i64}}
func.func private @f() attributes {o = #quanta.qconfig<activation = 1, weight = #quanta.min_max<>>}

// -----

// expected-error @+1 {{qconfig weight must be an observer or a fake_quantize attribute}}
func.func private @f() attributes {o = #quanta.qconfig<activation = #quanta.min_max<>, weight = "w">}

// -----

// expected-error @+1 {{min and max must have the same number of values (2 vs 1)}}
func.func private @f() attributes {o = #quanta.min_max_stats<min = [0.0, 1.0], max = [1.0]>}

// -----

// expected-error @+1 {{num_batches must be non-negative}}
func.func private @f() attributes {o = #quanta.min_max_stats<min = [0.0], max = [1.0], num_batches = -1>}

// -----

// expected-error @+1 {{histogram must have at least one bin}}
func.func private @f() attributes {o = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = []>}

// -----

// expected-error @+1 {{histogram bin 1 holds -2.000000e+00; counts must be finite and not negative (beyond the rounding residue of PyTorch's histogram combination, 1e-3 of the total)}}
func.func private @f() attributes {o = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [1.0, -2.0]>}

// -----

// expected-error @+1 {{histogram bin 0 holds nan; counts must be finite and not negative (beyond the rounding residue of PyTorch's histogram combination, 1e-3 of the total)}}
func.func private @f() attributes {o = #quanta.histogram_stats<min = 0.0, max = 1.0, histogram = [nan, 2.0]>}

// -----

// A hexadecimal float literal is a bit pattern; a minus sign would flip a
// bit the pattern already holds.
// expected-error @+2 {{a hexadecimal float literal is a bit pattern and takes no minus sign}}
// expected-error @+1 {{failed to parse Quanta_MinMaxStatsAttr parameter 'min'}}
func.func private @f() attributes {o = #quanta.min_max_stats<min = [-0x3F800000], max = [1.0]>}

// -----

// expected-error @+2 {{expected 'true' or 'false'}}
// expected-error @+1 {{failed to parse Quanta_MinMaxObserverAttr parameter 'reduce_range'}}
func.func private @f() attributes {o = #quanta.min_max<reduce_range = yes>}

// -----

// expected-error @+1 {{expected '>'}}
func.func private @f() attributes {o = #quanta.min_max<1>}

// -----

// expected-error @+2 {{unknown dtype 'int8'}}
// expected-error @+1 {{failed to parse Quanta_PlaceholderObserverAttr parameter 'compute_dtype'}}
func.func private @f() attributes {o = #quanta.placeholder<compute_dtype = int8>}

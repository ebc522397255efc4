//===- QConfigPresets.cpp - PyTorch's named observers and qconfigs --------===//
//
// Each preset is written in quanta's attribute syntax with exactly the
// arguments PyTorch 1.13 passes (torch/ao/quantization/observer.py,
// fake_quantize.py and qconfig.py), so the table doubles as documentation.
//
//===----------------------------------------------------------------------===//

#include "quanta/Dialect/Quanta/Transforms/QConfigPresets.h"

#include "mlir/AsmParser/AsmParser.h"
#include "llvm/ADT/STLExtras.h"

using namespace mlir;
using namespace mlir::quanta;

namespace {
struct Preset {
  StringRef name;
  StringRef attribute;
};
} // namespace

// default_float_qparams_observer(_4bit): per row of an embedding table.
#define FLOAT_QPARAMS_OBSERVER(DTYPE)                                          \
  "#quanta.per_channel_min_max<ch_axis = 0, dtype = " DTYPE                    \
  ", qscheme = per_channel_affine_float_qparams>"

// The fixed output ranges of sigmoid and softmax (0..1) and tanh (-1..1).
#define RANGE_0TO1_OBSERVER                                                    \
  "#quanta.fixed_qparams<scale = 0.00390625, zero_point = 0, "                 \
  "dtype = quint8, quant_min = 0, quant_max = 255>"
#define RANGE_NEG1TO1_OBSERVER                                                 \
  "#quanta.fixed_qparams<scale = 0.0078125, zero_point = 128, "                \
  "dtype = quint8, quant_min = 0, quant_max = 255>"

// observer.py. 2 ** -12 = 0.000244140625.
static const Preset observerPresets[] = {
    {"default_observer", "#quanta.min_max<quant_min = 0, quant_max = 127>"},
    {"default_placeholder_observer", "#quanta.placeholder<>"},
    {"default_debug_observer", "#quanta.recording<>"},
    {"default_weight_observer",
     "#quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>"},
    {"weight_observer_range_neg_127_to_127",
     "#quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric, "
     "quant_min = -127, quant_max = 127, eps = 0.000244140625>"},
    {"default_histogram_observer",
     "#quanta.histogram<quant_min = 0, quant_max = 127>"},
    {"default_per_channel_weight_observer",
     "#quanta.per_channel_min_max<dtype = qint8, "
     "qscheme = per_channel_symmetric>"},
    {"per_channel_weight_observer_range_neg_127_to_127",
     "#quanta.per_channel_min_max<dtype = qint8, "
     "qscheme = per_channel_symmetric, quant_min = -127, quant_max = 127, "
     "eps = 0.000244140625>"},
    {"default_dynamic_quant_observer",
     "#quanta.placeholder<dtype = quint8, compute_dtype = quint8>"},
    {"default_float_qparams_observer", FLOAT_QPARAMS_OBSERVER("quint8")},
    {"default_float_qparams_observer_4bit", FLOAT_QPARAMS_OBSERVER("quint4x2")},
    {"default_fixed_qparams_range_neg1to1_observer", RANGE_NEG1TO1_OBSERVER},
    {"default_fixed_qparams_range_0to1_observer", RANGE_0TO1_OBSERVER},
    // Backward-compatibility aliases PyTorch keeps.
    {"default_symmetric_fixed_qparams_observer",
     "#quanta.fixed_qparams<scale = 0.0078125, zero_point = 128>"},
    {"default_affine_fixed_qparams_observer",
     "#quanta.fixed_qparams<scale = 0.00390625, zero_point = 0>"},
    {"default_reuse_input_observer", "#quanta.reuse_input"},
};

// fake_quantize.py, referenced by the QAT qconfigs below.
#define DEFAULT_FAKE_QUANT                                                     \
  "#quanta.fake_quantize<observer = #quanta.moving_average_min_max<"           \
  "dtype = quint8, qscheme = per_tensor_affine, reduce_range = true>, "        \
  "quant_min = 0, quant_max = 255>"
#define DEFAULT_WEIGHT_FAKE_QUANT                                              \
  "#quanta.fake_quantize<observer = #quanta.moving_average_min_max<"           \
  "dtype = qint8, qscheme = per_tensor_symmetric>, quant_min = -128, "         \
  "quant_max = 127>"
#define DEFAULT_PER_CHANNEL_WEIGHT_FAKE_QUANT                                  \
  "#quanta.fake_quantize<observer = "                                          \
  "#quanta.moving_average_per_channel_min_max<ch_axis = 0, dtype = qint8, "    \
  "qscheme = per_channel_symmetric>, quant_min = -128, quant_max = 127>"
#define FUSED_ACT_FAKE_QUANT(REDUCE_RANGE)                                     \
  "#quanta.fake_quantize<observer = #quanta.moving_average_min_max<"           \
  "reduce_range = " REDUCE_RANGE ">, quant_min = 0, quant_max = 255, "         \
  "fused = true>"
#define DEFAULT_FUSED_WT_FAKE_QUANT                                            \
  "#quanta.fake_quantize<observer = #quanta.moving_average_min_max<"           \
  "dtype = qint8, qscheme = per_tensor_symmetric>, quant_min = -128, "         \
  "quant_max = 127, fused = true>"
#define DEFAULT_FUSED_PER_CHANNEL_WT_FAKE_QUANT                                \
  "#quanta.fake_quantize<observer = "                                          \
  "#quanta.moving_average_per_channel_min_max<dtype = qint8, "                 \
  "qscheme = per_channel_symmetric>, quant_min = -128, quant_max = 127, "      \
  "fused = true>"
#define FIXED_QPARAMS_FAKE_QUANT(OBSERVER)                                     \
  "#quanta.fake_quantize<observer = " OBSERVER ">"

// fake_quantize.py's module-level fake-quant modules.
static const Preset fakeQuantizePresets[] = {
    {"default_fake_quant", DEFAULT_FAKE_QUANT},
    {"default_weight_fake_quant", DEFAULT_WEIGHT_FAKE_QUANT},
    {"default_per_channel_weight_fake_quant",
     DEFAULT_PER_CHANNEL_WEIGHT_FAKE_QUANT},
    {"default_histogram_fake_quant",
     "#quanta.fake_quantize<observer = #quanta.histogram<"
     "dtype = quint8, qscheme = per_tensor_affine, reduce_range = true>, "
     "quant_min = 0, quant_max = 255>"},
    {"default_fused_act_fake_quant", FUSED_ACT_FAKE_QUANT("false")},
    {"default_fused_wt_fake_quant", DEFAULT_FUSED_WT_FAKE_QUANT},
    {"default_fused_per_channel_wt_fake_quant",
     DEFAULT_FUSED_PER_CHANNEL_WT_FAKE_QUANT},
    // FixedQParamsFakeQuantize: a module whose observer is fixed.
    {"default_fixed_qparams_range_0to1_fake_quant",
     FIXED_QPARAMS_FAKE_QUANT(RANGE_0TO1_OBSERVER)},
    {"default_fixed_qparams_range_neg1to1_fake_quant",
     FIXED_QPARAMS_FAKE_QUANT(RANGE_NEG1TO1_OBSERVER)},
};

#define QCONFIG(ACTIVATION, WEIGHT)                                            \
  "#quanta.qconfig<activation = " ACTIVATION ", weight = " WEIGHT ">"

#define DEFAULT_OBSERVER "#quanta.min_max<quant_min = 0, quant_max = 127>"
#define DEFAULT_WEIGHT_OBSERVER                                                \
  "#quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>"
#define DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER                                    \
  "#quanta.per_channel_min_max<dtype = qint8, "                                \
  "qscheme = per_channel_symmetric>"
#define DYNAMIC_QUANT_OBSERVER                                                 \
  "#quanta.placeholder<dtype = quint8, compute_dtype = quint8>"

// qconfig.py: get_default_qconfig(backend), get_default_qat_qconfig(backend)
// (version 1, the default: fused fake-quant) and the module-level qconfigs.
static const Preset qconfigPresets[] = {
    {"x86", QCONFIG("#quanta.histogram<reduce_range = true>",
                    DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER)},
    {"fbgemm", QCONFIG("#quanta.histogram<reduce_range = true>",
                       DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER)},
    {"qnnpack", QCONFIG("#quanta.histogram<reduce_range = false>",
                        DEFAULT_WEIGHT_OBSERVER)},
    {"onednn", QCONFIG("#quanta.histogram<reduce_range = false>",
                       DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER)},
    {"x86_qat", QCONFIG(FUSED_ACT_FAKE_QUANT("true"),
                        DEFAULT_FUSED_PER_CHANNEL_WT_FAKE_QUANT)},
    {"fbgemm_qat", QCONFIG(FUSED_ACT_FAKE_QUANT("true"),
                           DEFAULT_FUSED_PER_CHANNEL_WT_FAKE_QUANT)},
    {"qnnpack_qat",
     QCONFIG(FUSED_ACT_FAKE_QUANT("false"), DEFAULT_FUSED_WT_FAKE_QUANT)},
    {"onednn_qat", QCONFIG(FUSED_ACT_FAKE_QUANT("false"),
                           DEFAULT_FUSED_PER_CHANNEL_WT_FAKE_QUANT)},
    {"default", QCONFIG(DEFAULT_OBSERVER, DEFAULT_WEIGHT_OBSERVER)},
    {"default_debug", QCONFIG("#quanta.recording<>", DEFAULT_WEIGHT_OBSERVER)},
    {"default_per_channel",
     QCONFIG(DEFAULT_OBSERVER, DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER)},
    {"default_dynamic",
     QCONFIG(DYNAMIC_QUANT_OBSERVER, DEFAULT_WEIGHT_OBSERVER)},
    {"per_channel_dynamic",
     QCONFIG(DYNAMIC_QUANT_OBSERVER, DEFAULT_PER_CHANNEL_WEIGHT_OBSERVER)},
    {"float16_dynamic",
     QCONFIG("#quanta.placeholder<dtype = float16, compute_dtype = float16>",
             "#quanta.placeholder<dtype = float16>")},
    {"float16_static", QCONFIG("#quanta.placeholder<dtype = float16>",
                               "#quanta.placeholder<dtype = float16>")},
    // Embeddings (weight-only): the only qconfigs PyTorch quantizes them
    // with.
    {"float_qparams_weight_only",
     QCONFIG("#quanta.placeholder<>", FLOAT_QPARAMS_OBSERVER("quint8"))},
    {"float_qparams_weight_only_4bit",
     QCONFIG("#quanta.placeholder<>", FLOAT_QPARAMS_OBSERVER("quint4x2"))},
    {"default_qat", QCONFIG(DEFAULT_FAKE_QUANT, DEFAULT_WEIGHT_FAKE_QUANT)},
    {"default_qat_v2",
     QCONFIG(FUSED_ACT_FAKE_QUANT("false"), DEFAULT_FUSED_WT_FAKE_QUANT)},
    {"default_dynamic_qat",
     QCONFIG("#quanta.fake_quantize<observer = "
             "#quanta.moving_average_min_max<averaging_constant = 1.0>, "
             "quant_min = 0, quant_max = 255>",
             DEFAULT_WEIGHT_FAKE_QUANT)},
    {"default_reuse_input", QCONFIG("#quanta.reuse_input", "#quanta.noop<>")},
    {"default_symmetric_qnnpack",
     QCONFIG("#quanta.histogram<dtype = qint8, eps = 0.000244140625>",
             "#quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric, "
             "quant_min = -127, quant_max = 127, eps = 0.000244140625>")},
    {"default_per_channel_symmetric_qnnpack",
     QCONFIG("#quanta.histogram<dtype = qint8, eps = 0.000244140625>",
             "#quanta.per_channel_min_max<dtype = qint8, "
             "qscheme = per_channel_symmetric, quant_min = -127, "
             "quant_max = 127, eps = 0.000244140625>")},
};

static Attribute lookup(MLIRContext *context, ArrayRef<Preset> presets,
                        StringRef name) {
  const Preset *preset = llvm::find_if(
      presets, [&](const Preset &entry) { return entry.name == name; });
  if (preset == presets.end())
    return {};
  context->getOrLoadDialect<QuantaDialect>();
  Attribute attr = parseAttribute(preset->attribute, context);
  assert(attr && "malformed preset");
  return attr;
}

ObserverAttrInterface quanta::getObserverPreset(MLIRContext *context,
                                                StringRef name) {
  return dyn_cast_or_null<ObserverAttrInterface>(
      lookup(context, observerPresets, name));
}

FakeQuantizeAttr quanta::getFakeQuantizePreset(MLIRContext *context,
                                               StringRef name) {
  return dyn_cast_or_null<FakeQuantizeAttr>(
      lookup(context, fakeQuantizePresets, name));
}

QConfigAttr quanta::getQConfigPreset(MLIRContext *context, StringRef name) {
  name.consume_back("_qconfig");
  return dyn_cast_or_null<QConfigAttr>(lookup(context, qconfigPresets, name));
}

template <size_t N>
static ArrayRef<StringRef> namesOf(const Preset (&presets)[N]) {
  static const SmallVector<StringRef> names = llvm::map_to_vector(
      presets, [](const Preset &preset) { return preset.name; });
  return names;
}

ArrayRef<StringRef> quanta::getObserverPresetNames() {
  return namesOf(observerPresets);
}
ArrayRef<StringRef> quanta::getQConfigPresetNames() {
  return namesOf(qconfigPresets);
}

FailureOr<QConfigAttr>
quanta::parseQConfig(MLIRContext *context, StringRef text,
                     function_ref<InFlightDiagnostic()> emitError) {
  text = text.trim();
  if (text == "none")
    return QConfigAttr();
  if (QConfigAttr preset = getQConfigPreset(context, text))
    return preset;
  if (text.starts_with("#")) {
    context->getOrLoadDialect<QuantaDialect>();
    if (auto attr =
            dyn_cast_or_null<QConfigAttr>(parseAttribute(text, context)))
      return attr;
    return emitError() << "'" << text << "' is not a #quanta.qconfig";
  }
  InFlightDiagnostic diag = emitError();
  diag << "unknown qconfig '" << text << "'; expected none, a "
       << "#quanta.qconfig<...> or one of:";
  for (StringRef name : getQConfigPresetNames())
    diag << " " << name;
  return diag;
}

//===- QConfigPresets.h - PyTorch's named observers and qconfigs -*- C++ -*-=//
//
// The observer instances PyTorch names in torch.ao.quantization.observer
// (default_observer, default_weight_observer, ...) and the qconfigs of
// torch.ao.quantization.qconfig (get_default_qconfig(backend),
// default_qconfig, ...), as quanta attributes with the same options.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_TRANSFORMS_QCONFIGPRESETS_H
#define QUANTA_DIALECT_QUANTA_TRANSFORMS_QCONFIGPRESETS_H

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h"

namespace mlir::quanta {

/// The observer PyTorch names `name` (e.g. "default_weight_observer"), or
/// null if there is no such preset.
ObserverAttrInterface getObserverPreset(MLIRContext *context, StringRef name);

/// The FakeQuantize module PyTorch names `name` (e.g.
/// "default_histogram_fake_quant",
/// "default_fixed_qparams_range_0to1_fake_quant" for FixedQParamsFakeQuantize),
/// or null if there is no such preset.
FakeQuantizeAttr getFakeQuantizePreset(MLIRContext *context, StringRef name);

/// The qconfig PyTorch names `name`: a backend of get_default_qconfig
/// ("x86", "fbgemm", "qnnpack", "onednn"), "<backend>_qat" for
/// get_default_qat_qconfig, or a module-level qconfig ("default",
/// "default_per_channel", "default_qat", ...), with or without the
/// "_qconfig" suffix. Null if there is no such preset.
QConfigAttr getQConfigPreset(MLIRContext *context, StringRef name);

/// A qconfig given as text: "none" (a null QConfigAttr: the op stays
/// float), a preset name (getQConfigPreset) or a #quanta.qconfig<...>;
/// else an error, from `emitError`, listing the presets.
FailureOr<QConfigAttr>
parseQConfig(MLIRContext *context, StringRef text,
             function_ref<InFlightDiagnostic()> emitError);

/// The names getObserverPreset and getQConfigPreset accept.
ArrayRef<StringRef> getObserverPresetNames();
ArrayRef<StringRef> getQConfigPresetNames();

} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_TRANSFORMS_QCONFIGPRESETS_H

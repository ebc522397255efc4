//===- QuantaInterfaces.td - Observer attribute interface --*- tablegen -*-===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTAINTERFACES_TD
#define QUANTA_DIALECT_QUANTA_IR_QUANTAINTERFACES_TD

include "mlir/IR/OpBase.td"

def Quanta_ObserverAttrInterface : AttrInterface<"ObserverAttrInterface"> {
  let cppNamespace = "::mlir::quanta";
  let description = [{
    An observer configuration: one of PyTorch's observer classes with its
    constructor options. `quanta.observe` accepts any attribute implementing
    this interface.
  }];
  let methods = [
    InterfaceMethod<"PyTorch's class name of the observer.",
      "::llvm::StringRef", "getPyTorchClassName">,
    InterfaceMethod<[{
        Whether the observer records statistics of the values it sees
        (false for observers that only carry configuration, such as
        PlaceholderObserver or FixedQParamsObserver).
      }], "bool", "collectsStatistics">,
    InterfaceMethod<[{
        Whether the observer computes one set of quantization parameters per
        channel; if so, `getChannelAxis` returns its axis.
      }], "bool", "isPerChannel", (ins), [{}],
      /*defaultImplementation=*/[{ return false; }]>,
    InterfaceMethod<"The channel axis of a per-channel observer.",
      "int64_t", "getChannelAxis", (ins), [{}],
      /*defaultImplementation=*/[{ return 0; }]>,
  ];
}

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTAINTERFACES_TD

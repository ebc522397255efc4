//===- QuantaDialect.h - The quanta dialect ---------------------*- C++ -*-===//
//
// The dialect, its enums, the observer attribute interface and the
// attributes. Ops are in QuantaOps.h.
//
//===----------------------------------------------------------------------===//

#ifndef QUANTA_DIALECT_QUANTA_IR_QUANTADIALECT_H
#define QUANTA_DIALECT_QUANTA_IR_QUANTADIALECT_H

#include "quanta/Numerics/Dynamic.h"
#include "quanta/Numerics/QParams.h"
#include "quanta/Support/TargetDescription.h"

#include "mlir/Dialect/Quant/IR/Quant.h"
#include "mlir/IR/Attributes.h"
#include "mlir/IR/BuiltinAttributes.h"
#include "mlir/IR/BuiltinOps.h"
#include "mlir/IR/Dialect.h"
#include "mlir/IR/DialectImplementation.h"
#include "llvm/ADT/APFloat.h"

#include <optional>

namespace mlir::quanta::numerics {
struct HistogramOptions;
struct HistogramCalibrationOptions;
struct OneFlowMinMaxObserverOptions;
} // namespace mlir::quanta::numerics

#include "quanta/Dialect/Quanta/IR/QuantaDialect.h.inc"
#include "quanta/Dialect/Quanta/IR/QuantaEnums.h.inc"

namespace mlir::quanta::detail {
FailureOr<bool> parseBoolParam(AsmParser &parser);
FailureOr<llvm::APFloat> parseF32Param(AsmParser &parser);
FailureOr<llvm::APFloat> parseF64Param(AsmParser &parser);
FailureOr<std::optional<DType>> parseOptionalDTypeParam(AsmParser &parser);
/// Prints the shortest decimal that parses back to the same value (nan,
/// inf and -inf for non-finite values).
void printFloatParam(AsmPrinter &printer, const llvm::APFloat &value);
/// `[1.5, -0.25, ...]` with every float32 printed exactly: statistics must
/// survive a round trip through textual IR bit for bit, which upstream's
/// dense array printing (7 significant digits) does not guarantee.
FailureOr<DenseF32ArrayAttr> parseF32ArrayParam(AsmParser &parser);
void printF32ArrayParam(AsmPrinter &printer, DenseF32ArrayAttr values);
} // namespace mlir::quanta::detail

#include "quanta/Dialect/Quanta/IR/QuantaInterfaces.h.inc"

namespace mlir::quanta {
numerics::OneFlowMinMaxObserverOptions
toNumericOneFlowOptions(OneFlowFormula formula, int64_t bits,
                        OneFlowScheme scheme, bool perLayer);
} // namespace mlir::quanta

#define GET_ATTRDEF_CLASSES
#include "quanta/Dialect/Quanta/IR/QuantaAttrs.h.inc"

namespace mlir::quanta {
/// The numeric library's dtype for a quantized DType; nullopt for the float
/// dtypes (float32, float16, bfloat16), which no uniform observer accepts.
std::optional<numerics::DType> toNumericDType(DType dtype);
numerics::QScheme toNumericQScheme(QScheme qscheme);
numerics::DynamicEngine toNumericDynamicEngine(DynamicEngine engine);

/// The module attribute recording the target a module is compiled for, as
/// TargetDescription's canonical text (`"aarch64+neon+dotprod"`): set by
/// quant-compile and quant-run from --target-triple, --mcpu and --mattr
/// before their pipeline runs, read by the kernel lowerings, verified by
/// the dialect.
inline constexpr llvm::StringLiteral kTargetAttrName = "quanta.target";
/// `module`'s recorded target, if it has one; an error at the module when
/// the attribute does not describe a target.
FailureOr<std::optional<TargetDescription>> getModuleTarget(ModuleOp module);
/// The target the kernel lowerings (quanta-lower-x86, quanta-lower-neon)
/// wrote the module's code for, in the same form as `quanta.target`: code
/// generation for a target that cannot run it is refused (verifyRunsOn).
inline constexpr llvm::StringLiteral kLoweredForAttrName = "quanta.lowered_for";
/// Records that `module` holds code lowered for `target`; an error if it
/// already holds code lowered for another target.
LogicalResult recordLoweredFor(ModuleOp module, const TargetDescription &target,
                               StringRef pass);
void setModuleTarget(ModuleOp module, const TargetDescription &target);

/// The module attribute giving the threads its kernels run on (an i64: 1,
/// the default, for sequential code; 0 for the OpenMP runtime's choice,
/// OMP_NUM_THREADS or every core; N for N): set by quant-run and
/// quant-compile from --num-threads and by quanta-calibrate, read by the
/// lowering to LLVM (quanta-parallelize), verified by the dialect.
inline constexpr llvm::StringLiteral kThreadsAttrName = "quanta.threads";
/// `module`'s thread count (1 without the attribute).
int64_t getModuleThreads(ModuleOp module);

/// The name a front end gave an op's location, if any: "fc1" of
/// loc("fc1"), looked for inside fused and call-site locations (an ONNX
/// node's name; PyTorch's module path). Observer overrides, remarks and
/// reports name ops by it.
std::optional<StringRef> getLocationName(Location loc);
/// Marks an scf.for whose iterations write disjoint parts of its buffers
/// and read nothing another iteration writes (the threads' chunks of the
/// tiled kernels): quanta-parallelize may run them on threads in any order.
/// A unit attribute, or an i64: how many times the loop's innermost bodies
/// run, where its nest's bounds are not constants (the tiled kernels read
/// theirs from tables) and quanta-parallelize could not count them; the
/// scf.parallel quanta-parallelize makes of the loop keeps it for
/// quanta-parallelize-openmp.
inline constexpr llvm::StringLiteral kParallelLoopAttrName = "quanta.parallel";

/// Whether `target` can run the code `root` holds: the target a module's
/// kernels were lowered for (`quanta.lowered_for`) must have no feature
/// `target` lacks (features are per architecture), and every instruction
/// `root` uses by name (quanta.intrinsic, llvm.call_intrinsic, arm_neon and
/// x86vector ops) must exist on `target`; else an error at the module, or
/// at the first op of each such instruction, naming what is missing. Code
/// generation must not see them: LLVM aborts the process on an instruction its
/// target cannot select.
LogicalResult verifyRunsOn(Operation *root, const TargetDescription &target);
} // namespace mlir::quanta

#endif // QUANTA_DIALECT_QUANTA_IR_QUANTADIALECT_H

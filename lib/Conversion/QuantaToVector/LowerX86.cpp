//===- LowerX86.cpp - The quanta-lower-x86 pass ---------------------------===//
//
// Picks the ISA and hands every quanta.qmatmul, and every f32 matmul, batch
// matmul or 2-D convolution with constant weights, to its tiled kernel
// (TiledGemm.h); NCHW <-> NHWC transposes become vector tiles.
//
//===----------------------------------------------------------------------===//

#include "TiledGemm.h"

#include "quanta/Conversion/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"

#include "mlir/Dialect/Affine/IR/AffineOps.h"
#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "llvm/TargetParser/Host.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_LOWERX86
#include "quanta/Conversion/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;
using namespace mlir::quanta;

/// The ISA the pass targets: the option, or the host's best.
static FailureOr<StringRef> resolveIsa(StringRef isa, Operation *root) {
  if (isa == "host") {
    llvm::StringMap<bool> features = llvm::sys::getHostCPUFeatures();
    if (features.lookup("avx512vnni") && features.lookup("avx512vl"))
      return StringRef("avx512vnni");
    if (features.lookup("avxvnni"))
      return StringRef("avxvnni");
    if (features.lookup("avx2"))
      return StringRef("avx2");
    return StringRef("generic");
  }
  if (isa == "avx512vnni" || isa == "avxvnni" || isa == "avx2" ||
      isa == "generic")
    return isa;
  return emitError(root->getLoc(), "quanta-lower-x86: unknown isa '")
         << isa << "' (expected host, avx512vnni, avxvnni, avx2 or generic)";
}

namespace {
struct LowerX86Pass : public quanta::impl::LowerX86Base<LowerX86Pass> {
  using LowerX86Base::LowerX86Base;
  void runOnOperation() override {
    FailureOr<StringRef> resolved = resolveIsa(isa, getOperation());
    if (failed(resolved))
      return signalPassFailure();
    SmallVector<QMatmulOp> qmatmuls;
    SmallVector<Operation *> floatGemms;
    getOperation()->walk([&](Operation *op) {
      if (auto qmatmul = dyn_cast<QMatmulOp>(op))
        qmatmuls.push_back(qmatmul);
      else if (llvm::isa<linalg::MatmulOp, linalg::BatchMatmulOp,
                         linalg::Conv2DNhwcFhwcOp, linalg::Conv2DNhwcHwcfOp,
                         linalg::Conv2DNchwFchwOp>(op))
        floatGemms.push_back(op);
    });
    for (QMatmulOp op : qmatmuls)
      if (failed(lowerQMatmul(op, *resolved)))
        return signalPassFailure();
    if (*resolved == "avx512vnni")
      getOperation()->walk(
          [](FunctionOpInterface func) { preferVectorWidth(func, 512); });
    // Those that are not f32 with constant weights stay as they are.
    if (lowerFloat)
      for (Operation *op : floatGemms)
        (void)lowerFloatGemm(op, *resolved);
    // The layout transposes around NCHW convolutions, including those the
    // float lowering just added.
    SmallVector<linalg::TransposeOp> transposes;
    getOperation()->walk(
        [&](linalg::TransposeOp op) { transposes.push_back(op); });
    for (linalg::TransposeOp op : transposes)
      (void)lowerImageTranspose(op);
  }
};
} // namespace

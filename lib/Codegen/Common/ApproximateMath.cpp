//===- ApproximateMath.cpp - Vectorizable math functions ------------------===//
//
// quanta-approximate-math (Passes.td).
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/Common/Passes.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Math/IR/Math.h"
#include "mlir/Dialect/Math/Transforms/Approximation.h"
#include "mlir/Dialect/Math/Transforms/Passes.h"
#include "mlir/Dialect/Vector/IR/VectorOps.h"
#include "mlir/Transforms/GreedyPatternRewriteDriver.h"
#include "llvm/ADT/StringExtras.h"

namespace mlir::quanta {
#define GEN_PASS_DEF_APPROXIMATEMATH
#include "quanta/Codegen/Common/Passes.h.inc"
} // namespace mlir::quanta

using namespace mlir;

/// The functions populateMathPolynomialApproximationPatterns approximates
/// in f32 (rsqrt only with AVX2, which it does not take here).
static constexpr llvm::StringLiteral kApproximated[] = {
    "acos", "asin",  "atan", "atan2", "cbrt", "cos", "erf", "erfc",
    "exp",  "expm1", "log",  "log1p", "log2", "sin", "tanh"};

namespace {
struct ApproximateMathPass
    : public quanta::impl::ApproximateMathBase<ApproximateMathPass> {
  using ApproximateMathBase::ApproximateMathBase;
  void runOnOperation() override {
    for (const std::string &name : functions)
      if (!llvm::is_contained(kApproximated, name)) {
        getOperation()->emitError()
            << getArgument() << ": no approximation of '" << name
            << "' (expected one of "
            << llvm::join(std::begin(kApproximated), std::end(kApproximated),
                          ", ")
            << ")";
        return signalPassFailure();
      }
    if (functions.empty())
      return;
    RewritePatternSet patterns(&getContext());
    // Upstream names the functions by their ops: math.erf.
    auto named = [&](StringRef opName) {
      return opName.consume_front("math.") &&
             llvm::is_contained(functions, opName);
    };
    populateMathPolynomialApproximationPatterns(patterns, named);
    if (failed(applyPatternsGreedily(getOperation(), std::move(patterns))))
      signalPassFailure();
  }
};
} // namespace

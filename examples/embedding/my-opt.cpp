//===- my-opt.cpp - A compiler driver that embeds Quanta ------------------===//
//
// mlir-opt with every upstream dialect and pass, Quanta's, and a pass of
// this compiler's own over Quanta's ops: what a project that embeds Quanta
// writes. Run, e.g.:
//   my-opt model.mlir --quanta-prepare --my-count-observers
//
//===----------------------------------------------------------------------===//

#include "quanta/API/Quanta.h"

#include "mlir/Pass/Pass.h"
#include "mlir/Tools/mlir-opt/MlirOptMain.h"

using namespace mlir;

namespace {
/// Remarks how many observers each function holds.
struct CountObserversPass
    : public PassWrapper<CountObserversPass, OperationPass<func::FuncOp>> {
  MLIR_DEFINE_EXPLICIT_INTERNAL_INLINE_TYPE_ID(CountObserversPass)

  StringRef getArgument() const override { return "my-count-observers"; }
  StringRef getDescription() const override {
    return "Remark the number of quanta.observe ops of each function";
  }
  void runOnOperation() override {
    int64_t count = 0;
    getOperation().walk([&](quanta::ObserveOp) { ++count; });
    getOperation().emitRemark() << count << " observers";
  }
};
} // namespace

int main(int argc, char **argv) {
  quanta::registerAllPasses();
  PassRegistration<CountObserversPass>();
  DialectRegistry registry;
  quanta::registerAllDialects(registry);
  return asMainReturnCode(MlirOptMain(
      argc, argv, "my-opt: a compiler embedding Quanta\n", registry));
}

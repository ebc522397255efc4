//===- StatisticsFuzzer.cpp - libFuzzer target for statistics files ------===//
//
// Statistics files travel between machines (sharded calibration): any byte
// string given to quanta-import-statistics must merge into the observers
// or be rejected with a diagnostic, whatever its JSON, attribute text,
// statistics values or counts claim. The module holds one observer of each
// kind whose statistics merge.
//
//===----------------------------------------------------------------------===//

#include "FuzzContext.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Parser/Parser.h"
#include "llvm/Support/Process.h"
#include "llvm/Support/raw_ostream.h"

#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>

using namespace mlir;

static constexpr const char *kObservedModule = R"mlir(
func.func @model(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {name = "in", observer = #quanta.min_max<>} : tensor<4x16xf32>
  %1 = quanta.observe %0 {name = "in_pc", observer = #quanta.per_channel_min_max<ch_axis = 1>} : tensor<4x16xf32>
  %2 = quanta.observe %1 {name = "in_hist", observer = #quanta.histogram<bins = 256>} : tensor<4x16xf32>
  %3 = quanta.observe %2 {name = "in_ma", observer = #quanta.moving_average_min_max<>} : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}
)mlir";

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  MLIRContext &context = quanta_fuzz::getFuzzContext();
  // The pass reads files; one per fuzzing process.
  static const std::string path =
      "/tmp/quanta-statistics-fuzzer-" +
      std::to_string(llvm::sys::Process::getProcessId()) + ".json";
  {
    std::error_code error;
    llvm::raw_fd_ostream file(path, error);
    if (error)
      std::abort();
    file.write(reinterpret_cast<const char *>(data), size);
  }
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(kObservedModule, ParserConfig(&context));
  if (!module)
    std::abort();
  (void)quanta::runPassPipeline(*module,
                                "quanta-import-statistics{files=" + path +
                                    "},func.func(quanta-freeze-qparams)");
  return 0;
}

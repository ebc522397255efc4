//===- quant-translate.cpp - Models in other formats to MLIR --------------===//
//
//   quant-translate --import-onnx model.onnx [--onnx-batch=N]
//       [--onnx-dim=name=N,...] [-o out.mlir]
//
// mlir-translate with Quanta's importers registered: the ONNX model becomes
// one func.func of linalg on tensors (quant.qcast/dcast for QDQ models),
// ready for quant-opt's pipelines. quant-run and quant-compile also take an
// .onnx file directly.
//
//===----------------------------------------------------------------------===//

#include "quanta/Import/Onnx/OnnxImporter.h"

#include "mlir/IR/BuiltinOps.h"
#include "mlir/Tools/mlir-translate/MlirTranslateMain.h"
#include "mlir/Tools/mlir-translate/Translation.h"
#include "llvm/Support/CommandLine.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/SourceMgr.h"

using namespace mlir;

static llvm::cl::opt<int64_t>
    onnxBatch("onnx-batch",
              llvm::cl::desc("the size of a symbolic first dimension of "
                             "the inputs (the batch) --onnx-dim does not "
                             "name"),
              llvm::cl::init(0));

static llvm::cl::opt<std::string>
    onnxDims("onnx-dim",
             llvm::cl::desc("sizes of the inputs' symbolic dimensions by "
                            "name: --onnx-dim=batch=1,seq=128"));

int main(int argc, char **argv) {
  TranslateToMLIRRegistration importOnnx(
      "import-onnx", "ONNX model (opset 11-17) to linalg on tensors",
      [](llvm::SourceMgr &sourceMgr,
         MLIRContext *context) -> OwningOpRef<Operation *> {
        const llvm::MemoryBuffer *buffer =
            sourceMgr.getMemoryBuffer(sourceMgr.getMainFileID());
        quanta::OnnxImportOptions options;
        options.batchSize = onnxBatch;
        if (llvm::Error error = quanta::parseOnnxDimSizes(onnxDims, options)) {
          emitError(UnknownLoc::get(context))
              << "--onnx-dim: " << llvm::toString(std::move(error));
          return nullptr;
        }
        return quanta::importOnnxModel(context, buffer->getBuffer(),
                                       buffer->getBufferIdentifier(), options);
      },
      quanta::registerOnnxImportDialects);
  return failed(mlirTranslateMain(argc, argv, "Quanta translation tool"));
}

/*===- quanta-capi-test.c - Quanta's C API end to end ---------------------===*\
|*                                                                            *|
|*   quanta-capi-test <model.mlir> <prepare pipeline> <entry> <shapes>        *|
|*                    <convert pipeline>                                      *|
|*                                                                            *|
|* Post-training quantization through the C API (quanta-c/Quanta.h) alone:   *|
|* parse the model, run <prepare pipeline> (e.g. "quanta-prepare"),           *|
|* calibrate <entry> on two batches of deterministic float32 data in         *|
|* <shapes> (one shape per argument, comma-separated, dimensions joined by   *|
|* 'x': "2x4" or "2x4,4"), run <convert pipeline> (freezing, conversion and  *|
|* the kernel lowering), compile <entry> and call it on the first batch.     *|
|* Prints each result as "result <i>: <shape>" and then its elements, one    *|
|* per line ("%.6g"), then checks that malformed calls fail with an error    *|
|* diagnostic ("bad call rejected", "null data rejected"). Diagnostics go    *|
|* to stderr. Exits 1 on any unexpected failure, 2 on bad usage.             *|
|*                                                                            *|
\*===----------------------------------------------------------------------===*/

#include "quanta-c/Quanta.h"

#include "mlir-c/Diagnostics.h"
#include "mlir-c/IR.h"
#include "mlir-c/Support.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { kMaxArguments = 8, kMaxRank = 8, kNumBatches = 2 };

/// What the diagnostic handler counts.
typedef struct {
  int errors;
} DiagnosticCounts;

static void printToStderr(MlirStringRef text, void *userData) {
  (void)userData;
  fwrite(text.data, 1, text.length, stderr);
}

static const char *severityName(MlirDiagnosticSeverity severity) {
  switch (severity) {
  case MlirDiagnosticError:
    return "error";
  case MlirDiagnosticWarning:
    return "warning";
  case MlirDiagnosticNote:
    return "note";
  case MlirDiagnosticRemark:
    return "remark";
  }
  return "diagnostic";
}

/// Prints `diagnostic` as "<location>: <severity>: <message>", with its
/// notes indented below.
static void printDiagnostic(MlirDiagnostic diagnostic, const char *indent) {
  fputs(indent, stderr);
  mlirLocationPrint(mlirDiagnosticGetLocation(diagnostic), printToStderr, NULL);
  fprintf(stderr,
          ": %s: ", severityName(mlirDiagnosticGetSeverity(diagnostic)));
  mlirDiagnosticPrint(diagnostic, printToStderr, NULL);
  fputc('\n', stderr);
  for (intptr_t i = 0; i < mlirDiagnosticGetNumNotes(diagnostic); ++i)
    printDiagnostic(mlirDiagnosticGetNote(diagnostic, i), "  ");
}

static MlirLogicalResult handleDiagnostic(MlirDiagnostic diagnostic,
                                          void *userData) {
  DiagnosticCounts *counts = (DiagnosticCounts *)userData;
  printDiagnostic(diagnostic, "");
  if (mlirDiagnosticGetSeverity(diagnostic) == MlirDiagnosticError)
    ++counts->errors;
  return mlirLogicalResultSuccess();
}

/// A shape per argument, parsed from "2x4,4".
typedef struct {
  intptr_t numArguments;
  intptr_t ranks[kMaxArguments];
  int64_t shapes[kMaxArguments][kMaxRank];
  int64_t numElements[kMaxArguments];
} Signature;

/// Parses `text` into `signature`; 0 on success.
static int parseShapes(const char *text, Signature *signature) {
  const char *cursor = text;
  signature->numArguments = 0;
  for (;;) {
    if (signature->numArguments == kMaxArguments)
      return 1;
    intptr_t argument = signature->numArguments++;
    intptr_t rank = 0;
    int64_t elements = 1;
    for (;;) {
      char *end;
      long long size = strtoll(cursor, &end, 10);
      if (end == cursor || size < 0 || size > 1 << 20 || rank == kMaxRank)
        return 1;
      signature->shapes[argument][rank++] = size;
      elements *= size;
      if (elements > 1 << 24)
        return 1;
      cursor = end;
      if (*cursor != 'x')
        break;
      ++cursor;
    }
    signature->ranks[argument] = rank;
    signature->numElements[argument] = elements;
    if (*cursor == '\0')
      return 0;
    if (*cursor != ',')
      return 1;
    ++cursor;
  }
}

/// Deterministic values in [-1, 1): a linear congruential generator whose
/// 16-bit outputs are exact in float, on every platform.
static float nextValue(uint32_t *state) {
  *state = *state * 1664525u + 1013904223u;
  return (float)((*state >> 16) & 0xffffu) / 32768.0f - 1.0f;
}

static size_t dtypeSize(QuantaDType dtype) {
  switch (dtype) {
  case QuantaFloat64:
  case QuantaInt64:
    return 8;
  case QuantaFloat32:
  case QuantaInt32:
    return 4;
  case QuantaInt16:
    return 2;
  case QuantaInt8:
  case QuantaUInt8:
    return 1;
  }
  return 0;
}

/// Prints element `index` of `data` (of `dtype`) on a line of its own.
static void printElement(const void *data, QuantaDType dtype, int64_t index) {
  switch (dtype) {
  case QuantaFloat32:
    printf("%.6g\n", (double)((const float *)data)[index]);
    return;
  case QuantaFloat64:
    printf("%.6g\n", ((const double *)data)[index]);
    return;
  case QuantaInt8:
    printf("%d\n", (int)((const int8_t *)data)[index]);
    return;
  case QuantaUInt8:
    printf("%d\n", (int)((const uint8_t *)data)[index]);
    return;
  case QuantaInt16:
    printf("%d\n", (int)((const int16_t *)data)[index]);
    return;
  case QuantaInt32:
    printf("%" PRId32 "\n", ((const int32_t *)data)[index]);
    return;
  case QuantaInt64:
    printf("%" PRId64 "\n", ((const int64_t *)data)[index]);
    return;
  }
}

/// Calls `function` and checks that it fails with at least one error
/// diagnostic; prints `message` if so. 0 when it did.
static int expectRejected(QuantaCompiledFunction function, intptr_t numInputs,
                          const QuantaTensor *inputs, intptr_t numOutputs,
                          const QuantaTensor *outputs, DiagnosticCounts *counts,
                          const char *message) {
  int errorsBefore = counts->errors;
  if (mlirLogicalResultIsSuccess(quantaCompiledFunctionCall(
          function, numInputs, inputs, numOutputs, outputs))) {
    fprintf(stderr, "quanta-capi-test: a malformed call succeeded\n");
    return 1;
  }
  if (counts->errors == errorsBefore) {
    fprintf(stderr, "quanta-capi-test: a call failed without a diagnostic\n");
    return 1;
  }
  printf("%s\n", message);
  return 0;
}

/// Everything after the module is parsed; 0 on success.
static int run(MlirModule module, const char *preparePipeline,
               const char *entryName, const Signature *signature,
               const char *convertPipeline, DiagnosticCounts *counts) {
  int status = 1;
  intptr_t numArguments = signature->numArguments;
  MlirStringRef entry = mlirStringRefCreateFromCString(entryName);
  /* quanta-calibrate's options, as quant-opt takes them. */
  char optionText[256];
  snprintf(optionText, sizeof(optionText), "entry=%s threads=1", entryName);
  MlirStringRef calibrateOptions = mlirStringRefCreateFromCString(optionText);
  float *data[kNumBatches][kMaxArguments] = {{NULL}};
  QuantaTensor batches[kNumBatches * kMaxArguments];
  QuantaCompiledFunction function = {NULL};
  void *outputData[kMaxArguments] = {NULL};
  QuantaTensor outputs[kMaxArguments];
  intptr_t numResults = 0;

  if (mlirLogicalResultIsFailure(quantaRunPassPipeline(
          module, mlirStringRefCreateFromCString(preparePipeline))))
    goto cleanup;

  // Two batches, batch-major, of values no observer has seen before.
  uint32_t state = 1;
  for (intptr_t batch = 0; batch < kNumBatches; ++batch) {
    for (intptr_t argument = 0; argument < numArguments; ++argument) {
      int64_t elements = signature->numElements[argument];
      float *values =
          (float *)malloc((size_t)(elements ? elements : 1) * sizeof(float));
      if (!values)
        goto cleanup;
      data[batch][argument] = values;
      for (int64_t i = 0; i < elements; ++i)
        values[i] = nextValue(&state);
      QuantaTensor tensor = {values, signature->shapes[argument],
                             signature->ranks[argument], QuantaFloat32};
      batches[batch * numArguments + argument] = tensor;
    }
  }
  /* A bad option is an error of the pass's, and nothing is calibrated. */
  if (mlirLogicalResultIsSuccess(quantaCalibrate(
          module, mlirStringRefCreateFromCString("threads=many"), kNumBatches,
          numArguments, batches)))
    goto cleanup;
  printf("bad options rejected\n");
  if (mlirLogicalResultIsFailure(quantaCalibrate(
          module, calibrateOptions, kNumBatches, numArguments, batches)))
    goto cleanup;

  if (mlirLogicalResultIsFailure(quantaRunPassPipeline(
          module, mlirStringRefCreateFromCString(convertPipeline))))
    goto cleanup;

  function = quantaCompile(module, entry);
  if (quantaCompiledFunctionIsNull(function))
    goto cleanup;
  if (quantaCompiledFunctionGetNumArguments(function) != numArguments) {
    fprintf(stderr,
            "quanta-capi-test: the compiled function takes %ld "
            "argument(s), the shapes give %ld\n",
            (long)quantaCompiledFunctionGetNumArguments(function),
            (long)numArguments);
    goto cleanup;
  }
  numResults = quantaCompiledFunctionGetNumResults(function);
  if (numResults < 1 || numResults > kMaxArguments) {
    fprintf(stderr, "quanta-capi-test: %ld results, expected 1 to %d\n",
            (long)numResults, (int)kMaxArguments);
    goto cleanup;
  }
  for (intptr_t result = 0; result < numResults; ++result) {
    QuantaTensor output = quantaCompiledFunctionGetResult(function, result);
    int64_t elements = 1;
    for (intptr_t dim = 0; dim < output.rank; ++dim)
      elements *= output.shape[dim];
    outputData[result] =
        malloc((size_t)(elements ? elements : 1) * dtypeSize(output.dtype));
    if (!outputData[result])
      goto cleanup;
    output.data = outputData[result];
    outputs[result] = output;
  }

  // The first batch, through the compiled function.
  if (mlirLogicalResultIsFailure(quantaCompiledFunctionCall(
          function, numArguments, batches, numResults, outputs)))
    goto cleanup;
  for (intptr_t result = 0; result < numResults; ++result) {
    const QuantaTensor *output = &outputs[result];
    printf("result %ld: ", (long)result);
    int64_t elements = 1;
    for (intptr_t dim = 0; dim < output->rank; ++dim) {
      printf(dim ? "x%" PRId64 : "%" PRId64, output->shape[dim]);
      elements *= output->shape[dim];
    }
    printf("\n");
    for (int64_t i = 0; i < elements; ++i)
      printElement(output->data, output->dtype, i);
  }

  // One input too many (the second batch's first argument) is an error
  // diagnostic, not a crash.
  if (expectRejected(function, numArguments + 1, batches, numResults, outputs,
                     counts, "bad call rejected"))
    goto cleanup;
  // So is an input without data.
  {
    QuantaTensor inputs[kMaxArguments];
    memcpy(inputs, batches, (size_t)numArguments * sizeof(QuantaTensor));
    inputs[0].data = NULL;
    if (expectRejected(function, numArguments, inputs, numResults, outputs,
                       counts, "null data rejected"))
      goto cleanup;
  }
  status = 0;

cleanup:
  quantaCompiledFunctionDestroy(function);
  for (intptr_t result = 0; result < kMaxArguments; ++result)
    free(outputData[result]);
  for (intptr_t batch = 0; batch < kNumBatches; ++batch)
    for (intptr_t argument = 0; argument < kMaxArguments; ++argument)
      free(data[batch][argument]);
  return status;
}

int main(int argc, char **argv) {
  if (argc != 6) {
    fprintf(stderr, "usage: quanta-capi-test <model.mlir> <prepare pipeline> "
                    "<entry> <shapes: 2x4[,...]> <convert pipeline>\n");
    return 2;
  }
  Signature signature;
  if (parseShapes(argv[4], &signature)) {
    fprintf(stderr,
            "quanta-capi-test: bad shapes '%s' (expected e.g. 2x4 or "
            "2x4,4; at most %d arguments of rank %d)\n",
            argv[4], (int)kMaxArguments, (int)kMaxRank);
    return 2;
  }

  MlirDialectRegistry registry = mlirDialectRegistryCreate();
  quantaRegisterAllDialects(registry);
  MlirContext context =
      mlirContextCreateWithRegistry(registry, /*threadingEnabled=*/false);
  mlirDialectRegistryDestroy(registry);
  DiagnosticCounts counts = {0};
  mlirContextAttachDiagnosticHandler(context, handleDiagnostic, &counts,
                                     /*deleteUserData=*/NULL);
  mlirContextLoadAllAvailableDialects(context);
  quantaRegisterAllPasses();

  int status = 1;
  MlirModule module = mlirModuleCreateParseFromFile(
      context, mlirStringRefCreateFromCString(argv[1]));
  if (!mlirModuleIsNull(module)) {
    status = run(module, argv[2], argv[3], &signature, argv[5], &counts);
    mlirModuleDestroy(module);
  }
  mlirContextDestroy(context);
  fflush(stdout);
  return status;
}

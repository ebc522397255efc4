//===- gemm_vs_onednn.cpp - Quanta's int8 GEMM against oneDNN -------------===//
//
// Runs, side by side in one process and one thread, on the same data:
//   - Quanta's quanta.qmatmul lowered by quanta-lower-x86 (u8 x s8 ->
//     requantized u8) for avx2 (7-bit inputs: vpmaddubsw; full-range inputs:
//     the exact vpmaddwd path) and avx512vnni;
//   - oneDNN's u8s8 matmul with requantization to u8 (output scales and
//     zero points), at whatever ISA oneDNN runs (restrict it with
//     DNNL_MAX_CPU_ISA=AVX2 in the environment for the AVX2 comparison);
//   - oneDNN's fp32 matmul, the fp32 anchor, and Quanta's fp32 lowering of
//     linalg.matmul (tiled FMA code on ymm and zmm);
// then the same for convolutions (NHWC, batch 1, ResNet-50 layers): a float
// dq -> tensor.pad -> linalg.conv_2d_nhwc_fhwc -> q chain through
// quanta-quantize (quanta.qmatmul reading the image through its window)
// against oneDNN's u8s8 and fp32 convolutions, and Quanta's fp32 lowering
// of the float convolution; then depthwise convolutions (MobileNetV2's
// shapes, strides 1 and 2, 3x3 and 5x5) the same way against oneDNN's
// grouped u8s8 and fp32 convolutions; and prints GOPS and ratios. A program
// to read, not a test: timings on a shared machine are noisy, which is why
// everything runs in one process.
//
//   DNNL_MAX_CPU_ISA=AVX2 build/bin/quanta-gemm-benchmark [--depthwise]
//
//===----------------------------------------------------------------------===//

#include "quanta/Codegen/CPU/Passes.h"
#include "quanta/Dialect/Quanta/IR/QuantaOps.h"
#include "quanta/Numerics/Requantize.h"
#include "quanta/Pipelines/Pipelines.h"
#include "quanta/Target/Jit.h"

#include "mlir/Parser/Parser.h"
#include "mlir/Pass/PassManager.h"
#include "llvm/ADT/StringExtras.h"
#include "llvm/Support/Format.h"
#include "llvm/Support/raw_ostream.h"

#include "IsaPeaks.h"

#include <dnnl.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <functional>
#include <random>
#include <sstream>
#include <unistd.h>

using namespace mlir;

namespace {
struct Shape {
  int64_t m, n, k;
};

/// A 2-D convolution of a 1 x size x size x channels NHWC input with
/// `filters` square kernels of side `kernel`, `pad` on every side; or with
/// `depthwise`, one kernel per channel (filters == channels, HWC filter).
struct ConvShape {
  int64_t size, channels, filters, kernel, pad, stride = 1;
  bool depthwise = false;
  int64_t outputSize() const { return (size + 2 * pad - kernel) / stride + 1; }
  /// The GEMM of the same multiply-adds: M = output pixels, N = filters,
  /// K = patch size.
  Shape gemm() const {
    return {outputSize() * outputSize(), filters,
            kernel * kernel * (depthwise ? 1 : channels)};
  }
  /// The filter's shape: FHWC, or HWC for a depthwise convolution.
  SmallVector<int64_t> filterShape() const {
    if (depthwise)
      return {kernel, kernel, channels};
    return {filters, kernel, kernel, channels};
  }
  /// The filter (output channel) of the filter's `i`-th value.
  int64_t filterOf(int64_t i) const {
    return depthwise ? i % channels : i / (kernel * kernel * channels);
  }
  /// The linalg op and its attributes, up to `ins(`.
  std::string opText() const {
    return (depthwise ? "linalg.depthwise_conv_2d_nhwc_hwc"
                      : "linalg.conv_2d_nhwc_fhwc") +
           std::string(" {dilations = dense<1> : tensor<2xi64>, strides = "
                       "dense<") +
           std::to_string(stride) + "> : tensor<2xi64>} ";
  }
};

/// The best time of each of `calls` over `repeats` rounds, in seconds,
/// after one warm-up call each. Every round calls each in turn, so that
/// the implementations compared in one row see the same clock: this
/// machine's turbo frequency drifts by more than the differences measured.
/// A turn is at least two calls and 2 ms, each call timed apart: the first
/// ones bring that implementation's weights back into the caches the
/// others evicted them from (at M = 1 they are the whole working set).
std::vector<double> bestTimes(ArrayRef<std::function<void()>> calls,
                              int repeats) {
  using Clock = std::chrono::steady_clock;
  auto seconds = [](Clock::time_point from) {
    return std::chrono::duration<double>(Clock::now() - from).count();
  };
  for (const std::function<void()> &call : calls)
    call();
  std::vector<double> best(calls.size(), 1e30);
  for (int i = 0; i < repeats; ++i)
    for (auto [call, time] : llvm::zip_equal(calls, best)) {
      const Clock::time_point turn = Clock::now();
      for (int count = 0; count < 2 || seconds(turn) < 2e-3; ++count) {
        const Clock::time_point start = Clock::now();
        call();
        time = std::min(time, seconds(start));
      }
    }
  return best;
}

/// A JIT-compiled function of one input and one result.
struct JitFunction {
  std::unique_ptr<ExecutionEngine> engine;
  std::string symbol;
  void call(void *input, ArrayRef<int64_t> inputShape, void *output,
            ArrayRef<int64_t> outputShape) {
    quanta::MemRefDescriptor in(input, inputShape), out(output, outputShape);
    SmallVector<void *> args = {in.packed(), out.packed()};
    if (llvm::Error error = engine->invokePacked(symbol, args)) {
      llvm::errs() << llvm::toString(std::move(error)) << "\n";
      std::exit(1);
    }
  }
};

JitFunction compile(MLIRContext &context, const std::string &source,
                    StringRef passes) {
  OwningOpRef<ModuleOp> module =
      parseSourceString<ModuleOp>(source, ParserConfig(&context));
  if (!module)
    std::exit(1);
  PassManager pm(&context);
  if (!passes.empty() && failed(parsePassPipeline(passes, pm)))
    std::exit(1);
  if (failed(pm.run(*module)))
    std::exit(1);
  auto func = *module->getOps<func::FuncOp>().begin();
  quanta::exposeCInterface(func);
  auto engine = quanta::compileForJit(*module, "benchmark");
  if (failed(engine))
    std::exit(1);
  return {std::move(*engine), ("_mlir_ciface_" + func.getSymName()).str()};
}

std::string joined(int64_t count, int64_t value) {
  std::string out;
  for (int64_t i = 0; i < count; ++i)
    out += (i ? ", " : "") + std::to_string(value);
  return out;
}

/// `size` bytes as the digits of an MLIR hex literal (dense<"0x...">
/// holds elements in this host's little-endian order).
std::string hexBytes(const void *data, size_t size) {
  return llvm::toHex(
      ArrayRef<uint8_t>(static_cast<const uint8_t *>(data), size));
}

/// The quantized GEMM as a module: u8 input of `inputStorage` (u8 or
/// u8<0:127>), requantized u8 output with a multiplier per channel.
std::string
qmatmulSource(const Shape &s, const std::vector<int8_t> &weights,
              StringRef inputStorage,
              ArrayRef<quanta::numerics::QuantizedMultiplier> requantization,
              int32_t outputZero) {
  auto field = [&](auto member) {
    std::string text;
    for (const quanta::numerics::QuantizedMultiplier &m : requantization)
      text += (text.empty() ? "" : ", ") + std::to_string(m.*member);
    return text;
  };
  std::ostringstream os;
  os << "!in = !quant.uniform<" << inputStorage.str() << ":f32, 0.05>\n"
     << "!out = !quant.uniform<u8:f32, 0.1:" << outputZero << ">\n"
     << "func.func @gemm(%a: tensor<" << s.m << "x" << s.k << "xi8>) -> tensor<"
     << s.m << "x" << s.n << "xi8> {\n"
     << "  %q = quant.scast %a : tensor<" << s.m << "x" << s.k
     << "xi8> to tensor<" << s.m << "x" << s.k << "x!in>\n"
     << "  %r = quanta.qmatmul %q {weights = dense<\"0x"
     << hexBytes(weights.data(), weights.size()) << "\"> : tensor<" << s.k
     << "x" << s.n
     << "xi8>, weight_zero_points = array<i32: 0>, column_offsets = "
     << "array<i32: " << joined(s.n, 0) << ">, multipliers = array<i32: "
     << field(&quanta::numerics::QuantizedMultiplier::multiplier)
     << ">, shifts = array<i32: "
     << field(&quanta::numerics::QuantizedMultiplier::shift)
     << ">, output_min = 0 : i32, output_max = 255 : i32} : tensor<" << s.m
     << "x" << s.k << "x!in> -> tensor<" << s.m << "x" << s.n << "x!out>\n"
     << "  %s = quant.scast %r : tensor<" << s.m << "x" << s.n
     << "x!out> to tensor<" << s.m << "x" << s.n << "xi8>\n"
     << "  return %s : tensor<" << s.m << "x" << s.n << "xi8>\n}\n";
  return os.str();
}

std::string floatMatmulSource(const Shape &s, const std::vector<float> &w) {
  std::ostringstream os;
  os << "func.func @gemm(%a: tensor<" << s.m << "x" << s.k
     << "xf32>) -> tensor<" << s.m << "x" << s.n << "xf32> {\n"
     << "  %w = arith.constant dense<\"0x"
     << hexBytes(w.data(), w.size() * sizeof(float)) << "\"> : tensor<" << s.k
     << "x" << s.n << "xf32>\n"
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %e = tensor.empty() : tensor<" << s.m << "x" << s.n << "xf32>\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<" << s.m << "x"
     << s.n << "xf32>) -> tensor<" << s.m << "x" << s.n << "xf32>\n"
     << "  %r = linalg.matmul ins(%a, %w : tensor<" << s.m << "x" << s.k
     << "xf32>, tensor<" << s.k << "x" << s.n << "xf32>) outs(%init : tensor<"
     << s.m << "x" << s.n << "xf32>) -> tensor<" << s.m << "x" << s.n
     << "xf32>\n  return %r : tensor<" << s.m << "x" << s.n << "xf32>\n}\n";
  return os.str();
}

/// The f32 convolution of FHWC weights `w` with zero padding, as a module:
/// what a model keeps in float.
std::string floatConvSource(const ConvShape &c, const std::vector<float> &w) {
  auto type = [](ArrayRef<int64_t> shape) {
    std::string text = "tensor<";
    for (int64_t dim : shape)
      text += std::to_string(dim) + "x";
    return text + "f32>";
  };
  const int64_t padded = c.size + 2 * c.pad, out = c.outputSize();
  const std::string input = type({1, c.size, c.size, c.channels}),
                    pad = type({1, padded, padded, c.channels}),
                    filter = type(c.filterShape()),
                    result = type({1, out, out, c.filters});
  std::ostringstream os;
  os << "func.func @conv(%x: " << input << ") -> " << result << " {\n"
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %p = tensor.pad %x low[0, " << c.pad << ", " << c.pad
     << ", 0] high[0, " << c.pad << ", " << c.pad << ", 0] {\n"
     << "  ^bb0(%i: index, %j: index, %k: index, %l: index):\n"
     << "    tensor.yield %zero : f32\n  } : " << input << " to " << pad << "\n"
     << "  %w = arith.constant dense<\"0x"
     << hexBytes(w.data(), w.size() * sizeof(float)) << "\"> : " << filter
     << "\n"
     << "  %e = tensor.empty() : " << result << "\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%e : " << result << ") -> "
     << result << "\n"
     << "  %c = " << c.opText() << "ins(%p, %w : " << pad << ", " << filter
     << ") outs(%init : " << result << ") -> " << result
     << "\n  return %c : " << result << "\n}\n";
  return os.str();
}

/// The quantized convolution as a float chain between dq/q pairs, as
/// quanta-freeze-qparams leaves it: u8 input of `inputStorage` (scale
/// 0.05), s8 weights (c.filterShape(), per-filter scales 8192 *
/// `channelScales`, so
/// that the float constants quantize back to `weights`), u8 output (scale
/// 409.6): filter f requantizes by channelScales[f], as in the GEMMs.
std::string convSource(const ConvShape &c, const std::vector<int8_t> &weights,
                       ArrayRef<float> channelScales, StringRef inputStorage,
                       int32_t outputZero) {
  std::vector<float> scaled(weights.size());
  for (size_t i = 0; i < weights.size(); ++i)
    scaled[i] = weights[i] * (channelScales[c.filterOf(i)] * 8192.0f);
  std::string scales;
  for (int64_t f = 0; f < c.filters; ++f) {
    char text[32];
    std::snprintf(text, sizeof(text), "%s%.9g", f ? ", " : "",
                  channelScales[f] * 8192.0f);
    scales += text;
  }
  auto type = [](ArrayRef<int64_t> shape, StringRef element) {
    std::string text = "tensor<";
    for (int64_t dim : shape)
      text += std::to_string(dim) + "x";
    return text + element.str() + ">";
  };
  const int64_t padded = c.size + 2 * c.pad, out = c.outputSize();
  const std::string input = type({1, c.size, c.size, c.channels}, "f32"),
                    inputQ = type({1, c.size, c.size, c.channels}, "!in"),
                    inputI8 = type({1, c.size, c.size, c.channels}, "i8"),
                    pad = type({1, padded, padded, c.channels}, "f32"),
                    padQ = type({1, padded, padded, c.channels}, "!in"),
                    filter = type(c.filterShape(), "f32"),
                    filterQ = type(c.filterShape(), "!w"),
                    result = type({1, out, out, c.filters}, "f32"),
                    resultQ = type({1, out, out, c.filters}, "!out"),
                    resultI8 = type({1, out, out, c.filters}, "i8");
  std::ostringstream os;
  os << "!in = !quant.uniform<" << inputStorage.str() << ":f32, 0.05>\n"
     << "!w = !quant.uniform<i8:f32:" << (c.depthwise ? 2 : 0) << ", {"
     << scales << "}>\n"
     << "!out = !quant.uniform<u8:f32, 409.6:" << outputZero << ">\n"
     << "func.func @conv(%a: " << inputI8 << ") -> " << resultI8 << " {\n"
     << "  %aq = quant.scast %a : " << inputI8 << " to " << inputQ << "\n"
     << "  %x = quant.dcast %aq : " << inputQ << " to " << input << "\n"
     << "  %zero = arith.constant 0.0 : f32\n"
     << "  %p = tensor.pad %x low[0, " << c.pad << ", " << c.pad
     << ", 0] high[0, " << c.pad << ", " << c.pad << ", 0] {\n"
     << "  ^bb0(%i: index, %j: index, %k: index, %l: index):\n"
     << "    tensor.yield %zero : f32\n  } : " << input << " to " << pad << "\n"
     << "  %pq = quant.qcast %p : " << pad << " to " << padQ << "\n"
     << "  %pd = quant.dcast %pq : " << padQ << " to " << pad << "\n"
     << "  %wf = arith.constant dense<\"0x"
     << hexBytes(scaled.data(), scaled.size() * sizeof(float))
     << "\"> : " << filter << "\n"
     << "  %wq = quant.qcast %wf : " << filter << " to " << filterQ << "\n"
     << "  %w = quant.dcast %wq : " << filterQ << " to " << filter << "\n"
     << "  %e = tensor.empty() : " << result << "\n"
     << "  %init = linalg.fill ins(%zero : f32) outs(%e : " << result << ") -> "
     << result << "\n"
     << "  %c = " << c.opText() << "ins(%pd, %w : " << pad << ", " << filter
     << ") outs(%init : " << result << ") -> " << result << "\n"
     << "  %y = quant.qcast %c : " << result << " to " << resultQ << "\n"
     << "  %s = quant.scast %y : " << resultQ << " to " << resultI8 << "\n"
     << "  return %s : " << resultI8 << "\n}\n";
  return os.str();
}

/// One row of the table, in GOPS.
struct Row {
  double sevenBit = 0, exact = 0, vnni = 0, onednn = 0, onednnFloat = 0;
  /// Quanta's fp32 lowering on ymm (avx2) and zmm (avx512vnni).
  double float256 = 0, float512 = 0;
  int maxDifference = 0;
};

/// A oneDNN primitive with its memories, run on one stream.
struct OneDnnPrimitive {
  dnnl::primitive primitive;
  dnnl::memory src, weights, dst;
  std::string implementation;
  void run(dnnl::stream &stream) {
    primitive.execute(stream, {{DNNL_ARG_SRC, src},
                               {DNNL_ARG_WEIGHTS, weights},
                               {DNNL_ARG_DST, dst}});
    stream.wait();
  }
};

/// Requantization to u8 for an integer destination, one scale per output
/// channel (dimension 1 of both the matmul's M x N and the conv's NCHW).
dnnl::primitive_attr requantization(dnnl::memory::data_type dstType,
                                    ArrayRef<float> scales,
                                    int32_t outputZero) {
  dnnl::primitive_attr attr;
  if (dstType != dnnl::memory::data_type::f32) {
    attr.set_output_scales(1 << 1, scales.vec());
    attr.set_zero_points(DNNL_ARG_DST, 0, {outputZero});
  }
  return attr;
}

/// `pd`'s primitive with the user's weights reordered once into the layout
/// it wants.
template <typename PrimitiveDesc, typename Primitive>
OneDnnPrimitive makePrimitive(dnnl::engine &engine, dnnl::stream &stream,
                              const PrimitiveDesc &pd,
                              const dnnl::memory::desc &userWeights,
                              void *srcData, void *weightData, void *dstData) {
  OneDnnPrimitive result;
  result.primitive = Primitive(pd);
  result.src = dnnl::memory(pd.src_desc(), engine, srcData);
  dnnl::memory user(userWeights, engine, weightData);
  result.weights = dnnl::memory(pd.weights_desc(), engine);
  dnnl::reorder(user, result.weights).execute(stream, user, result.weights);
  result.dst = dnnl::memory(pd.dst_desc(), engine, dstData);
  result.implementation = pd.impl_info_str();
  stream.wait();
  return result;
}

/// oneDNN's NHWC convolution of `src` by FHWC weights, or with
/// c.depthwise by HWC ones (a grouped convolution, one channel per group).
OneDnnPrimitive makeOneDnnConv(dnnl::engine &engine, dnnl::stream &stream,
                               const ConvShape &c,
                               dnnl::memory::data_type srcType,
                               dnnl::memory::data_type weightType,
                               dnnl::memory::data_type dstType, void *srcData,
                               void *weightData, void *dstData,
                               ArrayRef<float> scales, int32_t outputZero) {
  using tag = dnnl::memory::format_tag;
  const int64_t out = c.outputSize();
  dnnl::memory::desc srcDesc({1, c.channels, c.size, c.size}, srcType,
                             tag::nhwc);
  const dnnl::memory::dims weightDims =
      c.depthwise
          ? dnnl::memory::dims{c.channels, 1, 1, c.kernel, c.kernel}
          : dnnl::memory::dims{c.filters, c.channels, c.kernel, c.kernel};
  dnnl::memory::desc userWeights(weightDims, weightType,
                                 c.depthwise ? tag::hwigo : tag::ohwi);
  dnnl::memory::desc anyWeights(weightDims, weightType, tag::any);
  dnnl::memory::desc dstDesc({1, c.filters, out, out}, dstType, tag::nhwc);
  dnnl::convolution_forward::primitive_desc pd(
      dnnl::convolution_forward::desc(
          dnnl::prop_kind::forward_inference,
          dnnl::algorithm::convolution_direct, srcDesc, anyWeights, dstDesc,
          {c.stride, c.stride}, {c.pad, c.pad}, {c.pad, c.pad}),
      requantization(dstType, scales, outputZero), engine);
  return makePrimitive<decltype(pd), dnnl::convolution_forward>(
      engine, stream, pd, userWeights, srcData, weightData, dstData);
}

/// oneDNN's matmul of `src` (M x K) by weights reordered once into the
/// layout its implementation wants.
OneDnnPrimitive makeOneDnn(dnnl::engine &engine, dnnl::stream &stream,
                           const Shape &s, dnnl::memory::data_type srcType,
                           dnnl::memory::data_type weightType,
                           dnnl::memory::data_type dstType, void *srcData,
                           void *weightData, void *dstData,
                           ArrayRef<float> scales, int32_t outputZero) {
  using tag = dnnl::memory::format_tag;
  dnnl::memory::desc srcDesc({s.m, s.k}, srcType, tag::ab);
  dnnl::memory::desc userWeights({s.k, s.n}, weightType, tag::ab);
  dnnl::memory::desc anyWeights({s.k, s.n}, weightType, tag::any);
  dnnl::memory::desc dstDesc({s.m, s.n}, dstType, tag::ab);
  dnnl::matmul::primitive_desc pd(
      dnnl::matmul::desc(srcDesc, anyWeights, dstDesc),
      requantization(dstType, scales, outputZero), engine);
  return makePrimitive<decltype(pd), dnnl::matmul>(
      engine, stream, pd, userWeights, srcData, weightData, dstData);
}

} // namespace

/// Quanta's fp32 lowering of `source` on ymm (avx2) and zmm (avx512vnni),
/// timed in turns with oneDNN's fp32 primitive `onednn`, into `row`. The
/// inputs are small integers, so Quanta's results must equal oneDNN's
/// (`reference`) wherever the sums stay exact: any relative difference
/// above 1e-6 is printed.
void measureFloat(MLIRContext &context, const std::string &source,
                  std::vector<float> &input, ArrayRef<int64_t> inputShape,
                  ArrayRef<int64_t> outputShape, OneDnnPrimitive &onednn,
                  dnnl::stream &stream, const std::vector<float> &reference,
                  double ops, int repeats, Row &row) {
  const char *isas[] = {"avx2", "avx512vnni"};
  std::vector<float> outputs[2];
  JitFunction functions[2];
  std::vector<std::function<void()>> calls;
  for (auto [isa, function, output] :
       llvm::zip_equal(isas, functions, outputs)) {
    function = compile(context, source,
                       (Twine("quanta-lower-x86{isa=") + isa + "}").str());
    output.resize(reference.size());
    calls.push_back([&, f = &function, out = &output] {
      f->call(input.data(), inputShape, out->data(), outputShape);
    });
  }
  calls.push_back([&] { onednn.run(stream); });
  std::vector<double> times = bestTimes(calls, repeats);
  row.float256 = ops / times[0] * 1e-9;
  row.float512 = ops / times[1] * 1e-9;
  row.onednnFloat = ops / times[2] * 1e-9;
  for (auto [isa, output] : llvm::zip_equal(isas, outputs)) {
    double worst = 0;
    for (size_t i = 0; i < output.size(); ++i)
      worst =
          std::max(worst, std::abs(double(output[i]) - reference[i]) /
                              std::max(1.0, std::abs(double(reference[i]))));
    if (worst > 1e-6)
      std::printf("  Quanta fp32 (%s) differs from oneDNN's by %g "
                  "(relative)\n",
                  isa, worst);
  }
}

int main(int argc, char **argv) {
  // Debian's oneDNN runs on OpenMP, whose runtime reads OMP_NUM_THREADS
  // when it is loaded: to compare one thread with one thread, run again
  // with it set.
  const char *threads = std::getenv("OMP_NUM_THREADS");
  if (!threads || std::string(threads) != "1") {
    setenv("OMP_NUM_THREADS", "1", /*overwrite=*/1);
    // Debian's oneDNN 2.6 picks AMX on CPUs that have it, and its AMX
    // kernels die with SIGILL here (tilezero without a tile configuration,
    // even with the tile state granted by arch_prctl): cap it below AMX
    // unless the caller chose an ISA.
    setenv("DNNL_MAX_CPU_ISA", "AVX512_CORE_BF16", /*overwrite=*/0);
    execv("/proc/self/exe", argv);
    std::perror("quanta-gemm-benchmark: re-executing with OMP_NUM_THREADS=1");
    return 1;
  }
  // --depthwise: the depthwise rows alone.
  const bool onlyDepthwise = argc > 1 && StringRef(argv[1]) == "--depthwise";
  DialectRegistry registry;
  quanta::registerJitDialects(registry);
  MLIRContext context(registry);
  context.loadAllAvailableDialects();
  quanta::registerQuantaPassesAndPipelines();

  dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  dnnl::stream stream(engine);
  const Shape shapes[] = {{1, 1024, 1024}, {16, 1024, 1024}, {64, 1024, 1024},
                          {256, 256, 256}, {512, 512, 512},  {1024, 1024, 1024},
                          {196, 256, 2304}};
  std::printf(
      "one thread; oneDNN %s; GOPS = 2*M*N*K / best time of the "
      "repeats\n",
      std::getenv("DNNL_MAX_CPU_ISA")
          ? (std::string("DNNL_MAX_CPU_ISA=") + std::getenv("DNNL_MAX_CPU_ISA"))
                .c_str()
          : "default ISA");
  const quanta::benchmarks::IsaPeaks peaks =
      quanta::benchmarks::measureIsaPeaks();
  const double peak7 = peaks.maddubs, peakExact = peaks.maddwd,
               peakVnni = peaks.vnni512, peakFloat256 = peaks.fma256,
               peakFloat512 = peaks.fma512;
  std::printf("measured peaks: vpmaddubsw+vpmaddwd+vpaddd %.0f GOPS, "
              "vpmaddwd+vpaddd %.0f GOPS, vpdpbusd (zmm) %.0f GOPS, "
              "fp32 FMA ymm %.0f / zmm %.0f GFLOPS\n",
              peak7, peakExact, peakVnni, peakFloat256, peakFloat512);
  std::printf("%-15s %9s %9s %9s %9s %9s %8s %8s %8s %7s %7s %7s %6s\n",
              "M,N,K", "Q-avx2-7b", "Q-avx2-ex", "Q-vnni", "dnnl-u8",
              "dnnl-f32", "Q-f32y", "Q-f32z", "Q7b/dnnl", "vnni/dn", "7b/f32y",
              "vnni/f32z", "dnnl-err");
  // Per-channel requantization, as per-channel weights give: scales spread
  // over [0.75, 1.25) x 2^-13 (multipliers that are not powers of two), the
  // same float32 values for oneDNN and, through the numeric library's
  // quantizeMultiplier, for Quanta.
  const int32_t zero = 128;
  auto channelScales = [](int64_t channels) {
    std::vector<float> scales(channels);
    for (int64_t c = 0; c < channels; ++c)
      scales[c] =
          (0.75f + 0.5f * static_cast<float>(c * 37 % 101) / 101.0f) / 8192.0f;
    return scales;
  };
  auto quantizedMultipliers = [](ArrayRef<float> scales) {
    SmallVector<quanta::numerics::QuantizedMultiplier> multipliers;
    for (float scale : scales)
      multipliers.push_back(*quanta::numerics::quantizeMultiplier(scale));
    return multipliers;
  };
  auto printRow = [&](const char *label, const Row &r) {
    auto column = [](double value, const char *format) {
      char text[16] = "-";
      if (value > 0)
        std::snprintf(text, sizeof(text), format, value);
      return std::string(text);
    };
    auto ratio = [&](double a, double b) {
      return column(b > 0 ? a / b : 0, "%.2fx");
    };
    std::printf("%-15s %9.1f %9.1f %9.1f %9.1f %9.1f %8s %8s %7.2fx %6.2fx "
                "%7s %7s %6d\n",
                label, r.sevenBit, r.exact, r.vnni, r.onednn, r.onednnFloat,
                column(r.float256, "%.1f").c_str(),
                column(r.float512, "%.1f").c_str(), r.sevenBit / r.onednn,
                r.vnni / r.onednn, ratio(r.sevenBit, r.float256).c_str(),
                ratio(r.vnni, r.float512).c_str(), r.maxDifference);
    std::printf("  peak fraction: avx2-7b %.0f%%, avx2-exact %.0f%%, vnni "
                "%.0f%%",
                100 * r.sevenBit / peak7, 100 * r.exact / peakExact,
                100 * r.vnni / peakVnni);
    if (r.float256 > 0)
      std::printf(", f32 ymm %.0f%%, f32 zmm %.0f%%",
                  100 * r.float256 / peakFloat256,
                  100 * r.float512 / peakFloat512);
    std::printf("\n");
    std::fflush(stdout);
  };
  // Quanta's last run (VNNI, exact) against oneDNN's result, in output
  // steps: 1 is the rounding of ties (half up vs half to even); more is an
  // accumulator error.
  auto maxDifference = [](const std::vector<uint8_t> &a,
                          const std::vector<uint8_t> &b) {
    int result = 0;
    for (size_t i = 0; i < a.size(); ++i)
      result = std::max(result, std::abs(int(a[i]) - int(b[i])));
    return result;
  };
  // The int8 columns of a row: Quanta's kernels compiled from
  // `source(input storage type)` by `passes` + quanta-lower-x86 for each
  // ISA, then oneDNN's `int8` primitive. Quanta's last result (VNNI) stays
  // in `out`.
  auto measureInt8 = [&](function_ref<std::string(StringRef)> source,
                         StringRef passes, ArrayRef<int64_t> inputShape,
                         ArrayRef<int64_t> outputShape,
                         std::vector<uint8_t> &full,
                         std::vector<uint8_t> &seven, OneDnnPrimitive &int8,
                         double ops, int repeats, std::vector<uint8_t> &out,
                         const std::vector<uint8_t> &dnnlOut) {
    auto gops = [&](double seconds) { return ops / seconds * 1e-9; };
    auto compileFor = [&](StringRef storage, StringRef isa) {
      return compile(context, source(storage),
                     (passes + "quanta-lower-x86{isa=" + isa + "}").str());
    };
    JitFunction sevenBit = compileFor("u8<0:127>", "avx2"),
                exact = compileFor("u8", "avx2"),
                vnni = compileFor("u8", "avx512vnni");
    auto call = [&](JitFunction &f, std::vector<uint8_t> &input) {
      return [&] { f.call(input.data(), inputShape, out.data(), outputShape); };
    };
    // VNNI last: its result stays in `out`.
    std::vector<double> times =
        bestTimes({call(sevenBit, seven), call(exact, full), call(vnni, full),
                   [&] { int8.run(stream); }},
                  repeats);
    Row row;
    row.sevenBit = gops(times[0]);
    row.exact = gops(times[1]);
    row.vnni = gops(times[2]);
    row.onednn = gops(times[3]);
    row.maxDifference = maxDifference(out, dnnlOut);
    return row;
  };
  using dt = dnnl::memory::data_type;
  std::mt19937 rng(7);
  auto randomInputs = [&](size_t size, std::vector<uint8_t> &full,
                          std::vector<uint8_t> &seven) {
    full.resize(size);
    seven.resize(size);
    for (size_t i = 0; i < size; ++i) {
      full[i] = static_cast<uint8_t>(rng());
      seven[i] = full[i] & 0x7f;
    }
  };
  auto randomWeights = [&](size_t size) {
    std::vector<int8_t> weights(size);
    for (int8_t &w : weights)
      w = static_cast<int8_t>(static_cast<int>(rng() % 256) - 128);
    return weights;
  };

  for (const Shape &s : onlyDepthwise ? ArrayRef<Shape>() : shapes) {
    const double ops = 2.0 * s.m * s.n * s.k;
    const int repeats = ops > 1e9 ? 4 : 20;
    std::vector<int8_t> weights = randomWeights(s.k * s.n);
    std::vector<uint8_t> full, seven;
    randomInputs(s.m * s.k, full, seven);
    std::vector<uint8_t> out(s.m * s.n), dnnlOut(s.m * s.n);

    const std::vector<float> scales = channelScales(s.n);
    OneDnnPrimitive int8 =
        makeOneDnn(engine, stream, s, dt::u8, dt::s8, dt::u8, full.data(),
                   weights.data(), dnnlOut.data(), scales, zero);
    Row row = measureInt8(
        [&](StringRef storage) {
          return qmatmulSource(s, weights, storage,
                               quantizedMultipliers(scales), zero);
        },
        "", {s.m, s.k}, {s.m, s.n}, full, seven, int8, ops, repeats, out,
        dnnlOut);

    std::vector<float> a32(full.begin(), full.end()),
        w32(weights.begin(), weights.end());
    std::vector<float> c32(s.m * s.n);
    OneDnnPrimitive fp32 =
        makeOneDnn(engine, stream, s, dt::f32, dt::f32, dt::f32, a32.data(),
                   w32.data(), c32.data(), {}, 0);
    measureFloat(context, floatMatmulSource(s, w32), a32, {s.m, s.k},
                 {s.m, s.n}, fp32, stream, c32, ops, repeats, row);
    char label[32];
    std::snprintf(label, sizeof(label), "%lld,%lld,%lld", (long long)s.m,
                  (long long)s.n, (long long)s.k);
    printRow(label, row);
    if (&s == &shapes[0])
      std::printf("  (oneDNN u8 implementation: %s)\n",
                  int8.implementation.c_str());
  }

  // ResNet-50's 3x3 convolutions of stages 2-5 and a 1x1 expansion, batch
  // 1. Quanta's time includes the padding.
  // Then MobileNetV2's depthwise 3x3 convolutions (every distinct input
  // size, channel count and stride) and two 5x5 ones of MobileNetV3's
  // shapes, batch 1.
  auto depthwise = [](int64_t size, int64_t channels, int64_t kernel,
                      int64_t stride) {
    return ConvShape{size,       channels, channels, kernel,
                     kernel / 2, stride,   true};
  };
  const ConvShape convs[] = {{56, 64, 64, 3, 1},       {28, 128, 128, 3, 1},
                             {14, 256, 256, 3, 1},     {7, 512, 512, 3, 1},
                             {56, 64, 256, 1, 0},      depthwise(112, 32, 3, 1),
                             depthwise(112, 96, 3, 2), depthwise(56, 144, 3, 1),
                             depthwise(56, 144, 3, 2), depthwise(28, 192, 3, 1),
                             depthwise(28, 192, 3, 2), depthwise(14, 384, 3, 1),
                             depthwise(14, 576, 3, 1), depthwise(14, 576, 3, 2),
                             depthwise(7, 960, 3, 1),  depthwise(28, 120, 5, 1),
                             depthwise(14, 672, 5, 2)};
  std::printf("conv HxWxC,F,KxK (NHWC, stride 1; dw: depthwise, s2: stride "
              "2): GOPS of the equivalent GEMM, same columns\n");
  for (const ConvShape &c : convs) {
    if (onlyDepthwise && !c.depthwise)
      continue;
    const Shape g = c.gemm();
    const double ops = 2.0 * g.m * g.n * g.k;
    const int repeats = 15;
    std::vector<int8_t> weights = randomWeights(g.k * g.n); // filterShape
    std::vector<float> w32(weights.begin(), weights.end());
    std::vector<uint8_t> full, seven;
    randomInputs(c.size * c.size * c.channels, full, seven);
    std::vector<uint8_t> out(g.m * g.n), dnnlOut(g.m * g.n);
    const SmallVector<int64_t> inputShape{1, c.size, c.size, c.channels},
        outputShape{1, c.outputSize(), c.outputSize(), c.filters};
    const std::vector<float> scales = channelScales(c.filters);
    OneDnnPrimitive int8 =
        makeOneDnnConv(engine, stream, c, dt::u8, dt::s8, dt::u8, full.data(),
                       weights.data(), dnnlOut.data(), scales, zero);
    Row row = measureInt8(
        [&](StringRef storage) {
          return convSource(c, weights, scales, storage, zero);
        },
        "quanta-quantize,", inputShape, outputShape, full, seven, int8, ops,
        repeats, out, dnnlOut);
    std::vector<float> a32(full.begin(), full.end()), c32(g.m * g.n);
    OneDnnPrimitive fp32 =
        makeOneDnnConv(engine, stream, c, dt::f32, dt::f32, dt::f32, a32.data(),
                       w32.data(), c32.data(), {}, 0);
    measureFloat(context, floatConvSource(c, w32), a32, inputShape, outputShape,
                 fp32, stream, c32, ops, repeats, row);
    char label[48];
    std::snprintf(label, sizeof(label), "%lldx%lldx%lld,%lld,%lldx%lld%s%s",
                  (long long)c.size, (long long)c.size, (long long)c.channels,
                  (long long)c.filters, (long long)c.kernel,
                  (long long)c.kernel, c.depthwise ? "dw" : "",
                  c.stride == 2 ? "s2" : "");
    printRow(label, row);
    if (&c == &convs[0] || (c.depthwise && !convs[&c - convs - 1].depthwise))
      std::printf("  (oneDNN u8 implementation: %s)\n",
                  int8.implementation.c_str());
  }
  return 0;
}

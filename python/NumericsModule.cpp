//===- NumericsModule.cpp - Python binding of the numeric library ---------===//
//
// Exposes QuantaNumerics (PyTorch-exact qparams, observers, fake quant) to
// Python, so scripts, benchmarks and the future Python front end call the
// very code the compiler passes call. Tensors are passed through the buffer
// protocol (numpy arrays, array.array('f'), memoryviews): float32,
// C-contiguous. Errors from the library become ValueError.
//
//===----------------------------------------------------------------------===//

#include "quanta/Numerics/Dynamic.h"
#include "quanta/Numerics/FakeQuant.h"
#include "quanta/Numerics/Histogram.h"
#include "quanta/Numerics/Observers.h"
#include "quanta/Numerics/OneFlow.h"
#include "quanta/Numerics/OutputComparison.h"
#include "quanta/Numerics/QParams.h"
#include "quanta/Runtime/ObserverState.h"

#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <limits>
#include <string>
#include <variant>

namespace py = pybind11;
namespace numerics = mlir::quanta::numerics;
namespace runtime = mlir::quanta::runtime;
using namespace numerics;

namespace {

void check(const Status &status) {
  if (!status.ok())
    throw py::value_error(status.getMessage());
}

template <typename T> T check(StatusOr<T> result) {
  check(result.ok() ? Status::success() : result.getStatus());
  return std::move(*result);
}

/// A float32, C-contiguous view of a Python buffer with its shape.
struct FloatTensor {
  py::buffer_info info;
  const float *data() const { return static_cast<const float *>(info.ptr); }
  size_t size() const { return static_cast<size_t>(info.size); }
  std::vector<int64_t> shape() const {
    return std::vector<int64_t>(info.shape.begin(), info.shape.end());
  }
};

FloatTensor asFloatTensor(const py::buffer &buffer) {
  py::buffer_info info = buffer.request();
  if (info.format != py::format_descriptor<float>::format() ||
      info.itemsize != sizeof(float))
    throw py::type_error("expected a float32 buffer, got format '" +
                         info.format + "'");
  ssize_t expectedStride = sizeof(float);
  for (ssize_t dim = info.ndim - 1; dim >= 0; --dim) {
    if (info.shape[dim] > 1 && info.strides[dim] != expectedStride)
      throw py::type_error("expected a C-contiguous buffer");
    expectedStride *= info.shape[dim];
  }
  return FloatTensor{std::move(info)};
}

template <typename T>
T parseEnum(std::optional<T> value, const char *what, const std::string &name) {
  if (!value)
    throw py::value_error(std::string("unknown ") + what + " '" + name + "'");
  return *value;
}

ObserverKind parseKind(const std::string &name) {
  for (ObserverKind kind :
       {ObserverKind::MinMax, ObserverKind::MovingAverageMinMax,
        ObserverKind::PerChannelMinMax,
        ObserverKind::MovingAveragePerChannelMinMax, ObserverKind::Histogram})
    if (toString(kind) == name)
      return kind;
  throw py::value_error("unknown observer '" + name + "'");
}

UniformObserverOptions makeOptions(const std::string &dtype,
                                   const std::string &qscheme, bool reduceRange,
                                   std::optional<int64_t> quantMin,
                                   std::optional<int64_t> quantMax, float eps) {
  UniformObserverOptions options;
  options.dtype = parseEnum(parseDType(dtype), "dtype", dtype);
  options.qscheme = parseEnum(parseQScheme(qscheme), "qscheme", qscheme);
  options.reduceRange = reduceRange;
  options.quantMin = quantMin;
  options.quantMax = quantMax;
  options.eps = eps;
  return options;
}

/// (scale, zero_point) as PyTorch returns them; zero points are floats for
/// per_channel_affine_float_qparams.
py::tuple toPython(const QParams &qparams) {
  if (!qparams.floatZeroPoint.empty())
    return py::make_tuple(qparams.scale, qparams.floatZeroPoint);
  return py::make_tuple(qparams.scale, qparams.zeroPoint);
}

/// One of PyTorch's uniform observers with its running state.
class Observer {
public:
  explicit Observer(const runtime::ObserverConfig &config)
      : state(check(runtime::ObserverState::create(config))) {}

  /// PyTorch's forward(): updates the statistics.
  void forward(const py::buffer &buffer) {
    FloatTensor x = asFloatTensor(buffer);
    std::vector<int64_t> shape = x.shape();
    Status status = Status::success();
    {
      py::gil_scoped_release release;
      status = state.observe(x.data(), shape);
    }
    check(status);
  }

  py::tuple calculateQParams() const {
    return toPython(check(state.calculateQParams()));
  }

  py::tuple minMax() const {
    return std::visit(
        [](const auto &stats) { return py::make_tuple(stats.min, stats.max); },
        state.getStatistics());
  }

  std::vector<float> getHistogram() const {
    if (auto *stats = std::get_if<HistogramStats>(&state.getStatistics()))
      return stats->histogram;
    throw py::attribute_error("only HistogramObserver has a histogram");
  }

private:
  runtime::ObserverState state;
};

/// FakeQuantize or FusedMovingAvgObsFakeQuantize with its buffers.
class FakeQuantizeModule {
public:
  using Module = std::variant<FakeQuantize, FusedMovingAvgObsFakeQuantize>;

  /// The module PyTorch's constructor builds; ValueError where it raises
  /// (and for Quanta's rules, the same as the IR verifier's).
  static Module create(bool fused, const FakeQuantizeOptions &options) {
    if (fused)
      return check(FusedMovingAvgObsFakeQuantize::create(options));
    return check(FakeQuantize::create(options));
  }

  explicit FakeQuantizeModule(Module module) : module(std::move(module)) {}

  /// forward(x): observes (when enabled), refreshes the qparams and
  /// fake-quantizes (when enabled) into a new float32 list of x's size.
  std::vector<float> forward(const py::buffer &buffer) {
    FloatTensor x = asFloatTensor(buffer);
    std::vector<float> output(x.size());
    std::vector<int64_t> shape = x.shape();
    check(std::visit(
        [&](auto &m) { return m.forward(x.data(), output.data(), shape); },
        module));
    return output;
  }

  FakeQuantizeBase &base() {
    return std::visit([](auto &m) -> FakeQuantizeBase & { return m; }, module);
  }

  py::tuple qparams() { return toPython(base().getQParams()); }

  std::vector<float> getHistogram() {
    if (base().getOptions().observer != ObserverKind::Histogram)
      throw py::attribute_error("only a HistogramObserver has a histogram");
    return base().getHistogramStats().histogram;
  }

  py::tuple minMax() {
    if (base().isPerChannel())
      return py::make_tuple(base().getPerChannelStats().min,
                            base().getPerChannelStats().max);
    return py::make_tuple(base().getStats().min, base().getStats().max);
  }

private:
  Module module;
};

} // namespace

PYBIND11_MODULE(_quanta_numerics, m) {
  m.doc() = "PyTorch-1.13-exact quantization numerics of Quanta";
  constexpr float defaultEps = std::numeric_limits<float>::epsilon();

  m.def(
      "validate_observer",
      [](const std::string &kind, const std::string &dtype,
         const std::string &qscheme, bool reduceRange,
         std::optional<int64_t> quantMin, std::optional<int64_t> quantMax,
         float eps) {
        check(validateObserverOptions(
            parseKind(kind),
            makeOptions(dtype, qscheme, reduceRange, quantMin, quantMax, eps)));
      },
      py::arg("kind"), py::arg("dtype") = "quint8",
      py::arg("qscheme") = "per_tensor_affine", py::arg("reduce_range") = false,
      py::arg("quant_min") = py::none(), py::arg("quant_max") = py::none(),
      py::arg("eps") = defaultEps,
      "Raises ValueError where PyTorch's observer constructor would fail "
      "(and for Quanta's extra rules).");

  m.def(
      "qrange",
      [](const std::string &dtype, bool reduceRange,
         std::optional<int64_t> quantMin, std::optional<int64_t> quantMax) {
        QRange range =
            computeQRange(makeOptions(dtype, "per_tensor_affine", reduceRange,
                                      quantMin, quantMax, defaultEps));
        return py::make_tuple(range.quantMin, range.quantMax);
      },
      py::arg("dtype") = "quint8", py::arg("reduce_range") = false,
      py::arg("quant_min") = py::none(), py::arg("quant_max") = py::none(),
      "PyTorch's calculate_qmin_qmax.");

  m.def(
      "calculate_qparams",
      [](const std::vector<float> &minVals, const std::vector<float> &maxVals,
         const std::string &dtype, const std::string &qscheme, bool reduceRange,
         std::optional<int64_t> quantMin, std::optional<int64_t> quantMax,
         float eps) {
        return toPython(check(numerics::calculateQParams(
            makeOptions(dtype, qscheme, reduceRange, quantMin, quantMax, eps),
            minVals, maxVals)));
      },
      py::arg("min_vals"), py::arg("max_vals"), py::arg("dtype") = "quint8",
      py::arg("qscheme") = "per_tensor_affine", py::arg("reduce_range") = false,
      py::arg("quant_min") = py::none(), py::arg("quant_max") = py::none(),
      py::arg("eps") = defaultEps,
      "UniformQuantizationObserverBase._calculate_qparams: (scales, "
      "zero_points) for one min/max per tensor or per channel.");

  m.def(
      "compare_outputs",
      [](const py::buffer &reference, const py::buffer &approximation,
         int64_t rowLength) {
        FloatTensor ref = asFloatTensor(reference),
                    approx = asFloatTensor(approximation);
        if (ref.size() != approx.size())
          throw py::value_error(
              "compare_outputs: " + std::to_string(ref.size()) + " and " +
              std::to_string(approx.size()) + " values differ in number");
        if (rowLength <= 0 || ref.size() % static_cast<size_t>(rowLength))
          throw py::value_error("compare_outputs: rows of " +
                                std::to_string(rowLength) + " do not tile " +
                                std::to_string(ref.size()) + " values");
        OutputComparison comparison;
        comparison.add(ref.data(), approx.data(), ref.size(), rowLength);
        return py::dict(py::arg("sqnr_db") = comparison.getSqnrDb(),
                        py::arg("max_error") = comparison.getMaxAbsError(),
                        py::arg("top1_agreement") =
                            comparison.getTop1Agreement(),
                        py::arg("rows") = comparison.getRows());
      },
      py::arg("reference"), py::arg("approximation"), py::arg("row_length") = 1,
      "The comparison of the quanta driver's check (numerics::"
      "OutputComparison) on float32 buffers: sqnr_db, max_error, "
      "top1_agreement of rows of row_length values, rows.");

  m.def(
      "dynamic_linear",
      [](const py::buffer &input, const py::buffer &weight,
         std::optional<py::buffer> bias, const std::string &engine,
         bool perChannel) {
        FloatTensor x = asFloatTensor(input), w = asFloatTensor(weight);
        if (x.info.ndim < 2 || w.info.ndim != 2 ||
            x.info.shape.back() != w.info.shape[1])
          throw py::value_error(
              "expected an input [..., K] of rank >= 2 (as PyTorch) and "
              "weights [N, K]");
        const int64_t n = w.info.shape[0], k = w.info.shape[1];
        std::optional<FloatTensor> b;
        if (bias) {
          b = asFloatTensor(*bias);
          if (b->size() != static_cast<size_t>(n))
            throw py::value_error("expected a bias of " + std::to_string(n) +
                                  " values, got " + std::to_string(b->size()));
        }
        DynamicEngine parsed;
        if (engine == "onednn")
          parsed = DynamicEngine::Onednn;
        else if (engine == "qnnpack")
          parsed = DynamicEngine::Qnnpack;
        else if (engine == "onnx")
          parsed = DynamicEngine::Onnx;
        else
          throw py::value_error("unknown engine '" + engine +
                                "' (onednn, qnnpack or onnx)");
        DynamicWeights quantized =
            check(quantizeDynamicWeights(w.data(), n, k, perChannel));
        // The leading dimensions, as PyTorch flattens them (K may be 0).
        int64_t m = 1;
        for (ssize_t dim = 0; dim + 1 < x.info.ndim; ++dim)
          m *= x.info.shape[dim];
        std::vector<float> output(static_cast<size_t>(m * n));
        check(dynamicLinear(parsed, x.data(), m, k, quantized, n,
                            b ? b->data() : nullptr, output.data()));
        return output;
      },
      py::arg("input"), py::arg("weight"), py::arg("bias") = py::none(),
      py::arg("engine") = "onednn", py::arg("per_channel") = false,
      "torch.ao.nn.quantized.dynamic.Linear's output (quantize_dynamic with "
      "default_dynamic_qconfig, or per_channel_dynamic_qconfig) on PyTorch's "
      "onednn or qnnpack engine (or, engine='onnx', with ONNX Runtime's "
      "activation qparams, quantization and output), flattened.");

  m.def(
      "quantize_int8_groups",
      [](const py::buffer &input, int64_t group) {
        FloatTensor x = asFloatTensor(input);
        if (x.info.ndim < 1 || group <= 0 || x.info.shape.back() % group != 0)
          throw py::value_error(
              "expected an input [..., K] whose K the group size " +
              std::to_string(group) + " divides");
        const size_t groups = x.size() / static_cast<size_t>(group);
        std::vector<int8_t> values(x.size());
        std::vector<float> scales(groups);
        for (size_t g = 0; g < groups; ++g)
          scales[g] = quantizeInt8Group(x.data() + g * group, group,
                                        values.data() + g * group);
        return py::make_tuple(values, scales);
      },
      py::arg("input"), py::arg("group"),
      "int4_dynamic's activations (numerics::quantizeInt8Group): each run "
      "of `group` values of the last dimension to s8, symmetric; (values, "
      "scales), flattened.");

  m.def(
      "fake_quantize_per_tensor_affine",
      [](const py::buffer &input, float scale, int64_t zeroPoint,
         int64_t quantMin, int64_t quantMax) {
        FloatTensor x = asFloatTensor(input);
        std::vector<float> output(x.size());
        check(fakeQuantizePerTensorAffine(x.data(), output.data(), x.size(),
                                          scale, zeroPoint, quantMin,
                                          quantMax));
        return output;
      },
      py::arg("input"), py::arg("scale"), py::arg("zero_point"),
      py::arg("quant_min"), py::arg("quant_max"),
      "torch.fake_quantize_per_tensor_affine, flattened.");

  py::class_<Observer>(m, "Observer")
      .def(py::init([](const std::string &kind, const std::string &dtype,
                       const std::string &qscheme, bool reduceRange,
                       std::optional<int64_t> quantMin,
                       std::optional<int64_t> quantMax, float eps,
                       double averagingConstant, int64_t chAxis, int64_t bins,
                       int64_t upsampleRate, bool exactHistcRange,
                       const std::string &calibration, double percentile) {
             runtime::ObserverConfig config;
             config.kind = parseKind(kind);
             config.histogram.uniform = makeOptions(dtype, qscheme, reduceRange,
                                                    quantMin, quantMax, eps);
             config.histogram.bins = bins;
             config.histogram.upsampleRate = upsampleRate;
             config.histogram.exactHistcRange = exactHistcRange;
             config.averagingConstant = averagingConstant;
             config.chAxis = chAxis;
             config.calibration.method =
                 parseEnum(numerics::parseHistogramCalibration(calibration),
                           "calibration method", calibration);
             config.calibration.percentile = percentile;
             return Observer(config);
           }),
           py::arg("kind"), py::arg("dtype") = "quint8",
           py::arg("qscheme") = "per_tensor_affine",
           py::arg("reduce_range") = false, py::arg("quant_min") = py::none(),
           py::arg("quant_max") = py::none(), py::arg("eps") = defaultEps,
           py::arg("averaging_constant") = 0.01, py::arg("ch_axis") = 0,
           py::arg("bins") = 2048, py::arg("upsample_rate") = 128,
           py::arg("exact_histc_range") = false,
           py::arg("calibration") = "pytorch", py::arg("percentile") = 99.99)
      .def("forward", &Observer::forward, py::arg("x"))
      .def("calculate_qparams", &Observer::calculateQParams)
      .def_property_readonly("min_max", &Observer::minMax)
      .def_property_readonly("histogram", &Observer::getHistogram);

  py::class_<FakeQuantizeModule>(m, "FakeQuantizeModule")
      .def(py::init([](bool fused, const std::string &observer,
                       const std::string &dtype, const std::string &qscheme,
                       bool reduceRange, std::optional<int64_t> quantMin,
                       std::optional<int64_t> quantMax, float eps,
                       double averagingConstant, int64_t chAxis, int64_t bins,
                       int64_t upsampleRate, bool exactHistcRange) {
             FakeQuantizeOptions options;
             options.observer = parseKind(observer);
             options.observerOptions = makeOptions(dtype, qscheme, reduceRange,
                                                   quantMin, quantMax, eps);
             options.averagingConstant = averagingConstant;
             options.chAxis = chAxis;
             options.bins = bins;
             options.upsampleRate = upsampleRate;
             options.exactHistcRange = exactHistcRange;
             return FakeQuantizeModule(
                 FakeQuantizeModule::create(fused, options));
           }),
           py::arg("fused"), py::arg("observer"), py::arg("dtype") = "quint8",
           py::arg("qscheme") = "per_tensor_affine",
           py::arg("reduce_range") = false, py::arg("quant_min") = py::none(),
           py::arg("quant_max") = py::none(), py::arg("eps") = defaultEps,
           py::arg("averaging_constant") = 0.01, py::arg("ch_axis") = 0,
           py::arg("bins") = 2048, py::arg("upsample_rate") = 128,
           py::arg("exact_histc_range") = false)
      .def("forward", &FakeQuantizeModule::forward, py::arg("x"))
      .def(
          "enable_fake_quant",
          [](FakeQuantizeModule &self, bool enabled) {
            self.base().enableFakeQuant(enabled);
          },
          py::arg("enabled") = true)
      .def(
          "enable_observer",
          [](FakeQuantizeModule &self, bool enabled) {
            self.base().enableObserver(enabled);
          },
          py::arg("enabled") = true)
      .def_property_readonly("qparams", &FakeQuantizeModule::qparams)
      .def_property_readonly("min_max", &FakeQuantizeModule::minMax)
      .def_property_readonly("histogram", &FakeQuantizeModule::getHistogram)
      .def_property_readonly("quant_range", [](FakeQuantizeModule &self) {
        QRange range = self.base().getQRange();
        return py::make_tuple(range.quantMin, range.quantMax);
      });

  m.def(
      "validate_fixed_qparams",
      [](float scale, int64_t zeroPoint, const std::string &qscheme,
         int64_t quantMin, int64_t quantMax) {
        check(validateFixedQParams(
            scale, zeroPoint,
            parseEnum(parseQScheme(qscheme), "qscheme", qscheme), quantMin,
            quantMax));
      },
      py::arg("scale"), py::arg("zero_point"),
      py::arg("qscheme") = "per_tensor_affine", py::arg("quant_min") = 0,
      py::arg("quant_max") = 255,
      "FixedQParamsObserver's rules, as the IR verifier applies them.");

  m.def(
      "oneflow_min_max_observer",
      [](const py::buffer &input, const std::string &formula, int64_t bits,
         const std::string &scheme, bool perLayer) {
        OneFlowMinMaxObserverOptions options{formula, bits, scheme, perLayer};
        check(validateOneFlowOptions(options));
        FloatTensor x = asFloatTensor(input);
        std::vector<int64_t> shape = x.shape();
        OneFlowQParams qparams =
            check(computeOneFlowMinMaxQParams(options, x.data(), shape));
        return py::make_tuple(qparams.scale, qparams.zeroPoint);
      },
      py::arg("input"), py::arg("quantization_formula") = "google",
      py::arg("quantization_bit") = 8,
      py::arg("quantization_scheme") = "symmetric",
      py::arg("per_layer_quantization") = true,
      "oneflow.nn.MinMaxObserver's forward: (scales, zero points).");
}

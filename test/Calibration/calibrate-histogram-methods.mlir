// The range choices of TensorRT/TVM/TensorFlow over a HistogramObserver's
// histogram (entropy, percentile, mse) give, through JIT calibration and the
// IR, the qparams the Python binding computes directly on the same batches.
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/x1.npy,%S/Inputs/calibrate/x2.npy,%S/Inputs/calibrate/x3.npy,%S/Inputs/calibrate/x4.npy quiet' \
// RUN:   --quanta-report-qparams=output=%t.jit -o /dev/null
// RUN: %python %S/Inputs/histogram_methods.py %S/Inputs/calibrate > %t.binding
// RUN: diff %t.jit %t.binding
// RUN: FileCheck %s --input-file=%t.jit

// The four methods choose different ranges on this data.
// CHECK: pytorch: HistogramObserver scale=[0.090053305] zero_point=[152]
// CHECK-NEXT: entropy: HistogramObserver scale=[0.0926894993] zero_point=[146]
// CHECK-NEXT: percentile: HistogramObserver scale=[0.0874363929] zero_point=[139]
// CHECK-NEXT: mse: HistogramObserver scale=[0.0934399366] zero_point=[146]

func.func @model(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {name = "pytorch", observer = #quanta.histogram<bins = 256>} : tensor<4x16xf32>
  %1 = quanta.observe %0 {name = "entropy", observer = #quanta.histogram<bins = 256, calibration = entropy>} : tensor<4x16xf32>
  %2 = quanta.observe %1 {name = "percentile", observer = #quanta.histogram<bins = 256, calibration = percentile, percentile = 99.0>} : tensor<4x16xf32>
  %3 = quanta.observe %2 {name = "mse", observer = #quanta.histogram<bins = 256, calibration = mse>} : tensor<4x16xf32>
  return %3 : tensor<4x16xf32>
}

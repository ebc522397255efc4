// quanta-report-qparams format=json: per observer its qparams, quantized
// range, channel axis and the statistics' min/max, for programs
// (quanta.report).
// RUN: quant-opt %s --quanta-report-qparams='format=json' -o /dev/null | FileCheck %s
// RUN: not quant-opt %s --quanta-report-qparams='format=xml' -o /dev/null 2>&1 | FileCheck %s --check-prefix=FORMAT

// CHECK: "observers": [
// CHECK:     "max": [
// CHECK-NEXT:  2
// CHECK:     "min": [
// CHECK-NEXT:  -1
// CHECK:     "name": "act",
// CHECK-NEXT: "observer": "MinMaxObserver",
// CHECK-NEXT: "quant_max": 127,
// CHECK-NEXT: "quant_min": 0,
// CHECK-NEXT: "scale": [
// CHECK-NEXT:   0.0236220
// CHECK:     "zero_point": [
// CHECK-NEXT:   42
// CHECK:     "axis": 0,
// CHECK:     "max": [
// CHECK-NEXT:  1,
// CHECK-NEXT:  4
// CHECK:     "name": "weight",
// CHECK-NEXT: "observer": "PerChannelMinMaxObserver",
// CHECK-NEXT: "quant_max": 127,
// CHECK-NEXT: "quant_min": -128,

// FORMAT: for the --format option: Cannot find option named 'xml'!

func.func @f(%x: tensor<4xf32>, %w: tensor<2x3xf32>) -> (tensor<4xf32>, tensor<2x3xf32>) {
  %0 = quanta.observe %x {name = "act", observer = #quanta.min_max<reduce_range = true>, stats = #quanta.min_max_stats<min = [-1.0], max = [2.0], num_batches = 1>} : tensor<4xf32>
  %1 = quanta.observe %w {name = "weight", observer = #quanta.per_channel_min_max<dtype = qint8, qscheme = per_channel_symmetric>, stats = #quanta.min_max_stats<min = [-1.0, -2.0], max = [1.0, 4.0], num_batches = 1>} : tensor<2x3xf32>
  return %0, %1 : tensor<4xf32>, tensor<2x3xf32>
}

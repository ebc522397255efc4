// An observed tensor with no elements leaves the statistics as they were,
// as PyTorch's forward() does (not "NaN or an infinity"); never updated,
// they give calculate_qparams' default qparams (scale 1.0, zero point 0).
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/empty_0x8.npy quiet' --quanta-report-qparams -o /dev/null | FileCheck %s
// CHECK: empty: MinMaxObserver scale=[1] zero_point=[0]

func.func @model(%x: tensor<0x8xf32>) -> tensor<0x8xf32> {
  %0 = quanta.observe %x {name = "empty", observer = #quanta.min_max<>} : tensor<0x8xf32>
  return %0 : tensor<0x8xf32>
}

// Calibration streams its batches: the peak memory of 400 batches is that
// of 4 (each batch is read, run and dropped; observers keep statistics,
// not tensors).
// AddressSanitizer's quarantine keeps freed batches (up to 256 MiB) by design.
// UNSUPPORTED: sanitized
// RUN: %python %S/Inputs/peak_rss.py %t 4 400 quant-opt %s --quanta-calibrate='data={data} quiet' -o /dev/null | FileCheck %s
// CHECK: peak RSS of 400 batches within 8 MiB of 4 batches

func.func @model(%x: tensor<64x256xf32>) -> tensor<64x256xf32> {
  %0 = quanta.observe %x {name = "x", observer = #quanta.histogram<>} : tensor<64x256xf32>
  %1 = quanta.observe %0 {name = "y", observer = #quanta.moving_average_per_channel_min_max<ch_axis = 1>} : tensor<64x256xf32>
  return %1 : tensor<64x256xf32>
}

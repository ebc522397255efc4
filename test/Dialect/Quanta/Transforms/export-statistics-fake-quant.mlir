// A FakeQuantize module's statistics (QAT) are not exported rather than
// dropped: a merge of the files would silently lose them.
// RUN: quant-opt %s --quanta-export-statistics=file=%t.json -verify-diagnostics -o /dev/null

func.func @qat(%x: tensor<4xf32>) -> tensor<4xf32> {
  %0 = quanta.observe %x {name = "x", observer = #quanta.min_max<>, stats = #quanta.min_max_stats<min = [-1.0], max = [2.0], num_batches = 1>} : tensor<4xf32>
  // expected-error @+1 {{holds the statistics of a FakeQuantize module, which statistics files do not carry}}
  %1 = quanta.fake_quant %0 {fake_quantize = #quanta.fake_quantize<observer = #quanta.moving_average_min_max<dtype = qint8, qscheme = per_tensor_symmetric>, quant_min = -128, quant_max = 127, fused = true>, name = "x.fq", stats = #quanta.min_max_stats<min = [-1.0], max = [2.0], num_batches = 1>, scale = array<f32: 0.0117647061>, zero_point = array<i64: 0>} : tensor<4xf32>
  return %1 : tensor<4xf32>
}

// Embeddings as PyTorch's float_qparams_weight_only_qconfig quantizes them
// (Inputs from scripts/goldens/gen_embedding_goldens.py: an nn.Embedding of
// 24 x 12 with a constant, a zero, an all-positive and an all-negative row,
// exported to ONNX, and PyTorch 1.13's quantized lookups). The table is
// observed per row, frozen to a float-zero-point fake quantization, and
// quanta-quantize stores it quantized: 8 bits one byte per value, 4 bits
// two per byte; each lookup computes fma(q, scale, bias) per row, which is
// byte for byte what torch.ao.nn.quantized.Embedding (8 bits) and
// EmbeddingBag (4 bits) return. Dequantizing the fake quantization instead,
// (q - zero_point) * scale, differs in 282 of the 576 outputs.
//
// RUN: quant-translate --import-onnx %S/Inputs/embedding_table.onnx -o %t.mlir
// RUN: quant-opt %t.mlir --quanta-insert-observers=qconfig=float_qparams_weight_only --quanta-freeze-qparams --quanta-quantize -o %t.8bit.mlir
// RUN: FileCheck %s --check-prefix=BYTE < %t.8bit.mlir
// RUN: quant-run %t.8bit.mlir --input=%S/Inputs/embedding_ids.npy --output=%t.8bit.npy
// RUN: cmp %t.8bit.npy %S/Inputs/embedding_8bit_expected.npy
// RUN: quant-opt %t.mlir --quanta-insert-observers=qconfig=float_qparams_weight_only_4bit --quanta-freeze-qparams --quanta-quantize -o %t.4bit.mlir
// RUN: FileCheck %s --check-prefix=NIBBLE < %t.4bit.mlir
// RUN: quant-run %t.4bit.mlir --input=%S/Inputs/embedding_ids.npy --output=%t.4bit.npy
// RUN: cmp %t.4bit.npy %S/Inputs/embedding_4bit_expected.npy
//
// BYTE-NOT: quanta.fake_quant
// BYTE-DAG: %[[TABLE:.*]] = arith.constant dense<{{.*}}> : tensor<24x12xi8>
// BYTE-DAG: %[[SCALES:.*]] = arith.constant dense<{{.*}}> : tensor<24xf32>
// BYTE-DAG: %[[BIASES:.*]] = arith.constant dense<{{.*}}> : tensor<24xf32>
// BYTE: linalg.generic
// BYTE: %[[ROW:.*]] = arith.minsi
// BYTE: %[[COLUMN:.*]] = linalg.index 2
// BYTE: %[[Q:.*]] = tensor.extract %[[TABLE]][%[[ROW]], %[[COLUMN]]]
// BYTE: %[[WIDE:.*]] = arith.extui %[[Q]] : i8 to i32
// BYTE: %[[FLOAT:.*]] = arith.uitofp %[[WIDE]]
// BYTE: %[[SCALE:.*]] = tensor.extract %[[SCALES]][%[[ROW]]]
// BYTE: %[[BIAS:.*]] = tensor.extract %[[BIASES]][%[[ROW]]]
// BYTE: math.fma %[[FLOAT]], %[[SCALE]], %[[BIAS]]
//
// NIBBLE: arith.constant dense<{{.*}}> : tensor<24x6xi8>
// NIBBLE: arith.divui
// NIBBLE: arith.shrui
// NIBBLE: arith.andi
// NIBBLE: math.fma
//
// PyTorch quantizes embeddings with these qconfigs only: with x86's (qint8
// weights) the table stays float, as in FX.
// RUN: quant-opt %t.mlir --quanta-insert-observers=qconfig=x86 --quanta-freeze-qparams --quanta-quantize | FileCheck %s --check-prefix=X86
// X86-NOT: quanta.observe
// X86-NOT: quanta.fake_quant
// X86: tensor.extract %{{.*}} : tensor<24x12xf32>
//
// A table fake-quantized to another range than quint8's or quint4x2's
// stays float, with a remark.
// RUN: quant-opt %s --quanta-quantize --verify-diagnostics
func.func @other_range(%ids: tensor<4xi64>) -> tensor<4x2xf32> {
  %table = arith.constant dense<[[0.0, 1.0], [2.0, -3.0]]> : tensor<2x2xf32>
  %fq = quanta.fake_quant %table {axis = 0 : i64, scale = array<f32: 0.1, 0.2>, float_zero_point = array<f32: 0.0, 15.0>, quant_min = 0 : i64, quant_max = 127 : i64} : tensor<2x2xf32>
  %e = tensor.empty() : tensor<4x2xf32>
  // expected-remark @+1 {{the embedding stays float: the embedding table's range [0, 127] is neither quint8's nor quint4x2's}}
  %r = linalg.generic {indexing_maps = [affine_map<(d0, d1) -> (d0)>, affine_map<(d0, d1) -> (d0, d1)>], iterator_types = ["parallel", "parallel"]} ins(%ids : tensor<4xi64>) outs(%e : tensor<4x2xf32>) {
  ^bb0(%id: i64, %out: f32):
    %row = arith.index_cast %id : i64 to index
    %column = linalg.index 1 : index
    %v = tensor.extract %fq[%row, %column] : tensor<2x2xf32>
    linalg.yield %v : f32
  } -> tensor<4x2xf32>
  return %r : tensor<4x2xf32>
}

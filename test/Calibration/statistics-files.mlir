// Shards calibrated by separate processes and merged give the single run's
// statistics for min/max observers, exactly.
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/x1.npy,%S/Inputs/calibrate/x2.npy,%S/Inputs/calibrate/x3.npy,%S/Inputs/calibrate/x4.npy quiet' \
// RUN:   --quanta-report-qparams=output=%t.single -o /dev/null
// RUN: env QUANT_OPT=quant-opt %quanta_src_root/scripts/calibrate_sharded.sh %s %t.merged.mlir 2 \
// RUN:   %S/Inputs/calibrate/x0.npy %S/Inputs/calibrate/x1.npy %S/Inputs/calibrate/x2.npy %S/Inputs/calibrate/x3.npy %S/Inputs/calibrate/x4.npy
// RUN: quant-opt %t.merged.mlir --quanta-report-qparams=output=%t.sharded -o /dev/null
// RUN: grep MinMaxObserver %t.single > %t.single.minmax
// RUN: grep MinMaxObserver %t.sharded > %t.sharded.minmax
// RUN: diff %t.single.minmax %t.sharded.minmax
// RUN: FileCheck %s --input-file=%t.sharded --check-prefix=SHARDED
// RUN: FileCheck %s --input-file=%t.merged.mlir --check-prefix=MERGED

// The export format: JSON with exact attribute text.
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy quiet' --quanta-export-statistics -o /dev/null | FileCheck %s --check-prefix=EXPORT

// SHARDED-DAG: in: MinMaxObserver
// SHARDED-DAG: in_pc: PerChannelMinMaxObserver
// SHARDED-DAG: in_hist: HistogramObserver
// MERGED: name = "in", {{.*}}num_batches = 5
// MERGED: name = "in_hist", {{.*}}histogram_stats<{{.*}}num_batches = 5

// EXPORT: "format": "quanta-statistics",
// EXPORT: "name": "in",
// EXPORT-NEXT: "observer": "#quanta.min_max<>",
// EXPORT-NEXT: "stats": "#quanta.min_max_stats<min = [{{.*}}], max = [{{.*}}], num_batches = 1>"
// EXPORT: "version": 1

func.func @model(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {name = "in", observer = #quanta.min_max<>} : tensor<4x16xf32>
  %1 = quanta.observe %0 {name = "in_pc", observer = #quanta.per_channel_min_max<ch_axis = 1>} : tensor<4x16xf32>
  %2 = quanta.observe %1 {name = "in_hist", observer = #quanta.histogram<bins = 256>} : tensor<4x16xf32>
  return %2 : tensor<4x16xf32>
}

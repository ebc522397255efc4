// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy quiet entry=model' --quanta-export-statistics=file=%t.a.json -o /dev/null
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x1.npy quiet entry=model' --quanta-export-statistics=file=%t.b.json -o /dev/null
// Moving averages depend on the order of the batches.
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.a.json,%t.b.json 2>&1 | FileCheck %s --check-prefix=ORDER
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.missing.json 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: echo '{"format": "other"}' > %t.other.json
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.other.json 2>&1 | FileCheck %s --check-prefix=FORMAT
// RUN: not quant-opt %s --quanta-import-statistics 2>&1 | FileCheck %s --check-prefix=NOFILES
// RUN: echo 'min = 1' > %t.text.json
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.text.json 2>&1 | FileCheck %s --check-prefix=NOTJSON
// RUN: echo '{"format": "quanta-statistics", "version": 1, "observers": []}' > %t.empty.json
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.empty.json 2>&1 | FileCheck %s --check-prefix=ABSENT
// RUN: echo '{"format": "quanta-statistics", "version": 1, "observers": [{"name": "avg", "observer": "#quanta.moving_average_min_max<>", "stats": "#quanta.min_max_stats<min = [0.0], max = [1.0], num_batches = 1>"}, {"name": "avg", "observer": "#quanta.moving_average_min_max<>", "stats": "#quanta.min_max_stats<min = [0.0], max = [2.0], num_batches = 1>"}]}' > %t.twice.json
// RUN: not quant-opt %s --quanta-import-statistics=files=%t.twice.json 2>&1 | FileCheck %s --check-prefix=TWICE

// ORDER: error: 'quanta.observe' op cannot merge the statistics of {{.*}}b.json: MovingAverageMinMaxObserver statistics depend on the order of the batches and cannot be merged; calibrate the shards one after the other instead
// MISSING: error: cannot read statistics file '{{.*}}missing.json': No such file or directory
// FORMAT: error: {{.*}}other.json: not a quanta-statistics file of version 1
// NOFILES: error: quanta-import-statistics: no files (files=<a.json,b.json,...>)
// NOTJSON: error: {{.*}}text.json: not JSON:
// ABSENT: error: 'quanta.observe' op has no statistics in {{.*}}empty.json
// TWICE: error: {{.*}}twice.json: two entries for observer 'avg'

func.func @model(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {name = "avg", observer = #quanta.moving_average_min_max<>} : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

// An observer with statistics needs a name to be exported under.
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy quiet entry=unnamed' --quanta-export-statistics 2>&1 | FileCheck %s --check-prefix=UNNAMED
// UNNAMED: error: 'quanta.observe' op has statistics but no name to export them under
func.func @unnamed(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

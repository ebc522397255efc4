// A RecordingObserver keeps every tensor it sees (PyTorch's tensor_val);
// quanta-calibrate writes them as .npy files, one per observer and batch.
// RUN: rm -rf %t && quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/x1.npy,%S/Inputs/calibrate/x2.npy record-dir=%t quiet' | FileCheck %s
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; i = sys.argv[2]; \
// RUN:   xs = [np.load(f'{i}/x{b}.npy') for b in range(3)]; \
// RUN:   assert all(np.array_equal(np.load(f'{d}/in.{b}.npy'), x) for b, x in enumerate(xs)); \
// RUN:   assert all(np.array_equal(np.load(f'{d}/recording1.{b}.npy'), np.maximum(x, 0).T) for b, x in enumerate(xs)); \
// RUN:   r = np.load(f'{d}/in.0.npy'); assert r.dtype == np.float32 and r.shape == (4, 16); print('recorded', len(xs))" %t %S/Inputs/calibrate | FileCheck %s --check-prefix=FILES
// Without a directory nothing is recorded, and a warning says so.
// RUN: quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy quiet' -o /dev/null 2>&1 | FileCheck %s --check-prefix=NODIR
// A directory that cannot be created is an error, and the IR is untouched.
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy record-dir=/dev/null/rec quiet' 2>&1 | FileCheck %s --check-prefix=BADDIR
// record-observed also writes what each calibrated observer saw (the
// float tensors quanta.report compares with their quantized values).
// RUN: rm -rf %t.observed && quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/x1.npy record-dir=%t.observed record-observed quiet' | FileCheck %s --check-prefix=OBSERVED
// RUN: %python -c "import numpy as np, sys; d = sys.argv[1]; i = sys.argv[2]; \
// RUN:   assert all(np.array_equal(np.load(f'{d}/in_minmax.{b}.npy'), np.load(f'{i}/x{b}.npy')) for b in range(2)); print('observed ok')" %t.observed %S/Inputs/calibrate | FileCheck %s --check-prefix=OBSERVEDFILES
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy record-observed quiet' 2>&1 | FileCheck %s --check-prefix=OBSERVEDNODIR

// OBSERVED: quanta.observe %{{.*}} {name = "in_minmax", observer = #quanta.min_max<>, quanta.recorded = ["{{.*}}in_minmax.0.npy", "{{.*}}in_minmax.1.npy"], stats = #quanta.min_max_stats<
// OBSERVEDFILES: observed ok
// OBSERVEDNODIR: error: quanta-calibrate: record-observed needs record-dir=<directory>

// CHECK-LABEL: func.func @model
// CHECK: quanta.observe %{{.*}} {name = "in", observer = #quanta.recording<>, quanta.recorded = ["{{.*}}in.0.npy", "{{.*}}in.1.npy", "{{.*}}in.2.npy"]}
// CHECK: quanta.observe %{{.*}} {name = "in_minmax", observer = #quanta.min_max<>, stats = #quanta.min_max_stats<
// The second recording observer has no name of its own.
// CHECK: quanta.observe %{{.*}} {observer = #quanta.recording<dtype = qint8>, quanta.recorded = ["{{.*}}recording1.0.npy", "{{.*}}recording1.1.npy", "{{.*}}recording1.2.npy"]}

// FILES: recorded 3

// NODIR-COUNT-2: warning: RecordingObserver: its tensors are not recorded without record-dir=<directory>

// BADDIR: error: quanta-calibrate: cannot create record-dir '/dev/null/rec'
// BADDIR-NOT: stats =

#map = affine_map<(d0, d1) -> (d0, d1)>
#transpose = affine_map<(d0, d1) -> (d1, d0)>
func.func @model(%x: tensor<4x16xf32>) -> tensor<16x4xf32> {
  %o0 = quanta.observe %x {name = "in", observer = #quanta.recording<>} : tensor<4x16xf32>
  %o1 = quanta.observe %o0 {name = "in_minmax", observer = #quanta.min_max<>} : tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<16x4xf32>
  %relu = linalg.generic {indexing_maps = [#transpose, #map], iterator_types = ["parallel", "parallel"]} ins(%o1 : tensor<4x16xf32>) outs(%init : tensor<16x4xf32>) {
  ^bb0(%in: f32, %out: f32):
    %m = arith.maximumf %in, %zero : f32
    linalg.yield %m : f32
  } -> tensor<16x4xf32>
  %out = quanta.observe %relu {observer = #quanta.recording<dtype = qint8>} : tensor<16x4xf32>
  return %out : tensor<16x4xf32>
}

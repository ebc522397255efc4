// What a newcomer's first mistakes get from the quanta driver: an error
// naming the file and the problem, and a line saying what to do next.
//
// RUN: rm -rf %t && mkdir -p %t/empty
// RUN: %python -c "import numpy as np; np.save('%t/shape.npy', np.zeros((3, 7), np.float32)); np.save('%t/dtype.npy', np.zeros((2, 8), np.int32)); np.save('%t/good.npy', np.ones((2, 8), np.float32))"
//
// RUN: not quanta %s --data=%t/shape.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// SHAPE: error: {{.*}}shape.npy: argument 0 expects shape (2, 8), found (3, 7)
// SHAPE-NEXT: note: next: give arrays of the model input's shape, or of k times its first dimension for k batches; an ONNX model's batch is chosen at import (--onnx-batch=N)
//
// RUN: not quanta %s --data=%t/dtype.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// DTYPE: error: {{.*}}dtype.npy: argument 0 expects float32 data, found int32
// DTYPE-NEXT: note: next: save the arrays as float32, e.g. np.save(path, x.astype(np.float32))
//
// RUN: not quanta %s --data=%t/missing 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: error: calibration data '{{.*}}missing' does not exist
// RUN: not quanta %s --data=%t/empty 2>&1 | FileCheck %s --check-prefix=EMPTY
// EMPTY: error: calibration data '{{.*}}empty' names no .npy or .npz file
// RUN: not quanta %s --data='%t/batch*.npy' 2>&1 | FileCheck %s --check-prefix=NOMATCH
// NOMATCH: error: calibration data '{{.*}}batch*.npy' names no .npy or .npz file
// RUN: not quanta %s --data='%t/*/x.npy' 2>&1 | FileCheck %s --check-prefix=FOLDERGLOB
// FOLDERGLOB: error: calibration data '{{.*}}': only the file name may hold a pattern, not the folders
// RUN: not quanta %s --data=%t/good.npy -o %t/good.npy/out/x.o 2>&1 | FileCheck %s --check-prefix=OUTDIR
// OUTDIR: error: cannot create '{{.*}}good.npy/out':
// RUN: not quanta %s 2>&1 | FileCheck %s --check-prefix=NODATA
// NODATA: must be specified at least once
//
// RUN: not quanta %s --data=%t/good.npy --qconfig=x68 2>&1 | FileCheck %s --check-prefix=QCONFIG
// QCONFIG: quanta-driver-invalid.mlir:{{[0-9]+}}:{{[0-9]+}}: error: qconfig: unknown qconfig 'x68'; expected none, a #quanta.qconfig<...> or one of: x86 fbgemm qnnpack onednn
// RUN: not quanta %s --data=%t/good.npy --mcpu=skylake2 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: quanta: error: unknown CPU 'skylake2' for x86_64{{.*}} (llc-22 -mtriple={{.*}} -mcpu=help lists the known ones)
//
// RUN: not quanta %quanta_src_root/test/Import/Onnx/Inputs/unsupported.onnx --data=%t/good.npy 2>&1 | FileCheck %s --check-prefix=OP
// OP: error: Det node 'mixer': the importer does not translate 'Det' (supported: {{.*}})
// OP-NEXT: note: next: docs/Onnx.md lists each op's limits; export the model with this part written in supported ops, or file an issue with the model
//
// RUN: not quanta %quanta_src_root/examples/digits/digits_cnn.onnx --onnx-batch=0 --data=%t/good.npy 2>&1 | FileCheck %s --check-prefix=SYMBOLIC
// SYMBOLIC: error: symbolic dimensions left unbound: '{{.*}}' (dimension 0 of '{{.*}}')
//
// Several functions: the driver takes a model of one.
// RUN: not quanta %S/Inputs/driver-two-functions.mlir --data=%t/good.npy 2>&1 | FileCheck %s --check-prefix=TWO
// TWO: error: the module has several functions: choose one with a model of one function

func.func @f(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  return %x : tensor<2x8xf32>
}

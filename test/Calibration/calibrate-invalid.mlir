// Bad calibration data and bad entry functions are errors that name the
// file, the argument and what was expected; the module is left unchanged.
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not quant-opt %s --quanta-calibrate='data=%quanta_src_root/unittests/Runtime/data/f64.npy entry=two_by_three' 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not quant-opt %s --quanta-calibrate='data=%quanta_src_root/unittests/Runtime/data/fortran.npy entry=two_by_three' 2>&1 | FileCheck %s --check-prefix=FORTRAN
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/missing.npy entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/x1.npy,%S/Inputs/calibrate/x2.npy entry=two_args' 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/batch0.npz entry=two_args' 2>&1 | FileCheck %s --check-prefix=NPZ
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.txt entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=EXTENSION
// RUN: not quant-opt %s --quanta-calibrate='entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=NODATA
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy' 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=nowhere' 2>&1 | FileCheck %s --check-prefix=NOWHERE
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=integers' 2>&1 | FileCheck %s --check-prefix=INTEGERS
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy,%S/Inputs/calibrate/nan.npy entry=nan' 2>&1 | FileCheck %s --check-prefix=NAN
// A directory named like a data file, an empty archive, a negative
// batch-limit; shapes the data cannot have (checked before anything is
// compiled or allocated for them) and results no machine could hold:
// RUN: rm -rf %t.dir.npy && mkdir -p %t.dir.npy
// RUN: not quant-opt %s --quanta-calibrate='data=%t.dir.npy entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=DIRECTORY
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/empty.npz entry=wrong_shape' 2>&1 | FileCheck %s --check-prefix=EMPTYNPZ
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=wrong_shape batch-limit=-1' 2>&1 | FileCheck %s --check-prefix=LIMIT
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=huge_input' 2>&1 | FileCheck %s --check-prefix=HUGEINPUT
// RUN: not quant-opt %s --quanta-calibrate='data=%S/Inputs/calibrate/x0.npy entry=huge_result' 2>&1 | FileCheck %s --check-prefix=HUGERESULT

// SHAPE: error: {{.*}}x0.npy: argument 0 expects shape (2, 8), found (4, 16)
// DTYPE: error: {{.*}}f64.npy: argument 0 expects float32 data, found float64
// FORTRAN: error: {{.*}}fortran.npy: the array is in Fortran order; save a C-order copy (numpy.ascontiguousarray)
// MISSING: error: {{.*}}missing.npy: cannot open: No such file or directory
// COUNT: error: the last batch has 1 .npy file(s) for 2 arguments
// NPZ: error: {{.*}}batch0.npz holds 1 arrays but the entry takes 2 arguments
// EXTENSION: error: calibration data '{{.*}}x0.txt' is neither a .npy nor an .npz file
// NODATA: error: quanta-calibrate: no calibration data (data=<files>)
// ENTRY: error: quanta-calibrate: the module has 7 public functions; choose one with entry=<name>
// NOWHERE: error: quanta-calibrate: no function 'nowhere' with a body to run
// NAN: calibrate-invalid.mlir:{{[0-9]+}}:8: error: 'quanta.observe' op calibration batch 1 ({{.*}}nan.npy): the observed tensor holds NaN or an infinity, for which PyTorch's observers compute no valid qparams
// INTEGERS: error: quanta-calibrate runs functions of float32 or integer tensors with float32 results of static shapes; got 'tensor<4xi32>'
// DIRECTORY: error: {{.*}}dir.npy: cannot read: Is a directory
// EMPTYNPZ: error: {{.*}}empty.npz holds 0 arrays but the entry takes 1 arguments
// LIMIT: error: quanta-calibrate: batch-limit must be >= 0 (0: every batch), got -1
// HUGEINPUT: error: {{.*}}x0.npy: argument 0 expects shape (100000, 1000000), found (4, 16)
// HUGERESULT: error: result 0 of the entry needs 400000000000 bytes, more than the {{[0-9]+}} bytes of memory Quanta may use

func.func @wrong_shape(%x: tensor<2x8xf32>) -> tensor<2x8xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<2x8xf32>
  return %0 : tensor<2x8xf32>
}

func.func @two_by_three(%x: tensor<2x3xf32>) -> tensor<2x3xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<2x3xf32>
  return %0 : tensor<2x3xf32>
}

func.func @two_args(%x: tensor<4x16xf32>, %y: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @nan(%x: tensor<4x16xf32>) -> tensor<4x16xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4x16xf32>
  return %0 : tensor<4x16xf32>
}

func.func @integers(%x: tensor<4xi32>) -> tensor<4xi32> {
  return %x : tensor<4xi32>
}

func.func @huge_input(%x: tensor<100000x1000000xf32>) -> tensor<1x2xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<100000x1000000xf32>
  %1 = tensor.extract_slice %0[0, 0] [1, 2] [1, 1] : tensor<100000x1000000xf32> to tensor<1x2xf32>
  return %1 : tensor<1x2xf32>
}

func.func @huge_result(%x: tensor<4x16xf32>) -> tensor<100000x1000000xf32> {
  %0 = quanta.observe %x {observer = #quanta.min_max<>} : tensor<4x16xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<100000x1000000xf32>
  %1 = linalg.fill ins(%zero : f32) outs(%init : tensor<100000x1000000xf32>) -> tensor<100000x1000000xf32>
  return %1 : tensor<100000x1000000xf32>
}

// RUN: not quant-run %s --input=%S/Inputs/qmatmul_odd_u8_input.npy 2>&1 | FileCheck %s --check-prefix=SEVERAL
// RUN: not quant-run %s --entry=f32_in 2>&1 | FileCheck %s --check-prefix=COUNT
// RUN: not quant-run %s --entry=f32_in --input=%S/Inputs/qmatmul_odd_u8_input.npy 2>&1 | FileCheck %s --check-prefix=DTYPE
// RUN: not quant-run %s --entry=i8_in --input=%S/Inputs/qmatmul_tiles_s8_input.npy 2>&1 | FileCheck %s --check-prefix=SHAPE
// RUN: not quant-run %s --entry=i8_in --input=%t.missing.npy 2>&1 | FileCheck %s --check-prefix=MISSING
// RUN: not quant-run %s --entry=nope 2>&1 | FileCheck %s --check-prefix=ENTRY
// RUN: not quant-run %s --entry=i8_in --input=%S/Inputs/qmatmul_odd_u8_input.npy --output=a.npy --output=b.npy 2>&1 | FileCheck %s --check-prefix=OUTPUTS
// RUN: not quant-run %s --entry=dynamic 2>&1 | FileCheck %s --check-prefix=DYNAMIC
// RUN: not quant-run %s --entry=i8_in --pass-pipeline='builtin.module(no-such-pass)' 2>&1 | FileCheck %s --check-prefix=PIPELINE

// SEVERAL: error: the module has several functions: choose one with --entry
// COUNT: error: 'f32_in' takes 1 argument(s), 0 given
// DTYPE: qmatmul_odd_u8_input.npy: argument 0 takes float32 data, found uint8
// SHAPE: qmatmul_tiles_s8_input.npy: argument 0 expects shape (5, 7), found (13, 33)
// MISSING: missing.npy
// ENTRY: error: no function named 'nope'
// OUTPUTS: error: 'i8_in' has 1 result(s), 2 --output file(s) given
// DYNAMIC: error: argument 0 has type 'tensor<?xf32>'; quant-run takes static tensors
// PIPELINE: bad pass pipeline
//
// A module the tools cannot compile yet names the pipeline it needs:
// RUN: not quant-run %S/Inputs/qmatmul_exec.mlir --entry=odd_u8 --input=%S/Inputs/qmatmul_odd_u8_input.npy 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// RUN: not quant-compile %S/Inputs/qmatmul_exec.mlir -o %t.o 2>&1 | FileCheck %s --check-prefix=UNLOWERED
// UNLOWERED: qmatmul_exec.mlir:{{[0-9]+}}:{{[0-9]+}}: error: 'quanta.qmatmul' op cannot be compiled (quant-{{run|compile}}) before its kernel lowering: lower the module for its target first (quanta-lower-x86, quanta-lower-neon, or quanta-lower-x86{isa=generic} for another architecture; quant-run and quant-compile take it as --pass-pipeline='builtin.module(quanta-lower-x86)')
// UNLOWERED-NOT: error
// RUN: not quant-run %S/../Calibration/calibrate-empty-tensor.mlir --input=%S/../Calibration/Inputs/calibrate/empty_0x8.npy 2>&1 | FileCheck %s --check-prefix=OBSERVED
// OBSERVED: error: 'quanta.observe' op cannot be compiled (quant-run) before calibration and freezing: run quanta-ptq (or quanta-calibrate and quanta-freeze-qparams) first

func.func @f32_in(%a: tensor<5x7xf32>) -> tensor<5x7xf32> {
  return %a : tensor<5x7xf32>
}

func.func @i8_in(%a: tensor<5x7xi8>) -> tensor<5x7xi8> {
  return %a : tensor<5x7xi8>
}

func.func @dynamic(%a: tensor<?xf32>) -> tensor<?xf32> {
  return %a : tensor<?xf32>
}

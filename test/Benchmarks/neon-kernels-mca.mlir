// The NEON speed estimate (benchmarks/neon_kernels_mca.py) in its small
// mode, so that it cannot rot again: one small GEMM per level, compiled for
// AArch64 and run under qemu; each whole-kernel figure, which counts every
// function of the kernel's object (outlined loop nests too), must lie
// between 10% and 100% of its level's peak under llvm-mca.
// RUN: %python %quanta_src_root/benchmarks/neon_kernels_mca.py --check --build %quanta_obj_root | FileCheck %s
// CHECK: ARMv8.0 smull+sadalp
// CHECK: dotprod sdot
// CHECK: i8mm smmla
// CHECK: f32 fmla
// CHECK: neon-kernels-mca: 4 passed, 0 failed

// Code for a target that cannot run it is a clear error naming the
// architecture or the feature, before LLVM sees it (LLVM aborts the
// process on an instruction its target cannot select), and so is a target
// LLVM does not know.
//
// An i8mm kernel for a Cortex-A76 (dotprod, no i8mm):
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --mcpu=cortex-a76 --pass-pipeline='builtin.module(quanta-lower-neon{features=i8mm})' -o %t.o 2>&1 | FileCheck %s --check-prefix=I8MM
// I8MM: gemm_u8.mlir:4:8: error: 'arm_neon.intr.usmmla' needs the aarch64 feature i8mm, which the target aarch64-unknown-linux-gnu (cortex-a76) lacks; lower it for a level the target has, or choose a target that has it
// I8MM-NOT: error
//
// x86 intrinsics for an AArch64 triple:
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' -o %t.o 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: error: 'llvm.x86.avx2.pmadd.ub.sw' is x86_64 code, but the target is aarch64-unknown-linux-gnu; lower the module for the target's architecture (quanta-lower-neon)
//
// AVX2 code for a baseline x86-64 CPU, and AVX-512 VNNI code for a Haswell:
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --mcpu=x86-64 --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' -o %t.o 2>&1 | FileCheck %s --check-prefix=AVX2
// AVX2: error: 'llvm.x86.avx2.pmadd.ub.sw' needs the x86_64 feature avx2, which the target x86_64-{{.*}} (x86-64) lacks
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --mcpu=haswell --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx512vnni})' -o %t.o 2>&1 | FileCheck %s --check-prefix=VNNI
// VNNI: error: 'llvm.x86.avx512.vpdpbusd.512' needs the x86_64 feature avx512vnni, which the target x86_64-{{.*}} (haswell) lacks
//
// A float module lowered once (AVX2 here) and compiled later for a target
// that cannot run it: its kernels name no instruction (vector FMAs), the
// record of the lowering (quanta.lowered_for) says what they need.
// RUN: quant-opt %S/Inputs/float_fc.mlir --quanta-lower-x86=isa=avx2 -o %t.lowered.mlir
// RUN: not quant-compile %t.lowered.mlir --target-triple=aarch64-linux-gnu -o %t.o 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: not quant-compile %t.lowered.mlir --target-triple=riscv64-linux-gnu -o %t.o 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: not quant-compile %t.lowered.mlir --target-triple=i386-linux-gnu -o %t.o 2>&1 | FileCheck %s --check-prefix=LOWERED
// RUN: not quant-compile %t.lowered.mlir --mcpu=x86-64 -o %t.o 2>&1 | FileCheck %s --check-prefix=LOWERED
// LOWERED: error: the module's kernels were lowered for x86_64+avx2+fma, which {{.*}} cannot run (it lacks avx2); lower the module from before its kernel lowering for this target instead
// RUN: quant-compile %t.lowered.mlir --mcpu=haswell -o %t.o
// RUN: not quant-opt %t.lowered.mlir --quanta-lower-x86=isa=avx512vnni -o /dev/null 2>&1 | FileCheck %s --check-prefix=TWICE
// TWICE: error: quanta-lower-x86: the module already holds code lowered for x86_64+avx2+fma; lowering more of it for {{.*}}avx512vnni{{.*}} would mix the two
//
// Lowered by the target's own lowering, the same module compiles for each.
// RUN: quant-compile %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --mcpu=cortex-a76 --pass-pipeline='builtin.module(quanta-lower-neon)' -o %t.a76.o
// RUN: quant-compile %S/Inputs/gemm_u8.mlir --mcpu=x86-64 --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.x86-64.o
// RUN: quant-compile %S/Inputs/gemm_u8.mlir --target-triple=riscv64-linux-gnu --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' -o %t.riscv64.o
//
// Names LLVM does not know:
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --mcpu=pentium9 -o %t.o 2>&1 | FileCheck %s --check-prefix=CPU
// CPU: quant-compile: error: unknown CPU 'pentium9' for x86_64-{{.*}} (llc-22 -mtriple=x86_64-{{.*}} -mcpu=help lists the known ones)
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --mattr=+dotprodd -o %t.o 2>&1 | FileCheck %s --check-prefix=ATTR
// ATTR: quant-compile: error: unknown feature 'dotprodd' for aarch64-unknown-linux-gnu (llc-22 -mtriple=aarch64-unknown-linux-gnu -mattr=help lists the known ones)
// RUN: not quant-compile %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --mattr=dotprod -o %t.o 2>&1 | FileCheck %s --check-prefix=SIGN
// SIGN: quant-compile: error: feature 'dotprod' must start with '+' or '-' (e.g. +dotprod)
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --mcpu=pentium9 2>&1 | FileCheck %s --check-prefix=RUNCPU
// RUNCPU: quant-run: error: unknown CPU 'pentium9'
//
// quant-run: NEON code in this machine's JIT, AArch64 code whose CPU model
// lacks a feature, and timing under emulation.
// RUN: %python -c "import numpy as np; np.save('%t.in.npy', np.arange(360, dtype=np.uint8).reshape(9, 40))"
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --pass-pipeline='builtin.module(quanta-lower-neon{features=dotprod})' --input=%t.in.npy 2>&1 | FileCheck %s --check-prefix=JIT
// JIT: error: 'arm_neon.intr.sdot' is aarch64 code, but the target is x86_64-{{.*}}; lower the module for the target's architecture (quanta-lower-x86)
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --mattr=+i8mm --qemu-cpu=neoverse-n1 --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%t.in.npy 2>&1 | FileCheck %s --check-prefix=QEMU
// QEMU: error: qemu-aarch64 -cpu neoverse-n1: this CPU lacks i8mm, which 'gemm_u8' was compiled for (aarch64-unknown-linux-gnu: aarch64+neon+i8mm)
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%t.in.npy --benchmark=3 2>&1 | FileCheck %s --check-prefix=BENCH
// BENCH: error: --benchmark times code on this machine's architecture only: under emulation the times mean nothing
//
// What running under emulation needs: qemu (here missing from the PATH),
// a CPU model qemu knows, an architecture it runs here.
// RUN: mkdir -p %t.empty && not env PATH=%t.empty quant-run %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%t.in.npy 2>&1 | FileCheck %s --check-prefix=NOQEMU
// NOQEMU: error: running AArch64 code on this machine needs qemu-aarch64: apt-get install qemu-user
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --target-triple=aarch64-linux-gnu --qemu-cpu=cortex-z9 --pass-pipeline='builtin.module(quanta-lower-neon)' --input=%t.in.npy 2>&1 | FileCheck %s --check-prefix=MODEL
// MODEL: error: 'gemm_u8' under qemu-aarch64 -cpu cortex-z9 failed
// MODEL-NEXT: qemu-aarch64: unable to find CPU model 'cortex-z9'
// RUN: not quant-run %S/Inputs/gemm_u8.mlir --target-triple=armv7-linux-gnueabihf --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' --input=%t.in.npy 2>&1 | FileCheck %s --check-prefix=ARM32
// ARM32: error: code for armv7-unknown-linux-gnueabihf runs here only if it is AArch64 (under qemu-aarch64)

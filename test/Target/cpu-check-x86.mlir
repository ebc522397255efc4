// The CPU check of x86-64 objects, under qemu-x86_64, whose CPU models
// stand for machines without AVX-512 (qemu 7.2's TCG has AVX2 and FMA, no
// AVX-512). Compiled for an Ice Lake server (AVX-512 VNNI kernels) and run
// on a Haswell, the program learns what is missing and the entry point
// reports it and aborts instead of dying of SIGILL. Compiled for the
// Haswell itself (AVX2 kernels), nothing is missing and the code runs.
// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --mcpu=icelake-server --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.icx.o --header=%t.icx.h
// RUN: %cc -static -std=c11 -Wall -Werror -include %t.icx.h %S/Inputs/missing_feature.c %t.icx.o -o %t.icx -lm
// RUN: not --crash qemu-x86_64 -cpu Haswell %t.icx 2>&1 | FileCheck %s --check-prefix=LACKS
// LACKS: missing: avx512f
// LACKS: quanta: odd_u8 was compiled for x86_64-pc-linux-gnu (icelake-server) (x86_64+avx2+fma+avx512f+avx512bw+avx512vl+avx512vnni); this CPU lacks avx512f
// LACKS-NOT: ran
// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --mcpu=haswell --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.hsw.o --header=%t.hsw.h
// RUN: %cc -static -std=c11 -Wall -Werror -include %t.hsw.h %S/Inputs/missing_feature.c %t.hsw.o -o %t.hsw -lm
// RUN: qemu-x86_64 -cpu Haswell %t.hsw 2>/dev/null | FileCheck %s --check-prefix=HAS
// HAS: missing: none
// HAS-NEXT: ran

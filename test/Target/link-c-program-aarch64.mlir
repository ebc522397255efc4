// The object files quant-compile makes of Tools/Inputs/qmatmul_exec.mlir for
// AArch64, one per level (quanta-lower-neon for the CPU named), linked
// into the C program of link-c-program.mlir with the cross C library and
// run under qemu on a CPU model of that level: every function equals the
// NumPy goldens and writes nothing past its output.
//
// RUN: for config in cortex-a72:cortex-a72 neoverse-n1:neoverse-n1 neoverse-v1:max; do \
// RUN:   cpu=${config%%%%:*} qemu=${config#*:}; \
// RUN:   quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --target-triple=aarch64-linux-gnu --mcpu=$cpu --pass-pipeline='builtin.module(quanta-lower-neon)' -o %t.$cpu.o --header=%t.$cpu.h && \
// RUN:   %cc --target=aarch64-linux-gnu -static -fuse-ld=lld -std=c11 -Wall -Wextra -Werror -include %t.$cpu.h %S/Inputs/run_qmatmul.c %t.$cpu.o -o %t.$cpu -lm && \
// RUN:   echo "== $cpu on $qemu" && qemu-aarch64 -cpu $qemu %t.$cpu %S/../Tools/Inputs || exit 1; \
// RUN: done | FileCheck %s
// CHECK-LABEL: == cortex-a72 on cortex-a72
// CHECK-NEXT: odd_u8: 15 of 15 outputs equal, 0 bytes after them written
// CHECK-NEXT: tiles_s8: 520 of 520 outputs equal, 0 bytes after them written
// CHECK-NEXT: k1_u8: 1 of 1 outputs equal, 0 bytes after them written
// CHECK-NEXT: wide_u8: 630 of 630 outputs equal, 0 bytes after them written
// CHECK-LABEL: == neoverse-n1 on neoverse-n1
// CHECK-NEXT: odd_u8: 15 of 15 outputs equal, 0 bytes after them written
// CHECK-NEXT: tiles_s8: 520 of 520 outputs equal, 0 bytes after them written
// CHECK-NEXT: k1_u8: 1 of 1 outputs equal, 0 bytes after them written
// CHECK-NEXT: wide_u8: 630 of 630 outputs equal, 0 bytes after them written
// CHECK-LABEL: == neoverse-v1 on max
// CHECK-NEXT: odd_u8: 15 of 15 outputs equal, 0 bytes after them written
// CHECK-NEXT: tiles_s8: 520 of 520 outputs equal, 0 bytes after them written
// CHECK-NEXT: k1_u8: 1 of 1 outputs equal, 0 bytes after them written
// CHECK-NEXT: wide_u8: 630 of 630 outputs equal, 0 bytes after them written

// Each object holds the instructions of its level: smull + sadalp (and no
// sdot) for the Cortex-A72, sdot by element for the Neoverse N1, smmla and
// usmmla for the Neoverse V1.
// RUN: llvm-objdump -d %t.cortex-a72.o | FileCheck %s --check-prefix=A72
// RUN: llvm-objdump -d %t.neoverse-n1.o | FileCheck %s --check-prefix=N1
// RUN: llvm-objdump -d %t.neoverse-v1.o | FileCheck %s --check-prefix=V1
// A72: smull{{2?}} v{{[0-9]+}}.8h, v{{[0-9]+}}.{{8|16}}b, v{{[0-9]+}}.{{8|16}}b
// A72: sadalp v{{[0-9]+}}.4s, v{{[0-9]+}}.8h
// A72-NOT: {{sdot|mmla}}
// N1: sdot v{{[0-9]+}}.4s, v{{[0-9]+}}.16b, v{{[0-9]+}}.4b[{{[0-3]}}]
// N1-NOT: mmla
// V1-DAG: usmmla v{{[0-9]+}}.4s, v{{[0-9]+}}.16b, v{{[0-9]+}}.16b
// V1-DAG: smmla v{{[0-9]+}}.4s, v{{[0-9]+}}.16b, v{{[0-9]+}}.16b

// An object compiled for i8mm, run on a CPU without it (a Neoverse N1):
// <f>_missing_cpu_feature() names it, and the entry point, instead of
// dying of SIGILL in a kernel, says so and aborts. On the CPU it was
// compiled for, nothing is missing.
// RUN: %cc --target=aarch64-linux-gnu -static -fuse-ld=lld -std=c11 -Wall -Werror -include %t.neoverse-v1.h %S/Inputs/missing_feature.c %t.neoverse-v1.o -o %t.missing -lm
// RUN: not --crash qemu-aarch64 -cpu neoverse-n1 %t.missing 2>&1 | FileCheck %s --check-prefix=LACKS
// RUN: qemu-aarch64 -cpu max %t.missing | FileCheck %s --check-prefix=HAS
// LACKS: missing: i8mm
// LACKS: quanta: odd_u8 was compiled for aarch64-unknown-linux-gnu (neoverse-v1) (aarch64+neon+dotprod+i8mm); this CPU lacks i8mm
// LACKS-NOT: ran
// HAS: missing: none
// HAS-NEXT: ran

// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' -o %t.generic.o --header=%t.h
// RUN: %cc -std=c11 -Wall -Wextra -Werror -include %t.h %S/Inputs/run_qmatmul.c %t.generic.o -o %t.generic
// RUN: %t.generic %S/../Tools/Inputs | FileCheck %s
// RUN: %cc -x c++ -fsyntax-only -Wall -Wextra -Werror -include %t.h /dev/null
// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --num-threads=2 --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' -o %t.threads.o --header=%t.threads.h
// RUN: FileCheck %s --check-prefix=THREADS-HEADER < %t.threads.h
// RUN: %cc -std=c11 -Wall -Wextra -Werror -include %t.threads.h %S/Inputs/run_qmatmul.c %t.threads.o -o %t.threads -lm -L/usr/lib/llvm-22/lib -lomp -Wl,-rpath,/usr/lib/llvm-22/lib
// RUN: %t.threads %S/../Tools/Inputs | FileCheck %s

// The object file and header of quant-compile, linked into a C program that
// checks every function against the NumPy goldens of the JIT tests
// (Tools/quant-run-qmatmul-*.mlir): the object holds the same code as the
// JIT runs. The header also compiles as C++. Compiled for 2 threads, the
// object links with the link line its header gives and computes the same.
// THREADS-HEADER: The kernels run on 2 threads: the object file
// THREADS-HEADER-NEXT: needs the C library, libm and LLVM's OpenMP runtime (Debian's
// THREADS-HEADER-NEXT: libomp-22-dev): link with -lm -L/usr/lib/llvm-22/lib -lomp

// CHECK: odd_u8: 15 of 15 outputs equal, 0 bytes after them written
// CHECK: tiles_s8: 520 of 520 outputs equal, 0 bytes after them written
// CHECK: k1_u8: 1 of 1 outputs equal, 0 bytes after them written
// CHECK: wide_u8: 630 of 630 outputs equal, 0 bytes after them written

// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --pass-pipeline='builtin.module(quanta-lower-x86{isa=generic})' -o %t.generic.o --header=%t.h
// RUN: %cc -std=c11 -Wall -Wextra -Werror -include %t.h %S/Inputs/run_qmatmul.c %t.generic.o -o %t.generic
// RUN: %t.generic %S/../Tools/Inputs | FileCheck %s
// RUN: %cc -x c++ -fsyntax-only -Wall -Wextra -Werror -include %t.h /dev/null

// The object file and header of quant-compile, linked into a C program that
// checks every function against the NumPy goldens of the JIT tests
// (Tools/quant-run-qmatmul-*.mlir): the object holds the same code as the
// JIT runs. The header also compiles as C++.

// CHECK: odd_u8: 15 of 15 outputs equal, 0 bytes after them written
// CHECK: tiles_s8: 520 of 520 outputs equal, 0 bytes after them written
// CHECK: k1_u8: 1 of 1 outputs equal, 0 bytes after them written
// CHECK: wide_u8: 630 of 630 outputs equal, 0 bytes after them written

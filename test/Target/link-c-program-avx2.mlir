// REQUIRES: avx2
// RUN: quant-compile %S/../Tools/Inputs/qmatmul_exec.mlir --pass-pipeline='builtin.module(quanta-lower-x86{isa=avx2})' --mcpu=haswell -o %t.o --header=%t.h
// RUN: %cc -std=c11 -Wall -Werror -include %t.h %S/Inputs/run_qmatmul.c %t.o -o %t
// RUN: %t %S/../Tools/Inputs | FileCheck %S/link-c-program.mlir

// The AVX2 kernels (vpmaddubsw and exact vpmaddwd) in an object file for a
// named CPU rather than this machine's, linked into the C program of
// link-c-program.mlir.

// A function named main is the model's, not the program's: the object
// exports its C interface only (_mlir_ciface_main, the CPU check), so a C
// program with a main of its own links and calls it.
// RUN: quant-compile %s -o %t.o --header=%t.h
// RUN: %cc -std=c11 -Wall -Wextra -Werror -include %t.h %S/Inputs/call_main.c %t.o -o %t.exe
// RUN: %t.exe | FileCheck %s
// CHECK: 3 5 7

func.func @main(%x: tensor<3xf32>, %y: tensor<3xf32>) -> tensor<3xf32> {
  %init = tensor.empty() : tensor<3xf32>
  %sum = linalg.add ins(%x, %y : tensor<3xf32>, tensor<3xf32>) outs(%init : tensor<3xf32>) -> tensor<3xf32>
  return %sum : tensor<3xf32>
}

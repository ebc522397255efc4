// Activations exported as chains of elementwise nodes of one tensor (torch
// 1.13's GELU: Div by sqrt 2, Erf, Add 1, Mul x, Mul 0.5; SiLU: Sigmoid,
// Mul x) import as one linalg.generic each, the same float ops in the same
// order, so that calibration observes the activation's output once (as
// PyTorch observes a GELU module's) and quanta-quantize makes each one
// 256-entry table. A chain whose intermediate value has another user (here
// a graph output) stays node by node.
// RUN: quant-translate --import-onnx %S/Inputs/unary_chains.onnx | FileCheck %s --check-prefix=IMPORT
// RUN: %python -c "import numpy as np; r = np.random.default_rng(3); [np.save('%t.cal%d.npy' % i, r.standard_normal((4, 8)).astype(np.float32)) for i in range(3)]"
// RUN: quant-translate --import-onnx %S/Inputs/unary_chains.onnx --mlir-print-debuginfo | quant-opt --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize --mlir-print-op-on-diagnostic=false 2>/dev/null | FileCheck %s --check-prefix=INT8
// RUN: quant-run %t.ptq.mlir --input=%t.cal2.npy --output=%t.ref0.npy --output=%t.ref1.npy --output=%t.ref2.npy --output=%t.ref3.npy
// RUN: quant-run %t.ptq.mlir --input=%t.cal2.npy --pass-pipeline='builtin.module(quanta-quantize,quanta-lower-x86)' --output=%t.int0.npy --output=%t.int1.npy --output=%t.int2.npy --output=%t.int3.npy
// RUN: %python -c "import sys, numpy as np; print(*('equal' if np.array_equal(np.load(sys.argv[1] + f'{i}.npy'), np.load(sys.argv[2] + f'{i}.npy')) else 'DIFFERENT' for i in range(4)))" %t.int %t.ref | FileCheck %s --check-prefix=EXEC

// IMPORT-LABEL: func.func @main
// IMPORT: linalg.matmul
// IMPORT: linalg.generic
// IMPORT-NEXT: ^bb0
// IMPORT-NEXT: arith.divf
// IMPORT-NEXT: math.erf
// IMPORT-NEXT: arith.addf
// IMPORT-NEXT: arith.mulf %in,
// IMPORT-NEXT: arith.mulf
// IMPORT-NEXT: linalg.yield
// IMPORT: linalg.matmul
// IMPORT: linalg.generic
// IMPORT-NEXT: ^bb0
// IMPORT-NEXT: arith.negf
// IMPORT-NEXT: math.exp
// IMPORT-NEXT: arith.addf
// IMPORT-NEXT: arith.divf
// IMPORT-NEXT: arith.mulf %in,
// IMPORT-NEXT: linalg.yield
// IMPORT: linalg.matmul
// IMPORT: linalg.generic
// IMPORT-NEXT: ^bb0
// IMPORT-NEXT: arith.negf
// IMPORT-NEXT: linalg.yield
// IMPORT: linalg.generic
// IMPORT-NEXT: ^bb0
// IMPORT-NEXT: math.exp
// IMPORT-NEXT: linalg.yield

// INT8-COUNT-2: tensor.extract %{{.*}} : tensor<256xi8>
// INT8-NOT: math.erf

// EXEC: equal equal equal equal

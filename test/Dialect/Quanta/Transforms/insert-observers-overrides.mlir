// RUN: quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{override=linalg.matmul=qnnpack})' | FileCheck %s --check-prefix=BYOP
// RUN: quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{override=fc2=none})' | FileCheck %s --check-prefix=BYLOC
// RUN: quant-opt %s --pass-pipeline='builtin.module(quanta-prepare{override=fc2=none})' | FileCheck %s --check-prefix=BYLOC
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{override=fc3=none})' 2>&1 | FileCheck %s --check-prefix=TYPO
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-insert-observers{override=classifier=none})' 2>&1 | FileCheck %s --check-prefix=NOMATCH

// Overrides name an op (every linalg.matmul of the module) or a location
// (one layer, in whichever function it is). An override that names nothing
// is an error, not a silently ignored option: a typo would otherwise leave
// the layer it meant to keep in float quantized.

// BYOP-LABEL: func @first
// BYOP: quanta.observe %{{.*}} {name = "first/arg0", observer = #quanta.histogram<>}
// BYOP: quanta.observe %{{.*}} {name = "first/fc1.weight", observer = #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>
// BYOP-LABEL: func @second
// BYOP: quanta.observe %{{.*}} {name = "second/arg0", observer = #quanta.histogram<>}
// BYOP: quanta.observe %{{.*}} {name = "second/fc2.weight", observer = #quanta.min_max<dtype = qint8, qscheme = per_tensor_symmetric>

// BYLOC-LABEL: func @first
// BYLOC: quanta.observe %{{.*}} {name = "first/arg0", observer = #quanta.histogram<reduce_range = true>}
// BYLOC: quanta.observe %{{.*}} {name = "first/fc1.weight", observer = #quanta.per_channel_min_max<
// BYLOC: quanta.observe %{{.*}} {name = "first/fc1.output"
// BYLOC-LABEL: func @second
// BYLOC-NOT: quanta.observe
// BYLOC: return

// TYPO: error: quanta-insert-observers: override 'fc3' names no op and no location of the module; did you mean 'fc1'?
// NOMATCH: error: quanta-insert-observers: override 'classifier' names no op and no location of the module{{$}}

func.func @first(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.5> : tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%fill : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc1")
  return %mm : tensor<2x3xf32>
}

func.func @second(%x: tensor<2x4xf32>) -> tensor<2x3xf32> {
  %w = arith.constant dense<0.25> : tensor<4x3xf32>
  %zero = arith.constant 0.0 : f32
  %init = tensor.empty() : tensor<2x3xf32>
  %fill = linalg.fill ins(%zero : f32) outs(%init : tensor<2x3xf32>) -> tensor<2x3xf32>
  %mm = linalg.matmul ins(%x, %w : tensor<2x4xf32>, tensor<4x3xf32>) outs(%fill : tensor<2x3xf32>) -> tensor<2x3xf32> loc("fc2")
  return %mm : tensor<2x3xf32>
}

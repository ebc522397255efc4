// REQUIRES: avx2
// RUN: %python %S/Inputs/random_arguments.py %S/Inputs/window_exec.mlir %t
// RUN: for e in max_pool_padded sum_pool_dilated depthwise_padded u8_max_pool s8_pool_sums; do \
// RUN:   inputs=$(ls %t.$e.[0-9].npy | sed 's/^/--input=/'); \
// RUN:   quant-run %S/Inputs/window_exec.mlir --guard-pages=after --entry=$e $inputs --output=%t.$e.loops.npy || exit 1; \
// RUN:   for pipeline in 'quanta-lower-x86' 'quanta-lower-x86{isa=avx2}' 'quanta-lower-x86{isa=generic}'; do \
// RUN:     quant-run %S/Inputs/window_exec.mlir --guard-pages=after --entry=$e $inputs --pass-pipeline="builtin.module($pipeline)" --output=%t.$e.lowered.npy || exit 1; \
// RUN:     cmp %t.$e.loops.npy %t.$e.lowered.npy && echo "$e $pipeline equal" || exit 1; \
// RUN:   done; \
// RUN:   quant-run %S/Inputs/window_exec.mlir --entry=$e $inputs --target-triple=aarch64-linux-gnu --mcpu=cortex-a72 \
// RUN:     --pass-pipeline='builtin.module(quanta-lower-neon)' --output=%t.$e.neon.npy || exit 1; \
// RUN:   cmp %t.$e.loops.npy %t.$e.neon.npy && echo "$e neon equal" || exit 1; \
// RUN: done | FileCheck %s
// RUN: quant-opt %S/Inputs/window_exec.mlir --quanta-lower-x86 | FileCheck %s --check-prefix=LOWERED

// Pools and depthwise convolutions, float and integer, lowered to one loop
// nest over their outputs (taps unrolled, channels innermost), reading
// through their padding instead of a padded copy, give the same bytes as
// the ops' own loops on random inputs (int8 inputs over their whole range):
// the same values in the same order.
// CHECK-COUNT-4: max_pool_padded {{.*}} equal
// CHECK-COUNT-4: sum_pool_dilated {{.*}} equal
// CHECK-COUNT-4: depthwise_padded {{.*}} equal
// CHECK-COUNT-4: u8_max_pool {{.*}} equal
// CHECK-COUNT-4: s8_pool_sums {{.*}} equal

// The padded image is read in place: each tap's position is checked
// against the image (an unsigned compare catches the rows before it),
// clamped into it and the padding value selected outside.
// LOWERED-LABEL: func.func @max_pool_padded
// LOWERED-NOT: tensor.pad
// LOWERED-NOT: linalg.pooling
// LOWERED: linalg.generic
// LOWERED-SAME: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// LOWERED: arith.cmpi ule
// LOWERED: %[[VALUE:.*]] = tensor.extract %arg0
// LOWERED: %[[READ:.*]] = arith.select %{{.*}}, %[[VALUE]], %cst : f32
// LOWERED: arith.maximumf %{{.*}}, %[[READ]] : f32
// LOWERED-COUNT-8: arith.maximumf
// LOWERED-NOT: arith.maximumf
// LOWERED: linalg.yield
// LOWERED-LABEL: func.func @sum_pool_dilated
// LOWERED-NOT: tensor.pad
// LOWERED-COUNT-9: arith.addf
// LOWERED-NOT: arith.addf
// LOWERED: linalg.yield
// LOWERED-LABEL: func.func @depthwise_padded
// LOWERED-NOT: tensor.pad
// LOWERED-NOT: linalg.depthwise
// LOWERED-COUNT-9: arith.mulf
// LOWERED: linalg.yield
// LOWERED-LABEL: func.func @u8_max_pool
// LOWERED-NOT: tensor.pad
// LOWERED: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// LOWERED-COUNT-9: arith.maxui
// LOWERED: linalg.yield
// LOWERED-LABEL: func.func @s8_pool_sums
// LOWERED: iterator_types = ["parallel", "parallel", "parallel", "parallel"]
// LOWERED-COUNT-9: arith.addi %{{.*}}, %{{.*}} : i32
// LOWERED: linalg.yield

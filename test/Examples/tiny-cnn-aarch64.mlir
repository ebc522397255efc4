// The bundled example as `make demo` quantizes it (the x86 qconfig: PTQ on
// the eight calibration batches, then quanta-quantize), compiled for
// AArch64 by quanta-lower-neon for each level and run under qemu on a
// calibration batch and a held-out image outside the calibrated range:
// the outputs are the same bytes as the x86 lowering's on this machine
// (convolutions as GEMMs over windows, the depthwise loop, integer add,
// tables, pooling, the fully connected layer).

// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=x86 data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy,%quanta_src_root/examples/calibration/batch4.npy,%quanta_src_root/examples/calibration/batch5.npy,%quanta_src_root/examples/calibration/batch6.npy,%quanta_src_root/examples/calibration/batch7.npy quiet' --quanta-quantize -o %t.int8.mlir
// RUN: for input in %quanta_src_root/examples/calibration/batch0.npy %S/Inputs/heldout1.npy; do \
// RUN:   name=$(basename $input .npy); \
// RUN:   quant-run %t.int8.mlir --input=$input --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.$name.x86.npy || exit 1; \
// RUN:   for config in cortex-a72:cortex-a72 neoverse-n1:neoverse-n1 neoverse-v1:max; do \
// RUN:     cpu=${config%%%%:*} qemu=${config#*:}; \
// RUN:     quant-run %t.int8.mlir --input=$input --target-triple=aarch64-linux-gnu --mcpu=$cpu --qemu-cpu=$qemu --pass-pipeline='builtin.module(quanta-lower-neon)' --output=%t.$name.$cpu.npy || exit 1; \
// RUN:     cmp %t.$name.$cpu.npy %t.$name.x86.npy && echo "$name $cpu identical" || exit 1; \
// RUN:   done; \
// RUN: done | FileCheck %s
// CHECK: batch0 cortex-a72 identical
// CHECK: batch0 neoverse-n1 identical
// CHECK: batch0 neoverse-v1 identical
// CHECK: heldout1 cortex-a72 identical
// CHECK: heldout1 neoverse-n1 identical
// CHECK: heldout1 neoverse-v1 identical

// The README's quickstart, exactly as written (scripts/quickstart.sh
// extracts its commands), on the bundled digits model and calibration
// folder: the driver's phases, the C program's digits, the Python call.
// RUN: bash %quanta_src_root/scripts/quickstart.sh %quanta_obj_root %t > %t.log 2>&1 || (cat %t.log; false)
// RUN: FileCheck %s < %t.log
// CHECK: $ make
// CHECK: $ build/bin/quanta examples/digits/digits_cnn.onnx
// CHECK: quanta: conversion   int8, 0 float compute op(s) left
// CHECK: quanta: check        int8 vs float on examples/digits/calibration/batch7.npy, held out
// CHECK-NEXT: SQNR {{[0-9.]+}} dB, max |error| {{[0-9.]+}}, top-1 agreement {{[0-9.]+}}% of 32 rows
// CHECK: quanta: code         out/digits_cnn.o, out/digits_cnn.h
// CHECK: $ clang-22
// CHECK-NEXT: {{([0-9] )+}}... (400 images)
// CHECK: 'top1_agreement'
//
// The C program linking the object gives the JIT's bytes: its logits on
// the 400 held-out images against the int8 IR of the same run (the
// driver is deterministic) run by the JIT, image by image.
// RUN: cd %t && out/classify examples/digits/test_images.npy %t/logits.bin
// RUN: cd %t && build/bin/quanta examples/digits/digits_cnn.onnx --data=examples/digits/calibration --emit=mlir -o %t/int8.mlir
// RUN: %python %S/Inputs/quickstart_bytes.py %t/int8.mlir %t/examples/digits/test_images.npy %t/logits.bin | FileCheck %s --check-prefix=BYTES
// BYTES: 400 images: the C program's logits equal the JIT's, byte for byte

// Same input, same bytes out: the calibrated IR, the statistics file and
// the object file of two runs are identical, and calibrating on 2 threads
// (the float kernels' rows in parallel) gives the statistics of 1 thread.
// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=x86 data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy quiet' --quanta-quantize -o %t.a.mlir
// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-ptq='qconfig=x86 data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy quiet' --quanta-quantize -o %t.b.mlir
// RUN: cmp %t.a.mlir %t.b.mlir
// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-prepare=qconfig=x86 --quanta-calibrate='data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy quiet threads=1' --quanta-export-statistics=file=%t.1.json -o /dev/null
// RUN: quant-opt %quanta_src_root/examples/tiny_cnn.mlir --quanta-prepare=qconfig=x86 --quanta-calibrate='data=%quanta_src_root/examples/calibration/batch0.npy,%quanta_src_root/examples/calibration/batch1.npy,%quanta_src_root/examples/calibration/batch2.npy,%quanta_src_root/examples/calibration/batch3.npy quiet threads=2' --quanta-export-statistics=file=%t.2.json -o /dev/null
// RUN: cmp %t.1.json %t.2.json
// RUN: quant-compile %t.a.mlir --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.a.o --header=%t.a.h
// RUN: quant-compile %t.a.mlir --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.b.o --header=%t.b.h
// RUN: cmp %t.a.o %t.b.o
// RUN: cmp %t.a.h %t.b.h
// RUN: quant-compile %t.a.mlir --num-threads=2 --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.c.o
// RUN: quant-compile %t.a.mlir --num-threads=2 --pass-pipeline='builtin.module(quanta-lower-x86)' -o %t.d.o
// RUN: cmp %t.c.o %t.d.o

// Every dependency of Quanta's libraries points down the layers of
// docs/Architecture.md (links and includes); a library linking one above it
// and a header including one above it are reported.
// RUN: %python %quanta_src_root/scripts/check-layering.py %quanta_src_root | FileCheck %s
// CHECK: check-layering: every dependency points down (11 layers)

// RUN: rm -rf %t && mkdir -p %t/lib/Support %t/include/quanta/Dialect/Quanta/IR
// RUN: echo 'target_link_libraries(QuantaSupport PUBLIC QuantaTarget MLIR)' > %t/lib/Support/CMakeLists.txt
// RUN: echo '#include "quanta/Calibration/Calibration.h"' > %t/include/quanta/Dialect/Quanta/IR/Bad.h
// RUN: echo '#include "quanta-c/Quanta.h"' > %t/include/quanta/Dialect/Quanta/IR/BadC.h
// RUN: mkdir -p %t/lib/Extra && echo 'target_link_libraries(QuantaExtra PUBLIC QuantaSupport)' > %t/lib/Extra/CMakeLists.txt
// RUN: not %python %quanta_src_root/scripts/check-layering.py %t | FileCheck %s --check-prefix=BAD
// BAD-DAG: Extra/CMakeLists.txt:1: QuantaExtra is in no layer of check-layering.py
// BAD-DAG: Support/CMakeLists.txt:1: QuantaSupport (layer 2) links QuantaTarget (layer 6)
// BAD-DAG: IR/Bad.h:1: QuantaDialect (layer 3) includes quanta/Calibration/Calibration.h of QuantaCalibration (layer 7)
// BAD-DAG: IR/BadC.h:1: QuantaDialect (layer 3) includes quanta-c/Quanta.h of QuantaCAPI (layer 10)
// BAD: check-layering: 4 violations of the layers

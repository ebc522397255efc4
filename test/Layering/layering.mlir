// Every dependency of Quanta's libraries points down the layers of
// docs/Architecture.md (links and includes); a library linking one above it
// and a header including one above it are reported.
// RUN: %python %quanta_src_root/scripts/check-layering.py %quanta_src_root | FileCheck %s
// CHECK: check-layering: every dependency points down (11 layers)

// RUN: rm -rf %t && mkdir -p %t/lib/Support %t/include/quanta/Dialect/Quanta/IR
// RUN: echo 'target_link_libraries(QuantaSupport PUBLIC QuantaTarget MLIR)' > %t/lib/Support/CMakeLists.txt
// RUN: echo '#include "quanta/Calibration/Calibration.h"' > %t/include/quanta/Dialect/Quanta/IR/Bad.h
// RUN: not %python %quanta_src_root/scripts/check-layering.py %t | FileCheck %s --check-prefix=BAD
// BAD: Support/CMakeLists.txt:1: QuantaSupport (layer 2) links QuantaTarget (layer 6)
// BAD: IR/Bad.h:1: QuantaDialect (layer 3) includes quanta/Calibration/Calibration.h of QuantaCalibration (layer 7)
// BAD: check-layering: 2 dependencies point up the layers

// The JIT's compile cache: a module compiled once is loaded from the cache
// the next time (same output bytes), wherever it is read from; another
// module or another target is
// compiled; a damaged entry is reported, compiled again and replaced, never
// used; an unwritable cache is a warning and the module still runs;
// --compile-cache overrides $QUANTA_CACHE_DIR, and "off" keeps nothing.

// RUN: rm -rf %t.cache %t.flag && mkdir -p %t.data
// RUN: %python -c "import numpy as np; np.save('%t.data/x.npy', np.arange(8, dtype=np.float32).reshape(2, 4))"

// First compile: one entry; second: a hit, the same bytes.
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=double --input=%t.data/x.npy --output=%t.1.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: ls %t.cache | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=ONE
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=double --input=%t.data/x.npy --output=%t.2.npy --benchmark=1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.1.npy %t.2.npy
// The same module read from another file (other locations) hits too.
// RUN: cp %s %t.copy.mlir
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %t.copy.mlir --entry=double --input=%t.data/x.npy --output=%t.copy.npy --benchmark=1 | FileCheck %s --check-prefix=HIT
// RUN: cmp %t.1.npy %t.copy.npy
// MISS: double: compiled in {{[0-9.]+}} s
// HIT: double: loaded from the compile cache in {{[0-9.]+}} s
// ONE: {{^1$}}

// Another module (the other function) and another target (the generic
// x86-64 CPU) miss: two more entries.
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=square --input=%t.data/x.npy --output=%t.square.npy --benchmark=1 | FileCheck %s --check-prefix=SQUARE
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=double --mcpu=x86-64 --input=%t.data/x.npy --output=%t.generic.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: cmp %t.1.npy %t.generic.npy
// RUN: ls %t.cache | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=THREE
// SQUARE: square: compiled in
// THREE: {{^3$}}

// A damaged entry (one byte flipped, or cut short) is detected, removed,
// compiled again and replaced; the output stays the same.
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=square --input=%t.data/x.npy --output=%t.square2.npy --benchmark=1 | FileCheck %s --check-prefix=SQUARE-HIT
// RUN: %python -c "import glob, os; p = max(glob.glob('%t.cache/llvmcache-quanta-*'), key=os.path.getmtime); b = bytearray(open(p, 'rb').read()); b[len(b) // 2] ^= 0xff; open(p, 'wb').write(b)"
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=square --input=%t.data/x.npy --output=%t.square3.npy --benchmark=1 2>&1 | FileCheck %s --check-prefix=DAMAGED
// RUN: cmp %t.square.npy %t.square3.npy
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=square --input=%t.data/x.npy --output=%t.square4.npy --benchmark=1 | FileCheck %s --check-prefix=SQUARE-HIT
// RUN: %python -c "import glob, os; p = max(glob.glob('%t.cache/llvmcache-quanta-*'), key=os.path.getmtime); b = open(p, 'rb').read(); open(p, 'wb').write(b[:len(b) - 100])"
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --entry=square --input=%t.data/x.npy --output=%t.square5.npy --benchmark=1 2>&1 | FileCheck %s --check-prefix=SHORT
// RUN: cmp %t.square.npy %t.square5.npy
// SQUARE-HIT: square: loaded from the compile cache
// DAMAGED: warning: quant-run: the compile cache entry '{{.*}}llvmcache-quanta-{{[0-9a-f]+}}' is damaged (its checksum does not match its contents); it was removed; compiling again
// DAMAGED: square: compiled in
// SHORT: warning: quant-run: the compile cache entry '{{.*}}' is damaged (its size is wrong); it was removed; compiling again
// SHORT: square: compiled in

// A cache that cannot be written: a warning, and the module runs.
// RUN: touch %t.file
// RUN: env QUANTA_CACHE_DIR=%t.file/cache quant-run %s --entry=double --input=%t.data/x.npy --output=%t.3.npy --benchmark=1 2>&1 | FileCheck %s --check-prefix=UNWRITABLE
// RUN: cmp %t.1.npy %t.3.npy
// UNWRITABLE: warning: quant-run: cannot create the compile cache directory '{{.*}}file/cache': {{.*}} (the module is compiled, not cached)
// UNWRITABLE: double: compiled in

// The option wins over the environment; "off" compiles and keeps nothing.
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --compile-cache=%t.flag --entry=double --input=%t.data/x.npy --output=%t.4.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: ls %t.flag | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=ONE
// RUN: env QUANTA_CACHE_DIR=%t.cache quant-run %s --compile-cache=off --entry=double --input=%t.data/x.npy --output=%t.5.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: env QUANTA_CACHE_DIR=off quant-run %s --entry=double --input=%t.data/x.npy --output=%t.6.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: ls %t.cache | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=THREE

// A --pass-pipeline is part of the compilation: a module compiled with it
// before is loaded from the cache without running it (print-ir prints
// nothing the second time), and another pipeline is another entry; a
// pipeline that changes the entry's signature is an error (a cached
// compilation is called with the signature before it).
// RUN: rm -rf %t.pipeline
// RUN: env QUANTA_CACHE_DIR=%t.pipeline quant-run %s --entry=double --pass-pipeline='builtin.module(print-ir{label=LOWERING})' --input=%t.data/x.npy --output=%t.p1.npy --benchmark=1 2>&1 | FileCheck %s --check-prefix=PIPELINE-MISS
// RUN: env QUANTA_CACHE_DIR=%t.pipeline quant-run %s --entry=double --pass-pipeline='builtin.module(print-ir{label=LOWERING})' --input=%t.data/x.npy --output=%t.p2.npy --benchmark=1 2>&1 | FileCheck %s --check-prefix=PIPELINE-HIT
// RUN: cmp %t.1.npy %t.p2.npy
// RUN: env QUANTA_CACHE_DIR=%t.pipeline quant-run %s --entry=double --pass-pipeline='builtin.module(canonicalize)' --input=%t.data/x.npy --output=%t.p3.npy --benchmark=1 | FileCheck %s --check-prefix=MISS
// RUN: cmp %t.1.npy %t.p3.npy
// RUN: ls %t.pipeline | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=TWO
// RUN: not env QUANTA_CACHE_DIR=%t.pipeline quant-run %s --entry=double --pass-pipeline='builtin.module(one-shot-bufferize{bufferize-function-boundaries})' --input=%t.data/x.npy 2>&1 | FileCheck %s --check-prefix=SIGNATURE
// PIPELINE-MISS: IR Dump LOWERING
// PIPELINE-MISS: double: compiled in
// PIPELINE-HIT-NOT: IR Dump
// PIPELINE-HIT: double: loaded from the compile cache in
// TWO: {{^2$}}
// SIGNATURE: error: quant-run: the pass pipeline 'builtin.module(one-shot-bufferize{bufferize-function-boundaries})' changed 'double''s signature from '(tensor<2x4xf32>) -> tensor<2x4xf32>' to '(memref<2x4xf32{{.*}}>) -> memref<2x4xf32>': run it with quant-opt first

// Calibration compiles the same module each time (the session's address
// is read at run time, not written into the code): the second calibration
// adds no entry.
// RUN: rm -rf %t.calibration
// RUN: env QUANTA_CACHE_DIR=%t.calibration quant-opt %s --quanta-prepare --quanta-calibrate='data=%t.data/x.npy entry=double quiet' -o /dev/null
// RUN: env QUANTA_CACHE_DIR=%t.calibration quant-opt %s --quanta-prepare --quanta-calibrate='data=%t.data/x.npy entry=double quiet' -o /dev/null
// RUN: ls %t.calibration | grep -c '^llvmcache-quanta-' | FileCheck %s --check-prefix=ONE

func.func @double(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %empty = tensor.empty() : tensor<2x4xf32>
  %y = linalg.add ins(%x, %x : tensor<2x4xf32>, tensor<2x4xf32>) outs(%empty : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

func.func @square(%x: tensor<2x4xf32>) -> tensor<2x4xf32> {
  %empty = tensor.empty() : tensor<2x4xf32>
  %y = linalg.mul ins(%x, %x : tensor<2x4xf32>, tensor<2x4xf32>) outs(%empty : tensor<2x4xf32>) -> tensor<2x4xf32>
  return %y : tensor<2x4xf32>
}

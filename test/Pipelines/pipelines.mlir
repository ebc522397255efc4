// The named pipelines take the options of the passes they run, parsed by
// those passes: quanta-ptq those of quanta-insert-observers and
// quanta-calibrate (record-observed included), quanta-compile those of
// quanta-quantize and quanta-lower-cpu; quanta-prepare no longer takes a
// threads= it would ignore. (The pipelines are dumped before they run, and
// fail, on this module without functions.)
// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-ptq{record-observed=true qconfig=qnnpack threads=2 data=a.npy})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=PTQ
// PTQ: quanta-insert-observers{{.*}} qconfig=qnnpack}
// PTQ: quanta-calibrate{{.*}}data={a.npy}{{.*}} record-observed=true threads=2}
// PTQ: quanta-freeze-qparams

// RUN: not quant-opt %s --pass-pipeline='builtin.module(quanta-compile{report-float-ops=true float=false keep-float=softmax,layer-norm})' --dump-pass-pipeline -o /dev/null 2>&1 | FileCheck %s --check-prefix=COMPILE
// COMPILE: quanta-freeze-qparams
// COMPILE: quanta-quantize{keep-float={softmax,layer-norm} report-float-ops=true}
// COMPILE: quanta-propagate-layout
// COMPILE: quanta-lower-cpu{float=false}

// RUN: not quant-opt %s --quanta-prepare='threads=2' 2>&1 | FileCheck %s --check-prefix=PREPARE
// PREPARE: error: quanta-prepare: none of its passes takes 'threads=2':
// PREPARE-NEXT: quanta-insert-observers: {{.*}}no such option threads

// A value the owning pass rejects is reported with each pass's reason.
// RUN: not quant-opt %s --quanta-ptq='batch-limit=many' 2>&1 | FileCheck %s --check-prefix=VALUE
// VALUE: for the --batch-limit option: 'many' value invalid for long argument!
// VALUE: error: quanta-ptq: none of its passes takes 'batch-limit=many':
// VALUE-NEXT: quanta-insert-observers: {{.*}}no such option batch-limit
// VALUE-NEXT: quanta-calibrate: rejects its value

// quanta-lower-cpu lowers for x86-64 or AArch64, nothing else.
// RUN: not quant-opt %s --quanta-lower-cpu 2>&1 | FileCheck %s --check-prefix=OTHER
// OTHER: error: quanta-lower-cpu: no kernels for other; the target must be x86-64 or AArch64

module attributes {quanta.target = "other"} {
}

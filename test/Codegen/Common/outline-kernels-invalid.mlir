// RUN: quant-opt %s --quanta-outline-kernels=min-ops=0 -verify-diagnostics

// A kernel holds at least one op.
// expected-error @below {{quanta-outline-kernels: min-ops must be at least 1, got 0}}
module {
}

// RUN: quant-opt %s --quanta-outline-loops=min-ops=0 -verify-diagnostics

// A loop nest holds at least one op.
// expected-error @below {{quanta-outline-loops: min-ops must be at least 1, got 0}}
module {
}

// RUN: quant-opt %s -split-input-file -verify-diagnostics

// expected-error @+1 {{'quanta.threads' must be an i64 thread count >= 0 (0: the OpenMP runtime's choice), got -1 : i64}}
module attributes {quanta.threads = -1 : i64} {
}

// -----

// expected-error @+1 {{'quanta.threads' must be an i64 thread count >= 0 (0: the OpenMP runtime's choice), got "2"}}
module attributes {quanta.threads = "2"} {
}

// -----

// expected-error @+1 {{'quanta.threads' belongs on a builtin.module}}
func.func @f() attributes {quanta.threads = 2 : i64} {
  return
}

// -----

func.func @g(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'quanta.parallel' is an attribute of scf.for or scf.parallel: unit, or an i64 count >= 0 of the iterations of its innermost loops}}
  scf.while : () -> () {
    %false = arith.constant false
    scf.condition(%false)
  } do {
    scf.yield
  } attributes {quanta.parallel}
  return
}

// -----

func.func @h(%n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  // expected-error @+1 {{'quanta.parallel' is an attribute of scf.for or scf.parallel: unit, or an i64 count >= 0 of the iterations of its innermost loops}}
  scf.for %i = %c0 to %n step %c1 {
  } {quanta.parallel = -3 : i64}
  return
}

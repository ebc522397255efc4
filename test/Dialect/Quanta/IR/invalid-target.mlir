// RUN: quant-opt %s --split-input-file -verify-diagnostics

// The module attribute recording the target (quanta.target: what the tools'
// --target-triple, --mcpu and --mattr resolve to, read by the kernel
// lowerings) must describe a target, on a module.

// expected-error @+1 {{'quanta.target' unknown aarch64 feature 'sve' in target 'aarch64+sve'}}
module attributes {quanta.target = "aarch64+sve"} {
}

// -----

// expected-error @+1 {{'quanta.target' unknown x86_64 feature 'dotprod' in target 'x86_64+dotprod'}}
module attributes {quanta.target = "x86_64+dotprod"} {
}

// -----

// expected-error @+1 {{'quanta.target' unknown architecture 'riscv' in target 'riscv+neon' (expected x86_64, aarch64 or other)}}
module attributes {quanta.target = "riscv+neon"} {
}

// -----

// expected-error @+1 {{'quanta.target' must be a string such as "aarch64+neon+dotprod"}}
module attributes {quanta.target = 3} {
}

// -----

module {
  // expected-error @+1 {{'quanta.target' belongs on a builtin.module}}
  func.func @f() attributes {quanta.target = "aarch64+neon"} {
    return
  }
}

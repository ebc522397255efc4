#!/usr/bin/python3
"""Estimates the speed of Quanta's AArch64 kernels with llvm-mca (there is no
Arm hardware here): a benchmark program, not a test.

For each kernel of quanta-lower-neon (ARMv8.0 smull + sadalp, dotprod sdot,
i8mm smmla, and the f32 fmla one) and each shape, it compiles a module with
quant-compile for AArch64 and prints:

- the inner loop: the k loop of the main tile, taken from the object file's
  disassembly, analysed by llvm-mca-22 (Neoverse N1 for ARMv8.0, dotprod and
  f32, Neoverse V1 for i8mm: LLVM 22's Cortex-A76 model is a Cortex-A57's),
  as MACs per cycle and as a fraction of the peak;
- the peak, measured under the same model in the same run: a loop of 12
  independent instructions of the kernel's own kind (smull and sadalp
  alternating for ARMv8.0, whose bound is 8 MACs a cycle);
- the whole kernel (tiles, epilogues, the packing of smmla's row pairs):
  the program is run once under qemu-aarch64 with `-d exec,nochain`, which
  logs every translation block it executes; each block's instructions,
  analysed by llvm-mca as a loop body (its throughput, not the latency
  across blocks), times its count gives the estimated cycles. Every
  function of the kernel's object file counts (the entry points, the loop
  nests quanta-outline-loops makes functions of); a block llvm-mca cannot
  analyse is reported and counted at one cycle an instruction. MACs count
  every tap of a padded convolution, as oneDNN's GOPS do. A whole-kernel
  figure above 100% of the peak is an error: the estimate is broken.

    /usr/bin/python3 benchmarks/neon_kernels_mca.py [--build build] [--check]

--check: one small GEMM per level, in seconds; fails unless each
whole-kernel figure is between 10% and 100% of its level's peak (make check
runs it: test/Benchmarks/neon-kernels-mca.mlir).

Needs quant-compile (make), clang-22, lld-22, qemu-user, the AArch64 cross
C library, llvm-22 (llvm-objdump-22, llvm-mca-22) and numpy (make check
installs them all).
"""

import argparse
import collections
import os
import re
import subprocess
import sys
import tempfile

import numpy as np

# name, quanta-lower-neon level, --mcpu of the code, llvm-mca CPU, qemu CPU,
# the instructions that do the MACs and how many each does, element type.
KERNELS = [
    ("ARMv8.0 smull+sadalp", "baseline", "cortex-a72", "neoverse-n1",
     "cortex-a72", {"smull": 8, "smull2": 8}, "i8"),
    ("dotprod sdot", "dotprod", "neoverse-n1", "neoverse-n1", "neoverse-n1",
     {"sdot": 16}, "i8"),
    ("i8mm smmla", "i8mm", "neoverse-v1", "neoverse-v1", "max",
     {"smmla": 32, "usmmla": 32, "sdot": 16}, "i8"),
    ("f32 fmla", "baseline", "neoverse-n1", "neoverse-n1", "neoverse-n1",
     {"fmla": 4}, "f32"),
]
# The instruction mix whose throughput is the peak: 12 independent ones.
PEAK_LOOPS = {
    "ARMv8.0 smull+sadalp": [
        f"smull v{i}.8h, v30.8b, v31.8b" if i % 2 == 0 else
        f"sadalp v{i}.4s, v30.8h" for i in range(12)],
    "dotprod sdot": [f"sdot v{i}.4s, v30.16b, v31.16b" for i in range(12)],
    "i8mm smmla": [f"smmla v{i}.4s, v30.16b, v31.16b" for i in range(12)],
    "f32 fmla": [f"fmla v{i}.4s, v30.4s, v31.4s" for i in range(12)],
}
# MACs per instruction of the peak loop (smull+sadalp: 8 per pair).
PEAK_MACS = {"ARMv8.0 smull+sadalp": 4, "dotprod sdot": 16, "i8mm smmla": 32,
             "f32 fmla": 4}
# A single row (M = 1) uses each weight once: its limit is loading them.
# The load-bound loop: 12 vectors of 16 weight bytes in three 4-register
# ld1 (the cheapest form under both models: ldr q or ldp cost more
# dispatch), each feeding the instructions a GEMV spends on it (i8mm's GEMV
# is sdot's: smmla would compute a row pair), and the useful MACs of each
# 16 bytes. The limit is the lower of that loop's rate and the peak.
GEMV_STEPS = {
    "ARMv8.0 smull+sadalp": (lambda i: [
        f"smull v{24 + i % 3}.8h, v{i}.8b, v30.8b",
        f"smull2 v{27 + i % 3}.8h, v{i}.16b, v30.16b",
        f"sadalp v{12 + i}.4s, v{24 + i % 3}.8h",
        f"sadalp v{12 + i}.4s, v{27 + i % 3}.8h"], 16),
    "dotprod sdot": (lambda i: [f"sdot v{12 + i}.4s, v{i}.16b, v30.4b[{i % 4}]"],
                     16),
    "f32 fmla": (lambda i: [f"fmla v{12 + i}.4s, v{i}.4s, v30.s[{i % 4}]"], 4),
}
GEMV_STEPS["i8mm smmla"] = GEMV_STEPS["dotprod sdot"]


def gemv_limit(name, mca_cpu, peak):
    """MACs per cycle of GEMV_STEPS' loop under llvm-mca, at most `peak`."""
    steps, macs = GEMV_STEPS[name]
    loop = []
    for i in range(0, 12, 4):
        loop.append((0, "ld1", f"{{v{i}.16b, v{i + 1}.16b, v{i + 2}.16b, "
                               f"v{i + 3}.16b}}, [x0], #64"))
    for i in range(12):
        loop += [(0, *line.split(" ", 1)) for line in steps(i)]
    return min(peak, 12 * macs / mca_cycles(loop, mca_cpu, 1000))

# --check: small enough for make check (seconds under qemu).
CHECK_SHAPES = [("GEMM 32x256x64", ("gemm", 32, 256, 64))]
SHAPES = [("GEMM 64x1024x1024", ("gemm", 64, 1024, 1024)),
          ("GEMM 1x1024x1024", ("gemm", 1, 1024, 1024)),
          ("conv 56x56x64 3x3 pad 1", ("conv", 56, 64, 64)),
          # quanta.qmatmul's depthwise form (int8 levels only): channels in
          # vector lanes, so its "of peak" is against the level's GEMM peak.
          ("depthwise 56x56x64 3x3", ("depthwise", 56, 64, 64))]


def run(command, **kwargs):
    result = subprocess.run(command, capture_output=True, text=True, **kwargs)
    if result.returncode != 0:
        sys.exit(f"{' '.join(command)} failed:\n{result.stderr}")
    return result.stdout


def array(values):
    return "array<i32: " + ", ".join(str(int(v)) for v in values) + ">"


def make_module(shape, element, rng):
    """A module of one function `kernel` for `shape`: an int8 qmatmul (u8
    activations, per-column requantization) or an f32 matmul/convolution
    with constant weights."""
    kind = shape[0]
    if kind == "gemm":
        _, m, k, n = shape
        in_shape, out_shape = f"{m}x{k}", f"{m}x{n}"
    else:
        _, size, c, n = shape
        k, m = (9 if kind == "depthwise" else 9 * c), size * size
        in_shape, out_shape = f"1x{size}x{size}x{c}", f"{m}x{n}"
    if element == "f32":
        weights = rng.standard_normal((k, n)).astype(np.float32)
        if kind == "gemm":
            body = (f"  %init = arith.constant dense<0.0> : tensor<{out_shape}xf32>\n"
                    f"  %w = arith.constant dense<\"0x{weights.tobytes().hex()}\"> : tensor<{k}x{n}xf32>\n"
                    f"  %r = linalg.matmul ins(%a, %w : tensor<{in_shape}xf32>, tensor<{k}x{n}xf32>) "
                    f"outs(%init : tensor<{out_shape}xf32>) -> tensor<{out_shape}xf32>\n")
            result = f"tensor<{out_shape}xf32>"
        else:
            filt = weights.reshape(3, 3, c, n)
            padded = f"1x{size + 2}x{size + 2}x{c}"
            result = f"tensor<1x{size}x{size}x{n}xf32>"
            body = (f"  %zero = arith.constant 0.0 : f32\n"
                    f"  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {{\n"
                    f"  ^bb0(%i: index, %j: index, %l: index, %q: index):\n"
                    f"    tensor.yield %zero : f32\n"
                    f"  }} : tensor<{in_shape}xf32> to tensor<{padded}xf32>\n"
                    f"  %init = arith.constant dense<0.0> : {result}\n"
                    f"  %w = arith.constant dense<\"0x{filt.tobytes().hex()}\"> : tensor<3x3x{c}x{n}xf32>\n"
                    f"  %r = linalg.conv_2d_nhwc_hwcf {{dilations = dense<1> : tensor<2xi64>, "
                    f"strides = dense<1> : tensor<2xi64>}} ins(%p, %w : tensor<{padded}xf32>, "
                    f"tensor<3x3x{c}x{n}xf32>) outs(%init : {result}) -> {result}\n")
        return (f"func.func @kernel(%a: tensor<{in_shape}xf32>) -> {result} {{\n"
                f"{body}  return %r : {result}\n}}\n")
    weights = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    attributes = (f"weights = dense<\"0x{weights.tobytes().hex()}\"> : tensor<{k}x{n}xi8>, "
                  f"weight_zero_points = array<i32: 0>, "
                  f"column_offsets = {array(rng.integers(-50000, 50000, n))}, "
                  f"multipliers = {array(rng.integers(1 << 30, (1 << 31) - 1, n))}, "
                  f"shifts = {array(rng.integers(-16, -7, n))}, "
                  f"output_min = 0 : i32, output_max = 255 : i32")
    types = ("!in = !quant.uniform<u8:f32, 0.05:3>\n"
             "!out = !quant.uniform<u8:f32, 0.1:7>\n")
    if kind == "gemm":
        return types + (
            f"func.func @kernel(%a: tensor<{in_shape}x!in>) -> tensor<{out_shape}x!out> {{\n"
            f"  %r = quanta.qmatmul %a {{{attributes}}} : tensor<{in_shape}x!in> -> tensor<{out_shape}x!out>\n"
            f"  return %r : tensor<{out_shape}x!out>\n}}\n")
    padded = f"1x{size + 2}x{size + 2}x{c}"
    return types + (
        f"func.func @kernel(%a: tensor<{in_shape}x!in>) -> tensor<{out_shape}x!out> {{\n"
        f"  %s = quant.scast %a : tensor<{in_shape}x!in> to tensor<{in_shape}xi8>\n"
        f"  %zp = arith.constant 3 : i8\n"
        f"  %p = tensor.pad %s low[0, 1, 1, 0] high[0, 1, 1, 0] {{\n"
        f"  ^bb0(%i: index, %j: index, %l: index, %q: index):\n"
        f"    tensor.yield %zp : i8\n"
        f"  }} : tensor<{in_shape}xi8> to tensor<{padded}xi8>\n"
        f"  %q = quant.scast %p : tensor<{padded}xi8> to tensor<{padded}x!in>\n"
        f"  %r = quanta.qmatmul %q {{{'depthwise, ' if kind == 'depthwise' else ''}"
        f"window = array<i64: 3, 3, 1, 1, 1, 1>, {attributes}}} "
        f": tensor<{padded}x!in> -> tensor<{out_shape}x!out>\n"
        f"  return %r : tensor<{out_shape}x!out>\n}}\n")


def macs_of(shape):
    if shape[0] == "gemm":
        _, m, k, n = shape
        return m * k * n
    _, size, c, n = shape
    return size * size * 9 * (c if shape[0] == "depthwise" else c * n)


def disassemble(path):
    """[(address, mnemonic, operands)] of every instruction of `path`."""
    instructions = []
    for line in run(["llvm-objdump-22", "-d", "--no-show-raw-insn",
                     path]).splitlines():
        match = re.match(r"\s*([0-9a-f]+):\s+(\S+)\s*(.*)", line)
        if match:
            operands = re.sub(r"\s*(//.*|<.*>)$", "", match.group(3))
            instructions.append((int(match.group(1), 16), match.group(2),
                                 operands))
    return instructions


BRANCH = re.compile(r"^(b|b\..*|cbn?z|tbn?z|ret|br|blr|bl)$")


def mca_cycles(instructions, cpu, iterations=200):
    """Cycles per iteration of `instructions` as a loop body under llvm-mca
    (a trailing branch becomes a branch back to the top); None when there is
    nothing llvm-mca can analyse (only calls and returns) or it fails."""
    lines = [".Ltop:"]
    for _, mnemonic, operands in instructions:
        if mnemonic in ("ret", "br", "blr", "bl"):
            continue
        # Branch targets and pc-relative addresses (adr, adrp, literal
        # loads) become a label llvm-mca accepts: the top of the block.
        operands = re.sub(r"(?<![#\w])0x[0-9a-f]+$", ".Ltop", operands)
        lines.append(f"{mnemonic}\t{operands}")
    if len(lines) == 1:
        return None
    result = subprocess.run(
        ["llvm-mca-22", "-mtriple=aarch64-linux-gnu", f"-mcpu={cpu}",
         "-mattr=+dotprod,+i8mm", f"-iterations={iterations}"],
        input="\n".join(lines) + "\n", capture_output=True, text=True)
    if result.returncode != 0:
        print("llvm-mca cannot analyse a block (counted at one cycle an "
              "instruction): " + result.stderr.strip().splitlines()[0],
              file=sys.stderr)
        return None
    cycles = int(re.search(r"Total Cycles:\s+(\d+)", result.stdout).group(1))
    return cycles / iterations


def inner_loop(instructions, dots):
    """The loop (a backward branch's range, no other branch inside) with the
    most MAC instructions."""
    index_of = {address: i for i, (address, _, _) in enumerate(instructions)}
    best = None
    for i, (address, mnemonic, operands) in enumerate(instructions):
        if not BRANCH.match(mnemonic) or mnemonic in ("ret", "bl", "blr", "br"):
            continue
        target = re.search(r"(?:0x)?([0-9a-f]+)$", operands)
        if not target or int(target.group(1), 16) > address:
            continue
        start = index_of.get(int(target.group(1), 16))
        if start is None:
            continue
        body = instructions[start:i + 1]
        if any(BRANCH.match(m) for _, m, _ in body[:-1]):
            continue
        count = sum(1 for _, m, _ in body if m in dots)
        if count and (best is None or count > best[0]):
            best = (count, body)
    return best


def block_counts(trace, symbols):
    """Executions of each translation block inside `symbols`' ranges."""
    counts = collections.Counter()
    ranges = list(symbols.values())
    with open(trace) as log:
        for line in log:
            match = re.search(r"/([0-9a-f]{8,16})/", line)
            if match:
                pc = int(match.group(1), 16)
                if any(begin <= pc < end for begin, end in ranges):
                    counts[pc] += 1
    return counts


def whole_kernel(directory, header, obj, kernel, shape, by_address):
    """Estimated cycles of one call, from qemu's block trace and llvm-mca."""
    _, _, _, mca_cpu, qemu_cpu, _, element = kernel
    driver = os.path.join(directory, "driver.c")
    with open(driver, "w") as file:
        file.write('#include <stdlib.h>\n#include "kernel.h"\n'
                   "int main(void) {\n"
                   f"  size_t in = {in_elements(shape)}, out = {out_elements(shape)};\n"
                   f"  {'float' if element == 'f32' else 'unsigned char'} *a = calloc(in, 4), *r = calloc(out, 4);\n"
                   "  for (size_t i = 0; i < in; ++i) a[i] = (i * 7) % 13;\n"
                   "  kernel_run(a, r);\n  return r[0] == 123;\n}\n")
    program = os.path.join(directory, "kernel.aarch64")
    run(["clang-22", "--target=aarch64-linux-gnu", "-O1", "-static",
         "-fuse-ld=lld", "-w", "-include", header, driver, obj, "-lm", "-o",
         program])
    trace = os.path.join(directory, "trace.log")
    subprocess.run(["qemu-aarch64", "-cpu", qemu_cpu, "-d", "exec,nochain",
                    "-D", trace, program], capture_output=True)
    instructions = disassemble(program)
    index_of = {address: i for i, (address, _, _) in enumerate(instructions)}
    # Every function the object defines: the entry points and the loop
    # nests outlined into functions of their own.
    kernel_functions = {
        parts[2] for parts in (line.split() for line in run(
            ["llvm-nm-22", "--defined-only", obj]).splitlines())
        if len(parts) == 3 and parts[1] in ("T", "t")}
    symbols = {}
    for line in run(["llvm-nm-22", "-S", "--defined-only", program]).splitlines():
        parts = line.split()
        if len(parts) == 4 and parts[2] in ("T", "t") and \
                parts[3] in kernel_functions:
            symbols[parts[3]] = (int(parts[0], 16),
                                 int(parts[0], 16) + int(parts[1], 16))
    missing = kernel_functions - set(symbols)
    if missing:
        sys.exit(f"functions of the object not found in the program: "
                 f"{', '.join(sorted(missing))}")
    total = 0.0
    unanalysed = collections.Counter()
    for pc, count in block_counts(trace, symbols).items():
        start = index_of[pc]
        end = start
        while end < len(instructions) - 1 and not BRANCH.match(instructions[end][1]):
            end += 1
        block = tuple(instructions[start:end + 1])
        if block not in by_address:
            cycles = mca_cycles(list(block), mca_cpu, iterations=1000)
            by_address[block] = len(block) if cycles is None else cycles
            if cycles is None:
                unanalysed[block] = 0
        if block in unanalysed:
            unanalysed[block] += count
        total += count * by_address[block]
    if unanalysed:
        print(f"  {len(unanalysed)} block(s) with nothing llvm-mca analyses "
              f"(calls, returns), {sum(unanalysed.values())} executions: "
              f"counted at one cycle an instruction", file=sys.stderr)
    return total


def in_elements(shape):
    if shape[0] == "gemm":
        return shape[1] * shape[2]
    return shape[1] * shape[1] * shape[2]


def out_elements(shape):
    if shape[0] == "gemm":
        return shape[1] * shape[3]
    return shape[1] * shape[1] * shape[3]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--build", default="build")
    parser.add_argument("--check", action="store_true",
                        help="one small GEMM per level; fail unless each "
                             "whole-kernel figure is 10%%-100%% of the peak")
    parser.add_argument("--shapes", default="",
                        help="only the shapes whose name contains this")
    args = parser.parse_args()
    shapes = [shape for shape in (CHECK_SHAPES if args.check else SHAPES)
              if args.shapes in shape[0]]
    failures = 0
    quant_compile = os.path.join(args.build, "bin", "quant-compile")
    rng = np.random.default_rng(0)

    print("Peaks under llvm-mca-22 (12 independent instructions a loop):")
    peaks, limits = {}, {}
    for name, _, _, mca_cpu, _, _, _ in KERNELS:
        cycles = mca_cycles([(0, *line.split(" ", 1))
                             for line in PEAK_LOOPS[name]], mca_cpu, 1000)
        peaks[name] = len(PEAK_LOOPS[name]) * PEAK_MACS[name] / cycles
        limits[name] = gemv_limit(name, mca_cpu, peaks[name])
        print(f"  {name:22} {mca_cpu:12} {peaks[name]:6.1f} MACs/cycle, "
              f"M = 1 limit {limits[name]:5.1f}")
    print()
    header = (f"{'kernel':22} {'shape':24} {'inner loop':>22} "
              f"{'MACs/cyc':>9} {'of peak':>8} {'whole':>9} {'of peak':>8} "
              f"{'of M=1 limit':>12}")
    print(header)
    print("-" * len(header))
    for kernel in KERNELS:
        name, level, cpu, mca_cpu, _, dots, element = kernel
        for shape_name, shape in shapes:
            if shape[0] == "depthwise" and element == "f32":
                continue
            with tempfile.TemporaryDirectory() as directory:
                module = os.path.join(directory, "kernel.mlir")
                with open(module, "w") as file:
                    file.write(make_module(shape, element, rng))
                obj = os.path.join(directory, "kernel.o")
                kernel_header = os.path.join(directory, "kernel.h")
                run([quant_compile, module, "--target-triple=aarch64-linux-gnu",
                     f"--mcpu={cpu}",
                     "--pass-pipeline=builtin.module(quanta-lower-neon)",
                     "-o", obj, f"--header={kernel_header}"])
                # The depthwise kernel has no loop of the level's dot
                # instructions.
                loop = inner_loop(disassemble(obj), dots)
                count, body = loop if loop else (0, [])
                loop_macs = sum(dots.get(m, 0) for _, m, _ in body)
                loop_rate = (loop_macs / mca_cycles(body, mca_cpu, 1000)
                             if loop else float("nan"))
                whole = whole_kernel(directory, kernel_header, obj, kernel,
                                     shape, {})
                whole_rate = macs_of(shape) / whole
                description = (f"{len(body)} instr, {count} "
                               f"{'/'.join(sorted(dots))}" if loop
                               else "no dot-step loop")
                loop_columns = (f"{loop_rate:9.1f} {loop_rate / peaks[name]:8.1%}"
                                if loop else f"{'-':>9} {'-':>8}")
                of_limit = (f"{whole_rate / limits[name]:12.1%}"
                            if shape[0] == "gemm" and shape[1] == 1
                            else f"{'-':>12}")
                print(f"{name:22} {shape_name:24} {description:>22} "
                      f"{loop_columns} "
                      f"{whole_rate:9.1f} {whole_rate / peaks[name]:8.1%} "
                      f"{of_limit}")
                fraction = whole_rate / peaks[name]
                if fraction > 1.0:
                    sys.exit(f"{name}, {shape_name}: the whole kernel at "
                             f"{fraction:.1%} of the peak is impossible: the "
                             f"estimate is broken")
                if args.check and fraction < 0.10:
                    print(f"  FAIL: below 10% of the peak", file=sys.stderr)
                    failures += 1
    if args.check:
        checked = len(KERNELS) * len(shapes)
        print(f"neon-kernels-mca: {checked - failures} passed, "
              f"{failures} failed")
        sys.exit(1 if failures else 0)
    print()
    print("For orientation (issue 18, same model): ruy's 8x8 dotprod loop "
          "95.5% of the sdot peak, XNNPACK's 4x16c4 86%, KleidiAI's 16x4 "
          "85%.")


if __name__ == "__main__":
    main()

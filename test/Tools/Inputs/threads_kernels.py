"""Prints a module of quanta.qmatmul kernels large enough for the threads to
share (quant-run-threads.mlir), each taking and returning int8 storage:

- conv_rows: a 3x3 convolution of padding 1 over 28x28x32 (784 rows, 64
  columns: the chunks share each row class's tiles);
- conv_columns: a 3x3 convolution of padding 1 over 7x7x256 to 512 channels
  (49 rows: the chunks share the column groups; blocked by tap);
- gemm_rows_left: 67 x 200 x 70 (whole tiles in every chunk, the half tile
  and the partial column group in the last);
- depthwise: a 3x3 depthwise convolution of padding 1 over 56x56x64.

Weights, offsets and multipliers are seeded random values."""
import numpy as np

rng = np.random.default_rng(5)
TYPES = ("!in = !quant.uniform<u8:f32, 0.05:3>\n"
         "!out = !quant.uniform<u8:f32, 0.1:7>\n")


def array(values):
    return "array<i32: " + ", ".join(str(int(v)) for v in values) + ">"


def attributes(k, n, depthwise=False):
    weights = rng.integers(-128, 128, size=(k, n), dtype=np.int8)
    return (f"{'depthwise, ' if depthwise else ''}"
            f"weights = dense<\"0x{weights.tobytes().hex()}\"> : "
            f"tensor<{k}x{n}xi8>, weight_zero_points = array<i32: 0>, "
            f"column_offsets = {array(rng.integers(-50000, 50000, n))}, "
            f"multipliers = {array(rng.integers(1 << 30, (1 << 31) - 1, n))}, "
            f"shifts = {array(rng.integers(-16, -7, n))}, "
            f"output_min = 0 : i32, output_max = 255 : i32")


def window_function(name, size, channels, n, depthwise=False):
    image = f"1x{size}x{size}x{channels}"
    padded = f"1x{size + 2}x{size + 2}x{channels}"
    out = f"{size * size}x{n}"
    k = 9 if depthwise else 9 * channels
    return (
        f"func.func @{name}(%a: tensor<{image}xi8>) -> tensor<{out}xi8> {{\n"
        f"  %zp = arith.constant 3 : i8\n"
        f"  %p = tensor.pad %a low[0, 1, 1, 0] high[0, 1, 1, 0] {{\n"
        f"  ^bb0(%i: index, %j: index, %l: index, %q: index):\n"
        f"    tensor.yield %zp : i8\n"
        f"  }} : tensor<{image}xi8> to tensor<{padded}xi8>\n"
        f"  %q = quant.scast %p : tensor<{padded}xi8> to tensor<{padded}x!in>\n"
        f"  %r = quanta.qmatmul %q {{window = array<i64: 3, 3, 1, 1, 1, 1>, "
        f"{attributes(k, n, depthwise)}}} : tensor<{padded}x!in> -> "
        f"tensor<{out}x!out>\n"
        f"  %s = quant.scast %r : tensor<{out}x!out> to tensor<{out}xi8>\n"
        f"  return %s : tensor<{out}xi8>\n}}\n")


def gemm_function(name, m, k, n):
    return (
        f"func.func @{name}(%a: tensor<{m}x{k}xi8>) -> tensor<{m}x{n}xi8> {{\n"
        f"  %q = quant.scast %a : tensor<{m}x{k}xi8> to tensor<{m}x{k}x!in>\n"
        f"  %r = quanta.qmatmul %q {{{attributes(k, n)}}} : "
        f"tensor<{m}x{k}x!in> -> tensor<{m}x{n}x!out>\n"
        f"  %s = quant.scast %r : tensor<{m}x{n}x!out> to tensor<{m}x{n}xi8>\n"
        f"  return %s : tensor<{m}x{n}xi8>\n}}\n")


print(TYPES + window_function("conv_rows", 28, 32, 64) +
      window_function("conv_columns", 7, 256, 512) +
      gemm_function("gemm_rows_left", 67, 200, 70) +
      window_function("depthwise", 56, 64, 64, depthwise=True))

// Intermediate tensors live in one arena per function, requested when the
// code is linked or first run, where failing would end the process: its
// size is checked against the memory limit before code generation. Here
// 2 MiB of intermediates (a broadcast and a matmul between a 1-element
// input and a 1-element result) run under the machine's memory and are an
// error under 1 MiB.
// RUN: %python -c "import numpy as np; np.save('%t.x.npy', np.array([0.5], np.float32))"
// RUN: quant-run %s --input=%t.x.npy --output=%t.out.npy
// RUN: %python -c "import numpy as np; v = np.load('%t.out.npy'); assert v.tolist() == [33554432.0], v"
// RUN: env QUANTA_MEMORY_LIMIT_MB=1 not quant-run %s --input=%t.x.npy --output=%t.out.npy 2>&1 | FileCheck %s
// An object file's arena is its own static buffer, the limit of the
// process that links it: quant-compile writes it.
// RUN: env QUANTA_MEMORY_LIMIT_MB=1 quant-compile %s -o %t.o
// CHECK: error: quant-run: the arena (intermediate buffers) of 'wide_inside' needs 2097152 bytes, more than the 1048576 bytes of memory Quanta may use

#scalar = affine_map<(d0, d1) -> (0)>
#id = affine_map<(d0, d1) -> (d0, d1)>
#sum = affine_map<(d0, d1) -> (0)>
func.func @wide_inside(%x: tensor<1xf32>) -> tensor<1xf32> {
  %e = tensor.empty() : tensor<512x512xf32>
  %a = linalg.generic {indexing_maps = [#scalar, #id], iterator_types = ["parallel", "parallel"]} ins(%x : tensor<1xf32>) outs(%e : tensor<512x512xf32>) {
  ^bb0(%in: f32, %out: f32):
    linalg.yield %in : f32
  } -> tensor<512x512xf32>
  %zero = arith.constant 0.0 : f32
  %fill = linalg.fill ins(%zero : f32) outs(%e : tensor<512x512xf32>) -> tensor<512x512xf32>
  %m = linalg.matmul ins(%a, %a : tensor<512x512xf32>, tensor<512x512xf32>) outs(%fill : tensor<512x512xf32>) -> tensor<512x512xf32>
  %r0 = tensor.empty() : tensor<1xf32>
  %rf = linalg.fill ins(%zero : f32) outs(%r0 : tensor<1xf32>) -> tensor<1xf32>
  %r = linalg.generic {indexing_maps = [#id, #sum], iterator_types = ["reduction", "reduction"]} ins(%m : tensor<512x512xf32>) outs(%rf : tensor<1xf32>) {
  ^bb0(%in: f32, %out: f32):
    %s = arith.addf %in, %out : f32
    linalg.yield %s : f32
  } -> tensor<1xf32>
  return %r : tensor<1xf32>
}

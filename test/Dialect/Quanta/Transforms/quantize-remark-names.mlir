// RUN: quant-opt %s --quanta-quantize --mlir-print-op-on-diagnostic=false -o /dev/null 2>&1 | FileCheck %s

// A float op with a front end's name (an imported ONNX node) says which:
// the printed position is the model file's, which has no lines.
// CHECK: model.onnx:0:0: remark: stays float between dequantize and quantize: quanta-quantize has no integer form for 'linalg.generic' yet, in 'softmax'
!a = !quant.uniform<u8:f32, 0.1:5>
#id = affine_map<(d0) -> (d0)>
#all = affine_map<(d0) -> ()>
func.func @named_reduction(%x: tensor<8x!a>) -> tensor<f32> {
  %xd = quant.dcast %x : tensor<8x!a> to tensor<8xf32>
  %zero = arith.constant 0.0 : f32
  %e = tensor.empty() : tensor<f32>
  %init = linalg.fill ins(%zero : f32) outs(%e : tensor<f32>) -> tensor<f32>
  %s = linalg.generic {indexing_maps = [#id, #all], iterator_types = ["reduction"]} ins(%xd : tensor<8xf32>) outs(%init : tensor<f32>) {
  ^bb0(%p: f32, %o: f32):
    %r = arith.addf %p, %o : f32
    linalg.yield %r : f32
  } -> tensor<f32> loc("softmax"("model.onnx":0:0))
  return %s : tensor<f32>
}

// Conv -> BatchNormalization (constants, inference) -> Relu: the batch norm
// is folded into the convolution's weights and bias at import, as PyTorch's
// fuse_conv_bn_eval does, leaving the conv -> bias add -> relu chain that
// quanta-quantize turns into one int8 GEMM. The folded network computes
// the unfolded one (numpy, float64) within float32 rounding.
// RUN: quant-translate --import-onnx %S/Inputs/conv_bn.onnx | FileCheck %s
// RUN: quant-run %S/Inputs/conv_bn.onnx --input=%S/Inputs/conv_bn_x.npy --output=%t.npy
// RUN: %python -c "import sys, numpy as np; a, e = np.load(sys.argv[1]), np.load(sys.argv[2]); print('close:', np.allclose(a, e, rtol=1e-5, atol=1e-5), a.shape)" %t.npy %S/Inputs/conv_bn_expected.npy | FileCheck %s --check-prefix=EXEC

// CHECK: %[[W:.*]] = arith.constant dense<{{.*}}> : tensor<3x2x3x3xf32>
// CHECK: %[[B:.*]] = arith.constant dense<{{.*}}> : tensor<3xf32>
// CHECK: linalg.conv_2d_nchw_fchw {{.*}} ins(%{{.*}}, %[[W]] :
// CHECK: linalg.generic {{.*}} ins(%{{.*}}, %[[B]] :
// CHECK: arith.addf
// CHECK: arith.maximumf
// CHECK-NOT: math.sqrt
// CHECK-NOT: arith.divf
// EXEC: close: True (1, 3, 5, 5)

// A two-layer MLP as a TOSA front end writes it (each fully connected layer
// a reshape to 3-D, a batch-1 tosa.matmul, a reshape back, the bias add and
// relu on the 2-D tensor): PTQ, then every layer an int8 GEMM - no float
// compute left - equal to the q/dq model run in float.
// RUN: %python -c "import numpy as np; r = np.random.default_rng(5); [np.save('%t.cal%d.npy' % i, r.standard_normal((2, 16)).astype(np.float32)) for i in range(4)]"
// RUN: quant-opt %s --quanta-ptq='qconfig=x86 data=%t.cal0.npy,%t.cal1.npy,%t.cal2.npy,%t.cal3.npy quiet' -o %t.ptq.mlir
// RUN: quant-opt %t.ptq.mlir --quanta-quantize=report-float-ops --mlir-print-op-on-diagnostic=false -o %t.int8.mlir 2>&1 | FileCheck %s --check-prefix=REMARK
// RUN: FileCheck %s < %t.int8.mlir
// RUN: quant-run %t.ptq.mlir --input=%t.cal0.npy --output=%t.ref.npy
// RUN: quant-run %t.int8.mlir --input=%t.cal0.npy --pass-pipeline='builtin.module(quanta-lower-x86)' --output=%t.int.npy
// RUN: %python -c "import sys, numpy as np; a, b = np.load(sys.argv[1]), np.load(sys.argv[2]); print('equal' if np.array_equal(a, b) else 'DIFFERENT', a.size, len(np.unique(b)))" %t.int.npy %t.ref.npy | FileCheck %s --check-prefix=EXEC

// REMARK: remark: quanta-quantize: 0 float compute op(s) left
// REMARK-NOT: stays float
// CHECK-COUNT-2: quanta.qmatmul
// CHECK-NOT: linalg.batch_matmul
// EXEC: equal 8 {{[5-8]}}

func.func @mlp(%x: tensor<2x16xf32>) -> tensor<2x4xf32> {
  %zp = "tosa.const"() {values = dense<0.0> : tensor<1xf32>} : () -> tensor<1xf32>
  %s3 = tosa.const_shape {values = dense<[1, 2, 16]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x3 = tosa.reshape %x, %s3 : (tensor<2x16xf32>, !tosa.shape<3>) -> tensor<1x2x16xf32>
  %w1 = "tosa.const"() {values = dense<[[[ 0.6122757   , -0.76669955  ,  0.12542966  , -0.17033088  ,   -0.13579479  , -0.06467915  , -0.6059959   , -0.06957971  ],  [-0.25956395  ,  0.9968999   ,  0.067735985 , -0.105789244 ,   -0.08438623  , -0.20041391  , -0.31654516  , -0.1172403   ],  [ 0.14458363  , -0.07156609  ,  0.28732762  , -0.05994064  ,    0.00727787  ,  0.46374628  ,  0.16353166  , -0.15156864  ],  [-0.054851696 ,  0.16215755  ,  0.5805264   , -0.0808861   ,   -0.073067605 ,  0.3006941   , -0.26593798  , -0.08751608  ],  [ 0.26476172  ,  0.17410502  ,  0.027455011 ,  0.20103133  ,   -0.8484487   ,  0.30639207  , -0.28789344  , -0.500586    ],  [ 0.082933724 ,  0.21016347  , -0.13343024  , -0.32292178  ,    0.00783745  , -0.015824193 ,  0.42167947  ,  0.2242224   ],  [ 0.058144696 ,  0.33348995  , -0.061656915 , -0.2777699   ,    0.1752175   ,  0.17476153  , -0.06444868  , -0.23484258  ],  [ 0.06874617  , -0.74816835  ,  0.20703743  ,  0.14741048  ,   -0.49165717  ,  0.018406054 , -0.2892299   ,  0.22716632  ],  [-0.61025023  , -0.27434838  ,  0.21287401  ,  0.3469203   ,   -0.6474017   , -0.14941196  ,  0.09840603  , -0.18276486  ],  [ 0.47719207  , -0.35736802  ,  0.106359586 , -0.31452167  ,    0.4217889   , -0.006495369 , -0.11167517  , -0.5154555   ],  [ 0.50454766  ,  0.22583358  ,  0.22606915  ,  0.34136438  ,    0.10476797  , -0.19177398  , -0.24007238  , -0.24006     ],  [ 0.41102174  , -0.43811437  , -0.17891085  , -0.09637318  ,    0.06738571  ,  0.17260483  , -0.3747291   , -0.51900405  ],  [-0.0013242698,  0.36406916  ,  0.22711743  ,  0.06469524  ,   -0.09514669  ,  0.08797011  , -0.07300053  ,  0.24516198  ],  [-0.23833422  ,  0.040271983 , -0.03323404  ,  0.16300783  ,    0.06739156  ,  0.7650104   ,  0.44959643  ,  0.44902116  ],  [-0.61185116  , -0.10209499  , -0.1825832   ,  0.15981647  ,   -0.68370795  ,  0.3523496   ,  0.320095    , -0.39062127  ],  [-0.29356456  , -0.24035162  ,  0.012988771 ,  0.19229133  ,    0.6143659   , -0.059233632 ,  0.23025078  ,  0.046625346 ]]]> : tensor<1x16x8xf32>} : () -> tensor<1x16x8xf32>
  %m1 = tosa.matmul %x3, %w1, %zp, %zp : (tensor<1x2x16xf32>, tensor<1x16x8xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x8xf32>
  %s2 = tosa.const_shape {values = dense<[2, 8]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y1 = tosa.reshape %m1, %s2 : (tensor<1x2x8xf32>, !tosa.shape<2>) -> tensor<2x8xf32>
  %b1 = "tosa.const"() {values = dense<[[ 0.17599264 ,  0.07421579 ,  0.13685505 , -0.10776752 , -0.019224072,  -0.081377245,  0.15049474 ,  0.065763995]]> : tensor<1x8xf32>} : () -> tensor<1x8xf32>
  %z1 = tosa.add %y1, %b1 : (tensor<2x8xf32>, tensor<1x8xf32>) -> tensor<2x8xf32>
  %r1 = tosa.clamp %z1 {max_val = 3.40282347E+38 : f32, min_val = 0.0 : f32} : (tensor<2x8xf32>) -> tensor<2x8xf32>
  %s3b = tosa.const_shape {values = dense<[1, 2, 8]> : tensor<3xindex>} : () -> !tosa.shape<3>
  %x4 = tosa.reshape %r1, %s3b : (tensor<2x8xf32>, !tosa.shape<3>) -> tensor<1x2x8xf32>
  %w2 = "tosa.const"() {values = dense<[[[-0.09154333  , -0.13574037  ,  0.14539947  , -0.21044867  ],  [-0.27917668  ,  0.14438236  ,  0.73893964  , -0.07384007  ],  [-0.16675973  , -0.3513471   , -0.4005033   ,  0.15749498  ],  [ 0.25524092  ,  0.0027524165,  0.099772796 ,  0.034774974 ],  [ 0.041596454 , -0.45784774  , -0.13743548  ,  0.033443794 ],  [-0.23495004  , -0.14292893  , -0.24573606  , -0.100049004 ],  [ 0.2559325   , -0.12197411  , -0.04616121  ,  0.24411552  ],  [ 0.19343106  ,  0.5085623   , -0.6271455   ,  0.2570577   ]]]> : tensor<1x8x4xf32>} : () -> tensor<1x8x4xf32>
  %m2 = tosa.matmul %x4, %w2, %zp, %zp : (tensor<1x2x8xf32>, tensor<1x8x4xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<1x2x4xf32>
  %s2b = tosa.const_shape {values = dense<[2, 4]> : tensor<2xindex>} : () -> !tosa.shape<2>
  %y2 = tosa.reshape %m2, %s2b : (tensor<1x2x4xf32>, !tosa.shape<2>) -> tensor<2x4xf32>
  return %y2 : tensor<2x4xf32>
}

# The ONNX importer from Python: the C++ API the tools call, errors as
# quanta.Error (a ValueError) with the importer's diagnostics.
# RUN: %python %s %quanta_src_root/test/Import/Onnx/Inputs | FileCheck %s

import os
import sys

import quanta

inputs = sys.argv[1]
text = quanta.import_onnx(os.path.join(inputs, "cnn.onnx"), batch=2)
# CHECK: loc("conv1"
# CHECK: func.func @main(%{{.*}}: tensor<2x1x8x8xf32> {onnx.name = "x"}
# CHECK: linalg.conv_2d_nchw_fchw
print(text)

for name, batch in (("unsupported.onnx", 0), ("cnn.onnx", 0),
                    ("no-such-model.onnx", 0)):
    try:
        quanta.import_onnx(os.path.join(inputs, name), batch=batch)
        print("imported", name)
    except (ValueError, OSError) as error:
        print(type(error).__name__ + ":", str(error).strip())
# CHECK: Error: loading {{.*}}unsupported.onnx failed:
# CHECK-NEXT: unsupported.onnx: error: Det node 'mixer': the importer does not translate 'Det'
# CHECK: Error: loading {{.*}}cnn.onnx failed:
# CHECK-NEXT: cnn.onnx: error: symbolic dimensions left unbound: 'N' (dimension 0 of 'x')
# CHECK: FileNotFoundError: cannot read '{{.*}}no-such-model.onnx': No such file or directory

# Symbolic dimensions by name; a sequence model's token ids are int64.
text = quanta.import_onnx(os.path.join(inputs, "encoder_op13.onnx"),
                          dims={"batch": 3, "seq": 8})
print(text)
# CHECK: func.func @main(%{{.*}}: tensor<3x8xi64> {onnx.name = "ids"}{{.*}}) -> (tensor<3x10xf32>
for dims in ({"batch": 3}, {"batch": 3, "seq": 0}):
    try:
        quanta.import_onnx(os.path.join(inputs, "encoder_op13.onnx"),
                           dims=dims)
    except ValueError as error:
        print(type(error).__name__ + ":", str(error).strip())
# CHECK: Error: loading {{.*}}encoder_op13.onnx failed:
# CHECK-NEXT: encoder_op13.onnx: error: symbolic dimensions left unbound: 'seq' (dimension 1 of 'ids')
# CHECK: ValueError: onnx_dims['seq'] is 0; sizes are at least 1

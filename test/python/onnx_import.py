# The ONNX importer from Python: the C++ API the tools call, errors as
# ValueError with the importer's diagnostics.
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
    except ValueError as error:
        print("ValueError:", str(error).strip())
# CHECK: ValueError: {{.*}}unsupported.onnx: Einsum node 'mixer': the importer does not translate 'Einsum'
# CHECK: ValueError: {{.*}}cnn.onnx: graph input 'x' has the symbolic dimension 'N'
# CHECK: ValueError: cannot read '{{.*}}no-such-model.onnx': No such file or directory

"""The quickstart's C program against the JIT on the same int8 IR."""
import sys

import numpy as np
import quanta

int8_ir, images_path, logits_path = sys.argv[1:]
module = quanta.Module.load(int8_ir)
module.lower()
run = module.compile()
images = np.load(images_path)
jit = np.concatenate([run(image[None]) for image in images])
c_program = np.fromfile(logits_path, np.float32).reshape(jit.shape)
if c_program.tobytes() != jit.tobytes():
    differing = np.flatnonzero((c_program != jit).any(axis=1))
    sys.exit("logits differ for %d images, first %d"
             % (len(differing), differing[0]))
print("%d images: the C program's logits equal the JIT's, byte for byte"
      % len(images))

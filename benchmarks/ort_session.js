#!/usr/bin/env node
// ONNX Runtime (npm onnxruntime-node) for benchmarks/models_vs_pytorch.py:
// one model, one raw input shape (float32, or int64 token ids with
// --dtype int64), two modes.
//
//   node ort_session.js time --model M --shape 1,3,224,224 --input x.bin
//       --output y.bin [--threads 1] [--spinning 0] [--repeats 20]
//     a session with --threads intra-op threads (one inter-op thread,
//     sequential execution, every graph optimization, intra-op spinning on
//     or off), one warm-up run then --repeats timed runs: prints
//     {"median_ms", "best_ms", "session_ms" (creating the session: loading
//     and optimizing the model), "output_shape"} and writes the first output
//     to --output as raw float32;
//
//   node ort_session.js ranges --model M --shape 1,3,224,224
//       [--tensors a,b,...] [--threads 1] x0.bin x1.bin ...
//     runs the model on each input and prints {tensor: [min, max]} over all
//     the runs, for each of --tensors (default: every output of the model),
//     as ONNX Runtime's MinMax calibrator does (graph optimizations off, as
//     in its calibration session): the caller adds the intermediate tensors
//     to the model's graph outputs.
//
// Inputs are raw little-endian float32 (or int64, --dtype int64), outputs
// raw little-endian float32. onnxruntime-node is
// found under --ort DIR (DIR/node_modules/onnxruntime-node), else through
// NODE_PATH.
'use strict';

const fs = require('fs');
const os = require('os');
const path = require('path');

const USAGE = 'usage: node ort_session.js time|ranges --model M --shape N,C,H,W ' +
    '[--input x.bin --output y.bin] [--tensors a,b] [--threads T] ' +
    '[--spinning 0|1] [--repeats R] [--dtype float32|int64] [--ort DIR] [inputs...]';

function parseArguments(argv) {
  const options = {threads: '1', spinning: '0', repeats: '20', dtype: 'float32', files: []};
  options.mode = argv[0];
  for (let i = 1; i < argv.length; ++i) {
    if (argv[i].startsWith('--')) {
      if (i + 1 >= argv.length) throw new Error(`${argv[i]} needs a value\n${USAGE}`);
      options[argv[i].slice(2)] = argv[++i];
    } else {
      options.files.push(argv[i]);
    }
  }
  if (!['time', 'ranges'].includes(options.mode) || !options.model || !options.shape ||
      !['float32', 'int64'].includes(options.dtype)) {
    throw new Error(USAGE);
  }
  return options;
}

function loadOrt(directory) {
  return require(directory ? path.join(path.resolve(directory), 'node_modules', 'onnxruntime-node')
                           : 'onnxruntime-node');
}

function readInput(ort, file, dims, dtype) {
  const bytes = fs.readFileSync(file);
  const count = dims.reduce((a, b) => a * b, 1);
  const Typed = dtype === 'int64' ? BigInt64Array : Float32Array;
  const size = Typed.BYTES_PER_ELEMENT * count;
  if (bytes.length !== size) {
    throw new Error(`${file}: ${bytes.length} bytes, expected ${size} for ${dtype} shape ${dims}`);
  }
  // A copy: the file's buffer may not be aligned.
  const data = new Typed(count);
  new Uint8Array(data.buffer).set(bytes);
  return new ort.Tensor(dtype, data, dims);
}

async function main() {
  const options = parseArguments(process.argv.slice(2));
  if (os.endianness() !== 'LE') throw new Error('raw float32 files are little-endian');
  const ort = loadOrt(options.ort);
  const created = process.hrtime.bigint();
  const session = await ort.InferenceSession.create(options.model, {
    intraOpNumThreads: Number(options.threads),
    interOpNumThreads: 1,
    executionMode: 'sequential',
    // ONNX Runtime's calibrator runs the float model unoptimized.
    graphOptimizationLevel: options.mode === 'time' ? 'all' : 'disabled',
    logSeverityLevel: 3,
    extra: {session: {intra_op: {allow_spinning: options.spinning}}},
  });
  const sessionMilliseconds = Number(process.hrtime.bigint() - created) / 1e6;
  const dims = options.shape.split(',').map(Number);
  const input = session.inputNames[0];

  if (options.mode === 'time') {
    const feeds = {[input]: readInput(ort, options.input, dims, options.dtype)};
    let results = await session.run(feeds);
    const milliseconds = [];
    for (let i = 0; i < Number(options.repeats); ++i) {
      const start = process.hrtime.bigint();
      results = await session.run(feeds);
      milliseconds.push(Number(process.hrtime.bigint() - start) / 1e6);
    }
    milliseconds.sort((a, b) => a - b);
    const middle = milliseconds.length >> 1;
    const median = milliseconds.length % 2 ? milliseconds[middle]
        : (milliseconds[middle - 1] + milliseconds[middle]) / 2;
    const output = results[session.outputNames[0]];
    fs.writeFileSync(options.output,
                     Buffer.from(output.data.buffer, output.data.byteOffset, output.data.byteLength));
    console.log(JSON.stringify({median_ms: median, best_ms: milliseconds[0],
                                session_ms: sessionMilliseconds, output_shape: output.dims}));
    return;
  }

  const tensors = options.tensors ? options.tensors.split(',') : session.outputNames;
  const ranges = {};
  for (const file of options.files) {
    const results = await session.run({[input]: readInput(ort, file, dims, options.dtype)},
                                      tensors);
    for (const name of tensors) {
      let [low, high] = ranges[name] || [Infinity, -Infinity];
      for (const value of results[name].data) {
        if (value < low) low = value;
        if (value > high) high = value;
      }
      ranges[name] = [low, high];
    }
  }
  console.log(JSON.stringify(ranges));
}

main().catch((error) => {
  console.error(error.message || error);
  process.exit(1);
});

// Inference's outside reference: an exported tabula model run by
// onnxruntime-node on the CPU.
//
//   NODE_PATH=net/onnx/testdata/node_modules node docs/repro/ort-infer.js MODEL.onnx SAMPLES.json [BATCH] [THREADS] [SECONDS]
//
// SAMPLES.json is cmd/export's -samples-out (positions of play, which also
// give the input shape); the batch (default 32, the presets' self-play
// batch) is filled from them. Runs for SECONDS (default 5) after a
// warm-up with THREADS intra-op threads (default 2) and prints one JSON
// line with positions/s.
'use strict';

const fs = require('fs');
const ort = require('onnxruntime-node');

async function main() {
  const [model, samplesPath, batchArg, threadsArg, secondsArg] = process.argv.slice(2);
  if (!model || !samplesPath) {
    console.error('usage: node ort-infer.js MODEL.onnx SAMPLES.json [BATCH] [THREADS] [SECONDS]');
    process.exit(2);
  }
  const batch = Number(batchArg || 32), threads = Number(threadsArg || 2), seconds = Number(secondsArg || 5);
  const samples = JSON.parse(fs.readFileSync(samplesPath, 'utf8'));
  const [c, h, w] = samples[0].shape;
  const size = c * h * w;
  const planes = new Float32Array(batch * size);
  for (let i = 0; i < batch; i++) planes.set(samples[i % samples.length].planes, i * size);
  const session = await ort.InferenceSession.create(model, {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential', graphOptimizationLevel: 'all',
  });
  const feeds = { planes: new ort.Tensor('float32', planes, [batch, c, h, w]) };
  for (let i = 0; i < 20; i++) await session.run(feeds);
  let n = 0;
  const t0 = process.hrtime.bigint();
  let dt = 0;
  while (dt < seconds) {
    await session.run(feeds);
    n++;
    dt = Number(process.hrtime.bigint() - t0) / 1e9;
  }
  console.log(JSON.stringify({ reference: 'onnxruntime-node', version: require('onnxruntime-node/package.json').version,
    model, batch, threads, runs: n, positions_per_s: Math.round(n * batch / dt) }));
}

main().catch((e) => { console.error(e); process.exit(1); });

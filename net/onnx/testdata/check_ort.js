// Runs an exported tabula ONNX model with onnxruntime-node and compares it
// with the native network's outputs from a samples file.
//
//   node check_ort.js MODEL.onnx SAMPLES.json [TOLERANCE]
//
// Every sample is run at batch 1, then the samples are run in batches of 3
// (wrapping around), which exercises the dynamic batch dimension. Exits 0
// and prints a one-line JSON summary on success; prints the first
// mismatches and exits 1 otherwise. Finds onnxruntime-node next to this
// script (testdata/node_modules) or through NODE_PATH.
'use strict';

const fs = require('fs');
const ort = require('onnxruntime-node');

function fail(msg) {
  console.error('check_ort: ' + msg);
  process.exit(1);
}

async function main() {
  const [modelPath, samplesPath, tolArg] = process.argv.slice(2);
  if (!modelPath || !samplesPath) fail('usage: node check_ort.js MODEL.onnx SAMPLES.json [TOLERANCE]');
  const tol = tolArg ? Number(tolArg) : 1e-4;
  const samples = JSON.parse(fs.readFileSync(samplesPath, 'utf8'));
  if (!Array.isArray(samples) || samples.length === 0) fail('no samples in ' + samplesPath);
  const [c, h, w] = samples[0].shape;
  const size = c * h * w;
  const actions = samples[0].policy.length;
  // Samples of a network with the WDL head carry its probabilities: the
  // model must then have the wdl output too.
  const wdl = Array.isArray(samples[0].wdl);
  const outputs = wdl ? 3 : 2;

  const session = await ort.InferenceSession.create(modelPath);
  if (JSON.stringify(session.inputNames) !== '["planes"]') fail('input names ' + JSON.stringify(session.inputNames));
  if (!session.outputNames.includes('policy') || !session.outputNames.includes('value') ||
      (wdl && !session.outputNames.includes('wdl')) || session.outputNames.length !== outputs) {
    fail('output names ' + JSON.stringify(session.outputNames));
  }
  // Shapes as the model declares them (onnxruntime-node >= 1.21).
  const declared = {};
  for (const m of [...(session.inputMetadata || []), ...(session.outputMetadata || [])]) {
    if (m.isTensor) declared[m.name] = m.shape;
  }
  const want = { planes: ['N', c, h, w], policy: ['N', actions], value: ['N', 1], wdl: ['N', 3] };
  for (const name of Object.keys(declared)) {
    if (JSON.stringify(declared[name]) !== JSON.stringify(want[name])) {
      fail(`declared shape of ${name} is ${JSON.stringify(declared[name])}, want ${JSON.stringify(want[name])}`);
    }
  }

  let worst = 0;
  const errors = [];
  async function check(batch) {
    const planes = new Float32Array(batch.length * size);
    batch.forEach((s, i) => {
      if (s.planes.length !== size) fail(`sample with ${s.planes.length} planes, want ${size}`);
      planes.set(s.planes, i * size);
    });
    const out = await session.run({ planes: new ort.Tensor('float32', planes, [batch.length, c, h, w]) });
    const pol = out.policy, val = out.value;
    if (JSON.stringify(pol.dims) !== JSON.stringify([batch.length, actions])) fail('policy dims ' + JSON.stringify(pol.dims));
    if (JSON.stringify(val.dims) !== JSON.stringify([batch.length, 1])) fail('value dims ' + JSON.stringify(val.dims));
    batch.forEach((s, i) => {
      for (let a = 0; a < actions; a++) {
        const d = Math.abs(pol.data[i * actions + a] - s.policy[a]);
        if (!(d <= tol)) errors.push(`batch ${batch.length} ${s.fen}: policy[${a}] = ${pol.data[i * actions + a]}, want ${s.policy[a]}`);
        if (d > worst) worst = d;
      }
      const d = Math.abs(val.data[i] - s.value);
      if (!(d <= tol)) errors.push(`batch ${batch.length} ${s.fen}: value = ${val.data[i]}, want ${s.value}`);
      if (d > worst) worst = d;
      if (wdl) {
        if (JSON.stringify(out.wdl.dims) !== JSON.stringify([batch.length, 3])) fail('wdl dims ' + JSON.stringify(out.wdl.dims));
        for (let k = 0; k < 3; k++) {
          const dk = Math.abs(out.wdl.data[i * 3 + k] - s.wdl[k]);
          if (!(dk <= tol)) errors.push(`batch ${batch.length} ${s.fen}: wdl[${k}] = ${out.wdl.data[i * 3 + k]}, want ${s.wdl[k]}`);
          if (dk > worst) worst = dk;
        }
      }
    });
  }
  for (const s of samples) await check([s]);
  for (let i = 0; i < samples.length; i += 3) {
    await check([0, 1, 2].map((j) => samples[(i + j) % samples.length]));
  }
  if (errors.length > 0) fail(`${errors.length} mismatches beyond ${tol}:\n` + errors.slice(0, 10).join('\n'));
  console.log(JSON.stringify({
    ok: true, samples: samples.length, batches: [1, 3], maxAbsDiff: worst,
    ort: ort.env.versions ? ort.env.versions.node : undefined,
  }));
}

main().catch((e) => fail(e && e.stack ? e.stack : String(e)));

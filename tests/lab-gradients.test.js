// The lab's hand-written backward pass against central finite differences, in
// float64 (the debug lab module computes in float64 for this; the shipped one
// in float32): every parameter kind, every encoding, both attention modes.
// The measure is per tensor, ||analytic - numeric|| / max(||analytic||, ||numeric||).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateForTests } from './helpers/wasi.js';
import { createLab } from '../web/lib/lab/api.js';
import { WASM_BASE64 } from '../dist/debug/lab-wasm.js';

const lab = createLab(await instantiateForTests(WASM_BASE64));
const H = 1e-5;
const SMALL = { dModel: 8, heads: 2, layers: 2, mlp: 8, batch: 3, maxLength: 16, t5Buckets: 8, t5MaxDistance: 12 };

/** A model whose parameters are moved off their initial values (gains of 1,
 * zero biases), so that no gradient is zero by symmetry. */
function jittered(options) {
  const { model } = lab.train({ ...SMALL, ...options, steps: 3, learningRate: 0.05, progressEvery: 3 });
  let s = 12345;
  const params = model.params.map((p) => {
    s = (s * 1103515245 + 12345) % 2147483648;
    return p + 0.1 * (s / 2147483648 - 0.5);
  });
  return { ...model, params };
}

function check(options, task, length) {
  const model = jittered({ ...options, task });
  const batch = lab.examples({ task, length, count: 3, seed: 5 });
  const { gradient } = lab.loss(model, batch, { gradient: true });
  const kinds = new Set();
  for (const t of lab.tensors(model)) {
    let diff = 0;
    let analytic = 0;
    let numericNorm = 0;
    const size = t.shape[0] * t.shape[1];
    for (let i = t.offset; i < t.offset + size; i++) {
      const at = (delta) => {
        const params = model.params.slice();
        params[i] += delta;
        return lab.loss({ ...model, params }, batch).loss;
      };
      const numeric = (at(H) - at(-H)) / (2 * H);
      diff += (gradient[i] - numeric) ** 2;
      analytic += gradient[i] ** 2;
      numericNorm += numeric ** 2;
    }
    const norm = Math.sqrt(Math.max(analytic, numericNorm));
    assert.ok(norm > 0, `${t.kind} at ${t.offset}: the gradient is zero, so the check would prove nothing`);
    const rel = Math.sqrt(diff) / norm;
    assert.ok(rel <= 1e-6, `${JSON.stringify(options)} ${task}: ${t.kind} at ${t.offset}: relative error ${rel}`);
    kinds.add(t.kind);
  }
  return kinds;
}

test('lab debug module computes in float64', () => {
  assert.equal(lab.precision, 'float64');
});

for (const attention of ['bidirectional', 'causal']) {
  for (const encoding of lab.encodings) {
    test(`gradient = central differences: ${encoding}, ${attention}`, () => {
      const kinds = check({ encoding, attention }, 'shift', 6);
      for (const k of check({ encoding, attention, mlp: 0, layers: 1 }, 'who-did-what', 4)) kinds.add(k);
      const expected = ['token', 'norm-gain', 'norm-bias', 'query', 'key', 'value', 'output', 'mlp-in',
        'mlp-in-bias', 'mlp-out', 'mlp-out-bias', 'head', 'head-bias'];
      if (encoding === 'learned') expected.push('position');
      if (encoding === 't5') expected.push('t5-bias');
      assert.deepEqual([...kinds].sort(), expected.sort());
      assert.equal(lab.memoryStats().liveAllocations, 0);
    });
  }
}

// posenc/lab: the API, its errors, determinism, agreement with an independent
// TensorFlow.js model, and the facts the lab exists to show, reproduced with
// fixed seeds and margins far wider than seed-to-seed spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab } from './helpers/load.js';
import { tfjsLabModel, loadTfjs } from './helpers/lab-tfjs.js';

const lab = await loadLab();

test('examples: who-did-what asks for the name before the verb, at the query', () => {
  const { shape, tokens, targets } = lab.examples({ task: 'who-did-what', length: 7, count: 200, seed: 3 });
  assert.deepEqual(shape, [200, 8]);
  for (let b = 0; b < 200; b++) {
    const row = Array.from(tokens.subarray(b * 8, b * 8 + 8));
    const names = row.map((t, i) => [t, i]).filter(([t]) => t < 8);
    const verb = row.findIndex((t) => t >= 8 && t < 12);
    assert.equal(names.length, 2);
    assert.ok(names[0][1] < verb && verb < names[1][1], 'doer, verb, receiver in that order');
    assert.notEqual(names[0][0], names[1][0]);
    assert.equal(row[7], 16, 'the query token ends the sentence');
    assert.deepEqual(Array.from(targets.subarray(b * 8, b * 8 + 7)), Array(7).fill(-1));
    assert.equal(targets[b * 8 + 7], names[0][0]);
  }
});

test('examples: shift, copy and reverse targets', () => {
  const s = lab.examples({ task: 'shift', length: 9, seed: 1 });
  for (let i = 0; i < 9; i++) assert.equal(s.targets[i], i < 2 ? -1 : s.tokens[i - 2]);
  for (const task of ['copy', 'reverse']) {
    const e = lab.examples({ task, length: 5, seed: 2 });
    assert.deepEqual(e.shape, [1, 11]);
    assert.equal(e.tokens[5], 10);
    for (let j = 0; j < 5; j++) {
      assert.equal(e.tokens[6 + j], 11);
      assert.equal(e.targets[6 + j], e.tokens[task === 'copy' ? j : 4 - j]);
    }
  }
});

test('train is deterministic: same seed, same history and parameters; another seed differs', () => {
  const opts = { task: 'shift', encoding: 'rope', attention: 'causal', steps: 40, seed: 7, dModel: 16, progressEvery: 10 };
  const a = lab.train(opts);
  const b = lab.train(opts);
  assert.deepEqual(a.history, b.history);
  assert.deepEqual(new Uint8Array(a.model.params.buffer), new Uint8Array(b.model.params.buffer));
  assert.equal(a.history.length, 4);
  assert.deepEqual(a.history.map((h) => h.step), [10, 20, 30, 40]);
  const c = lab.train({ ...opts, seed: 8 });
  assert.notDeepEqual(new Uint8Array(a.model.params.buffer), new Uint8Array(c.model.params.buffer));
});

test('onProgress sees every report and can stop training', () => {
  const seen = [];
  const { history } = lab.train({ steps: 100, progressEvery: 20, dModel: 8, heads: 2,
    onProgress: (p) => { seen.push(p.step); return p.step < 40; } });
  assert.deepEqual(seen, [20, 40]);
  assert.equal(history.length, 2);
});

test('bad options: clear errors naming the option, nothing leaked, module still usable', () => {
  const cases = [
    [() => lab.train({ task: 'sort' }), RangeError, /task must be one of/],
    [() => lab.train({ encoding: 'nope' }), RangeError, /encoding must be one of/],
    [() => lab.train({ attention: 'sideways' }), RangeError, /attention/],
    [() => lab.train({ steps: 0 }), RangeError, /steps/],
    [() => lab.train({ seed: -1 }), RangeError, /seed/],
    [() => lab.train({ dModel: 30, heads: 4 }), RangeError, /multiple of heads/],
    [() => lab.train({ encoding: 'rope', dModel: 12, heads: 4 }), RangeError, /even width/],
    [() => lab.train({ layers: 5 }), RangeError, /layers/],
    [() => lab.train({ trainLengths: [6, 3] }), RangeError, /trainLengths\[1\]/],
    [() => lab.train({ trainLengths: 4 }), TypeError, /trainLengths/],
    [() => lab.train({ maxLength: 5 }), RangeError, /maxLength/],
    [() => lab.train({ learningRate: NaN }), RangeError, /learningRate/],
    [() => lab.train({ onProgress: 3 }), TypeError, /onProgress/],
    [() => lab.train({ colour: 'red' }), TypeError, /unknown option "colour"/],
    [() => lab.evaluate({}, {}), TypeError, /model must be/],
  ];
  for (const [fn, Type, message] of cases) assert.throws(fn, (e) => e instanceof Type && message.test(e.message), String(fn));
  const { model } = lab.train({ steps: 2, dModel: 8, heads: 2 });
  assert.throws(() => lab.evaluate(model, { length: 80 }), /maxLength/);
  assert.throws(() => lab.evaluate(model, { task: 'copy' }), /shapes|vocab|RangeError|status/);
  assert.throws(() => lab.attentionMaps(model, [0, 99]), /tokens\[1\] must be an integer from 0 to 16/);
  assert.throws(() => lab.attentionMaps(model, []), /tokens must hold 1 to 64/);
  assert.throws(() => lab.evaluate({ ...model, params: model.params.subarray(1) }), /model.params must be/);
  assert.equal(lab.memoryStats().liveAllocations, 0);
  assert.ok(lab.evaluate(model, { samples: 8 }).accuracy >= 0);
});

test('attention maps: one row per query, each a distribution; causal rows see no future', () => {
  for (const attention of ['bidirectional', 'causal']) {
    const { model } = lab.train({ steps: 20, attention, encoding: 't5', dModel: 16, layers: 2, heads: 2 });
    const { shape, data } = lab.attentionMaps(model, [0, 8, 1, 16]);
    assert.deepEqual(shape, [2, 2, 4, 4]);
    for (let r = 0; r < 16; r++) {
      const row = data.subarray(r * 4, r * 4 + 4);
      const sum = row.reduce((a, b) => a + b, 0);
      assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
      const i = r % 4;
      if (attention === 'causal') for (let j = i + 1; j < 4; j++) assert.equal(row[j], 0);
      else assert.ok(row.every((p) => p > 0));
    }
  }
});

// ---- against an independent implementation (TensorFlow.js, float32) ------------

const tf = await loadTfjs();

for (const attention of ['bidirectional', 'causal']) {
  for (const encoding of lab.encodings) {
    test(`forward, gradient and attention agree with TensorFlow.js: ${encoding}, ${attention}`, () => {
      const task = 'shift';
      const { model } = lab.train({ task, encoding, attention, steps: 30, seed: 4, dModel: 16, heads: 2, mlp: 24,
        t5Buckets: 8, t5MaxDistance: 20 });
      const batch = lab.examples({ task, length: 9, count: 4, seed: 11 });
      const ours = lab.loss(model, batch, { gradient: true });
      const tensors = lab.tensors(model);
      const tfm = tfjsLabModel(tf, model.config, Float32Array.from(model.params), tensors, { trainable: true });
      const { value, grads } = tf.variableGrads(() => tfm.loss(batch.tokens, batch.targets, 4, 9), tfm.variables);
      const theirLoss = value.dataSync()[0];
      assert.ok(Math.abs(ours.loss - theirLoss) <= 1e-5 * Math.max(1, theirLoss), `loss ${ours.loss} vs ${theirLoss}`);
      tensors.forEach((t, n) => {
        const theirs = grads[tfm.variables[n].name].dataSync();
        const mine = ours.gradient.subarray(t.offset, t.offset + theirs.length);
        let diff = 0;
        let norm = 0;
        for (let i = 0; i < theirs.length; i++) {
          diff += (mine[i] - theirs[i]) ** 2;
          norm += theirs[i] ** 2;
        }
        assert.ok(Math.sqrt(diff) <= 1e-4 * Math.sqrt(norm) + 1e-7, `${t.kind} at ${t.offset}: gradients differ by ${Math.sqrt(diff)} (norm ${Math.sqrt(norm)})`);
      });
      const maps = lab.attentionMaps(model, Array.from(batch.tokens.subarray(0, 9)));
      const theirMaps = tfm.attention(batch.tokens.subarray(0, 9), 9).dataSync();
      let worst = 0;
      for (let i = 0; i < theirMaps.length; i++) worst = Math.max(worst, Math.abs(maps.data[i] - theirMaps[i]));
      assert.ok(worst <= 2e-6, `attention differs by ${worst}`);
      tf.dispose([...tfm.variables, value, ...Object.values(grads)]);
    });
  }
}

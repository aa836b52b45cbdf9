// posenc/lab: the API, its errors, determinism, agreement with an independent
// TensorFlow.js model, and the facts the lab exists to show, reproduced with
// fixed seeds and margins far wider than seed-to-seed spread.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, build } from './helpers/load.js';
import { tfjsLabModel, loadTfjs } from './helpers/lab-tfjs.js';
import { growRaceBoth } from './helpers/grow-race.js';
import { elementReads } from './helpers/element-reads.js';

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

/** How many turns the event loop took (check phases) while `promise` was pending. */
async function turnsDuring(promise) {
  let turns = 0, pending = true;
  const tick = () => pending && (turns++, setImmediate(tick));
  setImmediate(tick);
  try {
    return { value: await promise, turns };
  } finally {
    pending = false;
  }
}

test('trainAsync trains in slices between turns of the event loop, to the bit what train does', async () => {
  for (const opts of [
    { task: 'shift', encoding: 'rope', attention: 'causal', steps: 60, seed: 7, dModel: 16, progressEvery: 10 },
    { task: 'who-did-what', encoding: 't5', steps: 37, seed: 2, dModel: 8, heads: 2, progressEvery: 5, bos: true },
    { task: 'recency', encoding: 'alibi', steps: 3, dModel: 8, heads: 2, randomizedPositions: true },
  ]) {
    const seen = { sync: [], async: [] };
    const a = lab.train({ ...opts, onProgress: (p) => void seen.sync.push(p) });
    const { value: b, turns } = await turnsDuring(lab.trainAsync({ ...opts, onProgress: (p) => void seen.async.push(p) }));
    assert.deepEqual(b.history, a.history);
    assert.deepEqual(seen.async, seen.sync);
    assert.deepEqual(b.model.config, a.model.config);
    assert.deepEqual(new Uint8Array(b.model.params.buffer), new Uint8Array(a.model.params.buffer));
    // a slice never spans two reports, and each slice waits for a turn: train() takes none
    assert.ok(turns >= a.history.length, `${turns} turns for ${a.history.length} reports`);
  }
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('trainAsync paces its slices by any clock: one answering NaN or Infinity gives the same model (twenty-first pass)', async () => {
  // performance.now() stubbed (a fake timer, a page's own clock): NaN made the next slice NaN steps, which reached
  // C as 0 and rejected the run with "status 2" after its model was made.
  const opts = { task: 'shift', steps: 12, progressEvery: 5, dModel: 8, heads: 2 };
  const a = lab.train(opts);
  const now = Object.getOwnPropertyDescriptor(performance, 'now');
  for (const clock of [() => NaN, () => Infinity, () => -Infinity, () => 0]) {
    Object.defineProperty(performance, 'now', { value: clock, configurable: true, writable: true });
    try {
      const b = await lab.trainAsync(opts);
      assert.deepEqual(b.history, a.history, String(clock));
      assert.deepEqual(new Uint8Array(b.model.params.buffer), new Uint8Array(a.model.params.buffer));
    } finally {
      if (now) Object.defineProperty(performance, 'now', now);
      else delete performance.now;
    }
  }
  assert.equal(performance.now() > 0, true);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('trainAsync: a signal or onProgress ends the run, refusals reject by name, and nothing stays allocated', async () => {
  const opts = { task: 'shift', steps: 400, progressEvery: 10, dModel: 8, heads: 2 };
  const before = lab.memoryStats();
  const controller = new AbortController();
  const reports = [];
  await assert.rejects(lab.trainAsync({ ...opts, signal: controller.signal, onProgress: (p) => {
    reports.push(p.step);
    if (p.step === 30) controller.abort();
  } }), { name: 'AbortError' });
  assert.deepEqual(reports, [10, 20, 30], 'stopped at the slice after the abort');
  const reason = new Error('user pressed Stop');
  await assert.rejects(lab.trainAsync({ ...opts, signal: AbortSignal.abort(reason) }), (e) => e === reason);
  await assert.rejects(lab.trainAsync({ ...opts, onProgress: () => { throw new RangeError('from the callback'); } }), /from the callback/);
  const stopped = await lab.trainAsync({ ...opts, onProgress: (p) => p.step < 20 });
  assert.deepEqual(stopped.history.map((h) => h.step), [10, 20]);
  // (null is absent, as fetch's signal and every option of the API read it: thirty-second pass, tests/ranges.test.js)
  for (const [signal, type] of [[5, TypeError], [{}, TypeError], [false, TypeError]]) {
    await assert.rejects(lab.trainAsync({ ...opts, signal }), (e) => e instanceof type && /lab\.trainAsync: signal must be an AbortSignal/.test(e.message), String(signal));
  }
  const throwing = { get aborted() { throw new Error('planted'); } };
  await assert.rejects(lab.trainAsync({ ...opts, signal: throwing }), /lab\.trainAsync: .*signal\.aborted/);
  await assert.rejects(lab.trainAsync({ ...opts, steps: 0 }), (e) => e instanceof RangeError && /lab\.trainAsync: steps/.test(e.message));
  await assert.rejects(lab.trainAsync({ ...opts, batch: 1024, maxLength: 1024, layers: 4 }), (e) => e instanceof RangeError && /lower batch or maxLength/.test(e.message));
  assert.deepEqual(lab.memoryStats(), before);
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
  assert.throws(() => lab.evaluate(model, { length: 80 }), /length must be an integer from 3 to 63 \(got 80\)/); // (the model's maxLength 64)
  assert.throws(() => lab.evaluate(model, { task: 'copy' }), /shapes|vocab|RangeError|status/);
  assert.throws(() => lab.attentionMaps(model, [0, 99]), /tokens\[1\] must be an integer from 0 to 16/);
  assert.throws(() => lab.attentionMaps(model, []), /tokens must hold 1 to 64/);
  assert.throws(() => lab.evaluate({ ...model, params: model.params.subarray(1) }), /model.params must be/);
  assert.equal(lab.memoryStats().liveAllocations, 0);
  assert.ok(lab.evaluate(model, { samples: 8 }).accuracy >= 0);
});

test('examples: recency asks at each filler for the nearest name before it', () => {
  const { shape, tokens, targets } = lab.examples({ task: 'recency', length: 20, count: 50, seed: 4 });
  assert.deepEqual(shape, [50, 20]);
  let names = 0;
  for (let b = 0; b < 50; b++) {
    let last = -1;
    for (let i = 0; i < 20; i++) {
      const t = tokens[b * 20 + i];
      if (i === 0) assert.ok(t < 8, 'every example starts with a name');
      if (t < 8) {
        names++;
        assert.equal(targets[b * 20 + i], -1);
        last = t;
      } else {
        assert.ok(t >= 12 && t < 16, 'fillers only between names');
        assert.equal(targets[b * 20 + i], last);
      }
    }
  }
  // one name in three after the first: 50 + 950 / 3 ~ 367 (sd ~15)
  assert.ok(names > 300 && names < 440, `${names} names`);
});

test('examples: bos puts a start token first and shifts the rest; the probe reverses who-did-what', () => {
  const plain = lab.examples({ task: 'shift', length: 6, seed: 5 });
  const bos = lab.examples({ task: 'shift', length: 6, seed: 5, bos: true });
  assert.deepEqual(bos.shape, [1, 7]);
  assert.equal(bos.tokens[0], 10, 'the start token is the id after the vocabulary');
  assert.equal(bos.targets[0], -1);
  assert.deepEqual(Array.from(bos.tokens.subarray(1)), Array.from(plain.tokens));
  assert.deepEqual(Array.from(bos.targets.subarray(1)), Array.from(plain.targets));
  const who = lab.examples({ task: 'who-did-what', length: 7, count: 30, seed: 6 });
  const probe = lab.examples({ task: 'who-did-what', length: 7, count: 30, seed: 6, probe: 'reversed' });
  for (let b = 0; b < 30; b++) {
    const row = Array.from(who.tokens.subarray(b * 8, b * 8 + 8));
    const rev = Array.from(probe.tokens.subarray(b * 8, b * 8 + 8));
    assert.deepEqual(rev, [...row].reverse(), 'the same sentence backwards, query first');
    const verb = rev.findIndex((t) => t >= 8 && t < 12);
    const before = rev.slice(0, verb).find((t) => t < 8);
    assert.equal(probe.targets[b * 8], before, 'the answer is the name before the verb, read left to right');
    assert.notEqual(before, who.targets[b * 8 + 7], 'which is not the doer of the forward sentence');
    assert.deepEqual(Array.from(probe.targets.subarray(b * 8 + 1, b * 8 + 8)), Array(7).fill(-1));
  }
});

test('evaluate scores new and trained positions apart, and they add up to all', () => {
  const { model } = lab.train({ task: 'shift', attention: 'causal', steps: 30, dModel: 16, heads: 2, trainLengths: [3, 16] });
  const at = (positions, length = 32) => lab.evaluate(model, { length, samples: 40, seed: 3, positions });
  const [all, trained, fresh] = [at('all'), at('trained'), at('new')];
  // length 32: targets at 2..31; positions 0..15 were in training examples (16 tokens)
  assert.equal(trained.scored, 40 * 14);
  assert.equal(fresh.scored, 40 * 16);
  assert.equal(all.scored, 40 * 30);
  assert.ok(Math.abs(all.accuracy * 30 - (trained.accuracy * 14 + fresh.accuracy * 16)) < 1e-9);
  const inRange = at('new', 16);
  assert.equal(inRange.scored, 0);
  assert.ok(Number.isNaN(inRange.accuracy) && Number.isNaN(inRange.loss));
  // copy and reverse, trained on lengths up to 8 (17 tokens), tested at 12: blank j sits at 13 + j and
  // answers with symbol j (copy) or 11 - j (reverse); new when 13 + j >= 17 or the symbol's place >= 8
  for (const [task, newCount] of [['copy', 8], ['reverse', 12]]) {
    const m = lab.train({ task, steps: 2, dModel: 8, heads: 2, trainLengths: [2, 8] }).model;
    assert.equal(lab.evaluate(m, { length: 12, samples: 5, positions: 'new' }).scored, 5 * newCount, task);
    const t = lab.evaluate(m, { length: 12, samples: 5, positions: 'trained' }).scored;
    assert.equal(t, 5 * (12 - newCount), task);
  }
});

test('randomized positions and bos: recorded in the model, deterministic, and they change training', () => {
  const base = { task: 'who-did-what', steps: 20, dModel: 16, heads: 2, seed: 2 };
  const a = lab.train({ ...base, randomizedPositions: true });
  assert.equal(a.model.config.randomizedPositions, 256, 'true: four times maxLength');
  const b = lab.train({ ...base, randomizedPositions: 256 });
  assert.deepEqual(new Uint8Array(a.model.params.buffer), new Uint8Array(b.model.params.buffer));
  const plain = lab.train(base);
  assert.notDeepEqual(new Uint8Array(a.model.params.buffer), new Uint8Array(plain.model.params.buffer));
  const e = (m) => lab.evaluate(m, { length: 20, samples: 64, seed: 1 });
  assert.deepEqual(e(a.model), e(b.model));
  const withBos = lab.train({ ...base, bos: true });
  assert.equal(withBos.model.config.bos, true);
  assert.ok(lab.evaluate(withBos.model, { length: 5, samples: 8 }).scored === 8);
  assert.equal(lab.attentionMaps(withBos.model, [17, 0, 8, 1, 16]).shape[2], 5, 'the start token is a word of a bos model');
  assert.throws(() => lab.attentionMaps(plain.model, [17, 0]), /tokens\[0\] must be an integer from 0 to 16/);
});

test('issue 22: loss, evaluate, attentionMaps and examples refuse bad arguments by name, leak nothing, stay usable', () => {
  const { model } = lab.train({ steps: 2, dModel: 8, heads: 2 });
  const batch = lab.examples({ length: 3, count: 2, seed: 1 });
  const raises = (fn, Type, re) => assert.throws(fn, (e) => e instanceof Type && re.test(e.message) && /^posenc\.lab\.\w+: /.test(e.message), String(fn));
  const before = lab.memoryStats();
  raises(() => lab.loss(model, { ...batch, shape: [-1, 4] }), RangeError, /batch\.shape\[0\] must be an integer from 1 to 32/);
  raises(() => lab.loss(model, { ...batch, shape: [1.5, 4] }), RangeError, /batch\.shape\[0\]/);
  raises(() => lab.loss(model, { ...batch, shape: [2, 65] }), RangeError, /batch\.shape\[1\] must be an integer from 1 to 64/);
  raises(() => lab.loss(model, { ...batch, shape: [1, 4] }), RangeError, /batch\.tokens must hold count x n = 4 ids/);
  raises(() => lab.loss(model, null), TypeError, /batch must be/);
  raises(() => lab.loss(model, { ...batch, shape: 8 }), TypeError, /batch\.shape must be \[count, n\]/);
  raises(() => lab.loss(model, { ...batch, tokens: Array.from(batch.tokens, String) }), TypeError, /batch\.tokens\[0\] must be a number/);
  raises(() => lab.loss(model, { ...batch, tokens: new Float32Array(8) }), TypeError, /batch\.tokens must be an Int32Array/);
  raises(() => lab.loss(model, { ...batch, targets: batch.targets.map(() => 8) }), RangeError, /batch\.targets\[0\] must be an integer from -1 to 7/);
  raises(() => lab.loss(model, batch, { gradiant: true }), TypeError, /unknown option "gradiant"/);
  raises(() => lab.loss(model, batch, { gradient: 1 }), TypeError, /gradient must be true or false/);
  raises(() => lab.loss(model, batch, 'yes'), TypeError, /options must be an object/);
  raises(() => lab.loss(null, batch), TypeError, /model must be/);
  raises(() => lab.evaluate(model, { lenght: 4 }), TypeError, /unknown option "lenght"/);
  raises(() => lab.evaluate(model, { length: 4.5 }), RangeError, /length must be an integer/);
  raises(() => lab.evaluate(model, { length: '4' }), TypeError, /length must be a number/);
  raises(() => lab.evaluate(model, { positions: 'old' }), RangeError, /positions must be one of all, trained, new/);
  raises(() => lab.evaluate(model, { probe: 'passive' }), RangeError, /probe must be one of reversed/);
  raises(() => lab.evaluate(model, { samples: false }), TypeError, /samples must be a number/);
  raises(() => lab.attentionMaps(model, null), TypeError, /tokens must be an array/);
  raises(() => lab.attentionMaps(model, ['1', '2']), TypeError, /tokens\[0\] must be a number/);
  raises(() => lab.attentionMaps(model, [1, 2], { heads: 1 }), TypeError, /unknown option "heads"/);
  // a Proxy of an Array answers any length: NaN read as 0 ids was refused as 'could not allocate 0 bytes', and 2.5 taken
  // as 2 (issue 22, sixteenth pass, class 8); now refused by name, as batch.tokens's length is (one number: '2' is 2)
  const answering = (length) => new Proxy([1, 2, 3], { get: (t, k, r) => (k === 'length' ? length : Reflect.get(t, k, r)) });
  for (const [length, shown] of [[NaN, 'NaN'], [undefined, 'NaN'], [2.5, '2.5'], [{ valueOf: () => NaN }, 'NaN']]) {
    raises(() => lab.attentionMaps(model, answering(length)), RangeError, new RegExp(`tokens must hold 1 to 64 ids \\(the model's maxLength\\) \\(got ${shown}\\)`));
    raises(() => lab.loss(model, { ...batch, tokens: answering(length) }), RangeError, /batch\.tokens must hold count x n = \d+ ids/);
  }
  raises(() => lab.examples({ length: -1 }), RangeError, /length must be an integer from 3/); // (who-did-what's shortest)
  raises(() => lab.examples({ count: '2' }), TypeError, /count must be a number/);
  raises(() => lab.examples({ gradiant: true }), TypeError, /unknown option "gradiant"/);
  raises(() => lab.examples({ task: 'shift', probe: 'reversed' }), RangeError, /probe "reversed" is a probe of who-did-what/);
  raises(() => lab.examples({ bos: 1 }), TypeError, /bos must be true or false/);
  raises(() => lab.examples({ count: 65536, length: 1024, task: 'copy' }), RangeError, /MiB/);
  raises(() => lab.train({ randomizedPositions: 10 }), RangeError, /randomizedPositions must be an integer from 64 to 4096/);
  raises(() => lab.train({ randomizedPositions: 'yes' }), TypeError, /randomizedPositions must be true, false or a number/);
  raises(() => lab.train({ bos: 'yes' }), TypeError, /bos must be true or false/);
  const getter = { ...batch, get tokens() { throw new Error('boom'); } };
  raises(() => lab.loss(model, getter), TypeError, /could not read batch\.tokens: boom/);
  assert.deepEqual(lab.memoryStats(), before, 'a refused call keeps no allocation and grows no memory');
  assert.ok(Number.isFinite(lab.loss(model, batch).loss), 'still usable');
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

test('a model read through getters, or asked about another task, gives posenc errors naming them (adversarial pass after issue 26)', async () => {
  const { model } = await lab.train({ steps: 1, task: 'copy' });
  const failing = (name) => { throw new Error(`getter ${name}`); };
  for (const [bad, message] of [
    [{ config: model.config, get params() { return failing('params'); } }, /^posenc\.lab\.evaluate: could not read model\.params: getter params/],
    [{ get config() { return failing('config'); }, params: model.params }, /^posenc\.lab\.evaluate: could not read model\.config: getter config/],
    [{ config: { ...model.config, get task() { return failing('task'); } }, params: model.params }, /^posenc\.lab\.evaluate: could not read model\.config\.task: getter task/],
  ]) {
    assert.throws(() => lab.evaluate(bad), (e) => e instanceof TypeError && message.test(e.message));
  }
  assert.throws(() => lab.evaluate(model, { task: 'recency' }), (e) => e instanceof RangeError
    && /^posenc\.lab\.evaluate: task "recency" uses \d+ token ids and \d+ answers; this model was trained on "copy"/.test(e.message));
  assert.ok(lab.evaluate(model, { length: 8 }).scored > 0, 'the module stays usable');
});

test('loss checks the model against the batch\'s shape before reading its ids (issue 22, eighteenth pass)', () => {
  // A model whose params do not fit its config, or whose config passes one call's memory, was refused only after
  // every id of the batch (up to 2 × 2^20, 0.3 s through a proxy) had been read and checked.
  let reads = 0;
  const counted = (n, v) => new Proxy([], { get: (t, k) => (k === 'length' ? n : (reads++, v)) });
  const batch = { shape: [1024, 1024], tokens: counted(2 ** 20, 0), targets: counted(2 ** 20, -1) };
  const config = { task: 'copy', batch: 1024, maxLength: 1024, heads: 64, dModel: 512, layers: 4, mlp: 4096, trainLengths: [2, 8] };
  const before = lab.memoryStats();
  const Real = lab.precision === 'float64' ? Float64Array : Float32Array;
  const wrong = () => lab.loss({ config, params: new Real(1) }, batch);
  assert.throws(wrong, /model\.params must be a Float(32|64)Array of \d+ numbers/);
  assert.equal(reads, 0);
  const count = Number(/of (\d+) numbers/.exec((() => { try { wrong(); } catch (e) { return e.message; } })())[1]);
  assert.throws(() => lab.loss({ config, params: new Real(count) }, batch), /this call would need \d+\.\d MiB/);
  assert.equal(reads, 0);
  assert.deepEqual(lab.memoryStats(), before);
  // a model that fits still reads each id once
  const { model } = lab.train({ task: 'copy', steps: 1, dModel: 16, heads: 2, layers: 1, batch: 2, maxLength: 32 });
  const ex = lab.examples({ task: 'copy', length: 4, count: 2 });
  reads = 0;
  const n = ex.shape[0] * ex.shape[1];
  lab.loss(model, { shape: ex.shape, tokens: counted(n, 1), targets: counted(n, -1) });
  assert.equal(reads, 2 * n);
});

test('a model whose params hold a NaN or an infinity is refused by name, after its sizes and before it is made (twenty-first pass)', () => {
  // A forged model's non-finite params gave NaN losses and attention maps and an accuracy of chance, without a word.
  const { model } = lab.train({ task: 'copy', steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 32 });
  const ex = lab.examples({ task: 'copy', length: 3, count: 2 });
  for (const [i, bad] of [[0, NaN], [model.params.length - 1, Infinity], [7, -Infinity]]) {
    const params = model.params.slice();
    params[i] = bad;
    const forged = { config: model.config, params };
    for (const call of [() => lab.evaluate(forged, { samples: 4 }), () => lab.attentionMaps(forged, [1, 2, 3]), () => lab.loss(forged, ex),
      () => lab.tensors(forged)]) {
      const before = lab.memoryStats();
      assert.throws(call, (e) => e instanceof RangeError && e.message.endsWith(`model.params[${i}] must be finite (got ${bad})`), String(call));
      assert.deepEqual(lab.memoryStats(), before);
    }
  }
  // a size refusal still comes first, before any element is read
  const Real = model.params.constructor;
  const config = { task: 'copy', batch: 1024, maxLength: 1024, heads: 64, dModel: 512, layers: 4, mlp: 4096, trainLengths: [2, 8] };
  const count = Number(/of (\d+) numbers/.exec((() => { try { lab.tensors({ config, params: new Real(1) }); } catch (e) { return e.message; } })())[1]);
  assert.throws(() => lab.tensors({ config, params: new Real(count).fill(NaN) }), /this call would need \d+\.\d MiB/);
  assert.ok(lab.evaluate(model, { samples: 4 }).scored > 0);
});

test('a hole in tokens, a batch or trainLengths is refused, not filled by an index planted on Array.prototype (twenty-fifth pass)', () => {
  // The lab read elements as value[i], so with Array.prototype[1] = 1 (a planted data value) attentionMaps took
  // [0, , 2] as [0, 1, 2] and drew its maps, and a batch's holes became ids; posenc and posenc/fields read a hole as
  // undefined (item() in web/lib/validate.js) and refused it, as the lab does now.
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2, maxLength: 16 });
  const calls = [
    [() => lab.attentionMaps(model, [0, , 2]), /^posenc\.lab\.attentionMaps: tokens\[1\] must be a number \(got undefined\)$/], // eslint-disable-line no-sparse-arrays
    [() => lab.loss(model, { shape: [1, 3], tokens: [0, , 2], targets: [-1, -1, -1] }), /^posenc\.lab\.loss: batch\.tokens\[1\] must be a number \(got undefined\)$/], // eslint-disable-line no-sparse-arrays
    [() => lab.loss(model, { shape: [1, 3], tokens: [0, 1, 2], targets: [-1, , -1] }), /^posenc\.lab\.loss: batch\.targets\[1\] must be a number \(got undefined\)$/], // eslint-disable-line no-sparse-arrays
    [() => lab.loss(model, { shape: [1, ,], tokens: [0], targets: [-1] }), /^posenc\.lab\.loss: batch\.shape\[1\] must be a number \(got undefined\)$/], // eslint-disable-line no-sparse-arrays
    [() => lab.train({ steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2, maxLength: 16, trainLengths: [3, ,] }), /^posenc\.lab\.train: trainLengths\[1\] must be a number \(got undefined\)$/], // eslint-disable-line no-sparse-arrays
  ];
  for (const planted of [undefined, 1, 3]) {
    if (planted !== undefined) Object.defineProperty(Array.prototype, 1, { value: planted, configurable: true, writable: true }); // eslint-disable-line no-extend-native
    try {
      for (const [call, message] of calls) assert.throws(call, { name: 'TypeError', message }, `${call} with Array.prototype[1] = ${planted}`);
    } finally {
      delete Array.prototype[1];
    }
  }
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test("vocabulary, classNames and chance refuse a task, lang or bos they do not know (twenty-eighth pass)", async () => {
  // An unknown task was answered with copy's words (vocabulary('nope'), classNames(undefined)), chance('constructor')
  // with Object and chance('nope') with undefined; a lang of 'fr' with English and a bos of 'no' with the start token.
  const { vocabulary, classNames, chance } = await import(build === 'release' ? '../dist/lib/lab.js' : '../web/lib/lab/index.js');
  const refused = [
    [() => chance('constructor'), RangeError, /^posenc\.lab\.chance: task must be one of who-did-what, shift, copy, reverse, recency \(got "constructor"\)$/],
    [() => chance('nope'), RangeError, /^posenc\.lab\.chance: task must be one of/],
    [() => vocabulary('nope'), RangeError, /^posenc\.lab\.vocabulary: task must be one of/],
    [() => vocabulary('__proto__'), RangeError, /^posenc\.lab\.vocabulary: task must be one of/],
    [() => classNames(undefined), TypeError, /^posenc\.lab\.classNames: task must be a string/],
    [() => vocabulary('copy', 'fr'), RangeError, /^posenc\.lab\.vocabulary: lang must be one of en, zh \(got "fr"\)$/],
    [() => classNames('recency', 7), TypeError, /^posenc\.lab\.classNames: lang must be a string/],
    [() => vocabulary('copy', 'en', 'no'), TypeError, /^posenc\.lab\.vocabulary: bos must be true or false \(got "no"\)$/],
  ];
  for (const [call, name, message] of refused) assert.throws(call, { name: name.name, message }, String(call));
  assert.equal(chance('recency'), 1 / 8);
  assert.equal(vocabulary('who-did-what', 'zh', true).length, 18);
  assert.deepEqual(vocabulary('copy'), ['0', '1', '2', '3', '4', '5', '6', '7', '8', '9', '|', '_']);
  assert.equal(classNames('shift', 'zh').length, 10);
  // null is absent, as in every option of the API (a null lang was refused as not a string)
  assert.deepEqual(vocabulary('who-did-what', null, null), vocabulary('who-did-what'));
  assert.deepEqual(classNames('recency', null), classNames('recency', 'en'));
});

test("evaluate's positions 'trained' and 'new' in a task with no example of the model's longest length are refused first (twenty-eighth pass)", () => {
  // A recency model trained on length 2, evaluated on who-did-what (same words, shortest length 3): the core was asked
  // for the trained positions of a who-did-what example of length 2 once the model was made, refused it as "status 2"
  // naming nothing, and the memory grown for the model (93 MiB for batch 64 and maxLength 512) was kept.
  const { model } = lab.train({ task: 'recency', trainLengths: [2, 2], steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2, maxLength: 40 });
  const big = { config: { ...model.config, batch: 64, maxLength: 512 }, params: model.params };
  const before = lab.memoryStats().bytes;
  for (const positions of ['trained', 'new']) {
    assert.throws(() => lab.evaluate(big, { task: 'who-did-what', length: 5, samples: 4, positions }), {
      name: 'RangeError',
      message: `posenc.lab.evaluate: positions "${positions}" needs an example of the model's longest training length (2) in task "who-did-what", whose shortest is 3; use positions "all" (got "${positions}")`,
    });
  }
  assert.throws(() => lab.evaluate(model, { task: 'who-did-what', length: 5, positions: 'new', probe: 'reversed' }), { name: 'RangeError', message: /\(probe "reversed"\), whose shortest is 3/ });
  assert.equal(lab.memoryStats().bytes, before, 'nothing grown by the refusals');
  assert.equal(lab.evaluate(model, { task: 'who-did-what', length: 5, samples: 4 }).scored, 4, "positions 'all' still scores every answer");
  assert.equal(lab.evaluate(model, { length: 3, samples: 4, positions: 'new' }).scored > 0, true, 'its own task has its trained positions');
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test("evaluate's and examples' length refusals name the task's shortest length, not 1, and a length not given as the model's (twenty-ninth pass)", () => {
  // length 0 was "must be an integer from 1 to 1024", and then 1 "must be an integer from 3 to 1024" (who-did-what): a
  // message naming a range a second rule narrows, the family the twenty-eighth pass closed in posenc and posenc/variants
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2, maxLength: 40 });
  const before = lab.memoryStats().bytes;
  for (const length of [0, -1, 2.5, 1e300]) {
    assert.throws(() => lab.evaluate(model, { length, samples: 4 }), { name: 'RangeError', message: `posenc.lab.evaluate: length must be an integer from 3 to 39 (got ${length})` });
    assert.throws(() => lab.examples({ length }), { name: 'RangeError', message: `posenc.lab.examples: length must be an integer from 3 to 1024 (got ${length})` });
    assert.throws(() => lab.examples({ task: 'recency', length }), { name: 'RangeError', message: /length must be an integer from 2 to 1024/ });
  }
  assert.throws(() => lab.evaluate(model, { length: '5' }), { name: 'TypeError', message: /^posenc\.lab\.evaluate: length must be a number/ });
  assert.throws(() => lab.examples({ length: true }), { name: 'TypeError', message: /^posenc\.lab\.examples: length must be a number/ });
  assert.equal(lab.memoryStats().bytes, before, 'nothing grown by the refusals');
  assert.equal(lab.evaluate(model, { length: 3, samples: 4 }).scored, 4, 'the shortest is allowed');
  assert.deepEqual(lab.examples({ task: 'recency', length: 2 }).shape.length, 2);
  // a length not given is the model's longest training length, and the refusal says so: a recency model of length 2 on
  // who-did-what was "length must be an integer from 3 to 1024 (got 2)", an option the caller had not given
  const recency = lab.train({ task: 'recency', trainLengths: [2, 2], steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2, maxLength: 40 }).model;
  assert.throws(() => lab.evaluate(recency, { task: 'who-did-what', samples: 2 }), { name: 'RangeError', message: "posenc.lab.evaluate: length (the model's longest training length) must be an integer from 3 to 39 (got 2)" });
  assert.throws(() => lab.evaluate(recency, { task: 'who-did-what', samples: 2, length: 2 }), { name: 'RangeError', message: 'posenc.lab.evaluate: length must be an integer from 3 to 39 (got 2)' });
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test("thirtieth pass: train's maxLength, trainLengths, t5Buckets and t5MaxDistance, and evaluate's length, each refused once, with the range the call can take", () => {
  const small = { steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2 };
  const refuse = (f, message) => assert.throws(f, { name: 'RangeError', message });
  // maxLength from the tokens of the longest training example: "from 1 to 1024", then 1 to 4 "shorter than the 5 tokens"
  for (const maxLength of [-1, 0, 1, 4]) {
    refuse(() => lab.train({ ...small, trainLengths: [3, 4], maxLength }), `posenc.lab.train: maxLength (5 tokens of a training example of length 4) must be an integer from 5 to 1024 (got ${maxLength})`);
  }
  assert.equal(lab.train({ ...small, trainLengths: [3, 4], maxLength: 5 }).model.config.maxLength, 5, 'the least stated is taken');
  // trainLengths up to the longest whose examples a model takes (1024 tokens): copy's of 1024 have 2049, and were refused
  // as more than maxLength after "from 3 to 1024"; who-did-what's of 1024 have 1025
  refuse(() => lab.train({ ...small, task: 'copy', trainLengths: [3, 512], maxLength: 1024 }), 'posenc.lab.train: trainLengths[1] must be an integer from 3 to 511 (got 512)');
  refuse(() => lab.train({ ...small, task: 'copy', trainLengths: [512, 600], maxLength: 1024 }), 'posenc.lab.train: trainLengths[0] must be an integer from 1 to 511 (got 512)');
  refuse(() => lab.train({ ...small, trainLengths: [3, 1024], maxLength: 1024 }), 'posenc.lab.train: trainLengths[1] must be an integer from 3 to 1023 (got 1024)');
  // t5's least buckets and distance, said once: "from 2 to 1024" for 1, then "(bidirectional) … from 4" for 2
  for (const t5Buckets of [1, 2, 3]) {
    refuse(() => lab.train({ ...small, encoding: 't5', t5Buckets }), `posenc.lab.train: t5Buckets (bidirectional) must be an integer from 4 to 1024 (got ${t5Buckets})`);
  }
  refuse(() => lab.train({ ...small, encoding: 't5', attention: 'causal', t5Buckets: 1 }), 'posenc.lab.train: t5Buckets (causal) must be an integer from 2 to 1024 (got 1)');
  for (const t5MaxDistance of [0, 1, 2]) {
    refuse(() => lab.train({ ...small, encoding: 't5', t5Buckets: 8, t5MaxDistance }), `posenc.lab.train: t5MaxDistance (past the exact distances of 8 buckets) must be an integer from 3 to 1048576 (got ${t5MaxDistance})`);
  }
  assert.equal(lab.train({ ...small, encoding: 't5', t5Buckets: 4, t5MaxDistance: 2 }).model.config.t5MaxDistance, 2);
  assert.equal(lab.train({ ...small, t5Buckets: 2, t5MaxDistance: 1 }).model.config.t5Buckets, 2, 'unused without t5: its own range');
  // evaluate's length up to the longest example the model takes (its maxLength): "from 3 to 1024", then "makes N tokens"
  const { model } = lab.train({ ...small, trainLengths: [3, 4], maxLength: 8 });
  for (const length of [-1, 8, 1024]) refuse(() => lab.evaluate(model, { length, samples: 2 }), `posenc.lab.evaluate: length must be an integer from 3 to 7 (got ${length})`);
  assert.equal(lab.evaluate(model, { length: 7, samples: 2 }).scored > 0, true);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('thirty-second pass: the lists a caller reads (lab.tasks, encodings, positions, probes, TASKS) are frozen, being the ones the checks read', async () => {
  // lab.encodings.push('y') made encoding "y" train a model of encoding id 0, lab.tasks.push('x') gave task "x"
  // who-did-what's examples and chance('x') undefined, lab.positions.push('z') scored with id 0: each without a word.
  const { TASKS, chance } = await import(build === 'release' ? '../dist/lib/lab.js' : '../web/lib/lab/index.js');
  for (const list of [lab.tasks, lab.encodings, lab.positions, lab.probes, TASKS]) {
    assert.ok(Object.isFrozen(list));
    assert.throws(() => list.push('x'), TypeError);
  }
  assert.throws(() => lab.examples({ task: 'x' }), { name: 'RangeError', message: /^posenc\.lab\.examples: task must be one of who-did-what, shift, copy, reverse, recency \(got "x"\)$/ });
  assert.throws(() => chance('x'), RangeError);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test("thirty-second pass: docs/limits.md's lab rows state the ranges train takes (maxLength from 2, trainLengths' tops per task)", async () => {
  // the rows said "maxLength 1 … 1024" (1 is refused by every model: no example has fewer than 2 tokens) and "task
  // length … to 1024" (train's trainLengths stop where an example passes 1024 tokens: 511 for copy)
  const { readFileSync } = await import('node:fs');
  const doc = readFileSync(new URL('../docs/limits.md', import.meta.url), 'utf8');
  assert.match(doc, /`maxLength` from the tokens of the longest training example \(2 at the least: recency's of length 2\) to 1024/);
  assert.match(doc, /who-did-what 1 023, shift and recency 1 024, copy and reverse 511; one less with `bos` but for copy and reverse/);
  const top = { 'who-did-what': 1023, shift: 1024, copy: 511, reverse: 511, recency: 1024 };
  for (const task of lab.tasks) {
    for (const bos of [false, true]) {
      const most = top[task] - (bos && task !== 'copy' && task !== 'reverse' ? 1 : 0);
      assert.throws(() => lab.train({ task, bos, trainLengths: [most + 1, most + 1], steps: 1 }), { message: new RegExp(`trainLengths\\[0\\] must be an integer from \\d+ to ${most} `) });
    }
  }
  assert.throws(() => lab.train({ task: 'recency', trainLengths: [2, 2], maxLength: 1, steps: 1 }), { message: /maxLength \(2 tokens of a training example of length 2\) must be an integer from 2 to 1024 \(got 1\)/ });
  assert.equal(lab.train({ task: 'recency', trainLengths: [2, 2], maxLength: 2, steps: 1, dModel: 8, heads: 1, layers: 1, batch: 2 }).model.config.maxLength, 2);
});

test('thirty-second pass: params on a SharedArrayBuffer that a worker writes meanwhile: the values checked are the values the model gets', async () => {
  // The finiteness check read the caller's params, and the model was then given a second read of them: a worker
  // writing NaN into them between the two gave NaN attention maps (129 to 270 of 2 000 calls here), without a word.
  const { Worker } = await import('node:worker_threads');
  const { model } = lab.train({ task: 'shift', trainLengths: [3, 4], steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8 });
  const sab = new SharedArrayBuffer(model.params.byteLength);
  const params = new model.params.constructor(sab);
  params.set(model.params);
  const at = lab.tensors(model).find((t) => t.kind === 'token').offset; // token 0's embedding: every map reads it
  const flag = new Int32Array(new SharedArrayBuffer(4));
  const worker = new Worker(`
    const { workerData: d } = require('node:worker_threads');
    const u = new Uint32Array(d.sab), f = new Int32Array(d.flag);
    const i = d.wide ? 2 * d.at + 1 : d.at, keep = u[i], nan = d.wide ? 0x7ff80000 : 0x7fc00000; // (a NaN's high word)
    Atomics.store(f, 0, 1);
    while (Atomics.load(f, 0) === 1) { Atomics.store(u, i, nan); Atomics.store(u, i, keep); }
  `, { eval: true, workerData: { sab, flag: flag.buffer, at, wide: params.BYTES_PER_ELEMENT === 8 } });
  try {
    while (Atomics.load(flag, 0) !== 1) await new Promise((resolve) => setTimeout(resolve, 5));
    let silent = 0, refused = 0, passed = 0;
    // (until both kinds are common, however the threads are scheduled: a worker that never ran would prove nothing)
    for (let i = 0; i < 50000 && (refused < 100 || passed < 1000); i++) {
      try {
        if (lab.attentionMaps({ config: model.config, params }, [0, 0, 0]).data.some(Number.isNaN)) silent++;
        passed++;
      } catch (e) {
        assert.match(e.message, /^posenc\.lab\.attentionMaps: model\.params\[\d+\] must be finite/);
        refused++;
      }
    }
    assert.ok(refused >= 100, 'the worker wrote while the calls ran');
    assert.equal(silent, 0, 'NaN maps from params that passed the check');
  } finally {
    Atomics.store(flag, 0, 2);
    await worker.terminate();
  }
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('thirty-second pass: params on a growable SharedArrayBuffer that a worker grows meanwhile: refused by name or used at their checked length, never a raw error', async () => {
  // A length-tracking view grown after its length was checked was copied whole into a model of the length checked:
  // "offset is out of bounds", a raw RangeError (48 to 82 of 4 000 calls here).
  const { model } = lab.train({ task: 'shift', trainLengths: [3, 4], steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8 });
  const bytes = model.params.byteLength, Real = model.params.constructor;
  const make = () => {
    const s = new SharedArrayBuffer(bytes, { maxByteLength: bytes + 64 * Real.BYTES_PER_ELEMENT });
    new Real(s).set(model.params);
    return s;
  };
  const { raw, refused, used } = await growRaceBoth(4000, make,
    (s) => lab.attentionMaps({ config: model.config, params: new Real(s) }, [0, 1, 2]), // (length-tracking)
    (e) => /^posenc\.lab\.attentionMaps: model\.params must be a Float(32|64)Array of \d+ numbers/.test(e.message));
  assert.deepEqual(raw.slice(0, 3), []);
  assert.ok(refused > 0 && used > 0, `grown before the check ${refused}, after ${used}`);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test("thirty-third pass: loss checks targets' type and length before it reads an element of tokens or of the model's params", () => {
  // targets of the wrong length (or no list at all) were refused after every one of tokens' ids was read: a proxy's
  // getter ran count × n times (65 536 here; up to 2^20 for a model that fits) for a call refused by a length
  const { model } = lab.train({ task: 'copy', steps: 1, dModel: 4, heads: 1, layers: 1, batch: 8, maxLength: 64 });
  let reads = 0;
  const tokens = new Proxy(new Array(8 * 64).fill(1), {
    get: (t, k, r) => ((typeof k === 'string' && /^\d+$/.test(k) && reads++), Reflect.get(t, k, r)),
  });
  for (const [targets, error] of [[new Int32Array(5), /batch\.targets must hold count x n = 512 ids/], ['abc', /batch\.targets must be an Int32Array/],
    [undefined, /batch\.targets must be an Int32Array/]]) {
    reads = 0;
    assert.throws(() => lab.loss(model, { shape: [8, 64], tokens, targets }), error);
    assert.equal(reads, 0, String(error));
  }
  // and before the model's params, data too, are read: a NaN in them was named first, for a batch of no targets
  const nan = { config: model.config, params: model.params.map((x, i) => (i === 3 ? NaN : x)) };
  assert.throws(() => lab.loss(nan, { shape: [1, 4], tokens: [1, 1, 1, 1] }), /batch\.targets must be an Int32Array/);
  assert.throws(() => lab.loss(nan, { shape: [1, 4], tokens: [1], targets: [1, 1, 1, 1] }), /batch\.tokens must hold count x n = 4 ids/);
  assert.throws(() => lab.loss(nan, { shape: [1, 4], tokens: [1, 1, 1, 1], targets: [-1, -1, -1, -1] }), /model\.params\[3\] must be finite/);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('lab: a string, boolean, option or shape refused is refused before any id or token is read (thirty-fourth pass)', () => {
  const counted = elementReads(), boom = counted.list;
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8 });
  const ex = lab.examples({ task: 'who-did-what', length: 3, count: 2 });
  const batch = (more) => ({ shape: ex.shape, tokens: boom(ex.tokens), targets: boom(ex.targets), ...more });
  const calls = [
    ['gradient', () => lab.loss(model, batch(), { gradient: 'yes' })],
    ['bogus', () => lab.loss(model, batch(), { bogus: 1 })],
    ['batch.shape[1]', () => lab.loss(model, batch({ shape: [2, 99] }))],
    ['batch.targets', () => lab.loss(model, batch({ targets: new Float32Array(ex.targets) }))],
    ['model.params', () => lab.loss({ config: model.config, params: new Float32Array(3) }, batch())],
    ['encoding', () => lab.loss({ config: { ...model.config, encoding: 'x' }, params: model.params }, batch())],
    ['"x"', () => lab.attentionMaps(model, boom([1, 2, 3]), { x: 1 })],
    ['task', () => lab.attentionMaps({ config: { ...model.config, task: 'zz' }, params: model.params }, boom([1, 2, 3]))],
    ['tokens', () => lab.attentionMaps(model, boom(new Array(99).fill(1)))],
    // the model's params before the ids too (the eighteenth pass's "seen and left": up to 1 024 ids read first)
    ['model.params', () => lab.attentionMaps({ config: model.config, params: new Float32Array(3) }, boom([1, 2, 3]))],
    ['model.params[3]', () => lab.attentionMaps({ config: model.config, params: model.params.map((x, i) => (i === 3 ? NaN : x)) }, boom([1, 2, 3]))],
  ];
  for (const [name, call] of calls) {
    counted.reads = 0;
    assert.throws(call, (e) => (e instanceof RangeError || e instanceof TypeError) && e.message.includes(name) && !/could not read/.test(e.message), name);
    assert.equal(counted.reads, 0, `${name}: ${counted.reads} element reads`);
  }
  // a function of no options says so ("known options are " ended the message, with an empty list)
  assert.throws(() => lab.attentionMaps(model, [1, 2, 3], { x: 1 }), /^TypeError: posenc\.lab\.attentionMaps: unknown option "x"; it takes no options$/);
});

test('lab.train: trainLengths longer than the default maxLength, not given, are named as such ("(got 64)" named a value never given)', () => {
  assert.throws(() => lab.train({ steps: 1, trainLengths: [3, 100] }),
    { name: 'RangeError', message: 'posenc.lab.train: trainLengths [3, 100] make examples of 101 tokens, more than the default maxLength (64): give maxLength from 101 to 1024' });
  // given, maxLength is named as before, with what was given
  assert.throws(() => lab.train({ steps: 1, trainLengths: [3, 100], maxLength: 64 }), { message: /maxLength \(101 tokens of a training example of length 100\) must be an integer from 101 to 1024 \(got 64\)$/ });
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('lab.trainAsync: a signal whose aborted turns into a non-boolean mid-run is refused by name, not taken as aborted (thirty-fifth pass)', async () => {
  let reads = 0;
  const signal = { get aborted() { return ++reads > 1 ? 'yes' : false; } };
  await assert.rejects(lab.trainAsync({ steps: 3, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8, signal }),
    (e) => e instanceof TypeError && /^posenc\.lab\.trainAsync: signal must be an AbortSignal/.test(e.message));
  assert.ok(reads >= 2);
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('lab.train: heads, dModel and t5MaxDistance not given are named as defaults when a given option refuses them (thirty-sixth pass)', () => {
  // "dModel (6) must be a multiple of heads (got 4)", "dModel (32) must be a multiple of heads (got 5)" and
  // "t5MaxDistance (past the exact distances of 1024 buckets) must be … (got 128)" each named a value never given
  const refuse = (options, message) => assert.throws(() => lab.train({ steps: 1, batch: 1, layers: 1, ...options }), { name: 'RangeError', message: `posenc.lab.train: ${message}` });
  refuse({ dModel: 6 }, 'dModel (6) must be a multiple of the default heads (got 4)');
  refuse({ heads: 5 }, 'the default dModel (32) must be a multiple of heads (got 5)');
  refuse({ dModel: 30, heads: 4 }, 'dModel (30) must be a multiple of heads (got 4)');
  refuse({ encoding: 't5', t5Buckets: 1024 }, 'the default t5MaxDistance (past the exact distances of 1024 buckets) must be an integer from 257 to 1048576 (got 128)');
  refuse({ encoding: 't5', attention: 'causal', t5Buckets: 600, t5MaxDistance: null }, 'the default t5MaxDistance (past the exact distances of 600 buckets) must be an integer from 301 to 1048576 (got 128)');
  refuse({ encoding: 't5', t5Buckets: 1024, t5MaxDistance: 200 }, 't5MaxDistance (past the exact distances of 1024 buckets) must be an integer from 257 to 1048576 (got 200)');
});

test('lab: a model\'s, a batch\'s and a signal\'s fields are their own or their classes\', never planted on Object.prototype (thirty-eighth pass)', async () => {
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8 });
  const ex = lab.examples({ count: 2 });
  const planted = (key, value, body) => {
    Object.defineProperty(Object.prototype, key, { value, configurable: true, writable: true }); // eslint-disable-line no-extend-native
    try { return body(); } finally { delete Object.prototype[key]; }
  };
  // each was taken from Object.prototype for the field the caller left out, and the loss computed from it
  const { shape, tokens, targets } = ex;
  planted('targets', targets, () => assert.throws(() => lab.loss(model, { shape, tokens }), { name: 'TypeError', message: /^posenc\.lab\.loss: batch\.targets must be an Int32Array/ }));
  planted('tokens', tokens, () => assert.throws(() => lab.loss(model, { shape, targets }), { name: 'TypeError', message: /^posenc\.lab\.loss: batch\.tokens must be an Int32Array/ }));
  planted('shape', shape, () => assert.throws(() => lab.loss(model, { tokens, targets }), { name: 'TypeError', message: /^posenc\.lab\.loss: batch\.shape must be \[count, n\]/ }));
  planted('params', model.params, () => assert.throws(() => lab.loss({ config: model.config }, ex), { message: /model must be the model that train\(\) returned/ }));
  planted('config', model.config, () => assert.throws(() => lab.attentionMaps({ params: model.params }, [1, 2]), { message: /model must be the model that train\(\) returned/ }));
  // a plain object is no signal, whatever Object.prototype holds; a real AbortSignal's own class answers
  await planted('aborted', false, () => assert.rejects(lab.trainAsync({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8, signal: {} }),
    { name: 'TypeError', message: /signal must be an AbortSignal/ }));
  const r = await planted('aborted', true, () => lab.trainAsync({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 8, signal: new AbortController().signal }));
  assert.equal(r.history.length > 0, true);
  // fields of a class still count
  class Batch { get shape() { return shape; } get tokens() { return tokens; } get targets() { return targets; } }
  assert.deepEqual(lab.loss(model, new Batch()), lab.loss(model, ex));
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

// The fortieth pass (part B) saw it: evaluate's task, not given, is the model's, and its refusal of probe "reversed"
// said (got "shift"), a value the caller never gave.
test('lab.evaluate: probe "reversed" beside a task not given names that task as the model\'s', () => {
  const m = lab.train({ task: 'shift', steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 16 }).model;
  const refused = (options, text) => assert.throws(() => lab.evaluate(m, options), { name: 'RangeError', message: `posenc.lab.evaluate: ${text}` });
  refused({ probe: 'reversed' }, 'probe "reversed" is a probe of who-did-what, not of task "shift" (the model\'s)');
  refused({ task: 'copy', probe: 'reversed' }, 'probe "reversed" is a probe of who-did-what, not of task "copy"');
  assert.throws(() => lab.examples({ task: 'copy', probe: 'reversed' }), { message: 'posenc.lab.examples: probe "reversed" is a probe of who-did-what, not of task "copy"' });
});

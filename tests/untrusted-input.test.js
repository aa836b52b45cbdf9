// Inputs from code posenc does not control (issue 16, points 4, 6 and 8):
// keys planted on Object.prototype, arrays in a SharedArrayBuffer that another
// thread writes during the call, and objects that make error messages hard to
// write (revoked proxies, throwing `constructor` getters, array-likes).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Worker } from 'node:worker_threads';
import { loadApi, loadVariants, loadFields } from './helpers/load.js';
import { growRace, growRaceBoth } from './helpers/grow-race.js';

const pe = await loadApi();
const pv = await loadVariants();
const apiOf = (fn) => (fn in pe ? pe : pv);
const m = (rows, cols, data) => ({ rows, cols, data });

/** { value } or { error: 'Type: message' }: comparable with deepEqual. */
function outcome(fn, args) {
  try {
    return { value: apiOf(fn)[fn](...args) };
  } catch (error) {
    return { error: `${error.constructor.name}: ${error.message}` };
  }
}

// ---- point 4: prototype pollution -------------------------------------------------

// Every option key of every function, with a valid value that differs from its default.
const POLLUTION = {
  offset: 1000, paddingIdx: 0, dtype: 'float64', causal: true, scale: 3, base: 500, preset: 'marian',
  layout: 'split', frequencies: 'geometric', cosine: true, heads: 2, inverse: true, axis: 'cols', headDim: 2,
  pairing: 'interleaved', positions: [3, 4], kLen: 3, variant: 'mpt', maxBias: 4, mode: 'symmetric',
  maskValue: -5, queryOffset: 1, bidirectional: false, numBuckets: 8, maxDistance: 20, precision: 'float64',
  maxRelativePosition: 1, shift: true, seed: 7, distribution: 'uniform', threshold: 1, weights: [2, 2, 2],
  count: 5, format: 'bfloat16', signed: true, scaling: { type: 'linear', factor: 2 }, type: 'linear',
  factor: 3, lowFreqFactor: 2, highFreqFactor: 3, originalMaxPosition: 64, betaFast: 8, betaSlow: 2,
  attentionFactor: 2,
  // issue 23: the config options and the keys a config.json is read by
  config: { head_dim: 4 }, layerType: 'sliding_attention', layerIndex: 1, seqLen: 99999, rotaryDim: 2,
  text_config: { head_dim: 2 }, rope_scaling: { rope_type: 'linear', factor: 9 }, rope_theta: 7, head_dim: 4,
  model_type: 'gemma3_text', full_attention: { rope_type: 'linear', factor: 5 }, truncate: false, mrope_section: [1],
};

const q = () => m(2, 2, [1, 0, 0, 1]);
const CALLS = [
  ['table', [4, 6]], ['frequencies', [6]], ['columns', [7]], ['tableGram', [5, 6]], ['gram', [m(3, 2, [1, 2, 3, 4, 5, 6])]],
  ['rotation', [1, 4]], ['toyAttention', [[1, 2, 3]]], ['attention', [q(), m(2, 2, [1, 2, 3, 4]), m(2, 2, [5, 6, 7, 8])]],
  ['ropeFrequencies', [8]], ['ropeFrequencies', [8, { scaling: { type: 'yarn', factor: 4, originalMaxPosition: 32 } }]],
  ['ropeFrequencies', [8, { scaling: 'llama3' }]], ['ropeCache', [4, 8]],
  ['ropeApply', [m(2, 4, [1, 2, 3, 4, 5, 6, 7, 8])]], ['ropePermutation', [8]], ['ropePermute', [m(4, 2, [1, 2, 3, 4, 5, 6, 7, 8])]],
  ['ropeFromConfig', [{ hidden_size: 16, num_attention_heads: 2, max_position_embeddings: 64 }]],
  ['ropeFromConfig', [{ head_dim: 8, num_hidden_layers: 2, layer_types: ['full_attention', 'sliding_attention'], rope_parameters: { full_attention: { rope_type: 'yarn', factor: 4, original_max_position_embeddings: 16 }, sliding_attention: { rope_theta: 100 } } }]],
  ['alibiSlopes', [4]], ['alibiBias', [2, 3]], ['t5Bucket', [[-40, -1, 0, 1, 40]]], ['t5BucketMatrix', [4]],
  ['shawClip', [4]], ['learnedTable', [4, 4]], ['learnedRows', [[1], 4, 4]], ['binaryTable', [4, 4]],
  ['roundTo', [[1.1, 2.2], 'float16']], ['formatBits', [[1.1, 2.2], 'float16']], ['precisionError', [8, { count: 16 }]],
];

test('keys planted on Object.prototype change no result, with or without an options object', () => {
  const calls = CALLS.flatMap(([fn, args]) => [[fn, args], [fn, [...args, ...(args.length < 3 ? [undefined] : []), {}].slice(0, args.length + 1)]]);
  const clean = calls.map(([fn, args]) => outcome(fn, args));
  const polluted = [];
  try {
    for (const [key, value] of Object.entries(POLLUTION)) Object.prototype[key] = value; // eslint-disable-line no-extend-native
    for (const [fn, args] of calls) polluted.push(outcome(fn, args));
  } finally {
    for (const key of Object.keys(POLLUTION)) delete Object.prototype[key];
  }
  assert.ok(clean.every((o) => 'value' in o), 'every clean call succeeds');
  for (let i = 0; i < calls.length; i++) {
    assert.deepEqual(polluted[i], clean[i], `${calls[i][0]} with Object.prototype polluted`);
  }
});

// ---- point 6: a SharedArrayBuffer written by another thread -----------------------

test('an input in a SharedArrayBuffer toggled to NaN by a worker: copied, then checked; never NaN out', async () => {
  const shared = new SharedArrayBuffer(8 * 8 + 4);
  const data = new Float64Array(shared, 0, 8);
  const stop = new Int32Array(shared, 64, 1);
  data.set([10, 11, 12, 13, 14, 15, 16, 17]);
  const worker = new Worker(`
    const { workerData } = require('node:worker_threads');
    const data = new Float64Array(workerData, 0, 8);
    const stop = new Int32Array(workerData, 64, 1);
    const spin = (n) => { for (let i = 0; i < n; i++); };
    while (Atomics.load(stop, 0) === 0) { data[1] = NaN; spin(200); data[1] = 11; spin(200); }
  `, { eval: true, workerData: shared });
  await new Promise((resolve, reject) => { worker.once('online', resolve); worker.once('error', reject); });
  const want = Array.from(pv.ropePermute(m(8, 1, [10, 11, 12, 13, 14, 15, 16, 17]), { headDim: 8 }).data);
  let refused = 0;
  let nan = 0;
  try {
    for (let i = 0; i < 3000; i++) {
      let out;
      try {
        out = pv.ropePermute(m(8, 1, data), { headDim: 8 });
      } catch (error) {
        assert.ok(error instanceof RangeError && /^posenc\.ropePermute: weights\.data\[1\] must be a finite number \(got NaN\)$/.test(error.message), error.message);
        refused++;
        continue;
      }
      if (out.data.some(Number.isNaN)) nan++;
      else assert.deepEqual(Array.from(out.data), want);
    }
  } finally {
    Atomics.store(stop, 0, 1);
    await worker.terminate();
  }
  assert.equal(nan, 0, `${nan} of 3000 results held a NaN (${refused} calls refused)`);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

// ---- point 8: messages ---------------------------------------------------------------

const revoked = () => {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
};
const revokedArray = () => {
  const { proxy, revoke } = Proxy.revocable([1, 2, 3], {});
  revoke();
  return proxy;
};

test('a revoked proxy anywhere gives a posenc TypeError naming what could not be read', () => {
  for (const [fn, args, name] of [
    ['table', [4, 6, revoked()], 'options'],
    ['dot', [revoked(), [1, 2, 3]], 'a'],
    ['dot', [revokedArray(), [1, 2, 3]], 'a'],
    ['dot', [[1, 2, 3], [1, revoked(), 3]], 'b\\[1\\]'],
    ['norms', [revoked()], 'matrix'],
    ['norms', [m(1, 3, revokedArray())], 'matrix.data'],
    ['ropeFrequencies', [8, { scaling: revoked() }], 'scaling'],
    ['ropeApply', [m(1, 2, [1, 2]), { positions: revokedArray() }], 'positions'],
    ['roundTo', [revokedArray(), 'float32'], 'values'],
  ]) {
    assert.throws(() => apiOf(fn)[fn](...args), (e) => {
      assert.ok(e instanceof TypeError, `${fn}: ${e}`);
      assert.match(e.message, new RegExp(`^posenc\\.${fn}: (could not read )?${name}`), `${fn}: ${e.message}`);
      return true;
    });
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('an argument whose constructor getter throws is still described, not rethrown', () => {
  const hostile = Object.create({ get constructor() { throw new Error('boom'); } });
  for (const [fn, args] of [['dot', [hostile, [1]]], ['table', [hostile, 4]], ['norms', [m(1, 1, [hostile])]], ['gram', [m(1, 1, [1]), { dtype: hostile }]]]) {
    assert.throws(() => apiOf(fn)[fn](...args), (e) => {
      assert.ok(e instanceof TypeError, `${fn}: ${e}`);
      assert.match(e.message, new RegExp(`^posenc\\.${fn}: .*\\(got an object\\)$`), e.message);
      return true;
    });
  }
});

test('array-likes are accepted wherever index.d.ts says ArrayLike<number>', () => {
  const like = (values) => ({ ...values, length: values.length });
  assert.equal(pe.dot(like([1, 2]), like([3, 4])), 11);
  assert.deepEqual(pe.norms(m(1, 2, like([3, 4]))), pe.norms(m(1, 2, [3, 4])));
  assert.deepEqual(pe.toyAttention(like([1, 2, 3]), like([10, 20, 30])), pe.toyAttention([1, 2, 3], [10, 20, 30]));
  assert.deepEqual(pv.t5Bucket(like([-5, 5])), pv.t5Bucket([-5, 5]));
  assert.deepEqual(pv.roundTo(like([1.1]), 'float16'), pv.roundTo([1.1], 'float16'));
  assert.throws(() => pe.dot({ length: '2', 0: 1, 1: 2 }, [1, 2]), /posenc\.dot: a must be an array, typed array or array-like of numbers/);
});

test('a call just over 1 GiB does not read as exactly 1024 MiB', () => {
  // 24 × 11184811 int32 buckets: 2^30 + 32 bytes.
  assert.equal(24 * 11184811 * 4, 2 ** 30 + 32);
  assert.throws(() => pv.t5BucketMatrix(24, { kLen: 11184811 }),
    /^RangeError: posenc\.t5BucketMatrix: this call would need 1024\.1 MiB of WebAssembly memory; one call may use at most 1024 MiB/);
});

// ---- issue 22, thirteenth pass: reads by index, never through an iterator planted on the array ----

test('a tensor shape is read by index, its length once: an iterator planted on it is never called', () => {
  const data = new Float32Array([1, 2, 3, 4]);
  const want = pe.norms({ shape: [2, 2], data });
  let yields = 0;
  const shape = [2, 2];
  // Array.from(shape) followed it: an endless one never returned (here one of 1000 ones, refused as 1000 sizes)
  shape[Symbol.iterator] = function* () {
    for (let i = 0; i < 1000; i++, yields++) yield 1;
  };
  assert.deepEqual(pe.norms({ shape, data }), want);
  assert.equal(yields, 0);
  // a proxy whose length grows after its first read: read once, so 2 stays 2
  let lengthReads = 0;
  const growing = new Proxy([2, 2], { get: (t, k) => (k === 'length' ? (lengthReads++ ? 2 ** 32 - 1 : 2) : t[k]) });
  assert.deepEqual(pe.norms({ shape: growing, data }), want);
  assert.equal(lengthReads, 1);
  // a sparse shape of length 2^32 - 1 is refused by its length, no element read
  let gets = 0;
  const sparse = [];
  sparse.length = 2 ** 32 - 1;
  const counted = new Proxy(sparse, { get: (t, k) => (k !== 'length' && gets++, t[k]) });
  assert.throws(() => pe.norms({ shape: counted, data }), /posenc\.norms: matrix\.shape must be 1 to 4 sizes/);
  assert.equal(gets, 0);
});

test('an int64 tensor is read by index to its own length, not through an iterator planted on it', () => {
  // Float64Array.from(data, Number) followed data[Symbol.iterator]: one that threw escaped as that raw error,
  // one that yielded other values replaced the tensor's, and an endless one never returned.
  const plant = {
    throws: (d) => Object.defineProperty(d, Symbol.iterator, { get() { throw new Error('planted iterator'); } }),
    'other values': (d) => { d[Symbol.iterator] = function* () { for (let i = 0; i < d.length; i++) yield 1n; }; },
    'a planted length': (d) => Object.defineProperty(d, 'length', { value: 2 ** 30 }),
  };
  const ids = () => ({ type: 'int64', dims: [3, 4], data: BigInt64Array.from([0n, 1n, 2n, 3n, 0n, 1n, 1n, 1n, 0n, 0n, 1n, 1n]) });
  const cache = (p) => pv.mropeCache(p, 8, { section: [2, 1, 1] });
  const q = { shape: [1, 1, 2, 4], data: new Float32Array([1, 2, 3, 4, 5, 6, 7, 8]) };
  const mask = () => ({ type: 'int64', dims: [2, 2], data: BigInt64Array.from([1n, 0n, 1n, 1n]) });
  const attend = (m) => pe.attention(q, q, q, { mask: m });
  const wantCache = cache(ids()), wantAttention = attend(mask());
  for (const [what, f] of Object.entries(plant)) {
    const p = ids(), m = mask();
    f(p.data);
    f(m.data);
    assert.deepEqual(cache(p), wantCache, `mropeCache positions, ${what}`);
    assert.deepEqual(attend(m), wantAttention, `attention mask, ${what}`);
  }
});

test('nested arrays: the copy is bounded before they are walked, and each row is read to the length checked', () => {
  // 2^14 rows, all one sparse row of 2^14 holes: 2^28 values, 2 GiB of copy, refused before any row is
  // walked (a row of 2^24 holes in each of 2^24 rows was walked for 2^48 steps). Reads are counted; past
  // a million the row throws, so the walk that read them all fails fast rather than slowly.
  let reads = 0;
  const sparse = [];
  sparse.length = 2 ** 14;
  const row = new Proxy(sparse, {
    get: (t, k) => (k === 'length' ? t.length : reads++ < 1e6 ? t[k] : assert.fail('a row was walked')),
    has: (t, k) => (reads++ < 1e6 ? k in t : assert.fail('a row was walked')),
  });
  assert.throws(() => pe.norms(new Array(2 ** 14).fill(row)), /^RangeError: posenc\.norms: this call would need 2048\.\d MiB/);
  assert.ok(reads <= 1, `${reads} reads`); // the shape's walk reads a row's first element, to look for a deeper level
  // a row whose length grows to 2^32 - 1 after the ragged check: flat() read it again and walked it all
  let lengthReads = 0;
  const growing = new Proxy([3, 4], { get: (t, k) => (k === 'length' ? (lengthReads++ ? 2 ** 32 - 1 : 2) : t[k]), has: (t, k) => k in t });
  assert.deepEqual(pe.norms([[1, 2], growing]), pe.norms([[1, 2], [3, 4]]));
  assert.equal(lengthReads, 1);
  // ragged rows are still refused as such
  assert.throws(() => pe.norms([[1, 2], [3]]), /^RangeError: posenc\.norms: matrix is ragged$/);
});

test('a tensor whose prototype chain never ends (a Proxy answering itself) is refused after a bounded walk', () => {
  // Its fields were looked for up the prototype chain, level by level, until Object.prototype or null: a
  // Proxy whose getPrototypeOf answers itself (or one set as a tensor's prototype) made every function
  // taking a tensor loop forever. The levels are counted; past a million the trap throws, so the endless
  // walk fails fast (as "could not read matrix: endless") rather than never.
  let levels = 0;
  const endless = () => {
    const p = new Proxy({}, { getPrototypeOf: () => (++levels > 1e6 ? assert.fail('endless') : p) });
    return p;
  };
  const data = new Float32Array([1, 2, 3, 4]);
  const q = { shape: [1, 1, 2, 2], data };
  const refused = {
    'norms(the Proxy)': () => pe.norms(endless()),
    'attention(q, q, q, { mask: the Proxy })': () => pe.attention(q, q, q, { mask: endless() }),
    'ropeApply(the Proxy)': () => pv.ropeApply(endless()),
    'mropeCache(the Proxy, 8)': () => pv.mropeCache(endless(), 8, { section: [2, 1, 1] }),
  };
  for (const [what, call] of Object.entries(refused)) {
    levels = 0;
    assert.throws(call, /^TypeError: posenc\.\w+: \w+\.rows must be a number \(got undefined\)$/, what);
    assert.ok(levels <= 64 * 8 + 8, `${what}: ${levels} levels walked`);
  }
  // own fields on such a chain: found at once, the absent ones (dims, dataSync, type, ...) looked for 64 levels up
  const accepted = {
    'gram({ shape, data } on it)': [() => pe.gram(Object.setPrototypeOf({ shape: [2, 2], data }, endless())), () => pe.gram({ shape: [2, 2], data })],
    'attention(q, k on it, v)': [() => pe.attention(q, Object.setPrototypeOf({ dims: [1, 1, 2, 2], data }, endless()), q), () => pe.attention(q, q, q)],
  };
  for (const [what, [call, plain]] of Object.entries(accepted)) {
    levels = 0;
    assert.deepEqual(call(), plain(), what);
    assert.ok(levels <= 64 * 8 + 8, `${what}: ${levels} levels walked`);
  }
  // a tensor of a class (fields on its prototype) still counts; Object.prototype's fields still do not
  class T { get shape() { return [2, 2]; } get data() { return data; } }
  assert.deepEqual(pe.norms(new T()), pe.norms({ shape: [2, 2], data }));
});

test('an int64 tensor is refused by its own length before it is converted, and converted with no array of its values', () => {
  // Its BigInts were gathered into an Array (by index), then converted, before the length was checked: a 2 × 2
  // mask whose BigInt64Array held 2^24 values took 3 s and 0.9 GiB of heap to be refused (50 bytes a value:
  // position ids or a mask of a documented size could exhaust the heap). Counted: the Number conversions and
  // the Array.from lengths a call makes (Number and Array.from are looked up when called).
  const realNumber = Number, realFrom = Array.from;
  let conversions = 0, longest = 0;
  globalThis.Number = new Proxy(realNumber, { apply: (t, self, args) => (conversions++, Reflect.apply(t, self, args)) });
  Array.from = function (items, ...rest) {
    longest = Math.max(longest, typeLength(items));
    return Reflect.apply(realFrom, this, [items, ...rest]);
  };
  function typeLength(items) {
    try {
      return items?.length >>> 0;
    } catch {
      return 0;
    }
  }
  try {
    const q = { shape: [1, 1, 2, 4], data: new Float32Array(8).fill(0.5) };
    const mask = (data) => ({ type: 'int64', dims: [2, 2], data });
    assert.throws(() => pe.attention(q, q, q, { mask: mask(new BigInt64Array(2 ** 20)) }),
      /^RangeError: posenc\.attention: mask\.data must have 4 elements to match \(got 1048576\)$/);
    assert.throws(() => pv.mropeCache({ type: 'int64', dims: [3, 2], data: new BigInt64Array(2 ** 20) }, 8, { section: [2, 1, 1] }),
      /^RangeError: posenc\.mropeCache: positions\.data must have 6 elements to match \(got 1048576\)$/);
    assert.equal(conversions, 0, 'no value of a refused int64 tensor is converted');
    // accepted: each value converted once, no Array as long as the data
    const ids = BigInt64Array.from({ length: 3 * 4096 }, (_, i) => BigInt(i % 4096));
    const got = pv.mropeCache({ type: 'int64', dims: [3, 4096], data: ids }, 8, { section: [2, 1, 1] });
    assert.equal(conversions, 3 * 4096);
    assert.ok(longest < 4096, `an Array.from of ${longest} elements`);
    globalThis.Number = realNumber;
    Array.from = realFrom;
    assert.deepEqual(got, pv.mropeCache({ dims: [3, 4096], data: Float64Array.from(ids, realNumber) }, 8, { section: [2, 1, 1] }));
  } finally {
    globalThis.Number = realNumber;
    Array.from = realFrom;
  }
});

// Data as a proxy that counts the reads of its elements; refused() checks that a refused call read none.
let reads = 0;
const counted = (n) => new Proxy({ length: n }, { get: (t, k) => (k === 'length' ? n : (reads++, 0.5)) });
const refused = (call, message) => {
  reads = 0;
  assert.throws(call, message);
  assert.equal(reads, 0, `${message}: ${reads} elements read`);
};

test('a call refused by a size its shapes decide reads no element first (issue 22, seventeenth pass)', () => {
  // Each tensor's data is a proxy that counts the reads of its elements: a gram, an attention, a KV cache,
  // a table at positions, an M-RoPE or axial cache, a permutation or a multi-axis apply refused by its size
  // (or a cache by its room), and learnedRows and precisionError refused by their positions' count, read every
  // element first: 10 s for a gram of 2^24 nested rows, 29 s for an attention, 2.5 s for 2^24 positions.
  const big = 2 ** 24;
  const MiB = /this call would need \d+\.\d MiB/;
  refused(() => pe.gram({ shape: [big, 1], data: counted(big) }), MiB);
  const q = { shape: [2 ** 14, 1], data: new Float64Array(2 ** 14) };
  refused(() => pe.attention(q, { shape: [big, 1], data: counted(big) }, { shape: [big, 1], data: counted(big) }), MiB);
  refused(() => pe.table(big, 2 ** 10, { positions: counted(big) }), MiB);
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 16 });
  const rows = { shape: [2 ** 20, 8], data: counted(2 ** 23) };
  refused(() => cache.append(rows, rows), /the cache has room for 16/);
  refused(() => cache.attend(rows), /the cache holds 0 positions/);
  cache.free();
  refused(() => pv.mropeCache({ shape: [3, 2 ** 22], data: counted(3 * 2 ** 22) }, 2 ** 10, { section: [2 ** 7, 3 * 2 ** 6, 3 * 2 ** 6] }), MiB);
  refused(() => pv.ropeAxialCache({ shape: [2 ** 22, 3], data: counted(3 * 2 ** 22) }, { axesDim: [2 ** 8, 2 ** 8, 2 ** 8] }), MiB);
  refused(() => pv.ropePermute({ shape: [2 ** 13, 2 ** 13 + 2], data: counted(2 ** 26 + 2 ** 14) }), MiB);
  refused(() => pv.ropeApply({ shape: [2 ** 20, 64], data: counted(2 ** 26) }, { section: [16, 16], positions: { shape: [2, 2 ** 20], data: counted(2 ** 21) } }), MiB);
  // positions refused by their count alone (positions × dModel, or the bytes it makes)
  refused(() => pv.learnedRows(counted(big), big, 8), /positions × dModel must be at most/);
  refused(() => pv.learnedRows(counted(big), big, big), MiB);
  refused(() => pv.precisionError(512, { positions: counted(big) }), /positions × dModel must be at most/);
  refused(() => pv.mropeCache([[0, 1], [0, 1], [0, 1]], 8, { section: counted(big) }), /section has 16777216 entries but positions has 3 rows/);
  // a TensorFlow.js tensor's dataSync() (a download from the GPU) is called once the call's size and shapes are checked
  let syncs = 0;
  const tf = (shape) => ({ shape, dtype: 'float32', dataSync: () => (syncs++, new Float32Array(shape.reduce((a, b) => a * b)).fill(0.5)) });
  assert.throws(() => pe.gram(tf([2 ** 20, 2 ** 10])), MiB);
  assert.throws(() => pe.norms(tf([2, 2, 2])), /matrix must have 2 dimensions/);
  assert.equal(syncs, 0);
  assert.deepEqual(pe.gram(tf([2, 2])), pe.gram({ shape: [2, 2], data: new Float32Array(4).fill(0.5) }));
  assert.equal(syncs, 1);
  // accepted calls still read each element once
  reads = 0;
  pe.gram({ shape: [4, 2], data: counted(8) });
  assert.equal(reads, 8);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a call refused by an option, or by a list\'s count, reads no element first (issue 22, eighteenth pass)', () => {
  // Each was refused only after every element of its tensor or list was read: 2 to 6 s for 2^22 to 2^24
  // nested values (ropePermute by axis, headDim or dtype; mropeCache by dtype, section count or a config
  // without mrope_section; norms by dtype; gram by cosine or out; attention by k's, v's, a mask's or a bias's
  // shape, causal or scale; toyAttention by threshold), 1.2 s for a config's 2^24 axes_dims_rope refused by
  // their sum.
  const n = 2 ** 22;
  const w = () => ({ shape: [n, 2], data: counted(2 * n) });
  refused(() => pv.ropePermute(w(), { axis: 'x' }), /axis must be one of rows, cols/);
  refused(() => pv.ropePermute(w(), { headDim: 3 }), /headDim must be even/);
  refused(() => pv.ropePermute(w(), { axis: 'cols', headDim: 4 }), /weights.cols must be a multiple of headDim/);
  refused(() => pv.ropePermute(w(), { dtype: 'x' }), /dtype must be one of/);
  const p3 = () => ({ shape: [3, n], data: counted(3 * n) });
  refused(() => pv.mropeCache(p3(), 8, { section: [2, 2, 0], dtype: 'x' }), /dtype must be one of/);
  refused(() => pv.mropeCache(p3(), 8, { section: [2, 2] }), /section has 2 entries but positions has 3 rows/);
  refused(() => pv.mropeCache(p3(), 8, { config: { head_dim: 8 } }), /config has no mrope_section/);
  refused(() => pv.ropeFromConfig({ axes_dims_rope: counted(2 ** 24) }), /config\.axes_dims_rope \(their count\) must be an integer from 1 to 524288 \(got 16777216\)/);
  refused(() => pv.ropeAxialCache([[0, 0]], { config: { axes_dims_rope: counted(2 ** 19 + 1) } }), /axes_dims_rope \(their count\)/);
  refused(() => pe.norms(w(), { dtype: 'x' }), /dtype must be one of/);
  refused(() => pe.gram(w(), { cosine: 1 }), /cosine must be true or false/);
  refused(() => pe.gram({ shape: [2 ** 12, 2], data: counted(2 ** 13) }, { out: new Float32Array(3) }), /out must be a Float32Array of 16777216 elements/);
  refused(() => pe.gram({ shape: [2 ** 12, 2], data: counted(2 ** 13) }, { dtype: 'x' }), /dtype must be one of/);
  const q = () => ({ shape: [2 ** 20, 2], data: counted(2 ** 21) });
  refused(() => pe.attention(q(), q(), q(), { causal: 1, weights: false }), /causal must be true or false/);
  refused(() => pe.attention(q(), q(), q(), { scale: NaN, weights: false }), /scale must be a finite number greater than 0/);
  // and by another argument's shape: k's, v's, the mask's or the bias's (q of 2^21 × 2 nested rows took 4.5 s)
  refused(() => pe.attention(q(), { shape: [4, 3], data: counted(12) }, { shape: [4, 3], data: counted(12) }, { weights: false }), /k's last dimension must equal 2/);
  refused(() => pe.attention(q(), q(), { shape: [5, 2], data: counted(10) }, { weights: false }), /v's keys must equal/);
  refused(() => pe.attention(q(), q(), q(), { mask: [[1, 1, 1]], weights: false }), /mask of shape \[1,3\] does not broadcast/);
  refused(() => pe.attention(q(), q(), q(), { bias: [[0, 0, 0]], weights: false }), /bias of shape \[1,3\] does not broadcast/);
  refused(() => pe.toyAttention(counted(2 ** 24), counted(2 ** 24), { threshold: NaN }), /threshold must be a finite number/);
  // accepted calls still read each element once, and give what they gave
  reads = 0;
  const perm = pv.ropePermute({ shape: [4, 2], data: counted(8) }, { headDim: 4 });
  assert.equal(reads, 8);
  assert.deepEqual(perm, pv.ropePermute({ shape: [4, 2], data: new Array(8).fill(0.5) }, { headDim: 4 }));
  reads = 0;
  const cache = pv.mropeCache({ shape: [3, 2], data: counted(6) }, 8, { section: [2, 1, 1] });
  assert.equal(reads, 6);
  assert.deepEqual(cache, pv.mropeCache([[0.5, 0.5], [0.5, 0.5], [0.5, 0.5]], 8, { section: [2, 1, 1] }));
  assert.deepEqual(pe.gram({ shape: [2, 2], data: counted(4) }, { cosine: true, dtype: 'float64' }), pe.gram([[0.5, 0.5], [0.5, 0.5]], { cosine: true, dtype: 'float64' }));
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('a long string is shown by its first 99 characters, and an unknown key of any length is named (issue 22, eighteenth pass)', () => {
  // The message quoted the whole value: a string of the engine's largest length (2^29 - 24) made every refusal
  // naming it a raw "RangeError: Invalid string length", and a long one made a message as long
  const long = 'x'.repeat(2 ** 20);
  const shown = `(got "${'x'.repeat(99)}")`;
  for (const [call, start] of [
    [() => pe.table(2, 4, { preset: long }), 'posenc.table: preset must be one of'],
    [() => pv.roundTo([1], long), 'posenc.roundTo: format must be one of'],
    [() => pe.gram({ type: long, dims: [1, 1], data: [1] }), 'posenc.gram: matrix must have element type'],
    [() => pv.ropeFromConfig({ head_dim: 8, rope_scaling: { rope_type: long } }), 'posenc.ropeFromConfig: rope_type must be one of'],
  ]) {
    assert.throws(call, (e) => (e instanceof TypeError || e instanceof RangeError) && e.message.startsWith(start) && e.message.endsWith(shown) && e.message.length < 300, start);
  }
  for (const [call, start] of [[() => pe.table(2, 4, { [long]: 1 }), 'posenc.table: unknown option "'],
    [() => pv.ropeCache(2, 8, { scaling: { type: 'linear', factor: 2, [long]: 1 } }), 'posenc.ropeCache: unknown scaling option "']]) {
    assert.throws(call, (e) => e instanceof TypeError && e.message.startsWith(`${start}${'x'.repeat(99)}"; known`) && e.message.length < 400, start);
  }
  assert.throws(() => pe.table(2, 4, { preset: 'nope' }), /\(got "nope"\)$/); // a short one as it is
});

test("a config's own strings, a getter's thrown message and a class's name are shown by their first 99 characters (issue 22, nineteenth pass)", () => {
  // Each was joined whole into a message or a warning: one of the engine's longest strings (2^29 - 24) made it
  // the raw "RangeError: Invalid string length", and a long one made a message as long
  const long = 'x'.repeat(2 ** 20), cut = 'x'.repeat(99);
  const named = (Base = Object) => {
    const C = class extends Base {};
    Object.defineProperty(C, 'name', { value: long });
    return Base === Object ? new C() : C;
  };
  const short = (e, Type, start) => e instanceof Type && e.message.startsWith(start) && e.message.includes(cut) && e.message.length < 400;
  for (const [call, Type, start] of [
    [() => pe.table(2, 4, { get offset() { throw new Error(long); } }), TypeError, `posenc.table: could not read options.offset: ${cut}`],
    [() => pe.norms({ get shape() { throw long; }, data: [1] }), TypeError, `posenc.norms: could not read matrix: ${cut}`],
    [() => pv.ropeFromConfig({ get head_dim() { throw new RangeError(long); } }), TypeError, `posenc.ropeFromConfig: could not read config.head_dim: ${cut}`],
    [() => pv.ropeFromConfig({ head_dim: 8, layer_types: [long, 'full_attention'] }, { layerIndex: 0, layerType: 'full_attention' }), RangeError,
      `posenc.ropeFromConfig: layerType is not the type of layer 0 (${cut}) (got "full_attention")`],
    [() => pv.ropeFromConfig({ head_dim: 8, layer_types: [long] }, { layerType: 'y' }), RangeError, `posenc.ropeFromConfig: layerType must be one of ${cut} (got "y")`],
    [() => pv.ropeCache(4, 8, { config: { head_dim: 8, layer_types: [long] }, layerType: 2 }), TypeError, `posenc.ropeCache: layerType must be one of ${cut} (got 2)`],
    [() => pv.ropeFromConfig({ head_dim: 8, layer_types: [long], rope_parameters: { [long]: { rope_theta: 'a' } } }), TypeError, `posenc.ropeFromConfig: config rope_theta (${cut}) must be a number`],
    [() => pv.ropeFromConfig({ head_dim: 8, layer_types: [long], rope_parameters: { [long]: { rope_type: 'zz' } } }), RangeError, `posenc.ropeFromConfig: rope_parameters.${cut}: rope_type must be one of`],
    [() => pv.ropeFromConfig({ head_dim: 8, layer_types: [long], rope_parameters: { [long]: 1 } }), TypeError, `posenc.ropeFromConfig: config.rope_parameters.${cut} must be an object`],
    // a value shown by its class's name: a class named by a long string
    [() => pe.table(named(), 4), TypeError, `posenc.table: maxLen must be a number (got ${cut})`],
    [() => pe.table(2, 4, { preset: { constructor: { name: long } } }), TypeError, 'posenc.table: preset must be a string, one of'],
    [() => pe.table(2, 4, { out: new (named(Float32Array))(3) }), TypeError, 'posenc.table: out must be a Float32Array of 8 elements'],
    [() => pv.ropeFromConfig({ head_dim: named() }), TypeError, `posenc.ropeFromConfig: config.head_dim must be a number (got ${cut})`],
    // a Symbol by its description (String() of one of 2^29 - 24 characters threw raw)
    [() => pe.table(Symbol(long), 4), TypeError, `posenc.table: maxLen must be a number (got Symbol(${cut}))`],
    [() => pv.ropeFromConfig({ head_dim: 8, model_type: Symbol(long) }), TypeError, `posenc.ropeFromConfig: config.model_type must be a string (got Symbol(${cut}))`],
  ]) {
    assert.throws(call, (e) => short(e, Type, start), start);
  }
  // a BigInt past 2^319 is not written out: 1n << 2n ** 24n took 1.6 s to be named in 5 MB of digits, and V8's largest
  // (2^30 - 1 bits) minutes; a smaller one is shown whole
  assert.throws(() => pe.table(1n << 2n ** 24n, 4), { name: 'TypeError', message: 'posenc.table: maxLen must be a number (got a BigInt)' });
  assert.throws(() => pe.table(-(2n ** 319n), 4), { name: 'TypeError', message: `posenc.table: maxLen must be a number (got ${-(2n ** 319n)}n)` });
  assert.throws(() => pe.table(2n ** 319n, 4), { name: 'TypeError', message: 'posenc.table: maxLen must be a number (got a BigInt)' });
  assert.throws(() => pe.table(Symbol(), 4), { name: 'TypeError', message: 'posenc.table: maxLen must be a number (got Symbol())' });
  assert.throws(() => pe.table(2, 4, { get dtype() { throw 1n << 2n ** 24n; } }), { name: 'TypeError', message: 'posenc.table: could not read options.dtype: a BigInt' });
  const warned = (config) => pv.ropeFromConfig(config).warnings;
  const [unknown] = warned({ head_dim: 8, rope_parameters: { rope_type: 'default', [long]: 1 } });
  assert.equal(unknown, `unrecognized keys for rope_type "default": ${cut}`);
  const nested = warned({ head_dim: 8, layer_types: [long], rope_parameters: { [long]: { rope_type: 'default', [long]: 1, truncate: false } } });
  assert.deepEqual(nested, [`rope_parameters.${cut}: unrecognized keys for rope_type "default": ${cut}, truncate`,
    `rope_parameters.${cut}: truncate is read by HF 5 only from a flat rope_parameters; ignored`]);
  // a list of them by its first 9: 2^16 layer types of 2^13 characters listed whole passed the engine's longest string
  const types = Array.from({ length: 12 }, (_, i) => `t${i}`);
  assert.throws(() => pv.ropeFromConfig({ head_dim: 8, layer_types: types }, { layerType: 'y' }),
    { name: 'RangeError', message: `posenc.ropeFromConfig: layerType must be one of ${types.slice(0, 9).join(', ')}, … (got "y")` });
  const keys = Object.fromEntries(types.map((k) => [k, 1]));
  assert.equal(warned({ head_dim: 8, rope_parameters: { rope_type: 'default', ...keys } })[0],
    `unrecognized keys for rope_type "default": ${types.slice(0, 9).join(', ')}, …`);
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('kvCache.attend refuses its out and its bytes before any element of q is read (thirty-second pass)', () => {
  // both came after q's copy: 2^21 nested values were read (0.36 s) to be refused by an out of 3 elements, and 2^20
  // queries against a cache of 2^20-wide values to be refused by 4 GiB
  let reads = 0;
  const counted = (n) => new Proxy(new Float64Array(n).fill(0.5), { get: (o, k) => (typeof k === 'string' && /^\d+$/.test(k) && reads++, k === 'length' ? n : o[k]) });
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
  cache.append({ shape: [1, 1, 1, 8], data: new Float32Array(8).fill(1) }, { shape: [1, 1, 1, 8], data: new Float32Array(8).fill(1) });
  assert.throws(() => cache.attend({ shape: [1, 2 ** 18, 1, 8], data: counted(2 ** 21) }, { out: new Float32Array(3) }),
    /^TypeError: posenc\.kvCache\.attend: out must be a Float32Array of 2097152 elements/);
  cache.free();
  const wide = pe.kvCache({ heads: 1, headDim: 1, valueDim: 2 ** 20, maxLength: 1 });
  wide.append({ shape: [1, 1, 1, 1], data: new Float32Array(1) }, { shape: [1, 1, 1, 2 ** 20], data: new Float32Array(2 ** 20) });
  assert.throws(() => wide.attend({ shape: [1, 2 ** 10, 1, 1], data: counted(2 ** 10) }), /^RangeError: posenc\.kvCache\.attend: this call would need 4096\.1 MiB/);
  wide.free();
  assert.equal(reads, 0);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('attention and gram are refused by their whole footprint before any element of their tensors is read (thirty-second pass)', () => {
  // q, k and v of 2^25 values each (weights false, dtype float64) each fit, their sum with the output does not: every
  // element was read first (10^8 reads, 12 s). Here an element read throws, so a read before the refusal shows.
  const untouchable = (n) => new Proxy({}, { get: (o, k) => { if (k === 'length') return n; throw new Error(`element ${String(k)} read`); } });
  const t = () => ({ shape: [1, 1, 2 ** 22, 8], data: untouchable(2 ** 25) });
  for (const options of [{ weights: false, dtype: 'float64' }, { weights: false, mask: [[true]] }]) {
    assert.throws(() => pe.attention(t(), t(), t(), options), /^RangeError: posenc\.attention: this call would need 1056\.1 MiB/, JSON.stringify(options));
  }
  // and the float32 kernel's (weights false, float32): one query against k and v of 2^27 values each
  const kv = () => ({ shape: [1, 1, 2 ** 24, 8], data: untouchable(2 ** 27) });
  assert.throws(() => pe.attention({ shape: [1, 1, 1, 8], data: new Float32Array(8) }, kv(), kv(), { weights: false }),
    /^RangeError: posenc\.attention: this call would need 1024\.1 MiB/);
  // a gram by the least footprint its input's type can give (8192 × 4096 was read, 4.6 s, to be refused by 1280 MiB)
  for (const [options, mib] of [[{ dtype: 'float64' }, '1280.0'], [{ cosine: true }, '1152.1'], [{ cosine: true, dtype: 'float64' }, '1408.1']]) {
    assert.throws(() => pe.gram({ shape: [8192, 4096], data: untouchable(2 ** 25) }, options), new RegExp(`^RangeError: posenc\\.gram: this call would need ${mib} MiB`), JSON.stringify(options));
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('rope().apply\'s x and ropeApply\'s cos and sin are read once every size is checked (thirty-second pass)', () => {
  // each was read whole first (they are not snapshots): a nested x of 2^23 rows to be refused by maxLen, caches of 2^20
  // rows by their columns, each other's shape, the layout, a position past their rows, or out
  const untouchable = (n) => new Proxy({}, { get: (o, k) => { if (k === 'length') return n; throw new Error(`element ${String(k)} read`); } });
  const handle = pv.rope({ dim: 8, maxLen: 4, dtype: 'float64' });
  assert.throws(() => handle.apply({ shape: [1, 2 ** 23, 8], data: untouchable(2 ** 26) }), /^RangeError: posenc\.rope\.apply: x's rows \(at most maxLen\) must be/);
  handle.free();
  const x = { shape: [2, 8], data: new Float32Array(16) };
  const cache = (rows, cols) => ({ shape: [rows, cols], data: untouchable(rows * cols) });
  for (const [cos, sin, more, message] of [
    [cache(2 ** 20, 6), cache(2 ** 20, 6), {}, /cos must have rotaryDim \(8\) or rotaryDim \/ 2 columns/],
    [cache(2 ** 20, 8), cache(2 ** 19, 8), {}, /sin must have cos's shape/],
    [cache(2 ** 20, 4), cache(2 ** 20, 4), { layout: 'half' }, /layout "half" does not fit pairing "half"/],
    [cache(2 ** 20, 8), cache(2 ** 20, 8), { positions: [0, 2 ** 20] }, /positions\[1\] must be a row of cos and sin/],
    [cache(2 ** 20, 8), cache(2 ** 20, 8), { out: new Float32Array(3) }, /out must be a Float32Array of 16 elements/],
  ]) {
    assert.throws(() => pv.ropeApply(x, { cos, sin, ...more }), (e) => /^posenc\.ropeApply: /.test(e.message) && message.test(e.message), message.source);
  }
  // accepted: each read once, as before
  const rows = [[1, 1, 1, 1, 1, 1, 1, 1], [0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5, 0.5]];
  assert.deepEqual(pv.ropeApply({ shape: [2, 8], data: Float32Array.from({ length: 16 }, (_, i) => i) }, { cos: rows, sin: { shape: [2, 8], data: new Array(16).fill(0.25) } }).data,
    pv.ropeApply({ shape: [2, 8], data: Float32Array.from({ length: 16 }, (_, i) => i) }, { cos: { shape: [2, 8], data: new Float32Array(rows.flat()) }, sin: { shape: [2, 8], data: new Float32Array(16).fill(0.25) } }).data);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

// ---- a growable SharedArrayBuffer grown by a worker during the call (thirty-second pass) ----

/** A growable SharedArrayBuffer of `count` float32 (float64 if `Type`) values of 0.25, that a worker may grow 64-fold. */
const growable = (count, Type = Float32Array) => () => {
  const b = new SharedArrayBuffer(count * Type.BYTES_PER_ELEMENT, { maxByteLength: 64 * count * Type.BYTES_PER_ELEMENT });
  new Type(b).fill(0.25);
  return b;
};
const named = (e) => e instanceof RangeError && /^posenc\.[\w.]+: /.test(e.message);

test('a length-tracking view grown by a worker after its length was checked: refused by name or read at that length, never copied whole (a raw RangeError)', async () => {
  // Checker.numbers copied a typed array by set(), which copies the view's length at that moment: grown meanwhile, it
  // was refused raw, "offset is out of bounds" (table's positions: 135 of 4000 calls; sincos1d's, 7 of 20 000)
  const pf = await loadFields();
  for (const [fn, call] of [
    ['table', (b) => pe.table(64, 4, { positions: new Float64Array(b) })],
    ['sincos1d', (b) => pf.sincos1d(new Float64Array(b), 2)],
  ]) {
    const { raw } = await growRaceBoth(4000, growable(64, Float64Array), call, named);
    assert.deepEqual(raw.slice(0, 3), [], fn);
  }
});

test('rope().apply and kvCache.attend on a view a worker grows: the copy into wasm memory never writes past the call\'s buffer', async () => {
  // Both took a plain float32 x or q as it was (no snapshot, for speed) and copied it into wasm memory by set() through a
  // view of the whole memory: grown after its length was checked, it was written whole, over the caches of a handle or
  // KV cache made after the first one's scratch (every value of the second one's next result changed).
  const S = 64, D = 8, x0 = new Float32Array(S * D).fill(0.25), pos = Float64Array.from({ length: S }, (_, i) => i);
  const ropes = () => {
    const h = pv.rope({ dim: D, maxLen: S });
    h.apply({ data: x0, shape: [S, D] }, pos); // its scratch first, then the second handle's caches after it
    return [h, pv.rope({ dim: D, maxLen: S })];
  };
  const caches = () => {
    const k = { data: x0.map((_, i) => Math.sin(i)), shape: [1, 1, S, D] };
    const c = pe.kvCache({ heads: 1, headDim: D, maxLength: S });
    c.append(k, k);
    c.attend({ data: x0, shape: [1, 1, S, D] });
    const second = pe.kvCache({ heads: 1, headDim: D, maxLength: S });
    second.append(k, k);
    return [c, second];
  };
  for (const [name, make, use] of [
    ['rope().apply', ropes, (h, data) => h.apply({ data, shape: [S, D] }, pos)],
    ['kvCache.attend', caches, (c, data) => c.attend({ data, shape: [1, 1, S, D] })],
  ]) {
    const [first, second] = make();
    const want = Array.from(use(second, x0).data);
    const raw = [];
    let grown = 0;
    for (let round = 0; round < 3; round++) {
      for (const o of await growRace(3000, growable(S * D), (b) => use(first, new Float32Array(b)))) {
        if (o !== 'used' && named(o)) grown++;
        else if (o !== 'used') raw.push(String(o));
      }
    }
    assert.deepEqual(raw.slice(0, 3), [], name);
    assert.ok(grown > 0, `${name}: no call saw its x grown`);
    assert.deepEqual(Array.from(use(second, x0).data), want, `${name}: the second one's buffers were written over`);
    first.free();
    second.free();
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pv.memoryStats().liveAllocations, 0);
});

test('attention reads its mask and bias once every shape and its footprint are checked (thirty-third pass)', () => {
  // each was read whole first: a bias of 2^24 values (0.7 s) to be refused as not broadcasting to q's scores, a mask
  // before the bias's shape refused the call, and a mask of 2^24 before the call's 1040 MiB
  const untouchable = (n) => new Proxy([], { get: (o, k) => { if (k === 'length') return n; if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const q = { shape: [4, 8], data: new Float32Array(32) };
  for (const key of ['mask', 'bias']) {
    assert.throws(() => pe.attention(q, q, q, { [key]: { shape: [4096, 4096], data: untouchable(2 ** 24) } }),
      new RegExp(`^RangeError: posenc\\.attention: ${key} of shape \\[4096,4096\\] does not broadcast to \\[1,1,4,4\\]`), key);
  }
  assert.throws(() => pe.attention(q, q, q, { mask: { shape: [4, 4], data: untouchable(16) }, bias: { shape: [3, 3], data: new Float64Array(9) } }),
    /^RangeError: posenc\.attention: bias of shape \[3,3\] does not broadcast/);
  const big = { shape: [4096, 8192], data: untouchable(2 ** 25) };
  for (const [key, mib] of [['mask', '1040.1'], ['bias', '1152.1']]) {
    assert.throws(() => pe.attention(big, big, big, { [key]: { shape: [4096, 4096], data: untouchable(2 ** 24) }, weights: false }),
      new RegExp(`^RangeError: posenc\\.attention: this call would need ${mib} MiB`), key);
  }
  // accepted: the same result as before (a nested mask, a bias broadcast over the queries)
  const x = { shape: [2, 3, 8], data: Float64Array.from({ length: 48 }, (_, i) => Math.sin(i)) };
  const r = pe.attention(x, x, x, { mask: [[1, 0, 1], [1, 1, 0], [0, 1, 1]], bias: { shape: [2, 1, 3], data: [0, -Infinity, 0.5, 1, 2, 3] }, dtype: 'float64' });
  assert.deepEqual(Array.from(r.output.data.slice(0, 3), (v) => v.toFixed(6)), ['-0.034285', '0.626773', '0.711580']);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a typed array of the wrong length is refused before any element of another tensor is read (attention: q, k, v)', () => {
  // attention read every element of q (a proxy's getter each), then refused k.data or v.data of a typed array of 31
  // values for 32 (part B of the thirty-third pass); the count of a typed array is known from its slot, at no cost
  const untouchable = (n) => new Proxy(new Array(n).fill(0.5), { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const q = { shape: [4, 8], data: untouchable(32) };
  const ok = { shape: [4, 8], data: new Float32Array(32) };
  for (const weights of [true, false]) {
    for (const [name, k, v] of [['k', { shape: [4, 8], data: new Float32Array(31) }, ok], ['v', ok, { shape: [4, 8], data: new Float64Array(3) }]]) {
      assert.throws(() => pe.attention(q, k, v, { weights }), new RegExp(`^RangeError: posenc\\.attention: ${name}\\.data must have 32 elements to match \\(got (31|3)\\)$`), `${name}, weights ${weights}`);
    }
    // half-precision bits of the wrong count, the same
    assert.throws(() => pe.attention(q, ok, { shape: [4, 8], type: 'float16', data: new Uint16Array(33) }, { weights }), /^RangeError: posenc\.attention: v\.data must have 32 elements to match \(got 33\)$/);
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a nested tensor ragged in a later row is refused before any element of another tensor is read (thirty-seventh pass)', () => {
  // attention read every element of a nested q (2^14 of a proxy's), then refused k as ragged in its last row; so did
  // kvCache.append (k, then v), ropeApply (x, then cos) and the multi-axis ropeApply (x, then positions). Every row's
  // length is now walked, no leaf read, once the call's sizes are checked and before any tensor's elements.
  const untouchable = (n) => new Proxy(new Array(n).fill(0.5), { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k) && k !== '0') throw new Error(`element ${k} read`); return o[k]; } });
  const rows = (n, d, last = d) => Array.from({ length: n }, (_, i) => untouchable(i === n - 1 ? last : d));
  const ragged = (n, d) => Array.from({ length: n }, (_, i) => new Array(i === n - 1 ? d - 1 : d).fill(0.5));
  for (const weights of [true, false]) {
    assert.throws(() => pe.attention(rows(4, 8), ragged(4, 8), rows(4, 8), { weights }), /^RangeError: posenc\.attention: k is ragged$/, `weights ${weights}`);
    assert.throws(() => pe.attention(rows(4, 8), rows(4, 8), ragged(4, 8), { weights }), /^RangeError: posenc\.attention: v is ragged$/);
    assert.throws(() => pe.attention(rows(4, 8), rows(4, 8), rows(4, 8), { weights, mask: ragged(4, 4) }), /^RangeError: posenc\.attention: mask is ragged$/);
  }
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 8 });
  assert.throws(() => cache.append([rows(4, 8)], [ragged(4, 8)]), /^RangeError: posenc\.kvCache\.append: v is ragged$/);
  assert.equal(cache.length, 0);
  cache.free();
  assert.throws(() => pv.ropeApply(rows(4, 8), { cos: ragged(4, 8), sin: ragged(4, 8) }), /^RangeError: posenc\.ropeApply: cos is ragged$/);
  assert.throws(() => pv.ropeApply(rows(4, 8), { positions: ragged(3, 4), section: [1, 1, 2] }), /^RangeError: posenc\.ropeApply: positions is ragged$/);
  assert.throws(() => pv.ropeApply(ragged(4, 8), { positions: [[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2, 3]], section: [1, 1, 2] }), /^RangeError: posenc\.ropeApply: x is ragged$/);
  assert.throws(() => pv.ropeApply(ragged(4, 8), { positions: untouchable(4) }), /^RangeError: posenc\.ropeApply: x is ragged$/);
  const h = pv.rope({ dim: 8, maxLen: 16 });
  assert.throws(() => h.apply(ragged(4, 8), untouchable(4)), /^RangeError: posenc\.rope\.apply: x is ragged$/);
  h.free();
  // accepted: the same as a flat tensor's
  const x = Array.from({ length: 4 }, (_, i) => Array.from({ length: 8 }, (_, j) => Math.sin(i * 8 + j)));
  const flat = { shape: [4, 8], data: Float64Array.from(x.flat()) };
  assert.deepEqual(pe.attention(x, x, x, { dtype: 'float64' }).output.data, pe.attention(flat, flat, flat, { dtype: 'float64' }).output.data);
  assert.deepEqual(pv.ropeApply(x, { positions: [3, 1, 2, 0], dtype: 'float64' }).data, pv.ropeApply(flat, { positions: [3, 1, 2, 0], dtype: 'float64' }).data);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("ropeApply counts a TensorFlow.js x's dataSync() before a longrope's factors are read (thirty-seventh pass)", () => {
  // the factors (rotaryDim of them, each a proxy's getter) were read, then x refused for a dataSync() one value short
  const untouchable = (n) => new Proxy(new Array(n).fill(1), { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const scaling = { type: 'longrope', factor: 4, originalMaxPosition: 2, shortFactor: untouchable(64), longFactor: untouchable(64) };
  const x = { shape: [4, 128], dtype: 'float32', dataSync: () => new Float32Array(511) };
  assert.throws(() => pv.ropeApply(x, { scaling }), /^RangeError: posenc\.ropeApply: x\.data must have 512 elements to match \(got 511\)$/);
  assert.throws(() => pv.ropeApply(x, { scaling, positions: untouchable(4) }), /^RangeError: posenc\.ropeApply: x\.data must have 512 elements to match \(got 511\)$/);
  // accepted: the same as a plain x's
  const ones = { ...scaling, shortFactor: new Array(64).fill(1), longFactor: new Array(64).fill(2) };
  const data = Float32Array.from({ length: 512 }, (_, i) => Math.sin(i));
  assert.deepEqual(pv.ropeApply({ shape: [4, 128], dtype: 'float32', dataSync: () => data }, { scaling: ones }).data, pv.ropeApply({ shape: [4, 128], data }, { scaling: ones }).data);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("mropeCache counts a TensorFlow.js positions' dataSync() before a longrope's factors are read (thirty-eighth pass)", () => {
  // cacheOut read the factors (headDim / 2 of them, each a proxy's getter), then refused positions for a dataSync() one value short
  const untouchable = (n) => new Proxy(new Array(n).fill(1), { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const scaling = { type: 'longrope', factor: 4, originalMaxPosition: 2, shortFactor: untouchable(32), longFactor: untouchable(32) };
  const positions = { shape: [3, 4], dtype: 'int32', dataSync: () => new Int32Array(11) };
  assert.throws(() => pv.mropeCache(positions, 64, { section: [8, 12, 12], scaling }), /^RangeError: posenc\.mropeCache: positions\.data must have 12 elements to match \(got 11\)$/);
  // and nested positions ragged in their last row, by ready()'s walk of the rows
  assert.throws(() => pv.mropeCache([[0, 1, 2, 3], [0, 1, 2, 3], [0, 1, 2]], 64, { section: [8, 12, 12], scaling }), /^RangeError: posenc\.mropeCache: positions is ragged$/);
  // accepted: the same as a plain positions'
  const ones = { ...scaling, shortFactor: new Array(32).fill(1), longFactor: new Array(32).fill(2) };
  const data = Int32Array.from({ length: 12 }, (_, i) => i % 5);
  assert.deepEqual(pv.mropeCache({ shape: [3, 4], dtype: 'int32', dataSync: () => data }, 64, { section: [8, 12, 12], scaling: ones }), pv.mropeCache({ shape: [3, 4], data }, 64, { section: [8, 12, 12], scaling: ones }));
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("mropeCache and ropeApply read a section's entries once the size is checked and positions' dataSync() counted (thirty-ninth pass)", () => {
  // a section holds one entry an axis (positions' rows, up to 2^24, any of them 0): its entries, each a proxy's getter,
  // were read, then positions refused for a dataSync() one value short, or the call by its size
  const A = 2 ** 20;
  const untouchable = (values) => new Proxy(values, { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const section = untouchable(Array.from({ length: A }, (_, i) => +!i));
  const short = (shape) => ({ shape, dtype: 'int32', dataSync: () => new Int32Array(shape[0] * shape[1] - 1) });
  const count = /^RangeError: posenc\.(mropeCache|ropeApply): positions\.data must have 1048576 elements to match \(got 1048575\)$/;
  assert.throws(() => pv.mropeCache(short([A, 1]), 2, { section }), count);
  assert.throws(() => pv.ropeApply({ shape: [1, 2], data: new Float32Array(2) }, { section, positions: short([A, 1]) }), count);
  // positions of 2^27 values (1 GiB) fit alone, not with the call's other buffers
  const size = /^RangeError: posenc\.(mropeCache|ropeApply): this call would need 10\d\d\.\d MiB of WebAssembly memory/;
  const big = { shape: [A, 128], dtype: 'int32', dataSync: () => assert.fail('positions read') };
  assert.throws(() => pv.mropeCache(big, 2, { section }), size);
  assert.throws(() => pv.ropeApply({ shape: [128, 2], data: new Float32Array(256) }, { section, positions: big }), size);
  // a section still refused by its count before positions' data, and by its entries before positions' elements
  const unread = { shape: [3, 4], dtype: 'int32', dataSync: () => assert.fail('positions read') };
  assert.throws(() => pv.mropeCache(unread, 64, { section: [8, 12] }), /^RangeError: posenc\.mropeCache: section has 2 entries but positions has 3 rows$/);
  const elements = { shape: [3, 4], data: untouchable(new Array(12).fill(0)) };
  assert.throws(() => pv.mropeCache(elements, 64, { section: [8, 12, 11] }), /^RangeError: posenc\.mropeCache: section must sum to headDim \/ 2 \(32\), one entry per frequency \(got "\[8,12,11\] \(sum 31\)"\)$/);
  assert.throws(() => pv.ropeApply({ shape: [4, 8], data: new Float32Array(32) }, { section: [2, 2, 1], positions: elements }), /^RangeError: posenc\.ropeApply: section must sum to at most headDim \/ 2 \(4\) \(got 5\)$/);
  // accepted: as before, a partial section included
  const data = Int32Array.from({ length: 12 }, (_, i) => i % 5);
  assert.deepEqual(pv.mropeCache({ shape: [3, 4], dtype: 'int32', dataSync: () => data }, 64, { section: [8, 12, 12] }), pv.mropeCache({ shape: [3, 4], data }, 64, { section: [8, 12, 12] }));
  const x = { shape: [4, 8], data: Float32Array.from({ length: 32 }, (_, i) => i / 7) };
  assert.deepEqual(pv.ropeApply(x, { section: [1, 1, 1], positions: { shape: [3, 4], dtype: 'int32', dataSync: () => data } }), pv.ropeApply(x, { section: [1, 1, 1], positions: { shape: [3, 4], data } }));
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test("the 1-D ropeApply counts positions and checks offset before a longrope's factors are read (fortieth pass)", () => {
  // rotaryDim factors (x's columns), each a proxy's getter, were read, then positions refused by their count, storage
  // or type, or beside an offset, or the offset by its range
  const D = 2 ** 16;
  const untouchable = (values) => new Proxy(values, { get: (o, k) => { if (typeof k === 'string' && /^\d+$/.test(k)) throw new Error(`element ${k} read`); return o[k]; } });
  const scaling = { type: 'longrope', factor: 4, originalMaxPosition: 16, shortFactor: untouchable(new Array(D / 2).fill(1)), longFactor: untouchable(new Array(D / 2).fill(2)) };
  const x = { shape: [2, D], data: new Float32Array(2 * D) };
  const refused = (opts, message) => assert.throws(() => pv.ropeApply(x, { scaling, ...opts }), new RegExp(`^(Range|Type)Error: posenc\\.ropeApply: ${message}`));
  refused({ positions: [0, 1, 2] }, 'positions must have 2 elements to match \\(got 3\\)$');
  refused({ positions: untouchable([0]) }, 'positions must have 2 elements to match \\(got 1\\)$');
  refused({ positions: new BigInt64Array(2) }, 'positions must hold numbers, not BigInts$');
  refused({ positions: 'ab' }, 'positions must be an array, typed array or array-like of numbers');
  refused({ positions: { shape: [2], dtype: 'int32', dataSync: () => new Int32Array(2) } }, 'positions must be an array, typed array or array-like of numbers');
  refused({ positions: [0, 1], offset: 1 }, 'give positions or offset, not both$');
  refused({ offset: 2 ** 40 }, 'offset must be a finite number from');
  // accepted: as before (positions' elements read after the factors, a bad one refused by name)
  const ones = { ...scaling, shortFactor: new Array(8).fill(1), longFactor: new Array(8).fill(2) };
  const small = { shape: [2, 16], data: Float32Array.from({ length: 32 }, (_, i) => i / 7) };
  assert.deepEqual(pv.ropeApply(small, { scaling: ones, positions: [3, 5] }), pv.ropeApply(small, { scaling: ones, positions: new Float64Array([3, 5]) }));
  assert.throws(() => pv.ropeApply(small, { scaling: ones, positions: [3, NaN] }), /^RangeError: posenc\.ropeApply: positions\[1\] must be a finite number \(got NaN\)$/);
  assert.equal(pv.precisionError(8, { positions: [0, 1, 2] }).length, 3);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

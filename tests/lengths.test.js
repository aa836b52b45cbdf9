// Array arguments whose length lies or changes. Every array argument of every
// public function is given as: a typed array with an own `length` getter or
// value, a proxy or array-like whose `length` answers differently on each
// read, an array an element getter of which grows or shrinks it, and a
// resizable buffer that another argument's getter resizes. posenc must read
// each length once and copy into wasm from that snapshot: the call returns
// what a plain array holding the first answers would give (or refuses it in
// the same words), leaves no allocation, and afterwards the module still
// answers exactly as a fresh instance does. Before the fix a `length` getter
// answering 1, 1, 8 to t5Bucket wrote 8 int32s into a 4-byte block and broke
// the allocator for every later call.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, loadVariants, loadFields, freshModules } from './helpers/load.js';

const shared = { pe: await loadApi(), pv: await loadVariants(), pf: await loadFields() };
const fresh = await freshModules();

// One entry per array argument: `values` is a valid plain array for it and
// `args(api, arr)` the call's arguments with `arr` in its place.
const m = (rows, cols, data) => ({ rows, cols, data });
const SLOTS = [
  { fn: 'dot', name: 'a', values: [1, 2, 3], args: (a) => [a, [4, 5, 6]] },
  { fn: 'dot', name: 'b', values: [4, 5, 6], args: (b) => [[1, 2, 3], b] },
  { fn: 'norms', name: 'matrix.data', values: [3, 4, 6, 8], args: (d) => [m(2, 2, d)] },
  { fn: 'gram', name: 'matrix.data', values: [3, 4, 6, 8], args: (d) => [m(2, 2, d), { cosine: true }] },
  { fn: 'toyAttention', name: 'codes', values: [1, 2, 3], args: (c) => [c, [10, 20, 30]] },
  { fn: 'toyAttention', name: 'positionCodes', values: [10, 20, 30], args: (p) => [[1, 2, 3], p] },
  { fn: 'toyAttention', name: 'weights', values: [1, 0.5, 2], args: (w) => [[1, 2, 3], null, { weights: w }] },
  { fn: 'attention', name: 'q.data', values: [1, 0, 0, 1], args: (d) => [m(2, 2, d), m(2, 2, [1, 2, 3, 4]), m(2, 2, [5, 6, 7, 8])] },
  { fn: 'attention', name: 'k.data', values: [1, 2, 3, 4], args: (d) => [m(2, 2, [1, 0, 0, 1]), m(2, 2, d), m(2, 2, [5, 6, 7, 8])] },
  { fn: 'attention', name: 'v.data', values: [5, 6, 7, 8], args: (d) => [m(2, 2, [1, 0, 0, 1]), m(2, 2, [1, 2, 3, 4]), m(2, 2, d)] },
  { fn: 'ropeApply', name: 'x.data', values: [1, 2, 3, 4, 5, 6, 7, 8], args: (d) => [m(2, 4, d), { dtype: 'float64' }] },
  { fn: 'ropeApply', name: 'positions', values: [0, 5], args: (p) => [m(2, 4, [1, 2, 3, 4, 5, 6, 7, 8]), { positions: p }] },
  { fn: 'ropePermute', name: 'weights.data', values: [10, 11, 12, 13, 14, 15, 16, 17], args: (d) => [m(8, 1, d), { headDim: 8 }] },
  { fn: 't5Bucket', name: 'relativePositions', values: [-3, 0, 5, 200], args: (r) => [r] },
  { fn: 'learnedRows', name: 'positions', values: [3, 1], args: (p) => [p, 8, 4, { dtype: 'float64' }] },
  { fn: 'roundTo', name: 'values', values: [1.1, 2.2, 70000], args: (v) => [v, 'float16'] },
  { fn: 'formatBits', name: 'values', values: [1.1, 2.2, 70000], args: (v) => [v, 'float16'] },
  { fn: 'precisionError', name: 'positions', values: [0, 100, 1000], args: (p) => [8, { positions: p }] },
  { fn: 'timestepEmbedding', name: 'timesteps', values: [0, 10, 999], args: (t) => [t, 8] },
  { fn: 'sincos1d', name: 'positions', values: [0, 1, 5], args: (p) => [p, 8] },
  { fn: 'fourierFeatures', name: 'points.data', values: [0.1, 0.2, 0.3, 0.4], args: (d) => [m(2, 2, d), { levels: 2 }] },
  { fn: 'randomFourierFeatures', name: 'points.data', values: [0.1, 0.2, 0.3, 0.4], args: (d) => [m(2, 2, d), { features: 3 }] },
  { fn: 'randomFourierFeatures', name: 'B.data', values: [1, 2, 3, 4, 5, 6], args: (d) => [m(2, 2, [0.1, 0.2, 0.3, 0.4]), { B: m(3, 2, d) }] },
];

const apiOf = (mods, fn) => [mods.pe, mods.pv, mods.pf].find((api) => fn in api);

/** { ok, value } or { ok: false, error } of a call, for comparing two calls. */
function outcome(mods, fn, args) {
  try {
    return { ok: true, value: apiOf(mods, fn)[fn](...args) };
  } catch (error) {
    return { ok: false, error };
  }
}

function sameOutcome(label, got, want) {
  if (!want.ok) {
    assert.ok(!got.ok, `${label}: expected ${want.error.message}, got a result`);
    assert.equal(got.error.constructor, want.error.constructor, `${label}: ${got.error.message}`);
    assert.equal(got.error.message, want.error.message, label);
    return;
  }
  if (!got.ok) assert.fail(`${label}: threw ${got.error.stack}`);
  assert.deepEqual(got.value, want.value, label);
}

/** Calls whose answers show a damaged allocator or heap (issue 16). */
function probes(mods) {
  return [
    mods.pv.ropeFrequencies(8).invFreq,
    mods.pv.t5Bucket([-40, -1, 0, 1, 40, 1000]),
    mods.pv.learnedRows([0, 5, 2], 16, 6, { dtype: 'float64' }).data,
    mods.pv.formatBits([1, 2, 3, 4, 5, 6, 7, 8, 9], 'bfloat16'),
    mods.pe.table(33, 12, { dtype: 'float64' }).data,
    mods.pe.dot([1, 2, 3, 4, 5], [5, 4, 3, 2, 1]),
    mods.pe.gram(m(3, 2, [1, 2, 3, 4, 5, 6])).data,
    mods.pe.memoryStats().liveAllocations,
    mods.pv.memoryStats().liveAllocations,
    mods.pf.sincos1d([0, 3, 7], 6, { dtype: 'float64' }).data,
    mods.pf.memoryStats().liveAllocations,
  ];
}

const reference = probes(fresh);

function moduleIntact(label) {
  assert.deepEqual(probes(shared), reference, `${label}: the module answers differently from a fresh instance`);
}

/** Answers `seq` in turn to successive reads, then its last element forever; counts the reads. */
function sequence(seq) {
  const state = { reads: 0 };
  state.next = () => seq[Math.min(state.reads++, seq.length - 1)];
  return state;
}

// Length sequences: the 1, 1, 8; a true first answer that then grows
// or shrinks; a false first answer; zero, huge and non-integer answers.
const sequences = (n) => [[1, 1, 8], [n, n, 8 * n], [n, 1], [n, 0], [8, 1, 1], [n + 1, n], [0, n], [2 ** 31, n], [2.5, n], [n - 1, n + 64]];

/** A plain array-like whose length is always `len`: what a single read of the length sees. */
const firstReads = (values, len) => ({ ...values, length: len });

for (const slot of SLOTS) {
  const label = `${slot.fn}(${slot.name})`;
  const n = slot.values.length;
  const plain = () => outcome(fresh, slot.fn, slot.args(slot.values.slice()));

  test(`${label}: a typed array's own length getter or value is never used`, () => {
    for (const Type of [Float64Array, Float32Array, Int32Array]) {
      if (Type === Int32Array && !slot.values.every(Number.isInteger)) continue;
      const want = outcome(fresh, slot.fn, slot.args(Type.from(slot.values)));
      for (const seq of sequences(n)) {
        const arr = Type.from(slot.values);
        const s = sequence(seq);
        Object.defineProperty(arr, 'length', { get: s.next });
        sameOutcome(`${label} ${Type.name} length getter ${seq}`, outcome(shared, slot.fn, slot.args(arr)), want);
        moduleIntact(`${label} ${Type.name} length getter ${seq}`);
        const fixed = Type.from(slot.values);
        Object.defineProperty(fixed, 'length', { value: seq[0] });
        sameOutcome(`${label} ${Type.name} length value ${seq[0]}`, outcome(shared, slot.fn, slot.args(fixed)), want);
        moduleIntact(`${label} ${Type.name} length value ${seq[0]}`);
      }
    }
  });

  test(`${label}: a proxy or array-like whose length changes between reads is read once`, () => {
    for (const seq of sequences(n)) {
      const want = outcome(fresh, slot.fn, slot.args(firstReads(slot.values, seq[0])));
      const ps = sequence(seq);
      const proxy = new Proxy(slot.values.slice(), {
        get: (target, key, receiver) => (key === 'length' ? ps.next() : Reflect.get(target, key, receiver)),
      });
      sameOutcome(`${label} proxy length ${seq}`, outcome(shared, slot.fn, slot.args(proxy)), want);
      assert.ok(ps.reads <= 1, `${label} proxy: length read ${ps.reads} times`);
      moduleIntact(`${label} proxy length ${seq}`);

      const ls = sequence(seq);
      const like = { ...slot.values };
      Object.defineProperty(like, 'length', { get: ls.next });
      sameOutcome(`${label} array-like length ${seq}`, outcome(shared, slot.fn, slot.args(like)), want);
      assert.equal(ls.reads, 1, `${label} array-like: length read ${ls.reads} times`);
      moduleIntact(`${label} array-like length ${seq}`);
    }
  });

  test(`${label}: an array that grows or shrinks while its elements are read`, () => {
    for (const change of [(a) => a.push(...slot.values, ...slot.values), (a) => { a.length = 1; }, (a) => { a.length = 0; }]) {
      const arr = slot.values.slice();
      let done = false;
      Object.defineProperty(arr, 0, {
        get() {
          if (!done) { done = true; change(arr); }
          return slot.values[0];
        },
      });
      // The length was read before element 0; elements past the new end read as undefined.
      const got = outcome(shared, slot.fn, slot.args(arr));
      if (got.ok) {
        sameOutcome(`${label} ${change}`, got, plain());
      } else {
        assert.match(got.error.message, new RegExp(`^posenc\\.${slot.fn}: `), got.error.stack);
      }
      moduleIntact(`${label} ${change}`);
    }
  });

}

// A length-tracking typed array on a resizable buffer, resized by a getter of
// an argument read after it: the call must use the copy taken at the first read.
test('a resizable buffer resized by a later argument\'s getter was already copied', () => {
  for (const newLength of [0, 1, 64]) {
    const resizable = (values) => {
      const buffer = new ArrayBuffer(values.length * 8, { maxByteLength: 64 * 8 });
      const arr = new Float64Array(buffer);
      arr.set(values);
      return { arr, resize: () => buffer.resize(newLength * 8) };
    };
    const later = (values, resize) => {
      const arr = values.slice();
      Object.defineProperty(arr, 0, { get() { resize(); return values[0]; } });
      return arr;
    };
    const a = resizable([1, 2, 3]);
    sameOutcome(`dot, a resized to ${newLength}`, outcome(shared, 'dot', [a.arr, later([4, 5, 6], a.resize)]),
      outcome(fresh, 'dot', [[1, 2, 3], [4, 5, 6]]));
    assert.equal(a.arr.length, newLength);
    moduleIntact(`dot resized to ${newLength}`);

    const q = resizable([1, 0, 0, 1]);
    sameOutcome(`attention, q resized to ${newLength}`,
      outcome(shared, 'attention', [m(2, 2, q.arr), m(2, 2, [1, 2, 3, 4]), m(2, 2, later([5, 6, 7, 8], q.resize))]),
      outcome(fresh, 'attention', [m(2, 2, [1, 0, 0, 1]), m(2, 2, [1, 2, 3, 4]), m(2, 2, [5, 6, 7, 8])]));
    moduleIntact(`attention resized to ${newLength}`);

    // ropeApply reads x's elements once every size and option (positions included) is checked (the thirty-third pass's
    // family test: a nested x was read whole before a bad headDim was refused), so a positions getter that resizes x
    // runs before x is read: then x is refused by its count, by name
    const x = resizable([1, 2, 3, 4, 5, 6, 7, 8]);
    const got = outcome(shared, 'ropeApply', [m(2, 4, x.arr), { positions: later([0, 5], x.resize), dtype: 'float64' }]);
    assert.equal(got.ok ? 'a result' : got.error.message, `posenc.ropeApply: x.data must have 8 elements to match (got ${newLength})`);
    moduleIntact(`ropeApply resized to ${newLength}`);
  }
});

test('the issue 16 reproduction: t5Bucket with a length getter answering 1, 1, 8', () => {
  const rel = new Int32Array([1, 2, 3, 4, 5, 6, 7, 8]);
  const s = sequence([1, 1, 8]);
  Object.defineProperty(rel, 'length', { get: s.next });
  assert.deepEqual(shared.pv.t5Bucket(rel), fresh.pv.t5Bucket([1, 2, 3, 4, 5, 6, 7, 8]));
  assert.equal(s.reads, 0, 'a typed array\'s own length getter is never run');
  assert.deepEqual(Array.from(shared.pv.ropeFrequencies(8, { dtype: 'float64' }).invFreq), [1, 0.1, 0.01, 0.001]);
  moduleIntact('issue reproduction');
});

// Issue 22: a caller's typed arrays and tensors are read through their internal
// slots, never through properties the caller can shadow. These are the holes of
// that kind found in rotary.js (ropeApply's cos/sin caches and x, the rope()
// handle): a planted own subarray / constructor / findIndex, a changed
// prototype, an own Symbol.iterator on a shape; and lengths read through a
// caller's property (config.js's layer lists, lab's token arrays). Each case is
// compared with the same call on plain arguments.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, loadVariants, loadLab } from './helpers/load.js';

const pe = await loadApi();
const pv = await loadVariants();
const lab = await loadLab();

const X = Float32Array.from({ length: 16 }, (_, i) => (i % 7) - 3 + i / 10);
const x = () => ({ shape: [2, 8], data: X.slice() });
const outcome = (fn) => {
  try {
    return { data: Array.from(fn().data) };
  } catch (error) {
    return { error: `${error.constructor.name}: ${error.message}` };
  }
};

// What a caller can plant on a cache array; each keeps its elements as they were.
const PLANTS = {
  'an own subarray returning other values': (d) => Object.assign(d, { subarray: () => new Float32Array(d.length).fill(9) }),
  'an own subarray that throws': (d) => Object.assign(d, { subarray() { throw new Error('planted subarray'); } }),
  'an own set that throws': (d) => Object.assign(d, { set() { throw new Error('planted set'); } }),
  'an own constructor Float64Array (subarray species)': (d) => Object.defineProperty(d, 'constructor', { value: Float64Array }),
  'a constructor getter that throws': (d) => Object.defineProperty(d, 'constructor', { get() { throw new Error('planted constructor'); } }),
  'the other float type\'s prototype': (d) => Object.setPrototypeOf(d, d instanceof Float32Array ? Float64Array.prototype : Float32Array.prototype),
};

test('ropeApply: cos/sin caches with planted subarray, set, constructor or prototype give the plain caches\' result', () => {
  for (const [layout, pairing] of [['half', 'half'], ['pairs', 'half'], ['pairs', 'interleaved'], ['interleaved', 'interleaved']]) {
    for (const dtype of ['float32', 'float64']) {
      const c = pv.ropeCache(12, 8, { layout, dtype });
      for (const at of [{ offset: 3 }, { positions: [7, 2] }]) {
        const call = (cos, sin) => pv.ropeApply(x(), { cos, sin, pairing, ...at });
        const want = outcome(() => call(c.cos, c.sin));
        assert.ok(want.data, `${layout} ${dtype}: the plain call works`);
        for (const [what, plant] of Object.entries(PLANTS)) {
          const m = (k) => ({ shape: [c[k].rows, c[k].cols], data: plant(c[k].data.slice()) });
          assert.deepEqual(outcome(() => call(m('cos'), m('sin'))), want, `${layout} ${pairing} ${dtype} ${JSON.stringify(at)}: caches with ${what}`);
        }
      }
    }
  }
});

test('ropeApply: a Float64Array cache with Float32Array\'s prototype is checked as float64 (1e39 refused for float32 before the call)', () => {
  const c = pv.ropeCache(4, 8, { dtype: 'float64' });
  const cos = c.cos.data.slice();
  cos[8] = 1e39; // row 1: Infinity in float32
  const m = (data) => ({ shape: [4, 8], data });
  const plain = outcome(() => pv.ropeApply(x(), { cos: m(cos.slice()), sin: m(c.sin.data), offset: 1 }));
  const disguised = outcome(() => pv.ropeApply(x(), { cos: m(Object.setPrototypeOf(cos.slice(), Float32Array.prototype)), sin: m(c.sin.data), offset: 1 }));
  assert.match(plain.error, /^RangeError: posenc\.ropeApply: cos: the row of x's row 0 .*\(in float32\)/);
  assert.deepEqual(disguised, plain);
});

test('ropeApply: x, a Float64Array with Float32Array\'s prototype, is rotated in float64 (not rounded to float32 first)', () => {
  const data = Float64Array.from(X, (v) => v + 1e-9);
  const want = outcome(() => pv.ropeApply({ shape: [2, 8], data: data.slice() }, { offset: 2, dtype: 'float64' }));
  const got = outcome(() => pv.ropeApply({ shape: [2, 8], data: Object.setPrototypeOf(data.slice(), Float32Array.prototype) }, { offset: 2, dtype: 'float64' }));
  assert.deepEqual(got, want);
});

test('ropeApply and rope().apply: a shape with an own Symbol.iterator is read by index (the iterator is never run)', () => {
  let runs = 0;
  const shape = () => {
    const s = [2, 8];
    s[Symbol.iterator] = function* () {
      runs++;
      for (let i = 0; i < 1000; i++) yield 1; // endless in an attack: here it stops, and is counted
    };
    return s;
  };
  const want = outcome(() => pv.ropeApply(x(), { offset: 1 }));
  assert.deepEqual(outcome(() => pv.ropeApply({ shape: shape(), data: X.slice() }, { offset: 1 })), want);
  const r = pv.rope({ dim: 8, maxLen: 4 });
  try {
    assert.deepEqual(outcome(() => r.apply({ shape: shape(), data: X.slice() }, 1)), want);
  } finally {
    r.free();
  }
  assert.equal(runs, 0);
  // a hole is read as one (undefined), not skipped: [2, , 8] is not the shape [2, 8]
  const sparse = [2, 8, 1];
  delete sparse[1];
  assert.deepEqual(outcome(() => pv.ropeApply({ shape: sparse, data: X.slice() }, { offset: 1 })), { error: 'TypeError: posenc.ropeApply: x.shape[1] must be a number (got undefined)' });
});

test('rope().apply: a NaN in x met by the kernel is named by posenc, whatever findIndex x carries', () => {
  const r = pv.rope({ dim: 8, maxLen: 4 });
  try {
    r.apply(x(), 0); // the scratch for x is now this size: the next x is checked by the kernel
    const data = X.slice();
    data[5] = NaN;
    data.findIndex = () => {
      throw new Error('planted findIndex');
    };
    assert.deepEqual(outcome(() => r.apply({ shape: [2, 8], data }, 0)), { error: 'RangeError: posenc.rope.apply: x.data[5] must be a finite number (got NaN)' });
  } finally {
    r.free();
  }
});

test('ropeFromConfig: a layer_types proxy whose length is an object is read as one number (no walk to 2^31, no raw error)', () => {
  const config = (length) => ({ rope_theta: 10000, head_dim: 8, layer_types: new Proxy(['full_attention', 'full_attention'], {
    get(t, k) {
      if (+k >= 1000) throw new Error(`read up to layer_types[${k}]`); // walking on to 2^31 is the hang; stopped, and seen
      return k === 'length' ? length : t[k];
    },
  }) });
  let valueOfs = 0;
  const want = pv.ropeFromConfig({ rope_theta: 10000, head_dim: 8, layer_types: ['full_attention', 'full_attention'] });
  const got = pv.ropeFromConfig(config({ valueOf: () => (++valueOfs === 1 ? 2 : 2 ** 31) }));
  assert.deepEqual(got, want);
  assert.equal(valueOfs, 1);
  assert.throws(() => pv.ropeFromConfig(config({ valueOf() {
    throw new Error('planted valueOf');
  } })), { name: 'TypeError', message: 'posenc.ropeFromConfig: could not read config.layer_types: planted valueOf' });
});

test('lab: an Int32Array of tokens is counted by its slot, whatever own length it carries', () => {
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8 });
  const ids = Int32Array.from([1, 2, 3, 2, 1]);
  const length = (v, n) => Object.defineProperty(v, 'length', { value: n });
  assert.deepEqual(lab.attentionMaps(model, length(ids.slice(), 2)), lab.attentionMaps(model, ids.slice()));
  const ex = lab.examples({ task: model.config.task, count: 2, length: 3 });
  const want = lab.loss(model, ex);
  for (const n of [2, 2 ** 32, -1]) {
    assert.deepEqual(lab.loss(model, { ...ex, tokens: length(ex.tokens.slice(), n), targets: length(ex.targets.slice(), n) }), want, `own length ${n}`);
  }
  let valueOfs = 0;
  const proxy = new Proxy([1, 2, 3], { get: (t, k) => (k === 'length' ? { valueOf: () => (++valueOfs === 1 ? 3 : 2 ** 30) } : t[k]) });
  assert.deepEqual(lab.attentionMaps(model, proxy), lab.attentionMaps(model, [1, 2, 3]));
  assert.equal(valueOfs, 1);
});

test('attention: q, k, v past the float32 kernel (valueDim not a multiple of 8) are counted by their slots, whatever own length they carry', () => {
  const data = () => Float32Array.from({ length: 16 }, (_, i) => Math.sin(i));
  const t = (d) => ({ shape: [4, 4], data: d });
  const call = (q) => outcome(() => pe.attention(t(q), t(data()), t(data()), { weights: false }).output);
  const want = call(data());
  assert.ok(want.data);
  const length = (d, desc) => Object.defineProperty(d, 'length', desc);
  let reads = 0;
  for (const desc of [{ value: 2 }, { value: 2 ** 32 }, { value: -1 }, { get: () => (++reads === 1 ? 16 : 2) }, { get() {
    throw new Error('planted length');
  } }]) {
    assert.deepEqual(call(length(data(), desc)), want, `own length ${desc.value ?? 'getter'}`);
  }
  const nan = data();
  nan[3] = NaN;
  assert.deepEqual(call(length(nan, { value: 2 })), { error: 'RangeError: posenc.attention: q.data[3] must be a finite number (got NaN)' });
});

test('a tensor shape and mropePositions\' segments whose length is an object are read as one number (issue 22, seventeenth pass)', () => {
  // Each counts its valueOf calls: a shape's answered 2, 2, then 2^27 (7 s to build a shape of 2^27
  // entries); the segments' 1, then ever more, compared again on every turn of the loop (it never ended).
  const lengthOf = (first, then) => {
    const length = { calls: 0, valueOf: () => (++length.calls === 1 ? first : then(length.calls)) };
    return length;
  };
  const shapeLength = lengthOf(2, () => 2 ** 27);
  const shape = new Proxy([2, 2], { get: (t, k) => (k === 'length' ? shapeLength : t[k]) });
  assert.deepEqual(pe.norms({ shape, data: [3, 4, 6, 8] }), pe.norms({ shape: [2, 2], data: [3, 4, 6, 8] }));
  assert.equal(shapeLength.calls, 1);
  // and beside a typed array, which the quick reader takes (its shape read there, once; x of a decode step, q, k, v)
  const typedLength = lengthOf(2, () => 2 ** 27);
  const typedShape = new Proxy([2, 2], { get: (t, k) => (k === 'length' ? typedLength : t[k]) });
  assert.deepEqual(pe.norms({ shape: typedShape, data: new Float64Array([3, 4, 6, 8]) }), pe.norms({ shape: [2, 2], data: [3, 4, 6, 8] }));
  assert.equal(typedLength.calls, 1);
  const segmentsLength = lengthOf(1, (n) => n + 1);
  const segments = new Proxy([{ text: 3 }], {
    get(t, k) {
      if (+k >= 1000) throw new Error(`read up to segments[${k}]`); // the endless loop, stopped and seen
      return k === 'length' ? segmentsLength : t[k] ?? { text: 0 };
    },
  });
  assert.deepEqual(pv.mropePositions(segments), pv.mropePositions([{ text: 3 }]));
  assert.equal(segmentsLength.calls, 1);
  // a Symbol for a length escaped both as the engine's raw "Cannot convert a Symbol value to a number"
  const symbolLength = (list) => new Proxy(list, { get: (t, k) => (k === 'length' ? Symbol('length') : t[k]) });
  assert.throws(() => pe.norms({ shape: symbolLength([2, 2]), data: [3, 4, 6, 8] }),
    { name: 'TypeError', message: 'posenc.norms: could not read matrix.shape: Cannot convert a Symbol value to a number' });
  assert.throws(() => pv.mropePositions(symbolLength([{ text: 3 }])),
    { name: 'TypeError', message: 'posenc.mropePositions: could not read segments: Cannot convert a Symbol value to a number' });
});

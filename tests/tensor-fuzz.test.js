// Seeded mutations of tensors through the conversion every function uses
// (issue 22, point 4): element types (float16, bfloat16, integers, unknown,
// not strings), storage that does or does not match them, shapes, bit
// patterns (NaN, Infinity, subnormals), getters that throw. Whatever the
// tensor, a call returns the values an independent decoding gives, or throws
// a posenc TypeError / RangeError; never another exception, never a result
// read from the wrong bits. Then float64 numbers of random bit patterns are
// rounded to float16 and bfloat16 and compared with the nearest pattern found
// by bisection (tests/helpers/half.js). The same seed gives the same inputs on
// every machine.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHalf } from '../web/lib/float16.js';
import { loadApi } from './helpers/load.js';
import { rng } from './helpers/rng.js';
import { valueOf, nearestBits } from './helpers/half.js';

const pe = await loadApi();
const CASES = 4000;
const TYPES = ['float16', 'bfloat16', 'float32', 'float64', 'int8', 'uint8', 'int32', 'int64', 'bool', 'float8', 'string',
  'complex64', 'FLOAT16', '', 7, null, undefined];
const ARRAYS = [Uint16Array, Float32Array, Float64Array, Int8Array, Uint8Array, Int32Array, BigInt64Array, Array];

/** A tensor of `n` elements, as { type, dims, data } from the generator r, and the values it stands for (or null). */
function mutant(r) {
  const pick = (xs) => xs[Math.floor(r() * xs.length)];
  const rows = 1 + Math.floor(r() * 4), cols = 1 + Math.floor(r() * 4);
  const n = rows * cols;
  const type = pick(TYPES);
  const Arr = r() < 0.7 && (type === 'float16' || type === 'bfloat16') ? Uint16Array : pick(ARRAYS);
  const bits = Array.from({ length: n }, () => (r() < 0.2 ? pick([0x7c00, 0x7e00, 0xfc00, 0x0001, 0x8000, 0x7f80, 0x7fc0]) : Math.floor(r() * 65536)));
  let data = Arr === Array ? bits.map((b) => (r() < 0.05 ? pick(['1', null, NaN, {}]) : b))
    : Arr === BigInt64Array ? BigInt64Array.from(bits, BigInt) : Arr.from(bits);
  let dims = [rows, cols];
  if (r() < 0.1) dims = pick([[rows, cols + 1], [n], [-rows, cols], [rows, 1.5], [1, 1, 1, 1, n], [], [2 ** 31, 2]]);
  if (r() < 0.05) data = pick([null, undefined, 'abc', new DataView(new ArrayBuffer(8))]);
  const form = pick(['ort', 'tfjs', 'plain']);
  const tensor = form === 'ort' ? { type, dims, data }
    : form === 'tfjs' ? { dtype: type, shape: dims, dataSync: () => data } : { type, shape: dims, data };
  const throws = r() < 0.03;
  if (throws) Object.defineProperty(tensor, form === 'tfjs' ? 'dtype' : 'type', { get() { throw new Error('type getter'); } });
  return { tensor, n, type, Arr, data, dims, rows, cols, throws };
}

/** The values the tensor stands for, by the formats' definitions, or null where a refusal is allowed. */
function expected(m) {
  const numbers = Array.isArray(m.data) ? m.data.every((x) => typeof x === 'number') : ArrayBuffer.isView(m.data) && !(m.data instanceof DataView);
  const ok = !m.throws && m.dims.length === 2 && m.dims[0] === m.rows && m.dims[1] === m.cols && numbers;
  if (!ok) return null;
  if (m.type === 'float16' || m.type === 'bfloat16') return m.Arr === Uint16Array ? Array.from(m.data, (b) => valueOf(b, m.type)) : null;
  if (m.type === 'float32' || m.type === 'float64' || m.type === undefined || m.type === null) {
    return m.Arr === BigInt64Array ? null : Array.from(m.data);
  }
  return null; // integer and unknown types: refused for a matrix of values
}

test(`${CASES} mutated tensors: the independent values, or a posenc error`, () => {
  const r = rng(22);
  let accepted = 0;
  for (let i = 0; i < CASES; i++) {
    const m = mutant(r);
    const want = expected(m);
    let got, error;
    try {
      got = pe.norms(m.tensor, { dtype: 'float64' });
    } catch (e) {
      error = e;
    }
    const where = `case ${i}: type ${String(m.type)}, ${m.Arr.name}, dims [${m.dims}]`;
    if (error) {
      assert.ok((error instanceof TypeError || error instanceof RangeError) && /^posenc\.norms: /.test(error.message), `${where}: ${error}`);
      // a matrix whose values are all finite and whose type posenc reads must not be refused
      if (want && want.every(Number.isFinite)) assert.fail(`${where}: refused (${error.message})`);
      continue;
    }
    assert.ok(want, `${where}: accepted, but should have been refused`);
    accepted++;
    for (let row = 0; row < m.rows; row++) {
      let s = 0;
      for (let c = 0; c < m.cols; c++) s += want[row * m.cols + c] ** 2;
      const norm = Math.sqrt(s);
      assert.ok(Math.abs(got[row] - norm) <= 1e-12 * norm, `${where}: row ${row} norm ${got[row]}, want ${norm}`);
    }
  }
  assert.ok(accepted > CASES / 10, `only ${accepted} accepted: the mutations say little`);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('random float64 bit patterns round to the nearest float16 / bfloat16 pattern, ties to even', () => {
  const r = rng(16);
  const view = new DataView(new ArrayBuffer(8));
  for (let i = 0; i < 20000; i++) {
    // every exponent (the high word), and values near the formats' ranges and ties
    view.setUint32(0, Math.floor(r() * 2 ** 32));
    view.setUint32(4, Math.floor(r() * 2 ** 32));
    let x = view.getFloat64(0);
    if (i % 2) x = (r() - 0.5) * 2 ** (Math.floor(r() * 300) - 150);
    if (!Number.isFinite(x)) continue;
    for (const format of ['float16', 'bfloat16']) {
      assert.equal(encodeHalf(x, format), nearestBits(x, format), `${format}(${x})`);
    }
  }
});

// Fifth adversarial pass (issue 22): every element storage as every tensor and
// array argument of every entry (34 call sites), plain, as { shape, data }, as
// onnxruntime-web / transformers.js { type, dims, data } and as TensorFlow.js
// { dtype, shape, dataSync() }. Each call gives what the same numbers in a
// Float64Array give, or a posenc TypeError / RangeError naming the argument,
// and a refusal moves no module's memory. Float storages, shared, resizable,
// offset and float16 / bfloat16 bit patterns under their type must be read;
// DataView, a detached buffer and BigInts without an integer type must not.
test('every typed-array kind and wrapper as every tensor argument: read exactly, or refused naming the argument', async () => {
  const { loadAll } = await import('./helpers/calls.js');
  const { posenc: p, variants: pv, fields: pf, lab } = await loadAll();
  const model = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 16, task: 'shift', trainLengths: [3, 4] }).model;
  const handle = pv.rope({ dim: 4, maxLen: 8 });
  const bf16 = (x) => new Uint32Array(Float32Array.of(x).buffer)[0] >>> 16;
  const shared = (T, v, grow = 1) => {
    const a = new T(new SharedArrayBuffer(v.length * T.BYTES_PER_ELEMENT, grow > 1 ? { maxByteLength: grow * v.length * T.BYTES_PER_ELEMENT } : undefined));
    a.set(v);
    return a;
  };
  // [make(values), its element type, must: 'read' | 'refuse' | undefined (either, named)]
  const KINDS = {
    Array: [(v) => [...v], 'float64', 'read'], Float64Array: [(v) => Float64Array.from(v), 'float64', 'read'],
    Float32Array: [(v) => Float32Array.from(v), 'float32', 'read'], Int8Array: [(v) => Int8Array.from(v), 'int8'],
    Uint8Array: [(v) => Uint8Array.from(v), 'uint8'], Uint8ClampedArray: [(v) => Uint8ClampedArray.from(v), 'uint8'],
    Int16Array: [(v) => Int16Array.from(v), 'int16'], Uint16Array: [(v) => Uint16Array.from(v), 'uint16'],
    Int32Array: [(v) => Int32Array.from(v), 'int32'], Uint32Array: [(v) => Uint32Array.from(v), 'uint32'],
    BigInt64Array: [(v) => BigInt64Array.from(v, BigInt), 'int64'], BigUint64Array: [(v) => BigUint64Array.from(v, BigInt), 'uint64'],
    DataView: [(v) => new DataView(Float64Array.from(v).buffer), 'float64', 'refuse'],
    shared: [(v) => shared(Float64Array, v), 'float64', 'read'], growableShared: [(v) => shared(Float32Array, v, 2), 'float32', 'read'],
    resizable: [(v) => { const a = new Float64Array(new ArrayBuffer(v.length * 8, { maxByteLength: v.length * 16 })); a.set(v); return a; }, 'float64', 'read'],
    resizableFixed: [(v) => { const a = new Float32Array(new ArrayBuffer(v.length * 4 + 8, { maxByteLength: v.length * 16 }), 4, v.length); a.set(v); return a; }, 'float32', 'read'],
    offset: [(v) => { const a = new Float64Array(v.length + 3); a.set(v, 2); return a.subarray(2, 2 + v.length); }, 'float64', 'read'],
    detached: [(v) => { const a = Float64Array.from(v); structuredClone(a.buffer, { transfer: [a.buffer] }); return a; }, 'float64', 'refuse'],
    float16: [(v) => Uint16Array.from(v, (x) => encodeHalf(x, 'float16')), 'float16', 'read'], bfloat16: [(v) => Uint16Array.from(v, bf16), 'bfloat16', 'read'],
  };
  if (typeof Float16Array === 'function') KINDS.Float16Array = [(v) => Float16Array.from(v), 'float16', 'read'];
  const WRAPS = { plain: (d) => d, shape: (d, shape) => ({ shape, data: d }), ort: (d, dims, type) => ({ type, dims, data: d }),
    tfjs: (d, shape, dtype) => ({ dtype, shape, dataSync: () => d }) };
  const kv = (fn) => {
    const c = p.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
    try {
      return fn(c);
    } finally {
      c.free();
    }
  };
  const row8 = { shape: [1, 8], data: [1, 2, 3, 4, 5, 6, 7, 0] }, q8 = { shape: [1, 8], data: [1, 0, 0, 0, 0, 0, 0, 1] };
  const K2 = [[1, 0], [0, 1]], V2 = [[2, 3], [5, 7]], m4 = [1, 2, 3, 0], v8 = [1, 2, 3, 0, 1, 2, 3, 0];
  // [function, argument name, values, shape, call, plain (a vector) or a tensor, integers only (lab token ids)]
  const SITES = [
    ['gram', 'matrix', m4, [2, 2], (x) => p.gram(x)], ['norms', 'matrix', m4, [2, 2], (x) => p.norms(x)],
    ['dot', 'a', [1, 2, 3], [3], (x) => p.dot(x, [1, 1, 2]), true], ['toyAttention', 'codes', [1, 2, 3], [3], (x) => p.toyAttention(x, [10, 20, 30]), true],
    ['toyAttention', 'weights', [1, 2, 3], [3], (x) => p.toyAttention([1, 2, 3], [10, 20, 30], { weights: x }), true],
    ['attention', 'q', [1, 0], [1, 2], (x) => p.attention(x, K2, V2)], ['attention', 'k', [1, 0, 0, 1], [2, 2], (x) => p.attention([[1, 0]], x, V2)],
    ['attention', 'v', [2, 3, 5, 7], [2, 2], (x) => p.attention([[1, 0]], K2, x)],
    ['attention', 'mask', [1, 0], [1, 2], (x) => p.attention([[1, 0]], K2, V2, { mask: x })],
    ['attention', 'bias', [1, 2], [1, 2], (x) => p.attention([[1, 0]], K2, V2, { bias: x })],
    ['attention', 'q', v8, [1, 8], (x) => p.attention(x, { shape: [2, 8], data: new Float32Array(16).fill(1) }, { shape: [2, 8], data: new Float32Array(16).fill(2) }, { dtype: 'float32' })],
    ['kvCache.append', 'k', v8, [1, 8], (x) => kv((c) => c.append(x, row8) && c.attend(q8))],
    ['kvCache.append', 'v', v8, [1, 8], (x) => kv((c) => c.append(row8, x) && c.attend(q8))],
    ['kvCache.attend', 'q', v8, [1, 8], (x) => kv((c) => c.append(row8, row8) && c.attend(x))],
    ['ropeApply', 'x', m4, [1, 4], (x) => pv.ropeApply(x)], ['ropeApply', 'x', m4, [1, 4], (x) => pv.ropeApply(x, { dtype: 'float32' })],
    ['ropeApply', 'positions', [3], [1], (x) => pv.ropeApply([[1, 2, 3, 4]], { positions: x }), true],
    ['ropeApply', 'cos', [1, 0, 1, 0], [1, 4], (x) => pv.ropeApply([[1, 2, 3, 4]], { cos: x, sin: [[0, 1, 0, 1]] })],
    ['ropeApply', 'sin', [0, 1, 0, 1], [1, 4], (x) => pv.ropeApply([[1, 2, 3, 4]], { cos: [[1, 0, 1, 0]], sin: x })],
    ['ropePermute', 'weights', m4, [2, 2], (x) => pv.ropePermute(x, { headDim: 2 })],
    ['t5Bucket', 'relative', [-3, 0, 4], [3], (x) => pv.t5Bucket(x), true], ['learnedRows', 'positions', [0, 2], [2], (x) => pv.learnedRows(x, 3, 4), true],
    ['roundTo', 'values', m4, [4], (x) => pv.roundTo(x, 'float16'), true], ['formatBits', 'values', m4, [4], (x) => pv.formatBits(x, 'bfloat16'), true],
    ['mropeCache', 'positions', [0, 1, 0, 1, 0, 1], [3, 2], (x) => pv.mropeCache(x, 8, { section: [1, 1, 2] })],
    ['ropeAxialCache', 'ids', [0, 1, 1, 0], [2, 2], (x) => pv.ropeAxialCache(x, { axesDim: [2, 2] })],
    ['rope.apply', 'x', m4, [1, 4], (x) => handle.apply(x)], ['rope.apply', 'positions', [3], [1], (x) => handle.apply([[1, 2, 3, 4]], x), true],
    ['timestepEmbedding', 'timesteps', [1, 20], [2], (x) => pf.timestepEmbedding(x, 8), true], ['sincos1d', 'positions', [0, 1, 2], [3], (x) => pf.sincos1d(x, 8), true],
    ['fourierFeatures', 'points', [1, 2], [1, 2], (x) => pf.fourierFeatures(x, { levels: 2 })],
    ['randomFourierFeatures', 'points', [1, 2], [1, 2], (x) => pf.randomFourierFeatures(x, { features: 4 })],
    ['lab.attentionMaps', 'tokens', [1, 2, 3], [3], (x) => lab.attentionMaps(model, x), true, true],
    ['lab.loss', 'batch.tokens', [1, 2, 3, 1], [4], (x) => lab.loss(model, { shape: [1, 4], tokens: x, targets: [-1, -1, 1, 2] }), true, true],
  ];
  const flat = (r) => (ArrayBuffer.isView(r) ? Array.from(r) : Array.isArray(r) ? r.flatMap(flat)
    : r && typeof r === 'object' ? Object.keys(r).sort().flatMap((k) => [k, ...flat(r[k])]) : [r]);
  const modules = [p, pv, pf, lab];
  const counts = { read: 0, refused: 0 };
  for (const [fn, arg, values, shape, call, plain, ids] of SITES) {
    const want = flat(call(plain ? (ids ? Int32Array : Float64Array).from(values) : { shape, data: Float64Array.from(values) }));
    for (const [kind, [make, type, must]] of Object.entries(KINDS)) {
      for (const [wrap, form] of Object.entries(WRAPS)) {
        // a vector is an array, a tensor a wrapper; bit patterns mean values only with their type
        if ((wrap === 'plain') !== Boolean(plain) || (type.endsWith('float16') && wrap !== 'ort' && wrap !== 'tfjs' && kind !== 'Float16Array')) continue;
        if (/Uint|Big/.test(kind) && values.some((x) => x < 0)) continue;
        const where = `${fn} ${arg} as ${kind} (${wrap})`, before = JSON.stringify(modules.map((m) => m.memoryStats()));
        let got;
        try {
          got = flat(call(form(make(values), shape, type)));
        } catch (e) {
          assert.ok((e instanceof TypeError || e instanceof RangeError) && e.message.startsWith(`posenc.${fn}: ${arg}`), `${where}: ${e}`);
          assert.equal(JSON.stringify(modules.map((m) => m.memoryStats())), before, where);
          assert.ok(must !== 'read' || ids, `${where}: refused (${e.message})`);
          counts.refused++;
          continue;
        }
        assert.deepEqual(got, want, where);
        assert.ok(must !== 'refuse', `${where}: accepted`);
        counts.read++;
      }
    }
  }
  handle.free();
  assert.ok(counts.read > 800 && counts.refused > 400, JSON.stringify(counts));
});

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

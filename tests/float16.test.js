// float16 and bfloat16 tensors (issue 22, point 4). Inputs from
// transformers.js / onnxruntime-web ({ type: 'float16', data: Uint16Array })
// and results asked for as dtype 'float16' / 'bfloat16' (Uint16Array bits).
// The expected values come from the formula of each format written out here
// (sign, exponent, fraction), never from the code under test; every one of
// the 65,536 bit patterns of each format is checked, and the rounding of the
// midpoints between neighbours (ties to even), subnormals, overflow to
// Infinity and NaN. Tolerance: none; conversions are exact.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { encodeHalf, decodeHalves, encodeHalves } from '../web/lib/float16.js';
import { loadApi, loadVariants, loadFields } from './helpers/load.js';
import { FORMATS, valueOf, nearestBits } from './helpers/half.js';

const pe = await loadApi();
const pv = await loadVariants();
const pf = await loadFields();

const isNaNBits = (b, format) => Number.isNaN(valueOf(b, format));
const ALL = Array.from({ length: 65536 }, (_, b) => b);

for (const format of Object.keys(FORMATS)) {
  test(`${format}: every one of the 65,536 bit patterns decodes to its value and encodes back to itself`, () => {
    const decoded = decodeHalves(Uint16Array.from(ALL), format);
    for (const b of ALL) {
      const want = valueOf(b, format);
      assert.ok(Object.is(decoded[b], want), `decodeHalves 0x${b.toString(16)} = ${decoded[b]}, want ${want}`);
      const back = encodeHalf(want, format);
      if (isNaNBits(b, format)) assert.ok(isNaNBits(back, format), `NaN 0x${b.toString(16)} encodes to a NaN`);
      else assert.equal(back, b, `encode(decode(0x${b.toString(16)}))`);
    }
  });

  test(`${format}: midpoints round to the even neighbour, anything off the midpoint to the nearer one`, () => {
    // Each pair of neighbouring positive finite patterns b, b + 1 (the last
    // pair is the largest finite value and Infinity), and the same negated.
    const inf = valueOf(0x7fff >> FORMATS[format][1] << FORMATS[format][1], format) === Infinity
      ? 0x7fff >> FORMATS[format][1] << FORMATS[format][1] : null;
    for (let b = 0; b < inf; b++) {
      const lo = valueOf(b, format);
      // the gap above the largest finite value is the gap below it (the next binade's step)
      const hi = b + 1 === inf ? lo + (lo - valueOf(b - 1, format)) : valueOf(b + 1, format);
      const mid = (lo + hi) / 2; // exact in float64: these have 11 significant bits at most
      const even = b % 2 === 0 ? b : b + 1;
      for (const sign of [1, -1]) {
        const s = sign < 0 ? 0x8000 : 0;
        assert.equal(encodeHalf(sign * mid, format), s | even, `tie at ${sign * mid}`);
        const below = mid - (mid - lo) / 1024, above = mid + (hi - mid) / 1024;
        assert.equal(encodeHalf(sign * below, format), s | b, `just below ${sign * mid}`);
        assert.equal(encodeHalf(sign * above, format), s | (b + 1), `just above ${sign * mid}`);
      }
    }
  });
}

test('float16 edges: subnormals, overflow to Infinity, NaN, signed zero', () => {
  const cases = [
    [2 ** -24, 0x0001], [2 ** -25, 0x0000], [3 * 2 ** -25, 0x0002], [2 ** -25 * 1.0000001, 0x0001],
    [2 ** -14 - 2 ** -25, 0x0400], [1023 * 2 ** -24, 0x03ff], [1e-30, 0x0000], [-1e-30, 0x8000],
    [65504, 0x7bff], [65519.99, 0x7bff], [65520, 0x7c00], [1e300, 0x7c00], [-65520, 0xfc00],
    [Infinity, 0x7c00], [-Infinity, 0xfc00], [0, 0x0000], [-0, 0x8000], [1 + 2 ** -11, 0x3c00],
    [1 + 3 * 2 ** -11, 0x3c02], [Number.MIN_VALUE, 0x0000],
  ];
  for (const [x, bits] of cases) assert.equal(encodeHalf(x, 'float16'), bits, `float16(${x})`);
  assert.ok(isNaNBits(encodeHalf(NaN, 'float16'), 'float16'));
  assert.deepEqual(Array.from(encodeHalves([1, -2, 0.5], 'float16')), [0x3c00, 0xc000, 0x3800]);
});

test('bfloat16 edges: float32 range, rounding from float64 in one step', () => {
  const max = valueOf(0x7f7f, 'bfloat16'); // (2 - 2^-7) 2^127
  const cases = [
    [1, 0x3f80], [max, 0x7f7f], [max * (1 + 2 ** -9), 0x7f7f], [2 ** 128 - 2 ** 119, 0x7f80],
    [2 ** -133, 0x0001], [2 ** -134, 0x0000], [3 * 2 ** -134, 0x0002], [1 + 2 ** -8, 0x3f80],
    [1 + 3 * 2 ** -8, 0x3f82],
    // Just above a tie in float64, but a tie once rounded to float32 first: one rounding says up.
    [1 + 2 ** -8 + 2 ** -40, 0x3f81],
  ];
  for (const [x, bits] of cases) assert.equal(encodeHalf(x, 'bfloat16'), bits, `bfloat16(${x})`);
});

// ---- through the API ----------------------------------------------------------------

const f16 = (values, dims) => ({ type: 'float16', dims, data: Uint16Array.from(values, (v) => encodeHalf(v, 'float16')) });

test('a float16 tensor is read as its values: gram of the issue example gives 5, 11, 11, 25', () => {
  const m = f16([1, 2, 3, 4], [2, 2]);
  assert.deepEqual(Array.from(pe.gram(m).data), [5, 11, 11, 25]);
  const bf = { type: 'bfloat16', dims: [2, 2], data: Uint16Array.from([1, 2, 3, 4], (v) => encodeHalf(v, 'bfloat16')) };
  assert.deepEqual(Array.from(pe.gram(bf).data), [5, 11, 11, 25]);
  // TensorFlow.js names it dtype, and hands data over through dataSync()
  const tf = { dtype: 'float16', shape: [2, 2], dataSync: () => m.data };
  assert.deepEqual(Array.from(pe.norms(tf, { dtype: 'float64' })), [Math.sqrt(5), 5]);
});

test('results as float16 / bfloat16 are the float64 results rounded once, for every function with a dtype', () => {
  const calls = [
    [pe, 'table', [5, 6]], [pe, 'frequencies', [8]], [pe, 'tableGram', [4, 6]], [pe, 'rotation', [3, 4]],
    [pe, 'gram', [[[1, 2], [3, 0.1]]]], [pe, 'norms', [[[1, 2], [3, 0.1]]]],
    [pe, 'attention', [[[1, 0]], [[1, 0], [0, 1]], [[2, 3], [5, 7]]]],
    [pv, 'ropeFrequencies', [8]], [pv, 'ropeCache', [3, 8]], [pv, 'alibiSlopes', [4]],
    [pv, 'alibiBias', [2, 3, { maskValue: -100 }]], [pv, 'learnedTable', [3, 4]], [pv, 'binaryTable', [4, 3]],
    [pv, 'ropeApply', [[[1, 2, 3, 4]], { positions: [5] }]], [pv, 'ropePermute', [[[1, 2], [3, 4]], { headDim: 2 }]],
    [pf, 'timestepEmbedding', [[1, 20], 8]], [pf, 'sincos1d', [[0, 1, 2], 8]], [pf, 'sincos2d', [2, 2, 8]],
    [pf, 'fourierFeatures', [{ rows: 1, cols: 2, data: [0.25, 0.5] }, { levels: 2 }]],
  ];
  const valuesOfResult = (r) => (ArrayBuffer.isView(r) ? [r] : Object.values(r).filter((v) => ArrayBuffer.isView(v) || (v && ArrayBuffer.isView(v.data))).map((v) => (ArrayBuffer.isView(v) ? v : v.data)));
  for (const [api, fn, args] of calls) {
    const last = args[args.length - 1];
    const withDtype = (dtype) => (last && typeof last === 'object' && !Array.isArray(last)
      ? [...args.slice(0, -1), { ...last, dtype }] : [...args, { dtype }]);
    const wide = valuesOfResult(api[fn](...withDtype('float64')));
    for (const format of Object.keys(FORMATS)) {
      const got = valuesOfResult(api[fn](...withDtype(format)));
      assert.equal(got.length, wide.length, `${fn} ${format}`);
      got.forEach((bits, k) => {
        assert.ok(bits instanceof Uint16Array, `${fn} ${format}: a Uint16Array of bits`);
        for (let i = 0; i < bits.length; i++) {
          assert.equal(bits[i], nearestBits(wide[k][i], format), `${fn} ${format}[${i}] of ${wide[k][i]}`);
        }
      });
    }
  }
});

test('a result beyond float16 is refused (status 7), not rounded to Infinity; out takes the bits', () => {
  assert.throws(() => pe.gram([[300, 300]], { dtype: 'float16' }), /posenc\.gram: .*overflows float16.*status 7/);
  assert.equal(pe.gram([[300, 300]], { dtype: 'bfloat16' }).data[0], encodeHalf(180000, 'bfloat16'));
  const out = new Uint16Array(30);
  const r = pe.table(5, 6, { dtype: 'float16', out });
  assert.equal(r.data, out);
  assert.equal(out[1], 0x3c00); // cos 0
  assert.throws(() => pe.table(5, 6, { dtype: 'float16', out: new Float32Array(30) }), /out must be a Uint16Array of 30/);
});

test('a 16-bit table counts its result at 2 bytes a value: its float64 chunk is all that wasm memory holds', () => {
  // issue 22's twelfth pass: table(16384, 16384, { dtype: 'float16' }), a 512 MiB Uint16Array made a
  // 2 MiB float64 chunk at a time, was refused as needing "2048.0 MiB of WebAssembly memory" (8 bytes
  // a value) while the same table in float32, twice its size, was accepted. Just past 1 GiB of result:
  const before = pe.memoryStats();
  for (const dtype of ['float16', 'bfloat16']) {
    assert.throws(() => pe.table(16384, 32769, { dtype }), /posenc\.table: this call would need 1024\.1 MiB/);
    assert.throws(() => pe.table(16384, 32769, { dtype, positions: new Float64Array(16384) }), /would need 1024\.1 MiB/);
  }
  assert.throws(() => pe.table(16384, 32769), /would need 2048\.1 MiB/);
  assert.throws(() => pe.table(16384, 32769, { dtype: 'float64' }), /would need 4096\.2 MiB/);
  assert.deepEqual(pe.memoryStats(), before);
});

test('element types: unknown ones refused by name, integers only where integers make sense', () => {
  const bad = [
    [{ type: 'float8', dims: [1, 2], data: new Uint8Array(2) }, TypeError, /element type float32, .*\(got "float8"\)/],
    [{ dtype: 'string', shape: [1, 2], dataSync: () => ['a', 'b'] }, TypeError, /element type .*\(got "string"\)/],
    [{ type: 'int8', dims: [1, 2], data: new Int8Array(2) }, TypeError, /element type .*\(got "int8"\)/],
    [{ type: 'int32', dims: [1, 2], data: new Int32Array(2) }, TypeError, /element type .*\(got "int32"\)/],
    [{ type: 'float16', dims: [1, 2], data: new Float32Array(2) }, TypeError, /Uint16Array of float16/],
    [{ type: 7, dims: [1, 2], data: new Float32Array(2) }, TypeError, /element type .*\(got 7\)/],
    [f16([Infinity, 1], [1, 2]), RangeError, /finite/],
  ];
  for (const [m, Type, pattern] of bad) {
    assert.throws(() => pe.gram(m), (e) => e instanceof Type && /^posenc\.gram: /.test(e.message) && pattern.test(e.message), JSON.stringify(m.type ?? m.dtype));
  }
  // a mask is integers: bool, uint8, int32 and int64 tensors of 0 and 1 all work
  const q = [[1, 0]], k = [[1, 0], [0, 1]], v = [[2, 3], [5, 7]];
  const want = pe.attention(q, k, v, { mask: [[1, 0]], dtype: 'float64' }).output.data;
  for (const [type, data] of [['bool', Uint8Array.of(1, 0)], ['uint8', Uint8Array.of(1, 0)], ['int32', Int32Array.of(1, 0)], ['int64', BigInt64Array.of(1n, 0n)]]) {
    assert.deepEqual(pe.attention(q, k, v, { mask: { type, dims: [1, 2], data }, dtype: 'float64' }).output.data, want, type);
  }
  assert.deepEqual(Array.from(pe.attention(f16([1, 0], [1, 2]), f16([1, 0, 0, 1], [2, 2]), f16([2, 3, 5, 7], [2, 2]), { dtype: 'float64' }).output.data),
    Array.from(pe.attention(q, k, v, { dtype: 'float64' }).output.data));
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('a 16-bit result is rounded from the bits of each value, with no logarithm or floor per value', () => {
  // issue 22's eleventh pass: each value took Math.log2 and Math.floor (and a power of two), about
  // 0.5 us; table(4096, 4096) in float16 took 9.6 s where float32 took 0.1 s. Counted, not timed.
  const saved = { log2: Math.log2, floor: Math.floor };
  let calls = 0;
  for (const name of Object.keys(saved)) Math[name] = (x) => (calls++, saved[name](x));
  try {
    for (const dtype of ['float16', 'bfloat16']) {
      calls = 0;
      const t = pe.table(64, 64, { dtype });
      const cache = pv.ropeCache(64, 64, { dtype });
      const grid = pf.sincos2d(8, 8, 64, { dtype });
      assert.equal(t.data.length + cache.cos.data.length + grid.data.length, 3 * 4096);
      assert.ok(calls < 64, `${dtype}: ${calls} calls of Math.log2 and Math.floor for 12,288 values`);
    }
  } finally {
    Object.assign(Math, saved);
  }
});

test('a 16-bit tensor is decoded by moving its bits, with no function called per value', () => {
  // Each value took a callback through Float32Array.from, a division and two powers: 150 ns a
  // value, 0.6 ms for the q of one float16 decode step. Counted, not timed: the callbacks
  // Float32Array.from makes while a 65,536-value tensor is read.
  const from = Float32Array.from;
  let calls = 0;
  Float32Array.from = function (source, map, thisArg) {
    return map ? from.call(this, source, (...a) => (calls++, map.apply(thisArg, a)), thisArg) : from.call(this, source);
  };
  try {
    for (const type of ['float16', 'bfloat16']) {
      calls = 0;
      const data = Uint16Array.from({ length: 65536 }, (_, i) => encodeHalf(Math.sin(i), type));
      const n = pe.norms({ type, data, dims: [256, 256] });
      assert.equal(n.length, 256);
      assert.ok(calls < 256, `${type}: ${calls} callbacks for 65,536 values`);
    }
  } finally {
    Float32Array.from = from;
  }
});

test('a 16-bit tensor is read through its own length, not a length property planted on it', () => {
  // Issue 22, thirteenth pass: the decoder sized its Float32Array by data.length, so a 4-value
  // tensor whose Uint16Array carried an own length of 2^32 made 16 GiB and looped 2^32 times
  // (162 s) before its length was refused, and a length of -1 escaped as a raw "Invalid typed
  // array length". Its elements are what the engine says it holds, as for every other typed array.
  for (const type of ['float16', 'bfloat16']) {
    const plain = pe.norms({ type, dims: [2, 2], data: Uint16Array.from([1, 2, 3, 4], (v) => encodeHalf(v, type)) });
    for (const length of [-1, 2 ** 20, 1.5, 'x', 0]) {
      const data = Uint16Array.from([1, 2, 3, 4], (v) => encodeHalf(v, type));
      Object.defineProperty(data, 'length', { value: length });
      assert.deepEqual(pe.norms({ type, dims: [2, 2], data }), plain, `${type}, length ${String(length)}`);
    }
  }
});

test('a 16-bit tensor of another length than its shape is refused undecoded', () => {
  // It was decoded (a Float32Array of all its values) before its length was checked: a 2 × 2 float16 matrix
  // whose Uint16Array held 2^26 values took 0.4 s to be refused, and one of 2^30 would need a 4 GiB decode.
  // Counted: the Float32Arrays a call makes (Float32Array is looked up when constructed).
  const Real = Float32Array;
  let longest = 0;
  globalThis.Float32Array = new Proxy(Real, {
    construct: (T, args, target) => {
      if (typeof args[0] === 'number') longest = Math.max(longest, args[0]);
      return Reflect.construct(T, args, target === globalThis.Float32Array ? T : target);
    },
  });
  try {
    for (const type of ['float16', 'bfloat16']) {
      assert.throws(() => pe.norms({ type, dims: [2, 2], data: new Uint16Array(2 ** 20) }),
        /^RangeError: posenc\.norms: matrix\.data must have 4 elements to match \(got 1048576\)$/);
      assert.throws(() => pe.attention({ type, dims: [1, 1, 2, 2], data: new Uint16Array(2 ** 20) }, { dims: [1, 1, 2, 2], data: [1, 2, 3, 4] }, { dims: [1, 1, 2, 2], data: [1, 2, 3, 4] }),
        /^RangeError: posenc\.attention: q\.data must have 4 elements to match \(got 1048576\)$/);
    }
    assert.ok(longest < 2 ** 20, `a Float32Array of ${longest} values`);
  } finally {
    globalThis.Float32Array = Real;
  }
  // of the right length: decoded as before
  assert.deepEqual(pe.norms({ type: 'float16', dims: [2, 2], data: Uint16Array.of(0x3c00, 0, 0, 0x4000) }), pe.norms({ dims: [2, 2], data: [1, 0, 0, 2] }));
});

// Results at the edges of the number formats (issue 16, points 2, 3 and 5):
// a float32 result that would round to ±Infinity is refused (status 7), as a
// float64 overflow is; NTK scaling whose scaled base overflows is refused the
// same way by the release and the debug build; norms and cosines of rows
// whose squares under- or overflow are still computed when the answer itself
// is representable. Each call also leaves no allocation behind.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi, loadVariants } from './helpers/load.js';

const pe = await loadApi();
const pv = await loadVariants();
const apiOf = (fn) => (fn in pe ? pe : pv);
const m = (rows, cols, data) => ({ rows, cols, data });
const FLT_MAX = 3.4028234663852886e38;

function noLeaks() {
  assert.equal(pe.memoryStats().liveAllocations, 0);
  assert.equal(pv.memoryStats().liveAllocations, 0);
}

const overflowed = (fn) => (e) => {
  assert.ok(e instanceof RangeError, String(e));
  assert.match(e.message, new RegExp(`^posenc\\.${fn}: .*\\(status 7\\)$`));
  return true;
};
// ropeApply rotates float32 in float32: an x past its range is refused by
// element before anything is allocated, not as an overflowing result
const pastFloat32 = (e) => {
  assert.ok(e instanceof RangeError, String(e));
  assert.match(e.message, /^posenc\.ropeApply: x\.data\[\d+\] must be a finite number \(in float32\) \(got -?1e\+300\)$/);
  return true;
};

/** All values of a result (matrices, nested results) as one list. */
function valuesOf(r) {
  if (typeof r === 'number') return [r];
  if (ArrayBuffer.isView(r)) return Array.from(r);
  if (r && typeof r === 'object') return Object.values(r).flatMap(valuesOf);
  return [];
}

// Every function with a dtype, at the largest values it accepts, as float32:
// either every value is finite, or the call is refused with status 7.
const BIG = 1e300;
const FLOAT32_CASES = [
  ['table', [8, 8, { dtype: 'float32', offset: 2 ** 31 - 7 }]],
  ['tableGram', [8, 8, { dtype: 'float32', offset: -(2 ** 31) }]],
  ['gram', [m(2, 2, [BIG, 1, 1, BIG]), { dtype: 'float32' }]],
  ['gram', [m(2, 2, [1e20, 1, 1, 1e20]), { dtype: 'float32' }]],
  ['rotation', [2 ** 31, 8, { dtype: 'float32' }]],
  ['attention', [m(1, 1, [1]), m(2, 1, [1, 2]), m(2, 1, [BIG, -BIG]), { dtype: 'float32' }]],
  ['attention', [m(1, 1, [1]), m(1, 1, [1]), m(1, 1, [1e39]), { dtype: 'float32' }]],
  ['ropeCache', [4, 8, { dtype: 'float32', offset: 2 ** 31 - 3 }]],
  ['ropeApply', [m(1, 4, [BIG, BIG, -BIG, 1]), { dtype: 'float32' }]],
  ['ropePermute', [m(2, 2, [BIG, 1, 2, 3]), { dtype: 'float32' }]],
  ['alibiBias', [4, 3, { dtype: 'float32', maskValue: -BIG }]],
  ['alibiBias', [4, 3, { dtype: 'float32', maskValue: -1e39, mode: 'causal' }]],
  ['learnedTable', [64, 64, { dtype: 'float32', scale: 1e6 }]],
  ['learnedRows', [[0, 63], 64, 64, { dtype: 'float32', scale: 1e6 }]],
  ['binaryTable', [4, 64, { dtype: 'float32', offset: 2 ** 31 - 3, signed: true }]],
];

test('every function with a dtype: a float32 result never holds an Infinity made by rounding', () => {
  let refused = 0;
  for (const [fn, args] of FLOAT32_CASES) {
    let r;
    try {
      r = apiOf(fn)[fn](...args);
    } catch (e) {
      if (fn === 'alibiBias') assert.match(e.message, /^posenc\.alibiBias: maskValue must be -Infinity or within ±3\.4028235e38 for float32/);
      else (fn === 'ropeApply' ? pastFloat32 : overflowed(fn))(e);
      refused++;
      noLeaks();
      continue;
    }
    const values = valuesOf(r).filter((v) => typeof v === 'number');
    const masked = fn === 'alibiBias' ? values.filter((v) => v !== -Infinity) : values;
    assert.ok(masked.every(Number.isFinite), `${fn}: a float32 result holds ${masked.find((v) => !Number.isFinite(v))}`);
    noLeaks();
  }
  assert.ok(refused >= 6, `only ${refused} calls refused`);
});

test('float32 overflow: the issue 16 calls are refused, and work as float64', () => {
  const v = m(2, 1, [BIG, -BIG]);
  assert.throws(() => pe.attention(m(1, 1, [1]), m(2, 1, [1, 2]), v, { dtype: 'float32' }), overflowed('attention'));
  const out = pe.attention(m(1, 1, [1]), m(2, 1, [1, 2]), v, { dtype: 'float64' }).output.data;
  assert.ok(Number.isFinite(out[0]) && Math.abs(out[0]) <= BIG);
  assert.throws(() => pv.ropeApply(m(1, 2, [BIG, 0]), { dtype: 'float32' }), pastFloat32);
  // within float32's range, a rotation can still leave it: 3e38 (cos 1 + sin 1) at position 1
  assert.throws(() => pv.ropeApply(m(1, 2, [3e38, -3e38]), { dtype: 'float32', offset: 1 }), overflowed('ropeApply'));
  assert.deepEqual(Array.from(pv.ropeApply(m(1, 2, [BIG, 0]), { dtype: 'float64' }).data), [BIG, 0]);
  assert.throws(() => pv.ropePermute(m(2, 1, [BIG, 1]), { dtype: 'float32' }), overflowed('ropePermute'));
  // FLT_MAX itself fits, and -Infinity stays a valid mask value.
  assert.deepEqual(Array.from(pv.ropePermute(m(2, 1, [FLT_MAX, 1]), { dtype: 'float32' }).data), [FLT_MAX, 1]);
  assert.equal(pv.alibiBias(1, 2, { dtype: 'float32' }).data[1], -Infinity);
  assert.throws(() => pv.alibiBias(1, 2, { dtype: 'float32', maskValue: -1e39 }), /posenc\.alibiBias: maskValue/);
  noLeaks();
});

test('NTK scaling whose scaled base overflows is refused by every RoPE call, in both builds, naming base', () => {
  const cases = [
    [128, 1e306, { type: 'ntk', factor: 1000 }],
    [8, Number.MAX_VALUE, { type: 'ntk', factor: 2 }],
    [4, 1e300, { type: 'ntk', factor: 1e6 }],
    // dynamic's base grows with the call's own positions: the frequencies alone (position 0) and
    // an M-RoPE cache of four positions at 0 are within range
    [128, 1e300, { type: 'dynamic', factor: 1e6, maxPosition: 1 }],
  ];
  for (const [dim, base, scaling] of cases) {
    const options = { base, scaling };
    // The core's status 7 said only "a value is NaN or infinite (...)", naming no option.
    const refused = (fn) => new RegExp(`^RangeError: posenc\\.${fn}: scaled base must be a finite number \\(got ${String(base).replace('+', '\\+')}\\)$`);
    const dynamic = scaling.type === 'dynamic';
    if (!dynamic) assert.throws(() => pv.ropeFrequencies(dim, options), refused('ropeFrequencies'));
    assert.throws(() => pv.ropeCache(2 ** 10, dim, options), refused('ropeCache'));
    assert.throws(() => pv.ropeApply(m(2 ** 10, dim, new Array(2 ** 10 * dim).fill(1)), options), refused('ropeApply'));
    assert.throws(() => pv.rope({ dim, maxLen: 2 ** 10, ...options }), refused('rope'));
    if (dim >= 8 && !dynamic) {
      const section = [dim / 4, dim / 8, dim / 8];
      assert.throws(() => pv.mropeCache({ shape: [3, 4], data: new Float64Array(12) }, dim, { section, ...options }), refused('mropeCache'));
    }
    noLeaks();
  }
  // A factor below 1 shrinks the base: DBL_MAX is fine then, and frequencies stay in (0, 1].
  const r = pv.ropeFrequencies(8, { base: Number.MAX_VALUE, scaling: { type: 'ntk', factor: 1e-3 }, dtype: 'float64' });
  assert.ok(Array.from(r.invFreq).every((w) => w > 0 && w <= 1), String(r.invFreq));
  assert.deepEqual(Array.from(pv.ropeFrequencies(8, { dtype: 'float64' }).invFreq), [1, 0.1, 0.01, 0.001]);
  noLeaks();
});

test('a yarn or longrope factor implied by maxPosition / originalMaxPosition outside 10^-3 .. 10^6 is refused by name, before memory grows (eighth pass)', () => {
  // The core refused it as "a value is NaN or infinite" (status 7), naming nothing, after the output was allocated.
  const ones = Array(4).fill(1);
  const implied = (type, maxPosition, originalMaxPosition) => ({ scaling: type === 'yarn' ? { type, maxPosition, originalMaxPosition }
    : { type, maxPosition, originalMaxPosition, shortFactor: ones, longFactor: ones } });
  const named = (fn, got) => new RegExp(`^RangeError: posenc\\.${fn}: scaling\\.maxPosition / scaling\\.originalMaxPosition, the factor it implies, must be from 0\\.001 to 1000000 \\(got ${got}\\)$`);
  for (const [type, maxPosition, orig, got] of [['yarn', 2 ** 31, 1, '2147483648'], ['yarn', 1, 1001, String(1 / 1001)], ['longrope', 2, 2001, String(2 / 2001)], ['longrope', 2 ** 31, 2, '1073741824']]) {
    const options = implied(type, maxPosition, orig);
    assert.throws(() => pv.ropeFrequencies(8, options), named('ropeFrequencies', got));
    assert.throws(() => pv.ropeCache(2, 8, options), named('ropeCache', got));
    assert.throws(() => pv.ropeApply(m(1, 8, new Array(8).fill(1)), options), named('ropeApply', got));
    assert.throws(() => pv.rope({ dim: 8, maxLen: 2, ...options }), named('rope', got));
  }
  // at the bounds, accepted; a given factor is what counts then
  for (const [type, maxPosition, orig] of [['yarn', 1e6, 1], ['yarn', 1, 1000], ['longrope', 2e6, 2], ['longrope', 2, 2000]]) {
    assert.equal(pv.ropeFrequencies(8, implied(type, maxPosition, orig)).invFreq.length, 4);
    assert.equal(pv.ropeFrequencies(8, { scaling: { ...implied(type, 2 ** 31, 2).scaling, factor: 2 } }).invFreq.length, 4);
  }
  // a model's config names its own keys
  const config = { head_dim: 8, max_position_embeddings: 2 ** 31 - 1, rope_scaling: { rope_type: 'longrope', original_max_position_embeddings: 2, short_factor: ones, long_factor: ones } };
  assert.throws(() => pv.ropeFromConfig(config), /^RangeError: posenc\.ropeFromConfig: config rope_parameters\.max_position_embeddings \/ config rope_parameters\.original_max_position_embeddings, the factor it implies, must be from 0\.001 to 1000000 \(got 1073741823\.5\)$/);
  noLeaks();
});

test('a float16 RoPE cache whose attention factor passes 65504 is refused before the work; YaRN\'s ratio of two mscales is a factor every cache takes (eighth pass)', () => {
  // A cos of 1 times the factor is in the row of position 0. mropeCache refused it only after the work
  // (64 MiB kept), ropeCache after forming its first block.
  const yarn = (attentionFactor) => ({ type: 'yarn', factor: 2, originalMaxPosition: 4096, attentionFactor });
  const positions = { shape: [3, 2], data: [0, 1, 0, 1, 0, 1] };
  for (const [af, ok] of [[65504, true], [65519, true], [65520, false], [1e5, false]]) {
    const calls = [() => pv.ropeCache(2, 8, { dtype: 'float16', scaling: yarn(af) }), () => pv.mropeCache(positions, 8, { section: [2, 1, 1], dtype: 'float16', scaling: yarn(af) })];
    for (const call of calls) {
      if (ok) assert.equal(call().cos.data[0], 0x7bff, `${af}`); // 65504
      else assert.throws(call, new RegExp(`^RangeError: posenc\\.(ropeCache|mropeCache): a result \\(${af}\\) overflows float16; use dtype 'float64' \\(status 7\\)$`));
    }
  }
  assert.equal(pv.ropeCache(2, 8, { dtype: 'bfloat16', scaling: yarn(1e6) }).cos.data.length, 16);
  // DeepSeek's mscale / mscale_all_dim, from 7e-7 to 1.4e6: mropeCache's core took only 10^-3 .. 10^6 and refused
  // the rest after allocating the output; it takes what ropeCache and ropeFrequencies take now.
  for (const [mscale, mscaleAllDim] of [[1e6, 1e-3], [1e-3, 1e6]]) {
    const scaling = { type: 'yarn', factor: 1e6, originalMaxPosition: 4096, mscale, mscaleAllDim };
    const { attentionFactor } = pv.ropeFrequencies(8, { scaling });
    assert.ok(attentionFactor > 1e6 || attentionFactor < 1e-3, String(attentionFactor));
    const c = pv.mropeCache(positions, 8, { section: [2, 1, 1], scaling, dtype: 'float64' });
    assert.equal(c.attentionFactor, attentionFactor);
    assert.equal(c.cos.data[0], attentionFactor);
    assert.equal(pv.ropeCache(1, 8, { scaling, dtype: 'float64' }).cos.data[0], attentionFactor);
  }
  noLeaks();
});

const near = (got, want, rel, label) =>
  assert.ok(Math.abs(got - want) <= rel * Math.abs(want), `${label}: got ${got}, want ${want}`);

test('norms of rows whose squares underflow or overflow', () => {
  for (const s of [1e-200, 1e-300, 5e-324 * 2 ** 20, 1e200, 1e300]) {
    const [n] = pe.norms(m(1, 2, [s, s]), { dtype: 'float64' });
    near(n, Math.SQRT2 * s, 4e-16, `norm of [${s}, ${s}]`);
    const [n3] = pe.norms(m(1, 2, [3 * s, 4 * s]), { dtype: 'float64' });
    near(n3, 5 * s, 4e-16, `norm of [3 ${s}, 4 ${s}]`);
  }
  assert.deepEqual(Array.from(pe.norms(m(2, 1, [0, -0]))), [0, 0]);
  assert.throws(() => pe.norms(m(1, 2, [Number.MAX_VALUE, Number.MAX_VALUE]), { dtype: 'float64' }), overflowed('norms'));
  noLeaks();
});

test('the cosine Gram of tiny or huge rows is their cosine, not 0 or an overflow', () => {
  const base = [1, 2, 3, -1, 0.5, 4];
  const want = pe.gram(m(2, 3, base), { cosine: true, dtype: 'float64' }).data;
  for (const s of [1e-200, 1e-300, 1e200, 1e300]) {
    for (const Type of [Array, Float64Array]) {
      const got = pe.gram(m(2, 3, Type.from(base, (x) => x * s)), { cosine: true, dtype: 'float64' }).data;
      for (let i = 0; i < 4; i++) near(got[i], want[i], 1e-15, `cosine at scale ${s} [${i}]`);
    }
  }
  for (const s of [1e200, 1e-200]) {
    const got = pe.gram(m(2, 2, [s, s, s, s]), { cosine: true, dtype: 'float64' }).data;
    assert.deepEqual(Array.from(got, (x) => Math.abs(x - 1) <= 2e-16), [true, true, true, true], String(got));
  }
  // float32 input whose magnitudes leave the float32 kernel's range
  for (const s of [1e-30, 1e30]) {
    const got = pe.gram(m(2, 3, Float32Array.from(base, (x) => x * s)), { cosine: true, dtype: 'float64' }).data;
    for (let i = 0; i < 4; i++) near(got[i], want[i], 1e-6, `float32 cosine at scale ${s} [${i}]`);
  }
  // one tiny row next to a normal one: each is scaled on its own
  const mixed = pe.gram(m(2, 3, [...base.slice(0, 3).map((x) => x * 1e-250), ...base.slice(3)]), { cosine: true, dtype: 'float64' }).data;
  for (let i = 0; i < 4; i++) near(mixed[i], want[i], 1e-15, `mixed cosine [${i}]`);
  noLeaks();
});

test('alibiBias: a finite maskValue past a 16-bit type\'s range is refused by name, before the work (seventh pass)', () => {
  // It was refused only as "a result (-1000000) overflows float16", after the whole bias had been computed.
  for (const [dtype, bad, good] of [['float16', -65520, -65504], ['bfloat16', -1e39, -3.38e38], ['float32', -1e39, -FLT_MAX]]) {
    assert.throws(() => pv.alibiBias(2, 3, { maskValue: bad, dtype }), new RegExp(`^RangeError: posenc\\.alibiBias: maskValue must be -Infinity or within ±[\\d.e]+ for ${dtype}`));
    assert.equal(pv.alibiBias(2, 3, { maskValue: good, dtype }).data.length, 18);
  }
  assert.equal(pv.alibiBias(2, 3, { maskValue: -1e300, dtype: 'float64' }).data[1], -1e300);
});

test('alibiBias: a float16 bias past 65519 is refused by its arguments, before the work, exactly where the result would overflow', () => {
  // The largest |bias| is the largest slope × the longest unmasked distance: refused from the distance at
  // which that product (as the core forms it) reaches 65520, which float16 rounds to Infinity.
  const refused = /^RangeError: posenc\.alibiBias: queryOffset, qLen and kLen must keep \|bias\| = slope × distance below 65520 for float16: .* \(got queryOffset -?\d+, qLen \d+, kLen \d+\)$/;
  const largest = (data) => data.reduce((m, x) => (Number.isFinite(x) ? Math.max(m, Math.abs(x)) : m), 0);
  for (const [heads, variant, maxBias, mode] of [[16, 'press', 8, 'causal'], [12, 'press', 8, 'symmetric'], [6, 'mpt', 8, 'causal'], [3, 'mpt', 0.5, 'symmetric'], [1, 'press', 1e-3, 'causal']]) {
    const slope = pv.alibiSlopes(heads, { variant, maxBias, dtype: 'float64' }).reduce((a, b) => Math.max(a, b));
    let d = Math.ceil(65520 / slope) + 2; // the least distance whose bias reaches 65520
    while (slope * (d - 1) >= 65520) d--;
    const options = (far, dtype) => ({ variant, maxBias, mode, dtype, queryOffset: far - 1 }); // 2 queries: far = queryOffset + 1
    const label = `${heads} heads, ${variant}, maxBias ${maxBias}, ${mode}, distance ${d}`;
    assert.ok(largest(pv.alibiBias(heads, 2, options(d, 'float64')).data) >= 65520, label);
    assert.throws(() => pv.alibiBias(heads, 2, options(d, 'float16')), refused, label);
    assert.ok(largest(pv.alibiBias(heads, 2, options(d - 1, 'float64')).data) < 65520, label);
    const half = pv.alibiBias(heads, 2, options(d - 1, 'float16')).data; // the largest rounds to 65504
    assert.ok(Array.from(half).every((b) => b !== 0x7c00 && b !== 0xfc00), label);
    // in symmetric mode the keys past the queries count too: the same distance, from kLen
    if (mode === 'symmetric') assert.throws(() => pv.alibiBias(heads, 1, { variant, maxBias, mode, kLen: d + 1, dtype: 'float16' }), refused, label);
  }
  // Slopes are at most 1 and distances below 2^32: bfloat16 and float32 hold every bias.
  for (const dtype of ['bfloat16', 'float32']) assert.equal(pv.alibiBias(16, 2, { queryOffset: 2 ** 31 - 3, dtype }).data.length, 64);
  noLeaks();
});

test('tableGram: a float16 Gram whose diagonal overflows is refused by dModel, before the work', () => {
  // Row i's squared norm, dModel / 2 (sin² + cos² of each pair) and at most 1 more for an odd width's lone
  // sine, is the largest magnitude of its row and column (|G_ij| <= sqrt(G_ii G_jj)); float16 rounds 65520 to
  // Infinity. 131039 is refused too: its diagonal is 65519 + sin² of the lone sine, which reaches 65520 where
  // that sine is ±1, at positions the arguments do not decide.
  assert.equal(pe.tableGram(2, 131040, { dtype: 'float64' }).data[0], 65520);
  const w = pe.frequencies(131039, { dtype: 'float64' });
  assert.ok(pe.tableGram(1, 131039, { offset: Math.PI / 2 / w[w.length - 1], dtype: 'float64' }).data[0] >= 65520);
  for (const dModel of [131039, 131040, 2 ** 18]) {
    assert.throws(() => pe.tableGram(2, dModel, { dtype: 'float16' }),
      new RegExp(`^RangeError: posenc\\.tableGram: dModel of a float16 Gram \\(its diagonal is dModel / 2\\) must be an integer from 1 to 131038 \\(got ${dModel}\\)$`));
  }
  assert.equal(pe.tableGram(2, 131038, { dtype: 'float16' }).data[0], 0x7bff); // 65519 rounds to 65504
  assert.equal(pe.tableGram(2, 131040, { dtype: 'float16', cosine: true }).data[0], 0x3c00); // 1
  assert.equal(pe.tableGram(2, 131040, { dtype: 'bfloat16' }).data[0], 0x4780); // 65536
  noLeaks();
});

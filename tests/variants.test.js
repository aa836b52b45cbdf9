// The variants (RoPE, ALiBi, T5 / Shaw, learned table, binary, precision)
// against tests/golden/golden_variants.json, which tests/golden/gen_variants.py
// computes independently of the C core (70-digit decimal, exact fractions),
// plus property tests that need no golden values at all.
// Run: node --test tests/variants.test.js
//
// Tolerances (golden values are the exact values rounded once to double):
//   frequencies, slopes ................ 1e-13 relative (pow in double: a few ulps)
//   cos/sin caches, rotated vectors .... 1e-12 + 16·ε·|position|·scale absolute: the
//       angle position·θ is itself a double, so a few ulps of it are inherent
//   ALiBi biases ....................... 1e-13 relative + 1e-300
//   integer outputs (buckets, permutations, bits) exact
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadVariants } from './helpers/load.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const generator = path.join(here, 'golden', 'gen_variants.py');
const golden = JSON.parse(readFileSync(path.join(here, 'golden', 'golden_variants.json'), 'utf8'));
const pe = await loadVariants();

const EPS = 2 ** -52;

// ---- helpers ----------------------------------------------------------------------

function assertClose(label, values, expected, tol) {
  assert.equal(values.length, expected.length, `${label}: length`);
  const bad = [];
  for (let i = 0; i < expected.length; i++) {
    const err = Math.abs(values[i] - expected[i]);
    const t = tol(i, expected[i]);
    if (!(err <= t) && !(values[i] === expected[i])) bad.push({ i, got: values[i], want: expected[i], err, t });
  }
  if (bad.length) {
    bad.sort((a, b) => b.err / b.t - a.err / a.t);
    const lines = bad.slice(0, 5).map((b) => `  [${b.i}] got ${b.got} want ${b.want} |err| ${b.err} > ${b.t}`);
    assert.fail(`${label}: ${bad.length} of ${expected.length} values out of tolerance\n${lines.join('\n')}`);
  }
}

const relTol = (r, floor = 1e-300) => (_, want) => r * Math.abs(want) + floor;

function assertMatrix(label, m, rows, tol) {
  assert.equal(m.rows, rows.length, `${label}: rows`);
  assert.equal(m.cols, rows[0].length, `${label}: cols`);
  assertClose(label, m.data, rows.flat(), (i, want) => tol(Math.floor(i / m.cols), i % m.cols, want));
}

/** Small deterministic pseudo-random numbers in [-1, 1). */
function rng(seed) {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 31 - 1;
  };
}
const randomMatrix = (rows, cols, seed) => {
  const r = rng(seed);
  return { rows, cols, data: Float64Array.from({ length: rows * cols }, r) };
};

const row = (m, r) => m.data.subarray(r * m.cols, (r + 1) * m.cols);
const dotJs = (a, b) => a.reduce((s, x, i) => s + x * b[i], 0);

function assertThrowsNaming(fn, Type, name, label) {
  assert.throws(fn, (e) => {
    assert.ok(e instanceof Type, `${label}: expected ${Type.name}, got ${e?.constructor?.name}: ${e?.message}`);
    assert.match(e.message, new RegExp(name.replace(/[.[\]()]/g, '\\$&')), `${label}: message names ${name}`);
    return true;
  }, label);
}

// ---- the golden file itself ---------------------------------------------------------

test('golden_variants.json is exactly what gen_variants.py writes (--check)', () => {
  const r = spawnSync('python3', [generator, '--check'], { encoding: 'utf8', timeout: 300_000 });
  if (r.error?.code === 'ENOENT') assert.fail('python3 is required to prove golden_variants.json is the generator\'s output');
  if (r.error) throw r.error;
  assert.equal(r.status, 0, r.stderr || r.stdout);
});

// ---- RoPE ---------------------------------------------------------------------------

test('RoPE frequencies and attention factors match the golden values (every scaling)', () => {
  for (const c of golden.rope.frequencies) {
    const got = pe.ropeFrequencies(c.dim, { ...c.options, dtype: 'float64' });
    assert.ok(got.invFreq instanceof Float64Array);
    assertClose(`ropeFrequencies ${c.name}`, got.invFreq, c.invFreq, relTol(1e-13));
    assertClose(`attentionFactor ${c.name}`, [got.attentionFactor], [c.attentionFactor], relTol(1e-14));
  }
});

test('RoPE cos/sin caches match the golden values in each layout', () => {
  for (const c of golden.rope.cache) {
    const got = pe.ropeCache(c.maxLen, c.dim, c.options);
    const off = c.options.offset ?? 0;
    const tol = (r) => 1e-12 + 16 * EPS * Math.abs(off + r) * c.attentionFactor;
    assertMatrix(`ropeCache cos ${c.name}`, got.cos, c.cos, tol);
    assertMatrix(`ropeCache sin ${c.name}`, got.sin, c.sin, tol);
    assert.equal(got.layout, c.options.layout);
    assertClose(`ropeCache attentionFactor ${c.name}`, [got.attentionFactor], [c.attentionFactor], relTol(1e-14));
  }
});

test('RoPE cache: float32 by default, the float64 values rounded', () => {
  const f32 = pe.ropeCache(50, 16);
  const f64 = pe.ropeCache(50, 16, { dtype: 'float64' });
  assert.ok(f32.cos.data instanceof Float32Array && f64.cos.data instanceof Float64Array);
  f64.cos.data.forEach((v, i) => assert.equal(f32.cos.data[i], Math.fround(v)));
});

test('RoPE applied to q/k matches the golden values (both pairings, heads, scalings)', () => {
  for (const c of golden.rope.apply) {
    const x = { rows: c.x.length, cols: c.x[0].length, data: Float64Array.from(c.x.flat()) };
    const got = pe.ropeApply(x, { ...c.options, dtype: 'float64' });
    const pos = (r) => (c.options.positions ? c.options.positions[r] : (c.options.offset ?? 0) + r);
    assertMatrix(`ropeApply ${c.name}`, got, c.out, (r) => 1e-12 + 64 * EPS * Math.abs(pos(r)) * 2);
  }
});

test('dynamic NTK: seq_len is the largest position + 1 (or seqLen), floored at maxPosition', () => {
  const dyn = (seqLen) => ({ type: 'dynamic', factor: 4, maxPosition: 16, ...(seqLen ? { seqLen } : {}) });
  const plain = pe.ropeFrequencies(8, { dtype: 'float64' }).invFreq;
  // Up to maxPosition HF's effective factor is 1: the default frequencies.
  assert.deepEqual(pe.ropeFrequencies(8, { dtype: 'float64', scaling: dyn() }).invFreq, plain);
  assert.deepEqual(pe.ropeFrequencies(8, { dtype: 'float64', scaling: dyn(16) }).invFreq, plain);
  const x = randomMatrix(3, 8, 5);
  const rotate = (opts) => pe.ropeApply(x, { dtype: 'float64', ...opts }).data;
  // Positions 0..2 (seq_len 3 <= 16): as unscaled; positions up to 39: as seqLen 40.
  assert.deepEqual(rotate({ scaling: dyn() }), rotate({}));
  assert.deepEqual(rotate({ positions: [0, 39, 7], scaling: dyn() }), rotate({ positions: [0, 39, 7], scaling: dyn(40) }));
  assert.notDeepEqual(rotate({ positions: [0, 39, 7], scaling: dyn() }), rotate({ positions: [0, 39, 7] }));
  assert.deepEqual(rotate({ offset: 37, scaling: dyn() }), rotate({ offset: 37, scaling: dyn(40) }));
  const cache = (opts) => pe.ropeCache(4, 8, { dtype: 'float64', offset: 36, ...opts }).cos.data;
  assert.deepEqual(cache({ scaling: dyn() }), cache({ scaling: dyn(40) }));
});

test('longrope: the long factors once seq_len passes originalMaxPosition, in every entry', () => {
  const lr = { type: 'longrope', originalMaxPosition: 8, factor: 4, shortFactor: [1, 2], longFactor: [3, 5] };
  const theta = (seqLen) => pe.ropeFrequencies(4, { dtype: 'float64', scaling: { ...lr, seqLen } }).invFreq;
  assert.deepEqual(Array.from(theta(8)), [1, 0.01 / 2]);
  assert.deepEqual(Array.from(theta(9)), [1 / 3, 0.01 / 5]);
  const x = randomMatrix(2, 4, 3);
  const rotate = (opts) => pe.ropeApply(x, { dtype: 'float64', scaling: lr, ...opts }).data;
  assert.deepEqual(rotate({ positions: [7, 0] }), rotate({ positions: [7, 0], scaling: { ...lr, seqLen: 8 } }));
  assert.deepEqual(rotate({ positions: [8, 0] }), rotate({ positions: [8, 0], scaling: { ...lr, seqLen: 9 } }));
  assert.notDeepEqual(rotate({ positions: [8, 0] }), rotate({ positions: [7, 0] }).map((v, i) => (i < 4 ? v : v)));
  // The attention factor: sqrt(1 + ln 4 / ln 8) = sqrt(5/3), whichever set.
  const { attentionFactor } = pe.ropeCache(2, 4, { scaling: lr, offset: 20 });
  assert.ok(Math.abs(attentionFactor - Math.sqrt(5 / 3)) <= 1e-15);
});

test('ropeApply writes into `out` (float32 or float64) and returns it; nested arrays are accepted', () => {
  const x = randomMatrix(3, 8, 11);
  const nested = Array.from({ length: 3 }, (_, r) => Array.from(row(x, r)));
  const want32 = pe.ropeApply(x, { offset: 2 });
  const out32 = new Float32Array(24).fill(NaN);
  const got32 = pe.ropeApply(nested, { offset: 2, out: out32 });
  assert.equal(got32.data, out32);
  assert.deepEqual(got32.shape, [3, 8]);
  assert.deepEqual(out32, want32.data);
  const out64 = new Float64Array(24);
  assert.equal(pe.ropeApply(x, { dtype: 'float64', out: out64 }).data, out64);
  assert.deepEqual(out64, pe.ropeApply(x, { dtype: 'float64' }).data);
  // [H, S, D] nested, with rotaryDim
  const heads = [nested, nested];
  const h = pe.ropeApply(heads, { rotaryDim: 4, dtype: 'float64' });
  assert.deepEqual(h.shape, [2, 3, 8]);
  assert.deepEqual(h.data.subarray(24), pe.ropeApply(x, { rotaryDim: 4, dtype: 'float64' }).data);
  // ropePermute takes nested weights too.
  assert.deepEqual(pe.ropePermute(nested.slice(0, 2), { axis: 'cols', dtype: 'float64' }).data,
    pe.ropePermute({ rows: 2, cols: 8, data: x.data.subarray(0, 16) }, { axis: 'cols', dtype: 'float64' }).data);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('RoPE permutation is Hugging Face\'s LLaMA conversion permute (and its inverse)', () => {
  for (const c of golden.rope.permutation) {
    assert.deepEqual(Array.from(pe.ropePermutation(c.headDim, { heads: c.heads })), c.forward);
    assert.deepEqual(Array.from(pe.ropePermutation(c.headDim, { heads: c.heads, inverse: true })), c.inverse);
  }
});

test('property: q_m · k_n depends only on m − n (both pairings, with and without scaling)', () => {
  const d = 16;
  const q = randomMatrix(1, d, 1);
  const k = randomMatrix(1, d, 2);
  for (const pairing of ['interleaved', 'half']) {
    for (const scaling of [undefined, 'llama3', { type: 'yarn', factor: 4, originalMaxPosition: 64 }, { type: 'ntk', factor: 2 }]) {
      const at = (x, p) => pe.ropeApply(x, { dtype: 'float64', pairing, positions: [p], scaling }).data;
      for (const delta of [0, 1, 5, -3, 100]) {
        const ref = dotJs(at(q, delta), at(k, 0));
        for (const n of [1, 17, 1000, 123456]) {
          const got = dotJs(at(q, n + delta), at(k, n));
          const tol = 1e-12 + 64 * EPS * (n + Math.abs(delta)) * 4;
          assert.ok(Math.abs(got - ref) <= tol,
            `${pairing} ${JSON.stringify(scaling)} m-n=${delta} n=${n}: ${got} vs ${ref}`);
        }
      }
    }
  }
});

test('property: interleaved and half agree after the permutation (vectors and converted weights)', () => {
  const headDim = 8;
  const x = randomMatrix(5, 3 * headDim, 3);
  const opts = { positions: [0, 1, 2, 50, 4095] };
  const perm = (m, inverse = false) => pe.ropePermute(m, { dtype: 'float64', axis: 'cols', headDim, inverse });
  const viaInterleaved = perm(pe.ropeApply(x, { dtype: 'float64', ...opts, pairing: 'interleaved', headDim }));
  const viaHalf = pe.ropeApply(perm(x), { ...opts, pairing: 'half', headDim, dtype: 'float64' });
  assertClose('apply_half(P x) = P apply_interleaved(x)', viaHalf.data, viaInterleaved.data, () => 1e-13);
  // And back: the inverse permutation undoes it.
  assertClose('inverse permutation', perm(perm(x), true).data, x.data, () => 0);
  // Weights: Meta's W (rows = heads x headDim outputs) used with interleaved RoPE equals
  // HF's permuted W used with rotate_half, up to the same permutation of q.
  const w = randomMatrix(2 * headDim, 6, 4);
  const e = randomMatrix(4, 6, 5);
  const project = (wm) => {
    const out = new Float64Array(e.rows * wm.rows);
    for (let i = 0; i < e.rows; i++) for (let j = 0; j < wm.rows; j++) out[i * wm.rows + j] = dotJs(row(e, i), row(wm, j));
    return { rows: e.rows, cols: wm.rows, data: out };
  };
  const meta = perm(pe.ropeApply(project(w), { pairing: 'interleaved', headDim, dtype: 'float64' }));
  const hf = pe.ropeApply(project(pe.ropePermute(w, { dtype: 'float64', axis: 'rows', headDim })), { pairing: 'half', headDim, dtype: 'float64' });
  assertClose('converted weights', hf.data, meta.data, () => 1e-13);
});

test('property: the cache is cos/sin of position × ropeFrequencies, scaled by the attention factor', () => {
  const scaling = { type: 'yarn', factor: 8, originalMaxPosition: 128 };
  const { invFreq, attentionFactor } = pe.ropeFrequencies(16, { dtype: 'float64', scaling });
  assert.ok(Math.abs(attentionFactor - (0.1 * Math.log(8) + 1)) < 1e-15);
  for (const layout of ['pairs', 'half', 'interleaved']) {
    const c = pe.ropeCache(20, 16, { scaling, layout, dtype: 'float64' });
    for (let p = 0; p < 20; p++) {
      for (let col = 0; col < c.cos.cols; col++) {
        const i = layout === 'pairs' ? col : layout === 'half' ? col % 8 : col >> 1;
        assert.ok(Math.abs(c.cos.data[p * c.cos.cols + col] - Math.cos(p * invFreq[i]) * attentionFactor) < 1e-14);
        assert.ok(Math.abs(c.sin.data[p * c.sin.cols + col] - Math.sin(p * invFreq[i]) * attentionFactor) < 1e-14);
      }
    }
  }
});

test('property: scalings behave as documented (linear divides, llama3 keeps high and divides low frequencies)', () => {
  const base = pe.ropeFrequencies(128, { dtype: 'float64', base: 500000 }).invFreq;
  const linear = pe.ropeFrequencies(128, { dtype: 'float64', base: 500000, scaling: { type: 'linear', factor: 4 } }).invFreq;
  linear.forEach((v, i) => assert.ok(Math.abs(v - base[i] / 4) <= 1e-16 * base[i]));
  const l3 = pe.ropeFrequencies(128, { dtype: 'float64', base: 500000, scaling: 'llama3' }).invFreq;
  let kept = 0; let divided = 0; let smoothed = 0;
  base.forEach((t, i) => {
    const wavelen = 2 * Math.PI / t;
    if (wavelen < 8192 / 4) { assert.equal(l3[i], t); kept++; }
    else if (wavelen > 8192) { assert.ok(Math.abs(l3[i] - t / 8) <= 1e-16 * t); divided++; }
    else { assert.ok(l3[i] < t && l3[i] > t / 8); smoothed++; }
  });
  assert.ok(kept > 0 && divided > 0 && smoothed > 0, `${kept} ${divided} ${smoothed}`);
  const ntk = pe.ropeFrequencies(64, { dtype: 'float64', scaling: { type: 'ntk', factor: 8 } }).invFreq;
  const expectBase = 10000 * 8 ** (64 / 62);
  ntk.forEach((v, i) => assert.ok(Math.abs(v - expectBase ** (-2 * i / 64)) <= 1e-13 * v));
});

// ---- ALiBi -------------------------------------------------------------------------

test('ALiBi slopes match the golden values (Press rule, its extension, MPT)', () => {
  for (const c of golden.alibi.slopes) {
    const got = pe.alibiSlopes(c.heads, { ...c.options, dtype: 'float64' });
    assert.ok(got instanceof Float64Array);
    assertClose(`alibiSlopes ${c.heads} ${JSON.stringify(c.options)}`, got, c.slopes, relTol(1e-13));
  }
});

test('ALiBi bias matrices match the golden values (causal with masks, symmetric, offsets)', () => {
  for (const c of golden.alibi.bias) {
    const got = pe.alibiBias(c.heads, c.qLen, c.options);
    const k = c.options.kLen ?? c.qLen;
    assert.equal(got.heads, c.heads);
    assert.equal(got.rows, c.qLen);
    assert.equal(got.cols, k);
    assert.equal(got.data.length, c.heads * c.qLen * k);
    const mask = c.options.maskValue ?? -Infinity;
    const want = c.bias.flat(2).map((v) => (v === null ? mask : v));
    assertClose(`alibiBias ${c.name}`, got.data, want, relTol(1e-13));
    assert.ok(got.data.every((v) => !Object.is(v, -0)), 'no negative zeros on the diagonal');
  }
});

test('property: MPT slopes equal Press slopes at alibi_bias_max 8 for every head count', () => {
  for (let n = 1; n <= 80; n++) {
    assert.deepEqual(pe.alibiSlopes(n, { dtype: 'float64', variant: 'mpt' }), pe.alibiSlopes(n, { dtype: 'float64' }), `n = ${n}`);
  }
  // Powers of two: a geometric sequence starting at and with ratio 2^(-8/n).
  for (const n of [2, 4, 8, 16, 32]) {
    const s = pe.alibiSlopes(n, { dtype: 'float64' });
    s.forEach((v, h) => assert.ok(Math.abs(v - 2 ** (-8 * (h + 1) / n)) <= 4 * EPS * v));
  }
});

test('property: ALiBi bias is -slope·|i − j| and float32 by default', () => {
  const b = pe.alibiBias(4, 6, { mode: 'symmetric' });
  assert.ok(b.data instanceof Float32Array);
  for (let h = 0; h < 4; h++) {
    for (let i = 0; i < 6; i++) {
      for (let j = 0; j < 6; j++) {
        assert.equal(b.data[(h * 6 + i) * 6 + j], Math.fround(i === j ? 0 : -b.slopes[h] * Math.abs(i - j)));
      }
    }
  }
});

// ---- T5 buckets and Shaw clipping -----------------------------------------------------

test('T5 buckets match the golden values (bidirectional or not, float32 and float64 log)', () => {
  for (const c of golden.t5.buckets) {
    const got = pe.t5Bucket(c.relative, c.options);
    assert.ok(got instanceof Int32Array);
    assert.deepEqual(Array.from(got), c.buckets, JSON.stringify(c.options));
  }
});

test('T5 buckets at the exact boundaries where float32 (PyTorch) and float64 disagree', () => {
  let seen = 0;
  for (const c of golden.t5.float32VsFloat64) {
    if (c.relative.length === 0) {
      // The default 32 buckets / 128: both evaluations agree on every distance.
      const rel = Array.from({ length: 513 }, (_, i) => i - 256);
      assert.deepEqual(pe.t5Bucket(rel, { ...c.options, precision: 'float32' }), pe.t5Bucket(rel, { ...c.options, precision: 'float64' }));
      continue;
    }
    seen += c.relative.length;
    assert.deepEqual(Array.from(pe.t5Bucket(c.relative, { ...c.options, precision: 'float32' })), c.float32, JSON.stringify(c.options));
    assert.deepEqual(Array.from(pe.t5Bucket(c.relative, { ...c.options, precision: 'float64' })), c.float64, JSON.stringify(c.options));
    c.float32.forEach((b, i) => assert.notEqual(b, c.float64[i]));
  }
  assert.ok(seen >= 10, `boundary cases tested: ${seen}`);
});

test('T5 bucket matrices (relative = memory − query, with query offsets) match the golden values', () => {
  for (const c of golden.t5.matrix) {
    const got = pe.t5BucketMatrix(c.qLen, c.options);
    assert.equal(got.rows, c.qLen);
    assert.equal(got.cols, c.options.kLen);
    assert.deepEqual(Array.from(got.data), c.buckets.flat());
  }
});

test('property: T5 buckets are monotone in distance, in range, and the past and future use separate halves', () => {
  const rel = Array.from({ length: 2001 }, (_, i) => i - 1000);
  const b = pe.t5Bucket(rel);
  for (let i = 0; i < rel.length; i++) {
    assert.ok(b[i] >= 0 && b[i] < 32);
    if (rel[i] > 0) assert.ok(b[i] >= 16); else assert.ok(b[i] < 16);
    if (i > 0 && rel[i] > 1) assert.ok(b[i] >= b[i - 1]);
    if (rel[i] < 0 && i > 0) assert.ok(b[i] <= b[i - 1]);
  }
  const uni = pe.t5Bucket(rel, { bidirectional: false });
  rel.forEach((r, i) => { if (r >= 0) assert.equal(uni[i], 0); });
});

test('Shaw clipping matches the golden values', () => {
  for (const c of golden.shaw.matrix) {
    const got = pe.shawClip(c.qLen, c.options);
    assert.ok(got.data instanceof Int32Array);
    assert.equal(got.cols, c.options.kLen);
    assert.deepEqual(Array.from(got.data), c.matrix.flat());
  }
});

// ---- learned table ----------------------------------------------------------------------

test('learned table matches the golden splitmix64 values (normal and uniform)', () => {
  for (const c of golden.learned.table) {
    const got = pe.learnedTable(c.trainedLen, c.dModel, c.options);
    const scale = c.options.scale ?? 0.02;
    assertMatrix(`learnedTable ${JSON.stringify(c.options)}`, got, c.table, () => 1e-14 * scale);
  }
});

test('learned table: rows exist only below the trained length', () => {
  const t = pe.learnedTable(10, 4, { seed: 3 });
  const rows = pe.learnedRows([9, 0, 5], 10, 4, { seed: 3 });
  assert.deepEqual(Array.from(rows.data), [...row(t, 9), ...row(t, 0), ...row(t, 5)]);
  // A longer table agrees on the shared rows: rows do not depend on the trained length.
  const longer = pe.learnedTable(12, 4, { seed: 3 });
  assert.deepEqual(longer.data.subarray(0, 40), t.data);
  for (const p of [10, 11, 1000]) {
    assert.throws(() => pe.learnedRows([0, p], 10, 4), (e) => e instanceof RangeError
      && /positions\[1\]/.test(e.message) && /no row exists past the trained length/.test(e.message));
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('property: the learned table has the asked distribution (mean 0, scale)', () => {
  const n = pe.learnedTable(200, 100, { seed: 11, scale: 2, dtype: 'float64' }).data;
  const mean = n.reduce((a, b) => a + b, 0) / n.length;
  const sd = Math.sqrt(n.reduce((a, b) => a + (b - mean) ** 2, 0) / n.length);
  assert.ok(Math.abs(mean) < 0.05 && Math.abs(sd - 2) < 0.05, `${mean} ${sd}`);
  const u = pe.learnedTable(200, 100, { seed: 11, distribution: 'uniform', scale: 3, dtype: 'float64' }).data;
  assert.ok(u.every((v) => v >= -3 && v < 3));
  assert.notDeepEqual(pe.learnedTable(2, 2, { seed: 1 }).data, pe.learnedTable(2, 2, { seed: 2 }).data);
});

// ---- binary ---------------------------------------------------------------------------

test('binary encoding matches the golden values (0/1 and ±1, offsets)', () => {
  for (const c of golden.binary.table) {
    const got = pe.binaryTable(c.maxLen, c.bits, c.options);
    assertMatrix(`binaryTable ${JSON.stringify(c.options)}`, got, c.table, () => 0);
  }
});

test('property: bit b of the binary encoding flips every 2^b positions, like a sinusoid of period 2^(b+1)', () => {
  const t = pe.binaryTable(64, 6);
  for (let b = 0; b < 6; b++) {
    for (let p = 1; p < 64; p++) {
      const flipped = t.data[p * 6 + b] !== t.data[(p - 1) * 6 + b];
      assert.equal(flipped, p % 2 ** b === 0, `bit ${b} at ${p}`);
    }
  }
});

// ---- precision ------------------------------------------------------------------------

test('float32 / float16 / bfloat16 rounding and bit patterns match the golden values', () => {
  for (const c of golden.precision.formats) {
    const bits = pe.formatBits(c.values, c.format);
    assert.ok(bits instanceof Uint32Array);
    assert.deepEqual(Array.from(bits), c.bits, c.format);
    const rounded = pe.roundTo(c.values, c.format);
    c.rounded.forEach((want, i) => {
      const expect = want === null ? Math.sign(c.values[i]) * Infinity : want;
      assert.ok(Object.is(rounded[i], expect) || (rounded[i] === 0 && expect === 0), `${c.format} ${c.values[i]}: ${rounded[i]} vs ${expect}`);
    });
  }
});

test('rounding: known bit patterns, NaN, infinities, and float32 equal to Math.fround', () => {
  const f16 = (x) => pe.formatBits([x], 'float16')[0];
  const bf16 = (x) => pe.formatBits([x], 'bfloat16')[0];
  assert.equal(f16(1), 0x3c00);
  assert.equal(f16(-2), 0xc000);
  assert.equal(f16(65504), 0x7bff);
  assert.equal(f16(65520), 0x7c00); // the tie above the largest float16 rounds to infinity
  assert.equal(f16(2 ** -24), 0x0001);
  assert.equal(f16(2 ** -25), 0x0000); // tie, to even (zero)
  assert.equal(f16(1 / 3), 0x3555);
  assert.equal(f16(NaN), 0x7e00);
  assert.equal(f16(-Infinity), 0xfc00);
  assert.equal(bf16(1), 0x3f80);
  assert.equal(bf16(Math.PI), 0x4049);
  assert.equal(bf16(NaN), 0x7fc0);
  assert.equal(bf16(3.4e38), 0x7f80); // beyond bfloat16's largest, 3.3895e38
  assert.equal(pe.formatBits([1], 'float32')[0], 0x3f800000);
  const r = rng(77);
  const xs = Float64Array.from({ length: 5000 }, () => r() * 10 ** Math.floor(r() * 80 - 40));
  const f32 = pe.roundTo(xs, 'float32');
  xs.forEach((x, i) => assert.ok(Object.is(f32[i], Math.fround(x)), `${x}`));
  const bitsJs = new Uint32Array(Float32Array.from(xs).buffer);
  assert.deepEqual(pe.formatBits(xs, 'float32'), bitsJs);
  assert.deepEqual(pe.roundTo(xs, 'float64'), xs);
});

test('precision error curves match the golden values (angle, result, both)', () => {
  for (const c of golden.precision.error) {
    const got = pe.precisionError(c.dModel, c.options);
    const want = c.error.map((v) => (v === null ? Infinity : v));
    assertClose(`precisionError ${JSON.stringify(c.options.format)} ${c.options.mode}`, got, want, () => 1e-10);
  }
});

test('property: precision errors grow with position for the angle and stay bounded for the result', () => {
  const positions = [10, 100, 1000, 10000, 60000];
  const angle = pe.precisionError(64, { positions, format: 'float32' });
  for (let i = 1; i < angle.length; i++) assert.ok(angle[i] > angle[i - 1]);
  const result = pe.precisionError(64, { positions, format: 'bfloat16', mode: 'result' });
  result.forEach((e) => assert.ok(e > 0 && e <= 2 ** -9));
  assert.deepEqual(pe.precisionError(64, { positions, format: 'float64', mode: 'both' }), new Float64Array(5));
  const all = pe.precisionError(8, { format: 'float16', count: 65536 });
  assert.equal(all.length, 65536);
  assert.equal(all[65535], Infinity); // 65535 rounds to infinity in float16
  assert.ok(Number.isFinite(all[65519]));
});

// ---- bad input and leaks (extended by each section) ---------------------------------

const x4 = { rows: 2, cols: 4, data: new Float64Array(8) };
const BAD_CALLS = [
  // [label, call, error type, text the message must contain]
  ['ropeFrequencies odd dim', () => pe.ropeFrequencies(7), RangeError, 'dim'],
  ['ropeFrequencies dim 0', () => pe.ropeFrequencies(0), RangeError, 'dim'],
  ['ropeFrequencies string dim', () => pe.ropeFrequencies('8'), TypeError, 'dim'],
  ['ropeFrequencies base 1', () => pe.ropeFrequencies(8, { base: 1 }), RangeError, 'base'],
  ['ropeFrequencies unknown scaling', () => pe.ropeFrequencies(8, { scaling: 'xpos' }), RangeError, 'scaling.type'],
  ['ropeFrequencies scaling number', () => pe.ropeFrequencies(8, { scaling: 4 }), TypeError, 'scaling'],
  ['ropeFrequencies linear without factor', () => pe.ropeFrequencies(8, { scaling: 'linear' }), TypeError, 'scaling.factor'],
  ['ropeFrequencies yarn without originalMaxPosition', () => pe.ropeFrequencies(8, { scaling: { type: 'yarn', factor: 2 } }), TypeError, 'scaling.originalMaxPosition'],
  ['ropeFrequencies negative factor', () => pe.ropeFrequencies(8, { scaling: { type: 'linear', factor: -1 } }), RangeError, 'scaling.factor'],
  // issue 22 point 8: a typed array or a throwing getter as `scaling` is refused by the name scaling
  ['ropeFrequencies scaling as a Float32Array', () => pe.ropeFrequencies(8, { scaling: new Float32Array(2) }), TypeError, 'scaling must be an object'],
  ['ropeFrequencies scaling whose getter throws', () => pe.ropeFrequencies(8, { scaling: { get type() { throw new Error('boom'); } } }), TypeError, 'could not read scaling.type'],
  ['ropeFrequencies unknown scaling key', () => pe.ropeFrequencies(8, { scaling: { type: 'linear', factor: 2, beta: 1 } }), TypeError, 'beta'],
  ['ropeFrequencies ntk dim 2', () => pe.ropeFrequencies(2, { scaling: { type: 'ntk', factor: 2 } }), RangeError, 'NTK'],
  ['ropeFrequencies unknown option', () => pe.ropeFrequencies(8, { theta: 1 }), TypeError, 'theta'],
  ['dynamic without maxPosition', () => pe.ropeFrequencies(8, { scaling: { type: 'dynamic', factor: 2 } }), TypeError, 'scaling.maxPosition is required'],
  ['dynamic maxPosition 0', () => pe.ropeFrequencies(8, { scaling: { type: 'dynamic', factor: 2, maxPosition: 0 } }), RangeError, 'scaling.maxPosition must be a finite number from 1 to 2147483648'],
  ['dynamic seqLen -1', () => pe.ropeFrequencies(8, { scaling: { type: 'dynamic', factor: 2, maxPosition: 8, seqLen: -1 } }), RangeError, 'scaling.seqLen (0: as not given) must be a finite number from 1'],
  ['dynamic dim 2', () => pe.ropeFrequencies(2, { scaling: { type: 'dynamic', factor: 2, maxPosition: 8 } }), RangeError, 'needs dim >= 4'],
  ['dynamic with mscale', () => pe.ropeFrequencies(8, { scaling: { type: 'dynamic', factor: 2, maxPosition: 8, mscale: 1 } }), TypeError, 'unknown option "mscale"'],
  ['yarn mscale -1', () => pe.ropeFrequencies(8, { scaling: { type: 'yarn', factor: 2, originalMaxPosition: 8, mscale: -1 } }), RangeError, 'scaling.mscale (0: as not given) must be a finite number from 0.001 to 1000000'],
  ['yarn mscaleAllDim NaN', () => pe.ropeFrequencies(8, { scaling: { type: 'yarn', factor: 2, originalMaxPosition: 8, mscaleAllDim: NaN } }), RangeError, 'scaling.mscaleAllDim'],
  ['yarn mscale string', () => pe.ropeFrequencies(8, { scaling: { type: 'yarn', factor: 2, originalMaxPosition: 8, mscale: '1' } }), TypeError, 'scaling.mscale (0: as not given) must be a number'],
  ['longrope without shortFactor', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, factor: 2, longFactor: [1, 1, 1, 1] } }), TypeError, 'scaling.shortFactor is required'],
  ['longrope shortFactor of 3', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, factor: 2, shortFactor: [1, 1, 1], longFactor: [1, 1, 1, 1] } }), RangeError, 'scaling.shortFactor must have 4 elements'],
  ['longrope longFactor[1] 0', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, factor: 2, shortFactor: [1, 1, 1, 1], longFactor: [1, 0, 1, 1] } }), RangeError, 'scaling.longFactor[1] must be a finite number from 0.001 to 1000000'],
  ['longrope longFactor not an array', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, factor: 2, shortFactor: [1, 1, 1, 1], longFactor: 2 } }), TypeError, 'scaling.longFactor'],
  ['longrope without factor or maxPosition', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, shortFactor: [1, 1, 1, 1], longFactor: [1, 1, 1, 1] } }), TypeError, 'scaling.factor or scaling.maxPosition'],
  ['longrope originalMaxPosition 1', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 1, factor: 2, shortFactor: [1, 1, 1, 1], longFactor: [1, 1, 1, 1] } }), RangeError, 'scaling.originalMaxPosition must be a finite number from 2'],
  ['longrope attentionFactor 1e7', () => pe.ropeFrequencies(8, { scaling: { type: 'longrope', originalMaxPosition: 8, factor: 2, attentionFactor: 1e7, shortFactor: [1, 1, 1, 1], longFactor: [1, 1, 1, 1] } }), RangeError, 'scaling.attentionFactor'],
  ['ropeApply out of the wrong type', () => pe.ropeApply(x4, { out: new Float64Array(8) }), TypeError, 'out must be a Float32Array of 8 elements'],
  ['ropeApply out too short', () => pe.ropeApply(x4, { out: new Float32Array(7) }), TypeError, 'out must be a Float32Array of 8 elements'],
  ['ropeApply out float64 of the wrong length', () => pe.ropeApply(x4, { dtype: 'float64', out: new Float64Array(9) }), TypeError, 'out must be a Float64Array of 8 elements'],
  ['ropeApply ragged nested x', () => pe.ropeApply([[1, 2], [3]]), RangeError, 'x is ragged'],
  ['ropePermute nested of rank 3', () => pe.ropePermute([[[1, 2]]]), TypeError, 'weights must have 2 dimensions'],
  ['ropeCache maxLen 0', () => pe.ropeCache(0, 8), RangeError, 'maxLen'],
  ['ropeCache bad layout', () => pe.ropeCache(4, 8, { layout: 'full' }), RangeError, 'layout'],
  ['ropeCache bad dtype', () => pe.ropeCache(4, 8, { dtype: 'float8' }), RangeError, 'dtype'],
  ['ropeCache offset NaN', () => pe.ropeCache(4, 8, { offset: NaN }), RangeError, 'offset'],
  ['ropeCache too big', () => pe.ropeCache(2 ** 24, 2 ** 10), RangeError, 'MiB'],
  ['ropeApply not a matrix', () => pe.ropeApply([1, 2]), TypeError, 'x'],
  ['ropeApply NaN in x', () => pe.ropeApply({ rows: 1, cols: 2, data: [NaN, 1] }), RangeError, 'x.data[0]'],
  ['ropeApply headDim not dividing', () => pe.ropeApply(x4, { headDim: 6 }), RangeError, 'headDim'],
  ['ropeApply odd cols', () => pe.ropeApply({ rows: 1, cols: 3, data: [1, 2, 3] }), RangeError, 'headDim'],
  ['ropeApply bad pairing', () => pe.ropeApply(x4, { pairing: 'complex' }), RangeError, 'pairing'],
  ['ropeApply positions wrong length', () => pe.ropeApply(x4, { positions: [1] }), RangeError, 'positions'],
  ['ropeApply positions and offset', () => pe.ropeApply(x4, { positions: [1, 2], offset: 3 }), TypeError, 'offset'],
  ['ropeApply position too far', () => pe.ropeApply(x4, { positions: [0, 2 ** 40] }), RangeError, 'positions[1]'],
  ['ropePermutation odd', () => pe.ropePermutation(5), RangeError, 'headDim'],
  ['ropePermutation heads 0', () => pe.ropePermutation(4, { heads: 0 }), RangeError, 'heads'],
  ['ropePermutation inverse not boolean', () => pe.ropePermutation(4, { inverse: 1 }), TypeError, 'inverse'],
  ['ropePermute rows not multiple', () => pe.ropePermute({ rows: 3, cols: 2, data: [1, 2, 3, 4, 5, 6] }, { headDim: 2 }), RangeError, 'weights.rows'],
  ['ropePermute bad axis', () => pe.ropePermute(x4, { axis: 2 }), TypeError, 'axis'],
  ['alibiSlopes 0 heads', () => pe.alibiSlopes(0), RangeError, 'heads'],
  ['alibiSlopes 2.5 heads', () => pe.alibiSlopes(2.5), RangeError, 'heads'],
  ['alibiSlopes bad variant', () => pe.alibiSlopes(4, { variant: 'bloom' }), RangeError, 'variant'],
  ['alibiSlopes maxBias 0', () => pe.alibiSlopes(4, { maxBias: 0 }), RangeError, 'maxBias'],
  ['alibiBias bad mode', () => pe.alibiBias(2, 3, { mode: 'both' }), RangeError, 'mode'],
  ['alibiBias NaN mask', () => pe.alibiBias(2, 3, { maskValue: NaN }), RangeError, 'maskValue'],
  ['alibiBias mask string', () => pe.alibiBias(2, 3, { maskValue: '-inf' }), TypeError, 'maskValue'],
  ['alibiBias kLen 0', () => pe.alibiBias(2, 3, { kLen: 0 }), RangeError, 'kLen'],
  ['alibiBias queryOffset fraction', () => pe.alibiBias(2, 3, { queryOffset: 0.5 }), RangeError, 'queryOffset'],
  ['alibiBias too big', () => pe.alibiBias(64, 4096, { kLen: 4096 }), RangeError, 'MiB'],
  ['t5Bucket not an array', () => pe.t5Bucket(5), TypeError, 'relativePositions'],
  ['t5Bucket fraction', () => pe.t5Bucket([1.5]), RangeError, 'relativePositions[0]'],
  ['t5Bucket too few buckets', () => pe.t5Bucket([1], { numBuckets: 3 }), RangeError, 'numBuckets'],
  ['t5Bucket maxDistance too small', () => pe.t5Bucket([1], { maxDistance: 8 }), RangeError, 'maxDistance'],
  ['t5Bucket bidirectional string', () => pe.t5Bucket([1], { bidirectional: 'yes' }), TypeError, 'bidirectional'],
  ['t5Bucket bad precision', () => pe.t5Bucket([1], { precision: 'float16' }), RangeError, 'precision'],
  ['t5BucketMatrix qLen 0', () => pe.t5BucketMatrix(0), RangeError, 'qLen'],
  ['t5BucketMatrix offset overflow', () => pe.t5BucketMatrix(2, { queryOffset: 2 ** 31 }), RangeError, 'queryOffset'],
  ['shawClip negative k', () => pe.shawClip(3, { maxRelativePosition: -1 }), RangeError, 'maxRelativePosition'],
  ['shawClip shift number', () => pe.shawClip(3, { shift: 1 }), TypeError, 'shift'],
  ['learnedTable trainedLen 0', () => pe.learnedTable(0, 4), RangeError, 'trainedLen'],
  ['learnedTable negative seed', () => pe.learnedTable(2, 4, { seed: -1 }), RangeError, 'seed'],
  ['learnedTable bad distribution', () => pe.learnedTable(2, 4, { distribution: 'gauss' }), RangeError, 'distribution'],
  ['learnedTable negative scale', () => pe.learnedTable(2, 4, { scale: -1 }), RangeError, 'scale'],
  ['learnedRows past trained length', () => pe.learnedRows([4], 4, 2), RangeError, 'positions[0]'],
  ['learnedRows negative', () => pe.learnedRows([-1], 4, 2), RangeError, 'positions[0]'],
  ['learnedRows not array', () => pe.learnedRows(3, 4, 2), TypeError, 'positions'],
  ['binaryTable bits 65', () => pe.binaryTable(4, 65), RangeError, 'bits'],
  ['binaryTable negative offset', () => pe.binaryTable(4, 3, { offset: -1 }), RangeError, 'offset'],
  ['binaryTable signed string', () => pe.binaryTable(4, 3, { signed: 'no' }), TypeError, 'signed'],
  ['roundTo bad format', () => pe.roundTo([1], 'float8'), RangeError, 'format'],
  ['roundTo string value', () => pe.roundTo(['1'], 'float16'), TypeError, 'values[0]'],
  ['formatBits float64', () => pe.formatBits([1], 'float64'), RangeError, 'format'],
  ['precisionError bad mode', () => pe.precisionError(8, { mode: 'sum' }), RangeError, 'mode'],
  ['precisionError bad format', () => pe.precisionError(8, { format: 'half' }), RangeError, 'format'],
  ['precisionError positions and count', () => pe.precisionError(8, { positions: [1], count: 3 }), TypeError, 'count'],
  ['precisionError NaN position', () => pe.precisionError(8, { positions: [NaN] }), RangeError, 'positions[0]'],
  ['precisionError bad preset', () => pe.precisionError(8, { preset: 'bert' }), RangeError, 'preset'],
];

test('bad input: every variant function throws a TypeError / RangeError naming the parameter', () => {
  for (const [label, fn, Type, name] of BAD_CALLS) assertThrowsNaming(fn, Type, name, label);
});

test('no leaks: every variant function frees what it allocated, also after errors', () => {
  for (const [, fn] of BAD_CALLS) {
    try { fn(); } catch { /* expected */ }
  }
  pe.ropeFrequencies(64, { dtype: 'float64', scaling: 'llama3' });
  pe.ropeCache(64, 32, { scaling: { type: 'yarn', factor: 4, originalMaxPosition: 32 } });
  pe.ropeApply(randomMatrix(3, 16, 9), { headDim: 8, positions: [1, 2, 3] });
  pe.ropePermutation(8, { heads: 4 });
  pe.ropePermute(randomMatrix(16, 3, 9), { headDim: 8 });
  pe.alibiSlopes(12, { dtype: 'float64' });
  pe.alibiBias(3, 5, { mode: 'symmetric' });
  pe.t5Bucket([-5, 0, 300]);
  pe.t5BucketMatrix(4, { kLen: 7 });
  pe.shawClip(4, { shift: true });
  pe.learnedTable(3, 4);
  pe.learnedRows([0, 2], 3, 4);
  pe.binaryTable(5, 3, { signed: true });
  pe.roundTo([1, NaN], 'bfloat16');
  pe.formatBits([1, 2], 'float16');
  pe.precisionError(16, { positions: [1, 2, 3], mode: 'both' });
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('twenty-eighth pass: a refusal names the range the code allows (numBuckets from 4, or 2 one-way; an even width from 2), whose ends it takes', () => {
  const refuse = (f, message) => assert.throws(f, { name: 'RangeError', message });
  refuse(() => pe.t5Bucket([1], { numBuckets: 0 }), /numBuckets must be an integer from 4 to 65536 \(got 0\)/);
  refuse(() => pe.t5Bucket([1], { numBuckets: 3 }), /numBuckets must be an integer from 4 to 65536 \(got 3\)/);
  refuse(() => pe.t5BucketMatrix(2, { numBuckets: 1, bidirectional: false }), /numBuckets must be an integer from 2 to 65536 \(got 1\)/);
  assert.deepEqual(Array.from(pe.t5Bucket([-1, 0, 1, 9], { numBuckets: 4, maxDistance: 2 })), [1, 0, 3, 3]);
  assert.deepEqual(Array.from(pe.t5Bucket([-1, 0, 1, -9], { numBuckets: 2, bidirectional: false, maxDistance: 2 })), [1, 0, 0, 1]);
  for (const [f, name] of [[(v) => pe.ropeFrequencies(v), 'dim'], [(v) => pe.ropeApply([[1, 0, 1, 0]], { rotaryDim: v }), 'rotaryDim'],
    [(v) => pe.ropeApply([[1, 0]], { headDim: v }), 'headDim'], [(v) => pe.ropePermutation(v), 'headDim'], [(v) => pe.ropeAxialCache([[1]], { axesDim: [v] }), 'axesDim\\[0\\]']]) {
    refuse(() => f(0), new RegExp(`${name} must be an integer from 2 to \\d+ \\(got 0\\)`));
    refuse(() => f(1), new RegExp(`${name} must be an integer from 2 to \\d+ \\(got 1\\)`));
    f(2);
  }
});

test('twenty-eighth pass: an attention factor of 0 is refused by its range (it was taken as absent and derived, silently: HF uses 0, and calls it invalid)', () => {
  const yarn = { type: 'yarn', factor: 2, originalMaxPosition: 64 };
  const longrope = { type: 'longrope', originalMaxPosition: 64, maxPosition: 128, shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2] };
  const cfg = (extra) => ({ rope_theta: 1e4, head_dim: 8, max_position_embeddings: 128, rope_scaling: { rope_type: 'yarn', factor: 2, original_max_position_embeddings: 64, ...extra } });
  for (const scaling of [yarn, longrope]) {
    assert.throws(() => pe.ropeFrequencies(8, { scaling: { ...scaling, attentionFactor: 0 } }), { name: 'RangeError', message: /scaling\.attentionFactor must be a finite number from 0\.001 to 1000000 \(got 0\)/ });
    assert.throws(() => pe.ropeCache(2, 8, { scaling: { ...scaling, attentionFactor: -0 } }), /scaling\.attentionFactor must be a finite number from 0\.001/);
    assert.equal(pe.ropeFrequencies(8, { scaling: { ...scaling, attentionFactor: 0.5 } }).attentionFactor, 0.5);
    assert.ok(pe.ropeFrequencies(8, { scaling }).attentionFactor > 1); // absent: derived, as HF's None
  }
  assert.throws(() => pe.ropeFromConfig(cfg({ attention_factor: 0 })), /config rope_parameters\.attention_factor must be a finite number from 0\.001 to 1000000 \(got 0\)/);
  // mscale and mscale_all_dim of 0 stay absent, as HF's `if mscale and mscale_all_dim` reads them
  assert.equal(pe.ropeFromConfig(cfg({ mscale: 0, mscale_all_dim: 0 })).attentionFactor, pe.ropeFromConfig(cfg({})).attentionFactor);
  assert.equal(pe.ropeFrequencies(8, { scaling: { ...yarn, mscale: 0, mscaleAllDim: 0 } }).attentionFactor, 1 + 0.1 * Math.log(2));
});

test("twenty-ninth pass: ropeApply's headDim taken from x's last dimension (none given) is refused as x's, ropePermute's as the weights'", () => {
  // x of 3 columns and no headDim was "headDim must be even (RoPE rotates pairs) (got 3)", an option the caller had not
  // given (the family of the twenty-eighth pass's "(the preset's)"); with section or axesDim too
  const refuse = (f, message) => assert.throws(f, { name: 'RangeError', message });
  refuse(() => pe.ropeApply([[1, 0, 1]]), "posenc.ropeApply: headDim (x's last dimension) must be even (RoPE rotates pairs) (got 3)");
  refuse(() => pe.ropeApply([[1]]), "posenc.ropeApply: headDim (x's last dimension) must be an integer from 2 to 16777216 (got 1)");
  refuse(() => pe.ropeApply([[1, 0, 1]], { positions: [[0], [0]], axesDim: [2, 2] }), /^posenc\.ropeApply: headDim \(x's last dimension\) must be even/);
  refuse(() => pe.ropeApply([[1, 0, 1, 0, 1, 0]], { headDim: 3 }), 'posenc.ropeApply: headDim must be even (RoPE rotates pairs) (got 3)');
  // ropePermute's headDim taken from the weights' rows (or cols) alike
  refuse(() => pe.ropePermute([[1, 2], [3, 4], [5, 6]]), 'posenc.ropePermute: headDim (weights.rows) must be even (RoPE rotates pairs) (got 3)');
  refuse(() => pe.ropePermute([[1, 2, 3]], { axis: 'cols' }), 'posenc.ropePermute: headDim (weights.cols) must be even (RoPE rotates pairs) (got 3)');
  refuse(() => pe.ropePermute([[1], [2], [3], [4], [5], [6]], { headDim: 4 }), 'posenc.ropePermute: weights.rows must be a multiple of headDim (4) (got 6)');
  assert.deepEqual(pe.ropePermute([[1], [2]]).shape, [2, 1]);
  // rope()'s headDim taken from a config's head_dim, narrower than the dim asked: named as the config's
  const config = { hidden_size: 32, num_attention_heads: 4, head_dim: 8, max_position_embeddings: 64, rope_theta: 10000 };
  // (its range from dim, where "from 2" was said for -1 and "at least dim (16)" for 2: thirtieth pass)
  refuse(() => pe.rope({ config, dim: 16, maxLen: 4 }), "posenc.rope: the config's head_dim must be an integer from 16 to 16777216 (got 8)");
  refuse(() => pe.rope({ config, dim: 16, headDim: 8, maxLen: 4 }), 'posenc.rope: headDim must be an integer from 16 to 16777216 (got 8)');
  refuse(() => pe.rope({ dim: 16, headDim: -1, maxLen: 4 }), 'posenc.rope: headDim must be an integer from 16 to 16777216 (got -1)');
  assert.ok(pe.rope({ dim: 16, headDim: 16, maxLen: 4 }).free() === undefined);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('t5BucketMatrix takes every queryOffset that keeps each relative position within ±(2^31 − 1), and refuses one past (one short at each end before)', () => {
  const qLen = 4, kLen = 6;
  for (const [queryOffset, ok] of [[2 ** 31 - qLen, true], [2 ** 31 - qLen + 1, false], [-(2 ** 31) + kLen, true], [-(2 ** 31) + kLen - 1, false]]) {
    const call = () => pe.t5BucketMatrix(qLen, { kLen, queryOffset, numBuckets: 32, maxDistance: 128 });
    if (!ok) {
      assert.throws(call, { name: 'RangeError', message: `posenc.t5BucketMatrix: queryOffset must be an integer from ${-(2 ** 31) + kLen} to ${2 ** 31 - qLen} (got ${queryOffset})` });
      continue;
    }
    // each bucket that of its relative position j − (i + queryOffset), every one within ±(2^31 − 1)
    const relatives = [];
    for (let i = 0; i < qLen; i++) for (let j = 0; j < kLen; j++) relatives.push(j - (i + queryOffset));
    assert.ok(relatives.every((r) => Math.abs(r) <= 2 ** 31 - 1) && relatives.some((r) => Math.abs(r) === 2 ** 31 - 1));
    assert.deepEqual(Array.from(call().data), Array.from(pe.t5Bucket(relatives, { numBuckets: 32, maxDistance: 128 })));
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

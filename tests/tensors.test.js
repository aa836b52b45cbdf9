// Tensor-shaped use, as a JS ML demo has it: float32 by default, `shape` on
// every result, inputs as { data, shape }, { rows, cols, data }, nested arrays
// or another library's tensor (duck-typed), `out` arrays, table rows for any
// position ids, and attention with heads, grouped-query heads, masks and
// biases against the independent values of tests/golden/gen.py.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { loadApi, loadVariants } from './helpers/load.js';

const pe = await loadApi();
const pv = await loadVariants();
const golden = JSON.parse(readFileSync(new URL('./golden/golden.json', import.meta.url), 'utf8'));

const shapeOf = (t) => (Array.isArray(t) ? [t.length, ...shapeOf(t[0])] : []);
const flat = (t) => (Array.isArray(t) ? t.flatMap(flat) : [t]);

/** The same tensor in every accepted form: nested arrays, { data, shape }, TensorFlow.js-like, ONNX-like. */
function forms(nested, Type = Float64Array) {
  const shape = shapeOf(nested);
  const data = Type.from(flat(nested));
  return {
    nested,
    dataShape: { data, shape },
    tfjs: { shape, dtype: 'float32', dataSync: () => data, data: async () => data },
    onnx: { dims: shape, type: 'float32', data },
  };
}

function assertClose(label, got, want, tol) {
  assert.equal(got.length, want.length, `${label}: length`);
  for (let i = 0; i < want.length; i++) {
    if (!(Math.abs(got[i] - want[i]) <= tol)) assert.fail(`${label}[${i}]: got ${got[i]}, want ${want[i]} (tol ${tol})`);
  }
}

// ---- attention with heads ----------------------------------------------------------------

for (const c of golden.attentionHeads) {
  const bias = c.options.bias && (Array.isArray(c.options.bias[0]) ? c.options.bias : c.options.bias);
  const withInf = (t) => (Array.isArray(t) ? t.map(withInf) : t === null ? -Infinity : t);
  const options = { ...c.options, ...(bias ? { bias: withInf(bias) } : {}) };
  const vmax = Math.max(...flat(c.v).map(Math.abs));
  for (const form of ['nested', 'dataShape', 'tfjs', 'onnx']) {
    test(`attention ${c.name} [${form}, float64]`, () => {
      const [q, k, v] = [c.q, c.k, c.v].map((t) => forms(t)[form]);
      const r = pe.attention(q, k, v, { ...options, dtype: 'float64' });
      const lead = shapeOf(c.q).slice(0, -1);
      assert.deepEqual(r.weights.shape, [...lead, shapeOf(c.k).at(-2)]);
      assert.deepEqual(r.output.shape, [...lead, shapeOf(c.v).at(-1)]);
      assert.ok(r.output.data instanceof Float64Array);
      assertClose('weights', r.weights.data, flat(c.weights), 1e-15);
      assertClose('output', r.output.data, flat(c.output), 1e-14 * vmax);
    });
  }
  test(`attention ${c.name} [Float32Array inputs, float32 by default]`, () => {
    const [q, k, v] = [c.q, c.k, c.v].map((t) => forms(t, Float32Array).dataShape);
    const r = pe.attention(q, k, v, options);
    assert.ok(r.weights.data instanceof Float32Array && r.output.data instanceof Float32Array);
    assertClose('weights', r.weights.data, flat(c.weights), 1e-6);
    assertClose('output', r.output.data, flat(c.output), 1e-6 * vmax);
  });
}

// weights: false returns the output alone: the float32 kernel (c/flash.c) when
// it can take the call (float32, no mask or bias, dv a multiple of 8), the
// float64 kernel without its n x m weights otherwise; the same tolerances.
for (const c of golden.attentionHeads) {
  const withInf = (t) => (Array.isArray(t) ? t.map(withInf) : t === null ? -Infinity : t);
  const options = { ...c.options, ...(c.options.bias ? { bias: withInf(c.options.bias) } : {}), weights: false };
  const vmax = Math.max(...flat(c.v).map(Math.abs));
  for (const [dtype, Type, tol] of [['float32', Float32Array, 1e-6], ['float64', Float64Array, 1e-14]]) {
    test(`attention ${c.name} [weights: false, ${dtype}]`, () => {
      const [q, k, v] = [c.q, c.k, c.v].map((t) => forms(t, Type).dataShape);
      const r = pe.attention(q, k, v, { ...options, dtype });
      assert.deepEqual(Object.keys(r), ['output']);
      assert.ok(r.output.data instanceof Type);
      assert.deepEqual(r.output.shape, [...shapeOf(c.q).slice(0, -1), shapeOf(c.v).at(-1)]);
      assertClose('output', r.output.data, flat(c.output), tol * vmax);
    });
  }
}

test('attention, weights: false: refusals of the float32 kernel end as the float64 call would', () => {
  const q = { data: Float32Array.from({ length: 16 }, (_, i) => i / 16), shape: [2, 8] };
  const v = { data: Float32Array.from({ length: 16 }, (_, i) => i), shape: [2, 8] };
  // a non-finite input is named, as when the weights are wanted
  const bad = { data: Float32Array.from(q.data), shape: [2, 8] };
  bad.data[11] = NaN;
  for (const weights of [true, false]) {
    assert.throws(() => pe.attention(q, bad, v, { weights }), (e) => e instanceof RangeError && /^posenc\.attention: k\.data\[11\] must be a finite number/.test(e.message));
  }
  // scores past float32's range (1e20 * 1e20): float64 computes them, the output is a float32 again
  const big = { data: Float64Array.from({ length: 16 }, (_, i) => (i === 0 ? 1e20 : 0)), shape: [2, 8] };
  const a = pe.attention(big, big, v, { weights: false }).output.data;
  const b = pe.attention(big, big, v).output.data;
  assert.ok(a instanceof Float32Array);
  assert.deepEqual(Array.from(a), Array.from(b));
  // row 0 puts all its weight on key 0 (score 1e40 / sqrt(8)), row 1 (all zeros) half on each
  assert.deepEqual(Array.from(a), [0, 1, 2, 3, 4, 5, 6, 7, 4, 5, 6, 7, 8, 9, 10, 11]);
  // finite scores, but a sum of weighted values past float32's range (two keys of weight 1, each value 3e38): the
  // kernel's last division finds the infinity and float64 computes the mean, 3e38 again
  const huge = { data: new Float32Array(16).fill(3e38), shape: [2, 8] };
  assert.deepEqual(Array.from(pe.attention(q, q, huge, { weights: false }).output.data), Array.from(pe.attention(q, q, huge).output.data));
  assert.ok(pe.attention(q, q, huge, { weights: false }).output.data.every((y) => Math.abs(y / Math.fround(3e38) - 1) < 1e-6));
  // the option itself
  assert.throws(() => pe.attention(q, q, v, { weights: 'no' }), (e) => e instanceof TypeError && /weights/.test(e.message));
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('attention, weights: false: float32 results agree with the float64 kernel on every path', () => {
  // dv 8 takes the float32 kernel, dv 6 the float64 one; a mask also goes to float64
  for (const dv of [8, 6]) {
    const t = (rows, cols, seed) => ({ data: Float32Array.from({ length: 3 * rows * cols }, (_, i) => Math.sin(seed + i)), shape: [3, rows, cols] });
    const [q, k, v] = [t(70, 5, 1), t(90, 5, 2), t(90, dv, 3)];
    for (const extra of [{}, { mask: [1, 0, 1].concat(Array(87).fill(1)) }]) {
      const ref = pe.attention(q, k, v, { causal: true, dtype: 'float64', ...extra }).output.data;
      const got = pe.attention(q, k, v, { causal: true, weights: false, ...extra }).output.data;
      assertClose(`dv ${dv} ${Object.keys(extra)}`, got, ref, 1e-6);
    }
  }
});

test('attention, weights: false: the float32 kernel\'s e^x across its range, to the cut at -87, with the max first or last', () => {
  // One query, 128 keys scoring x_j = -0.7371 j (scale 1), v the identity: output j is weight j itself, e^x_j / sum,
  // checked against Math.exp at every j. The float32 kernel takes e^x for x from 0 to below -87 (every remainder r of
  // x = n ln2 + r, and the rounding of n), and no key below -87 in a block whose max comes first; with the max in the
  // last block, the first block's weights are rescaled by e^(old max - max) instead, and may underflow below 2^-126.
  const m = 128, step = 0.7371;
  const v = { data: Float32Array.from({ length: m * m }, (_, i) => (i % (m + 1) === 0 ? 1 : 0)), shape: [1, 1, m, m] };
  const q = { data: Float32Array.from({ length: 8 }, (_, i) => (i === 0 ? 1 : 0)), shape: [1, 1, 1, 8] };
  for (const maxFirst of [true, false]) {
    const x = Array.from({ length: m }, (_, j) => Math.fround(-step * (maxFirst ? j : m - 1 - j)));
    const k = { data: Float32Array.from({ length: m * 8 }, (_, i) => (i % 8 === 0 ? x[i / 8] : 0)), shape: [1, 1, m, 8] };
    const got = pe.attention(q, k, v, { scale: 1, weights: false }).output.data;
    const sum = x.reduce((s, xj) => s + Math.exp(xj), 0);
    let worst = 0;
    for (let j = 0; j < m; j++) {
      const want = Math.exp(x[j]) / sum;
      if (maxFirst && x[j] <= -87) assert.equal(got[j], 0, `key ${j} (x ${x[j]}) is below the cut`);
      else {
        const slack = maxFirst ? 2 ** -149 : 2 ** -126;
        assert.ok(Math.abs(got[j] - want) <= 3e-7 * want + slack, `key ${j}, x ${x[j]}: ${got[j]} against ${want}`);
        if (want > 2 ** -126) worst = Math.max(worst, Math.abs(got[j] - want) / want);
      }
    }
    assert.ok(worst > 0 && worst < 3e-7, `relative error ${worst}`);
  }
});

test('attention: a mask as a Uint8Array tensor or 0/1 numbers gives the same as booleans; empty rows are zeros', () => {
  const c = golden.attentionHeads.find((x) => x.name.startsWith('boolean mask'));
  const m = c.options.mask;
  const as01 = m.map((row) => row.map(Number));
  const variants = [m, as01, { data: Uint8Array.from(flat(as01)), shape: [3, 3] }, { dims: [1, 3, 3], data: Uint8Array.from(flat(as01)) }];
  const results = variants.map((mask) => pe.attention(c.q, c.k, c.v, { mask, dtype: 'float64' }));
  for (const r of results) assert.deepEqual(Array.from(r.output.data), Array.from(results[0].output.data));
  assert.ok(results[0].output.data.every(Number.isFinite));
  assert.deepEqual(Array.from(results[0].weights.data.subarray(3, 6)), [0, 0, 0]);
});

test('attention: grouped-query head h uses kv head floor(h / (H / Hkv)), as repeating the kv heads does', () => {
  const c = golden.attentionHeads.find((x) => x.name.includes('grouped-query'));
  const repeat = (t) => t.map((batch) => batch.flatMap((head) => [head, head]));
  const grouped = pe.attention(c.q, c.k, c.v, { dtype: 'float64' });
  const full = pe.attention(c.q, repeat(c.k), repeat(c.v), { dtype: 'float64' });
  assert.deepEqual(Array.from(grouped.output.data), Array.from(full.output.data));
});

test('attention: bad shapes, masks and biases are refused by name, nothing leaks', () => {
  const q = [[[1, 0], [0, 1]], [[1, 1], [0, 0]], [[2, 0], [0, 2]]]; // [3, 2, 2]
  const kv = [[[1, 0], [0, 1]], [[1, 1], [0, 0]]]; // [2, 2, 2]: 2 does not divide 3
  const cases = [
    [() => pe.attention(q, kv, kv), RangeError, /k's heads must divide q's heads/],
    [() => pe.attention(q, q, q, { mask: [[1, 0, 1]] }), RangeError, /mask of shape \[1,3\] does not broadcast to \[1,3,2,2\]/],
    [() => pe.attention(q, q, q, { mask: [[1, 2], [1, 1]] }), TypeError, /mask\.data\[1\] must be true, false, 1 or 0/],
    [() => pe.attention(q, q, q, { bias: [[0, NaN], [0, 0]] }), TypeError, /bias\.data\[1\] must be a finite number or -Infinity/],
    [() => pe.attention(q, q, q, { bias: [0, Infinity] }), TypeError, /bias\.data\[1\]/],
    [() => pe.attention(q, [[1, 0], [0, 1]], q), TypeError, /k must have 3 dimensions/],
    [() => pe.attention({ data: [1, 2, 3], shape: [2, 2] }, q[0], q[0]), RangeError, /q\.data must have 4 elements/],
    // every shape is checked before any element is read (eighteenth pass): k's rank before q's data
    [() => pe.attention({ data: [1, 2, 3, NaN], shape: [2, 2] }, q, q), TypeError, /k must have 2 dimensions/],
    [() => pe.attention([[1, 2], [3]], q[0], q[0]), RangeError, /q is ragged/],
    [() => pe.attention({ shape: [2, 0], dataSync: () => [] }, q, q), RangeError, /q\.shape\[1\] must be an integer from 1/],
    [() => pe.attention('q', q, q), TypeError, /q must be a tensor/],
  ];
  for (const [call, Type, message] of cases) {
    assert.throws(call, (e) => e instanceof Type && message.test(e.message) && e.message.startsWith('posenc.attention: '), String(message));
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

// ---- duck-typed inputs, shapes, float32 by default, out --------------------------------------

test('gram, norms, ropeApply and ropePermute take every tensor form and agree', () => {
  const x = [[1, 2, 3, 4], [0.5, -1, 2, 0], [3, 0, -2, 1]];
  const base = pe.gram({ rows: 3, cols: 4, data: flat(x) }, { dtype: 'float64' });
  for (const [form, value] of Object.entries(forms(x))) {
    assert.deepEqual(Array.from(pe.gram(value, { dtype: 'float64' }).data), Array.from(base.data), form);
    assert.deepEqual(Array.from(pe.norms(value)), Array.from(pe.norms(x)), form);
    assert.deepEqual(Array.from(pv.ropeApply(value, { positions: [0, 5, 9] }).data), Array.from(pv.ropeApply(forms(x).dataShape, { positions: [0, 5, 9] }).data), form);
    assert.deepEqual(pv.ropePermute(value, { axis: 'cols' }).shape, [3, 4], form);
  }
  assert.deepEqual(base.shape, [3, 3]);
  assert.equal(base.rows, 3);
});

test('results carry shape; float32 unless dtype is float64', () => {
  assert.deepEqual(pe.table(5, 6).shape, [5, 6]);
  assert.deepEqual(pe.tableGram(5, 6).shape, [5, 5]);
  assert.deepEqual(pe.rotation(1, 4).shape, [4, 4]);
  assert.deepEqual(pv.ropeCache(7, 8).cos.shape, [7, 8]);
  assert.deepEqual(pv.alibiBias(4, 3, { kLen: 5 }).shape, [4, 3, 5]);
  assert.deepEqual(pv.shawClip(3, { kLen: 5 }).shape, [3, 5]);
  assert.deepEqual(pv.learnedTable(3, 4).shape, [3, 4]);
  for (const arr of [pe.frequencies(8), pe.norms([[3, 4]]), pv.alibiSlopes(4), pv.ropeFrequencies(8).invFreq,
    pv.alibiBias(2, 2).slopes, pv.ropeApply({ data: [1, 2], shape: [1, 2] }).data, pv.ropePermute({ rows: 1, cols: 2, data: [1, 2] }, { axis: 'cols' }).data]) {
    assert.ok(arr instanceof Float32Array, arr.constructor.name);
  }
  assert.ok(pe.frequencies(8, { dtype: 'float64' }) instanceof Float64Array);
  assert.ok(pv.alibiSlopes(4, { dtype: 'float64' }) instanceof Float64Array);
  assert.equal(pe.norms([[3, 4]])[0], 5);
});

test('ropeApply on [H, S, D] and [B, H, S, D] rotates every head block by the same positions', () => {
  const heads = [[[1, 2, 3, 4], [5, 6, 7, 8], [0, 1, 0, 1]], [[-1, 0, 2, 1], [1, 1, 1, 1], [2, -2, 0, 3]]];
  const opts = { positions: [3, 0, 11], dtype: 'float64' };
  const r3 = pv.ropeApply(forms(heads).tfjs, opts);
  assert.deepEqual(r3.shape, [2, 3, 4]);
  const each = heads.flatMap((h) => Array.from(pv.ropeApply(forms(h).onnx, opts).data));
  assert.deepEqual(Array.from(r3.data), each);
  const r4 = pv.ropeApply(forms([heads, heads]).dataShape, opts);
  assert.deepEqual(r4.shape, [2, 2, 3, 4]);
  assert.deepEqual(Array.from(r4.data), [...each, ...each]);
  assert.throws(() => pv.ropeApply(forms(heads).dataShape, { positions: [1, 2] }), /positions must have 3 elements/);
});

test('out: the result is written into the caller\'s array and returned; wrong type or length is refused', () => {
  const out = new Float32Array(5 * 6);
  const t = pe.table(5, 6, { out });
  assert.equal(t.data, out);
  assert.deepEqual(Array.from(out), Array.from(pe.table(5, 6).data));
  const g64 = new Float64Array(4);
  assert.equal(pe.gram([[1, 2], [3, 4]], { out: g64, dtype: 'float64' }).data, g64);
  assert.deepEqual(Array.from(g64), [5, 11, 11, 25]);
  const r = new Float32Array(16);
  assert.equal(pe.rotation(2, 4, { out: r }).data, r);
  const tg = new Float32Array(9);
  assert.equal(pe.tableGram(3, 8, { out: tg }).data, tg);
  assert.throws(() => pe.table(5, 6, { out: new Float64Array(30) }), { name: 'TypeError', message: /posenc\.table: out must be a Float32Array of 30 elements \(dtype float32\)/ });
  assert.throws(() => pe.table(5, 6, { out: new Float32Array(29) }), { name: 'TypeError', message: /out must be a Float32Array of 30 elements/ });
  assert.throws(() => pe.gram([[1]], { out: [0] }), { name: 'TypeError', message: /posenc\.gram: out must be/ });
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

test('attention out: the output written into the caller\'s array on every path, in place of q too; refusals leave it alone', () => {
  const t = (shape, seed) => ({ data: Float32Array.from({ length: shape.reduce((a, b) => a * b) }, (_, i) => Math.sin(seed + i)), shape });
  // one run of the float32 kernel (out written in place), several runs ([1, 8, 200, 64]: three kv heads a run, the last
  // run overlapping the one before, filled apart and copied at the end), the float64 kernel (dv 6), the weights, float64
  // and float16
  const cases = [
    [t([1, 4, 3, 16], 1), t([1, 2, 5, 16], 2), t([1, 2, 5, 16], 3), { weights: false }],
    [t([1, 8, 200, 64], 4), t([1, 8, 200, 64], 5), t([1, 8, 200, 64], 6), { weights: false, causal: true }],
    [t([2, 3, 4], 7), t([2, 5, 4], 8), t([2, 5, 6], 9), { weights: false }],
    [t([3, 8], 10), t([5, 8], 11), t([5, 8], 12), {}],
    [t([3, 8], 10), t([5, 8], 11), t([5, 8], 12), { dtype: 'float64' }],
    [t([3, 8], 10), t([5, 8], 11), t([5, 8], 12), { dtype: 'float16', weights: false }],
  ];
  for (const [q, k, v, opts] of cases) {
    const want = pe.attention(q, k, v, opts).output;
    const Type = want.data.constructor;
    const out = new Type(want.data.length).fill(7);
    const got = pe.attention(q, k, v, { ...opts, out }).output;
    assert.equal(got.data, out, JSON.stringify(opts));
    assert.deepEqual(got.shape, want.shape);
    assert.deepEqual(Array.from(out), Array.from(want.data), `${JSON.stringify(opts)} q ${q.shape}`);
    if (Type === Float32Array && want.data.length === q.data.length) {
      // out may be q's own array: the output replaces q
      const own = { data: Float32Array.from(q.data), shape: q.shape };
      assert.equal(pe.attention(own, k, v, { ...opts, out: own.data }).output.data, own.data);
      assert.deepEqual(Array.from(own.data), Array.from(want.data), `in place of q, ${q.shape}`);
    }
  }
  // refused before any element is read, by name; and a non-finite input leaves out as it was
  const [q, k, v] = [t([1, 2, 3, 8], 1), t([1, 2, 4, 8], 2), t([1, 2, 4, 8], 3)];
  assert.throws(() => pe.attention(q, k, v, { weights: false, out: new Float32Array(47) }),
    { name: 'TypeError', message: /^posenc\.attention: out must be a Float32Array of 48 elements \(dtype float32\)/ });
  assert.throws(() => pe.attention(q, k, v, { dtype: 'float64', out: new Float32Array(48) }), { name: 'TypeError', message: /out must be a Float64Array of 48/ });
  const before = pe.memoryStats();
  const bad = { data: Float32Array.from(k.data), shape: k.shape };
  bad.data[9] = NaN;
  const out = new Float32Array(48).fill(3);
  assert.throws(() => pe.attention(q, bad, v, { weights: false, out }), { name: 'RangeError', message: /k\.data\[9\] must be a finite number/ });
  assert.ok(out.every((x) => x === 3));
  assert.deepEqual(pe.memoryStats(), before);
});

// ---- table rows for position ids -----------------------------------------------------------

test('table positions: each row is the row of that position (packed, left padding, far, negative)', () => {
  const positions = [0, 1, 2, 0, 1, 0, 1, 2, 3, 70000, 5, -3];
  for (const preset of ['vaswani', 'tensor2tensor', 'marian']) {
    const got = pe.table(positions.length, 10, { positions, preset, dtype: 'float64' });
    assert.deepEqual(got.shape, [positions.length, 10]);
    positions.forEach((p, r) => {
      const want = pe.table(1, 10, { offset: p, preset, dtype: 'float64' }).data;
      assertClose(`${preset} row ${r} (position ${p})`, got.data.subarray(r * 10, r * 10 + 10), want, 1e-15);
    });
  }
  // fairseq: the row of position paddingIdx is zero, wherever it appears
  const f = pe.table(4, 6, { preset: 'fairseq', positions: [1, 2, 1, 3] });
  assert.deepEqual(Array.from(f.data.subarray(0, 6)), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(f.data.subarray(12, 18)), [0, 0, 0, 0, 0, 0]);
  assert.deepEqual(Array.from(f.data.subarray(6, 12)), Array.from(pe.table(3, 6, { preset: 'fairseq' }).data.subarray(12, 18)));
  // a run of positions is the table from its first position, bit for bit, across chunks too
  // (float32 chunks of 2048 rows at width 256); a lone position the table of one row there
  const long = Float64Array.from({ length: 5000 }, (_, r) => (r < 4000 ? 7 + r : 3 * r));
  const rows = pe.table(long.length, 256, { positions: long }).data;
  assert.ok(pe.table(4000, 256, { offset: 7 }).data.every((v, i) => Object.is(v, rows[i])), 'the run of 4000');
  for (const r of [4000, 4001, 4999]) assert.deepEqual(rows.subarray(r * 256, r * 256 + 256), pe.table(1, 256, { offset: long[r] }).data, `row ${r}`);
  assert.throws(() => pe.table(3, 4, { positions: [0, 2 ** 31 + 1, 5] }), { name: 'RangeError', message: /positions\[1\] must be an integer from -2147483648 to 2147483648/ });
  assert.throws(() => pe.table(2, 4, { positions: [0, 1.5] }), { name: 'RangeError', message: /positions\[1\] must be an integer/ });
  assert.throws(() => pe.table(2, 4, { positions: [0] }), { name: 'RangeError', message: /positions must have 2 elements/ });
  assert.throws(() => pe.table(2, 4, { positions: [0, 1], offset: 3 }), { name: 'TypeError', message: /positions or offset/ });
});

// Mathematical properties of the encodings, checked on the API's own output.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadApi } from './helpers/load.js';

const pe = await loadApi();

const row = (m, r) => m.data.subarray(r * m.cols, (r + 1) * m.cols);
const maxAbsDiff = (a, b) => a.reduce((worst, x, i) => Math.max(worst, Math.abs(x - b[i])), 0);

function matVec(m, v) {
  const out = new Float64Array(m.rows);
  for (let i = 0; i < m.rows; i++) {
    let s = 0;
    for (let j = 0; j < m.cols; j++) s += m.data[i * m.cols + j] * v[j];
    out[i] = s;
  }
  return out;
}

test('interleaved rows of even width all have norm sqrt(d/2)', () => {
  for (const d of [2, 6, 64, 512]) {
    const norms = pe.norms(pe.table(2000, d, { dtype: 'float64' }), { dtype: 'float64' });
    const want = Math.sqrt(d / 2);
    for (const n of norms) assert.ok(Math.abs(n - want) < 1e-12, `d=${d}: norm ${n}, want ${want}`);
  }
});

test('an odd interleaved width adds a lone sine: |PE_p|^2 = (d - 1)/2 + sin^2(p w_last)', () => {
  const d = 7;
  const w = pe.frequencies(d, { dtype: 'float64' }).at(-1);
  const norms = pe.norms(pe.table(5000, d, { dtype: 'float64' }), { dtype: 'float64' });
  norms.forEach((n, p) => assert.ok(Math.abs(n * n - 3 - Math.sin(p * w) ** 2) < 1e-12, `pos ${p}`));
  assert.ok(Math.max(...norms) - Math.min(...norms) > 0.1, 'the norm should vary');
});

test('Gram entries depend only on i - j', () => {
  for (const preset of ['vaswani', 'tensor2tensor', 'marian']) {
    const g = pe.gram(pe.table(40, 64, { preset, dtype: 'float64' }), { dtype: 'float64' });
    for (let i = 1; i < 40; i++) {
      for (let j = 1; j < 40; j++) {
        const diagonal = g.data[(i - 1) * 40 + (j - 1)];
        assert.ok(Math.abs(g.data[i * 40 + j] - diagonal) < 1e-10, `${preset} (${i},${j})`);
      }
    }
  }
});

test('tableGram agrees with the Gram of the table, on and off the fast path', () => {
  const cases = [
    [64, 32, {}], [50, 65, { preset: 'tensor2tensor' }], [30, 7, {}], [20, 9, { preset: 'marian' }],
    [25, 16, { preset: 'fairseq' }], [25, 16, { offset: 1000 }], [33, 64, { cosine: true }],
  ];
  for (const [n, d, opts] of cases) {
    const { cosine, ...tableOpts } = opts;
    const fast = pe.tableGram(n, d, { ...opts, dtype: 'float64' });
    const slow = pe.gram(pe.table(n, d, { ...tableOpts, dtype: 'float64' }), { cosine: Boolean(cosine), dtype: 'float64' });
    assert.ok(maxAbsDiff(fast.data, slow.data) < 1e-9, `${n}x${d} ${JSON.stringify(opts)}`);
  }
});

test('M_k maps PE[pos] onto PE[pos + k] for every pos, any k, every layout', () => {
  for (const [preset, d] of [['vaswani', 16], ['tensor2tensor', 12], ['marian', 10], ['vaswani', 512]]) {
    const t = pe.table(300, d, { preset, dtype: 'float64' });
    for (const k of [1, 2, 7, 100]) {
      const m = pe.rotation(k, d, { preset, dtype: 'float64' });
      for (const pos of [0, 3, 150, 299 - k]) {
        assert.ok(maxAbsDiff(matVec(m, row(t, pos)), row(t, pos + k)) < 1e-9, `${preset} d=${d} k=${k} pos=${pos}`);
      }
    }
  }
});

test('M_k is orthogonal and M_-k undoes it', () => {
  const d = 8;
  const a = pe.rotation(5, d, { dtype: 'float64' });
  const b = pe.rotation(-5, d, { dtype: 'float64' });
  for (let i = 0; i < d; i++) {
    for (let j = 0; j < d; j++) {
      let s = 0;
      for (let c = 0; c < d; c++) s += a.data[i * d + c] * b.data[c * d + j];
      assert.ok(Math.abs(s - (i === j ? 1 : 0)) < 1e-12);
    }
  }
});

// A tiny sentence as embeddings, optionally plus PE, and a permutation of it.
function sentence(embeddings, order, withPe) {
  const d = embeddings[0].length;
  const p = pe.table(order.length, d, { dtype: 'float64' });
  const data = new Float64Array(order.length * d);
  order.forEach((token, pos) => {
    for (let c = 0; c < d; c++) data[pos * d + c] = embeddings[token][c] + (withPe ? p.data[pos * d + c] : 0);
  });
  return { rows: order.length, cols: d, data };
}

const EMB = [[0.3, -1.2, 0.5, 0.9], [1.1, 0.4, -0.7, 0.2], [-0.5, 0.8, 1.3, -0.4], [0.6, 0.6, -0.2, -1.0]];
const ORDER = [0, 1, 2, 3];
const PERM = [3, 1, 2, 0]; // "我 在 看 书" -> "书 在 看 我"

function selfAttention(x, causal = false) {
  return pe.attention(x, x, x, { causal, dtype: 'float64' }).output;
}

test('without PE, permuting the input only permutes the attention output', () => {
  const a = selfAttention(sentence(EMB, ORDER, false));
  const b = selfAttention(sentence(EMB, PERM, false));
  PERM.forEach((token, pos) => assert.ok(maxAbsDiff(row(b, pos), row(a, token)) < 1e-12));
});

test('with PE, the same permutation changes what each token becomes', () => {
  const a = selfAttention(sentence(EMB, ORDER, true));
  const b = selfAttention(sentence(EMB, PERM, true));
  const worst = Math.max(...PERM.map((token, pos) => maxAbsDiff(row(b, pos), row(a, token))));
  assert.ok(worst > 1e-3, `outputs should differ, max difference ${worst}`);
});

test('causal weights are zero above the diagonal and every row sums to 1', () => {
  const x = sentence(EMB, ORDER, true);
  const { weights } = pe.attention(x, x, x, { causal: true, dtype: 'float64' });
  for (let i = 0; i < weights.rows; i++) {
    let sum = 0;
    for (let j = 0; j < weights.cols; j++) {
      const w = weights.data[i * weights.cols + j];
      if (j > i) assert.equal(w, 0);
      else assert.ok(w > 0);
      sum += w;
    }
    assert.ok(Math.abs(sum - 1) < 1e-12);
  }
});

test('softmax stays finite for huge scores', () => {
  const q = { rows: 2, cols: 1, data: [1e150, -1e150] };
  const k = { rows: 2, cols: 1, data: [1e150, 1] };
  const v = { rows: 2, cols: 1, data: [1, 2] };
  const { weights, output } = pe.attention(q, k, v, { dtype: 'float64' });
  for (const w of weights.data) assert.ok(Number.isFinite(w));
  assert.deepEqual(Array.from(output.data), [1, 2]);
});

test('the toy sum head cannot tell 我打你 from 你打我, with or without PE; the weighted head can', () => {
  for (const pos of [null, [10, 20, 30]]) {
    const a = pe.toyAttention([1, 2, 3], pos);
    const b = pe.toyAttention([3, 2, 1], pos);
    assert.equal(a.sum, b.sum);
    assert.equal(a.label, b.label);
    assert.notEqual(a.weighted, b.weighted);
  }
});

test('sinusoidal position codes change what 我 becomes but not the sum head', () => {
  const sin = Array.from(pe.table(3, 1, { dtype: 'float64' }).data); // one sine column
  const a = pe.toyAttention([1, 2, 3], sin);
  const b = pe.toyAttention([3, 2, 1], sin);
  assert.notEqual(a.y[0], b.y[2]); // 我 at position 0 vs position 2
});

// ---- dot products: overflow, and the float32 Gram kernel ----

test('dot, norms and gram refuse finite inputs whose results overflow (RangeError, status 7), and keep working', () => {
  const before = pe.memoryStats().liveAllocations;
  const status7 = (e) => e instanceof RangeError && /status 7/.test(e.message);
  assert.throws(() => pe.dot([1e200, 1e200], [1e200, -1e200]), status7);
  assert.throws(() => pe.dot([1e200], [1e200]), status7);
  // a norm past DBL_MAX (norms of 1e200 rows, and their cosines, are computed: overflow.test.js)
  assert.throws(() => pe.norms({ rows: 2, cols: 2, data: [1, 1, Number.MAX_VALUE, Number.MAX_VALUE] }), status7);
  const big = { rows: 2, cols: 2, data: [1e200, 1e200, 1e200, -1e200] };
  for (const dtype of ['float32', 'float64']) assert.throws(() => pe.gram(big, { dtype }), status7);
  // 1e40 fits a float64 Gram but not a float32 one
  assert.throws(() => pe.gram({ rows: 1, cols: 1, data: [1e20] }, { dtype: 'float32' }), status7);
  assert.equal(pe.gram({ rows: 1, cols: 1, data: [1e20] }, { dtype: 'float64' }).data[0], 1e40);
  // float32 input past 2^32 takes the float64 kernel: no float32 overflow
  const f = pe.gram({ rows: 1, cols: 2, data: Float32Array.of(3e38, 3e38) }, { dtype: 'float64' });
  assert.equal(f.data[0], 2 * Math.fround(3e38) ** 2);
  assert.throws(() => pe.gram({ rows: 1, cols: 2, data: Float32Array.of(3e38, 3e38) }), status7);
  assert.equal(pe.dot([1, 2, 3], [4, 5, 6]), 32);
  assert.deepEqual(Array.from(pe.gram({ rows: 2, cols: 2, data: [1, 2, 3, 4] }).data), [5, 11, 11, 25]);
  assert.equal(pe.memoryStats().liveAllocations, before);
});

function xorshiftMatrix(rows, cols, seed) {
  const data = new Float32Array(rows * cols);
  let x = seed >>> 0 || 1;
  for (let i = 0; i < data.length; i++) {
    x ^= x << 13; x >>>= 0; x ^= x >>> 17; x ^= x << 5; x >>>= 0;
    data[i] = (x / 2 ** 32) * 2 - 1;
  }
  return { rows, cols, data };
}

test('gram of a Float32Array (float32 kernel) agrees with the float64 kernel within 1e-5 relative, exactly symmetric', () => {
  const sizes = [[1, 1], [3, 5], [7, 4], [9, 129], [37, 261], [70, 3], [130, 512]];
  sizes.forEach(([rows, cols], n) => {
    const m = xorshiftMatrix(rows, cols, 7 + n);
    const m64 = { rows, cols, data: Float64Array.from(m.data) };
    for (const cosine of [false, true]) {
      const want = pe.gram(m64, { cosine, dtype: 'float64' }).data;
      const scale = want.reduce((s, v) => Math.max(s, Math.abs(v)), 0);
      for (const dtype of ['float32', 'float64']) {
        const got = pe.gram(m, { cosine, dtype });
        assert.equal(got.data instanceof Float64Array, dtype === 'float64');
        assert.ok(maxAbsDiff(got.data, want) <= 1e-5 * scale, `${rows}x${cols} cosine=${cosine} ${dtype}: ${maxAbsDiff(got.data, want) / scale}`);
        for (let i = 0; i < rows; i++) {
          for (let j = 0; j < i; j++) assert.equal(got.data[i * rows + j], got.data[j * rows + i]);
          if (cosine) assert.ok(Math.abs(got.data[i * rows + i] - 1) < 1e-6);
        }
      }
    }
  });
  // the default output of a Float32Array is float32
  assert.ok(pe.gram(xorshiftMatrix(2, 3, 1)).data instanceof Float32Array);
});

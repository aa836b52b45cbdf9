// Compares the public API with tests/golden/golden.json, which
// tests/golden/gen.py computes independently of the C core (see
// tests/golden/README.md). Run: node --test tests/golden.test.js
//
// Tolerances (the golden values are the exact values rounded to double):
//   float32 tables and rotations ........ 1e-6 absolute
//   float64 tables ...................... 1e-12 + 4·ε·|position| absolute (ε = 2^-52):
//       the angle position·ω is a double, so the rounding of ω and of the product
//       (about 2 ulps of the angle at worst, and ω_0 = 1 is the largest frequency)
//       is inherent; at position 65535 the tolerance is 5.9e-11
//   frequencies ......................... 1e-12 relative
//   float64 Gram / dot / norms / output . 1e-12 × max(1, magnitude of the values)
//   float32 Gram / attention ............ 1e-6 × max(1, magnitude of the values)
//   toy attention ....................... exact (integers)
import test from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync, statSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { loadApi } from './helpers/load.js';

const here = path.dirname(fileURLToPath(import.meta.url));
const goldenPath = path.join(here, 'golden', 'golden.json');
const generator = path.join(here, 'golden', 'gen.py');
const golden = JSON.parse(readFileSync(goldenPath, 'utf8'));
const pe = await loadApi();

const EPS = 2 ** -52;
const F32 = 1e-6;
const F64 = 1e-12;
const POS = 4 * EPS; // per unit of |position|, float64 tables

// ---- helpers ----------------------------------------------------------------

/** A MatrixInput from nested rows. */
function matrix(rows, Type = Float64Array) {
  const cols = rows.length ? rows[0].length : 0;
  return { rows: rows.length, cols, data: Type.from(rows.flat()) };
}

const maxAbs = (values) => values.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
const scaleOf = (rows) => Math.max(1, maxAbs(rows.flat()));

/** Asserts that values[i] is within tol(i, expected[i]) of expected[i]; reports the worst misses. */
function assertClose(label, values, expected, tol) {
  assert.equal(values.length, expected.length, `${label}: length`);
  const bad = [];
  for (let i = 0; i < expected.length; i++) {
    const got = values[i];
    const want = expected[i];
    const err = Math.abs(got - want);
    const t = tol(i, want);
    if (!(err <= t)) bad.push({ i, got, want, err, tol: t });
  }
  if (bad.length) {
    bad.sort((a, b) => (b.err / b.tol) - (a.err / a.tol) || 0);
    const lines = bad.slice(0, 5).map((b) => `  [${b.i}] got ${b.got} want ${b.want} |err| ${b.err} > tol ${b.tol}`);
    assert.fail(`${label}: ${bad.length} of ${expected.length} values out of tolerance\n${lines.join('\n')}`);
  }
}

/** Asserts a Matrix result has the golden shape and is close to the golden rows. */
function assertMatrixClose(label, actual, expectedRows, tol) {
  const cols = expectedRows.length ? expectedRows[0].length : 0;
  assert.equal(actual.rows, expectedRows.length, `${label}: rows`);
  assert.equal(actual.cols, cols, `${label}: cols`);
  assert.equal(actual.data.length, actual.rows * cols, `${label}: data.length`);
  assertClose(label, actual.data, expectedRows.flat(), (i, want) => tol(Math.floor(i / (cols || 1)), i % (cols || 1), want));
}

function assertType(label, data, dtype) {
  const Type = dtype === 'float32' ? Float32Array : Float64Array;
  assert.ok(data instanceof Type, `${label}: expected ${Type.name}, got ${data?.constructor?.name}`);
}

// ---- the golden file itself -------------------------------------------------------

test('golden.json is exactly what tests/golden/gen.py writes (gen.py --check)', () => {
  const r = spawnSync('python3', [generator, '--check'], { encoding: 'utf8', timeout: 300_000 });
  if (r.error?.code === 'ENOENT') {
    assert.fail('python3 was not found on PATH. It is required: this test proves golden.json is the '
      + 'output of tests/golden/gen.py. Install Python 3 (standard library only) and re-run.');
  }
  if (r.error) throw r.error;
  assert.equal(r.status, 0, `gen.py --check failed (exit ${r.status}):\n${r.stdout}${r.stderr}`);
});

test('golden.json is smaller than 1.5 MB', () => {
  assert.ok(statSync(goldenPath).size < 1.5e6, `${statSync(goldenPath).size} bytes`);
});

// ---- tables ------------------------------------------------------------------------

for (const c of golden.tables) {
  for (const dtype of ['float32', 'float64']) {
    test(`table ${c.name} [${dtype}]`, () => {
      const t = pe.table(c.maxLen, c.dModel, { ...c.options, dtype });
      assertType(c.name, t.data, dtype);
      assert.equal(t.rows, c.maxLen);
      assert.equal(t.cols, c.dModel);
      assert.equal(t.data.length, c.maxLen * c.dModel);
      const d = c.dModel;
      const got = c.rows.map((r) => Array.from(t.data.subarray(r * d, (r + 1) * d)));
      assertMatrixClose(c.name, { rows: got.length, cols: d, data: got.flat() }, c.data,
        (r) => (dtype === 'float32' ? F32 : F64 + POS * Math.abs(c.positions[r])));
    });
  }
  // Far rows once more, each as a one-row table whose offset is the position.
  if (c.maxLen >= 65536 && c.options.preset !== 'fairseq') {
    test(`table ${c.name}: the same rows via offset [float64]`, () => {
      c.rows.forEach((r, i) => {
        const t = pe.table(1, c.dModel, { ...c.options, offset: c.positions[i], dtype: 'float64' });
        assertMatrixClose(`${c.name} offset ${c.positions[i]}`, t, [c.data[i]],
          () => F64 + POS * Math.abs(c.positions[i]));
      });
    });
  }
}

test('table: default dtype is float32', () => {
  assert.ok(pe.table(5, 6).data instanceof Float32Array);
});

// ---- the seed article's 5 × 6 example --------------------------------------------------

test('seed 000 example: d=6, 5 positions, row 1 to 4 decimals', () => {
  const s = golden.seedExample;
  const t = pe.table(s.maxLen, s.dModel, { dtype: 'float64' });
  const row1 = Array.from(t.data.subarray(s.dModel, 2 * s.dModel));
  assert.deepEqual(row1.map((x) => Math.round(x * 1e4) / 1e4), s.row1Rounded4);
  assertMatrixClose('seed example', t, s.correct, () => F64);
});

test('seed 000 example: the product does not reproduce the article\'s doubled-exponent table', () => {
  const s = golden.seedExample;
  const t = pe.table(s.maxLen, s.dModel, { dtype: 'float64' });
  // (row 1, col 2): 0.0464 correct vs 0.0022 printed by the article
  assert.ok(Math.abs(t.data[s.dModel + 2] - s.buggy[1][2]) > 0.04, `${t.data[s.dModel + 2]} vs buggy ${s.buggy[1][2]}`);
  assert.ok(Math.abs(s.correct[1][2] - s.buggy[1][2]) > 0.04);
});

// ---- frequencies -------------------------------------------------------------------

for (const c of golden.frequencies) {
  test(`frequencies ${c.name}`, () => {
    const w = pe.frequencies(c.dModel, { ...c.options, dtype: 'float64' });
    assert.ok(w instanceof Float64Array, `expected Float64Array, got ${w?.constructor?.name}`);
    assertClose(c.name, w, c.values, (i, want) => F64 * Math.abs(want));
    const w32 = pe.frequencies(c.dModel, c.options);
    assert.ok(w32 instanceof Float32Array, 'float32 by default');
    w32.forEach((x, i) => assert.equal(x, Math.fround(w[i])));
  });
}

// ---- Gram and cosine matrices ------------------------------------------------------------

for (const c of golden.gram) {
  const scale = scaleOf(c.data);
  const opts = { cosine: c.cosine, dtype: 'float64' };
  if (c.table) {
    const { maxLen, dModel, options } = c.table;
    test(`gram(table) ${c.name} [float64]`, () => {
      const g = pe.gram(pe.table(maxLen, dModel, { ...options, dtype: 'float64' }), opts);
      assertType(c.name, g.data, 'float64');
      assertMatrixClose(c.name, g, c.data, () => F64 * scale);
    });
    for (const dtype of ['float64', 'float32']) {
      test(`tableGram ${c.name} [${dtype}]`, () => {
        const g = pe.tableGram(maxLen, dModel, { ...options, ...opts, dtype });
        assertType(c.name, g.data, dtype);
        assertMatrixClose(c.name, g, c.data, () => (dtype === 'float32' ? F32 : F64) * scale);
      });
    }
  } else {
    test(`gram ${c.name} [float64]`, () => {
      const g = pe.gram(matrix(c.matrix), opts);
      assertType(c.name, g.data, 'float64');
      assertMatrixClose(c.name, g, c.data, () => F64 * scale);
    });
    test(`gram ${c.name} [Float32Array input: float32 by default]`, () => {
      const g = pe.gram(matrix(c.matrix, Float32Array), { cosine: c.cosine });
      assertType(c.name, g.data, 'float32');
      assertMatrixClose(c.name, g, c.data, () => F32 * scale);
    });
    test(`gram ${c.name} [plain array input, float64]`, () => {
      const m = matrix(c.matrix);
      const g = pe.gram({ rows: m.rows, cols: m.cols, data: Array.from(m.data) }, opts);
      assertType(c.name, g.data, 'float64');
      assertMatrixClose(c.name, g, c.data, () => F64 * scale);
    });
  }
}

// ---- dot and norms -------------------------------------------------------------------------

for (const c of golden.dot) {
  test(`dot ${c.name}`, () => {
    const mag = c.a.reduce((s, x, i) => s + Math.abs(x * c.b[i]), 0);
    const got = pe.dot(c.a, c.b);
    assert.equal(typeof got, 'number');
    assertClose(c.name, [got], [c.value], () => F64 * Math.max(1, mag));
    assertClose(`${c.name} (Float64Array)`, [pe.dot(Float64Array.from(c.a), Float64Array.from(c.b))], [c.value],
      () => F64 * Math.max(1, mag));
  });
}

for (const c of golden.norms) {
  test(`norms ${c.name}`, () => {
    const m = c.table
      ? pe.table(c.table.maxLen, c.table.dModel, { ...c.table.options, dtype: 'float64' })
      : matrix(c.matrix);
    const n = pe.norms(m, { dtype: 'float64' });
    assert.ok(pe.norms(m) instanceof Float32Array, 'float32 by default');
    assert.ok(n instanceof Float64Array, `expected Float64Array, got ${n?.constructor?.name}`);
    assertClose(c.name, n, c.values, (i, want) => F64 * Math.max(1, Math.abs(want)));
  });
}

// ---- rotation M_k ------------------------------------------------------------------------------

for (const c of golden.rotation) {
  test(`rotation ${c.name} [float64]`, () => {
    const m = pe.rotation(c.k, c.dModel, { ...c.options, dtype: 'float64' });
    assertType(c.name, m.data, 'float64');
    assertMatrixClose(c.name, m, c.data, () => F64);
  });
  test(`rotation ${c.name} [float32, default]`, () => {
    const m = pe.rotation(c.k, c.dModel, c.options);
    assertType(c.name, m.data, 'float32');
    assertMatrixClose(c.name, m, c.data, () => F32);
  });
}

// ---- the toy attention of seed 002 -------------------------------------------------------------

for (const c of golden.toy) {
  test(`toyAttention ${c.name}`, () => {
    const r = pe.toyAttention(c.codes, c.positionCodes, c.options);
    assert.deepEqual(Array.from(r.x), c.x, 'x');
    assert.deepEqual(Array.from(r.y), c.y, 'y');
    assert.equal(r.sum, c.sum, 'sum');
    assert.equal(r.label, c.label, 'label');
    assert.equal(r.weighted, c.weighted, 'weighted');
  });
}

test('toyAttention: positionCodes omitted or null means no PE; x and y are plain arrays', () => {
  const c = golden.toy.find((t) => t.positionCodes === null && Object.keys(t.options).length === 0);
  const r = pe.toyAttention(c.codes);
  assert.ok(Array.isArray(r.x) && Array.isArray(r.y), 'x and y are number[]');
  const fields = (t) => ({ x: t.x, y: t.y, sum: t.sum, label: t.label, weighted: t.weighted });
  assert.deepEqual(fields(r), fields(c));
  assert.deepEqual(fields(pe.toyAttention(c.codes, null)), fields(c));
});

test('toyAttention: the seed numbers (sums equal, weighted heads differ)', () => {
  const a = pe.toyAttention([1, 2, 3], [10, 20, 30]);
  const b = pe.toyAttention([3, 2, 1], [10, 20, 30]);
  assert.deepEqual(Array.from(a.y), [726, 1452, 2178]);
  assert.deepEqual(Array.from(b.y), [858, 1452, 2046]);
  assert.equal(a.sum, 4356);
  assert.equal(b.sum, 4356);
  assert.notEqual(a.weighted, b.weighted);
});

// ---- scaled dot-product attention ----------------------------------------------------------------

for (const c of golden.attention) {
  const outScale = scaleOf(c.v);
  for (const dtype of ['float64', 'float32']) {
    test(`attention ${c.name} [${dtype}]`, () => {
      const Type = dtype === 'float32' ? Float32Array : Float64Array;
      const r = pe.attention(matrix(c.q, Type), matrix(c.k, Type), matrix(c.v, Type), { ...c.options, dtype });
      assertType(`${c.name} weights`, r.weights.data, dtype);
      assertType(`${c.name} output`, r.output.data, dtype);
      const tol = dtype === 'float32' ? F32 : F64;
      assertMatrixClose(`${c.name} weights`, r.weights, c.weights, () => tol);
      assertMatrixClose(`${c.name} output`, r.output, c.output, () => tol * outScale);
      if (c.options.causal) {
        const m = c.k.length;
        for (let i = 0; i < c.q.length; i++) {
          for (let j = i + 1; j < m; j++) assert.equal(r.weights.data[i * m + j], 0, `masked weight (${i}, ${j})`);
        }
      }
    });
  }
}

// ---- errors ------------------------------------------------------------------------------------

for (const c of golden.errors) {
  test(`error: ${c.name} throws ${c.error}`, () => {
    assert.throws(() => pe[c.call](...c.args), c.error === 'RangeError' ? RangeError : Error);
  });
}

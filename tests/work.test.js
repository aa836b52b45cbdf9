// Regression guards on how much work the core does, counted, never timed: the
// debug build counts sin/cos evaluations, oscillator rotations, table elements
// written and Gram dot products (c/work.h), so these checks give the same
// answer on a quiet machine and a loaded one. The speed targets themselves are
// measured by `npm run bench`. Always the debug build, whichever build the
// rest of the run uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateForTests as instantiate } from './helpers/wasi.js';
import { createApi } from '../web/lib/api.js';
import { WASM_BASE64 as DEBUG } from '../dist/debug/posenc-wasm.js';

const raw = await instantiate(DEBUG);
const pe = createApi(raw);
const KINDS = { sincos: 0, rotations: 1, tableElems: 2, gramDots: 3 };
const ANCHOR = 256; // PE_ANCHOR in c/oscillator.h

/** The work counters after fn(): { sincos, rotations, tableElems, gramDots }. */
function work(fn) {
  raw.pe_work_reset();
  fn();
  return Object.fromEntries(Object.entries(KINDS).map(([k, i]) => [k, raw.pe_work_count(i)]));
}

test('counters: an unknown kind reads -1, and reset clears every kind', () => {
  assert.equal(raw.pe_work_count(-1), -1);
  assert.equal(raw.pe_work_count(5), -1);
  pe.table(10, 8);
  raw.pe_work_reset();
  for (const i of Object.values(KINDS)) assert.equal(raw.pe_work_count(i), 0);
});

test('table Gram (Toeplitz): sin/cos O(n d / anchor) and rotations O(n d), no dot products', () => {
  const d = 128, h = d / 2;
  for (const n of [256, 1000, 4096]) {
    const w = work(() => pe.tableGram(n, d));
    // h step angles, then an exact anchor at positions 0, 256, ... <= n (the
    // oscillator re-anchors as soon as it reaches one, used or not).
    assert.equal(w.sincos, h * (2 + Math.floor(n / ANCHOR)), `n=${n}: sin/cos evaluations`);
    assert.ok(w.rotations <= n * h, `n=${n}: ${w.rotations} rotations, at most n*h = ${n * h}`);
    assert.equal(w.gramDots, 0, `n=${n}: the Toeplitz Gram forms no dot product`);
    assert.equal(w.tableElems, 0, `n=${n}: nor a table`);
  }
});

test('table Gram without the Toeplitz shortcut (odd d) forms each upper-triangle entry about once', () => {
  const n = 300, d = 33;
  const w = work(() => pe.tableGram(n, d, { dtype: 'float64' }));
  const upper = (n * (n + 1)) / 2;
  // Tiles of 4x2 on the diagonal also form a few entries left of it.
  assert.ok(w.gramDots >= upper && w.gramDots <= upper + 4 * n, `${w.gramDots} dot products for ${upper} entries`);
  assert.equal(w.tableElems, n * d, 'the table behind it is formed once');
});

test('table: each output element is written exactly once, across chunks too', () => {
  const cases = [
    [10, 8, {}],
    [1000, 33, {}],
    [700, 65, { layout: 'concat' }],
    [600, 6, { dtype: 'float64', layout: 'concat' }],
    [6000, 256, {}], // float32 chunks of 2048 rows: three calls
    [3000, 512, { dtype: 'float64' }], // 512 rows a chunk: six calls
  ];
  for (const [n, d, opts] of cases) {
    const w = work(() => pe.table(n, d, opts));
    assert.equal(w.tableElems, n * d, `${n}x${d} ${JSON.stringify(opts)}: elements written`);
    const pairs = Math.ceil(d / 2);
    assert.ok(w.rotations <= n * pairs, `${n}x${d}: ${w.rotations} rotations, at most ${n * pairs}`);
  }
  // A padding row is formed, then zeroed: written twice, and only it.
  const w = work(() => pe.table(100, 16, { paddingIdx: 7 }));
  assert.equal(w.tableElems, 100 * 16 + 16);
});

test('table: sin/cos evaluations grow linearly with length, one anchor per 256 rows', () => {
  const d = 64, h = d / 2;
  const counts = [1024, 2048, 4096].map((n) => work(() => pe.table(n, d)).sincos);
  // h step angles (once: one chunk here holds 8192 rows), and an anchor at 0, 256, ... <= n.
  counts.forEach((c, k) => assert.equal(c, h * (2 + (1024 << k) / ANCHOR), `n=${1024 << k}`));
});

test('gram of an arbitrary matrix forms about n(n+1)/2 dot products, not n^2', () => {
  for (const n of [8, 97, 512]) {
    const m = { rows: n, cols: 16, data: new Float64Array(n * 16).map((_, i) => Math.sin(i)) };
    const w = work(() => pe.gram(m));
    const upper = (n * (n + 1)) / 2;
    assert.ok(w.gramDots >= upper && w.gramDots <= upper + 4 * n, `n=${n}: ${w.gramDots} dot products for ${upper} entries`);
  }
});

test('learned table: one Box-Muller sin/cos per pair of normal numbers, none for uniform ones', async () => {
  const { WASM_BASE64: VARIANTS } = await import('../dist/debug/variants-wasm.js');
  const { createVariants } = await import('../web/lib/variants/api.js');
  const rawV = await instantiate(VARIANTS);
  const pv = createVariants(rawV);
  const sincos = (fn) => {
    rawV.pe_work_reset();
    fn();
    return rawV.pe_work_count(KINDS.sincos);
  };
  // Both outputs of each transform are used (issue 16: the cosine alone cost twice the work).
  for (const [n, d] of [[4, 6], [3, 5], [1000, 33]]) assert.equal(sincos(() => pv.learnedTable(n, d)), Math.ceil((n * d) / 2), `${n}x${d}`);
  // Rows 3 and 1 of width 5 are numbers 15..19 and 5..9: pairs 7..9 and 2..4.
  assert.equal(sincos(() => pv.learnedRows([3, 1], 4, 5)), 6);
  assert.equal(sincos(() => pv.learnedTable(100, 16, { distribution: 'uniform' })), 0);
});

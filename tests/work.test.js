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
const KINDS = { sincos: 0, rotations: 1, tableElems: 2, gramDots: 3, grows: 4, kvBlocks: 5, scores: 6 };
const ANCHOR = 256; // PE_ANCHOR in c/oscillator.h

/** The work counters after fn(): { sincos, rotations, tableElems, gramDots }. */
function work(fn) {
  raw.pe_work_reset();
  fn();
  return Object.fromEntries(Object.entries(KINDS).map(([k, i]) => [k, raw.pe_work_count(i)]));
}

test('counters: an unknown kind reads -1, and reset clears every kind', () => {
  assert.equal(raw.pe_work_count(-1), -1);
  assert.equal(raw.pe_work_count(Object.keys(KINDS).length), -1);
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

test('table at positions: one core call a chunk, one exact sin/cos a frequency for each run, not two a row', () => {
  // issue 22's eleventh pass: a core call per run of positions (each forming its frequencies and
  // their step angles again) made positions 0, 2, 4, ... cost 10 to 27 times the table
  const d = 16, h = d / 2, n = 5000;
  const even = Float64Array.from({ length: n }, (_, r) => 2 * r);
  let w = work(() => pe.table(n, d, { positions: even }));
  // the step angles once, then an anchor at each row (each is a run of one)
  assert.equal(w.sincos, h * (1 + n), 'scattered positions');
  assert.equal(w.tableElems, n * d);
  // packed sequences of 300 positions: 17 runs, each anchored at its start and again 256 rows on (the last has 200)
  const packed = Float64Array.from({ length: n }, (_, r) => r % 300);
  w = work(() => pe.table(n, d, { positions: packed }));
  assert.equal(w.sincos, h * (1 + 17 + 16), 'packed sequences');
  // float32 chunks of 32768 rows at d = 16: four core calls for 100,000 rows, whatever the positions
  const calls = { pe_table: 0, pe_table_at: 0 };
  const count = (key) => (...args) => (calls[key]++, raw[key](...args));
  const counted = createApi({ ...raw, pe_table: count('pe_table'), pe_table_at: count('pe_table_at') });
  counted.table(100000, d, { positions: Float64Array.from({ length: 100000 }, (_, r) => 3 * r) });
  assert.deepEqual(calls, { pe_table: 0, pe_table_at: 4 });
  assert.equal(raw.pe_live_allocations(), 0);
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

// ---- attention without weights (c/flash.c) ---------------------------------------------------

const tensorOf = (shape, seed) => {
  const data = new Float32Array(shape.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; i++) data[i] = Math.sin(seed * 1000 + i * 0.37);
  return { data, shape };
};

test('attention, weights: false: nothing n x m in wasm memory, where the weights would not fit', () => {
  // n = m = 2048, one head of 8: q, k, v and the output are 64 KiB each, the
  // weights 16 MiB in float32 (32 MiB in the float64 kernel). Under a 1 MiB
  // limit on what one call may hold, only a kernel without them can run.
  const [q, k, v] = [1, 2, 3].map((s) => tensorOf([1, 1, 2048, 8], s));
  const limit = raw.pe_set_byte_limit(0);
  try {
    raw.pe_set_byte_limit(2 ** 20);
    const out = pe.attention(q, k, v, { causal: true, weights: false }).output;
    assert.deepEqual(out.shape, [1, 1, 2048, 8]);
    assert.ok(out.data.every(Number.isFinite));
    assert.throws(() => pe.attention(q, k, v, { causal: true }), /posenc\.attention: .*(memory|bytes|limit)/i);
  } finally {
    raw.pe_set_byte_limit(limit);
  }
  assert.equal(raw.pe_live_allocations(), 0);
});

test('attention, weights: false: grouped-query heads pack each block of keys once, for all the heads that share it', () => {
  // decode: q [1, 32, 1, 128], k/v [1, 8, 1024, 128]: 8 kv heads x 16 blocks of 64 keys, whatever the query heads
  for (const heads of [8, 16, 32]) {
    const w = work(() => pe.attention(tensorOf([1, heads, 1, 128], 1), tensorOf([1, 8, 1024, 128], 2), tensorOf([1, 8, 1024, 128], 3), { weights: false }));
    assert.equal(w.kvBlocks, 8 * 16, `${heads} query heads`);
    // every query row meets every key once, in tiles of 4 rows (heads / 8 rows per kv head); fewer rows than a tile
    // untiled, row by row
    const rows = heads / 8;
    assert.equal(w.scores, 8 * (rows < 4 ? rows : Math.ceil(rows / 4) * 4) * 1024, `${heads} query heads: scores`);
  }
});

test('attention, weights: false, causal: keys in the future of every row of a tile are neither scored nor weighed (about half the scores)', () => {
  const n = 512;
  const [q, k, v] = [1, 2, 3].map((s) => tensorOf([1, 2, n, 64], s));
  const causal = work(() => pe.attention(q, k, v, { causal: true, weights: false }));
  const full = work(() => pe.attention(q, k, v, { weights: false }));
  assert.equal(full.scores, 2 * n * n);
  // per head: tiles of 4 rows x, in each block of 64 keys, the keys the tile's last row sees (4t + 4 of them), by 8s
  const seen = (t, b) => Math.min(64, 4 * t + 4 - 64 * b);
  const perHead = Array.from({ length: n / 4 }, (_, t) => Array.from({ length: Math.floor((4 * t + 3) / 64) + 1 }, (_, b) => 4 * Math.ceil(seen(t, b) / 8) * 8)
    .reduce((a, c) => a + c, 0)).reduce((a, b) => a + b, 0);
  assert.equal(causal.scores, 2 * perHead);
  assert.ok(causal.scores < 0.51 * full.scores, `${causal.scores} of ${full.scores}`); // (0.5625 when whole diagonal blocks were scored)
  // more keys than queries: keys past n - 1 are nobody's past, their blocks are not even packed
  const long = work(() => pe.attention(q, tensorOf([1, 2, 4 * n, 64], 4), tensorOf([1, 2, 4 * n, 64], 5), { causal: true, weights: false }));
  assert.equal(long.kvBlocks, 2 * (n / 64));
});

// ---- RoPE (issue 24): the counts behind "no float64 copy" and "no trigonometry per step" ----

/**
 * The variants API over the debug module, with every pe_malloc recorded:
 * { pv, raw, run(fn) -> { sincos, rotations, tableElems, mallocs: [bytes...] } }.
 */
async function countedVariants() {
  const { WASM_BASE64: VARIANTS } = await import('../dist/debug/variants-wasm.js');
  const { createVariants } = await import('../web/lib/variants/api.js');
  const rawV = await instantiate(VARIANTS);
  const mallocs = [];
  const spied = { ...rawV, pe_malloc: (bytes) => (mallocs.push(bytes), rawV.pe_malloc(bytes)) };
  const pv = createVariants(spied);
  const run = (fn) => {
    rawV.pe_work_reset();
    mallocs.length = 0;
    fn();
    return { ...Object.fromEntries(Object.entries(KINDS).map(([k, i]) => [k, rawV.pe_work_count(i)])), mallocs: [...mallocs] };
  };
  return { pv, run };
}

test('ropeCache: the oscillator (one sin/cos per frequency per 256 rows), each element written once, blocks in cache', async () => {
  const { pv, run } = await countedVariants();
  for (const [n, dim, layout] of [[1000, 128, 'half'], [4096, 64, 'interleaved'], [700, 6, 'pairs']]) {
    const h = dim / 2;
    const w = run(() => pv.ropeCache(n, dim, { layout, scaling: 'llama3' }));
    // h step angles, then an anchor at rows 0, 256, ... (re-anchored once a row reaches one)
    assert.equal(w.sincos, h * (2 + Math.floor(n / ANCHOR)), `${n}x${dim}: sin/cos evaluations`);
    assert.equal(w.rotations, n * h, `${n}x${dim}: one rotation per frequency per row`);
    const cols = layout === 'pairs' ? h : dim;
    assert.equal(w.tableElems, 2 * n * cols, `${n}x${dim}: every cos and sin element written once`);
    // the output is copied out of wasm in blocks of at most 128 KiB (L2-resident), not held whole
    const biggest = Math.max(...w.mallocs);
    assert.ok(biggest <= Math.min(128 * 1024, n * cols * 4), `${n}x${dim}: largest wasm buffer ${biggest} bytes`);
  }
});

test('ropeApply float32 with { cos, sin }: no trigonometry, no float64 buffer, one rotation per pair', async () => {
  const { pv, run } = await countedVariants();
  const cache = pv.ropeCache(64, 128);
  const x = { shape: [1, 32, 1, 128], data: new Float32Array(4096).fill(0.5) };
  const w = run(() => pv.ropeApply(x, { cos: cache.cos, sin: cache.sin, offset: 9 }));
  assert.equal(w.sincos, 0, 'the caches carry the trigonometry');
  assert.equal(w.rotations, 32 * 64);
  // x as float32 (4 bytes an element) and one cos and one sin row: nothing 8 bytes an element
  const total = w.mallocs.reduce((a, b) => a + b, 0);
  assert.ok(total <= 4096 * 4 + 2 * 128 * 4, `allocated ${total} bytes: ${w.mallocs}`);
  // the frequency path: one row of sin/cos per position, still float32 buffers
  const f = run(() => pv.ropeApply(x, { offset: 9 }));
  assert.equal(f.sincos, 2 * 64, 'one step angle and one anchor per frequency for the one row');
  assert.ok(Math.max(...f.mallocs) <= 4096 * 4, `largest buffer ${Math.max(...f.mallocs)} bytes`);
});

test('rope(): a decode step allocates nothing and evaluates no sin/cos once its scratch exists', async () => {
  const { pv, run } = await countedVariants();
  const r = pv.rope({ dim: 128, maxLen: 512 });
  const x = { shape: [1, 32, 1, 128], data: new Float32Array(4096).fill(0.25) };
  const out = new Float32Array(4096);
  r.apply(x, 0, out); // the first call sizes the scratch
  for (const p of [1, 2, 511]) {
    const w = run(() => r.apply(x, p, out));
    assert.deepEqual(w.mallocs, [], `step ${p}: no allocation`);
    assert.equal(w.sincos, 0, `step ${p}: no trigonometry`);
    assert.equal(w.rotations, 32 * 64, `step ${p}: the rotation only`);
  }
  r.free();
});

test('positions: an element is named only when refused, not once per element of an accepted call', async () => {
  // issue 22's twelfth pass: ropeApply, precisionError and sincos1d formed `positions[i]` and an
  // options object for each element, 1.5 s of 2^24 positions (ropeApply with positions took 2.1 s
  // of CPU where the same call with an offset takes 0.4 s). Counted: the checks each element went through.
  const { Checker } = await import('../web/lib/validate.js');
  const { createVariants } = await import('../web/lib/variants/api.js');
  const { createFields } = await import('../web/lib/fields/api.js');
  const pv = createVariants(await instantiate((await import('../dist/debug/variants-wasm.js')).WASM_BASE64));
  const pf = createFields(await instantiate((await import('../dist/debug/fields-wasm.js')).WASM_BASE64));
  const saved = { finite: Checker.prototype.finite, integer: Checker.prototype.integer };
  let named = 0;
  for (const [key, fn] of Object.entries(saved)) {
    Checker.prototype[key] = function (name, ...rest) {
      if (/^positions\[/.test(name)) named++;
      return fn.call(this, name, ...rest);
    };
  }
  try {
    const n = 3000, positions = Float64Array.from({ length: n }, (_, i) => (i * 7919) % 100000 - 50000);
    const calls = [
      ['ropeApply', () => pv.ropeApply({ shape: [n, 8], data: new Float32Array(8 * n).fill(1) }, { positions })],
      ['precisionError', () => pv.precisionError(8, { positions })],
      ['sincos1d', () => pf.sincos1d(positions, 8)],
      ['table', () => pe.table(n, 8, { positions })],
    ];
    for (const [fn, call] of calls) {
      named = 0;
      call();
      assert.equal(named, 0, `${fn}: ${named} element checks named for ${n} accepted positions`);
    }
    // longrope's factors (issue 22, seventeenth pass: 2^24 of them named took 1.7 s of a 2.2 s ropeFrequencies)
    let factors = 0;
    Checker.prototype.finite = function (name, ...rest) {
      if (/Factor\[/.test(name)) factors++;
      return saved.finite.call(this, name, ...rest);
    };
    const f = new Float64Array(n).fill(1.5), longrope = { type: 'longrope', shortFactor: f, longFactor: f, originalMaxPosition: 4096, maxPosition: 8192 };
    pv.ropeFrequencies(2 * n, { scaling: longrope });
    assert.equal(factors, 0, `${factors} factor checks named for ${2 * n} accepted factors`);
    f[7] = 2e6;
    assert.throws(() => pv.ropeFrequencies(2 * n, { scaling: longrope }), /scaling\.shortFactor\[7\] must be a finite number from 0\.001 to 1000000 \(got 2000000\)/);
    assert.equal(factors, 1);
    // and the one refused is still named, with what was given
    const bad = Float64Array.from(positions);
    bad[1234] = 2 ** 31 + 1;
    assert.throws(() => pv.ropeApply({ shape: [n, 8], data: new Float32Array(8 * n) }, { positions: bad }), /positions\[1234\] must be a finite number from -2147483648 to 2147483648 \(got 2147483649\)/);
    assert.throws(() => pv.precisionError(8, { positions: bad }), /positions\[1234\] .*2147483649/);
    assert.throws(() => pf.sincos1d(bad, 8), /positions\[1234\] .*2147483649/);
    bad[1234] = NaN;
    assert.throws(() => pf.sincos1d(bad, 8), /positions\[1234\] must be a finite number .*\(got NaN\)/);
  } finally {
    Object.assign(Checker.prototype, saved);
  }
});

// Memory: many mixed calls leave the heap where it was and nothing allocated;
// a call that fails half way (in C after JS allocated its buffers, or when
// WebAssembly memory runs out between two allocations) frees what it took;
// growing memory between and during calls never leaves a stale view.
// Every test uses fresh instances of the same build (POSENC_BUILD), so the
// numbers do not depend on what other tests did before.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { build } from './helpers/load.js';
import { instantiateForTests as instantiate } from './helpers/wasi.js';
import { createApi } from '../web/lib/api.js';
import { createVariants } from '../web/lib/variants/api.js';

const dist = build === 'debug' ? '../dist/debug' : '../dist';
const MODULES = {
  posenc: [(await import(`${dist}/posenc-wasm.js`)).WASM_BASE64, createApi],
  variants: [(await import(`${dist}/variants-wasm.js`)).WASM_BASE64, createVariants],
};
const G = JSON.parse(readFileSync(new URL('./golden/golden.json', import.meta.url), 'utf8'));
const PAGE = 65536;
const MiB = 2 ** 20;

/** A new instance of the core (posenc) or of the variants' module, and its API. */
async function fresh(module = 'posenc') {
  const [base64, create] = MODULES[module];
  const raw = await instantiate(base64);
  return { raw, api: create(raw) };
}

/** Deterministic integers in [0, n). */
function rng(seed) {
  let s = seed >>> 0;
  return (n) => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return Math.floor((s / 2 ** 32) * n);
  };
}

// The seed example: vaswani d=6, rows 0..4.
function assertSeedTable(m) {
  const want = G.tables[0].data.flat();
  assert.equal(m.data.length, want.length);
  m.data.forEach((v, i) => assert.ok(Math.abs(v - want[i]) <= 1e-15, `table[${i}] = ${v}, golden ${want[i]}`));
}

function assertToy(r) {
  assert.deepEqual(r.y, [726, 1452, 2178]);
  assert.equal(r.sum, 4356);
  assert.equal(r.label, 'happy');
}

// ---- a mix of valid and invalid calls, all small ------------------------------------

function mixedCalls(api, variants) {
  const vec = (r, n) => Array.from({ length: n }, () => r(17) - 8);
  const mat = (r, rows, cols) => ({ rows, cols, data: Float64Array.from({ length: rows * cols }, () => (r(33) - 16) / 8) });
  const presets = ['vaswani', 'tensor2tensor', 'fairseq', 'marian'];
  const valid = [
    (r) => api.table(1 + r(12), 1 + r(24), { preset: presets[r(4)], dtype: r(2) ? 'float32' : 'float64', offset: r(5) }),
    (r) => api.frequencies(1 + r(64), { layout: r(2) ? 'concat' : 'split' }),
    (r) => api.tableGram(1 + r(12), 1 + r(16), { cosine: r(2) === 1, preset: presets[r(4)] }),
    (r) => { const n = 1 + r(16); return api.dot(vec(r, n), new Float32Array(vec(r, n))); },
    (r) => api.norms(mat(r, 1 + r(8), 1 + r(8))),
    (r) => api.gram(mat(r, 1 + r(10), 1 + r(6)), { cosine: r(2) === 1 }),
    (r) => api.rotation(r(50) - 25, 2 + 2 * r(8), { layout: ['interleaved', 'concat', 'split'][r(3)] }),
    (r) => api.toyAttention([1, 2, 3], r(2) ? [10, 20, 30] : null, { threshold: r(60) }),
    (r) => { const n = 1 + r(6), m = 1 + r(6), dk = 1 + r(6); return api.attention(mat(r, n, dk), mat(r, m, dk), mat(r, m, 1 + r(4)), { causal: r(2) === 1 }); },
    (r) => variants.ropeFrequencies(2 + 2 * r(16), r(2) ? { scaling: { type: 'linear', factor: 2 } } : {}),
    (r) => variants.ropeCache(1 + r(12), 2 + 2 * r(8), { layout: ['pairs', 'half', 'interleaved'][r(3)] }),
    (r) => variants.ropeApply(mat(r, 1 + r(4), 8), { headDim: r(2) ? 4 : 8, pairing: r(2) ? 'half' : 'interleaved' }),
    (r) => variants.ropePermutation(2 + 2 * r(8), { heads: 1 + r(3), inverse: r(2) === 1 }),
    (r) => variants.ropePermute(mat(r, 8, 1 + r(3)), { headDim: r(2) ? 4 : 8 }),
    (r) => variants.alibiSlopes(1 + r(16), { variant: r(2) ? 'press' : 'mpt' }),
    (r) => variants.alibiBias(1 + r(4), 1 + r(6), { kLen: 1 + r(6), mode: r(2) ? 'causal' : 'symmetric' }),
    (r) => variants.t5Bucket(vec(r, 1 + r(20)).map((x) => x * 13)),
    (r) => variants.t5BucketMatrix(1 + r(8), { kLen: 1 + r(8), bidirectional: r(2) === 1 }),
    (r) => variants.shawClip(1 + r(8), { kLen: 1 + r(8), maxRelativePosition: r(4) }),
    (r) => variants.learnedTable(1 + r(8), 1 + r(8), { seed: r(100) }),
    (r) => variants.learnedRows([0, r(4)], 4, 1 + r(8)),
    (r) => variants.binaryTable(1 + r(16), 1 + r(12), { signed: r(2) === 1 }),
    (r) => variants.roundTo(vec(r, 1 + r(8)).map((x) => x / 3), ['float16', 'bfloat16', 'float32'][r(3)]),
    (r) => variants.formatBits(vec(r, 1 + r(8)), ['float16', 'bfloat16', 'float32'][r(3)]),
    (r) => variants.precisionError(1 + r(16), { count: 1 + r(4) }),
  ];
  // Each must throw; some only in C, after JS allocated every buffer.
  const invalid = [
    () => api.table(0, 4),
    () => api.table(4, 4, { base: NaN }),
    () => api.tableGram(2 ** 16, 2),
    () => api.dot([1, 2], [1]),
    () => api.gram(null),
    () => api.norms({ rows: 2, cols: 2, data: [1, 2, 3] }),
    () => api.rotation(1, 7),
    () => api.toyAttention([1e308, 1e308, -1e308]), // C: the sum overflows
    () => api.attention({ rows: 1, cols: 1, data: [1e200] }, { rows: 2, cols: 1, data: [1e200, -1e200] }, { rows: 2, cols: 1, data: [1, 2] }), // C: scores overflow
    () => variants.ropeCache(4, 7),
    () => variants.alibiBias(2, 2, { maskValue: NaN }),
    () => variants.learnedRows([0, 9], 4, 2),
    () => variants.roundTo([1], 'float8'),
    () => variants.precisionError(8, { positions: [0, NaN] }),
  ];
  return { valid, invalid };
}

test('100 000 mixed calls, valid and failing, leave the heap where it was and nothing allocated', async () => {
  const { api } = await fresh();
  const { api: variants } = await fresh('variants');
  const { valid, invalid } = mixedCalls(api, variants);
  const r = rng(7);
  let thrown = 0;
  const one = (i) => {
    if (i % 4 === 3) {
      const f = invalid[r(invalid.length)];
      assert.throws(f, (e) => e instanceof RangeError || e instanceof TypeError);
      thrown++;
    } else {
      valid[r(valid.length)](r);
    }
  };
  // Warm-up: every kind of call a few times, so the allocator has seen each size.
  for (let round = 0; round < 20; round++) {
    valid.forEach((f) => f(r));
    invalid.forEach((f) => assert.throws(f));
  }
  const both = [api, variants];
  const start = both.map((a) => a.memoryStats());
  start.forEach((s) => assert.equal(s.liveAllocations, 0));
  for (let i = 0; i < 100000; i++) {
    one(i);
    if (i % 997 === 0) both.forEach((a) => assert.equal(a.memoryStats().liveAllocations, 0, `after call ${i}`));
  }
  both.forEach((a, k) => {
    const end = a.memoryStats();
    assert.equal(end.liveAllocations, 0);
    assert.ok(end.bytes - start[k].bytes <= PAGE, `heap grew from ${start[k].bytes} to ${end.bytes} bytes`);
  });
  assert.equal(thrown, 25000);
  assertSeedTable(api.table(5, 6, { dtype: 'float64' }));
});

test('memory growth between calls leaves earlier results intact and later ones right', async () => {
  const { api } = await fresh();
  const small = api.table(5, 6, { dtype: 'float64' });
  const saved = Array.from(small.data);
  const toy = api.toyAttention([1, 2, 3], [10, 20, 30]);
  const before = api.memoryStats().bytes;
  // tableGram's float32 output lives in wasm memory: 1, 8, 32 and 64 MiB.
  const w = api.frequencies(64);
  const profile1 = Math.fround(w.reduce((sum, x) => sum + Math.cos(x), 0));
  let grew = 0;
  for (const n of [512, 1448, 2896, 4096]) {
    const mem0 = api.memoryStats().bytes;
    const big = api.tableGram(n, 64);
    if (api.memoryStats().bytes > mem0) grew++;
    // the result is a copy of the right size, and right at a few places
    assert.equal(big.data.length, n * n);
    assert.equal(big.data.buffer.byteLength, n * n * 4);
    assert.equal(big.data[0], 32);
    assert.equal(big.data[n * n - 1], 32);
    assert.ok(Math.abs(big.data[1] - profile1) < 1e-5, `gram[0][1] ${big.data[1]} vs ${profile1}`);
    // results taken before the growth are still there, untouched
    assert.deepEqual(Array.from(small.data), saved);
    assert.equal(small.data.buffer.byteLength, saved.length * 8);
    assertToy(toy);
    // and new calls are right
    assertSeedTable(api.table(5, 6, { dtype: 'float64' }));
    assertToy(api.toyAttention([1, 2, 3], [10, 20, 30]));
  }
  assert.ok(grew >= 2, `memory grew only ${grew} times`);
  // the last result alone is 64 MiB, and it was made in wasm memory
  assert.ok(api.memoryStats().bytes >= Math.max(before, 64 * MiB));
  assert.equal(api.memoryStats().liveAllocations, 0);
});

test('a table is made in chunks: wasm memory holds one chunk, never the whole table', async () => {
  const { api } = await fresh();
  const before = api.memoryStats().bytes;
  const t = api.table(8192, 1024); // 32 MiB of float32
  assert.equal(t.data.length, 8192 * 1024);
  assert.equal(t.data[8191 * 1024], Math.fround(Math.sin(8191)));
  const grown = api.memoryStats().bytes - before;
  // one chunk of about 2 MiB (api.js, CHUNK_BYTES), and the core's frequencies
  assert.ok(grown <= 3 * MiB, `wasm memory grew by ${grown} bytes for a 32 MiB table`);
  assert.equal(api.memoryStats().liveAllocations, 0);
});

test('memory growth inside a call (between its allocations) never leaves a stale view', async () => {
  const { api } = await fresh();
  // gram allocates the output, then copies the input: each allocation grows
  // memory, so the input copy must use the new buffer, and so must the read.
  const rows = 600, cols = 700;
  const data = new Float64Array(rows * cols);
  for (let i = 0; i < data.length; i++) data[i] = ((i * 7919) % 13) - 6;
  const before = api.memoryStats().bytes;
  const g = api.gram({ rows, cols, data }, { dtype: 'float64' });
  assert.ok(api.memoryStats().bytes > before, 'the call did not grow memory');
  for (const [i, j] of [[0, 0], [0, 599], [311, 17], [599, 599]]) {
    let s = 0;
    for (let c = 0; c < cols; c++) s += data[i * cols + c] * data[j * cols + c];
    assert.equal(g.data[i * rows + j], s, `gram[${i}][${j}]`);
  }
  // attention: five allocations, the inputs copied after the outputs grew memory
  const n = 300, m = 2000, dk = 64, dv = 64;
  const mk = (r, c, f) => ({ rows: r, cols: c, data: Float64Array.from({ length: r * c }, (_, i) => f(i)) });
  const q = mk(n, dk, (i) => (i % 5) / 10), k = mk(m, dk, (i) => (i % 3) / 10), v = mk(m, dv, (i) => i % 7);
  const mem0 = api.memoryStats().bytes;
  const a = api.attention(q, k, v, { dtype: 'float64' });
  assert.ok(api.memoryStats().bytes > mem0, 'attention did not grow memory');
  for (let i = 0; i < n; i += 97) {
    let total = 0;
    for (let j = 0; j < m; j++) total += a.weights.data[i * m + j];
    assert.ok(Math.abs(total - 1) < 1e-12, `row ${i} sums to ${total}`);
  }
  // key j of k depends on j % 3 only through its pattern; check one weight by hand
  const score = (i, j) => { let s = 0; for (let c = 0; c < dk; c++) s += q.data[i * dk + c] * k.data[j * dk + c]; return s / Math.sqrt(dk); };
  const row = Array.from({ length: m }, (_, j) => score(5, j));
  const mx = Math.max(...row);
  const z = row.reduce((acc, s) => acc + Math.exp(s - mx), 0);
  assert.ok(Math.abs(a.weights.data[5 * m + 7] - Math.exp(row[7] - mx) / z) < 1e-15);
  assert.equal(api.memoryStats().liveAllocations, 0);
});

test('a call that fails in C after JS allocated its buffers frees them', async () => {
  const { api } = await fresh();
  const cases = [
    ['toyAttention', () => api.toyAttention([1e308, 1e308, -1e308], [0, 0, 0], { weights: [1, 1, 1] })],
    ['attention', () => api.attention({ rows: 1, cols: 1, data: [1e200] }, { rows: 2, cols: 1, data: [1e200, -1e200] }, { rows: 2, cols: 1, data: [1, 2] })],
    ['attention', () => api.attention({ rows: 3, cols: 2, data: [1, 0, 0, 1, 1e155, 1e155] }, { rows: 3, cols: 2, data: [1, 0, 0, 1, 1e155, 1e155] }, { rows: 3, cols: 1, data: [1, 2, 3] })],
  ];
  for (const [fn, call] of cases) {
    assert.throws(call, (e) => e instanceof RangeError && e.message.startsWith(`posenc.${fn}: a value is NaN or infinite`) && /status 7/.test(e.message));
    assert.equal(api.memoryStats().liveAllocations, 0, fn);
  }
  assertToy(api.toyAttention([1, 2, 3], [10, 20, 30]));
});

/**
 * Fills what the module may hold (1 GiB: pe_malloc refuses more, whatever
 * memory could grow to), leaving about `free` bytes; returns the reserved blocks and the largest block that can still
 * be allocated.
 */
function exhaust(raw, free) {
  const reserved = [];
  // blocks of 64 MiB at most, so that freeing them from the end finds about `free`
  for (let size = 64 * MiB; size >= MiB; ) {
    const p = raw.pe_malloc(size);
    if (p) reserved.push(p);
    else size /= 2;
  }
  // give back blocks until about `free` bytes are free in one piece: the last
  // blocks are the smallest, so free from the end, then one big block
  const largest = () => {
    let lo = 0, hi = 2 ** 31 - 1;
    while (hi - lo > 4096) {
      const mid = Math.floor((lo + hi) / 2);
      const p = raw.pe_malloc(mid);
      if (p) { raw.pe_free(p); lo = mid; } else hi = mid;
    }
    return lo;
  };
  while (largest() < free && reserved.length) raw.pe_free(reserved.pop());
  return { reserved, largest: largest() };
}

test('running out of WebAssembly memory between two allocations of a call frees the first', async () => {
  const { raw, api } = await fresh();
  const { reserved, largest } = exhaust(raw, 96 * MiB);
  assert.ok(largest >= 48 * MiB && largest < 1024 * MiB, `largest free block ${largest}`);
  const live = api.memoryStats().liveAllocations;
  assert.equal(live, reserved.length);
  // gram allocates its output (rows^2 doubles), then the input copy: size both
  // at 60% of the largest free block, so the first fits and the second cannot.
  const rows = Math.floor(Math.sqrt((0.6 * largest) / 8));
  const cols = Math.floor((0.6 * largest) / 8 / rows);
  const data = new Float64Array(rows * cols).fill(0.5);
  const bytes = api.memoryStats().bytes;
  assert.throws(() => api.gram({ rows, cols, data }, { dtype: 'float64' }),
    (e) => e instanceof RangeError && /^posenc\.gram: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/.test(e.message));
  assert.equal(api.memoryStats().liveAllocations, live, 'the output buffer was not freed');
  assert.equal(api.memoryStats().bytes, bytes);
  // The C core's scratch beside its output: tableGram with a zeroed row
  // (fairseq) forms the float64 table in C. Output (float32) and table at 55%
  // of the room left each: the core refused the table (status 2) once JS had
  // allocated the output, growing memory for it; the call's footprint finds
  // no room beside what is live, so it is refused before its first buffer
  // (twenty-fifth pass). (Memory that cannot grow, status 6, is
  // tests/memory-limit.test.js's.)
  const n = Math.floor(Math.sqrt((0.55 * largest) / 4));
  const d = Math.floor((0.55 * largest) / 8 / n);
  assert.throws(() => api.tableGram(n, d, { preset: 'fairseq' }),
    (e) => e instanceof RangeError && /^posenc\.tableGram: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/.test(e.message));
  assert.equal(api.memoryStats().liveAllocations, live, 'C or JS left an allocation behind');
  assert.equal(api.memoryStats().bytes, bytes);
  for (const p of reserved) raw.pe_free(p);
  assert.equal(api.memoryStats().liveAllocations, 0);
  // and everything works again, memory being there now
  assert.equal(api.gram({ rows: 2, cols: 2, data: [1, 2, 3, 4] }).data[1], 11);
  assertSeedTable(api.table(5, 6, { dtype: 'float64' }));
});

test('chunked tables are bit-identical to one call of the core for the whole table', async () => {
  const { raw, api } = await fresh();
  // Each is made in two or more chunks (of 512, 256 and 512 rows), the padding
  // row (the one at position paddingIdx: row paddingIdx - offset) in the middle one or the first.
  for (const [n, d, offset, zero, dtype] of [[1300, 1024, 0, -1, 'float32'], [777, 1033, 2.5, -1, 'float64'], [777, 1033, 3, 300, 'float64'],
    [1100, 1000, -100, 105, 'float32']]) {
    const code = dtype === 'float32' ? 0 : 1;
    const Type = dtype === 'float32' ? Float32Array : Float64Array;
    const ptr = raw.pe_malloc(n * d * Type.BYTES_PER_ELEMENT);
    try {
      assert.equal(raw.pe_table(ptr, code, n, d, 0, 0, 10000, offset, zero), 0);
      const whole = new Type(raw.memory.buffer, ptr, n * d).slice();
      const chunked = api.table(n, d, { offset, dtype, ...(zero >= 0 ? { paddingIdx: offset + zero } : {}) }).data;
      assert.ok(whole.every((v, i) => Object.is(v, chunked[i])), `${n}x${d} offset ${offset}`);
    } finally {
      raw.pe_free(ptr);
    }
  }
});

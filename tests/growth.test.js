// No cold start from memory (issue 24, point 4): the first large call of a
// fresh module grows WebAssembly memory once, by its whole footprint, not at
// each of its allocations; importing grows nothing. Counted by the debug
// build's work counter of memory.grow calls (c/work.h), never timed; the
// time it saves is measured by bench/cold.mjs. Always the debug build.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateForTests as instantiate } from './helpers/wasi.js';
import { createApi } from '../web/lib/api.js';
import { WASM_BASE64 as DEBUG } from '../dist/debug/posenc-wasm.js';

const GROWS = 4; // PE_WORK_GROWS
const MiB = 2 ** 20;

async function fresh() {
  const raw = await instantiate(DEBUG);
  return { raw, pe: createApi(raw) };
}

/** memory.grow calls during fn(), and the bytes memory gained. */
function grows(raw, fn) {
  raw.pe_work_reset();
  const before = raw.memory.buffer.byteLength;
  fn();
  return { count: raw.pe_work_count(GROWS), bytes: raw.memory.buffer.byteLength - before };
}

test('instantiating and creating the API grow nothing', async () => {
  const { raw } = await fresh();
  assert.equal(raw.memory.buffer.byteLength, MiB);
});

test('a first large call grows memory once, however many buffers it allocates', async () => {
  const rows = 512, cols = 4096;
  const data = Float64Array.from({ length: rows * cols }, (_, i) => (i % 7) - 3);
  const q = { shape: [1, 4, 256, 64], data: new Float64Array(4 * 256 * 64).fill(0.1) };
  const calls = [
    // output, then a 16 MiB input copy
    ['gram', (pe) => pe.gram({ rows, cols, data }, { dtype: 'float64' })],
    // weights, output, q, k, v, shape, mask copies
    ['attention', (pe) => pe.attention(q, q, q, { causal: true })],
    // one chunk and the core's scratch
    ['table', (pe) => pe.table(4096, 4096)],
  ];
  for (const [name, call] of calls) {
    const { raw, pe } = await fresh();
    const g = grows(raw, () => call(pe));
    assert.equal(g.count, 1, `${name}: memory grew ${g.count} times`);
    assert.ok(g.bytes > 0, `${name}: the call needed more than the first megabyte`);
    assert.equal(raw.pe_live_allocations(), 0);
    // the same call again fits in what the first one grew
    assert.equal(grows(raw, () => call(pe)).count, 0, `${name}: a second call grew memory`);
  }
});

test('attention, weights: false: large kv heads go through the kernel one at a time, in the same buffers', async () => {
  // [1, 8, 512, 64] float32: q, k, v and the output are 4 MiB; one kv head's
  // share is 512 KiB, and the kernel's scratch about 150 KiB more
  const t = { shape: [1, 8, 512, 64], data: Float32Array.from({ length: 8 * 512 * 64 }, (_, i) => Math.sin(i)) };
  const { raw, pe } = await fresh();
  const g = grows(raw, () => pe.attention(t, t, t, { causal: true, weights: false }));
  assert.ok(g.count <= 1, `memory grew ${g.count} times`);
  // all of q, k, v and the output would have taken memory past 5 MiB
  assert.ok(raw.memory.buffer.byteLength <= 2 * MiB, `memory is ${raw.memory.buffer.byteLength} bytes`);
  assert.equal(raw.pe_live_allocations(), 0);
  // small heads still go in one call, all of them
  const small = { shape: [2, 4, 8, 8], data: new Float32Array(2 * 4 * 8 * 8).fill(0.5) };
  assert.equal(pe.attention(small, small, small, { weights: false }).output.data.length, 2 * 4 * 8 * 8);
});

test('attention, weights: false: runs of kv heads, the last overlapping the one before, give the float64 kernel\'s output', async () => {
  // 3 kv heads of 256 queries and keys: runs of 2 heads, the last run heads 1 and 2
  const { pe } = await fresh();
  const t = (seed, Type) => ({ shape: [1, 3, 256, 64], data: Type.from({ length: 3 * 256 * 64 }, (_, i) => ((i * 7919 + seed) % 17) - 8) });
  const [q, k, v] = [1, 2, 3].map((seed) => t(seed, Float32Array));
  const want = pe.attention(q, k, v, { causal: true, dtype: 'float64' }).output.data;
  const got = pe.attention(q, k, v, { causal: true, weights: false }).output.data;
  assert.ok(want.every((x, i) => Math.abs(x - got[i]) <= 1e-5 * 8), 'float32 runs against float64');
  // any typed array of numbers is read through a view of its own type
  const ints = [1, 2, 3].map((seed) => t(seed, Int16Array));
  assert.deepEqual(pe.attention(...ints, { causal: true, weights: false }).output.data, got);
});

test('a negative reservation only asks for room: it grows nothing, and says whether the room is there', async () => {
  // attention(weights: false) checks its inputs in JS only where its buffers would grow memory,
  // so that a refused non-finite input keeps nothing (issue 22) without a scan on every call
  const { raw, pe } = await fresh();
  assert.deepEqual(grows(raw, () => assert.equal(raw.pe_reserve(-64 * MiB), 0)), { count: 0, bytes: 0 });
  assert.equal(raw.pe_reserve(-1024), 1, 'a kilobyte fits a fresh module');
  assert.equal(raw.pe_reserve(4 * MiB), 1);
  assert.deepEqual(grows(raw, () => assert.equal(raw.pe_reserve(-4 * MiB), 1)), { count: 0, bytes: 0 });
  // where the kernel's buffers would grow memory, a non-finite input is refused before they exist
  const { raw: raw2, pe: pe2 } = await fresh();
  const big = (bad) => Float32Array.from({ length: 8 * 2048 * 64 }, (_, i) => (i === bad ? NaN : Math.sin(i)));
  const t = (data) => ({ data, shape: [1, 8, 2048, 64] });
  const refused = grows(raw2, () => assert.throws(() => pe2.attention(t(big(100000)), t(big(-1)), t(big(-1)), { weights: false }), /q\.data\[100000\] must be a finite number/));
  assert.deepEqual(refused, { count: 0, bytes: 0 });
  // and the same call with finite inputs grows memory: the check above was the one that mattered
  assert.ok(grows(raw2, () => pe2.attention(t(big(-1)), t(big(-1)), t(big(-1)), { weights: false })).bytes > 0);
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

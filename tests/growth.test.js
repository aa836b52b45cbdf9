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

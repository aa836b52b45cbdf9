// The debug build keeps the core's C assertions: a broken invariant stops the
// call with a JS error instead of corrupting the heap. Always the debug wasm,
// whichever build the rest of the run uses.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateForTests as instantiate } from './helpers/wasi.js';
import { WASM_BASE64 as DEBUG } from '../dist/debug/posenc-wasm.js';

test('debug build: freeing more than was allocated trips an assertion and throws', async () => {
  const raw = await instantiate(DEBUG);
  const p = raw.pe_malloc(16);
  raw.pe_free(p);
  assert.equal(raw.pe_live_allocations(), 0);
  assert.throws(() => raw.pe_free(p), /aborted \(exit \d+\): Assertion failed: live_allocations > 0/);
});

test('debug build: freeing a chunk twice while others are live trips the allocator\'s assertion', async () => {
  const raw = await instantiate(DEBUG);
  const keep = raw.pe_malloc(64);
  const p = raw.pe_malloc(16);
  raw.pe_free(p);
  assert.throws(() => raw.pe_free(p), /Assertion failed: c->next == IN_USE/);
  assert.ok(keep > 0);
});

// The core's own allocator (c/alloc.c, WebAssembly only): every buffer of
// every call comes from it, so it is tested directly through the raw exports,
// on the build the run asks for (POSENC_BUILD=debug: the -O0 build with C
// assertions). Chunks must be 16-byte aligned, never overlap, keep their
// bytes, merge when freed, and fail cleanly when memory cannot grow.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { instantiateForTests as instantiate } from './helpers/wasi.js';
import { build } from './helpers/load.js';

const MiB = 1 << 20;
const embedded = build === 'debug' ? '../dist/debug/posenc-wasm.js' : '../dist/posenc-wasm.js';
const fresh = async () => instantiate((await import(embedded)).WASM_BASE64);

/** A small deterministic generator (xorshift32), so a failure can be replayed. */
function rng(seed) {
  let s = seed >>> 0 || 1;
  return () => {
    s ^= s << 13; s >>>= 0;
    s ^= s >>> 17;
    s ^= s << 5; s >>>= 0;
    return s / 2 ** 32;
  };
}

test('5000 random allocations and frees: aligned, disjoint, contents kept, nothing left', async () => {
  const raw = await fresh();
  const random = rng(20261121);
  const live = []; // { ptr, size, tag }
  const bytes = (b) => new Uint8Array(raw.memory.buffer, b.ptr, b.size);
  const freeOne = (i) => {
    const b = live[i];
    assert.ok(bytes(b).every((x) => x === b.tag), `chunk at ${b.ptr} (${b.size} bytes) was overwritten`);
    raw.pe_free(b.ptr);
    live.splice(i, 1);
  };
  for (let op = 0; op < 5000; op++) {
    if (live.length > 0 && (live.length >= 40 || random() < 0.45)) {
      freeOne(Math.floor(random() * live.length));
      continue;
    }
    const size = Math.max(1, Math.floor(2 ** (random() * 20))); // 1 B .. 1 MiB, log-uniform
    const ptr = raw.pe_malloc(size);
    assert.ok(ptr > 0, `malloc(${size}) failed`);
    assert.equal(ptr % 16, 0, `malloc(${size}) = ${ptr} is not 16-byte aligned`);
    for (const b of live) {
      assert.ok(ptr + size <= b.ptr || b.ptr + b.size <= ptr, `[${ptr}, +${size}) overlaps [${b.ptr}, +${b.size})`);
    }
    const b = { ptr, size, tag: op % 251 };
    bytes(b).fill(b.tag);
    live.push(b);
  }
  while (live.length) freeOne(live.length - 1);
  assert.equal(raw.pe_live_allocations(), 0);
});

test('freed neighbours merge: after everything is freed, one chunk as large as all of them fits without growing', async () => {
  const raw = await fresh();
  const ptrs = Array.from({ length: 32 }, () => raw.pe_malloc(MiB));
  const grown = raw.memory.buffer.byteLength;
  // free in an order that leaves holes first, so merging must join both sides
  for (let i = 0; i < 32; i += 2) raw.pe_free(ptrs[i]);
  for (let i = 1; i < 32; i += 2) raw.pe_free(ptrs[i]);
  const big = raw.pe_malloc(32 * MiB);
  assert.ok(big > 0);
  assert.equal(raw.memory.buffer.byteLength, grown, 'the merged free space was not reused');
  assert.equal(big, Math.min(...ptrs), 'first fit takes the lowest address');
  raw.pe_free(big);
});

test('a request memory cannot hold returns 0, and the allocator keeps working', async () => {
  const raw = await fresh();
  const before = raw.memory.buffer.byteLength;
  for (const size of [2 ** 31 - 65536, 0x7fff0001, 2 ** 32 - 1]) {
    assert.equal(raw.pe_malloc(size), 0, `malloc(${size})`);
  }
  assert.equal(raw.memory.buffer.byteLength, before, 'a failed request must not grow memory');
  assert.equal(raw.pe_live_allocations(), 0);
  const p = raw.pe_malloc(100);
  assert.ok(p > 0);
  raw.pe_free(p);
  assert.equal(raw.pe_live_allocations(), 0);
});

test('calls reuse the same low memory: a repeated call does not grow the heap', async () => {
  const raw = await fresh();
  const cycle = () => {
    const a = raw.pe_malloc(3 * MiB), b = raw.pe_malloc(5 * MiB), c = raw.pe_malloc(123);
    raw.pe_free(b); raw.pe_free(c); raw.pe_free(a);
    return a;
  };
  const first = cycle();
  const size = raw.memory.buffer.byteLength;
  for (let i = 0; i < 100; i++) assert.equal(cycle(), first);
  assert.equal(raw.memory.buffer.byteLength, size);
});

test('growing extends the free chunk at the end of the heap instead of starting after it', async () => {
  const raw = await fresh();
  const before = raw.memory.buffer.byteLength; // 1 MiB, almost all of it free
  const p = raw.pe_malloc(2 * MiB);
  assert.ok(p > 0);
  const grown = raw.memory.buffer.byteLength - before;
  assert.ok(grown <= 1.25 * MiB, `a 2 MiB chunk grew memory by ${grown / MiB} MiB: the free tail was not used`);
  raw.pe_free(p);
});

test('memory grown by someone else is used, not mistaken for the end of the heap', async () => {
  const raw = await fresh();
  const a = raw.pe_malloc(64);
  raw.memory.grow(1); // the host grows the exported memory behind the allocator's back
  const size = 1200 * 1024; // more than the free tail, less than the tail and the new page
  const big = raw.pe_malloc(size);
  assert.ok(big > 0, 'allocation after an outside memory.grow failed');
  new Uint8Array(raw.memory.buffer, big, size).fill(7);
  raw.pe_free(big);
  raw.pe_free(a);
  assert.equal(raw.pe_live_allocations(), 0);
});

test('a chunk freed twice stops the call before the free list can become a loop', async () => {
  const raw = await fresh();
  const a = raw.pe_malloc(100), b = raw.pe_malloc(100);
  raw.pe_free(a);
  if (build === 'debug') {
    assert.throws(() => raw.pe_free(a), /Assertion failed: c->next == IN_USE/);
    return; // the debug build stops through abort(); the release build traps
  }
  assert.throws(() => raw.pe_free(a), WebAssembly.RuntimeError);
  // nothing was changed: the count and the list are as before, and they work
  assert.equal(raw.pe_live_allocations(), 1);
  const c = raw.pe_malloc(5000);
  assert.ok(c > 0);
  raw.pe_free(c);
  raw.pe_free(b);
  assert.equal(raw.pe_live_allocations(), 0);
});

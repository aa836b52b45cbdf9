// Sizes past 2^32 bytes in the WebAssembly build (issue 22, point 1). wasm32's
// size_t is 32 bits: a byte count summed or multiplied in size_t wraps, passes
// the 1 GiB check and corrupts memory. The native ASan tests cannot see this
// (size_t is 64-bit there), so these run against the wasm modules: the lab's
// largest documented configurations, and a C entry called directly with sizes
// whose product is exactly 2^32.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadLab, build } from './helpers/load.js';
import { instantiateForTests } from './helpers/wasi.js';
import { PE_LAB_MAX_BATCH, PE_LAB_MAX_HEADS, PE_LAB_MAX_TOKENS, PE_LAB_MAX_DMODEL, PE_LAB_MAX_LAYERS,
  PE_LAB_MAX_MLP, PE_ERR_SIZE } from '../dist/constants.js';

const lab = await loadLab();

const refusedForSize = (fn) => (e) => {
  assert.ok(e instanceof RangeError, `${e?.constructor?.name}: ${e?.message}`);
  assert.match(e.message, new RegExp(`^posenc\\.${fn.replace('.', '\\.')}: `));
  assert.match(e.message, /1 GiB|1024 MiB/);
  return true;
};

// The issue's call: batch x heads x maxLength^2 float32 attention weights are
// exactly 2^32 bytes, which the old 32-bit sum took for 0.
const ISSUE = { steps: 3, encoding: 'none', dModel: 16, layers: 1, mlp: 0, batch: 256, heads: 4, trainLengths: [3, 6] };

test('lab.train: attention weights of 2^32 bytes (and just under) are refused, not wrapped to 0', () => {
  for (const maxLength of [1024, 1000]) {
    const before = lab.memoryStats();
    assert.throws(() => lab.train({ ...ISSUE, maxLength }), refusedForSize('lab.train'), `maxLength ${maxLength}`);
    assert.equal(lab.memoryStats().liveAllocations, before.liveAllocations);
  }
});

test('lab.train: the largest documented configurations are refused or trained correctly, never corrupted', () => {
  const max = { dModel: PE_LAB_MAX_DMODEL, heads: PE_LAB_MAX_HEADS, layers: PE_LAB_MAX_LAYERS, mlp: PE_LAB_MAX_MLP,
    batch: PE_LAB_MAX_BATCH, maxLength: PE_LAB_MAX_TOKENS };
  // Every limit at once, and each of the sizes that multiply into the
  // attention buffer at its limit with the others where they pass 2^32 together.
  const configs = [
    max,
    { ...ISSUE, batch: PE_LAB_MAX_BATCH, heads: 4, maxLength: PE_LAB_MAX_TOKENS },
    { ...ISSUE, batch: 64, heads: PE_LAB_MAX_HEADS / 4, maxLength: PE_LAB_MAX_TOKENS },
    { ...ISSUE, batch: 256, heads: 8, maxLength: 1000, encoding: 'learned' },
  ];
  for (const c of configs) {
    assert.throws(() => lab.train({ steps: 1, trainLengths: [3, 6], ...c }), refusedForSize('lab.train'), JSON.stringify(c));
  }
  assert.equal(lab.memoryStats().liveAllocations, 0);
});

test('lab.train: a maxLength the batch does not use changes nothing (no buffer overlaps another)', () => {
  // The symptom of the wrap: losses that differed with maxLength alone. Those
  // of 64 and 256 agree to the bit, and 512 (256 MiB of weights) must too.
  const losses = (maxLength) => lab.train({ ...ISSUE, batch: 32, maxLength }).history.map((h) => h.loss);
  const reference = losses(64);
  assert.deepEqual(losses(512), reference);
});

test('C entries compute sizes in double before any cast: m x d = 2^32 in pe_fourier_random is refused', async () => {
  // Called directly with the module's own export, as the fuzzer calls C: the
  // JS checks would refuse these sizes first. m = d = 2^16 makes the B matrix
  // 2^32 elements, a product that wraps to 0 in a 32-bit size_t; the pointers
  // stand for buffers the call must never reach.
  const dir = build === 'debug' ? '../dist/debug' : '../dist';
  const exports = await import(`${dir}/fields-wasm.js`).then((m) => instantiateForTests(m.WASM_BASE64));
  const p = exports.pe_malloc(64);
  const pages = exports.memory.buffer.byteLength;
  assert.equal(exports.pe_fourier_random(p, 1, p, 1, 2 ** 16, p, 2 ** 16), PE_ERR_SIZE);
  assert.equal(exports.pe_fourier_random(p, 1, p, 2 ** 16, 2 ** 16, p, 1), PE_ERR_SIZE);
  assert.equal(exports.memory.buffer.byteLength, pages);
  exports.pe_free(p);
  assert.equal(exports.pe_live_allocations(), 0);
});

// kvCache.attend's scratch (q and the output) is batch x q's heads x n x
// (headDim + valueDim) float32 values. GQA lets q have many more heads than the
// cache, so a 532 KB cache and a 13.7 MB q made it 2^32 + 64 bytes, which
// pe_malloc (a 32-bit size) took for 64: q was written past them and the
// kernel's output past the end of memory ("offset is out of bounds").
test('kvCache.attend: a scratch of 2^32 + 64 bytes (q with 427,445 GQA heads) is refused, not wrapped to 64', async () => {
  const { init } = await import('../web/lib/index.js');
  const pe = await init();
  const dv = 2504, heads = 427445; // 4 x heads x (8 + dv) = 2^32 + 64
  const cache = pe.kvCache({ heads: 1, headDim: 8, valueDim: dv, maxLength: 1 });
  cache.append({ data: new Float32Array(8).fill(0.5), dims: [1, 1, 1, 8] }, { data: new Float32Array(dv).fill(1), dims: [1, 1, 1, dv] });
  const before = pe.memoryStats();
  assert.throws(() => cache.attend({ data: new Float32Array(heads * 8), dims: [1, heads, 1, 8] }), refusedForSize('kvCache.attend'));
  assert.deepEqual(pe.memoryStats(), before);
  // the same cache still answers (one query head per key head)
  assert.deepEqual([...cache.attend({ data: new Float32Array(8), dims: [1, 1, 1, 8] }).data.subarray(0, 3)], [1, 1, 1]);
  cache.free();
});

// The class behind that case: any size a JS caller computes reaches C as a
// 32-bit size_t. Every allocation of the JS API goes through heap.js's malloc,
// which refuses more than one call's limit before the cast, so a size some
// caller forgot to check cannot wrap into a small buffer.
test('every JS allocation is refused past 1 GiB before it reaches the 32-bit pe_malloc (which would take 2^32 + 64 for 64)', async () => {
  const { malloc, Frame } = await import('../web/lib/heap.js');
  const dir = build === 'debug' ? '../dist/debug' : '../dist';
  const wasm = await import(`${dir}/posenc-wasm.js`).then((m) => instantiateForTests(m.WASM_BASE64));
  const wrapped = wasm.pe_malloc(2 ** 32 + 64); // what the raw export does with such a size: a 64-byte buffer
  assert.notEqual(wrapped, 0);
  wasm.pe_free(wrapped);
  const pages = wasm.memory.buffer.byteLength;
  for (const bytes of [2 ** 32 + 64, 2 ** 32, 2 ** 30 + 1, 2 ** 53, Infinity, NaN]) assert.equal(malloc(wasm, bytes), 0, String(bytes));
  const p = malloc(wasm, 64);
  assert.notEqual(p, 0);
  wasm.pe_free(p);
  const frame = new Frame(wasm, 'test');
  assert.throws(() => frame.alloc(2 ** 32 + 64), /^RangeError: posenc\.test: WebAssembly memory is exhausted \(could not allocate 4294967360 bytes\)$/);
  assert.equal(wasm.memory.buffer.byteLength, pages);
  assert.equal(wasm.pe_live_allocations(), 0);
});

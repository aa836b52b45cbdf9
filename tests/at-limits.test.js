// Every entry's calls at their documented limits (docs/limits.md), in the
// WebAssembly build (issue 22, point 1): each size at its largest accepted
// value with the others small, one past it, and all of them at once. A call
// returns, or throws a posenc RangeError / TypeError; no WebAssembly
// RuntimeError (an out-of-bounds access, a trap) or foreign exception
// escapes, and nothing stays allocated. Sizes whose work would take seconds
// at the limit (docs/limits.md, Time) are driven one past it or in
// combination, where the checks refuse them before any work.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { loadAll } from './helpers/calls.js';

const { posenc: pe, variants: pv, fields: pf, lab } = await loadAll();
const N = 2 ** 24; // PE_MAX_DIM
const big = (rows, cols) => ({ rows, cols, data: { length: rows * cols } });
const one = [[1]];

const CALLS = [
  [pe, 'table', [N, 1]], [pe, 'table', [1, N + 1]], [pe, 'table', [N + 1, 1]], [pe, 'table', [N, N]],
  [pe, 'table', [1, 1, { offset: 2 ** 31 }]], [pe, 'table', [2, 1, { offset: 2 ** 31 - 1 }]],
  [pe, 'frequencies', [N + 1]], [pe, 'columns', [N]],
  [pe, 'tableGram', [1, N + 1]], [pe, 'tableGram', [N, 1]], [pe, 'tableGram', [N, N]],
  [pe, 'dot', [{ length: N + 1 }, { length: N + 1 }]], [pe, 'norms', [big(N, N)]], [pe, 'gram', [big(N, 1)]],
  [pe, 'rotation', [2 ** 31, 2]], [pe, 'rotation', [1, 16384]], [pe, 'rotation', [1, 16386]],
  [pe, 'toyAttention', [{ length: N + 1 }]],
  [pe, 'attention', [big(N, 1), big(N, 1), big(N, 1)]], [pe, 'attention', [one, big(N, 1), big(N, 1)]],
  [pv, 'ropeFrequencies', [N + 2]], [pv, 'ropeCache', [1, N + 2]], [pv, 'ropeCache', [N, N]], [pv, 'ropeCache', [16, N]],
  [pv, 'ropeCache', [1, 2, { offset: 2 ** 31 }]], [pv, 'ropeApply', [big(N, N)]],
  [pv, 'ropePermutation', [N]], [pv, 'ropePermutation', [N, { heads: N }]], [pv, 'ropePermute', [big(N, N)]],
  [pv, 'alibiSlopes', [65536]], [pv, 'alibiSlopes', [65537]], [pv, 'alibiBias', [65536, 1]],
  [pv, 'alibiBias', [65536, N, { kLen: N }]], [pv, 'alibiBias', [1, 1, { queryOffset: 2 ** 31 - 2 }]],
  [pv, 't5Bucket', [{ length: N + 1 }]], [pv, 't5Bucket', [[2 ** 31, -(2 ** 31)], { numBuckets: 65536 }]],
  [pv, 't5BucketMatrix', [N, { kLen: N }]], [pv, 'shawClip', [N, { kLen: N, maxRelativePosition: N }]],
  [pv, 'learnedTable', [N, N]], [pv, 'learnedTable', [1, 2 ** 26 + 1]], [pv, 'learnedRows', [[0], N, 4]],
  [pv, 'binaryTable', [N, 64]], [pv, 'binaryTable', [1, 64, { offset: 2 ** 31 - 1 }]],
  [pv, 'roundTo', [{ length: N + 1 }, 'float16']], [pv, 'formatBits', [{ length: N + 1 }, 'bfloat16']],
  [pv, 'precisionError', [N, { count: 3 }]],
  [pf, 'timestepEmbedding', [[1], N + 2]], [pf, 'timestepEmbedding', [{ length: N }, N]],
  [pf, 'sincos1d', [[0], N + 4]], [pf, 'sincos2d', [65536, 65536, 16]], [pf, 'sincos2d', [1, 1, N, { extraTokens: 65536 }]],
  [pf, 'fourierFeatures', [{ rows: 1, cols: 1, data: [1] }, { levels: 1024, maxFreqLog2: 64 }]],
  [pf, 'fourierFeatures', [big(N, N)]],
  [pf, 'randomFourierFeatures', [{ rows: 1, cols: 1, data: [0.5] }, { features: 65536, sigma: 1e6 }]],
  [lab, 'train', [{ steps: 1, dModel: 512, heads: 64, layers: 4, mlp: 4096, batch: 1024, maxLength: 1024 }]],
  [lab, 'train', [{ steps: 1, dModel: 512, heads: 4, layers: 1, mlp: 4096, batch: 1, maxLength: 1024, trainLengths: [3, 4], encoding: 't5' }]],
  [lab, 'examples', [{ task: 'copy', length: 1024, count: 65536 }]],
];

test('every entry at its documented limits: a result or a posenc error, never a wasm RuntimeError', () => {
  for (const [api, fn, args] of CALLS) {
    const label = `${fn}(${args.map((a) => JSON.stringify(a)?.slice(0, 60)).join(', ')})`;
    try {
      api[fn](...args);
    } catch (e) {
      assert.ok(!(e instanceof WebAssembly.RuntimeError), `${label}: ${e}`);
      assert.ok((e instanceof RangeError || e instanceof TypeError) && /^posenc\.\S+: /.test(e.message), `${label}: ${e?.constructor?.name}: ${e?.message}`);
    }
    assert.equal(api.memoryStats().liveAllocations, 0, label);
  }
});

// Fifth adversarial pass (issue 22): every size argument of each function at
// its documented maximum at once, all one past, each one past with the others
// at their maxima, and each pair of sizes at products of 2^32 + a little (2^16
// × 2^16, 65537 × 65535, 2^8 × 2^24, 4097 × 2^20) with the rest 1: 460 calls.
// Each is accepted (small) or refused by a posenc error before any
// allocation: memoryStats() does not move across a refusal, nothing stays
// allocated, and no wrapped product is taken for a small one.
const fake = (shape) => ({ shape, data: { length: shape.reduce((a, b) => a * b, 1) } }); // refused before data is read
const like = (n) => ({ length: n });
const even = (n, k = 2) => n - (n % k);
const SIZED = [ // [api, fn, maxima, sizes -> args]
  [pe, 'table', [N, N], ([a, b]) => [a, b]], [pe, 'table', [N, N], ([a, b]) => [a, b, { dtype: 'float16' }]],
  [pe, 'frequencies', [N], ([a]) => [a]], [pe, 'columns', [N], ([a]) => [a]], [pe, 'tableGram', [N, N], ([a, b]) => [a, b]],
  [pe, 'rotation', [16384], ([d]) => [2 ** 31 - 1, d]], [pe, 'dot', [N], ([n]) => [like(n), like(n)]],
  [pe, 'norms', [N, N], ([r, c]) => [fake([r, c])]], [pe, 'gram', [N, N], ([r, c]) => [fake([r, c]), { cosine: true }]],
  [pe, 'toyAttention', [N], ([n]) => [like(n), like(n), { weights: like(n) }]],
  [pe, 'attention', [N, N, N, N], ([b, h, n, d]) => [fake([b, h, n, d]), fake([b, h, n, d]), fake([b, h, n, d])]],
  [pe, 'attention', [N, N, N, N], ([b, h, n, d]) => [fake([b, h, n, d]), fake([b, 1, 1, d]), fake([b, 1, 1, 8]), { dtype: 'float32' }]],
  [pe, 'kvCache', [N, N, N, N, N], ([heads, headDim, v, maxLength, batch]) => [{ heads, headDim, valueDim: even(v, 8), maxLength, batch }]],
  [pv, 'ropeFrequencies', [N], ([d]) => [even(d)]], [pv, 'ropeCache', [N, N], ([l, d]) => [l, even(d), { dtype: 'float64' }]],
  [pv, 'ropeApply', [N, N, N, N], ([b, h, s, d]) => [fake([b, h, s, even(d)])]], [pv, 'rope', [N, N], ([d, maxLen]) => [{ dim: even(d), maxLen }]],
  [pv, 'ropePermutation', [N, N], ([d, heads]) => [even(d), { heads }]], [pv, 'ropePermute', [N, N], ([r, c]) => [fake([r, c]), { headDim: 2 }]],
  [pv, 'alibiSlopes', [65536], ([h]) => [h]], [pv, 'alibiBias', [65536, N, N], ([h, q, kLen]) => [h, q, { kLen }]],
  [pv, 't5Bucket', [N], ([n]) => [like(n), { numBuckets: 65536 }]], [pv, 't5BucketMatrix', [N, N], ([q, kLen]) => [q, { kLen, numBuckets: 65536 }]],
  [pv, 'shawClip', [N, N, N], ([q, kLen, m]) => [q, { kLen, maxRelativePosition: m }]],
  [pv, 'learnedTable', [N, N], ([a, b]) => [a, b]], [pv, 'learnedRows', [N, N, N], ([n, t, d]) => [like(n), t, d]],
  [pv, 'binaryTable', [N, 64], ([n, b]) => [n, b]], [pv, 'roundTo', [N], ([n]) => [like(n), 'float16']], [pv, 'formatBits', [N], ([n]) => [like(n), 'bfloat16']],
  [pv, 'precisionError', [N, N], ([d, count]) => [even(d), { count }]],
  [pv, 'mropeCache', [N, N], ([s, d]) => [fake([3, s]), even(d), { section: [1, 1, 2] }]],
  [pv, 'ropeAxialCache', [N, 2 ** 20], ([s, a]) => [fake([s, 2]), { axesDim: [even(a), even(a)] }]], [pv, 'ropeGridIds', [N, N], ([h, w]) => [h, w, { axes: 3 }]],
  [pf, 'timestepEmbedding', [N, N], ([n, d]) => [like(n), even(d)]], [pf, 'sincos1d', [N, N], ([n, d]) => [like(n), even(d, 4)]],
  [pf, 'sincos2d', [65536, 65536, N, 65536], ([h, w, d, extraTokens]) => [h, w, even(d, 4), { extraTokens }]],
  [pf, 'fourierFeatures', [N, N, 1024], ([r, c, levels]) => [fake([r, c]), { levels }]],
  [pf, 'randomFourierFeatures', [N, N, 65536], ([r, c, features]) => [fake([r, c]), { features }]],
  [lab, 'examples', [1024, 65536], ([length, count]) => [{ task: 'copy', length, count }]],
  [lab, 'train', [512, 64, 4, 4096, 1024, 1024], ([dModel, heads, layers, mlp, batch, maxLength]) => [{ steps: 1, dModel: even(dModel, heads), heads, layers, mlp, batch, maxLength }]],
];
const WRAPS = [[2 ** 16, 2 ** 16], [65537, 65535], [2 ** 16 + 1, 2 ** 16 + 1], [2 ** 8, 2 ** 24], [4097, 2 ** 20]];

test('every size of each function at its maximum at once, one past, and pairs whose product passes 2^32: refused before any allocation', () => {
  let calls = 0, refused = 0;
  for (const [api, fn, max, args] of SIZED) {
    const combos = [max, max.map((m) => m + 1), ...max.map((_, i) => max.map((m, j) => (i === j ? m + 1 : m)))];
    for (let i = 0; i < max.length; i++) {
      for (let j = i + 1; j < max.length; j++) {
        for (const [a, b] of WRAPS) if (a <= max[i] && b <= max[j]) combos.push(max.map((_, k) => (k === i ? a : k === j ? b : 1)));
      }
    }
    for (const sizes of combos) {
      const label = `${fn}(${sizes})`, before = api.memoryStats();
      calls++;
      try {
        api[fn](...args(sizes))?.free?.();
      } catch (e) {
        assert.ok((e instanceof RangeError || e instanceof TypeError) && /^posenc\.\S+: /.test(e.message), `${label}: ${e?.constructor?.name}: ${e?.message}`);
        assert.deepEqual(api.memoryStats(), before, `${label}: ${e.message}`);
        refused++;
      }
      assert.equal(api.memoryStats().liveAllocations, 0, label);
    }
  }
  assert.equal(calls, 460);
  assert.ok(refused >= 430, `${refused} refused`);
});

// precisionError's count: the positions 0..count - 1 were made (a 2^24
// Float64Array.from, 128 MiB of JS memory and half a second) before the
// positions x dModel bound refused the call. Counted by a spy on
// Float64Array.from, not timed.
test('precisionError refuses count x dModel past its bound before making the positions', () => {
  const from = Float64Array.from, made = [];
  Float64Array.from = function (source, ...rest) {
    made.push(source?.length);
    return from.call(this, source, ...rest);
  };
  try {
    assert.throws(() => pv.precisionError(N, { count: N }), /^RangeError: posenc\.precisionError: positions × dModel must be at most/);
    assert.throws(() => pv.precisionError(2 ** 10, { count: 2 ** 16 }), /positions × dModel/);
  } finally {
    Float64Array.from = from;
  }
  assert.ok(made.every((n) => !(n > 2 ** 10)), `made: ${made}`);
  assert.equal(pv.precisionError(8, { count: 4 }).length, 4);
});

test('twenty-eighth pass: ropeGridIds takes an offset whose last id is 2^31, as ropeAxialCache takes that id (it refused it, one short)', () => {
  const ids = pv.ropeGridIds(2, 3, { offset: 2 ** 31 - 2 });
  assert.equal(Math.max(...ids.data), 2 ** 31);
  assert.deepEqual(Array.from(pv.ropeAxialCache(ids, { axesDim: [2, 2], dtype: 'float64' }).cos.data.subarray(-4)),
    Array.from(pv.ropeAxialCache([[2 ** 31 - 1, 2 ** 31]], { axesDim: [2, 2], dtype: 'float64' }).cos.data));
  assert.throws(() => pv.ropeGridIds(2, 3, { offset: 2 ** 31 - 1 }), { name: 'RangeError', message: /offset must be an integer from -2147483648 to 2147483646 \(got 2147483647\)/ });
  assert.throws(() => pv.ropeGridIds(1, 1, { offset: 2 ** 31 + 1 }), { name: 'RangeError', message: /to 2147483648 \(got 2147483649\)/ });
  assert.equal(pv.ropeGridIds(1, 1, { offset: 2 ** 31 }).data[1], 2 ** 31);
});

test('the handles\' largest sizes are the ones docs/limits.md states (thirty-second pass: it left out 28 bytes and 1 KiB)', async () => {
  // Only the refusals are called (the sizes accepted hold a GiB): one past each limit the table states, and the sizes
  // the table's old words allowed (a cache of exactly 1 GiB less 4 KiB; a RoPE handle short of its generator's 1 KiB).
  const { readFileSync } = await import('node:fs');
  const limits = readFileSync(new URL('../docs/limits.md', import.meta.url), 'utf8');
  assert.match(limits, /float32 values, at most 1 GiB less 4 KiB and 28 bytes \(the kernel's seven sizes\)/);
  assert.match(limits, /its cache generator's 28 bytes a column and 1 KiB while it is made/);
  const room = 2 ** 30 - 4096;
  // a cache: 4 × 2 × 512 bytes a position; 262143 positions hold exactly 1 GiB less 4 KiB
  assert.equal(262143 * 2 * 512 * 4, room);
  assert.throws(() => pe.kvCache({ heads: 1, headDim: 512, maxLength: 262143 }), /^RangeError: posenc\.kvCache: this call would need/);
  // the largest stated: (room - 28) / 4096 = 262142.99 positions
  assert.equal(Math.floor((room - 28) / 4096), 262142);
  // a RoPE handle of dim 8 in float32: 64 bytes a position, and 28 × 8 + 1024 of its generator
  const most = Math.floor((room - 28 * 8 - 1024) / 64);
  assert.throws(() => pv.rope({ dim: 8, maxLen: most + 1 }), /^RangeError: posenc\.rope: this call would need/);
  assert.ok(Math.floor((room - 28 * 8) / 64) > most); // what the old words allowed was refused
  assert.equal(pe.memoryStats().liveAllocations + pv.memoryStats().liveAllocations, 0);
});

test('rotation\'s largest dModel is the one docs/limits.md states (thirty-second pass: "≤ 16 384", though its float64 matrix passes 1 GiB from 11 586)', async () => {
  const { readFileSync } = await import('node:fs');
  assert.match(readFileSync(new URL('../docs/limits.md', import.meta.url), 'utf8'), /`rotation` dModel ≤ 16 384 and even, and its dModel × dModel float64 matrix within one call's 1 GiB \(11 584 is the largest made\)/);
  const bytes = (d) => d * d * 8;
  assert.ok(bytes(11584) <= 2 ** 30 && bytes(11586) > 2 ** 30);
  for (const dModel of [11586, 16384]) {
    for (const dtype of ['float32', 'float16']) {
      assert.throws(() => pe.rotation(1, dModel, { dtype }), /^RangeError: posenc\.rotation: this call would need/, `${dModel} ${dtype}`);
    }
  }
  assert.equal(pe.memoryStats().liveAllocations, 0);
});

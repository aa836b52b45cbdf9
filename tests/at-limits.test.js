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

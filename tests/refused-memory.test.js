// A refused call keeps no memory (issue 22, point 3). Every function counts
// its whole footprint (outputs, input copies and the C core's scratch) before
// its first allocation, so a call refused for its size grows nothing: after
// `table(16, 2**24)` once grew WebAssembly memory from 1 MiB to 1 GiB (its
// 1 GiB chunk was allocated before the core refused its scratch), a page that
// probed a size held a gigabyte for good. Each entry is a fresh instance, so
// "nothing moved" is measured from the module's first megabyte.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { freshModules, loadLab, build } from './helpers/load.js';
import { instantiateForTests } from './helpers/wasi.js';
import { createVariants } from '../web/lib/variants/api.js';
import { createApi } from '../web/lib/api.js';
import { createLab } from '../web/lib/lab/api.js';
import { CALLS } from './helpers/calls.js';

const { pe, pv, pf } = await freshModules();
const lab = await loadLab();
const apis = { posenc: pe, variants: pv, fields: pf, lab };

const NTK = { base: 1e306, scaling: { type: 'ntk', factor: 1000 } };
/** 2^18 points, the last one `x`: refused for that one after every other is read. */
const edge = (x) => Float64Array.from({ length: 2 ** 18 }, (_, i) => (i === 2 ** 18 - 1 ? x : 0));
const big = (rows, cols) => ({ rows, cols, data: { length: rows * cols } }); // refused before data is read
// Dynamic NTK's base grows with the call's largest position: fine at position 0, past the largest double at 2^16.
const DYNAMIC = { base: 1e300, scaling: { type: 'dynamic', factor: 1e6, maxPosition: 1 } };
/** n positions (or ids), the last one past 2^31. */
const far = (n) => Float64Array.from({ length: n }, (_, i) => (i === n - 1 ? 2 ** 31 + 1 : 0));
/** q, k or v of 8 heads × 1024 × 64 float32 values, the last one `x`. */
const heads = (x) => ({ shape: [1, 8, 1024, 64], data: Float32Array.from({ length: 2 ** 19 }, (_, i) => (i === 2 ** 19 - 1 ? x : 0.5)) });
const ISSUE = { steps: 3, encoding: 'none', dModel: 16, layers: 1, mlp: 0, batch: 256, heads: 4, trainLengths: [3, 6] };

// [entry, fn, args]: for each function, calls refused for their size (first,
// those the core used to refuse after the output had been allocated), then
// for a value, where size is not what limits it.
const REFUSED = [
  ['posenc', 'table', [16, 2 ** 24]], ['posenc', 'table', [2 ** 24, 2 ** 24]],
  ['posenc', 'tableGram', [7, 2 ** 24]], ['posenc', 'tableGram', [2 ** 16, 2]],
  ['posenc', 'frequencies', [2 ** 24 + 1]], ['posenc', 'columns', [2 ** 24 + 1]],
  ['posenc', 'dot', [[1, 2], [1]]], ['posenc', 'norms', [big(2 ** 24, 2 ** 24)]], ['posenc', 'gram', [big(20000, 1)]],
  ['posenc', 'rotation', [1, 16384]], ['posenc', 'toyAttention', [[1, 2], [1]]],
  ['posenc', 'attention', [big(2 ** 15, 1), big(2 ** 15, 1), big(2 ** 15, 1)]],
  // issue 22's thirteenth pass: the float32 kernel (weights: false) found a non-finite k after its 1 MiB run was allocated
  ['posenc', 'attention', [heads(0.5), heads(-Infinity), heads(0.5), { weights: false }]],
  ['posenc', 'kvCache', [{ heads: 1024, headDim: 4096, maxLength: 2 ** 20 }]],
  ['variants', 'ropeCache', [16, 2 ** 24]], ['variants', 'ropeCache', [2 ** 24, 1024]],
  ['variants', 'ropeFrequencies', [2 ** 24 + 2]], ['variants', 'ropeApply', [big(2 ** 24, 2 ** 10)]], ['variants', 'rope', [{ dim: 1024, maxLen: 2 ** 24 }]],
  // the cache generator's 320 MiB (5 × dim / 2 doubles) was made, growing memory, before caches of 1 GiB were refused (twenty-fifth pass)
  ['variants', 'rope', [{ dim: 2 ** 24, maxLen: 8 }]],
  ['variants', 'ropeFromConfig', [{ head_dim: 2 ** 21 }]], ['variants', 'ropeFromConfig', [{ head_dim: 8, rope_scaling: { rope_type: 'linear', factor: 1e7 } }]],
  // an odd FLUX axis was refused by the core after the axes before it had formed their frequencies (4 MiB kept; eighteenth pass)
  ['variants', 'ropeFromConfig', [{ axes_dims_rope: [2 ** 19, 3] }]],
  ['variants', 'ropePermutation', [2 ** 24, { heads: 2 ** 24 }]], ['variants', 'ropePermute', [big(2 ** 20, 2 ** 10)]],
  ['variants', 'alibiSlopes', [65537]], ['variants', 'alibiBias', [65536, 4096]],
  ['variants', 't5Bucket', [{ length: 2 ** 24 + 1 }]], ['variants', 't5BucketMatrix', [2 ** 16, { kLen: 2 ** 16 }]],
  ['variants', 'shawClip', [2 ** 16, { kLen: 2 ** 16 }]], ['variants', 'learnedTable', [2 ** 24, 2 ** 24]],
  ['variants', 'learnedRows', [[0, 1, 2, 3, 4], 8, 2 ** 24]], ['variants', 'binaryTable', [2 ** 24, 64]],
  ['variants', 'roundTo', [{ length: 2 ** 24 + 1 }, 'float16']], ['variants', 'formatBits', [{ length: 2 ** 24 + 1 }, 'float16']],
  ['variants', 'precisionError', [2 ** 24, { count: 2 ** 24 }]],
  ['variants', 'mropePositions', [[{ video: [2 ** 16, 2 ** 10, 2 ** 10] }]]], ['variants', 'mropeCache', [big(3, 2 ** 22), 2 ** 10, { section: [2 ** 8, 2 ** 8, 2 ** 8] }]],
  ['variants', 'ropeAxialCache', [big(2 ** 22, 2), { axesDim: [2 ** 9, 2 ** 9] }]], ['variants', 'ropeGridIds', [2 ** 14, 2 ** 14]],
  // Outputs under 1 GiB, frequency scratch past it: counted short, these grew memory to ~1 GiB and kept it.
  ['variants', 'mropeCache', [{ shape: [3, 7], data: new Float64Array(21) }, 2 ** 24, { section: [2 ** 22, 2 ** 21, 2 ** 21] }]],
  ['variants', 'ropeAxialCache', [{ shape: [7, 16], data: new Float64Array(112) }, { axesDim: Array(16).fill(2 ** 20) }]],
  // NTK's base × factor^(d/(d−2)) past the largest double (status 7): refused by the frequencies, which were
  // formed only after the call's memory was reserved (ropeApply kept 66 MiB, rope() 200 MiB; seventh pass).
  ['variants', 'ropeApply', [{ shape: [2 ** 16, 128], data: new Float32Array(2 ** 23) }, NTK]],
  ['variants', 'rope', [{ dim: 128, maxLen: 2 ** 18, ...NTK }]],
  ['variants', 'mropeCache', [{ shape: [3, 2 ** 16], data: new Float64Array(3 * 2 ** 16) }, 128, { section: [16, 24, 24], ...NTK }]],
  ['variants', 'ropeApply', [{ shape: [2 ** 16, 128], data: new Float32Array(2 ** 23) },
    { positions: { shape: [3, 2 ** 16], data: new Float64Array(3 * 2 ** 16) }, section: [16, 24, 24], ...NTK }]],
  // A float16 or bfloat16 maskValue past the type's range was refused only as an overflowing result, after the work.
  ['variants', 'alibiBias', [16, 2048, { maskValue: -1e6, dtype: 'float16' }]],
  ['variants', 'alibiBias', [16, 2048, { maskValue: -1e39, dtype: 'bfloat16' }]],
  // A float16 bias past 65519 (the largest slope × the longest distance, here from queryOffset or kLen) was
  // refused only as an overflowing result, after the work (511 MiB kept; seventh pass, left for the size budget).
  ['variants', 'alibiBias', [16, 2048, { queryOffset: 2 ** 30, dtype: 'float16' }]],
  ['variants', 'alibiBias', [1, 1, { kLen: 2 ** 24, mode: 'symmetric', dtype: 'float16' }]],
  // So was a float16 Gram whose diagonal, dModel / 2, is past 65519 (132 MiB kept).
  ['posenc', 'tableGram', [64, 2 ** 18, { dtype: 'float16' }]],
  // Eighth pass. A scaling the core refuses (status 7) was refused only after the output or the caches had been
  // allocated: NTK's base past the largest double (ropeFrequencies kept 64 MiB, ropeCache 32; ropeApply and
  // rope() 16, the seventh pass's early frequencies allocating dim / 2 doubles twice), or past it only at the
  // call's own positions, dynamic NTK's (checked at position 0 before: rope() and ropeApply kept 64 MiB) ...
  ['variants', 'ropeFrequencies', [2 ** 24, NTK]], ['variants', 'ropeCache', [1, 2 ** 22, NTK]],
  ['variants', 'ropeApply', [{ shape: [1, 2 ** 22], data: new Float32Array(2 ** 22) }, NTK]], ['variants', 'rope', [{ dim: 2 ** 22, maxLen: 1, ...NTK }]],
  ['variants', 'rope', [{ dim: 128, maxLen: 2 ** 16, ...DYNAMIC }]], ['variants', 'ropeApply', [{ shape: [2 ** 16, 128], data: new Float32Array(2 ** 23) }, DYNAMIC]],
  // ... or a yarn or longrope factor implied by maxPosition / originalMaxPosition outside 10^-3 .. 10^6 (64 MiB).
  ['variants', 'ropeFrequencies', [2 ** 24, { scaling: { type: 'yarn', maxPosition: 2 ** 31, originalMaxPosition: 1 } }]],
  // A float16 cache whose attention factor (a cos of 1 times it) passes 65504 was refused after the work (128 MiB kept).
  ['variants', 'mropeCache', [{ shape: [3, 2 ** 16], data: new Float64Array(3 * 2 ** 16) }, 128,
    { section: [16, 24, 24], dtype: 'float16', scaling: { type: 'yarn', factor: 2, originalMaxPosition: 4096, attentionFactor: 1e5 } }]],
  // Multi-axis positions past ±2^31 were refused by the core after the output was allocated (64 MiB kept).
  ['variants', 'mropeCache', [{ shape: [3, 2 ** 16], data: far(3 * 2 ** 16) }, 128, { section: [16, 24, 24] }]],
  ['variants', 'ropeAxialCache', [{ shape: [2 ** 16, 3], data: far(3 * 2 ** 16) }, { axesDim: [16, 56, 56] }]],
  ['variants', 'ropeApply', [{ shape: [2 ** 14, 128], data: new Float64Array(2 ** 21) }, { section: [16, 24, 24], positions: { shape: [3, 2 ** 14], data: far(3 * 2 ** 14) } }]],
  ['variants', 'ropeApply', [{ shape: [2 ** 14, 128], data: new Float64Array(2 ** 21) }, { axesDim: [16, 56, 56], positions: { shape: [2 ** 14, 3], data: far(3 * 2 ** 14) } }]],
  // ... and before the frequencies are formed: a head of 2^18 has 1 MiB of them (the eighteenth pass formed them
  // first, for a scaling's refusal, and a refused position then kept the memory they grew).
  ['variants', 'mropeCache', [{ shape: [3, 2], data: far(6) }, 2 ** 18, { section: [2 ** 16, 2 ** 15, 2 ** 15] }]],
  ['variants', 'ropeAxialCache', [{ shape: [2, 2], data: far(4) }, { axesDim: [2 ** 17, 2 ** 17] }]],
  ['variants', 'ropeApply', [{ shape: [2, 2 ** 18], data: new Float32Array(2 ** 19) }, { section: [2 ** 16, 2 ** 15, 2 ** 15], positions: { shape: [3, 2], data: far(6) } }]],
  // ... and a float16 cache's attention factor past 65504 before them too (the twentieth pass: refused after
  // they were formed, 1 MiB to 2.2 MiB).
  ['variants', 'mropeCache', [[[0], [0], [0]], 2 ** 18,
    { section: [2 ** 17 - 2, 1, 1], dtype: 'float16', scaling: { type: 'yarn', factor: 2, originalMaxPosition: 16, attentionFactor: 1e5 } }]],
  // ropePermute's result holds its input's values: one past the dtype's range was refused after the work (4 MiB).
  ['variants', 'ropePermute', [{ shape: [2 ** 11, 128], data: edge(1e39) }]],
  ['variants', 'ropePermute', [{ shape: [2 ** 11, 128], data: edge(65520) }, { dtype: 'float16' }]],
  ['fields', 'timestepEmbedding', [{ length: 2 ** 24 }, 2 ** 24]], ['fields', 'sincos1d', [{ length: 2 ** 24 }, 2 ** 24]],
  ['fields', 'sincos2d', [65536, 65536, 16]], ['fields', 'fourierFeatures', [big(2 ** 24, 2 ** 24)]],
  ['fields', 'randomFourierFeatures', [big(2 ** 24, 2), { features: 65536 }]],
  // A point within 2^42 / 2^maxFreqLog2 that the core's own highest band (its pow, a few ulps above) put past
  // 2^42: refused by the core after 100 MiB were allocated, as "a position ... outside +-2^31" (seventh pass).
  ['fields', 'fourierFeatures', [edge(4.046021175601265), { levels: 49, maxFreqLog2: 38.332, pi: true }]],
  // Copied into a float16 result by includeInput (nerf-pytorch's default), a point past 65504 was refused as
  // an overflowing result after the work (45 MiB kept).
  ['fields', 'fourierFeatures', [edge(1e5), { dtype: 'float16' }]],
  // A given B's angle bound is known before anything is drawn: it was checked only by the core, after allocating.
  ['fields', 'randomFourierFeatures', [edge(2 ** 42 / (6 * Math.PI) * 1.5), { B: { rows: 2, cols: 1, data: [3, -1] } }]],
  // ... and a drawn one's from its seed, by the core, without B: drawn beside the result, B was refused by the core,
  // the result's memory kept (514 MiB here; twenty-second pass), and drawn alone first, what B took stayed (m × d
  // doubles: 32 MiB for 4096 features of 1024 coordinates, 512 MiB at 65 536; twenty-sixth pass).
  ['fields', 'randomFourierFeatures', [edge(1e10), { features: 256, sigma: 1000 }]],
  ['fields', 'randomFourierFeatures', [{ rows: 1, cols: 1024, data: new Float64Array(1024).fill(1e12) }, { features: 4096, sigma: 10 }]],
  ['lab', 'train', [{ ...ISSUE, maxLength: 1024 }]], ['lab', 'train', [{ ...ISSUE, batch: 1024, maxLength: 1024, heads: 64, dModel: 512 }]],
  // trainAsync rejects (the test awaits every call), before its model or its frame is made
  ['lab', 'trainAsync', [{ ...ISSUE, maxLength: 1024 }]], ['lab', 'trainAsync', [{ ...ISSUE, signal: 'stop' }]],
  ['lab', 'examples', [{ task: 'shift', length: 4, count: 2 ** 20 }]],
];

test('the list refuses a call of every public function of every entry', () => {
  for (const [entry, api] of Object.entries(apis)) {
    const listed = new Set(REFUSED.filter(([e]) => e === entry).map(([, fn]) => fn));
    const functions = Object.keys(api).filter((k) => typeof api[k] === 'function' && k !== 'memoryStats');
    // the lab's model-taking functions need a model first: below
    const missing = functions.filter((fn) => !listed.has(fn) && !['evaluate', 'attentionMaps', 'loss', 'tensors'].includes(fn));
    assert.deepEqual(missing, [], `${entry}: functions with no refused call here`);
  }
});

test('a refused call leaves WebAssembly memory exactly as it was, for every function of every entry', async () => {
  for (const [entry, fn, args] of REFUSED) {
    const api = apis[entry];
    const before = api.memoryStats();
    await assert.rejects(async () => api[fn](...args), (e) => (e instanceof RangeError || e instanceof TypeError) && /^posenc\.\S+: /.test(e.message),
      `${entry}.${fn}`);
    assert.deepEqual(api.memoryStats(), before, `${entry}.${fn}(${args.map((a) => JSON.stringify(a)?.slice(0, 40)).join(', ')}) moved memory`);
  }
  // and every entry still works, at the size it had
  for (const [entry, calls] of Object.entries(CALLS)) {
    for (const [fn, args, options] of calls.slice(0, 3)) apis[entry][fn](...args, options);
  }
  assert.equal(pe.memoryStats().bytes, 2 ** 20, 'the core never grew past its first megabyte');
});

test('lab: refused evaluate and attentionMaps of a model keep no memory either', () => {
  const { model } = lab.train({ steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2 });
  for (const call of [
    () => lab.evaluate(model, { length: 4, samples: 2 ** 21 }),
    () => lab.attentionMaps(model, new Array(5000).fill(0)),
  ]) {
    const before = lab.memoryStats();
    assert.throws(call, (e) => /^posenc\.\S+: /.test(e.message));
    assert.deepEqual(lab.memoryStats(), before);
  }
});

test('lab: a model and its attention maps within a few bytes of the limit are refused before the model is made (twenty-fourth pass)', () => {
  // maxLength 382, batch 43 and 375 tokens: the model's bytes and the maps' came to 20 bytes under 1 GiB, counted
  // without the model's struct, the frame's config blocks and the chunk headers. The model was made (memory grown to
  // 1006 MiB), then its maps refused as "WebAssembly memory is exhausted", the memory kept. Found by a search of
  // pe_lab_model_bytes in the release build (float32 reals; the debug build's float64 model is refused by far); a T5
  // model's parameters do not depend on maxLength or batch.
  const { model } = lab.train({ task: 'copy', steps: 1, encoding: 't5', dModel: 64, heads: 8, layers: 4, mlp: 64, batch: 1, maxLength: 64 });
  const before = lab.memoryStats();
  assert.throws(() => lab.attentionMaps({ config: { ...model.config, maxLength: 382, batch: 43 }, params: model.params }, new Array(375).fill(1)),
    (e) => e instanceof RangeError && /^posenc\.lab\.attentionMaps: this call would need \d+\.\d MiB .*lower batch or maxLength/.test(e.message));
  assert.deepEqual(lab.memoryStats(), before);
});

test('lab: beside a model trainAsync holds, a call that does not fit is refused before memory grows for it (twenty-fifth pass)', async () => {
  // The allocator counts what is live toward its limit, and trainAsync holds its model between slices. attentionMaps'
  // model fitted beside it alone: it was made (memory grown by 146 MiB, kept) and its maps refused as "memory is
  // exhausted"; so were examples' targets once its tokens had grown memory by 128 MiB. Each reserves its whole call now.
  // A fresh instance (memory grown by earlier tests would hide the growth); the debug build (float64 reals) at a limit of 36 MiB.
  const debug = build === 'debug';
  const { WASM_BASE64 } = await import(`../dist/${debug ? 'debug/' : ''}lab-wasm.js`);
  const raw = await instantiateForTests(WASM_BASE64);
  if (debug) raw.pe_set_byte_limit(36 * 2 ** 20);
  const fresh = createLab(raw);
  const [aBatch, aLength, bLength, exLength, exCount] = debug ? [52, 128, 128, 32, 32768] : [492, 512, 1024, 256, 65536];
  const { model } = fresh.train({ dModel: 64, heads: 8, layers: 4, mlp: 0, maxLength: bLength, batch: 1, steps: 1 });
  const maps = () => fresh.attentionMaps(model, new Array(bLength).fill(0));
  const examples = () => fresh.examples({ task: 'copy', length: exLength, count: exCount });
  const stop = new AbortController();
  const training = fresh.trainAsync({ dModel: 16, heads: 1, layers: 1, mlp: 0, maxLength: aLength, batch: aBatch, steps: 1, signal: stop.signal });
  const before = fresh.memoryStats();
  for (const call of [maps, examples]) {
    assert.throws(call, { name: 'RangeError', message: /^posenc\.lab\.(attentionMaps|examples): WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ });
    assert.deepEqual(fresh.memoryStats(), before, String(call));
  }
  stop.abort();
  await assert.rejects(training, { name: 'AbortError' });
  assert.equal(maps().data.length, 4 * 8 * bLength ** 2); // alone, each is made
  assert.deepEqual(examples().shape, [exCount, 2 * exLength + 1]);
  assert.equal(fresh.memoryStats().liveAllocations, 0);
});

test('lab: tensors beside a model trainAsync holds counts its rows with the model (twenty-sixth pass)', async () => {
  // tensors reserved its model alone: its 1 280 bytes of rows (and a count) were left to the 256 bytes of slack, which
  // a model with a position scratch (sinusoidal, RoPE) covers and one without does not, so beside a trainAsync model,
  // within about 1 kB of the limit, a model of no encoding (or T5, ALiBi, learned) was made (memory grown by 31 MiB,
  // kept) and its rows refused as "memory is exhausted". Debug build: the limit is found, then set just under it.
  if (build !== 'debug') return; // pe_set_byte_limit: debug builds only
  const { WASM_BASE64 } = await import('../dist/debug/lab-wasm.js');
  const { model } = lab.train({ encoding: 'none', task: 'copy', dModel: 64, heads: 8, layers: 4, mlp: 0, maxLength: 128, batch: 4, steps: 1 });
  /** A fresh instance with a trainAsync model held between its slices. */
  const beside = async () => {
    const raw = await instantiateForTests(WASM_BASE64);
    const fresh = createLab(raw);
    const stop = new AbortController();
    const training = fresh.trainAsync({ encoding: 't5', dModel: 16, heads: 1, layers: 1, mlp: 0, maxLength: 64, batch: 16, steps: 1, signal: stop.signal });
    return { raw, fresh, end: () => (stop.abort(), training.catch(() => {})) };
  };
  // the least limit at which tensors is made beside it (what is live, and so what fits, is the same in every instance)
  const probe = await beside();
  let [lo, hi] = [2 ** 20, 2 ** 26];
  while (hi - lo > 1) {
    const mid = Math.floor((lo + hi) / 2);
    probe.raw.pe_set_byte_limit(mid);
    try {
      probe.fresh.tensors(model);
      hi = mid;
    } catch {
      lo = mid;
    }
  }
  await probe.end();
  for (const under of [1, 4, 16, 256, 1000, 1300]) {
    const { raw, fresh, end } = await beside();
    raw.pe_set_byte_limit(hi - under);
    const before = fresh.memoryStats();
    assert.throws(() => fresh.tensors(model), { name: 'RangeError', message: /^posenc\.lab\.tensors: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ });
    assert.deepEqual(fresh.memoryStats(), before, `${under} bytes under`);
    await end();
  }
});

test('lab: a T5 model whose buckets the core refuses is refused by name before its block is made (twenty-first pass)', () => {
  // t5Buckets 2 (bidirectional) or a t5MaxDistance within the exact distances passed the lab's checks and were
  // refused by the core's bucketing after the model's block was allocated: "status 2" or "status 7", and memory
  // grown from 1 MiB to 788 MiB at batch 64, maxLength 256, kept.
  const big = { task: 'copy', steps: 1, encoding: 't5', dModel: 64, heads: 8, layers: 4, batch: 64, maxLength: 256, trainLengths: [2, 8] };
  const { model } = lab.train({ task: 'copy', steps: 1, encoding: 't5', dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 1, maxLength: 32 });
  const forged = { config: { ...model.config, t5MaxDistance: 1, batch: 64, maxLength: 256 }, params: model.params };
  for (const [call, name] of [
    [() => lab.train({ ...big, t5Buckets: 2 }), /t5Buckets \(bidirectional\) must be an integer from 4 to 1024 \(got 2\)/],
    [() => lab.train({ ...big, t5Buckets: 3 }), /t5Buckets \(bidirectional\) must be an integer from 4 /],
    [() => lab.train({ ...big, t5MaxDistance: 8 }), /t5MaxDistance \(past the exact distances of 32 buckets\) must be an integer from 9 to 1048576 \(got 8\)/],
    [() => lab.train({ ...big, t5Buckets: 5, t5MaxDistance: 1 }), /t5MaxDistance .* from 2 to/],
    [() => lab.evaluate(forged, { length: 2 }), /posenc\.lab\.evaluate: t5MaxDistance .* from 9 to/],
    [() => lab.tensors(forged), /posenc\.lab\.tensors: t5MaxDistance/],
  ]) {
    const before = lab.memoryStats();
    assert.throws(call, (e) => e instanceof RangeError && name.test(e.message), String(call));
    assert.deepEqual(lab.memoryStats(), before, String(call));
  }
  // the least each way is accepted: causal needs 2 buckets and a distance of 2
  assert.ok(lab.train({ task: 'copy', steps: 1, encoding: 't5', attention: 'causal', t5Buckets: 2, t5MaxDistance: 2, dModel: 8, heads: 2, layers: 1, batch: 1, maxLength: 32 }).model);
  assert.ok(lab.train({ task: 'copy', steps: 1, encoding: 't5', t5Buckets: 4, t5MaxDistance: 2, dModel: 8, heads: 2, layers: 1, batch: 1, maxLength: 32 }).model);
  // and the T5 options mean nothing to another encoding, as in the core
  assert.ok(lab.train({ task: 'copy', steps: 1, t5Buckets: 2, t5MaxDistance: 1, dModel: 8, heads: 2, layers: 1, batch: 1, maxLength: 32 }).model);
});

test('fields: a call within its scratch rounding of 1 GiB is refused by its size before its output is made (twenty-third pass)', () => {
  // Counted exactly, a call a few bytes under 1 GiB passed: the core's scratch check allows 64 bytes for rounding
  // and every buffer has a chunk header, so timestepEmbedding of 255 timesteps at dim 1048574 (8 bytes under)
  // grew memory from 1 MiB to 1020 MiB for its output and was refused by the core as "status 2", the memory kept.
  for (const [call, name] of [
    [() => pf.timestepEmbedding(new Float64Array(255), 1048574), 'timestepEmbedding'],
    [() => pf.timestepEmbedding(new Float64Array(259), 1032442), 'timestepEmbedding'],
    [() => pf.sincos1d(new Float64Array(279), 958696), 'sincos1d'],
  ]) {
    const before = pf.memoryStats();
    assert.throws(call, (e) => e instanceof RangeError && new RegExp(`^posenc\\.${name}: this call would need 1024\\.\\d MiB`).test(e.message), String(call));
    assert.deepEqual(pf.memoryStats(), before, String(call));
  }
});

test('lab: a model within its position scratch of 1 GiB is refused by its size before its block is made (twenty-third pass)', () => {
  // The sinusoidal table and RoPE's cache are made once the model's block is, with a few kB of scratch the count
  // left out: a model counted a few hundred bytes under 1 GiB passed the lab's check, grew memory from 1 MiB to
  // 1 GiB for its block, and was refused by pe_table's (or pe_rope_cache's) scratch check as "status 2", the
  // gigabyte kept. The scratch is counted with the block now (c/lab/model.c, position_scratch).
  // (the debug build's reals are float64: another model lies next to the limit there)
  const [maxLength, batch, first] = lab.precision === 'float32' ? [1022, 192, 3733] : [1004, 99, 1882];
  const near = { steps: 1, dModel: 16, heads: 1, layers: 1, mlp: 0, maxLength, batch };
  for (const encoding of ['sinusoidal', 'rope']) {
    for (let randomizedPositions = first; randomizedPositions <= first + 5; randomizedPositions++) {
      const before = lab.memoryStats();
      assert.throws(() => lab.train({ ...near, encoding, randomizedPositions }),
        (e) => e instanceof RangeError && /this call would need 1024\.\d MiB of WebAssembly memory.* lower batch or maxLength/.test(e.message),
        `${encoding} ${randomizedPositions}`);
      assert.deepEqual(lab.memoryStats(), before, `${encoding} ${randomizedPositions}`);
    }
  }
});

test('lab: trainAsync with a signal aborted already rejects before its model is made (twenty-first pass)', async () => {
  // The signal was read first after one turn of the event loop, the model already made: an AbortSignal.abort()
  // grew memory from 1 MiB to 788 MiB for a run that trained nothing, and kept it.
  const big = { task: 'copy', steps: 1, dModel: 64, heads: 8, layers: 4, batch: 64, maxLength: 256, trainLengths: [2, 8] };
  const reason = new Error('aborted before the call');
  for (const signal of [AbortSignal.abort(reason), { aborted: true, reason }]) {
    const before = lab.memoryStats();
    await assert.rejects(lab.trainAsync({ ...big, signal }), (e) => e === reason);
    assert.deepEqual(lab.memoryStats(), before);
  }
});

test('attention(weights: false): q or k detached or shrunk by a later argument\'s getter is refused by name, keeping no memory', () => {
  // Where the kernel's buffers would grow memory (this instance's first megabyte cannot hold them), q, k and v
  // are scanned in JS first; the scan took their live lengths. A getter of v that had detached q's buffer made
  // it a raw "Cannot perform %TypedArray%.prototype.set on a detached ArrayBuffer", naming no parameter (class 8),
  // and one that had shrunk q's resizable buffer let the scan pass, memory grow, and the copy refuse q
  // (384 KiB kept; class 3). Issue 22, fifteenth pass: scanned at their shapes' counts.
  const n = 2 ** 19;
  for (const name of ['q', 'k']) {
    for (const [change, left] of [[(b) => structuredClone(b, { transfer: [b] }), 0], [(b) => b.resize(n * 2), n / 2]]) {
      const buffer = new ArrayBuffer(n * 4, { maxByteLength: n * 4 });
      const args = { q: heads(0.5), k: heads(0.5) };
      args[name] = { shape: [1, 8, 1024, 64], data: new Float32Array(buffer).fill(0.5) };
      const v = { shape: [1, 8, 1024, 64], get data() { change(buffer); return heads(0.5).data; } };
      const before = pe.memoryStats();
      assert.throws(() => pe.attention(args.q, args.k, v, { weights: false }),
        { name: 'RangeError', message: `posenc.attention: ${name}.data must have ${n} elements to match (got ${left})` });
      assert.deepEqual(pe.memoryStats(), before);
    }
  }
});

test('alibiBias refuses a float16 bias past 65519 before any head\'s slope is made, on a heap with no room to spare', async () => {
  // A fresh instance holds little, so a small allocation fits in its first megabyte unseen: here its free heap is
  // filled but for 96 KiB (the sweep's bench/adversarial-sweep.mjs does the same). The heads' slopes (8 bytes a head)
  // were made to find the largest before this refusal: 65536 heads grew memory by 448 KiB for a refused call
  // (issue 22, twentieth pass). The largest slope is the one slope of one head of maxBias / P now.
  const { WASM_BASE64 } = await import(`../dist/${build === 'debug' ? 'debug/' : ''}variants-wasm.js`);
  const raw = await instantiateForTests(WASM_BASE64);
  let room = 0;
  for (let step = 2 ** 24; step >= 64; step /= 2) if (raw.pe_reserve(-(room + step))) room += step;
  raw.pe_malloc(room - 96 * 1024);
  const api = createVariants(raw);
  for (const [heads, options] of [[65536, { queryOffset: 2 ** 30 }], [20000, { queryOffset: 2 ** 20, variant: 'mpt' }]]) {
    const before = api.memoryStats();
    assert.throws(() => api.alibiBias(heads, 1, { ...options, dtype: 'float16' }), /^RangeError: posenc\.alibiBias: queryOffset, qLen and kLen must keep \|bias\|/);
    assert.deepEqual(api.memoryStats(), before, `${heads} heads`);
  }
  // the same largest slope as every head's slopes give, whatever the count and the variant
  for (const variant of ['press', 'mpt']) {
    for (const heads of [1, 2, 3, 5, 8, 12, 100, 1000, 4097, 65535, 65536]) {
      for (const maxBias of [8, 1e-3, 7.3, 5e-324, 14]) {
        const largest = pv.alibiSlopes(heads, { variant, maxBias, dtype: 'float64' }).reduce((a, b) => Math.max(a, b));
        const far = Math.ceil(65520 / largest) + 1; // past 65519 by one distance's slope or more
        assert.throws(() => pv.alibiBias(heads, 1, { variant, maxBias, dtype: 'float16', queryOffset: far }),
          (e) => e.message.includes(`: ${largest} × ${far} `), `${variant}, ${heads} heads, maxBias ${maxBias}`);
      }
    }
  }
});

test('kvCache and rope() at 1 GiB, or beside a handle, are refused before either buffer grows memory (twenty-fourth pass)', async () => {
  // A cache of exactly 1 GiB passed its size check; its k (512 MiB) and v were allocated, growing memory to 1 GiB,
  // and the kernel's 28 bytes of sizes were refused ("memory is exhausted"), the gigabyte kept. The allocator counts
  // what live handles hold toward its 1 GiB too: a handle beside one of 600 MiB grew memory by its first buffer
  // (262 MiB, kept) before its second was refused. Both are reserved at once, or refused, before either is made.
  for (const [api, call] of [[pe, () => pe.kvCache({ heads: 32, headDim: 128, maxLength: 32768 })], [pv, () => pv.rope({ dim: 1024, maxLen: 65536, dtype: 'float64' })]]) {
    const before = api.memoryStats();
    assert.throws(call, /^RangeError: posenc\.(kvCache|rope): this call would need 1024\.1 MiB of WebAssembly memory/);
    assert.deepEqual(api.memoryStats(), before, String(call));
  }
  if (build !== 'debug') return; // the limit lowered to 8 MiB (pe_set_byte_limit: debug builds only)
  for (const [file, make] of [['posenc', createApi], ['variants', createVariants]]) {
    const { WASM_BASE64 } = await import(`../dist/debug/${file}-wasm.js`);
    const raw = await instantiateForTests(WASM_BASE64);
    raw.pe_set_byte_limit(8 * 2 ** 20);
    const api = make(raw);
    const handle = (mib) => (file === 'posenc' ? api.kvCache({ heads: 1, headDim: 8, maxLength: mib * 2 ** 14 }) : api.rope({ dim: 8, maxLen: mib * 2 ** 14, dtype: 'float32' }));
    const first = handle(5);
    const before = api.memoryStats();
    assert.throws(() => handle(4), { name: 'RangeError', message: new RegExp(`^posenc\\.(kvCache|rope): WebAssembly memory is exhausted \\(could not allocate \\d+ bytes\\)$`) }, file);
    assert.deepEqual(api.memoryStats(), before, file);
    first.free();
    handle(4).free(); // then made
  }
});

test('rope().apply refuses a non-finite x before its row scratch grows, as before its x scratch does', () => {
  // The handle keeps a scratch for x and one for the rows positions gather, each grown to the largest call. x was
  // checked before the work only when x's grew: a first call with positions, after one that had grown x's, made
  // the rows' (8 MiB here) and then refused the NaN, the handle keeping it (issue 22, twentieth pass).
  const dim = 2 ** 12, s = 256, at = Float64Array.from({ length: s }, (_, i) => i);
  for (const [dtype, value] of [['float32', NaN], ['float32', 1e39], ['float64', Infinity]]) {
    const h = pv.rope({ dim, maxLen: s, dtype });
    h.apply({ shape: [s, dim], data: new Float64Array(s * dim) }, 0);
    const x = new Float64Array(s * dim);
    x[5] = value;
    const before = pv.memoryStats();
    assert.throws(() => h.apply({ shape: [s, dim], data: x }, at), { name: 'RangeError', message: new RegExp(`^posenc\\.rope\\.apply: x\\.data\\[5\\] must be a finite number`) });
    assert.deepEqual(pv.memoryStats(), before, `${dtype} ${value}`);
    assert.equal(h.apply({ shape: [s, dim], data: new Float64Array(s * dim) }, at).data.length, s * dim); // then accepted
    h.free();
  }
});

test('a call beside a handle that leaves it too little room is refused before any of its buffers grows memory (twenty-fifth pass)', async () => {
  // The allocator counts what live handles hold toward its 1 GiB, and a call's frame grew memory for its footprint
  // only where it could, making its buffers one by one otherwise: beside a kvCache of 724 MiB, toyAttention of 2^24
  // codes and attention of q, k, v [4096, 2048] grew memory by 256 MiB (kept) before a later buffer was refused.
  if (build !== 'debug') return; // the limit lowered to 8 MiB (pe_set_byte_limit: debug builds only)
  const { api } = await lowLimit('posenc', createApi);
  const cache = api.kvCache({ heads: 1, headDim: 8, maxLength: 5 * 2 ** 14 }); // 5 MiB, 3 left
  const m = (n) => ({ shape: [n, 64], data: new Float64Array(n * 64).fill(0.5) });
  // each refused call's first buffers fit in the room left, a later one does not
  const calls = [
    () => api.toyAttention(new Float64Array(2 ** 14), new Float64Array(2 ** 14)), // 640 KiB: made
    () => api.toyAttention(new Float64Array(2 ** 17), new Float64Array(2 ** 17)),
    () => api.attention(m(512), m(512), m(512)),
    () => api.gram(m(600), { dtype: 'float64' }),
    () => api.dot(new Float64Array(2 ** 18), new Float64Array(2 ** 18)),
    () => api.columns(2 ** 20),
  ];
  for (const [i, call] of calls.entries()) {
    const before = api.memoryStats();
    if (i === 0) {
      call(); // a call with room beside the cache is made
      continue;
    }
    assert.throws(call, { name: 'RangeError', message: /^posenc\.\w+: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ }, String(call));
    assert.deepEqual(api.memoryStats(), before, String(call));
  }
  // a Gram's footprint is what it holds, not the old float64 Gram's limit its size check keeps (2 MiB more, refused)
  assert.equal(api.gram(m(512), { dtype: 'float64' }).data.length, 512 * 512);
  cache.free();
  assert.equal(api.toyAttention(new Float64Array(2 ** 16), new Float64Array(2 ** 16)).x.length, 2 ** 16); // then made
  // ropeApply's frame reserved nothing (its scaling is checked inside it): its rows grew memory before x was refused
  const rawV = await instantiateForTests((await import('../dist/debug/variants-wasm.js')).WASM_BASE64);
  rawV.pe_set_byte_limit(8 * 2 ** 20);
  const pv8 = createVariants(rawV);
  const handle = pv8.rope({ dim: 8, maxLen: 5 * 2 ** 14, dtype: 'float32' }); // 5 MiB
  const x = { shape: [256, 512], data: new Float64Array(256 * 512).fill(0.5) };
  const before = pv8.memoryStats();
  assert.throws(() => pv8.ropeApply(x, { dtype: 'float64' }), { name: 'RangeError', message: /^posenc\.ropeApply: WebAssembly memory is exhausted/ });
  assert.deepEqual(pv8.memoryStats(), before);
  assert.equal(pv8.ropeApply(x).data.length, 256 * 512); // float32: room for it
  // nor did the frequencies' frame: their output grew memory before the core's scratch of as many was refused
  const made = pv8.memoryStats();
  assert.throws(() => pv8.ropeFrequencies(2 ** 19), { name: 'RangeError', message: /^posenc\.ropeFrequencies: WebAssembly memory is exhausted/ });
  assert.deepEqual(pv8.memoryStats(), made);
  // a rope() handle's scratch: x's grew memory (kept by the handle) before the gathered rows' was refused
  const small = pv8.rope({ dim: 64, maxLen: 64, dtype: 'float32' });
  const grown = pv8.memoryStats();
  assert.throws(() => small.apply({ shape: [4096, 64], data: new Float32Array(4096 * 64) }, new Float64Array(4096).fill(1)),
    { name: 'RangeError', message: /^posenc\.rope\.apply: WebAssembly memory is exhausted/ });
  assert.deepEqual(pv8.memoryStats(), grown);
  small.free();
  handle.free();
  // a rope() handle's cache generator (1.25 MiB at dim 2^16) grew memory before its caches were refused beside another
  const rawR = await instantiateForTests((await import('../dist/debug/variants-wasm.js')).WASM_BASE64);
  rawR.pe_set_byte_limit(8 * 2 ** 20);
  const pvR = createVariants(rawR);
  const other = pvR.rope({ dim: 8, maxLen: 5 * 2 ** 14, dtype: 'float32' });
  const fresh = pvR.memoryStats();
  assert.throws(() => pvR.rope({ dim: 2 ** 16, maxLen: 8, dtype: 'float32' }), { name: 'RangeError', message: /^posenc\.rope: WebAssembly memory is exhausted/ });
  assert.deepEqual(pvR.memoryStats(), fresh);
  other.free();
  pvR.rope({ dim: 2 ** 16, maxLen: 8, dtype: 'float32' }).free(); // then made
  assert.equal(pv8.ropeApply(x, { dtype: 'float64' }).data.length, 256 * 512);
});

test('ropeApply and rope().apply of an x the core counts twice past 1 GiB are refused before x is copied in (twenty-fifth pass)', () => {
  // pe_rope_rotate counts x in and out (2 × count × 8 bytes in float64); the JavaScript counted it once, so x of
  // [2^14 + 1, 64, 64] passed, was copied into wasm memory and refused by the core as "status 2": ropeApply's memory
  // grew to 1216 MiB at [5, 1, 2^24], and a rope() handle kept the 512 MiB scratch it had grown for x.
  const x = { shape: [2 ** 14 + 1, 64, 64], data: new Float32Array((2 ** 14 + 1) * 4096) };
  const h = pv.rope({ dim: 64, maxLen: 64, dtype: 'float64' });
  for (const [name, call] of [['ropeApply', () => pv.ropeApply(x, { dtype: 'float64' })], ['rope.apply', () => h.apply(x)]]) {
    const before = pv.memoryStats();
    assert.throws(call, { name: 'RangeError', message: new RegExp(`^posenc\\.${name}: this call would need 1024\\.1 MiB`) }, name);
    assert.deepEqual(pv.memoryStats(), before, name);
  }
  h.free();
});

test('attention counted within its small buffers of 1 GiB is refused by its size before its output is made (twenty-fifth pass)', () => {
  // (262 656 + 1) × (1 + 510) + 1 doubles are exactly 1 GiB: counted without its 28 bytes of sizes, its strides and the
  // core's allowance, the call passed, grew memory to 1 GiB for its output and was refused for the sizes, the memory kept.
  const t = (r, c) => ({ shape: [r, c], data: new Float32Array(r * c) });
  const before = pe.memoryStats();
  assert.throws(() => pe.attention(t(262656, 1), t(1, 1), t(1, 510), { weights: false, dtype: 'float64' }),
    { name: 'RangeError', message: /^posenc\.attention: this call would need 1024\.1 MiB of WebAssembly memory/ });
  assert.deepEqual(pe.memoryStats(), before);
});

test('alibiBias and M-RoPE ropeApply counted within their small buffers of 1 GiB are refused by their size (twenty-fifth pass)', () => {
  // Counted exactly, alibiBias(1, 277, kLen 969081) came 68 bytes under 1 GiB: its output grew memory to 1 GiB (kept)
  // and the core refused its slopes as "status 2"; ropeApply with a section, x [63822, 1050], came 496 bytes under
  // without its frequencies and their axes (6300 bytes), which were refused as "memory is exhausted" after the same.
  const s = 63822;
  for (const [name, call] of [
    ['alibiBias', () => pv.alibiBias(1, 277, { kLen: 969081 })],
    ['ropeApply', () => pv.ropeApply({ shape: [s, 1050], data: new Float32Array(s * 1050) }, { positions: { shape: [3, s], data: new Float64Array(3 * s) }, section: [175, 175, 175] })],
  ]) {
    const before = pv.memoryStats();
    assert.throws(call, { name: 'RangeError', message: new RegExp(`^posenc\\.${name}: this call would need 1024\\.1 MiB of WebAssembly memory`) }, name);
    assert.deepEqual(pv.memoryStats(), before, name);
  }
});

test('kvCache.attend refused for scores that overflow float32 keeps no block (thirty-second pass)', () => {
  // decided by the data, after the kernel ran: the scratch it grew for q was kept by the cache (64 MiB for q of 2^20 heads)
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
  const huge = (heads) => ({ shape: [1, heads, 1, 8], data: new Float32Array(heads * 8).fill(1e20) });
  cache.append(huge(1), { shape: [1, 1, 1, 8], data: new Float32Array(8).fill(1) });
  const held = pe.memoryStats().liveAllocations; // the cache's keys, values and sizes
  for (const heads of [1, 64]) {
    assert.throws(() => cache.attend(huge(heads)), /^RangeError: posenc\.kvCache\.attend: .*\(status 7\)$/);
    assert.equal(pe.memoryStats().liveAllocations, held, `q of ${heads} heads`);
  }
  // a scratch grown by an accepted call is kept for the next, as before
  cache.attend({ shape: [1, 1, 1, 8], data: new Float32Array(8).fill(1) });
  assert.equal(pe.memoryStats().liveAllocations, held + 1);
  cache.free();
});

test('rope().apply refused for a rotated value that overflows float32 keeps no block (thirty-second pass)', () => {
  // decided by the data, after the kernel ran: the scratch grown for x (and for the gathered rows) was kept by the handle
  const handle = pv.rope({ dim: 8, maxLen: 4 });
  const held = pv.memoryStats().liveAllocations; // the handle's cos and sin
  const x = (rows) => ({ shape: [rows, 1, 8], data: new Float32Array(rows * 8).fill(3e38) });
  for (const [rows, positions] of [[1, 1], [64, 1], [64, [1]], [128, [2]]]) {
    assert.throws(() => handle.apply(x(rows), positions), /^RangeError: posenc\.rope\.apply: a rotated value overflows float32/);
    assert.equal(pv.memoryStats().liveAllocations, held, `x of ${rows} rows at ${positions}`);
  }
  // a scratch grown by an accepted call is kept for the next, as before
  handle.apply({ shape: [1, 8], data: new Float32Array(8).fill(1) }, [1]);
  assert.equal(pv.memoryStats().liveAllocations, held + 2);
  handle.free();
});

test('lab.loss beside a model trainAsync holds: a batch that does not fit is refused before any id is read (thirty-fourth pass)', async () => {
  // loss checked the batch's model against one call's limit before reading its ids, but the room beside what is live
  // only when it made the model: beside a trainAsync model, every id of tokens and targets was read (13 312 reads of a
  // proxy's) and then the call was refused as "memory is exhausted". Debug build: the limit lowered to 36 MiB.
  if (build !== 'debug') return; // pe_set_byte_limit: debug builds only
  const { WASM_BASE64 } = await import('../dist/debug/lab-wasm.js');
  const raw = await instantiateForTests(WASM_BASE64);
  raw.pe_set_byte_limit(36 * 2 ** 20);
  const fresh = createLab(raw);
  const shape = { dModel: 16, heads: 1, layers: 1, mlp: 0, maxLength: 128, batch: 52 };
  const { model } = fresh.train({ task: 'copy', ...shape, steps: 1 });
  let reads = 0;
  const spy = (n) => new Proxy(new Array(n).fill(0), {
    get: (t, k) => {
      if (typeof k === 'string' && /^\d+$/.test(k)) reads++;
      return t[k];
    },
  });
  const batch = () => ({ shape: [52, 128], tokens: spy(52 * 128), targets: spy(52 * 128) });
  const stop = new AbortController();
  const training = fresh.trainAsync({ ...shape, steps: 1, signal: stop.signal });
  const before = fresh.memoryStats();
  assert.throws(() => fresh.loss(model, batch()), { name: 'RangeError', message: /^posenc\.lab\.loss: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ });
  assert.equal(reads, 0);
  assert.deepEqual(fresh.memoryStats(), before);
  stop.abort();
  await assert.rejects(training, { name: 'AbortError' });
  assert.ok(Number.isFinite(fresh.loss(model, batch()).loss)); // alone, it is computed
  assert.ok(reads > 0);
  assert.equal(fresh.memoryStats().liveAllocations, 0);
});

/**
 * A debug instance of `module` (create() makes its API) with the allocator's limit lowered to 8 MiB, and lists and
 * tensors whose every element read is counted in `counted.reads`: for calls beside a handle with too little room.
 */
async function lowLimit(module, create) {
  const raw = await instantiateForTests((await import(`../dist/debug/${module}-wasm.js`)).WASM_BASE64);
  raw.pe_set_byte_limit(8 * 2 ** 20);
  const counted = { reads: 0 };
  const lazy = (n) => new Proxy({ length: n }, { get: (t, k) => (k === 'length' ? n : (counted.reads++, 0)) });
  const T = (...shape) => ({ shape, data: lazy(shape.reduce((a, b) => a * b)) });
  return { api: create(raw), lazy, T, counted };
}

/** Each call refused as "memory is exhausted", no element read, memory as it was. */
function refusedBeside(api, counted, calls) {
  for (const call of calls) {
    const before = api.memoryStats();
    counted.reads = 0;
    assert.throws(call, { name: 'RangeError', message: /^posenc\.[\w.]+: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ }, String(call));
    assert.equal(counted.reads, 0, String(call));
    assert.deepEqual(api.memoryStats(), before, String(call));
  }
}

test('posenc/variants: a call beside a handle with too little room is refused before any element of its data is read (thirty-fifth pass)', async () => {
  // The room beside what is live was asked when the frame was opened, after the data was read: beside a rope() handle
  // of 512 MiB, ropeApply and ropePermute read x whole (2^26 values, 9.5 s), mropeCache and ropeAxialCache their
  // positions, rope() a longrope's factors, then each was refused as "memory is exhausted". pe_fits is asked once the
  // footprint is counted, as lab's checkFits does. Debug build: the limit lowered to 8 MiB, a handle of 5 MiB.
  if (build !== 'debug') return; // pe_set_byte_limit: debug builds only
  const { api: v, lazy, T, counted } = await lowLimit('variants', createVariants);
  const handle = v.rope({ dim: 8, maxLen: 5 * 2 ** 14, dtype: 'float32' }); // 5 MiB
  const calls = [
    () => v.ropeApply(T(2 ** 16, 8), { positions: lazy(2 ** 16) }),
    () => v.ropeApply(T(2 ** 16, 8), { section: [2, 1, 1], positions: T(3, 2 ** 16) }),
    () => v.mropeCache(T(3, 2 ** 16), 8, { section: [2, 1, 1] }),
    () => v.ropeAxialCache(T(2 ** 16, 2), { axesDim: [4, 4] }),
    () => v.ropePermute(T(2 ** 12, 64)),
    () => v.t5Bucket(lazy(2 ** 19)),
    () => v.roundTo(lazy(2 ** 18), 'float16'),
    () => v.formatBits(lazy(2 ** 19), 'float16'),
    () => v.learnedRows(lazy(2 ** 14), 8, 64),
    () => v.precisionError(64, { positions: lazy(2 ** 18) }),
    () => v.rope({ maxLen: 64, dim: 2 ** 14, scaling: { type: 'longrope', shortFactor: lazy(2 ** 13), longFactor: lazy(2 ** 13), originalMaxPosition: 16, factor: 4 } }),
  ];
  refusedBeside(v, counted, calls);
  handle.free();
  counted.reads = 0;
  assert.equal(v.roundTo(lazy(2 ** 18), 'float16').length, 2 ** 18); // alone, it is made
  assert.equal(counted.reads, 2 ** 18);
});

test('posenc: a call beside a KV cache with too little room is refused before any element of its data is read (thirty-fifth pass)', async () => {
  // Beside a kvCache of 512 MiB, attention of [4096, 2048] read 25 165 824 values (4.0 s), gram of 4096 × 16384 read
  // 67 108 864 (14 s), toyAttention of 2^24 codes 33 554 432 (6.1 s), each then refused as "memory is exhausted" when
  // its frame was opened. pe_fits is now asked once the footprint is counted. Debug build: the limit lowered to 8 MiB,
  // a cache of 5 MiB.
  if (build !== 'debug') return; // pe_set_byte_limit: debug builds only
  const { api: pe, lazy, T, counted } = await lowLimit('posenc', createApi);
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 5 * 2 ** 14 }); // 5 MiB of keys and values
  const eight = { shape: [1, 1, 16, 8], data: new Float32Array(128).fill(0.5) };
  cache.append(eight, eight);
  const calls = [
    () => pe.dot(lazy(2 ** 18), lazy(2 ** 18)),
    () => pe.toyAttention(lazy(2 ** 17)),
    () => pe.norms(T(2 ** 13, 64)),
    () => pe.gram(T(512, 1024)),
    () => pe.gram(T(512, 1024), { cosine: true }),
    () => pe.attention(T(512, 64), T(512, 64), T(512, 64)),
    () => pe.attention(T(2 ** 13, 64), T(2 ** 13, 64), T(2 ** 13, 64), { weights: false, dtype: 'float64' }),
    () => cache.attend(T(1, 2 ** 13, 16, 8)),
  ];
  refusedBeside(pe, counted, calls);
  cache.free();
  counted.reads = 0;
  assert.equal(pe.norms(T(2 ** 13, 64)).length, 2 ** 13); // alone, it is made
  assert.equal(counted.reads, 2 ** 19);
});

test('attention past a float32 overflow says why its float64 footprint is refused (thirty-sixth pass)', async () => {
  // q, k and v whose float32 call fits beside a kvCache, but whose scores overflow float32, go on in float64, whose
  // footprint (four times theirs) was refused as "memory is exhausted" (or past 1 GiB "this call would need 1024.1
  // MiB"), naming nothing of the overflow that made the call need it; the same call of smaller values was made.
  if (build !== 'debug') return; // the limit lowered to 8 MiB (pe_set_byte_limit: debug builds only)
  const { api } = await lowLimit('posenc', createApi);
  const cache = api.kvCache({ heads: 1, headDim: 8, maxLength: 5 * 2 ** 14 }); // 5 MiB, 3 left
  const m = (x) => ({ shape: [2048, 64], data: new Float32Array(2048 * 64).fill(x) });
  assert.equal(api.attention(m(0.5), m(0.5), m(1), { weights: false }).output.data.length, 2048 * 64);
  const before = api.memoryStats();
  assert.throws(() => api.attention(m(1e20), m(1e20), m(1), { weights: false }),
    { name: 'RangeError', message: /^posenc\.attention: WebAssembly memory is exhausted \(could not allocate \d+ bytes\): q·kᵀ overflowed float32, so this call runs in float64$/ });
  assert.deepEqual(api.memoryStats(), before);
  cache.free();
});

test('ropeFrequencies and ropeFromConfig ask the room beside a handle before a longrope scaling\'s factors are read (thirty-sixth pass)', async () => {
  // their frequencies' frame (16 bytes a dim) was refused beside a rope() handle only once the factors, dim / 2 each,
  // were read: 2^20 reads of a proxy's, then "memory is exhausted" (the other RoPE calls asked first since the 35th pass)
  if (build !== 'debug') return; // the limit lowered to 8 MiB (pe_set_byte_limit: debug builds only)
  const raw = await instantiateForTests((await import('../dist/debug/variants-wasm.js')).WASM_BASE64);
  raw.pe_set_byte_limit(8 * 2 ** 20);
  const pv8 = createVariants(raw);
  const handle = pv8.rope({ dim: 8, maxLen: 5 * 2 ** 14, dtype: 'float32' }); // 5 MiB, 3 left
  let reads = 0;
  const lazy = (n) => new Proxy({ length: n }, { get: (t, k) => (k === 'length' ? n : (reads++, 1)) });
  const D = 2 ** 20;
  const config = () => ({ hidden_size: 2 * D, num_attention_heads: 2, head_dim: D, max_position_embeddings: 4096, original_max_position_embeddings: 16,
    rope_scaling: { type: 'longrope', long_factor: lazy(D / 2), short_factor: lazy(D / 2) } });
  const CALLS = [
    ['ropeFrequencies', () => pv8.ropeFrequencies(D, { scaling: { type: 'longrope', shortFactor: lazy(D / 2), longFactor: lazy(D / 2), originalMaxPosition: 16, factor: 4 } })],
    ['ropeFrequencies config', () => pv8.ropeFrequencies(D, { config: config() })],
    ['ropeFromConfig', () => pv8.ropeFromConfig(config())],
  ];
  for (const [label, call] of CALLS) {
    reads = 0;
    const before = pv8.memoryStats();
    assert.throws(call, { name: 'RangeError', message: /^posenc\.rope(Frequencies|FromConfig): WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ }, label);
    assert.equal(reads, 0, `${label}: ${reads} element reads`);
    assert.deepEqual(pv8.memoryStats(), before, label);
  }
  handle.free();
  assert.equal(pv8.ropeFromConfig({ ...config(), head_dim: 64, hidden_size: 128, rope_scaling: { type: 'longrope', long_factor: lazy(32), short_factor: lazy(32) } }).invFreq.length, 32); // then made
});

test('rope().apply refuses a freed handle, and its scratch without room beside another, before x or positions is read (thirty-sixth pass)', async () => {
  // apply read x whole (2^22 values of a proxy's for a freed handle; 2^18 beside a handle of 5 MiB at the debug build's
  // 8 MiB), then was refused as "this RoPE handle was freed" or "memory is exhausted" (its scratch's reserve)
  let reads = 0;
  const lazy = (n, v = 0.5) => new Proxy({ length: n }, { get: (t, k) => (k === 'length' ? n : (reads++, v)) });
  const gone = pv.rope({ dim: 64, maxLen: 4096, dtype: 'float32' });
  gone.free();
  assert.throws(() => gone.apply({ shape: [16, 4096, 64], data: lazy(2 ** 22) }, lazy(4096, 1)), { name: 'TypeError', message: 'posenc.rope.apply: this RoPE handle was freed' });
  assert.equal(reads, 0);
  if (build !== 'debug') return; // the limit lowered to 8 MiB (pe_set_byte_limit: debug builds only)
  const raw = await instantiateForTests((await import('../dist/debug/variants-wasm.js')).WASM_BASE64);
  raw.pe_set_byte_limit(8 * 2 ** 20);
  const pv8 = createVariants(raw);
  const other = pv8.rope({ dim: 8, maxLen: 5 * 2 ** 14, dtype: 'float32' }); // 5 MiB
  const h = pv8.rope({ dim: 64, maxLen: 4096, dtype: 'float32' }); // 2 MiB, 1 left
  for (const [label, call] of [
    ['x', () => h.apply({ shape: [4096, 64], data: lazy(2 ** 18) }, 0)],
    ['positions', () => h.apply({ shape: [4096, 64], data: new Float32Array(2 ** 18) }, lazy(4096, 1))],
  ]) {
    reads = 0;
    const before = pv8.memoryStats();
    assert.throws(call, { name: 'RangeError', message: /^posenc\.rope\.apply: WebAssembly memory is exhausted \(could not allocate \d+ bytes\)$/ }, label);
    assert.equal(reads, 0, `${label}: ${reads} element reads`);
    assert.deepEqual(pv8.memoryStats(), before, label);
  }
  other.free();
  assert.equal(h.apply({ shape: [4096, 64], data: lazy(2 ** 18) }, lazy(4096, 1)).data.length, 2 ** 18); // then made
  h.free();
});

test('gram counts its input type\'s footprint, and its room beside a KV cache, before any element is read (fortieth pass)', async () => {
  // A float32 input takes the float32 kernel, whose scratch holds a float64 copy: n × 4 bytes more than the least
  // footprint (a float64 input's) checked before the data is read (with cosine, a float64 input's n × 4 more than a
  // float32 one's). It was checked after: a Float32Array (or a TensorFlow.js tensor's, or float16 decoded) was copied and
  // every value checked finite, then refused by its size or, beside a live handle, as "memory is exhausted"; one with a
  // NaN last was refused for it, where the call did not fit.
  const nan = (Type, n) => Object.assign(new Type(n).fill(0.5), { [n - 1]: NaN });
  const size = /^RangeError: posenc\.gram: this call would need 1027\.4 MiB of WebAssembly memory; one call may use at most 1024 MiB$/;
  const r = 9400, c = 150, data = nan(Float32Array, r * c); // 8n + 12r² fits in 1 GiB, 12n + 12r² does not
  let syncs = 0;
  assert.throws(() => pe.gram({ rows: r, cols: c, data }), size);
  assert.throws(() => pe.gram({ shape: [r, c], dtype: 'float32', dataSync: () => (syncs++, data) }), size);
  assert.equal(syncs, 1);
  assert.throws(() => pe.gram({ dims: [r, c], type: 'float16', data: new Uint16Array(r * c).fill(0x7e00) }), size); // NaNs
  // a float64 input of that shape fits: refused for its NaN, by name
  assert.throws(() => pe.gram({ rows: r, cols: c, data: nan(Float64Array, r * c) }), /^RangeError: posenc\.gram: matrix\.data\[1409999\] must be a finite number \(got NaN\)$/);
  // with cosine the other way round: the least is a float32 input's, a float64 one holds n × 4 more
  assert.throws(() => pe.gram({ rows: r, cols: 100, data: nan(Float64Array, r * 100) }, { cosine: true }), /^RangeError: posenc\.gram: this call would need 1025\.7 MiB/);
  assert.throws(() => pe.gram({ rows: r, cols: 100, data: nan(Float32Array, r * 100) }, { cosine: true }), /^RangeError: posenc\.gram: matrix\.data\[939999\] must be a finite number \(got NaN\)$/);
  if (build !== 'debug') return; // pe_set_byte_limit: debug builds only
  const { api } = await lowLimit('posenc', createApi);
  const cache = api.kvCache({ heads: 1, headDim: 8, maxLength: 5 * 2 ** 14 }); // 5 MiB of keys and values
  const before = api.memoryStats();
  assert.throws(() => api.gram({ rows: 64, cols: 5000, data: nan(Float32Array, 64 * 5000) }), /^RangeError: posenc\.gram: WebAssembly memory is exhausted \(could not allocate 3860480 bytes\)$/);
  assert.throws(() => api.gram({ rows: 64, cols: 5000, data: nan(Float64Array, 64 * 5000) }), /matrix\.data\[319999\] must be a finite number/); // (fits)
  assert.deepEqual(api.memoryStats(), before);
  cache.free();
  assert.equal(api.gram({ rows: 64, cols: 5000, data: new Float32Array(64 * 5000).fill(0.5) }).data.length, 64 * 64); // alone, it is made
});

test('an out detached by a later getter (x\'s, positions\' or q\'s) is refused before memory grows or a scratch is kept (forty-first pass)', async () => {
  // ropeApply (1-D, and with a section or an axesDim) and kvCache.attend checked out again only when writing it, after
  // the call's frame (or the cache's scratch for q) had grown memory: x of 2^23 values whose last element detached out
  // grew memory by 96 MiB to be refused "out must be a Float32Array of …", and attend kept a 32 MiB block until free()
  const detach = (a) => structuredClone(a.buffer, { transfer: [a.buffer] });
  /** n values, the last of which, when read, detaches victim's buffer. */
  const last = (n, value, victim) => new Proxy(new Float64Array(n).fill(value), { get: (t, k) => (k === String(n - 1) && detach(victim), k === 'length' ? n : t[k]) });
  const n = 2 ** 18, x = () => new Float32Array(n).fill(0.5);
  const CALLS = [ // [label, entry, call(api, out, victim)]
    ['ropeApply, x', 'pv', (v, out, victim) => v.ropeApply({ shape: [4096, 64], data: last(n, 0.5, victim) }, { out })],
    ['ropeApply, positions', 'pv', (v, out, victim) => v.ropeApply({ shape: [4096, 64], data: x() }, { positions: last(4096, 1, victim), out })],
    ['ropeApply, section', 'pv', (v, out, victim) => v.ropeApply({ shape: [4096, 64], data: x() }, { section: [16, 8, 8], positions: { shape: [3, 4096], data: last(3 * 4096, 1, victim) }, out })],
    ['ropeApply, axesDim', 'pv', (v, out, victim) => v.ropeApply({ shape: [4096, 64], data: x() }, { axesDim: [32, 32], positions: { shape: [4096, 2], data: last(2 * 4096, 1, victim) }, out })],
    ['kvCache.attend', 'pe', (c, out, victim) => c.attend({ shape: [4096, 64], data: last(n, 0.01, victim) }, { out })],
  ];
  const grown = [];
  for (const [label, entry, call] of CALLS) {
    const fresh = await freshModules(), api = fresh[entry]; // (fresh: memory at its first megabyte)
    const cache = entry === 'pe' ? api.kvCache({ heads: 1, headDim: 64, maxLength: 4096 }) : api;
    if (entry === 'pe') cache.append({ shape: [4096, 64], data: x() }, { shape: [4096, 64], data: x() });
    const before = api.memoryStats();
    const out = new Float32Array(n);
    assert.throws(() => call(cache, out, out), { name: 'TypeError', message: /: out must be a Float32Array of 262144 elements \(dtype float32\) on a fixed-length buffer \(got Float32Array\(0\)\)$/ }, label);
    const after = api.memoryStats();
    if (after.bytes !== before.bytes || after.liveAllocations !== before.liveAllocations) grown.push(`${label}: ${JSON.stringify(before)} -> ${JSON.stringify(after)}`);
    const kept = new Float32Array(n);
    assert.equal(call(cache, kept, new Float32Array(1)).data, kept, label); // (another array detached: made, into out)
  }
  assert.deepEqual(grown, []);
});

// The ninth adversarial pass of issue 22, repeatable: user code in the middle of a call. Each valid
// call (the base calls of bench/adversarial-sweep.mjs, and RICH below: nested arrays, dataSync()
// tensors, RoPE scalings and configs, every option given, the rope() and kvCache() handles' methods)
// has every argument wrapped in proxies; at each of their reads (get, has, ownKeys, property
// descriptor, prototype; MAXK of them at most, evenly spread) in turn the proxy throws (an Error,
// then a value whose message cannot be read), calls the same function of the same instance again
// (accepted, then refused), detaches every typed array the call was given (a structuredClone
// transfer), or, for a handle, frees it (and makes another in its memory). Each call runs on a fresh
// instance whose heap is filled but for 96 KiB. It checks: a posenc TypeError / RangeError or a
// result; memoryStats().bytes unchanged by a refusal; nothing left allocated (a handle's own buffers
// once it is freed); an accepted result equal to the uninterrupted call's (a handle method
// re-entered changes the handle, so only its refusals count). After bash build.sh:
//
//   node bench/reentry-sweep.mjs [maxReadsPerCall] [fn,fn...]   (default 200, all; ~1 minute)
//
// Exit status 1 when it finds anything.
import { SPECS, fresh } from './adversarial-sweep.mjs';

const MAXK = Number(process.argv[2] ?? 200);
const only = process.argv[3] ? process.argv[3].split(',') : undefined;
const arr = (n, f = (i) => ((i % 7) - 3) / 4) => Array.from({ length: n }, (_, i) => f(i));
const nested = (r, c, f) => Array.from({ length: r }, (_, i) => arr(c, (j) => (f ? f(i * c + j) : (((i * c + j) % 7) - 3) / 4)));
const trained = fresh('lab').train({ steps: 2, dModel: 16, heads: 2, layers: 1, mlp: 16, batch: 8, maxLength: 16, task: 'copy', trainLengths: [2, 6] }).model;
const model = () => ({ config: { ...trained.config, trainLengths: [...trained.config.trainLengths] }, params: trained.params.slice() });
const kvWith = (rows) => (api) => {
  const c = api.kvCache({ heads: 2, headDim: 8, maxLength: 8 });
  c.append({ shape: [2, rows, 8], data: new Float32Array(16 * rows).fill(1) }, { shape: [2, rows, 8], data: new Float32Array(16 * rows).fill(2) });
  return c;
};
const RICH = [
  { entry: 'posenc', fn: 'table', names: ['maxLen', 'dModel'], base: () => [16, 8, { offset: 3, preset: 'marian', dtype: 'float64', out: new Float64Array(128) }] },
  // pe_table_at (twelfth pass): packed and scattered positions, a padding position, a 16-bit result into out
  { entry: 'posenc', fn: 'table', names: ['maxLen', 'dModel'], base: () => [7, 10, { positions: [5, 6, 7, 0, 1, 9, -3], paddingIdx: 0, layout: 'concat', dtype: 'float16', out: new Uint16Array(70) }] },
  { entry: 'posenc', fn: 'table', names: ['maxLen', 'dModel'], base: () => [5, 6, { positions: Float32Array.of(2 ** 31, 0, 1, 2, -(2 ** 31)), dtype: 'bfloat16' }] },
  { entry: 'posenc', fn: 'tableGram', names: ['maxLen', 'dModel'], base: () => [8, 8, { offset: 2, cosine: true, dtype: 'float32', out: new Float32Array(64) }] },
  { entry: 'posenc', fn: 'gram', names: ['matrix'], base: () => [nested(6, 4), { cosine: true, dtype: 'float16', out: new Uint16Array(36) }] },
  { entry: 'posenc', fn: 'dot', names: ['a', 'b'], base: () => [arr(4), arr(4, (i) => i / 3)] },
  { entry: 'posenc', fn: 'norms', names: ['matrix'], base: () => [{ dims: [3, 4], type: 'float32', data: new Float32Array(12).fill(0.5) }, { dtype: 'float64' }] },
  { entry: 'posenc', fn: 'toyAttention', names: ['codes', 'positionCodes'], base: () => [arr(6, (i) => i % 3), arr(6, (i) => i % 2), { threshold: 0.5, weights: arr(6, () => 1) }] },
  { entry: 'posenc', fn: 'attention', names: ['q', 'k', 'v'], base: () => [{ shape: [1, 2, 3, 4], data: new Float32Array(24).fill(0.1) }, { shape: [1, 2, 3, 4], data: new Float64Array(24).fill(0.2) },
    { shape: [1, 2, 3, 4], dataSync: () => new Float32Array(24).fill(0.3), dtype: 'float32' },
    { mask: nested(3, 3, (i) => (i % 4 === 0 ? 0 : 1)), bias: nested(3, 3, (i) => -i / 10), scale: 0.5, dtype: 'float64', weights: true }] },
  { entry: 'variants', fn: 'ropeFrequencies', names: ['dim'], base: () => [16, { base: 500, scaling: { type: 'longrope', factor: 2, originalMaxPosition: 64, shortFactor: arr(8, () => 1), longFactor: arr(8, () => 2) } }] },
  { entry: 'variants', fn: 'ropeCache', names: ['maxLen', 'dim'], base: () => [8, 16, { base: 500, offset: 2, layout: 'pairs', scaling: { type: 'yarn', factor: 2, originalMaxPosition: 4, betaFast: 16, betaSlow: 2 }, dtype: 'bfloat16' }] },
  { entry: 'variants', fn: 'ropeApply', names: ['x'], base: () => [{ shape: [1, 2, 4, 16], data: new Float32Array(128).fill(0.5) }, { pairing: 'interleaved', headDim: 16, rotaryDim: 8, positions: arr(4, (i) => i * 2), base: 100, scaling: { type: 'linear', factor: 2 }, out: new Float32Array(128) }] },
  { entry: 'variants', fn: 'ropeApply', names: ['x'], base: () => [nested(3, 8), { positions: [0, 2, 1], cos: nested(4, 8, () => 0.6), sin: nested(4, 8, () => 0.8), layout: 'half' }] },
  { entry: 'variants', fn: 'ropeApply', names: ['x'], base: () => [{ shape: [4, 16], data: new Float64Array(64).fill(0.25) }, { positions: { shape: [3, 4], data: arr(12, (i) => i % 4) }, section: [2, 3, 3] }] },
  { entry: 'variants', fn: 'ropeFromConfig', names: ['config'], base: () => [{ hidden_size: 64, num_attention_heads: 4, rope_theta: 1e4, partial_rotary_factor: 0.5, max_position_embeddings: 128,
    rope_scaling: { rope_type: 'longrope', factor: 4, original_max_position_embeddings: 32, short_factor: arr(4, () => 1), long_factor: arr(4, () => 2) } }, { seqLen: 100 }] },
  { entry: 'variants', fn: 'ropeFromConfig', names: ['config'], base: () => [{ head_dim: 16, rope_parameters: { full_attention: { rope_type: 'default', rope_theta: 1e6 }, sliding_attention: { rope_type: 'default', rope_theta: 1e4 } },
    layer_types: ['sliding_attention', 'full_attention'] }, { layerIndex: 1 }] },
  { entry: 'variants', fn: 'rope', names: [], base: () => [{ config: { head_dim: 16, rope_theta: 1e4, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 32 } }, maxLen: 32 }] },
  { entry: 'variants', fn: 'mropeCache', names: ['positions', 'headDim'], base: () => [nested(3, 5, (i) => i % 5), 16, { section: [2, 3, 3], interleaved: true, dtype: 'float64' }] },
  { entry: 'variants', fn: 'ropeAxialCache', names: ['ids'], base: () => [nested(5, 3, (i) => i % 4), { axesDim: [4, 4, 4], frequencies: 'alternate', layout: 'half' }] },
  { entry: 'variants', fn: 'mropePositions', names: ['segments'], base: () => [[{ text: 3 }, { image: [1, 4, 4] }, { video: [2, 4, 4], secondsPerGrid: 1 }, { text: 2 }], { spatialMergeSize: 2, tokensPerSecond: 2, leftPadding: 1 }] },
  { entry: 'variants', fn: 'alibiBias', names: ['heads', 'qLen'], base: () => [3, 4, { kLen: 6, variant: 'mpt', maxBias: 4, mode: 'symmetric', maskValue: -1e4, queryOffset: 2, dtype: 'float16' }] },
  { entry: 'variants', fn: 't5Bucket', names: ['relativePositions'], base: () => [arr(9, (i) => i - 4), { bidirectional: true, numBuckets: 8, maxDistance: 16 }] },
  { entry: 'variants', fn: 'learnedRows', names: ['positions', 'trainedLen', 'dModel'], base: () => [arr(5, (i) => i), 8, 4, { seed: 3, distribution: 'uniform', scale: 0.1, dtype: 'float32' }] },
  { entry: 'variants', fn: 'ropePermute', names: ['weights'], base: () => [nested(8, 4), { headDim: 4, inverse: true, axis: 'rows' }] },
  { entry: 'variants', fn: 'roundTo', names: ['values', 'format'], base: () => [arr(10, (i) => i / 3), 'bfloat16'] },
  { entry: 'variants', fn: 'formatBits', names: ['values', 'format'], base: () => [arr(10, (i) => i / 3), 'float16'] },
  { entry: 'variants', fn: 'precisionError', names: ['dModel'], base: () => [8, { positions: arr(6, (i) => i * 100), format: 'float16', mode: 'both', preset: 'marian' }] },
  { entry: 'fields', fn: 'timestepEmbedding', names: ['timesteps', 'dim'], base: () => [arr(4, (i) => i * 10), 8, { flipSinToCos: true, downscaleFreqShift: 0, scale: 2, maxPeriod: 1000, dtype: 'float64' }] },
  { entry: 'fields', fn: 'sincos1d', names: ['positions', 'dim'], base: () => [[0, 1, 2, 3], 8, { frequencies: 'spaced', base: 100 }] },
  { entry: 'fields', fn: 'sincos2d', names: ['gridH', 'gridW', 'dim'], base: () => [3, 2, 8, { clsToken: true, extraTokens: 2, baseSize: 4, interpolationScale: 2, firstAxis: 'h' }] },
  { entry: 'fields', fn: 'fourierFeatures', names: ['points'], base: () => [{ rows: 3, cols: 2, data: arr(6, (i) => i / 10) }, { levels: 3, includeInput: true, logSampling: false, pi: false, layout: 'coordinate', maxFreqLog2: 2 }] },
  { entry: 'fields', fn: 'randomFourierFeatures', names: ['points'], base: () => [{ shape: [3, 2], data: arr(6, (i) => i / 10) }, { B: nested(4, 2, (i) => i / 8) }] },
  { entry: 'lab', fn: 'evaluate', names: ['model'], base: () => [model(), { task: 'copy', length: 4, samples: 8, seed: 2, positions: 'trained' }] },
  { entry: 'lab', fn: 'attentionMaps', names: ['model', 'tokens'], base: () => [model(), [1, 2, 3, 2]] },
  { entry: 'lab', fn: 'loss', names: ['model', 'batch'], base: () => {
    const ex = fresh('lab').examples({ task: 'copy', length: 4, count: 2 });
    return [model(), { shape: [...ex.shape], tokens: Array.from(ex.tokens), targets: Array.from(ex.targets) }, { gradient: true }];
  } },
  { entry: 'lab', fn: 'tensors', names: ['model'], base: () => [model()] },
  { entry: 'lab', fn: 'train', names: [], base: () => [{ steps: 4, progressEvery: 2, onProgress: () => true, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 16, task: 'copy', trainLengths: [2, 4],
    encoding: 'rope', attention: 'causal', randomizedPositions: 32 }] },
  { entry: 'posenc', fn: 'kvCache.append', names: ['k', 'v'], setup: kvWith(1), method: 'append', base: () => [nested(2, 8).map((r) => [r]), { shape: [2, 1, 8], data: new Float32Array(16).fill(0.5) }] },
  { entry: 'posenc', fn: 'kvCache.attend', names: ['q'], setup: kvWith(3), method: 'attend', base: () => [{ shape: [1, 4, 2, 8], data: new Float32Array(64).fill(0.1) }, { causal: true, scale: 0.3, out: new Float32Array(64) }] },
  { entry: 'variants', fn: 'rope.apply', names: ['x', 'positions', 'out'], setup: (api) => api.rope({ dim: 8, headDim: 16, maxLen: 16 }), method: 'apply', base: () => [nested(3, 16), arr(3, (i) => 2 * i), new Float32Array(48)] },
  { entry: 'variants', fn: 'rope.apply', names: ['x', 'positions'], setup: (api) => api.rope({ dim: 8, maxLen: 16, dtype: 'float64' }), method: 'apply', base: () => [{ shape: [2, 3, 8], data: new Float64Array(48).fill(0.5) }, 4] },
];

// ---- proxies: every read of an argument runs hook(read number, path) --------------------------
let hook = null, reads = 0;
const isData = (v) => ArrayBuffer.isView(v) || v instanceof ArrayBuffer || v instanceof SharedArrayBuffer;
function wrap(v, path) {
  if (v === null || typeof v !== 'object' || isData(v)) return v;
  const inner = new Map();
  const at = (what) => {
    const k = reads++;
    hook?.(k, `${path}${what}`);
  };
  return new Proxy(v, {
    get(t, key) {
      at(`.${String(key)}`);
      const x = Reflect.get(t, key, t);
      if (typeof key === 'symbol' || x === null || typeof x !== 'object' || isData(x)) return x;
      if (!inner.has(key)) inner.set(key, wrap(x, `${path}.${String(key)}`));
      return inner.get(key);
    },
    has: (t, key) => (at(` has ${String(key)}`), Reflect.has(t, key)),
    ownKeys: (t) => (at(' keys'), Reflect.ownKeys(t)),
    getOwnPropertyDescriptor: (t, key) => (at(` descriptor ${String(key)}`), Reflect.getOwnPropertyDescriptor(t, key)),
    getPrototypeOf: (t) => (at(' prototype'), Reflect.getPrototypeOf(t)),
  });
}
/** Typed arrays reachable from v (not through proxies). */
function typedIn(v, out = new Set(), depth = 0) {
  if (v && typeof v === 'object' && depth < 5 && !out.has(v)) {
    if (ArrayBuffer.isView(v)) out.add(v);
    else for (const key of Object.keys(v).slice(0, 64)) typedIn(v[key], out, depth + 1);
  }
  return out;
}
function canon(x, depth = 0) {
  if (ArrayBuffer.isView(x)) return `${Array.from(x, (v) => (Object.is(v, -0) ? '-0' : String(v))).join()}#${x.length}`;
  if (typeof x === 'function') return 'function';
  if (x && typeof x === 'object' && depth < 5) return `{${Object.keys(x).sort().map((key) => `${key}:${canon(x[key], depth + 1)}`).join(';')}}`;
  return String(x);
}
const posencError = (e) => (e instanceof TypeError || e instanceof RangeError) && /^posenc\./.test(e.message);
const ODD = [Object.create(null), { get message() { throw new Error('message getter'); } }];

const findings = [];
let calls = 0;
for (const spec of [...SPECS, ...RICH]) {
  if (only && !only.includes(spec.fn)) continue;
  let handle = null;
  const callee = (api) => {
    if (!spec.setup) return (...a) => api[spec.fn](...a);
    const h = (handle = spec.setup(api));
    return (...a) => h[spec.method](...a);
  };
  let ref;
  try {
    ref = canon(callee(fresh(spec.entry))(...spec.base()));
  } catch (e) {
    findings.push([spec.fn, 'the valid call is refused', e.message]);
    continue;
  }
  reads = 0;
  try {
    callee(fresh(spec.entry))(...spec.base().map((a, i) => wrap(a, spec.names[i] ?? 'options')));
  } catch (e) {
    findings.push([spec.fn, 'the valid call is refused through proxies', e.message]);
  }
  const n = reads;
  // arrays every base() shares (the sweep's lab model) are not detached: the next call needs them
  const shared = new Set([...typedIn(spec.base())].filter((t) => typedIn(spec.base()).has(t)));
  const modes = ['throw', 'throw-odd', 'again', 'again-refused', 'detach', ...(spec.setup ? ['free', 'free-remake'] : [])];
  for (let i = 0; i < Math.min(n, MAXK); i++) {
    const at = Math.floor((i * n) / Math.min(n, MAXK));
    for (const mode of modes) {
      calls++;
      const api = fresh(spec.entry);
      const live0 = api.memoryStats().liveAllocations;
      const call = callee(api);
      const args = spec.base();
      const wrapped = args.map((a, j) => wrap(a, spec.names[j] ?? 'options'));
      const before = api.memoryStats();
      let where = '', other = null;
      reads = 0;
      hook = (k, path) => {
        if (k !== at) return;
        hook = null;
        where = path;
        if (mode === 'throw') throw new Error('trap');
        if (mode === 'throw-odd') throw ODD[at % 2];
        if (mode === 'again') call(...spec.base());
        if (mode === 'again-refused') {
          try {
            call(...spec.base().map((a) => (typeof a === 'number' ? 2 ** 40 : a)));
          } catch {
            // refused, as meant
          }
        }
        if (mode === 'detach') for (const t of typedIn(args)) if (!shared.has(t) && !(t.buffer instanceof SharedArrayBuffer)) structuredClone(t.buffer, { transfer: [t.buffer] });
        if (mode.startsWith('free')) handle.free();
        if (mode === 'free-remake') other = spec.setup(api);
      };
      let result, error;
      try {
        result = call(...wrapped);
      } catch (e) {
        error = e;
      }
      hook = null;
      const after = api.memoryStats();
      const tag = [spec.entry, spec.fn, at, where, mode];
      if (error && !posencError(error)) findings.push([...tag, 'not a posenc error', `${error?.constructor?.name}: ${error?.message}`]);
      if (error && mode.startsWith('throw') && after.bytes !== before.bytes) findings.push([...tag, 'refused, memory moved', before.bytes, after.bytes]);
      if (!error && mode.startsWith('throw') && where && !where.includes('descriptor') && !where.endsWith(' prototype')) findings.push([...tag, 'a throwing read was not reported']);
      if (!error && mode.startsWith('free')) findings.push([...tag, 'accepted after free()']);
      if (!error && !(spec.setup && mode.startsWith('again')) && canon(result) !== ref) findings.push([...tag, 'result differs']);
      if (spec.setup) {
        handle.free();
        other?.free();
      }
      const left = api.memoryStats().liveAllocations - live0;
      if (left && !['rope', 'kvCache'].includes(spec.fn)) findings.push([...tag, 'allocations left', left]);
    }
  }
  if (!process.env.QUIET) console.error(`${spec.fn}: ${n} reads, ${Math.min(n, MAXK)} interrupted`);
}
console.log(`${calls} calls; ${findings.length} findings`);
for (const f of findings) console.log(JSON.stringify(f));
process.exitCode = findings.length ? 1 : 0;

// The eighth adversarial pass of issue 22, repeatable: a generator-driven sweep of every exported
// function of every entry (posenc, posenc/variants, posenc/fields, posenc/lab). For each function a
// base call of some hundred KiB is mutated one argument or option at a time through edge values
// (0, -0, 2^k ± 1 around 2^15, 2^16, 2^24, 2^30, 2^31, 2^32, NaN, ±Infinity, 65504 / 65520, 3.4e38,
// 1e39, values of the wrong type, every dtype, tensors of every element type and storage, resizable,
// shared and detached buffers, getters that throw), then each dtype with each such value, then seeded
// random pairs and triples. Every call runs on a FRESH instance of its module whose free heap is
// filled but for 96 KiB (FILL=0: not filled), so a refused call that allocated anything sizeable
// shows as memoryStats().bytes moving. It checks: a result, or a posenc TypeError / RangeError
// (never another class, never a wasm RuntimeError); memory and allocations unchanged by a refusal,
// and the instance still giving what a fresh one gives; no allocation outliving an accepted call;
// accepted results finite (decoded for float16 / bfloat16) and data.length = the product of shape.
// A one-value mutation whose message does not name the mutated parameter is listed for review.
// Refusals that only the work can show (docs/limits.md, "Memory") are counted apart, not as findings.
// Calls whose accepted output would pass LIMIT bytes (default 8 MiB) are skipped. Seeded: the same
// calls on every machine. The whole sweep, 28 127 calls, takes three to ten minutes on two shared
// cores; tests/adversarial-sweep.test.js runs a seeded 5% sample of it (sweep()). After bash build.sh:
//
//   node bench/adversarial-sweep.mjs [seed] [pairsPerFunction] [fn,fn...]   (default 8 40, all)
//
// bench/reentry-sweep.mjs imports SPECS and fresh() from here (the ninth pass).
//
// Exit status 1 when it finds anything outside the documented classes.
import { fileURLToPath, pathToFileURL } from 'node:url';
import { rng } from '../tests/helpers/rng.js';
const ROOT = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const { fromText } = await import(`${ROOT}/web/lib/wasm.js`);
const { inflateSync } = await import('node:zlib');
const { createApi } = await import(`${ROOT}/web/lib/api.js`);
const { createVariants } = await import(`${ROOT}/web/lib/variants/api.js`);
const { createFields } = await import(`${ROOT}/web/lib/fields/api.js`);
const { createLab } = await import(`${ROOT}/web/lib/lab/api.js`);
const { encodeHalves, decodeHalves } = await import(`${ROOT}/web/lib/float16.js`);

let R = rng(8); // sweep() seeds it
const pick = (xs) => xs[Math.floor(R() * xs.length)];

// ---- modules --------------------------------------------------------------------------
const MODS = {};
for (const [entry, file, create] of [['posenc', 'posenc', createApi], ['variants', 'variants', createVariants],
  ['fields', 'fields', createFields], ['lab', 'lab', createLab]]) {
  const { WASM_BASE64 } = await import(`${ROOT}/dist/${file}-wasm.js`);
  let bytes = Buffer.from(fromText(WASM_BASE64));
  if (!(bytes[0] === 0 && bytes[1] === 0x61)) bytes = inflateSync(bytes);
  MODS[entry] = { module: new WebAssembly.Module(bytes), create };
}
// FILL=1: each fresh instance's free heap is filled but for LEAVE bytes, so that any allocation past
// that grows memory: a refused call that allocated anything sizeable shows as memory moving.
const LEAVE = Number(process.env.LEAVE ?? 96 * 1024);
const FILL = {};
function raw(entry) {
  const exports = new WebAssembly.Instance(MODS[entry].module, {}).exports;
  if (typeof exports._initialize === 'function') exports._initialize();
  return exports;
}
if (process.env.FILL !== '0') {
  for (const entry of Object.keys(MODS)) {
    let lo = 0, hi = 2 ** 21;
    while (hi - lo > 64) {
      const mid = (lo + hi) >> 1;
      const e = raw(entry);
      const b = e.memory.buffer.byteLength;
      const p = e.pe_malloc(mid);
      if (p && e.memory.buffer.byteLength === b) lo = mid; else hi = mid;
    }
    FILL[entry] = Math.max(0, lo - LEAVE);
  }
}
/** A fresh instance of an entry's API. */
function fresh(entry) {
  const exports = raw(entry);
  if (FILL[entry]) exports.pe_malloc(FILL[entry]);
  return MODS[entry].create(exports);
}

// ---- values ----------------------------------------------------------------------------
// A domain is a list of values; a function of no argument in it is a builder, called for a fresh value
// (a tensor, an out, a buffer to detach): (_x) => 3 is a value, a function passed where a number goes.
const WRONG = ['3', '', ' 4', '0x10', null, true, false, 3n, {}, [], [3], Symbol('s'), (_x) => 3, new Number(3)];
const SIZES = [0, -0, 1, 2, 3, 7, 2 ** 15 - 1, 2 ** 15, 2 ** 15 + 1, 2 ** 16 - 1, 2 ** 16, 2 ** 16 + 1, 2 ** 24 - 1, 2 ** 24,
  2 ** 24 + 1, 2 ** 30, 2 ** 31 - 1, 2 ** 31, 2 ** 32 - 1, 2 ** 32, 2 ** 32 + 1, 2 ** 53, -1, 0.5, NaN, Infinity, -Infinity];
const REALS = [0, -0, 1, -1, 0.5, 1.0000001, 1e-300, Number.MIN_VALUE, 1e-3, 0.000999, 65504, 65519, 65520, -65520, 1e5, 3.4e38,
  3.4028236e38, 1e39, 1e300, Number.MAX_VALUE, 2 ** 31 - 1, 2 ** 31, -(2 ** 31), -(2 ** 31) - 1, 2 ** 32, 2 ** 53, 1e6, 1e6 + 1, 1e306, NaN, Infinity, -Infinity];
const INTS = [...new Set([...SIZES, -(2 ** 31), -(2 ** 31) + 1, -(2 ** 30), -(2 ** 24), -3])];
const DTYPES = ['float32', 'float64', 'float16', 'bfloat16', 'int8', 'float', 'Float32', 'int32'];
const JUNK_ENUM = ['', 'x', '__proto__', 'constructor', 'toString', 'FLOAT32'];
const BOOLS = [true, false, 0, 1, 'true', null];

function detach(a) {
  structuredClone(a.buffer, { transfer: [a.buffer] });
  return a;
}
/** typed arrays for `out` of length n for a result of dtype. */
const OUTS = (n) => [
  () => new Float32Array(n), () => new Float64Array(n), () => new Uint16Array(n), () => new Int32Array(n),
  () => new Float32Array(n + 1), () => new Float32Array(Math.max(0, n - 1)),
  () => new Float32Array(new ArrayBuffer(n * 4, { maxByteLength: n * 8 + 8 })),
  () => new Float32Array(new SharedArrayBuffer(n * 4)), () => new Float32Array(new SharedArrayBuffer(n * 4, { maxByteLength: n * 8 })),
  () => detach(new Float32Array(n)), () => new Float32Array(new ArrayBuffer(n * 4 + 8), 8, n),
  () => 0, () => NaN, () => '', () => false, () => ({}), () => [], () => new DataView(new ArrayBuffer(n * 4)),
  () => new Proxy(new Float32Array(n), {}), () => Object.setPrototypeOf(new Float32Array(n), Float64Array.prototype),
];

/** Tensor data variants: shape and fill, returning many storages of it. */
function tensors(shape, fill = (i) => ((i % 7) - 3) / 4) {
  const n = shape.reduce((a, b) => a * b, 1);
  const f64 = Float64Array.from({ length: n }, (_, i) => fill(i));
  const f32 = Float32Array.from(f64);
  const tail = (v, T = Float64Array) => { const a = T.from(f64); a[n - 1] = v; return { shape, data: a }; };
  return [
    () => ({ shape, data: f32 }), () => ({ shape, data: f64 }),
    () => ({ type: 'float16', dims: shape, data: encodeHalves(f64, 'float16') }),
    () => ({ type: 'bfloat16', dims: shape, data: encodeHalves(f64, 'bfloat16') }),
    () => ({ dtype: 'float16', shape, dataSync: () => encodeHalves(f64, 'float16') }),
    () => ({ dtype: 'float32', shape, dataSync: () => f32 }),
    () => ({ type: 'float16', dims: shape, data: f32 }),
    () => ({ type: 'int32', dims: shape, data: Int32Array.from(f64, Math.round) }),
    () => ({ type: 'int64', dims: shape, data: BigInt64Array.from(f64, (x) => BigInt(Math.round(x))) }),
    () => ({ type: 'uint8', dims: shape, data: new Uint8Array(n) }), () => ({ type: 'bool', dims: shape, data: new Uint8Array(n) }),
    () => ({ type: 'float8', dims: shape, data: new Uint8Array(n) }), () => ({ type: 'string', dims: shape, data: f32 }),
    () => ({ shape, data: new Float32Array(new ArrayBuffer(n * 4, { maxByteLength: n * 8 })).fill(0.25) }),
    () => ({ shape, data: detach(Float32Array.from(f32)) }), () => ({ shape, data: new Float32Array(new SharedArrayBuffer(n * 4)) }),
    () => ({ shape, data: Uint16Array.from(f64, (x) => Math.abs(Math.round(x))) }), () => ({ shape, data: Int8Array.from(f64, Math.round) }),
    () => ({ shape, data: BigInt64Array.from(f64, () => 1n) }),
    () => tail(NaN), () => tail(Infinity), () => tail(-Infinity), () => tail(1e39), () => tail(1e39, Float64Array),
    () => tail(65520), () => tail(1e5), () => tail(3.4e38), () => tail(-1e308), () => tail(1e300), () => tail(2 ** 31), () => tail(-(2 ** 31) - 1), () => tail(0.5),
    () => ({ shape: [...shape.slice(0, -1), shape[shape.length - 1] + 1], data: f32 }),
    () => ({ shape: shape.map((s) => s * 2 ** 16), data: f32 }), () => ({ shape: [2 ** 31, 2], data: f32 }),
    () => ({ shape: [...shape, 1, 1, 1].slice(0, 5), data: f32 }),
    () => ({ get shape() { throw new Error('shape getter'); }, data: f32 }), () => ({ shape, get data() { throw new Error('data getter'); } }),
    () => { let k = 0; return { get shape() { return k++ ? [1] : shape; }, data: f32 }; },
    () => ({ shape, data: new Proxy(f32, {}) }), () => ({ shape, data: { length: n } }), () => ({ shape, data: Array.from(f64) }),
    () => ({ shape, data: Array.from(f64, String) }), () => null, () => 3, () => 'x', () => f32, () => [],
  ];
}
/** Plain vectors of n values, many storages. */
function vectors(n, fill = (i) => i % 5) {
  const f64 = Float64Array.from({ length: n }, (_, i) => fill(i));
  const tail = (v, T = Float64Array) => { const a = T.from(f64); a[n - 1] = v; return a; };
  return [
    () => f64, () => Float32Array.from(f64), () => Array.from(f64), () => Int32Array.from(f64), () => Uint16Array.from(f64),
    () => BigInt64Array.from(f64, BigInt), () => new Float64Array(new ArrayBuffer(n * 8, { maxByteLength: n * 16 })),
    () => detach(Float64Array.from(f64)), () => new Float64Array(new SharedArrayBuffer(n * 8)), () => ({ length: n }),
    () => ({ length: 2 ** 32 - 1 }), () => ({ length: -1 }), () => ({ length: '3' }), () => { const a = []; a.length = 2 ** 32 - 1; return a; },
    () => new Proxy(Array.from(f64), { get(t, k) { if (k === String(n - 1)) throw new Error('element getter'); return t[k]; } }),
    () => tail(NaN), () => tail(Infinity), () => tail(-Infinity), () => tail(1e39), () => tail(65520), () => tail(2 ** 31), () => tail(-(2 ** 31) - 1),
    () => tail(0.5), () => tail(-1), () => tail(2 ** 53), () => tail(1e308), () => Array.from(f64, String), () => [1, , 3], // eslint-disable-line no-sparse-arrays
    () => new DataView(new ArrayBuffer(8)), () => new ArrayBuffer(8), () => [], () => null, () => 3, () => 'abc',
    () => ({ type: 'float16', dims: [n], data: encodeHalves(f64, 'float16') }), () => ({ shape: [n], data: f64 }),
  ];
}
const throwingGetter = () => { throw new Error('option getter'); };

// Scalings for RoPE (dim is the rotary width the call uses).
const SCALINGS = (dim) => [
  'linear', 'ntk', 'dynamic', 'yarn', 'llama3', 'longrope', 'default', 'x', '', { type: 'linear', factor: 2 }, { type: 'linear', factor: 1e6 },
  { type: 'linear', factor: 1e-3 }, { type: 'linear', factor: 0 }, { type: 'linear', factor: NaN }, { type: 'ntk', factor: 1000 },
  { type: 'ntk', factor: 1e6 }, { type: 'dynamic', factor: 1e6, maxPosition: 2 }, { type: 'dynamic', factor: 1e6, maxPosition: 1, seqLen: 2 ** 31 },
  { type: 'yarn', factor: 2, originalMaxPosition: 4096 }, { type: 'yarn', factor: 1e6, originalMaxPosition: 1 },
  { type: 'yarn', factor: 2, originalMaxPosition: 4096, attentionFactor: 1e5 }, { type: 'yarn', factor: 2, originalMaxPosition: 4096, attentionFactor: 65504 },
  { type: 'yarn', factor: 2, originalMaxPosition: 4096, attentionFactor: 1e6 }, { type: 'yarn', factor: 1e6, originalMaxPosition: 4096, mscale: 1e6, mscaleAllDim: 1e-3 },
  { type: 'yarn', factor: 2, originalMaxPosition: 4096, betaFast: 1e-3, betaSlow: 1e6 }, { type: 'yarn', maxPosition: 2 ** 31, originalMaxPosition: 1 },
  { type: 'llama3', factor: 1e6, lowFreqFactor: 1e-3, highFreqFactor: 1e6, originalMaxPosition: 2 ** 31 },
  { type: 'longrope', factor: 2, originalMaxPosition: 4096, shortFactor: new Array(dim / 2).fill(1e-3), longFactor: new Array(dim / 2).fill(1e6) },
  { type: 'longrope', factor: 1e6, originalMaxPosition: 2, shortFactor: new Array(dim / 2).fill(1), longFactor: new Array(dim / 2).fill(1), attentionFactor: 1e6 },
  { type: 'longrope', maxPosition: 2 ** 31, originalMaxPosition: 2, shortFactor: new Array(dim / 2).fill(1), longFactor: new Array(dim / 2).fill(1e-3) },
  { type: 'longrope', factor: 2, originalMaxPosition: 4096, shortFactor: [1], longFactor: [1] },
  { type: 'proportional', partialRotaryFactor: 0.5 }, { type: 'proportional', partialRotaryFactor: 1e-300 },
  { type: 'linear', factor: 2, extra: 1 }, { type: 'linear', get factor() { throw new Error('factor getter'); } },
  new Float32Array(2), [], null, 3, { type: 'linear', factor: 2, __proto__: { type: 'ntk' } }, { type: 'linear', factor: '2' },
];

// Model configs (the twenty-sixth pass: the sweep gave config only to ropeFromConfig, without an M-RoPE, axial, longrope
// or per-layer one): Llama 3, Qwen2-VL's M-RoPE, FLUX's axial, Phi-3's longrope, Gemma 3's layers, and their edges.
const CONFIGS = () => [
  { model_type: 'llama', head_dim: 128, rope_theta: 5e5, max_position_embeddings: 8192, rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 8192 } },
  { model_type: 'qwen2_vl', head_dim: 128, rope_theta: 1e6, rope_scaling: { type: 'mrope', mrope_section: [16, 24, 24] } },
  { model_type: 'qwen2_vl', head_dim: 128, rope_scaling: { type: 'mrope', mrope_section: [2 ** 31, 0, 0] } },
  { model_type: 'qwen2_vl', head_dim: 128, rope_scaling: { type: 'mrope', mrope_section: new Array(2 ** 16).fill(1) } },
  { axes_dims_rope: [16, 56, 56], theta: 10000 }, { axes_dims_rope: [2 ** 23, 2 ** 23, 2] }, { axes_dims_rope: [3, 5] }, { axes_dims_rope: [] },
  { axes_dims_rope: new Array(2 ** 16).fill(2) }, { axes_dims_rope: [16, 56, 56], theta: 1e-300, attention_head_dim: 2 ** 24 },
  { model_type: 'phi3', head_dim: 128, max_position_embeddings: 131072, original_max_position_embeddings: 4096, rope_scaling: { type: 'longrope', short_factor: new Array(64).fill(1), long_factor: new Array(64).fill(2) } },
  { model_type: 'phi3', head_dim: 128, rope_scaling: { type: 'longrope', short_factor: new Array(64).fill(1e300), long_factor: [1], original_max_position_embeddings: 2 } },
  { model_type: 'gemma3_text', head_dim: 128, num_hidden_layers: 6, sliding_window_pattern: 6, rope_local_base_freq: 1e4, rope_theta: 1e6 },
  { head_dim: 128, layer_types: new Array(2 ** 17).fill('full_attention') }, { head_dim: 128, partial_rotary_factor: 0.5, rope_scaling: { rope_type: 'yarn', factor: 2 ** 40, original_max_position_embeddings: 1 } },
  ...WRONG,
];

// ---- specs -------------------------------------------------------------------------------
// Each spec: entry, fn, names (positional), base() -> args, keys: { key (positional name or option): domain() -> [values] },
// outLen(args) -> element count of `out`, cost(args) -> rough bytes of an accepted call.
const M = (rows, cols, fill) => ({ rows, cols, data: Float64Array.from({ length: rows * cols }, (_, i) => (fill ? fill(i) : ((i % 7) - 3) / 4)) });
const enc = { preset: () => ['vaswani', 'tensor2tensor', 'fairseq', 'tf-tutorial', 'marian', ...JUNK_ENUM, ...WRONG],
  layout: () => ['interleaved', 'concat', 'split', ...JUNK_ENUM, ...WRONG], frequencies: () => ['paper', 'geometric', ...JUNK_ENUM, ...WRONG],
  base: () => [...REALS, ...WRONG] };
const sz = () => [...SIZES, ...WRONG];
const re = () => [...REALS, ...WRONG];
const it = () => [...INTS, ...WRONG];
const dt = () => [...DTYPES, ...WRONG];
const bo = () => [...BOOLS, ...WRONG];
const en = (...xs) => () => [...xs, ...JUNK_ENUM, ...WRONG];
const num = (args, i) => (typeof args[i] === 'number' ? args[i] : NaN);
const optsOf = (args) => args[args.length - 1] ?? {};
const outBytes = (dtype) => ({ float64: 8, float16: 8, bfloat16: 8 })[dtype] ?? 4;

const SPECS = [
  // posenc
  { entry: 'posenc', fn: 'table', names: ['maxLen', 'dModel'], base: () => [256, 256, {}],
    keys: { maxLen: sz, dModel: sz, ...enc, offset: re, paddingIdx: it, dtype: dt, out: (a) => OUTS(num(a, 0) * num(a, 1)), positions: (a) => vectors(num(a, 0) | 0) },
    cost: (a) => num(a, 0) * num(a, 1) * outBytes(optsOf(a).dtype) },
  { entry: 'posenc', fn: 'frequencies', names: ['dModel'], base: () => [2 ** 15, {}], keys: { dModel: sz, ...enc, dtype: dt }, cost: (a) => num(a, 0) * 4 },
  { entry: 'posenc', fn: 'columns', names: ['dModel'], base: () => [2 ** 16, {}], keys: { dModel: sz, ...enc }, cost: (a) => num(a, 0) * 4 },
  { entry: 'posenc', fn: 'tableGram', names: ['maxLen', 'dModel'], base: () => [256, 64, {}],
    keys: { maxLen: sz, dModel: sz, ...enc, offset: re, paddingIdx: it, dtype: dt, cosine: bo, out: (a) => OUTS(num(a, 0) ** 2) },
    cost: (a) => num(a, 0) ** 2 * 16 + num(a, 0) * num(a, 1) * 8 },
  { entry: 'posenc', fn: 'dot', names: ['a', 'b'], base: () => [new Float64Array(2 ** 15).fill(0.5), new Float64Array(2 ** 15).fill(2)],
    keys: { a: () => vectors(2 ** 15), b: () => vectors(2 ** 15) }, cost: () => 2 ** 22 },
  { entry: 'posenc', fn: 'norms', names: ['matrix'], base: () => [M(256, 256), {}],
    keys: { matrix: () => tensors([256, 256]), dtype: dt }, cost: () => 2 ** 22 },
  { entry: 'posenc', fn: 'gram', names: ['matrix'], base: () => [M(256, 16), {}],
    keys: { matrix: () => tensors([256, 16]), cosine: bo, dtype: dt, out: () => OUTS(256 * 256) }, cost: () => 2 ** 20 },
  { entry: 'posenc', fn: 'rotation', names: ['k', 'dModel'], base: () => [5, 256, {}],
    keys: { k: re, dModel: sz, ...enc, dtype: dt, out: (a) => OUTS(num(a, 1) ** 2) }, cost: (a) => num(a, 1) ** 2 * 8 },
  { entry: 'posenc', fn: 'toyAttention', names: ['codes', 'positionCodes'], base: () => [Float64Array.from({ length: 2 ** 14 }, (_, i) => i % 3), Float64Array.from({ length: 2 ** 14 }, (_, i) => i % 2), {}],
    keys: { codes: () => vectors(2 ** 14), positionCodes: () => vectors(2 ** 14), threshold: re, weights: () => vectors(2 ** 14) }, cost: () => 2 ** 22 },
  { entry: 'posenc', fn: 'attention', names: ['q', 'k', 'v'],
    base: () => [{ shape: [1, 2, 128, 64], data: new Float64Array(2 ** 14).fill(0.1) }, { shape: [1, 2, 128, 64], data: new Float64Array(2 ** 14).fill(0.2) },
      { shape: [1, 2, 128, 64], data: new Float64Array(2 ** 14).fill(0.3) }, {}],
    keys: { q: () => tensors([1, 2, 128, 64]), k: () => tensors([1, 2, 128, 64]), v: () => tensors([1, 2, 128, 64]), causal: bo,
      mask: () => [...tensors([128, 128], (i) => i % 2), () => ({ type: 'bool', dims: [128, 128], data: new Uint8Array(16384).fill(1) }), () => ({ shape: [128, 128], data: new Uint8Array(16384).fill(2) })],
      bias: () => tensors([128, 128], (i) => -i), scale: re, dtype: dt, weights: bo }, cost: () => 2 ** 23 },
  { entry: 'posenc', fn: 'kvCache', names: [], base: () => [{ heads: 4, headDim: 64, maxLength: 256 }],
    keys: { heads: sz, headDim: sz, valueDim: sz, maxLength: sz, batch: sz }, cost: (a) => { const o = optsOf(a); return (o.batch ?? 1) * o.heads * o.maxLength * (o.headDim + (o.valueDim ?? o.headDim)) * 4; } },
  // variants
  { entry: 'variants', fn: 'ropeFrequencies', names: ['dim'], base: () => [2 ** 16, {}],
    keys: { dim: sz, base: re, scaling: (a) => SCALINGS(num(a, 0) | 0), dtype: dt, layerType: () => ['full_attention', ...WRONG], config: CONFIGS }, cost: (a) => num(a, 0) * 8 },
  { entry: 'variants', fn: 'ropeCache', names: ['maxLen', 'dim'], base: () => [512, 128, {}],
    keys: { maxLen: sz, dim: sz, base: re, scaling: (a) => SCALINGS(num(a, 1) | 0), offset: re, layout: en('half', 'pairs', 'interleaved'), dtype: dt, config: CONFIGS },
    cost: (a) => num(a, 0) * num(a, 1) * 2 * outBytes(optsOf(a).dtype) },
  { entry: 'variants', fn: 'ropeApply', names: ['x'], base: () => [{ shape: [512, 128], data: new Float32Array(2 ** 16).fill(0.5) }, {}],
    keys: { x: () => tensors([512, 128]), pairing: en('half', 'interleaved'), headDim: sz, rotaryDim: sz, positions: () => vectors(512, (i) => i),
      offset: re, base: re, scaling: () => SCALINGS(128), cos: () => tensors([512, 128], () => 0.5), sin: () => tensors([512, 128], () => 0.5),
      layout: en('half', 'pairs', 'interleaved'), dtype: dt, out: () => OUTS(2 ** 16), section: () => [[16, 24, 24], [64], [0, 64], [65], [2 ** 31], ...WRONG],
      interleaved: bo, axesDim: () => [[16, 56, 56], [128], [2 ** 24], ...WRONG], frequencies: en('axis', 'alternate'), config: CONFIGS },
    cost: () => 2 ** 23 },
  { entry: 'variants', fn: 'rope', names: [], base: () => [{ dim: 128, maxLen: 1024 }],
    keys: { dim: sz, headDim: sz, pairing: en('half', 'interleaved'), maxLen: sz, base: re, scaling: () => SCALINGS(128), dtype: dt, config: CONFIGS },
    cost: (a) => { const o = optsOf(a); return 2 * o.maxLen * o.dim * (o.dtype === 'float64' ? 8 : 4); } },
  { entry: 'variants', fn: 'ropePermutation', names: ['headDim'], base: () => [256, { heads: 256 }],
    keys: { headDim: sz, heads: sz, inverse: bo }, cost: (a) => num(a, 0) * (optsOf(a).heads ?? 1) * 4 },
  { entry: 'variants', fn: 'ropePermute', names: ['weights'], base: () => [M(512, 128), {}],
    keys: { weights: () => tensors([512, 128]), headDim: sz, inverse: bo, axis: en('rows', 'cols'), dtype: dt }, cost: () => 2 ** 21 },
  { entry: 'variants', fn: 'mropeCache', names: ['positions', 'headDim'], base: () => [{ shape: [3, 1024], data: Float64Array.from({ length: 3 * 1024 }, (_, i) => i % 1024) }, 128, { section: [16, 24, 24] }],
    keys: { positions: () => tensors([3, 1024], (i) => i % 1024), headDim: sz, section: () => [[16, 24, 24], [64], [0, 64, 0], [32, 32, 1], [2 ** 31, 0, 0], ...WRONG],
      interleaved: bo, base: re, scaling: () => SCALINGS(128), layout: en('half', 'pairs', 'interleaved'), dtype: dt, config: CONFIGS }, cost: (a) => 4096 * num(a, 1) * 2 * 8 },
  { entry: 'variants', fn: 'ropeAxialCache', names: ['ids'], base: () => [{ shape: [1024, 3], data: Float64Array.from({ length: 3 * 1024 }, (_, i) => i % 64) }, { axesDim: [16, 56, 56] }],
    keys: { ids: () => tensors([1024, 3], (i) => i % 64), axesDim: () => [[16, 56, 56], [128, 128, 128], [2, 2, 2], [2 ** 23, 2 ** 23, 2], [3, 56, 56], ...WRONG],
      frequencies: en('axis', 'alternate'), base: re, layout: en('half', 'pairs', 'interleaved'), pairing: en('half', 'interleaved'), dtype: dt, config: CONFIGS }, cost: () => 2 ** 23 },
  { entry: 'variants', fn: 'ropeGridIds', names: ['height', 'width'], base: () => [256, 256, {}],
    keys: { height: sz, width: sz, axes: it, time: re, offset: it }, cost: (a) => num(a, 0) * num(a, 1) * 24 },
  { entry: 'variants', fn: 'mropePositions', names: ['segments'], base: () => [[{ text: 1000 }, { image: [1, 512, 512] }, { video: [4, 64, 64], secondsPerGrid: 2 }], {}],
    keys: { segments: () => [[{ text: 2 ** 24 }], [{ text: 2 ** 24 + 1 }], [{ image: [1, 2 ** 24, 2] }], [{ video: [2 ** 16, 2 ** 10, 2 ** 10] }], [{ text: 0 }], [],
      [{ video: [2, 4, 4], secondsPerGrid: 2 ** 31 }], [{ video: [2 ** 12, 2, 2], secondsPerGrid: 1e9 }], [{ text: 2 ** 31 }], [{ image: [1, 3, 3] }], [{ text: 1, image: [1, 2, 2] }], ...WRONG],
      spatialMergeSize: it, tokensPerSecond: re, leftPadding: it }, cost: () => 2 ** 22 },
  { entry: 'variants', fn: 'alibiSlopes', names: ['heads'], base: () => [65536, {}], keys: { heads: sz, variant: en('press', 'mpt'), maxBias: re, dtype: dt }, cost: (a) => num(a, 0) * 8 },
  { entry: 'variants', fn: 'alibiBias', names: ['heads', 'qLen'], base: () => [4, 128, {}],
    keys: { heads: sz, qLen: sz, kLen: sz, variant: en('press', 'mpt'), maxBias: re, mode: en('causal', 'symmetric'), maskValue: re, queryOffset: it, dtype: dt },
    cost: (a) => num(a, 0) * num(a, 1) * (optsOf(a).kLen ?? num(a, 1)) * outBytes(optsOf(a).dtype) },
  { entry: 'variants', fn: 't5Bucket', names: ['relativePositions'], base: () => [Float64Array.from({ length: 2 ** 16 }, (_, i) => i - 2 ** 15), {}],
    keys: { relativePositions: () => vectors(2 ** 16, (i) => i - 2 ** 15), bidirectional: bo, numBuckets: sz, maxDistance: it, precision: en('float32', 'float64') }, cost: () => 2 ** 21 },
  { entry: 'variants', fn: 't5BucketMatrix', names: ['qLen'], base: () => [256, {}],
    keys: { qLen: sz, kLen: sz, queryOffset: it, bidirectional: bo, numBuckets: sz, maxDistance: it, precision: en('float32', 'float64') },
    cost: (a) => num(a, 0) * (optsOf(a).kLen ?? num(a, 0)) * 4 },
  { entry: 'variants', fn: 'shawClip', names: ['qLen'], base: () => [256, {}],
    keys: { qLen: sz, kLen: sz, maxRelativePosition: it, shift: bo, queryOffset: it }, cost: (a) => num(a, 0) * (optsOf(a).kLen ?? num(a, 0)) * 4 },
  { entry: 'variants', fn: 'learnedTable', names: ['trainedLen', 'dModel'], base: () => [256, 256, {}],
    keys: { trainedLen: sz, dModel: sz, seed: it, distribution: en('normal', 'uniform'), scale: re, dtype: dt }, cost: (a) => num(a, 0) * num(a, 1) * outBytes(optsOf(a).dtype) },
  { entry: 'variants', fn: 'learnedRows', names: ['positions', 'trainedLen', 'dModel'], base: () => [Float64Array.from({ length: 256 }, (_, i) => i), 256, 256, {}],
    keys: { positions: () => vectors(256, (i) => i), trainedLen: sz, dModel: sz, seed: it, distribution: en('normal', 'uniform'), scale: re, dtype: dt },
    cost: (a) => 256 * num(a, 2) * outBytes(optsOf(a).dtype) },
  { entry: 'variants', fn: 'binaryTable', names: ['maxLen', 'bits'], base: () => [2048, 32, {}],
    keys: { maxLen: sz, bits: sz, offset: it, signed: bo, dtype: dt }, cost: (a) => num(a, 0) * num(a, 1) * outBytes(optsOf(a).dtype) },
  { entry: 'variants', fn: 'roundTo', names: ['values', 'format'], base: () => [Float64Array.from({ length: 2 ** 15 }, (_, i) => i / 3), 'float16'],
    keys: { values: () => vectors(2 ** 15), format: en('float32', 'float64', 'float16', 'bfloat16') }, cost: () => 2 ** 21 },
  { entry: 'variants', fn: 'formatBits', names: ['values', 'format'], base: () => [Float64Array.from({ length: 2 ** 15 }, (_, i) => i / 3), 'bfloat16'],
    keys: { values: () => vectors(2 ** 15), format: en('float32', 'float16', 'bfloat16', 'float64') }, cost: () => 2 ** 21 },
  { entry: 'variants', fn: 'precisionError', names: ['dModel'], base: () => [8, { count: 2 ** 14 }],
    keys: { dModel: sz, positions: () => vectors(2 ** 14, (i) => i), count: sz, format: en('float32', 'float64', 'float16', 'bfloat16'),
      mode: en('angle', 'result', 'both'), ...enc }, cost: (a) => (optsOf(a).count ?? 2 ** 14) * num(a, 0) * 8 },
  { entry: 'variants', fn: 'ropeFromConfig', names: ['config'], base: () => [{ head_dim: 2 ** 16, rope_theta: 10000 }, {}],
    keys: { config: () => [{ head_dim: 2 ** 20 }, { head_dim: 2 ** 20 + 2 }, { hidden_size: 2 ** 31, num_attention_heads: 1 }, { head_dim: 128, rope_theta: 1e306, rope_scaling: { rope_type: 'dynamic', factor: 1e6 } },
      { head_dim: 2 ** 19, rope_scaling: { rope_type: 'yarn', factor: 1e6, original_max_position_embeddings: 1, attention_factor: 1e6 } }, { head_dim: 128, partial_rotary_factor: 1e-300 }, ...CONFIGS()],
      layerType: () => ['full_attention', ...WRONG], layerIndex: it, seqLen: it, dtype: dt }, cost: () => 2 ** 22 },
  // fields
  { entry: 'fields', fn: 'timestepEmbedding', names: ['timesteps', 'dim'], base: () => [Float64Array.from({ length: 2 ** 10 }, (_, i) => i), 64, {}],
    keys: { timesteps: () => vectors(2 ** 10, (i) => i), dim: sz, preset: en('diffusers', 'ddpm', 'stable-diffusion', 'dit'), flipSinToCos: bo, downscaleFreqShift: re, scale: re, maxPeriod: re, dtype: dt },
    cost: (a) => 2 ** 10 * num(a, 1) * outBytes(optsOf(a).dtype) },
  { entry: 'fields', fn: 'sincos1d', names: ['positions', 'dim'], base: () => [Float64Array.from({ length: 2 ** 10 }, (_, i) => i), 64, {}],
    keys: { positions: () => vectors(2 ** 10, (i) => i), dim: sz, frequencies: en('mae', 'spaced'), base: re, dtype: dt }, cost: (a) => 2 ** 10 * num(a, 1) * outBytes(optsOf(a).dtype) },
  { entry: 'fields', fn: 'sincos2d', names: ['gridH', 'gridW', 'dim'], base: () => [32, 32, 64, {}],
    keys: { gridH: sz, gridW: sz, dim: sz, preset: en('mae', 'dit', 'diffusers', 'big-vision'), clsToken: bo, extraTokens: it, baseSize: re, interpolationScale: re,
      firstAxis: en('w', 'h'), frequencies: en('mae', 'spaced'), base: re, dtype: dt }, cost: (a) => num(a, 0) * num(a, 1) * num(a, 2) * outBytes(optsOf(a).dtype) },
  { entry: 'fields', fn: 'fourierFeatures', names: ['points'], base: () => [M(2 ** 12, 3), { levels: 4 }],
    keys: { points: () => tensors([2 ** 12, 3]), preset: en('nerf-paper', 'nerf-pytorch'), levels: sz, maxFreqLog2: re, includeInput: bo, logSampling: bo, pi: bo,
      layout: en('frequency', 'coordinate'), dtype: dt }, cost: (a) => 2 ** 12 * 3 * (2 * (optsOf(a).levels ?? 10) + 1) * 8 },
  { entry: 'fields', fn: 'randomFourierFeatures', names: ['points'], base: () => [M(2 ** 10, 2), { features: 64 }],
    keys: { points: () => tensors([2 ** 10, 2]), features: sz, sigma: re, seed: it, B: () => tensors([64, 2]), dtype: dt },
    cost: (a) => 2 ** 10 * 2 * (optsOf(a).features ?? 64) * 8 },
];

// the lab: a model made once (plain object), reused by the model-taking functions
const labModel = fresh('lab').train({ steps: 1, dModel: 16, heads: 2, layers: 1, mlp: 16, batch: 64, maxLength: 64, task: 'copy', trainLengths: [2, 8] }).model;
const labBase = { steps: 1, dModel: 32, heads: 4, layers: 1, mlp: 32, batch: 16, maxLength: 64, task: 'copy', trainLengths: [2, 8] };
SPECS.push(
  { entry: 'lab', fn: 'train', names: [], base: () => [{ ...labBase }],
    keys: { task: en('who-did-what', 'shift', 'copy', 'reverse', 'recency'), encoding: en('none', 'sinusoidal', 'learned', 'rope', 'alibi', 't5'), attention: en('bidirectional', 'causal'),
      seed: it, dModel: sz, heads: sz, layers: sz, mlp: it, batch: sz, learningRate: re, weightDecay: re, clip: re,
      trainLengths: () => [[2, 8], [1, 1], [8, 2], [2, 2 ** 31], [2, 65], [0, 3], [2, 8, 9], [NaN, 3], ...WRONG], maxLength: sz, preset: en('vaswani', 'marian'),
      ropeBase: re, alibiMaxBias: re, t5Buckets: it, t5MaxDistance: it, bos: bo, randomizedPositions: () => [true, false, 0, 64, 65, 4096, 2 ** 31, ...INTS, ...WRONG],
      steps: sz, progressEvery: sz, onProgress: () => [(_p) => false, (_p) => { throw new Error('progress'); }, 3, ...WRONG] },
    // past 4096 steps (about 3 s of training), skipped as if large
    cost: (a) => { const o = optsOf(a); const b = typeof o.batch === 'number' ? o.batch : 64, l = typeof o.maxLength === 'number' ? o.maxLength : 64; return o.steps > 4096 && o.steps <= 1e6 ? 2 ** 29 : b * l * l * 32; } },
  { entry: 'lab', fn: 'evaluate', names: ['model'], base: () => [labModel, { length: 8, samples: 64 }],
    keys: { model: () => [{ config: labModel.config, params: new Float32Array(3) }, { config: { ...labModel.config, batch: 1024, maxLength: 1024, heads: 64, dModel: 512 }, params: labModel.params },
      { config: { ...labModel.config, maxLength: 1024, batch: 1024 }, params: labModel.params }, ...WRONG],
    task: en('who-did-what', 'shift', 'copy', 'reverse', 'recency'), length: it, samples: sz, seed: it, positions: en('all', 'trained', 'new'), probe: en('reversed') },
    cost: (a) => (optsOf(a).samples ?? 512) * 2 ** 10 },
  { entry: 'lab', fn: 'attentionMaps', names: ['model', 'tokens'], base: () => [labModel, [1, 2, 3, 4, 5]],
    keys: { tokens: () => [[1, 2, 3], new Int32Array(64), new Int32Array(65), [], [2 ** 31], [-1], [1.5], ['1'], new Float32Array(3), new Int32Array(new ArrayBuffer(8, { maxByteLength: 16 })), ...WRONG] }, cost: () => 2 ** 20 },
  { entry: 'lab', fn: 'examples', names: [], base: () => [{ task: 'copy', length: 60, count: 512 }],
    keys: { task: en('who-did-what', 'shift', 'copy', 'reverse', 'recency'), length: it, count: sz, seed: it, bos: bo, probe: en('reversed') },
    cost: (a) => (typeof optsOf(a).count === 'number' ? optsOf(a).count : 1) * 8 * 130 },
  { entry: 'lab', fn: 'loss', names: ['model', 'batch'], base: () => [labModel, { shape: [64, 16], tokens: new Int32Array(1024).fill(1), targets: new Int32Array(1024).fill(-1) }, {}],
    keys: { batch: () => [{ shape: [64, 65], tokens: new Int32Array(64 * 65), targets: new Int32Array(64 * 65) }, { shape: [65, 16], tokens: new Int32Array(65 * 16), targets: new Int32Array(65 * 16) },
      { shape: [64, 16], tokens: new Int32Array(1024).fill(2 ** 30), targets: new Int32Array(1024) }, { shape: [2 ** 16, 2 ** 16], tokens: [], targets: [] },
      { shape: [64, 16], tokens: new Float32Array(1024), targets: new Int32Array(1024) }, ...WRONG], gradient: bo }, cost: () => 2 ** 20 },
  { entry: 'lab', fn: 'tensors', names: ['model'], base: () => [labModel], keys: { model: () => [{ config: labModel.config, params: new Float64Array(labModel.params.length) }, ...WRONG] }, cost: () => 2 ** 16 },
);

// ---- running ------------------------------------------------------------------------------
const LIMIT = Number(process.env.LIMIT ?? 8 * 2 ** 20); // skip accepted-size work above this
const FINDINGS = [];
const counts = {};
let totalCalls = 0;
let quiet = false;
// Refusals only the work can show, documented in docs/limits.md ("Memory"): [function, message].
const DOCUMENTED = [
  [/^(norms|gram|dot|toyAttention|attention)$/, /overflows|NaN or infinite/], // results of every value together
  [/^ropeApply$/, /overflows/], // a rotated value, from x and the attention factor together
  [/^(learnedTable|learnedRows)$/, /overflows float16/], // seeded draws × scale
  // (randomFourierFeatures' drawn B: its bound is checked before the result is allocated since the twenty-second pass)
  [/^train$/, /^(Error: )?progress$/], // onProgress's own exception, passed on as thrown once the model exists
];
const documented = [];
const finding = (kind, what, detail) => {
  const fn = what.match(/^\w+\.(\w+)\(/)?.[1];
  if ((kind === 'memory' || kind === 'error-class') && DOCUMENTED.some(([f, m]) => f.test(fn) && m.test(detail.replace(/^refused \((.*)\) but memory.*$/, '$1')))) {
    documented.push(what);
    return;
  }
  FINDINGS.push({ kind, what, detail });
  if (!quiet) console.log(`!! ${kind}: ${what}\n   ${detail}`);
};
const describe = (v, depth = 0) => {
  try {
    if (typeof v === 'bigint') return `${v}n`;
    if (typeof v === 'symbol' || typeof v === 'function') return String(v).slice(0, 30);
    if (Object.is(v, -0)) return '-0';
    if (typeof v === 'number') return String(v);
    if (ArrayBuffer.isView(v)) { let l = '?'; try { l = v.length ? v[v.length - 1] : ''; } catch { /* detached */ } return `${v.constructor.name}(${v.length}|${l})`; }
    if (Array.isArray(v)) return v.length > 8 ? `Array(${v.length})` : `[${v.map((x) => describe(x, depth + 1)).join(',')}]`;
    if (v && typeof v === 'object') {
      if (depth > 1) return '{…}';
      return `{${Object.keys(v).slice(0, 6).map((k) => `${k}:${describe(Object.getOwnPropertyDescriptor(v, k)?.get ? '<getter>' : v[k], depth + 1)}`).join(',')}}`;
    }
    return JSON.stringify(v);
  } catch { return '<?>'; }
};

/** Whether a message names the parameter mutated (positional tensors too: matrix.data, q.shape). */
const named = (message, key) => message.toLowerCase().includes(key.toLowerCase());

/** What an accepted result looks like: finite typed-array data, data.length = product of shape. */
function checkResult(spec, args, result, what) {
  const seen = new Set();
  const walk = (v, path, depth) => {
    if (depth > 3 || v === null || typeof v !== 'object' || seen.has(v)) return;
    seen.add(v);
    if (ArrayBuffer.isView(v)) {
      if ((v instanceof Float32Array || v instanceof Float64Array) && !NONFINITE_OK.has(spec.fn)) {
        for (let i = 0; i < v.length; i++) if (!Number.isFinite(v[i]) && !(v[i] === -Infinity && spec.fn === 'alibiBias')) return finding('nonfinite', what, `${path}[${i}] = ${v[i]}`);
      }
      return;
    }
    if (Array.isArray(v.shape) && ArrayBuffer.isView(v.data) && v.data.length !== v.shape.reduce((a, b) => a * b, 1)) finding('shape', what, `${path}: data.length ${v.data.length} vs shape [${v.shape}]`);
    // a float16 / bfloat16 result: decode, check finite
    const dtype = optsOf(args)?.dtype;
    if ((dtype === 'float16' || dtype === 'bfloat16') && v.data instanceof Uint16Array) {
      const d = decodeHalves(v.data, dtype);
      for (let i = 0; i < d.length; i++) if (!Number.isFinite(d[i]) && !(d[i] === -Infinity && spec.fn === 'alibiBias')) return finding('nonfinite16', what, `${path}.data[${i}] decodes to ${d[i]}`);
    }
    for (const k of Object.keys(v)) walk(v[k], `${path}.${k}`, depth + 1);
  };
  walk(result, 'result', 0);
}

// A canonical small call per entry: after a refusal the same instance must still give what a fresh one gives.
const CANON = {
  posenc: (api) => api.table(5, 6).data, variants: (api) => api.ropeCache(3, 8).cos.data, fields: (api) => api.sincos1d([0, 1, 2], 8).data,
  lab: (api) => api.examples({ task: 'shift', length: 4 }).tokens,
};
const REF = Object.fromEntries(Object.keys(CANON).map((e) => [e, Array.from(CANON[e](fresh(e)))]));

function runCall(spec, args, label, mutatedKeys) {
  counts[spec.fn] = (counts[spec.fn] ?? 0) + 1;
  totalCalls++;
  let cost;
  try { cost = spec.cost(args); } catch { cost = NaN; }
  if (Number.isFinite(cost) && cost > LIMIT && cost <= 2 ** 30) { counts[`${spec.fn}:skipped`] = (counts[`${spec.fn}:skipped`] ?? 0) + 1; return 'skipped'; }
  const api = fresh(spec.entry);
  const before = api.memoryStats();
  const what = `${spec.entry}.${spec.fn}(${args.map((a) => describe(a)).join(', ')}) [${label}]`;
  const t0 = performance.now();
  let outcome;
  try {
    const result = api[spec.fn](...args);
    outcome = 'accepted';
    if (result && typeof result.free === 'function') result.free();
    checkResult(spec, args, result, what);
    const after = api.memoryStats();
    if (after.liveAllocations !== before.liveAllocations) finding('leak', what, `liveAllocations ${before.liveAllocations} -> ${after.liveAllocations}`);
  } catch (e) {
    outcome = 'refused';
    const ok = (e instanceof TypeError || e instanceof RangeError) && /^posenc\.[\w.]+: /.test(e?.message ?? '');
    if (!ok) finding('error-class', what, `${e?.constructor?.name}: ${String(e?.message).slice(0, 200)}`);
    const after = api.memoryStats();
    if (after.bytes !== before.bytes) finding('memory', what, `refused (${String(e?.message).slice(0, 160)}) but memory ${before.bytes} -> ${after.bytes}`);
    if (after.liveAllocations !== before.liveAllocations) finding('leak', what, `refused, liveAllocations ${before.liveAllocations} -> ${after.liveAllocations}`);
    if (ok && mutatedKeys && mutatedKeys.length === 1 && !named(e.message, mutatedKeys[0])) {
      UNNAMED.push(`${what}\n      -> ${e.message.slice(0, 200)}`);
    }
    try {
      const again = Array.from(CANON[spec.entry](api));
      if (again.join() !== REF[spec.entry].join()) finding('damaged', what, 'canonical call differs after the refusal');
    } catch (e2) { finding('damaged', what, `canonical call threw ${e2?.message}`); }
  }
  const ms = performance.now() - t0;
  if (ms > 5000) SLOW.push(`${Math.round(ms)} ms ${outcome}: ${what}`);
  return outcome;
}
const UNNAMED = [];
// roundTo rounds any number (Infinity past the format), precisionError's error is Infinity where a float16 position is (docs/variants.md)
const NONFINITE_OK = new Set(['roundTo', 'precisionError']);
const SLOW = [];

/** args with key set to value (positional or option), options copied. */
function withKey(spec, args, key, value, asGetter) {
  const a = args.slice();
  const pos = spec.names.indexOf(key);
  if (pos >= 0) { a[pos] = value; return a; }
  const last = a.length - 1;
  const o = { ...(a[last] ?? {}) };
  if (asGetter) Object.defineProperty(o, key, { get: value, enumerable: true, configurable: true });
  else o[key] = value;
  a[last] = o;
  return a;
}

/**
 * Runs the sweep: seed, pairs per function, only (function names, or all), sample (the share of the
 * one-value and dtype mutations run, drawn from the seed; 1: all), quiet (no log). Resolves to
 * { calls, findings, documented, perFunction, skipped, unnamed, slow }.
 */
export function sweep({ seed = 8, pairs = 40, only, sample = 1, quiet: silent = false } = {}) {
  R = rng(seed);
  quiet = silent;
  for (const list of [FINDINGS, documented, UNNAMED, SLOW]) list.length = 0;
  for (const k of Object.keys(counts)) delete counts[k];
  totalCalls = 0;
  const t0 = Date.now();
  const perFn = {};
  const drawn = () => sample >= 1 || R() < sample;
  for (const spec of SPECS) {
    if (only && !only.includes(spec.fn)) continue;
    sweepOne(spec, pairs, drawn);
    perFn[`${spec.entry}.${spec.fn}`] = counts[spec.fn] ?? 0;
    if (!quiet) console.error(`${spec.entry}.${spec.fn}: ${perFn[`${spec.entry}.${spec.fn}`]} calls, ${((Date.now() - t0) / 1000).toFixed(0)} s`);
  }
  const skipped = Object.fromEntries(Object.entries(counts).filter(([k]) => k.includes('skipped')));
  return { calls: totalCalls, seconds: (Date.now() - t0) / 1000, findings: [...FINDINGS], documented: [...documented], perFunction: perFn, skipped, unnamed: [...UNNAMED], slow: [...SLOW] };
}

function sweepOne(spec, pairs, drawn) {
  const baseArgs = spec.base();
  const base = runCall(spec, baseArgs, 'base');
  if (base !== 'accepted') finding('base', `${spec.fn}`, `base call ${base}`);
  const keys = Object.keys(spec.keys);
  // one at a time
  for (const key of keys) {
    const values = spec.keys[key](spec.base());
    for (const v of values) {
      if (!drawn()) continue;
      const value = typeof v === 'function' && v.length === 0 ? v() : v;
      runCall(spec, withKey(spec, spec.base(), key, value), `${key}=${describe(value)}`, [key]);
    }
    if (spec.names.indexOf(key) < 0) {
      runCall(spec, withKey(spec, spec.base(), key, throwingGetter, true), `${key}=<throwing getter>`, [key]);
    }
  }
  // each dtype with each other key's values (dtype decides float16 overflows)
  if (keys.includes('dtype')) {
    for (const dtype of ['float16', 'bfloat16', 'float64']) {
      for (const key of keys) {
        if (key === 'dtype' || key === 'out') continue;
        for (const v of spec.keys[key](spec.base())) {
          if (!drawn()) continue;
          const value = typeof v === 'function' && v.length === 0 ? v() : v;
          runCall(spec, withKey(spec, withKey(spec, spec.base(), 'dtype', dtype), key, value), `dtype=${dtype} ${key}=${describe(value)}`, null);
        }
      }
    }
  }
  // random pairs and triples
  for (let i = 0; i < pairs; i++) {
    let args = spec.base();
    const n = 2 + (R() < 0.3 ? 1 : 0);
    const label = [];
    for (let j = 0; j < n; j++) {
      const key = pick(keys);
      const v = pick(spec.keys[key](spec.base()));
      const value = typeof v === 'function' && v.length === 0 ? v() : v;
      args = withKey(spec, args, key, value);
      label.push(`${key}=${describe(value)}`);
    }
    runCall(spec, args, label.join(' '), null);
  }
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) {
  const [seed = 8, pairs = 40] = process.argv.slice(2, 4).map(Number);
  console.error(`heap filled but for ${LEAVE} bytes: ${JSON.stringify(FILL)}`);
  const r = sweep({ seed, pairs, only: process.argv[4]?.split(',') });
  console.log(`\n${r.calls} calls in ${r.seconds.toFixed(0)} s; ${r.findings.length} findings; ${r.documented.length} documented refusals after the work`);
  const byEntry = {};
  for (const [k, n] of Object.entries(r.perFunction)) byEntry[k.split('.')[0]] = (byEntry[k.split('.')[0]] ?? 0) + n;
  console.log(JSON.stringify(byEntry));
  console.log(JSON.stringify(r.perFunction));
  console.log(`skipped: ${JSON.stringify(r.skipped)}`);
  console.log(`\nunnamed (${r.unnamed.length}):`);
  for (const u of r.unnamed) console.log(`  ${u}`);
  console.log(`\nslow (${r.slow.length}):`);
  for (const line of r.slow) console.log(`  ${line}`);
  process.exitCode = r.findings.length ? 1 : 0;
}
export { SPECS, fresh };

// docs/limits.md, Security, "Planted properties and replaced built-ins: where
// the line is": with the realm's built-ins replaced by hostile code after posenc
// was imported, no call of any entry (posenc, posenc/variants, posenc/fields,
// posenc/lab, the kvCache and rope() handles) may
//   (a) hand WebAssembly memory to a replaced function: a module's
//       WebAssembly.Memory, its ArrayBuffer, or a typed array or DataView over
//       that buffer is never `this`, an argument (or an element of an argument
//       list, for apply-like functions) or a constructed result of one;
//   (b) read or write wasm memory outside the call's own buffers: no
//       WebAssembly.RuntimeError (nor a debug build's C assertion), a kvCache,
//       a rope() handle, a lab model and a fresh table made before give the
//       same bits afterwards, and where the output's size follows from the
//       data given (attention, attend, rope.apply...) it has that size;
//   (c) keep a block: every module's liveAllocations is back where it was.
// Raw JS errors and wrong results of the caller's own making are allowed.
//
// Part 1 plants transparent spies (Proxies that forward to the original) on
// every function and accessor of a broad list of built-ins and on the global
// constructors, all at once, and runs every case: (a). Part 2 plants one lying
// built-in at a time (iterators, Array.from, slice, map, call, apply...
// answering with altered numbers) and runs every case under it: (b) and (c).
// Wasm memory is identified by identity, never by a guess: WebAssembly.Instance
// is wrapped while the entries load, which gives every module's Memory; its
// buffer (read with the original getter at each check, and every one seen kept
// in a WeakSet, so a buffer memory.grow() detached is still known) and any view
// whose buffer is one of those count as wasm memory.
import { test } from 'node:test';
import assert from 'node:assert/strict';
// (the helpers, and with them web/lib's sources, are imported once instantiate is wrapped: posenc takes it at load)

// ---- the originals, captured before anything is planted -------------------------------
const own = {
  apply: Reflect.apply,
  construct: Reflect.construct,
  define: Object.defineProperty,
  describe: Object.getOwnPropertyDescriptor,
  keys: Reflect.ownKeys,
  protoOf: Object.getPrototypeOf,
  isView: ArrayBuffer.isView,
  isArray: Array.isArray,
  isInteger: Number.isInteger,
  wsHas: WeakSet.prototype.has,
  wsAdd: WeakSet.prototype.add,
  arrayValues: Array.prototype.values,
  typedValues: Object.getPrototypeOf(Int8Array.prototype).values,
  memoryBuffer: Object.getOwnPropertyDescriptor(WebAssembly.Memory.prototype, 'buffer').get,
  typedBuffer: Object.getOwnPropertyDescriptor(Object.getPrototypeOf(Int8Array.prototype), 'buffer').get,
  viewBuffer: Object.getOwnPropertyDescriptor(DataView.prototype, 'buffer').get,
  RuntimeError: WebAssembly.RuntimeError,
};
const TypedArray = own.protoOf(Int8Array);
const ArrayIteratorPrototype = own.protoOf([][Symbol.iterator]());
const IteratorPrototype = own.protoOf(ArrayIteratorPrototype);
const TYPED = [Int8Array, Uint8Array, Uint8ClampedArray, Int16Array, Uint16Array, Int32Array, Uint32Array, Float32Array, Float64Array,
  BigInt64Array, BigUint64Array];

// ---- the modules' memories: every instance the entries make while they load ---------
const memories = [];
const instances = [];
const memorySet = new WeakSet();
const buffers = new WeakSet();
const OwnInstance = WebAssembly.Instance;
// (posenc compiles, then makes its instances with the constructor: web/lib/wasm.js)
WebAssembly.Instance = new Proxy(OwnInstance, { construct(target, args, newTarget) {
  const instance = own.construct(target, args, newTarget === WebAssembly.Instance ? target : newTarget);
  const memory = instance.exports.memory;
  if (memory instanceof WebAssembly.Memory && !memorySet.has(memory)) {
    memories.push(memory);
    memorySet.add(memory);
    instances.push(instance.exports);
  }
  return instance;
} });
let apis, build;
try {
  const { loadAll } = await import('./helpers/calls.js');
  ({ build } = await import('./helpers/load.js'));
  apis = await loadAll();
} finally {
  WebAssembly.Instance = OwnInstance;
}
const { posenc: pe, variants: pv, fields: pf, lab } = apis;
/** Blocks live in the posenc and posenc/variants modules. */
const liveNow = () => pe.memoryStats().liveAllocations + pv.memoryStats().liveAllocations;
const ENTRIES = ['posenc', 'variants', 'fields', 'lab'];

// The start of each memory: nothing below 1024, then the C core's static data (its mutable globals few), then its
// stack (64 KiB, growing down to the data) and the heap. The stack's bytes hold what earlier calls left, so the check
// stops where the data ends: the first 1 KiB of zeros past 1024 in memory as loaded. A call that writes there,
// beyond the bytes that the clean calls change, wrote outside its buffers (a planted answer moved an address to 1024
// or 0: the columns hole of docs/hardening-log.md).
const dataEnd = memories.map((m) => {
  const bytes = new Uint8Array(own.apply(own.memoryBuffer, m, []), 0, 65536);
  for (let at = 1024, zeros = 0; at < bytes.length; at++) {
    zeros = bytes[at] ? 0 : zeros + 1;
    if (zeros === 1024) return at - 1023;
  }
  return 1024;
});
const STATIC = Math.max(...dataEnd);
const staticBytes = () => memories.map((m, i) => Buffer.from(new Uint8Array(own.apply(own.memoryBuffer, m, []), 0, dataEnd[i])));
const mutable = memories.map(() => new Uint8Array(STATIC));
const loaded = staticBytes(); // (before the test's calls: the globals the first ones set are mutable too)
/** Where `after` differs from `before` in bytes the clean calls never change: [module, address] of the first, or null. */
function strayWrite(before, after) {
  for (let m = 0; m < before.length; m++) {
    if (before[m].equals(after[m])) continue;
    for (let i = 0; i < before[m].length; i++) if (before[m][i] !== after[m][i] && !mutable[m][i]) return [m, i];
  }
  return null;
}

/** Records the current buffer of every module's memory (the original getter: never a spy). */
function refresh() {
  for (let i = 0; i < memories.length; i++) own.apply(own.wsAdd, buffers, [own.apply(own.memoryBuffer, memories[i], [])]);
}

/** What of wasm memory `x` is, or null. Calls only captured originals. */
function wasmKind(x) {
  if ((typeof x !== 'object' && typeof x !== 'function') || x === null) return null;
  refresh();
  if (own.apply(own.wsHas, memorySet, [x])) return 'a WebAssembly.Memory';
  if (own.apply(own.wsHas, buffers, [x])) return 'a wasm memory ArrayBuffer';
  if (!own.isView(x)) return null;
  let buffer;
  try {
    buffer = own.apply(own.typedBuffer, x, []);
  } catch {
    buffer = own.apply(own.viewBuffer, x, []);
  }
  return own.apply(own.wsHas, buffers, [buffer]) ? 'a view of wasm memory' : null;
}

// ---- part 1: transparent spies ---------------------------------------------------------
let busy = false; // inside the test's own bookkeeping: spies only forward
let hits = Object.create(null);

function check(label, thisArg, args) {
  busy = true;
  try {
    let kind = wasmKind(thisArg);
    let where = 'this';
    for (let i = 0; !kind && i < args.length; i++) {
      kind = wasmKind(args[i]);
      where = 'argument ' + i;
      if (!kind && own.isArray(args[i])) {
        const list = args[i];
        for (let j = 0; !kind && j < list.length && j < 16; j++) {
          kind = wasmKind(list[j]);
          where = 'argument ' + i + '[' + j + ']';
        }
      }
    }
    if (kind) hits[label + ': ' + where + ' is ' + kind] = true;
  } catch {
    // a revoked Proxy or a detached view in the arguments: not wasm memory
  } finally {
    busy = false;
  }
}

/** A Proxy of fn that records wasm memory passed to it and forwards to fn. */
function spyOf(fn, label) {
  const handler = Object.create(null);
  let proxy;
  handler.apply = (target, thisArg, args) => {
    if (!busy) check(label, thisArg, args);
    return own.apply(target, thisArg, args);
  };
  handler.construct = (target, args, newTarget) => {
    if (!busy) check('new ' + label, undefined, args);
    const made = own.construct(target, args, newTarget === proxy ? target : newTarget);
    if (!busy) check('new ' + label + ' (the object made)', made, []);
    return made;
  };
  proxy = new Proxy(fn, handler);
  return proxy;
}

const nameOf = (key) => (typeof key === 'symbol' ? `[${key.description}]` : `.${key}`);

/** [target, key, original descriptor, planted descriptor] for every function and accessor of the objects. */
function spyPlan() {
  const objects = [
    [Function.prototype, 'Function.prototype'], [Object, 'Object'], [Object.prototype, 'Object.prototype'],
    [Array, 'Array'], [Array.prototype, 'Array.prototype'], [ArrayIteratorPrototype, '%ArrayIteratorPrototype%'],
    [IteratorPrototype, '%IteratorPrototype%'], [TypedArray, '%TypedArray%'], [TypedArray.prototype, '%TypedArray%.prototype'],
    ...TYPED.flatMap((T) => [[T, T.name], [T.prototype, `${T.name}.prototype`]]),
    [ArrayBuffer, 'ArrayBuffer'], [ArrayBuffer.prototype, 'ArrayBuffer.prototype'], [SharedArrayBuffer.prototype, 'SharedArrayBuffer.prototype'],
    [DataView.prototype, 'DataView.prototype'], [WebAssembly, 'WebAssembly'], [WebAssembly.Memory.prototype, 'WebAssembly.Memory.prototype'],
    [WebAssembly.Instance.prototype, 'WebAssembly.Instance.prototype'], [WebAssembly.Module, 'WebAssembly.Module'], [Math, 'Math'],
    [Number, 'Number'], [Number.prototype, 'Number.prototype'], [Reflect, 'Reflect'], [JSON, 'JSON'], [String, 'String'],
    [String.prototype, 'String.prototype'], [Boolean.prototype, 'Boolean.prototype'], [Symbol, 'Symbol'], [Symbol.prototype, 'Symbol.prototype'],
    [Map.prototype, 'Map.prototype'], [Set.prototype, 'Set.prototype'], [WeakMap.prototype, 'WeakMap.prototype'],
    [WeakSet.prototype, 'WeakSet.prototype'], [WeakRef.prototype, 'WeakRef.prototype'], [FinalizationRegistry.prototype, 'FinalizationRegistry.prototype'],
    [own.protoOf(new Map().entries()), '%MapIteratorPrototype%'], [own.protoOf(new Set().values()), '%SetIteratorPrototype%'],
    [Error, 'Error'], [Error.prototype, 'Error.prototype'], [BigInt, 'BigInt'], [BigInt.prototype, 'BigInt.prototype'],
  ];
  const plan = [];
  const add = (target, key, label) => {
    const before = own.describe(target, key);
    if (!before || !before.configurable) return;
    if ('value' in before) {
      if (typeof before.value !== 'function') return;
      plan.push([target, key, before, { ...before, value: spyOf(before.value, label) }]);
    } else {
      plan.push([target, key, before, { ...before, get: before.get && spyOf(before.get, `${label} getter`), set: before.set && spyOf(before.set, `${label} setter`) }]);
    }
  };
  for (const [target, name] of objects) for (const key of own.keys(target)) add(target, key, name + nameOf(key));
  // the global constructors and functions themselves (a Proxy spies on construct and on call)
  for (const name of ['Object', 'Function', 'Array', 'ArrayBuffer', 'SharedArrayBuffer', 'DataView', ...TYPED.map((T) => T.name), 'Number',
    'String', 'Boolean', 'BigInt', 'Symbol', 'Map', 'Set', 'WeakMap', 'WeakSet', 'WeakRef', 'FinalizationRegistry', 'Error', 'TypeError',
    'RangeError', 'parseInt', 'parseFloat', 'isNaN', 'isFinite', 'structuredClone', 'TextDecoder', 'TextEncoder']) {
    add(globalThis, name, `globalThis.${name}`);
  }
  return plan;
}

/** Plants every [target, key, , planted]; returns the function that puts them all back (in reverse). */
function plantAll(plan) {
  let done = 0;
  const restore = () => {
    for (let i = done - 1; i >= 0; i--) own.define(plan[i][0], plan[i][1], plan[i][2]);
    done = 0;
  };
  try {
    for (; done < plan.length; done++) own.define(plan[done][0], plan[done][1], plan[done][3]);
  } catch (error) {
    restore();
    throw error;
  }
  return restore;
}

// ---- the cases: every public function, small valid calls --------------------------------
/** Seeded rows (made by a loop: the cases build their inputs with the built-ins planted, and use none of them). */
function rows(Type, n, s) {
  const a = new Type(n);
  for (let i = 0; i < n; i++) a[i] = (((i * 7 + s) % 11) / 10) - 0.5;
  return a;
}
const r = (n, s) => rows(Float32Array, n, s);
const r64 = (n, s) => rows(Float64Array, n, s);
/** pe.attention of q [2, 8], k and v [3, 8] (its arguments written out: a spread would use the planted iterator). */
const attend3 = (options) => pe.attention({ shape: [2, 8], data: r(16, 1) }, { shape: [3, 8], data: r(24, 2) }, { shape: [3, 8], data: r(24, 3) }, options);
const llama = () => ({ model_type: 'llama', rope_theta: 500000, hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096,
  rope_scaling: { rope_type: 'llama3', factor: 8, low_freq_factor: 1, high_freq_factor: 4, original_max_position_embeddings: 64 } });
const qwen = () => ({ model_type: 'qwen2_vl', rope_theta: 1e6, hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 4096,
  rope_scaling: { type: 'mrope', mrope_section: [2, 3, 3] } });
const flux = () => ({ axes_dims_rope: [4, 6, 6], theta: 10000 });
const phi3 = () => ({ model_type: 'phi3', hidden_size: 64, num_attention_heads: 4, max_position_embeddings: 256,
  rope_scaling: { type: 'longrope', short_factor: [1, 1, 1, 1, 1, 1, 1, 1], long_factor: [2, 2, 2, 2, 2, 2, 2, 2], original_max_position_embeddings: 64 } });
const LAB_MODEL = { task: 'shift', steps: 1, dModel: 8, heads: 2, layers: 1, mlp: 8, batch: 2, maxLength: 16, seed: 3 };
const labBatch = () => lab.examples({ task: 'shift', length: 4, count: 2, seed: 5 });

/** Size checks: a result whose size is not the one the data given makes holds data that is not the call's. */
const sized = (field) => (result, clean) => {
  const got = field(result)?.length;
  const n = field(clean).length;
  return got === n ? null : `returned ${got} values where the data given makes ${n}`;
};

// The handles the cases use, made once (other calls beside live handles, as a page has them), and the canaries.
const canaryKv = pe.kvCache({ heads: 2, headDim: 8, maxLength: 4 });
canaryKv.append({ shape: [2, 3, 8], data: r(48, 4) }, { shape: [2, 3, 8], data: r(48, 5) });
const canaryRope = pv.rope({ dim: 8, maxLen: 8 });
const labModel = lab.train(LAB_MODEL).model;

/** [entry, name, run(ctx), options: { setup, teardown, check }]: setup and teardown run with the built-ins as the engine made them. */
const CASES = [
  ['posenc', 'table', () => pe.table(5, 6)],
  ['posenc', 'table float16', () => pe.table(4, 8, { dtype: 'float16' })],
  ['posenc', 'table positions', () => pe.table(4, 8, { positions: [0, 3, 5, 9] }), { check: sized((x) => x.data) }],
  ['posenc', 'table out', () => pe.table(4, 8, { out: new Float32Array(32), preset: 'fairseq' })],
  ['posenc', 'frequencies', () => pe.frequencies(64)],
  ['posenc', 'columns', () => pe.columns(8), { check: (x, clean) => sized((y) => y.sin)(x, clean) ?? sized((y) => y.cos)(x, clean) }],
  ['posenc', 'tableGram', () => pe.tableGram(4, 6, { cosine: true })],
  ['posenc', 'dot', () => pe.dot([1, 2, 3], new Float32Array([4, 5, 6]))],
  ['posenc', 'norms', () => pe.norms({ shape: [2, 4], data: r64(8, 1) }), { check: sized((x) => x) }],
  ['posenc', 'gram', () => pe.gram([[1, 2], [3, 0.5]]), { check: sized((x) => x.data) }],
  ['posenc', 'gram tensor', () => pe.gram({ shape: [3, 4], data: r(12, 2) }, { cosine: true }), { check: sized((x) => x.data) }],
  ['posenc', 'rotation', () => pe.rotation(3, 4)],
  ['posenc', 'toyAttention', () => pe.toyAttention([1, 2, 3], [10, 20, 30], { weights: [1, 0.5, 0.25] })],
  ['posenc', 'attention', () => attend3(), { check: (x, clean) => sized((y) => y.output.data)(x, clean) ?? sized((y) => y.weights.data)(x, clean) }],
  ['posenc', 'attention 4-D', () => pe.attention({ shape: [1, 1, 2, 8], data: r(16, 1) }, { shape: [1, 1, 3, 8], data: r(24, 2) }, { shape: [1, 1, 3, 8], data: r(24, 3) }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'attention weights:false', () => attend3({ weights: false }), { check: sized((x) => x.output.data) }],
  ['posenc', 'attention mask', () => attend3({ mask: { shape: [2, 3], data: [true, true, false, true, true, true] } }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'attention bias causal', () => attend3({ causal: true, bias: { shape: [2, 3], data: r(6, 4) } }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'attention float64 nested', () => pe.attention([[1, 0], [0, 1]], [[1, 0], [0, 1], [1, 1]], [[2, 3], [5, 7], [1, 1]], { dtype: 'float64' }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'kvCache create', () => pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 }), { teardown: (ctx, made) => made?.free?.() }],
  ['posenc', 'kvCache append', (c) => c.append({ shape: [2, 8], data: r(16, 1) }, { shape: [2, 8], data: r(16, 2) }),
    { setup: () => pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 }), teardown: (c) => c.free() }],
  ['posenc', 'kvCache attend', (c) => c.attend({ shape: [2, 8], data: r(16, 3) }), {
    setup: () => {
      const c = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
      c.append({ shape: [3, 8], data: r(24, 1) }, { shape: [3, 8], data: r(24, 2) });
      return c;
    },
    teardown: (c) => c.free(), check: sized((x) => x.data),
  }],
  ['posenc', 'kvCache attend out', (c) => c.attend({ shape: [1, 8], data: r(8, 3) }, { causal: true, out: new Float32Array(8) }), {
    setup: () => {
      const c = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
      c.append({ shape: [2, 8], data: r(16, 1) }, { shape: [2, 8], data: r(16, 2) });
      return c;
    },
    teardown: (c) => c.free(), check: sized((x) => x.data),
  }],
  ['posenc', 'kvCache truncate', (c) => c.truncate(1), {
    setup: () => {
      const c = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
      c.append({ shape: [3, 8], data: r(24, 1) }, { shape: [3, 8], data: r(24, 2) });
      return c;
    },
    teardown: (c) => c.free(),
  }],
  ['posenc', 'kvCache free', (c) => c.free(), { setup: () => pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 }), teardown: (c) => c.free() }],
  ['posenc', 'memoryStats', () => pe.memoryStats()],
  ['variants', 'ropeFrequencies', () => pv.ropeFrequencies(8, { scaling: { type: 'yarn', factor: 4, originalMaxPosition: 64 } })],
  ['variants', 'ropeFrequencies config', () => pv.ropeFrequencies(16, { config: llama() })],
  ['variants', 'ropeCache', () => pv.ropeCache(3, 8, { layout: 'half' })],
  ['variants', 'ropeCache llama3', () => pv.ropeCache(3, 8, { scaling: { type: 'llama3', factor: 8, lowFreqFactor: 1, highFreqFactor: 4, originalMaxPosition: 4 } })],
  ['variants', 'ropeApply', () => pv.ropeApply({ shape: [2, 8], data: r(16, 4) }, { positions: [3, 1] }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply base scaling', () => pv.ropeApply({ shape: [2, 2, 8], data: r(32, 4) }, { base: 500, scaling: { type: 'linear', factor: 2 }, pairing: 'half' }),
    { check: sized((x) => x.data) }],
  ['variants', 'ropeApply caches', () => {
    const cache = pv.ropeCache(4, 8, { dtype: 'float64' });
    return pv.ropeApply({ shape: [2, 8], data: r64(16, 5) }, { cos: cache.cos, sin: cache.sin, positions: [2, 1], dtype: 'float64' });
  }, { check: sized((x) => x.data) }],
  ['variants', 'ropeApply config', () => pv.ropeApply({ shape: [2, 16], data: r(32, 6) }, { config: llama(), offset: 2 }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply mrope', () => pv.ropeApply({ shape: [3, 16], data: r(48, 7) }, { config: qwen(), positions: [[0, 1, 2], [0, 1, 1], [0, 0, 1]] }),
    { check: sized((x) => x.data) }],
  ['variants', 'ropeApply out', () => pv.ropeApply({ shape: [2, 8], data: r(16, 4) }, { out: new Float32Array(16) }), { check: sized((x) => x.data) }],
  ['variants', 'rope create', () => pv.rope({ dim: 8, maxLen: 4, scaling: { type: 'ntk', factor: 2 } }), { teardown: (ctx, made) => made?.free?.() }],
  ['variants', 'rope create config', () => pv.rope({ config: llama(), maxLen: 4 }), { teardown: (ctx, made) => made?.free?.() }],
  ['variants', 'rope apply', (h) => h.apply({ shape: [2, 8], data: r(16, 7) }, 1), {
    setup: () => pv.rope({ dim: 8, maxLen: 4 }), teardown: (h) => h.free(), check: sized((x) => x.data),
  }],
  ['variants', 'rope apply positions out', (h) => h.apply({ shape: [2, 2, 8], data: r64(32, 7) }, [3, 0], new Float64Array(32)), {
    setup: () => pv.rope({ dim: 8, maxLen: 4, dtype: 'float64' }), teardown: (h) => h.free(), check: sized((x) => x.data),
  }],
  ['variants', 'rope free', (h) => h.free(), { setup: () => pv.rope({ dim: 8, maxLen: 4 }), teardown: (h) => h.free() }],
  ['variants', 'ropeFromConfig', () => pv.ropeFromConfig(llama())],
  ['variants', 'mropePositions', () => pv.mropePositions([{ text: 2 }, { image: [1, 2, 2] }], { leftPadding: 2 })],
  ['variants', 'mropeCache', () => pv.mropeCache({ shape: [3, 2], data: [0, 1, 2, 3, 4, 5] }, 8, { section: [1, 1, 2] })],
  ['variants', 'ropeAxialCache', () => pv.ropeAxialCache({ shape: [2, 2], data: [0, 1, 1, 0] }, { axesDim: [2, 2] })],
  ['variants', 'ropeGridIds', () => pv.ropeGridIds(2, 3, { axes: 3, time: 4 })],
  ['variants', 'ropePermutation', () => pv.ropePermutation(8, { heads: 2 })],
  ['variants', 'ropePermute', () => pv.ropePermute([[1, 2], [3, 4]], { headDim: 2 })],
  ['variants', 'alibiSlopes', () => pv.alibiSlopes(6)],
  ['variants', 'alibiBias', () => pv.alibiBias(2, 3, { kLen: 4, mode: 'symmetric' })],
  ['variants', 't5Bucket', () => pv.t5Bucket([-3, 0, 4])],
  ['variants', 't5BucketMatrix', () => pv.t5BucketMatrix(3, { kLen: 4 })],
  ['variants', 'shawClip', () => pv.shawClip(3, { maxRelativePosition: 2 })],
  ['variants', 'learnedTable', () => pv.learnedTable(3, 4)],
  ['variants', 'learnedRows', () => pv.learnedRows([0, 2], 3, 4)],
  ['variants', 'binaryTable', () => pv.binaryTable(4, 3)],
  ['variants', 'roundTo', () => pv.roundTo([1.1, 2.5, -3], 'bfloat16')],
  ['variants', 'formatBits', () => pv.formatBits([1.1, 2.5, -3], 'float16')],
  ['variants', 'precisionError', () => pv.precisionError(8, { count: 4 })],
  // the twenty-sixth pass's cases: the configs, options and shapes the calls above leave out (FLUX's axial config, the
  // multi-axis ropeApply, longrope's factors, grouped heads, float16 and the other layouts)
  ['variants', 'ropeFromConfig flux', () => pv.ropeFromConfig(flux()), { check: sized((x) => x.invFreq) }],
  ['variants', 'ropeFromConfig phi3', () => pv.ropeFromConfig(phi3()), { check: sized((x) => x.invFreq) }],
  ['variants', 'ropeFrequencies longrope', () => pv.ropeFrequencies(8, { scaling: { type: 'longrope', factor: 4, shortFactor: [1, 1, 1, 1], longFactor: [2, 2, 2, 2], originalMaxPosition: 64 } }), { check: sized((x) => x.invFreq) }],
  ['variants', 'ropeAxialCache config', () => pv.ropeAxialCache({ shape: [2, 3], data: [0, 1, 2, 1, 0, 3] }, { config: flux(), layout: 'pairs' }), { check: sized((x) => x.cos.data) }],
  ['variants', 'mropeCache config float16', () => pv.mropeCache([[0, 1], [0, 1], [0, 2]], 16, { config: qwen(), dtype: 'float16' }), { check: sized((x) => x.cos.data) }],
  ['variants', 'ropeApply section', () => pv.ropeApply({ shape: [2, 2, 8], data: r(32, 8) }, { section: [1, 1, 2], interleaved: true, positions: [[0, 1], [0, 2], [1, 1]] }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply axesDim', () => pv.ropeApply({ shape: [2, 8], data: r(16, 9) }, { axesDim: [4, 4], positions: [[0, 1], [2, 3]], frequencies: 'alternate', dtype: 'float16' }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply flux config', () => pv.ropeApply({ shape: [2, 16], data: r(32, 10) }, { config: flux(), positions: [[0, 1, 2], [1, 2, 3]] }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply rotaryDim float64', () => pv.ropeApply({ shape: [3, 8], data: r64(24, 4) }, { rotaryDim: 4, pairing: 'interleaved', offset: 5, dtype: 'float64' }), { check: sized((x) => x.data) }],
  ['variants', 'ropeApply pairs caches', () => {
    const cache = pv.ropeCache(4, 8, { layout: 'pairs' });
    return pv.ropeApply({ shape: [2, 8], data: r(16, 5) }, { cos: cache.cos, sin: cache.sin, offset: 1, dtype: 'bfloat16' });
  }, { check: sized((x) => x.data) }],
  ['variants', 'ropeCache pairs float16', () => pv.ropeCache(3, 8, { layout: 'pairs', dtype: 'float16', offset: 2 }), { check: sized((x) => x.cos.data) }],
  ['variants', 'rope apply headDim offset', (h) => h.apply({ shape: [2, 3, 8], data: r(48, 7) }, 1), {
    setup: () => pv.rope({ dim: 4, headDim: 8, maxLen: 4, pairing: 'interleaved' }), teardown: (h) => h.free(), check: sized((x) => x.data),
  }],
  ['variants', 'rope apply nested', (h) => h.apply([[1, 2, 3, 4], [5, 6, 7, 8]], [1, 0]), {
    setup: () => pv.rope({ dim: 4, maxLen: 4 }), teardown: (h) => h.free(), check: sized((x) => x.data),
  }],
  ['variants', 'ropePermute inverse rows', () => pv.ropePermute({ shape: [4, 2], data: r(8, 2) }, { headDim: 4, inverse: true, dtype: 'float16' }), { check: sized((x) => x.data) }],
  ['variants', 'alibiBias float16 mpt', () => pv.alibiBias(3, 2, { kLen: 3, variant: 'mpt', dtype: 'float16', queryOffset: 1 }), { check: sized((x) => x.data) }],
  ['variants', 'precisionError positions', () => pv.precisionError(8, { positions: [0, 5, 9], format: 'bfloat16', mode: 'both' })],
  ['posenc', 'kvCache grouped attend', (c) => c.attend({ shape: [2, 4, 1, 8], data: r(64, 3) }, { scale: 0.5 }), {
    setup: () => {
      const c = pe.kvCache({ heads: 2, headDim: 8, maxLength: 4, batch: 2 });
      c.append({ shape: [2, 2, 3, 8], data: r(96, 1) }, { shape: [2, 2, 3, 8], data: r(96, 2) });
      return c;
    },
    teardown: (c) => c.free(), check: sized((x) => x.data),
  }],
  ['posenc', 'attention grouped flash', () => pe.attention({ shape: [1, 4, 2, 8], data: r(64, 1) }, { shape: [1, 2, 3, 8], data: r(48, 2) }, { shape: [1, 2, 3, 8], data: r(48, 3) }, { weights: false }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'attention int64 mask', () => attend3({ mask: { dims: [2, 3], type: 'int64', data: new BigInt64Array([1n, 1n, 0n, 1n, 1n, 1n]) }, dtype: 'float16' }),
    { check: sized((x) => x.output.data) }],
  ['posenc', 'norms nested float16', () => pe.norms([[1, 2, 3], [4, 5, 6]], { dtype: 'float16' }), { check: sized((x) => x) }],
  ['posenc', 'gram out bfloat16', () => pe.gram({ shape: [2, 3], data: r64(6, 3) }, { dtype: 'bfloat16', out: new Uint16Array(4) }), { check: sized((x) => x.data) }],
  ['posenc', 'table gram positions', () => pe.tableGram(3, 8, { dtype: 'float64', preset: 'fairseq' })],
  ['posenc', 'toyAttention positions', () => pe.toyAttention([1, 2, 3], [0, 5, 9], { weights: [1, 1, 1], threshold: 0.5 })],
  ['variants', 'memoryStats', () => pv.memoryStats()],
  ['fields', 'timestepEmbedding', () => pf.timestepEmbedding([1, 20], 8)],
  ['fields', 'sincos1d', () => pf.sincos1d([0, 1, 2], 8)],
  ['fields', 'sincos2d', () => pf.sincos2d(2, 2, 8, { clsToken: true })],
  ['fields', 'fourierFeatures', () => pf.fourierFeatures({ rows: 4, cols: 8, data: new Float64Array(32).fill(0.5) }, { levels: 2 })],
  ['fields', 'randomFourierFeatures', () => pf.randomFourierFeatures({ rows: 1, cols: 2, data: [0.25, 0.5] }, { features: 4 })],
  // (points far enough out that the drawn B's bound is asked of the core: its result was read through wasm.memory.buffer)
  ['fields', 'randomFourierFeatures drawn bound', () => pf.randomFourierFeatures({ rows: 1, cols: 2, data: [5e10, -5e10] }, { features: 4, sigma: 1 })],
  ['fields', 'memoryStats', () => pf.memoryStats()],
  ['lab', 'train', () => lab.train({ ...LAB_MODEL, seed: 4 })],
  ['lab', 'examples', () => lab.examples({ task: 'shift', length: 4 })],
  ['lab', 'loss', () => lab.loss(labModel, labBatch(), { gradient: true })],
  ['lab', 'evaluate', () => lab.evaluate(labModel, { samples: 4, length: 4 })],
  ['lab', 'attentionMaps', () => lab.attentionMaps(labModel, [1, 2, 3])],
  ['lab', 'tensors', () => lab.tensors(labModel)],
  ['lab', 'memoryStats', () => lab.memoryStats()],
];

/** Each checked case's result with the built-ins as the engine made them: the sizes its data makes. */
const CLEAN = new Map(CASES.filter((c) => c[3]?.check).map((c) => {
  const { setup, teardown } = c[3];
  const ctx = setup?.();
  const result = c[2](ctx);
  teardown?.(ctx, result);
  return [c, result];
}));

// ---- helpers shared by both parts ---------------------------------------------------------
const live = () => ENTRIES.map((e) => apis[e].memoryStats().liveAllocations);
const bits = (x) => JSON.stringify(x, (key, v) => (ArrayBuffer.isView(v) ? `${v.constructor.name}:${Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64')}` : v));
const outcome = (fn) => {
  try {
    return bits(fn());
  } catch (error) {
    return `${error?.constructor?.name}: ${error?.message}`;
  }
};

/** outcome(run) with plant()'s change in place, undone after. */
const outcomeWith = (plant, run) => {
  const undo = plant();
  try {
    return outcome(run);
  } finally {
    undo();
  }
};
/** What a module gives for calls that read the handles and model made at the start, and a fresh result. */
const CANARY = {
  posenc: () => [outcome(() => canaryKv.attend({ shape: [2, 1, 8], data: r(16, 6) })), outcome(() => pe.table(4, 8))],
  variants: () => [outcome(() => canaryRope.apply({ shape: [2, 8], data: r(16, 7) }, 2)), outcome(() => pv.ropeCache(3, 8))],
  fields: () => [outcome(() => pf.sincos1d([0, 1, 2], 8))],
  lab: () => [outcome(() => lab.loss(labModel, labBatch())), outcome(() => lab.attentionMaps(labModel, [3, 2, 1]))],
};
const firstCanaries = Object.fromEntries(ENTRIES.map((e) => [e, CANARY[e]()]));
const cleanErrors = [];
/**
 * The debug build's work counters (c/work.h: 7 doubles, every kernel adds to its own) are static data that changes:
 * found as the 7 doubles pe_work_count() reads, and mutable.
 */
function workCounters() {
  instances.forEach((exports, m) => {
    if (typeof exports.pe_work_count !== 'function') return;
    const want = [0, 1, 2, 3, 4, 5, 6].map((kind) => exports.pe_work_count(kind));
    if (want.every((x) => x === 0)) return; // (a module that counts nothing: its counters are as loaded)
    const doubles = new Float64Array(own.apply(own.memoryBuffer, memories[m], []), 0, dataEnd[m] >> 3);
    for (let at = 0; at + 7 <= doubles.length; at++) {
      if (want.every((x, i) => Object.is(doubles[at + i], x))) mutable[m].fill(1, 8 * at, 8 * at + 56);
    }
  });
}
// The static bytes the calls change as they should (the allocator's and the core's globals): seen between any two
// moments of every case (setup, call, teardown) and canary, twice over, and of a call in each module that grows its
// memory (the allocator's top); each changed byte marks its aligned 8 (a global's high bytes change seldom).
{
  let prev = loaded;
  const observe = () => {
    const now = staticBytes();
    for (let m = 0; m < now.length; m++) {
      if (now[m].equals(prev[m])) continue;
      for (let i = 0; i < now[m].length; i++) if (now[m][i] !== prev[m][i]) mutable[m].fill(1, i & ~7, (i & ~7) + 8);
    }
    prev = now;
  };
  for (let round = 0; round < 2; round++) {
    for (const [entry, name, run, { setup, teardown } = {}] of CASES) {
      const ctx = setup?.();
      observe();
      let result;
      try {
        result = run(ctx);
      } catch (error) {
        cleanErrors.push(`${entry}.${name}: ${error.message}`);
      } finally {
        observe();
        teardown?.(ctx, result);
      }
      observe();
      CANARY[entry]();
      observe();
    }
    workCounters();
    const grow = [() => pv.precisionError(8), () => pe.table(2048, 256), () => pv.ropeCache(4096, 128), () => pf.sincos2d(64, 64, 128), () => lab.examples({ task: 'shift', length: 16, count: 8192 })];
    for (const call of grow) {
      call();
      observe();
    }
  }
}

/**
 * Runs one case with `plant()` in place (it returns its undo), the built-ins as made for setup, teardown and every
 * check; returns the problems found ([] if none).
 */
function runCase(c, plant) {
  const [entry, , run, { setup, teardown, check: sizeCheck } = {}] = c;
  const problems = [];
  const liveBefore = live();
  const canaryBefore = CANARY[entry]();
  const ctx = setup?.();
  let result;
  let thrown;
  let returned = false;
  const staticBefore = staticBytes();
  const undo = plant();
  try {
    result = run(ctx);
    returned = true;
  } catch (error) {
    thrown = error;
  } finally {
    undo();
  }
  const stray = strayWrite(staticBefore, staticBytes());
  if (stray) problems.push(`wrote wasm memory outside its buffers (${ENTRIES[stray[0]]}'s static data at address ${stray[1]})`);
  try {
    teardown?.(ctx, result);
  } catch {
    // a handle the planted call left unusable: what is checked is the memory
  }
  if (thrown instanceof own.RuntimeError) problems.push(`a wasm trap (${thrown.message})`);
  else if (/WebAssembly core aborted/.test(String(thrown?.message))) problems.push(`a C assertion failed (${thrown.message.slice(0, 160)})`);
  if (returned && sizeCheck) {
    let bad;
    try {
      bad = sizeCheck(result, CLEAN.get(c));
    } catch (error) {
      bad = `its result could not be read (${error.message})`;
    }
    if (bad) problems.push(bad);
  }
  const liveAfter = live();
  for (let i = 0; i < ENTRIES.length; i++) {
    if (liveAfter[i] !== liveBefore[i]) problems.push(`${ENTRIES[i]} kept blocks (liveAllocations ${liveBefore[i]} -> ${liveAfter[i]})`);
  }
  const canaryAfter = CANARY[entry]();
  for (let i = 0; i < canaryAfter.length; i++) {
    if (canaryAfter[i] !== canaryBefore[i]) problems.push(`${entry}'s canary ${i} changed: ${canaryBefore[i].slice(0, 80)} -> ${canaryAfter[i].slice(0, 80)}`);
  }
  return problems;
}

test(`the wasm memories are found (${build} build)`, () => {
  assert.equal(memories.length, 4, 'a memory per entry');
  assert.deepEqual(cleanErrors, [], 'every case is a valid call');
  for (const e of ENTRIES) for (const c of firstCanaries[e]) assert.doesNotMatch(c, /Error: /, `${e}'s canary is a valid call`);
  assert.ok(dataEnd.every((end) => end > 1024 + 256), `static data found (it ends at ${dataEnd})`);
  // the spies see a view of wasm memory handed to them (the test's own check that part 1 can fail)
  hits = Object.create(null);
  const restore = plantAll(spyPlan());
  try {
    refresh();
    new Uint8Array(own.apply(own.memoryBuffer, memories[0], []), 0, 0).fill(0);
  } finally {
    restore();
  }
  const seen = Object.keys(hits);
  assert.ok(seen.some((h) => h.startsWith('new globalThis.Uint8Array: argument 0 is a wasm memory ArrayBuffer')), seen.join('\n'));
  assert.ok(seen.some((h) => h.includes('.fill: this is a view of wasm memory')), seen.join('\n'));
});

test('part 1: no call hands wasm memory to a replaced built-in (spies on every function and accessor)', async (t) => {
  const plan = spyPlan();
  for (const c of CASES) {
    const [entry, name] = c;
    await t.test(`${entry}.${name}`, () => {
      hits = Object.create(null);
      const problems = runCase(c, () => plantAll(plan));
      const seen = Object.keys(hits);
      hits = Object.create(null);
      assert.deepEqual([...seen.map((h) => `handed to ${h}`), ...problems], [], `${entry}.${name} with every built-in spied`);
    });
  }
});

// ---- part 2: lying built-ins, one at a time ---------------------------------------------------
const integer = (v) => typeof v === 'number' && own.isInteger(v);
const TRANSFORMS = {
  'x8': (v) => (integer(v) && v > 1 ? v * 8 : v), // sizes, counts and addresses larger
  'addr->1024': (v) => (integer(v) && v > 65535 ? 1024 : v), // wasm addresses moved to 1024
  'rows x8': (v, i, n) => (i === n - 2 && integer(v) && v > 1 ? v * 8 : v), // a shape's rows larger, its width as it is
};
/** A plain array's values changed by `t` (a new array; posenc's own arrays and the caller's are left alone). */
function lieArray(a, t) {
  const out = [];
  for (let i = 0; i < a.length; i++) out[i] = t(a[i], i, a.length);
  return out;
}
/** A number through `t`, a plain array's numbers through `t` (a copy), anything else as it is. */
const lie = (v, t) => (typeof v === 'number' ? t(v, -1, 0) : own.isArray(v) ? lieArray(v, t) : v);
/** The values of an array-like, changed, one fewer or one more. */
function copyOf(a, t, length = 'same') {
  const out = [];
  const n = a.length - (length === 'fewer' ? 1 : 0);
  for (let i = 0; i < n; i++) out[i] = t(a[i], i, a.length);
  if (length === 'more' && a.length > 0) out[out.length] = t(a[a.length - 1]);
  return out;
}
const method = (value) => ({ value, configurable: true, writable: true });

// Whether this use of the planted built-in lies: every use, or only the k-th in the call (a lie told once gets past
// the checks that read a value again, the one that hands the value to the core). Counts uses when it never lies.
let gate = () => true;
const same = (v) => v;
const iteratorLie = (t, length) => (orig) => method(function () {
  const lying = gate();
  if (!lying && orig) return own.apply(orig, this, []);
  return own.apply(own.arrayValues, copyOf(this, lying ? t : same, lying ? length : 'same'), []);
});
function never() {
  never.uses++;
  return false;
}
never.uses = 0;
const resultLie = (t) => (orig) => method(function (...args) {
  const got = new.target ? own.construct(orig, args, new.target) : own.apply(orig, this, args);
  return gate() ? lie(got, t) : got;
});

/** { name, target, key, make(original) => descriptor, nth: also told at one use only } */
const LIES = [];
const lieOn = (name, target, key, make, nth = false) => LIES.push({ name, target, key, make, nth });
for (const [tn, t] of Object.entries(TRANSFORMS)) {
  lieOn(`Array.prototype[Symbol.iterator] ${tn}`, Array.prototype, Symbol.iterator, iteratorLie(t), true);
  lieOn(`%ArrayIteratorPrototype%.next ${tn}`, ArrayIteratorPrototype, 'next', (orig) => method(function () {
    const step = own.apply(orig, this, []);
    if (!step.done && gate()) step.value = lie(step.value, t);
    return step;
  }), true);
  lieOn(`Object.prototype[Symbol.iterator] ${tn}`, Object.prototype, Symbol.iterator, iteratorLie(t));
  lieOn(`%TypedArray%.prototype[Symbol.iterator] ${tn}`, TypedArray.prototype, Symbol.iterator, iteratorLie(t), true);
  lieOn(`Array.from ${tn}`, Array, 'from', resultLie(t), true);
  lieOn(`Function.prototype.call ${tn}`, Function.prototype, 'call', resultLie(t), true);
  lieOn(`Function.prototype.apply ${tn}`, Function.prototype, 'apply', resultLie(t), true);
  lieOn(`Function.prototype.bind ${tn}`, Function.prototype, 'bind', (orig) => method(function (...args) {
    const bound = own.apply(orig, this, args);
    if (!gate()) return bound;
    return function (...more) { return lie(new.target ? own.construct(bound, more) : own.apply(bound, this, more), t); };
  }), true);
  for (const key of ['slice', 'map', 'flatMap', 'reduce', 'at', 'indexOf', 'concat']) lieOn(`Array.prototype.${key} ${tn}`, Array.prototype, key, resultLie(t), key === 'slice' || key === 'map');
  lieOn(`Array.prototype.entries ${tn}`, Array.prototype, 'entries', (orig) => method(function () {
    if (!gate()) return own.apply(orig, this, []);
    const pairs = [];
    for (let i = 0; i < this.length; i++) pairs[i] = [i, t(this[i], i, this.length)];
    return own.apply(own.arrayValues, pairs, []);
  }));
  for (const key of ['reverse', 'fill']) {
    lieOn(`Array.prototype.${key} ${tn}`, Array.prototype, key, (orig) => method(function (...args) {
      const got = own.apply(orig, this, args);
      if (own.isArray(this) && gate()) for (let i = 0; i < this.length; i++) this[i] = t(this[i], i, this.length);
      return got;
    }));
  }
  if (tn === 'rows x8') continue; // (numbers alone have no rows)
  for (const key of ['max', 'min', 'floor', 'ceil', 'trunc']) lieOn(`Math.${key} ${tn}`, Math, key, resultLie(t), true); // (also at one use only: table's rows, twenty-seventh pass)
  for (const [name, target, key] of [['%TypedArray%.prototype.length', TypedArray.prototype, 'length'],
    ['%TypedArray%.prototype.byteOffset', TypedArray.prototype, 'byteOffset'], ['%TypedArray%.prototype.byteLength', TypedArray.prototype, 'byteLength'],
    ['ArrayBuffer.prototype.byteLength', ArrayBuffer.prototype, 'byteLength']]) {
    lieOn(`${name} getter ${tn}`, target, key, (orig, before) => ({
      ...before,
      get: function () {
        const got = own.apply(before.get, this, []);
        return gate() ? t(got, -1, 0) : got;
      },
    }), true);
  }
}
for (const length of ['fewer', 'more']) {
  lieOn(`Array.prototype[Symbol.iterator] one ${length}`, Array.prototype, Symbol.iterator, iteratorLie(same, length), true);
  lieOn(`%TypedArray%.prototype[Symbol.iterator] one ${length}`, TypedArray.prototype, Symbol.iterator, iteratorLie(same, length), true);
  lieOn(`Array.from one ${length}`, Array, 'from', (orig) => method(function (...args) {
    const got = own.apply(orig, this, args);
    return own.isArray(got) && gate() ? copyOf(got, same, length) : got;
  }), true);
  lieOn(`Array.prototype.slice one ${length}`, Array.prototype, 'slice', (orig) => method(function (...args) {
    const got = own.apply(orig, this, args);
    return gate() ? copyOf(got, same, length) : got;
  }), true);
}
const constant = (value) => (orig) => method(function (...args) { return gate() ? value : own.apply(orig, this, args); });
lieOn('%ArrayIteratorPrototype%.next done at once', ArrayIteratorPrototype, 'next', constant({ value: undefined, done: true }), true);
lieOn('Object.prototype[Symbol.iterator] (array-likes iterable)', Object.prototype, Symbol.iterator, iteratorLie(same));
lieOn('Array.prototype.every always true', Array.prototype, 'every', constant(true));
lieOn('Array.prototype.some always false', Array.prototype, 'some', constant(false));
lieOn('Array.prototype.includes always false', Array.prototype, 'includes', constant(false));
lieOn('Number.isInteger always true', Number, 'isInteger', constant(true));
lieOn('Number.isSafeInteger always true', Number, 'isSafeInteger', constant(true));
lieOn('Number.isFinite always true', Number, 'isFinite', constant(true));
lieOn('Array.isArray always true', Array, 'isArray', constant(true));
lieOn('ArrayBuffer.isView always false', ArrayBuffer, 'isView', constant(false));
// the twenty-sixth pass's: built-ins the lies above leave out
for (const [tn, t] of Object.entries(TRANSFORMS)) {
  if (tn === 'rows x8') continue;
  for (const key of ['abs', 'sqrt', 'log2', 'round', 'fround', 'pow']) lieOn(`Math.${key} ${tn}`, Math, key, resultLie(t), true);
}
lieOn('Array.prototype.includes always true', Array.prototype, 'includes', constant(true));
lieOn('Array.prototype.find never finds', Array.prototype, 'find', constant(undefined));
lieOn('Array.prototype.filter keeps all', Array.prototype, 'filter', (orig) => method(function () { return gate() ? copyOf(this, same) : own.apply(orig, this, arguments); }));
lieOn('Array.prototype.push pushes nothing', Array.prototype, 'push', constant(0));
lieOn('Object.keys one fewer', Object, 'keys', (orig) => method(function (...args) { const got = own.apply(orig, this, args); return gate() ? copyOf(got, same, 'fewer') : got; }), true);
lieOn('Object.entries one fewer', Object, 'entries', (orig) => method(function (...args) { const got = own.apply(orig, this, args); return gate() ? copyOf(got, same, 'fewer') : got; }), true);
lieOn('Object.hasOwn always true', Object, 'hasOwn', constant(true));
lieOn('Object.hasOwn always false', Object, 'hasOwn', constant(false));
lieOn('Object.getPrototypeOf always Object.prototype', Object, 'getPrototypeOf', constant(Object.prototype));
lieOn('String.prototype.startsWith always false', String.prototype, 'startsWith', constant(false));
lieOn('Number.isNaN always false', Number, 'isNaN', constant(false));
lieOn('isFinite always true', globalThis, 'isFinite', constant(true));
lieOn('Set.prototype.has always true', Set.prototype, 'has', constant(true));
for (const T of [Float32Array, Float64Array, Int32Array]) {
  lieOn(`${T.name}[Symbol.hasInstance] always true`, T, Symbol.hasInstance, constant(true));
  lieOn(`${T.name}.name lies`, T, 'name', (orig, before) => ({ ...before, value: T === Float32Array ? 'Float64Array' : 'Float32Array' }));
}
lieOn('%TypedArray%.from x8', TypedArray, 'from', resultLie(TRANSFORMS.x8), true);
// callbacks handed other elements (ropeFromConfig's FLUX widths came through map's callback, past every check)
for (const key of ['map', 'forEach', 'reduce', 'some', 'every', 'filter', 'find', 'flatMap']) {
  lieOn(`Array.prototype.${key} callback x8`, Array.prototype, key, (orig) => method(function (f, ...rest) {
    if (typeof f !== 'function' || !gate()) return own.apply(orig, this, [f, ...rest]);
    const wrapped = key === 'reduce' ? (acc, v, ...more) => f(acc, TRANSFORMS.x8(v), ...more) : (v, ...more) => f(TRANSFORMS.x8(v), ...more);
    return own.apply(orig, this, [wrapped, ...rest]);
  }), true);
}

/** The undo-able planting of one lie; `tell` is the gate it answers to (every use, one use, or none: counting). */
const plantOne = ({ target, key, make }, tell) => () => {
  const before = own.describe(target, key);
  gate = tell();
  own.define(target, key, make(before?.value, before));
  return () => {
    if (before) own.define(target, key, before);
    else delete target[key];
    gate = () => true;
  };
};
const always = () => () => true;
const onlyUse = (k) => () => {
  let n = 0;
  return () => ++n === k;
};
const counting = () => {
  never.uses = 0;
  return never;
};
/** How many of a lie's single uses each case tries, the first ones (the cases make at most about 100). */
const NTH = 128;

test('part 2: a lying built-in makes no call read or write outside its buffers, trap or keep a block', async (t) => {
  for (const liar of LIES) {
    await t.test(liar.name, () => {
      const failures = [];
      for (const c of CASES) {
        const problems = runCase(c, plantOne(liar, always));
        if (problems.length) failures.push(`${c[0]}.${c[1]}: ${problems.join('; ')}`);
        if (!liar.nth) continue;
        const counted = runCase(c, plantOne(liar, counting));
        const uses = never.uses;
        if (counted.length) failures.push(`${c[0]}.${c[1]} (the plant answering honestly): ${counted.join('; ')}`);
        for (let k = 1; k <= uses && k <= NTH; k++) {
          const once = runCase(c, plantOne(liar, onlyUse(k)));
          if (once.length) failures.push(`${c[0]}.${c[1]} (lying at use ${k} of ${uses} only): ${once.join('; ')}`);
        }
      }
      assert.deepEqual(failures, [], `under ${liar.name}`);
    });
  }
});

test('afterwards every module still gives what it gave before any plant', () => {
  for (const e of ENTRIES) assert.deepEqual(CANARY[e](), firstCanaries[e], e);
  canaryKv.free();
  canaryRope.free();
});

test('init() hands no replaced built-in an instance, its exports or its memory (a getter planted on Promise.prototype.constructor or Object.prototype.then before the first init())', async () => {
  // The twenty-sixth pass, part A: WebAssembly.instantiate resolved its promise with { module, instance }, reading that
  // object's `then`; and awaiting the promise of the exports read its `constructor`, whose getter, given the promise,
  // took its value with the original then: the module's memory, every later call's data in it.
  const then = Promise.prototype.then;
  const seen = [];
  let inside = false;
  const constructorBefore = own.describe(Promise.prototype, 'constructor');
  const plants = [
    [Promise.prototype, 'constructor', { configurable: true, get() {
      if (!inside) {
        inside = true;
        try {
          own.apply(then, this, [(v) => seen.push(v), () => {}]);
        } finally {
          inside = false;
        }
      }
      return Promise;
    } }],
    [Object.prototype, 'then', { configurable: true, get() {
      seen.push(this);
      return undefined;
    } }],
  ];
  const files = ['../dist/lib/posenc.js', '../dist/lib/variants.js', '../dist/lib/fields.js', '../dist/lib/lab.js', '../web/lib/index.js', '../web/lib/variants/index.js'];
  for (const file of files) {
    const entry = await import(`${file}?planted-init`);
    for (const [target, key, planted] of plants) own.define(target, key, planted);
    try {
      await entry.init();
      await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      own.define(Promise.prototype, 'constructor', constructorBefore);
      delete Object.prototype.then;
    }
  }
  const leaked = seen.filter((v) => v instanceof WebAssembly.Instance || v instanceof WebAssembly.Memory || (typeof v === 'object' && v !== null
    && (v.instance instanceof WebAssembly.Instance || v.memory instanceof WebAssembly.Memory)));
  assert.ok(seen.length > 0, 'the plants were reached');
  assert.equal(leaked.length, 0, `${leaked.length} of ${seen.length} values handed to the plants held an instance or a memory`);
});

test('a built-in planted to re-enter posenc (another call, or the handle\'s free) changes no call\'s sizes, reads no freed memory and keeps no block', () => {
  // The twenty-sixth pass, part A: attention's sizes were one array shared by every call, so an attention run from a
  // planted slice gave this one's kernel its sizes over this one's buffers (a C assertion in the allocator, blocks
  // kept); kvCache.attend called isFinite and a rope() handle's apply Math.fround between their checks and their use of
  // wasm memory, and a handle freed there was worked on (keys, values, cos and sin read from freed memory, or address 0;
  // a block kept); and attend read its result after making its shape, where a planted slice freed the cache and another
  // call wrote the freed memory.
  const plantOnce = (target, key, action, test = () => true) => {
    const before = own.describe(target, key);
    let done = false;
    own.define(target, key, { ...before, value: function (...args) {
      if (!done && test(this, args)) {
        done = true;
        action();
      }
      return own.apply(before.value, this, args);
    } });
    return () => own.define(target, key, before);
  };
  const shape28 = (self) => own.isArray(self) && self.length === 2 && self[0] === 2 && self[1] === 8;
  const cases = [
    ['attention with a mask, another attention from slice', () => attend3({ mask: { shape: [2, 3], data: [1, 1, 1, 1, 1, 1] } }),
      () => plantOnce(Array.prototype, 'slice', () => pe.attention({ shape: [64, 64], data: r(4096, 1) }, { shape: [64, 64], data: r(4096, 2) }, { shape: [64, 64], data: r(4096, 3) }, { weights: false, dtype: 'float64' }), shape28)],
    ['attention without weights, another attention from slice', () => attend3({ weights: false }),
      () => plantOnce(Array.prototype, 'slice', () => pe.attention({ shape: [64, 64], data: r(4096, 1) }, { shape: [64, 64], data: r(4096, 2) }, { shape: [64, 64], data: r(4096, 3) }, { weights: false }), shape28)],
  ];
  for (const [name, run, plant] of cases) {
    const clean = outcome(run);
    const before = liveNow();
    const got = outcomeWith(plant, run);
    assert.equal(got, clean, name);
    assert.equal(liveNow(), before, `${name}: blocks kept`);
  }
  // a handle freed from a planted built-in: the call refuses (the handle was freed) or gives what it gave; nothing is kept
  const handles = [
    ['kvCache.attend, the cache freed from isFinite', () => {
      const c = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
      c.append({ shape: [2, 8], data: r(16, 1) }, { shape: [2, 8], data: r(16, 2) });
      return [c, () => c.attend({ shape: [1, 8], data: r(8, 3) })];
    }, (c) => plantOnce(globalThis, 'isFinite', () => c.free())],
    ['kvCache.attend, the cache freed from slice and its memory written by a table', () => {
      const c = pe.kvCache({ heads: 1, headDim: 8, maxLength: 4 });
      c.append({ shape: [2, 8], data: r(16, 1) }, { shape: [2, 8], data: r(16, 2) });
      return [c, () => c.attend({ shape: [1, 8], data: r(8, 3) })];
    }, (c) => plantOnce(Array.prototype, 'slice', () => {
      c.free();
      pe.table(4, 64, { dtype: 'float64' });
    }, (self) => own.isArray(self) && self.length === 2 && self[0] === 1 && self[1] === 8)],
    ['rope().apply, the handle freed from Math.fround', () => {
      const h = pv.rope({ dim: 8, maxLen: 4 });
      return [h, () => h.apply({ shape: [2, 8], data: r64(16, 4) }, 1)];
    }, (h) => plantOnce(Math, 'fround', () => h.free())],
  ];
  for (const [name, make, plant] of handles) {
    const before = liveNow();
    const [cleanHandle, cleanCall] = make();
    const clean = outcome(cleanCall);
    cleanHandle.free();
    const [handle, call] = make();
    const undo = plant(handle);
    let got;
    try {
      got = outcome(call);
    } finally {
      undo();
    }
    handle.free();
    assert.ok(got === clean || /was freed/.test(got), `${name}: ${got.slice(0, 120)}`);
    assert.equal(liveNow(), before, `${name}: blocks kept`);
  }
});

test('a Math.min planted to answer more at one use only writes no positions past their buffer (table with positions, beside a live kvCache)', () => {
  // The twenty-seventh pass: table() sized each chunk's rows by Math.min(chunk, maxLen - r0) and wrote the chunk's
  // positions into a buffer of `chunk`; a min answering 64 times more at that use only (the lies above answer at every
  // use, and the buffers grew with them) wrote 504 NaNs past it, over a kvCache freed memory had put there: the cache's
  // next attend trapped ("memory access out of bounds").
  const hole = pe.kvCache({ heads: 1, headDim: 64, maxLength: 16 }); // freed below: the table's frame is made in its place
  const cache = pe.kvCache({ heads: 1, headDim: 8, maxLength: 8 });
  const kv = { shape: [8, 8], data: r(64, 5) };
  cache.append(kv, kv);
  const q = { shape: [1, 8], data: r(8, 6) };
  const clean = outcome(() => cache.attend(q));
  hole.free();
  const min = own.describe(Math, 'min');
  let uses = 0;
  // the lie told at each use in turn, the other uses answered honestly
  for (let k = 1; k <= 4; k++) {
    const before = pe.memoryStats().liveAllocations;
    let seen = 0;
    own.define(Math, 'min', { ...min, value: function (...args) {
      const got = own.apply(min.value, this, args);
      return args.length === 2 && ++seen === k ? got * 64 : got;
    } });
    let got;
    try {
      got = outcome(() => pe.table(8, 64, { positions: [0, 1, 2, 3, 4, 5, 6, 7] }));
    } finally {
      own.define(Math, 'min', min);
    }
    uses = Math.max(uses, seen);
    assert.doesNotMatch(got, /RuntimeError/, `lying at use ${k}`);
    assert.equal(pe.memoryStats().liveAllocations, before, `lying at use ${k}: blocks kept`);
    assert.equal(outcome(() => cache.attend(q)), clean, `lying at use ${k}: the kvCache beside the call is intact`);
  }
  assert.ok(uses >= 1, 'the plant was reached');
  cache.free();
});

test('a setter planted on an index of Array.prototype, or a proxy made its prototype, puts no accessor in a shape\'s copy (attention, rope.apply: the sizes checked are the sizes used)', () => {
  // The thirty-first pass: byIndex copied a shape by assignment and asked Array.prototype for the index after it, so a
  // setter planted there, called with the copy as `this`, defined an accessor on the copy and deleted itself: the
  // accessor gave the sizes checked, then others (attention's heads 2 read as 2^20 trapped, "memory access out of
  // bounds"; as 8, 96 outputs were read from a 24-element call's memory). A proxy made Array.prototype's prototype
  // answered `in` with false and did the same from its set trap.
  const q4 = (s) => ({ shape: [1, 2, 3, 4], data: r(24, s) });
  const calls = [
    ['attention', () => pe.attention(q4(1), q4(2), q4(3))],
    ['rope().apply', () => canaryRope.apply({ shape: [2, 2, 8], data: r64(32, 4) }, 1)],
  ];
  const accessor = (self, key, value, lie) => {
    let reads = 0;
    own.define(self, key, { configurable: true, enumerable: true, get: () => (reads++ < 1 ? value : lie), set() {} });
  };
  let reached = 0;
  const plants = [];
  for (let index = 0; index < 4; index++) {
    for (const lie of [8, 2 ** 20]) {
      plants.push([`a setter on Array.prototype[${index}], then ${lie}`, () => {
        own.define(Array.prototype, index, { configurable: true, set(value) {
          reached++;
          delete Array.prototype[index];
          accessor(this, index, value, lie);
        } });
        return () => delete Array.prototype[index];
      }]);
    }
  }
  plants.push(['a proxy as Array.prototype\'s prototype', () => {
    const proxy = new Proxy(Object.prototype, {
      has: (target, key) => (typeof key === 'string' && /^[0-3]$/.test(key) ? false : Reflect.has(target, key)),
      set: (target, key, value, receiver) => {
        if (!(typeof key === 'string' && /^[0-3]$/.test(key) && own.isArray(receiver))) return Reflect.set(target, key, value, receiver);
        reached++;
        accessor(receiver, key, value, 8);
        return true;
      },
    });
    Object.setPrototypeOf(Array.prototype, proxy);
    return () => Object.setPrototypeOf(Array.prototype, Object.prototype);
  }]);
  for (const [callName, call] of calls) {
    const clean = outcome(call);
    for (const [plantName, plant] of plants) {
      const before = liveNow();
      const got = outcomeWith(plant, call);
      assert.equal(got, clean, `${callName}, ${plantName}`);
      assert.equal(liveNow(), before, `${callName}, ${plantName}: blocks kept`);
    }
  }
  assert.equal(reached, 0, 'a planted setter was called');
});

test('a shape whose length is no whole number (a proxy\'s 2.5) is refused by name, beside an index planted on Array.prototype', () => {
  // Found in review of issue 24's decode work: shapeOf bounded a proxy's length of 2.5 to 1..4, copied two sizes by
  // shapeByIndex, then read and wrote a third through Array.prototype[2], whose setter put an accessor on the copy:
  // attention's v of [2, 3] (48 values) answered 8 to the checks and 64 to the work, and the output had 64 columns,
  // read from other wasm memory. rope().apply's quick reader took the same length as a rank of 2.5.
  const oddShape = (sizes) => new Proxy(sizes, { get: (t, k) => (k === 'length' ? sizes.length + 0.5 : t[k]) });
  const q = { data: r(8, 1), shape: [2, 1, 4] }, k = { data: r(24, 2), shape: [2, 3, 4] };
  const calls = [
    ['attention', 'v.shape', () => pe.attention(q, k, { data: r(48, 3), shape: oddShape([2, 3]) })],
    ['attention, weights: false', 'v.shape', () => pe.attention(q, k, { data: r(48, 3), shape: oddShape([2, 3]) }, { weights: false })],
    // (x of 2 × 16 × 8 values: the quick reader's count of a third size of 8 matched it)
    ['rope().apply', 'x.shape', () => canaryRope.apply({ data: r64(256, 4), shape: oddShape([2, 16]) }, 1)],
    ['ropeApply', 'x.shape', () => pv.ropeApply({ data: r(256, 4), shape: oddShape([2, 16]) })],
  ];
  // the plant answers only a shape's two-size copy (2, then 3 or 16): every other array reads and assigns its index 2
  // as usual
  const copy = (a) => own.isArray(a) && a.length === 2 && a[0] === 2;
  let reached = 0;
  own.define(Array.prototype, 2, { configurable: true, get() { return copy(this) ? 8 : undefined; }, set(value) {
    reached += copy(this);
    own.define(this, 2, { configurable: true, enumerable: true, writable: true, value: copy(this) ? value * 8 : value });
  } });
  try {
    for (const [callName, shapeName, call] of calls) {
      const before = liveNow();
      assert.throws(call, (e) => e instanceof TypeError && e.message.includes(`${shapeName} must be 1 to 4 sizes`), callName);
      assert.equal(liveNow(), before, `${callName}: blocks kept`);
    }
  } finally {
    delete Array.prototype[2];
  }
  assert.equal(reached, 0, 'the planted setter was called');
});

test('a global Float32Array or Float64Array replaced after import changes no attention result (its views are made by the library\'s own constructors)', () => {
  // The thirty-third pass: attention's float32 kernel viewed each run of q, k and v through globalThis[the type's name],
  // looked up at call time: one answering 4 elements gave zeros without a word, one answering 10^5 a raw RangeError.
  const inputs = (m) => [m(16, 1), m(24, 2), m(24, 3)]; // (made before the plant: the calls run under it)
  const calls = [[r, 'float32'], [r64, 'float64']].map(([m, label]) => {
    const [q, k, v] = inputs(m);
    return [label, () => pe.attention({ shape: [2, 8], data: q }, { shape: [3, 8], data: k }, { shape: [3, 8], data: v }, { weights: false })];
  });
  const live = pe.memoryStats().liveAllocations; // (the canaries' handles)
  for (const [label, call] of calls) {
    const clean = outcome(call);
    for (const Type of [Float32Array, Float64Array]) {
      for (const n of [4, 1e5]) {
        const plant = () => {
          const before = own.describe(globalThis, Type.name);
          own.define(globalThis, Type.name, { ...before, value: class extends Type { constructor() { super(n); } } });
          return () => own.define(globalThis, Type.name, before);
        };
        assert.equal(outcomeWith(plant, call), clean, `${label} inputs, ${Type.name} answering ${n} elements`);
      }
    }
  }
  assert.equal(pe.memoryStats().liveAllocations, live);
});

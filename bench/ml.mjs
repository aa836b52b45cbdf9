// The `ml` section of `npm run bench` (issue 24): the calls a JS language
// model makes in its loop, posenc beside a plain JS loop, onnxruntime-web's
// wasm backend (1 and 2 threads, com.microsoft contrib ops in one-node graphs
// written by bench/onnx-graph.mjs) and TensorFlow.js on its wasm backend where
// it has the ops. Every contender of a case runs once per round, in turn, so
// that load which comes and goes hits them alike; a target is the median of
// the per-round ratios. Each peer's output is compared with posenc's.
//
//   node bench/run.mjs --ops=ml     this section alone (with the size lines)
import { Worker } from 'node:worker_threads';
import { instantiate } from '../web/lib/wasm.js';
import { WASM_BASE64 } from '../dist/posenc-wasm.js';
import { WASM_BASE64 as VARIANTS_BASE64 } from '../dist/variants-wasm.js';
import { PE_F32, PE_ROPE_HALF } from '../dist/constants.js';
import { init as initVariants } from '../web/lib/variants/index.js';
import { collect, median, maxAbsError, randomMatrix } from './measure.mjs';
import { floor, tfAttention } from './contenders.mjs';
import { oneNodeModel } from './onnx-graph.mjs';

/** The shapes of the issue: Llama 3.1-like RoPE, a GQA decode step, a causal prefill. */
export const ML_CASES = {
  ropeCache: { maxLen: 65536, dim: 128, options: { base: 5e5, scaling: 'llama3' } },
  ropeApply: { heads: 32, dim: 128, position: 1023 },
  decode: { b: 1, heads: 32, kvHeads: 8, n: 1, m: 1024, d: 128, causal: false },
  prefill: { b: 1, heads: 8, kvHeads: 8, n: 512, m: 512, d: 64, causal: true },
};

export const ML_TARGETS = {
  attentionVsOrt: 1, // attention at least as fast as ORT wasm, 1 and 2 threads
  decodeVsJs: 3, // and >= 3x the plain JS loop on decode
  prefillVsJs: 5, // >= 5x on prefill
  ropeCacheVsJs: 3, // ropeCache >= 3x the plain JS loop
  ropeCacheVsFloor: 1.5, // and <= 1.5x the memory floor of its output
  agreement: 1e-5, // max abs difference of a peer's result from posenc's
  overheadUs: 5, // per-call overhead of a 1-head, 1-token call over its C kernel, µs ("a few")
  decodeVsKernel: 1.2, // a decode step (kvCache step, rope().apply) <= 1.2x the same arithmetic inside the core
};

// ---- plain JS: what an application would write --------------------------------

/** Llama 3.1's frequency rule (HF's _compute_llama3_parameters), as plain JS. */
function llama3Frequencies(dim, base, { factor = 8, low = 1, high = 4, original = 8192 } = {}) {
  const f = new Float64Array(dim / 2);
  for (let i = 0; i < f.length; i++) {
    const w = base ** ((-2 * i) / dim), wavelen = (2 * Math.PI) / w;
    if (wavelen < original / high) f[i] = w;
    else if (wavelen > original / low) f[i] = w / factor;
    else {
      const smooth = (original / wavelen - low) / (high - low);
      f[i] = (1 - smooth) * (w / factor) + smooth * w;
    }
  }
  return f;
}

/** HF's cos and sin caches, maxLen x dim, each frequency twice (the 'half' layout). */
function jsRopeCache(maxLen, dim, base) {
  const f = llama3Frequencies(dim, base), h = dim / 2;
  const cos = new Float32Array(maxLen * dim), sin = new Float32Array(maxLen * dim);
  for (let p = 0; p < maxLen; p++) {
    for (let i = 0; i < h; i++) {
      const a = p * f[i], c = Math.cos(a), s = Math.sin(a), at = p * dim + i;
      cos[at] = cos[at + h] = c;
      sin[at] = sin[at + h] = s;
    }
  }
  return { cos, sin };
}

/** One decode step of RoPE ('half' pairing) on x [heads, dim] at `position`, frequencies hoisted. */
function jsRopeApply(x, heads, dim, position, f) {
  const h = dim / 2, out = new Float32Array(x.length), c = new Float64Array(h), s = new Float64Array(h);
  for (let i = 0; i < h; i++) c[i] = Math.cos(position * f[i]), s[i] = Math.sin(position * f[i]);
  for (let r = 0; r < heads; r++) {
    for (let i = 0, o = r * dim; i < h; i++) {
      const a = x[o + i], b = x[o + i + h];
      out[o + i] = a * c[i] - b * s[i];
      out[o + i + h] = b * c[i] + a * s[i];
    }
  }
  return out;
}

/** softmax(q k^T / sqrt(d)) v per head, q [B, H, n, d], k and v [B, Hkv, m, d], causal top-left: a clean loop. */
function jsAttention({ b, heads, kvHeads, n, m, d, causal }, q, k, v) {
  const out = new Float32Array(b * heads * n * d), p = new Float64Array(m), acc = new Float64Array(d);
  const scale = 1 / Math.sqrt(d), group = heads / kvHeads;
  for (let bh = 0; bh < b * heads; bh++) {
    const kv = (Math.floor(bh / heads) * kvHeads + Math.floor((bh % heads) / group)) * m * d;
    for (let i = 0; i < n; i++) {
      const qo = (bh * n + i) * d, seen = causal ? Math.min(i + 1, m) : m;
      let max = -Infinity, sum = 0;
      for (let j = 0; j < seen; j++) {
        let s = 0;
        for (let c = 0; c < d; c++) s += q[qo + c] * k[kv + j * d + c];
        p[j] = s * scale;
        if (p[j] > max) max = p[j];
      }
      acc.fill(0);
      for (let j = 0; j < seen; j++) {
        const w = Math.exp(p[j] - max);
        sum += w;
        for (let c = 0; c < d; c++) acc[c] += w * v[kv + j * d + c];
      }
      for (let c = 0; c < d; c++) out[qo + c] = acc[c] / sum;
    }
  }
  return out;
}

// ---- layouts: posenc takes [B, H, S, D]; ORT's query is [B, S, H * D] ----------

/** [B, H, S, D] -> [B, S, H, D] (and back with the same call on [B, S, H, D] given as [B, S, H, D]). */
function swapHeadsSeq(x, b, h, s, d) {
  const out = new Float32Array(x.length);
  for (let i = 0; i < b; i++) {
    for (let j = 0; j < h; j++) {
      for (let t = 0; t < s; t++) out.set(x.subarray(((i * h + j) * s + t) * d, ((i * h + j) * s + t + 1) * d), ((i * s + t) * h + j) * d);
    }
  }
  return out;
}

/** k or v [B, Hkv, m, d] with each head repeated heads / Hkv times: the 32 kv heads MultiHeadAttention needs. */
function repeatHeads(x, { b, heads, kvHeads, m, d }) {
  const out = new Float32Array(b * heads * m * d), size = m * d;
  for (let i = 0; i < b * heads; i++) {
    const src = (Math.floor(i / heads) * kvHeads + Math.floor((i % heads) / (heads / kvHeads))) * size;
    out.set(x.subarray(src, src + size), i * size);
  }
  return out;
}

// ---- the ORT graphs ------------------------------------------------------------

const f32 = (data, dims) => ({ type: 'float32', data, dims });

/** The ORT cases (each a one-node model and its feeds) and how to read their outputs back in posenc's layout. */
function ortCases(x) {
  const { decode: D, prefill: P, ropeApply: R } = ML_CASES;
  const ms = 'com.microsoft';
  const dq = [D.b, D.n, D.heads * D.d];
  // GroupQueryAttention decodes from a KV cache: past holds keys 0..m-2 in a
  // buffer of m rows, the new token's k and v are key m-1 (seqlens_k = m - 1).
  const lastKey = (t) => {
    const out = new Float32Array(D.b * D.kvHeads * D.d);
    for (let h = 0; h < D.b * D.kvHeads; h++) out.set(t.subarray((h * D.m + D.m - 1) * D.d, (h * D.m + D.m) * D.d), h * D.d);
    return out;
  };
  const past = [D.b, D.kvHeads, D.m, D.d];
  const cases = [
    {
      id: 'decode-gqa', output: 'o',
      model: oneNodeModel({
        op: 'GroupQueryAttention', domain: ms, attributes: { num_heads: D.heads, kv_num_heads: D.kvHeads },
        inputs: [{ name: 'q', shape: dq }, { name: 'k', shape: [D.b, 1, D.kvHeads * D.d] }, { name: 'v', shape: [D.b, 1, D.kvHeads * D.d] },
          { name: 'pk', shape: past }, { name: 'pv', shape: past }, { name: 'seqlens', type: 'int32', shape: [D.b] }, { name: 'total', type: 'int32', shape: [1] }],
        outputs: [{ name: 'o', shape: dq }, { name: 'k2', shape: past }, { name: 'v2', shape: past }],
      }),
      feeds: {
        q: f32(x.decode.q, dq), k: f32(lastKey(x.decode.k), [D.b, 1, D.kvHeads * D.d]), v: f32(lastKey(x.decode.v), [D.b, 1, D.kvHeads * D.d]),
        pk: f32(x.decode.k, past), pv: f32(x.decode.v, past),
        seqlens: { type: 'int32', data: Int32Array.of(D.m - 1), dims: [D.b] }, total: { type: 'int32', data: Int32Array.of(D.m), dims: [1] },
      },
      back: (o) => o, // [B, 1, H * d] is [B, H, 1, d]
    },
    {
      id: 'decode-mha', output: 'o',
      model: oneNodeModel({
        op: 'MultiHeadAttention', domain: ms, attributes: { num_heads: D.heads },
        inputs: [{ name: 'q', shape: dq }, { name: 'k', shape: [D.b, D.heads, D.m, D.d] }, { name: 'v', shape: [D.b, D.heads, D.m, D.d] }],
        outputs: [{ name: 'o', shape: dq }],
      }),
      feeds: { q: f32(x.decode.q, dq), k: f32(repeatHeads(x.decode.k, D), [D.b, D.heads, D.m, D.d]), v: f32(repeatHeads(x.decode.v, D), [D.b, D.heads, D.m, D.d]) },
      back: (o) => o,
    },
    {
      id: 'prefill-mha', output: 'o',
      model: oneNodeModel({
        op: 'MultiHeadAttention', domain: ms, attributes: { num_heads: P.heads, unidirectional: 1 },
        inputs: [{ name: 'q', shape: [P.b, P.n, P.heads * P.d] }, { name: 'k', shape: [P.b, P.kvHeads, P.m, P.d] }, { name: 'v', shape: [P.b, P.kvHeads, P.m, P.d] }],
        outputs: [{ name: 'o', shape: [P.b, P.n, P.heads * P.d] }],
      }),
      feeds: { q: f32(swapHeadsSeq(x.prefill.q, P.b, P.heads, P.n, P.d), [P.b, P.n, P.heads * P.d]), k: f32(x.prefill.k, [P.b, P.kvHeads, P.m, P.d]), v: f32(x.prefill.v, [P.b, P.kvHeads, P.m, P.d]) },
      back: (o) => swapHeadsSeq(o, P.b, P.n, P.heads, P.d),
    },
    {
      // RotaryEmbedding with HF's caches (half a row each: one column per frequency) as constants of the graph.
      id: 'rope-apply', output: 'o',
      model: oneNodeModel({
        op: 'RotaryEmbedding', domain: ms, attributes: { num_heads: R.heads, interleaved: 0 },
        inputs: [{ name: 'x', shape: [1, 1, R.heads * R.dim] }, { name: 'pos', type: 'int64', shape: [1, 1] }],
        outputs: [{ name: 'o', shape: [1, 1, R.heads * R.dim] }],
        constants: [{ name: 'cos', shape: [x.ropeRows, R.dim / 2], data: x.ropeHalf.cos }, { name: 'sin', shape: [x.ropeRows, R.dim / 2], data: x.ropeHalf.sin }],
      }),
      feeds: { x: f32(x.rope, [1, 1, R.heads * R.dim]), pos: { type: 'int64', data: BigInt64Array.of(BigInt(R.position)), dims: [1, 1] } },
      back: (o) => o,
    },
  ];
  return cases;
}

/** A worker holding ORT with `threads` threads and every case: { run(id, want) -> { ms, data } }, or { error }. */
async function ortPeer(threads, cases) {
  const worker = new Worker(new URL('./ort-worker.mjs', import.meta.url), {
    workerData: { threads, cases: cases.map(({ id, model, feeds, output }) => ({ id, model, feeds, output })) },
  });
  const next = () => new Promise((resolve) => worker.once('message', resolve));
  const first = await next();
  if (!first.ready) {
    await worker.terminate();
    return { error: first.error };
  }
  return {
    run: async (id, want) => {
      worker.postMessage({ id, want });
      const r = await next();
      if (r.error) throw new Error(`ORT ${threads}T ${id}: ${r.error}`);
      return r;
    },
    close: () => worker.terminate(),
  };
}

// ---- running a case ---------------------------------------------------------------

/**
 * Runs each contender once (warm-up; its result kept for the agreement
 * check), then `rounds` rounds of each in turn. A contender's run returns its
 * output, or { ms, data } when it timed itself (the ORT workers). A contender
 * with `batch` runs that many times a round and is timed per call: a call of
 * a few µs timed alone measures the timer and the last collection.
 * Returns { rows: [{ name, ms, reps, vsPosenc, agree }], ratio(name) }.
 */
async function sideBySide(title, contenders, rounds, log) {
  log(`ml: ${title}`);
  const times = contenders.map(() => []);
  const outputs = [];
  for (const c of contenders) outputs.push(await c.run(true));
  const data = (r) => (r && r.ms !== undefined ? r.data : r);
  for (let r = 0; r < rounds; r++) {
    collect();
    for (const [i, c] of contenders.entries()) {
      const t = performance.now();
      let out;
      for (let b = 0; b < (c.batch ?? 1); b++) out = await c.run(false);
      times[i].push(out && out.ms !== undefined ? out.ms : (performance.now() - t) / (c.batch ?? 1));
    }
  }
  const mine = contenders.findIndex((c) => c.posenc);
  const rows = contenders.map((c, i) => {
    const perRound = times[i].map((t, r) => t / times[mine][r]);
    const agree = i === mine || !c.compare ? null : c.compare(data(outputs[i]), data(outputs[mine]));
    return { name: c.name, ms: median(times[i]), reps: c.batch ? `${rounds} × ${c.batch}` : rounds, vsPosenc: median(perRound), agree, note: c.note };
  });
  return { title, rows };
}

/** Largest |a - b| over the output arrays (a peer's, posenc's). */
const agreement = (back = (x) => x) => (peer, ours) => maxAbsError(back(peer), ours);

/**
 * Time per call (µs) of `a` and of `b`, in batches of `count` calls taken in
 * alternation (a, b, a, b, ...): { a, b } medians, and the median of the
 * per-pair differences a - b, which load that comes and goes hits alike.
 */
function perCallPair(a, b, count = 2000, pairs = 9) {
  const batch = (fn) => {
    const t0 = performance.now();
    for (let i = 0; i < count; i++) fn();
    return ((performance.now() - t0) * 1000) / count;
  };
  // from a collected heap, as every measurement here (measure.mjs), then warmed past the collection's aftermath: the
  // first thousands of 1-token calls after a major GC ran at up to twice their steady cost
  collect();
  for (let w = 0; w < 3; w++) batch(a), batch(b);
  const ta = [], tb = [];
  for (let p = 0; p < pairs; p++) ta.push(batch(a)), tb.push(batch(b));
  return { a: median(ta), b: median(tb), diff: median(ta.map((x, i) => x - tb[i])), ratio: median(ta.map((x, i) => x / tb[i])) };
}

/** Copies `a` (a Float32Array) into fresh memory of the raw module `raw`; returns its pointer. */
function put(raw, a) {
  const p = raw.pe_malloc(a.length * 4);
  new Float32Array(raw.memory.buffer, p, a.length).set(a);
  return p;
}

/**
 * The fixed cost of a call and of a decode step: posenc's public calls
 * against their C kernels called directly on buffers already in wasm memory
 * (the same arithmetic with no argument checks, copies or frames), in
 * alternating batches. Attention: attention() on a 1-head, 1-token input; the
 * GQA decode step through attention() (all of k and v copied in) and through
 * a kvCache (the new k/v row and q copied in). RoPE: ropeApply with { cos,
 * sin } and rope().apply, on 1 head and on the [1, 32, 1, 128] decode step.
 */
async function overhead(pe, pv, x, ropeFull) {
  const raw = await instantiate(WASM_BASE64);
  const kernelCall = ({ b, heads, kvHeads, n, m, d }, q, k, v) => {
    const [qp, kp, vp, op] = [put(raw, q), put(raw, k), put(raw, v), raw.pe_malloc(q.length * 4)];
    const dims = raw.pe_malloc(28);
    new Int32Array(raw.memory.buffer, dims, 7).set([b, heads, kvHeads, n, m, d, d]);
    return () => {
      if (raw.pe_attention_f32(op, qp, kp, vp, dims, 0, 1 / Math.sqrt(d))) throw new Error('kernel refused');
    };
  };
  const tiny = { b: 1, heads: 1, kvHeads: 1, n: 1, m: 1, d: 64 };
  const one = { data: randomMatrix(1, 64, 7).data, shape: [1, 1, 1, 64] };
  const tinyKernel = kernelCall(tiny, one.data, one.data, one.data), oneOut = { weights: false, out: new Float32Array(64) };
  // into out, as a decode loop reuses one (and as the RoPE rows below): a fresh result array is an allocation the caller can avoid
  const small = perCallPair(() => pe.attention(one, one, one, oneOut), tinyKernel);
  const smallFresh = perCallPair(() => pe.attention(one, one, one, { weights: false }), tinyKernel);
  const D = ML_CASES.decode;
  const kernel = kernelCall(D, x.decode.q, x.decode.k, x.decode.v);
  const decode = perCallPair(() => pe.attention(x.decode.qT, x.decode.kT, x.decode.vT, { weights: false }), kernel, 10, 9);
  const cache = decodeCache(pe, x.decode);
  const step = perCallPair(cache.step, kernel, 10, 9);
  cache.free();

  // RoPE: the kernel pe_rope_rotate of dist/variants.wasm on x and the cache row of its position, in place.
  const R = ML_CASES.ropeApply, vraw = await instantiate(VARIANTS_BASE64);
  const row = (m) => m.data.subarray(R.position * R.dim, (R.position + 1) * R.dim);
  const [cp, sp] = [put(vraw, row(ropeFull.cos)), put(vraw, row(ropeFull.sin))];
  const ropeKernel = (heads) => {
    const xp = put(vraw, x.rope.subarray(0, heads * R.dim));
    const run = () => {
      if (vraw.pe_rope_rotate(xp, xp, PE_F32, heads, 1, R.dim, R.dim, R.dim, PE_ROPE_HALF, cp, sp)) throw new Error('kernel refused');
    };
    return { run, x: new Float32Array(vraw.memory.buffer, xp, heads * R.dim) };
  };
  const handle = pv.rope({ dim: R.dim, maxLen: R.position + 1, ...ML_CASES.ropeCache.options });
  const caches = { cos: ropeFull.cos, sin: ropeFull.sin, offset: R.position };
  const ropeRows = (heads) => {
    const t = { data: x.rope.subarray(0, heads * R.dim), shape: [1, heads, 1, R.dim] }, out = new Float32Array(heads * R.dim), kernel = ropeKernel(heads);
    const opts = { ...caches, out }; // into out, as the handle: a fresh result array is an allocation the caller can avoid
    // The floor of any call that takes x and returns a copy: x copied into wasm memory, the kernel, the result copied
    // out, nothing else. Where it is above the 1.2x line, no API that copies can meet that line.
    const copied = () => {
      kernel.x.set(t.data);
      kernel.run();
      out.set(kernel.x);
    };
    return {
      caches: perCallPair(() => pv.ropeApply(t, opts), kernel.run),
      handle: perCallPair(() => handle.apply(t, R.position, out), kernel.run),
      copies: perCallPair(copied, kernel.run),
    };
  };
  const rope1 = ropeRows(1), ropeDecode = ropeRows(R.heads);
  handle.free();
  return { small, smallFresh, decode, step, rope1, ropeDecode };
}

/**
 * A kvCache holding the decode case's first m - 1 keys and values; step()
 * is one decode step at a constant length: drop the last position, append
 * the last key and value row, attend with q.
 */
function decodeCache(pe, t) {
  const { b, kvHeads, m, d } = ML_CASES.decode;
  const cache = pe.kvCache({ heads: kvHeads, headDim: d, maxLength: m, batch: b });
  cache.append(t.kT, t.vT);
  const last = (x) => {
    const out = new Float32Array(b * kvHeads * d);
    for (let h = 0; h < b * kvHeads; h++) out.set(x.subarray((h * m + m - 1) * d, (h * m + m) * d), h * d);
    return { data: out, shape: [b, kvHeads, 1, d] };
  };
  const [k1, v1] = [last(t.k), last(t.v)];
  return {
    step: () => {
      cache.truncate(m - 1);
      cache.append(k1, v1);
      return cache.attend(t.qT).data;
    },
    free: () => cache.free(),
  };
}

// ---- the section -----------------------------------------------------------------

/** The ml section: { cases, overhead, targets, machine-independent ratios }. */
export async function mlBench({ pe, tfState, log = () => {} }) {
  const pv = await initVariants();
  const { ropeCache: RC, ropeApply: R, decode: D, prefill: P } = ML_CASES;
  const tensors = (c, seed) => {
    const make = (heads, rows, s) => randomMatrix(c.b * heads * rows, c.d, seed + s).data;
    const q = make(c.heads, c.n, 1), k = make(c.kvHeads, c.m, 2), v = make(c.kvHeads, c.m, 3);
    return { q, k, v, qT: { data: q, shape: [c.b, c.heads, c.n, c.d] }, kT: { data: k, shape: [c.b, c.kvHeads, c.m, c.d] }, vT: { data: v, shape: [c.b, c.kvHeads, c.m, c.d] } };
  };
  const ropeRows = 2048; // ORT's caches: positions 0..2047
  const ropeFull = pv.ropeCache(ropeRows, R.dim, RC.options);
  const half = (m) => Float32Array.from({ length: ropeRows * (R.dim / 2) }, (_, i) => m.data[Math.floor(i / (R.dim / 2)) * R.dim + (i % (R.dim / 2))]);
  const x = {
    decode: tensors(D, 10), prefill: tensors(P, 20),
    rope: randomMatrix(1, R.heads * R.dim, 30).data, ropeRows, ropeHalf: { cos: half(ropeFull.cos), sin: half(ropeFull.sin) },
  };
  const cases = ortCases(x);
  const peers = [];
  for (const threads of [1, 2]) peers.push({ threads, ...(await ortPeer(threads, cases)) });
  const ortContenders = (id) => peers.map((p) => (p.error
    ? { name: `onnxruntime-web wasm, ${p.threads} thread${p.threads > 1 ? 's' : ''}`, skip: p.error }
    : { name: `onnxruntime-web wasm, ${p.threads} thread${p.threads > 1 ? 's' : ''}`, run: (want) => p.run(id, want), compare: agreement(cases.find((c) => c.id === id).back) }));
  const tf = tfState?.backends?.wasm === true ? tfState.tf : null;
  const tfRun = (body) => async () => {
    await tf.setBackend('wasm');
    return body();
  };
  const live = (list) => list.filter((c) => !c.skip);
  const skipped = (list) => list.filter((c) => c.skip).map((c) => ({ name: c.name, skip: c.skip }));

  const results = [];
  // RoPE cache
  const f3 = llama3Frequencies(RC.dim, RC.options.base);
  const ropeCache = [
    { name: 'posenc ropeCache', posenc: true, run: () => { const c = pv.ropeCache(RC.maxLen, RC.dim, RC.options); return [c.cos.data, c.sin.data]; } },
    { name: 'plain JS loop, frequencies hoisted', run: () => { const c = jsRopeCache(RC.maxLen, RC.dim, RC.options.base); return [c.cos, c.sin]; }, compare: (a, b) => Math.max(maxAbsError(a[0], b[0]), maxAbsError(a[1], b[1])) },
    { name: 'memory floor (allocate and fill cos and sin)', floor: true, run: () => [floor(RC.maxLen * RC.dim), floor(RC.maxLen * RC.dim)] },
  ];
  if (tf) {
    ropeCache.push({
      name: 'tfjs wasm (outer product, cos, sin; float32 angles)', note: 'float32 angles',
      run: tfRun(() => {
        const [c, s] = tf.tidy(() => {
          const a = tf.outerProduct(tf.range(0, RC.maxLen, 1, 'float32'), tf.tensor1d(Float32Array.from(f3)));
          return [tf.concat([tf.cos(a), tf.cos(a)], 1), tf.concat([tf.sin(a), tf.sin(a)], 1)];
        });
        const out = [c.dataSync(), s.dataSync()];
        c.dispose(), s.dispose();
        return out;
      }),
      compare: (a, b) => Math.max(maxAbsError(a[0], b[0]), maxAbsError(a[1], b[1])),
    });
  }
  // 9 rounds: with 5, three runs of one build put it at 1.27x, 1.48x and 1.67x its floor (each call allocates and
  // faults in 64 MiB, as the floor does; the machine's memory traffic moves both)
  results.push({ key: 'ropeCache', ...(await sideBySide(`ropeCache(${RC.maxLen}, ${RC.dim}, { base: 5e5, scaling: 'llama3' })`, ropeCache, 9, log)) });

  // RoPE decode step
  const rx = { data: x.rope, shape: [1, R.heads, 1, R.dim] };
  const handle = pv.rope({ dim: R.dim, maxLen: ropeRows, ...RC.options });
  const ropeApply = [
    { name: 'posenc rope().apply (the handle: caches in wasm memory)', posenc: true, batch: 200, run: () => handle.apply(rx, R.position).data },
    { name: 'posenc ropeApply with { cos, sin } from ropeCache', batch: 200, run: () => pv.ropeApply(rx, { offset: R.position, cos: ropeFull.cos, sin: ropeFull.sin }).data, compare: agreement() },
    { name: 'posenc ropeApply with base and scaling (sin/cos per call)', batch: 50, run: () => pv.ropeApply(rx, { offset: R.position, ...RC.options }).data, compare: agreement() },
    { name: 'plain JS loop, frequencies hoisted', batch: 200, run: () => jsRopeApply(x.rope, R.heads, R.dim, R.position, f3), compare: agreement() },
    ...ortContenders('rope-apply'),
  ];
  results.push({ key: 'ropeApply', ...(await sideBySide(`ropeApply, one decode step: x [1, ${R.heads}, 1, ${R.dim}] at position ${R.position}`, live(ropeApply), 41, log)), skipped: skipped(ropeApply) });
  handle.free();

  // attention
  for (const [key, c, ids] of [['decode', D, ['decode-gqa', 'decode-mha']], ['prefill', P, ['prefill-mha']]]) {
    const t = x[key];
    const cache = key === 'decode' ? decodeCache(pe, t) : null;
    const list = [
      // Decode: posenc's decode path is the KV cache (the ratios are to it); attention() copies all of k and v in every step.
      ...(cache ? [{ name: 'posenc kvCache step: append the k/v row, attend', posenc: true, run: cache.step }] : []),
      { name: 'posenc attention, weights: false', posenc: !cache, run: () => pe.attention(t.qT, t.kT, t.vT, { causal: c.causal, weights: false }).output.data, compare: cache ? agreement() : undefined },
      { name: 'plain JS loop', run: () => jsAttention(c, t.q, t.k, t.v), compare: agreement() },
    ];
    for (const id of ids) {
      const op = id.endsWith('gqa') ? 'GroupQueryAttention' : id === 'decode-mha' ? `MultiHeadAttention, k/v repeated to ${c.heads} heads` : 'MultiHeadAttention, unidirectional';
      list.push(...ortContenders(id).map((o) => ({ ...o, name: `${o.name} (${op})` })));
    }
    if (tf && c.causal && c.heads === c.kvHeads) list.push({ name: 'tfjs wasm (matMul, softmax, matMul)', run: tfRun(() => tfAttention(tf, { q: t.qT, k: t.kT, v: t.vT })), compare: agreement() });
    else if (tf) list.push({ name: 'tfjs wasm (tile, matMul, softmax, matMul)', run: tfRun(() => tfDecode(tf, c, t)), compare: agreement() });
    const shape = `q [${c.b}, ${c.heads}, ${c.n}, ${c.d}], k/v [${c.b}, ${c.kvHeads}, ${c.m}, ${c.d}]${c.causal ? ', causal' : ''}`;
    results.push({ key, ...(await sideBySide(`attention ${key}: ${shape}`, live(list), key === 'prefill' ? 7 : 15, log)), skipped: skipped(list) });
    cache?.free();
  }
  for (const p of peers) await p.close?.();

  const calls = await overhead(pe, pv, x, ropeFull);
  return { cases: results, overhead: calls, targets: mlTargets(results, calls), ortErrors: peers.filter((p) => p.error).map((p) => `${p.threads}T: ${p.error}`) };
}

/** Decode attention with tfjs ops: k/v heads tiled to q's, q k^T, softmax, · v. */
function tfDecode(tf, c, t) {
  const out = tf.tidy(() => {
    const group = c.heads / c.kvHeads;
    const rep = (x) => tf.reshape(tf.tile(tf.expandDims(tf.tensor4d(x.data, x.shape), 2), [1, 1, group, 1, 1]), [c.b, c.heads, c.m, c.d]);
    const s = tf.mul(tf.matMul(tf.tensor4d(t.qT.data, t.qT.shape), rep(t.kT), false, true), 1 / Math.sqrt(c.d));
    return tf.matMul(tf.softmax(s), rep(t.vT));
  });
  const data = out.dataSync();
  out.dispose();
  return data;
}

// ---- targets and markdown ---------------------------------------------------------

function mlTargets(results, calls) {
  const T = ML_TARGETS;
  const byKey = Object.fromEntries(results.map((r) => [r.key, r]));
  const row = (key, prefix) => byKey[key]?.rows.find((r) => r.name.startsWith(prefix));
  const out = [];
  const ratio = (target, r, min, detail = '') => out.push(r
    ? { target, met: r.vsPosenc >= min, detail: `${r.vsPosenc.toFixed(2)}x (${r.name}: ${fmt(r.ms)} ms)${detail}` }
    : { target, met: false, detail: 'not run' });
  for (const key of ['decode', 'prefill']) {
    const who = key === 'decode' ? 'posenc (kvCache step)' : 'posenc';
    for (const r of byKey[key].rows.filter((x) => x.name.startsWith('onnxruntime'))) ratio(`attention ${key}: ${who} >= ${T.attentionVsOrt}x as fast as ${r.name}`, r, T.attentionVsOrt);
    for (const s of byKey[key].skipped ?? []) out.push({ target: `attention ${key}: ${who} >= ${T.attentionVsOrt}x as fast as ${s.name}`, met: false, detail: `not run: ${s.skip}` });
  }
  ratio(`attention decode: posenc (kvCache step) >= ${T.decodeVsJs}x as fast as the plain JS loop`, row('decode', 'plain JS'), T.decodeVsJs);
  ratio(`attention prefill: posenc >= ${T.prefillVsJs}x as fast as the plain JS loop`, row('prefill', 'plain JS'), T.prefillVsJs);
  ratio(`ropeCache: posenc >= ${T.ropeCacheVsJs}x as fast as the plain JS loop`, row('ropeCache', 'plain JS'), T.ropeCacheVsJs);
  const fl = row('ropeCache', 'memory floor');
  if (fl) out.push({ target: `ropeCache: posenc <= ${T.ropeCacheVsFloor}x the memory floor of its output`, met: 1 / fl.vsPosenc <= T.ropeCacheVsFloor, detail: `${(1 / fl.vsPosenc).toFixed(2)}x the floor` });
  for (const r of results) {
    for (const p of r.rows.filter((x) => x.agree !== null && !x.note)) {
      out.push({ target: `${r.key}: ${p.name} agrees with posenc within ${T.agreement}`, met: p.agree <= T.agreement, detail: `max |difference| ${p.agree.toExponential(1)}` });
    }
  }
  const c = calls, us = (p) => `${fmt(p.diff)} µs, median of paired batches (API ${fmt(p.a)} µs, kernel ${fmt(p.b)} µs per call)`;
  const x = (p) => `${p.ratio.toFixed(2)}x paired (${fmt(p.a)} µs vs ${fmt(p.b)} µs per call)`;
  out.push({ target: `attention, 1 head, 1 token, into out: per-call overhead over the C kernel <= ${T.overheadUs} µs`, met: c.small.diff <= T.overheadUs, detail: us(c.small) });
  out.push({ target: `ropeApply with { cos, sin } into out, 1 head, 1 token: per-call overhead over the C kernel <= ${T.overheadUs} µs`, met: c.rope1.caches.diff <= T.overheadUs, detail: us(c.rope1.caches) });
  out.push({ target: `rope().apply, 1 head, 1 token: per-call overhead over the C kernel <= ${T.overheadUs} µs`, met: c.rope1.handle.diff <= T.overheadUs, detail: us(c.rope1.handle) });
  out.push({ target: `attention decode step (kvCache: append the k/v row, attend) <= ${T.decodeVsKernel}x the same C kernel on data already in wasm memory`, met: c.step.ratio <= T.decodeVsKernel, detail: x(c.step) });
  out.push({ target: `ropeApply decode step [1, 32, 1, 128] (rope().apply into out) <= ${T.decodeVsKernel}x the same C kernel on data already in wasm memory`, met: c.ropeDecode.handle.ratio <= T.decodeVsKernel, detail: `${x(c.ropeDecode.handle)}; the kernel with x copied in and out alone: ${x(c.ropeDecode.copies)}` });
  ratio(`ropeApply decode step: posenc rope().apply >= 1x as fast as the plain JS loop`, row('ropeApply', 'plain JS'), 1);
  for (const r of byKey.ropeApply.rows.filter((y) => y.name.startsWith('onnxruntime'))) ratio(`ropeApply decode step: posenc rope().apply >= ${T.attentionVsOrt}x as fast as ${r.name}`, r, T.attentionVsOrt);
  return out;
}

const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

/** The section's markdown lines. */
export function mlMarkdown(ml) {
  const lines = ['### ML paths: RoPE and attention beside plain JS, onnxruntime-web and tfjs (float32)', ''];
  lines.push('| work | contender | median ms | × posenc time | max abs difference from posenc | rounds |', '|---|---|--:|--:|--:|--:|');
  for (const c of ml.cases) {
    for (const r of c.rows) lines.push(`| ${c.title} | ${r.name} | ${fmt(r.ms)} | ${r.vsPosenc.toFixed(2)} | ${r.agree === null ? '' : r.agree.toExponential(1)} | ${r.reps} |`);
    for (const s of c.skipped ?? []) lines.push(`| ${c.title} | ${s.name} | not run: ${s.skip} | | | |`);
  }
  const o = ml.overhead, pair = (p, unit = 'µs') => `${fmt(p.a)} ${unit} vs ${fmt(p.b)} ${unit} (${p.ratio.toFixed(2)}x, ${fmt(p.diff)} ${unit} more)`;
  const ms = (p) => ({ a: p.a / 1000, b: p.b / 1000, ratio: p.ratio, diff: p.diff / 1000 });
  lines.push('', 'Fixed cost: each public call against its C kernel called directly on data already in WebAssembly memory (same arithmetic, no checks, copies or frames), median of alternating batches:', '',
    '| call | public API vs C kernel per call |', '|---|---|',
    `| attention, q/k/v [1, 1, 1, 64], weights: false, into out | ${pair(o.small)} |`,
    `| the same, a fresh output array each call | ${pair(o.smallFresh)} |`,
    `| ropeApply [1, 1, 1, 128] with { cos, sin }, into out | ${pair(o.rope1.caches)} |`,
    `| rope().apply [1, 1, 1, 128] into out | ${pair(o.rope1.handle)} |`,
    `| ropeApply decode step [1, 32, 1, 128] with { cos, sin }, into out | ${pair(o.ropeDecode.caches)} |`,
    `| rope().apply decode step [1, 32, 1, 128] into out | ${pair(o.ropeDecode.handle)} |`,
    `| the same kernel with x copied in and the result out, nothing else (the floor of a call that returns a copy) | ${pair(o.ropeDecode.copies)} |`,
    `| attention decode step (q [1, 32, 1, 128], k/v [1, 8, 1024, 128]): attention(), all of k and v copied in | ${pair(ms(o.decode), 'ms')} |`,
    `| the same step through kvCache: append the k/v row, attend | ${pair(ms(o.step), 'ms')} |`);
  if (ml.ortErrors.length) lines.push('', `onnxruntime-web did not start: ${ml.ortErrors.join('; ')}`);
  return lines;
}

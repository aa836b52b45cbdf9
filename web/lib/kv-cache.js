// pe.kvCache: the keys and values of a decode loop kept in WebAssembly
// memory, so that a step copies in only its new rows and its queries, not the
// whole cache (which is O(length · d), the same order as the attention's own
// arithmetic). attend() runs the float32 blocked kernel (c/flash.c) once per
// kv head, on the rows in use, in place.
import { Checker } from './validate.js';
import { readNested, tensor, outputArgs } from './tensor.js';
import { numbersOnly } from './attention-args.js';
import { PE_ERR_VALUE } from '../../dist/constants.js';

// Frees the wasm memory of caches dropped without free().
const dropped = new FinalizationRegistry((release) => release());

/** { b, h, n, d } of a tensor of rank 2 to 4, 1 where absent. */
function dims4(shape) {
  const at = (i) => shape[shape.length - 4 + i] ?? 1;
  return { b: at(0), h: at(1), n: at(2), d: at(3) };
}

/** The index of the first non-finite value of `data`, or -1. */
function nonFinite(data) {
  for (let i = 0; i < data.length; i++) if (!Number.isFinite(data[i])) return i;
  return -1;
}

export function createKvCache(wasm, call) {
  return function kvCache(options) {
    const check = new Checker('kvCache');
    const opts = check.options(options, ['heads', 'headDim', 'valueDim', 'maxLength', 'batch']);
    const heads = check.size('heads', opts.heads);
    const dk = check.size('headDim', opts.headDim);
    const dv = check.size('valueDim', opts.valueDim ?? dk);
    if (dv % 8) throw check.fail(RangeError, 'valueDim must be a multiple of 8 (the float32 kernel reads V in rows of 8)', dv);
    const maxLength = check.size('maxLength', opts.maxLength);
    const batch = check.size('batch', opts.batch ?? 1);
    const slots = batch * heads * maxLength;
    check.bytes(slots * (dk + dv) * 4);
    const own = { k: 0, v: 0, dims: 0, q: 0, qBytes: 0, out: 0, outBytes: 0 };
    const release = () => {
      for (const key of ['k', 'v', 'dims', 'q', 'out']) if (own[key]) wasm.pe_free(own[key]);
      own.k = own.v = own.dims = own.q = own.out = own.qBytes = own.outBytes = 0;
      own.freed = true;
    };
    const alloc = (c, bytes) => {
      const ptr = wasm.pe_malloc(bytes);
      if (!ptr) throw c.fail(RangeError, `WebAssembly memory is exhausted (could not allocate ${bytes} bytes)`);
      return ptr;
    };
    wasm.pe_reserve(slots * (dk + dv) * 4 + 4096);
    try {
      own.k = alloc(check, slots * dk * 4);
      own.v = alloc(check, slots * dv * 4);
      own.dims = alloc(check, 28);
    } catch (error) {
      release();
      throw error;
    }
    let length = 0;
    const heap = () => new Float32Array(wasm.memory.buffer);
    const live = (c) => {
      if (own.freed) throw c.fail(TypeError, 'this KV cache was freed');
    };
    /** A scratch buffer kept for the next call, grown to `bytes`. */
    const scratch = (c, key, bytes) => {
      if (own[`${key}Bytes`] < bytes) {
        wasm.pe_free(own[key]);
        own[key] = 0;
        own[`${key}Bytes`] = 0;
        own[key] = alloc(c, bytes);
        own[`${key}Bytes`] = bytes;
      }
      return own[key];
    };

    /** Adds the rows of k [B, heads, t, headDim] and v [B, heads, t, valueDim] (rank 2 to 4) after the cached ones. */
    function append(k, v) {
      const c = new Checker('kvCache.append');
      live(c);
      const tk = readNested(c, 'k', k, [2, 3, 4], numbersOnly);
      const tv = readNested(c, 'v', v, [tk.shape.length], numbersOnly);
      const a = dims4(tk.shape), b = dims4(tv.shape);
      const want = (name, got, expected, what) => {
        if (got !== expected) throw c.fail(RangeError, `${name} must have ${expected} ${what}`, got);
      };
      want("k's batch", a.b, batch, 'rows (the batch)');
      want("k's heads", a.h, heads, 'heads');
      want("k's last dimension", a.d, dk, 'elements (headDim)');
      if (b.b !== a.b || b.h !== a.h || b.n !== a.n) throw c.fail(RangeError, `v must have k's leading sizes [${tk.shape.slice(0, -1)}]`, `shape [${tv.shape}]`);
      want("v's last dimension", b.d, dv, 'elements (valueDim)');
      if (a.n > maxLength - length) throw c.fail(RangeError, `k holds ${a.n} new positions, but the cache has room for ${maxLength - length} more (maxLength ${maxLength})`);
      // Checked after both are read: no caller code runs between this and the copy.
      for (const [name, t] of [['k', tk], ['v', tv]]) {
        const i = nonFinite(t.data);
        if (i >= 0) throw c.fail(RangeError, `${name}.data[${i}] must be a finite number`, t.data[i]);
      }
      const h = heap();
      for (let s = 0; s < batch * heads; s++) {
        h.set(tk.data.subarray(s * a.n * dk, (s + 1) * a.n * dk), own.k / 4 + (s * maxLength + length) * dk);
        h.set(tv.data.subarray(s * a.n * dv, (s + 1) * a.n * dv), own.v / 4 + (s * maxLength + length) * dv);
      }
      length += a.n;
      return length;
    }

    /**
     * softmax(scale · q Kᵀ) V over the cached keys for q [B, H, n, headDim]
     * (H a multiple of heads), the n queries being the last n cached
     * positions; causal lets query i see keys up to its own position.
     */
    function attend(q, options) {
      const c = new Checker('kvCache.attend');
      live(c);
      const o = c.options(options, ['causal', 'scale', 'out']);
      const causal = c.boolean('causal', o.causal ?? false);
      const scale = c.finite('scale', o.scale ?? 1 / Math.sqrt(dk), { above: 0 });
      const tq = readNested(c, 'q', q, [2, 3, 4], numbersOnly);
      const s = dims4(tq.shape);
      if (s.b !== batch) throw c.fail(RangeError, `q's batch must be ${batch}`, s.b);
      if (s.h % heads) throw c.fail(RangeError, `q's heads must be a multiple of the cache's heads (${heads})`, s.h);
      if (s.d !== dk) throw c.fail(RangeError, `q's last dimension must be headDim (${dk})`, s.d);
      if (s.n > length) throw c.fail(RangeError, `q holds ${s.n} queries, but the cache holds ${length} positions: append the queries' keys and values first`);
      const count = batch * s.h * s.n * dv;
      const out = outputArgs(c, o, count); // float32: out a Float32Array of count elements
      const group = s.h / heads;
      const qp = scratch(c, 'q', tq.data.length * 4);
      const op = scratch(c, 'out', count * 4);
      heap().set(tq.data, qp / 4);
      new Int32Array(wasm.memory.buffer, own.dims, 7).set([1, group, 1, s.n, length, dk, dv]);
      for (let h = 0; h < batch * heads; h++) {
        const status = wasm.pe_attention_f32(op + h * group * s.n * dv * 4, qp + h * group * s.n * dk * 4, own.k + h * maxLength * dk * 4,
          own.v + h * maxLength * dv * 4, own.dims, causal ? 1 + length - s.n : 0, scale);
        if (status === PE_ERR_VALUE) {
          const i = nonFinite(tq.data);
          throw i >= 0 ? c.fail(RangeError, `q.data[${i}] must be a finite number`, tq.data[i])
            : c.fail(RangeError, `a score or the output overflows float32 (status ${PE_ERR_VALUE})`);
        }
        call(c, status);
      }
      const result = heap().subarray(op / 4, op / 4 + count);
      return tensor([...tq.shape.slice(0, -1), dv], out.out !== null ? out.into(result) : result.slice());
    }

    /** Keeps the first `n` cached positions (drops the rest), as HF's cache.crop(n). */
    function truncate(n) {
      const c = new Checker('kvCache.truncate');
      live(c);
      length = c.integer('length', n, 0, length);
      return length;
    }

    const free = () => {
      dropped.unregister(handle);
      release();
    };
    const handle = Object.freeze({
      heads, headDim: dk, valueDim: dv, maxLength, batch,
      get length() {
        return length;
      },
      append, attend, truncate, free,
    });
    dropped.register(handle, release, handle);
    return handle;
  };
}

// pe.kvCache: the keys and values of a decode loop kept in WebAssembly
// memory, so that a step copies in only its new rows and its queries, not the
// whole cache (which is O(length · d), the same order as the attention's own
// arithmetic). attend() runs the float32 blocked kernel (c/flash.c) once per
// kv head, on the rows in use, in place.
import { Checker, copyTyped, typedArrayBuffer, MAX_DIM } from './validate.js';
import { Frame, reserve, fits } from './heap.js';
import { Float32Array, Int32Array, heapView, copyOf } from './intrinsics.js';
import { readNested, tensor, outputArgs } from './tensor.js';
import { as4, numbersOnly } from './attention-args.js';
import { PE_ERR_VALUE } from '../../dist/constants.js';

// Taken at load, as intrinsics.js's: called between a check and the use of the cache, one planted later freed it there.
const { isFinite } = globalThis;

// Frees the wasm memory of caches dropped without free().
const dropped = new FinalizationRegistry((release) => release());
// The cache is float32: a finite 1e39 would be Infinity there (and poison every later attend).
// (a float32 copy: appended by views of it, made by class, not by its prototype's subarray: that makes a view by
// the `constructor[Symbol.species]` a caller can plant, of any length, and wrote it over the allocator's: a wasm trap)
const float32s = (c, name, data, n) => {
  const out = new Float32Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = data[i]; // (an assignment's value is data[i], not the float32 kept)
    if (!isFinite(out[i])) throw c.fail(RangeError, `${name}[${i}] must be a finite number (in float32)`, data[i]);
  }
  return out;
};
// k and v: copies (readNested's elements), each element checked as above
const rowsOf = (c, name, data, n) => float32s(c, name, c.numbers(name, data, n), n);

export function createKvCache(wasm, call) {
  return function kvCache(options) {
    const check = new Checker('kvCache');
    const opts = check.options(options, ['heads', 'headDim', 'valueDim', 'maxLength', 'batch']);
    const heads = check.size('heads', opts.heads);
    const dk = check.size('headDim', opts.headDim);
    // (from 8: 1 to 7 are refused below, as not multiples of 8; one not given is headDim's, and said so: headDim 4 was
    // refused as "valueDim must be …", an option the caller had not given)
    const vd = `valueDim${opts.valueDim == null ? " (headDim's)" : ''}`, dv = check.integer(vd, opts.valueDim ?? dk, 8, MAX_DIM);
    if (dv % 8) throw check.fail(RangeError, `${vd} must be a multiple of 8`, dv);
    const maxLength = check.size('maxLength', opts.maxLength);
    const batch = check.size('batch', opts.batch ?? 1);
    const slots = batch * heads;
    // k, v and the kernel's 7 sizes for the cache's life; q and the output in a frame replaced when a call needs more
    reserve(wasm, check, slots * maxLength * (dk + dv) * 4 + 28);
    const own = new Frame(wasm, 'kvCache'), io = new Frame(wasm, 'kvCache.attend');
    let ioBytes = 0, kp, vp, dims;
    const release = () => {
      own.free();
      io.free();
      ioBytes = -1;
    };
    try {
      // each by name: a destructuring follows an iterator a caller can plant on Array.prototype
      kp = own.alloc(slots * maxLength * dk * 4);
      vp = own.alloc(slots * maxLength * dv * 4);
      dims = own.alloc(28);
    } catch (error) {
      release();
      throw error;
    }
    let length = 0;
    const heap = () => heapView(Float32Array, wasm, 0);
    // checked again once the arguments are read: a caller's getter may have freed the cache meanwhile
    const live = (c) => {
      if (ioBytes < 0) throw c.fail(TypeError, 'this KV cache was freed');
      return c;
    };
    const start = (fn) => live(new Checker(`kvCache.${fn}`));

    /** Adds the rows of k [B, heads, t, headDim] and v [B, heads, t, valueDim] (rank 2 to 4) after the cached ones. */
    function append(k, v) {
      const c = start('append');
      // snapshots of the new rows, each element checked finite (named k.data[i]), read once both shapes are
      // checked: 2^21 rows were read (7 s) before a cache of 16 refused them
      const tk = readNested(c, 'k', k, [2, 3, 4], rowsOf, undefined, 1);
      const tv = readNested(c, 'v', v, [tk.shape.length], rowsOf, undefined, 1);
      const ks = as4(tk.shape), vs = as4(tv.shape), t = ks[2];
      // in the cache's words (checked as the keys and values of a query of its shape, they were refused as "k's batch
      // must equal 1 (q [1,2,1,8], …)" or "k's heads must divide q's heads (2)", a q not given: thirty-sixth pass)
      if (ks[0] !== batch || ks[1] !== heads || ks[3] !== dk || vs[0] !== batch || vs[1] !== heads || vs[2] !== t || vs[3] !== dv) {
        throw c.fail(RangeError, `k and v must be [${batch}, ${heads}, t, ${dk}] and [${batch}, ${heads}, t, ${dv}] to fit the cache`, `shapes [${tk.shape}], [${tv.shape}]`);
      }
      // before the rows are read, and after (a getter of theirs may have appended, truncated or freed)
      const room = () => {
        if (live(c) && t > maxLength - length) throw c.fail(RangeError, `k holds ${t} positions; the cache has room for ${maxLength - length}`);
      };
      room();
      tk.ready(), tv.ready(); // (both counted, a TensorFlow.js tensor's dataSync() too, before either's elements)
      tk.data = tk.data();
      tv.data = tv.data();
      room();
      const h = heap();
      for (let s = 0; s < slots; s++) {
        copyTyped(h, new Float32Array(typedArrayBuffer(tk.data), s * t * dk * 4, t * dk), kp / 4 + (s * maxLength + length) * dk);
        copyTyped(h, new Float32Array(typedArrayBuffer(tv.data), s * t * dv * 4, t * dv), vp / 4 + (s * maxLength + length) * dv);
      }
      return (length += t);
    }

    /**
     * softmax(scale · q Kᵀ) V over the cached keys for q [B, H, n, headDim]
     * (H a multiple of heads), the n queries being the last n cached
     * positions; causal lets query i see keys up to its own position.
     */
    function attend(q, options) {
      const c = start('attend');
      const o = c.options(options, ['causal', 'scale', 'out']);
      const causal = c.boolean('causal', o.causal ?? false);
      const scale = c.finite('scale', o.scale ?? 1 / Math.sqrt(dk), { above: 0 });
      const tq = readNested(c, 'q', q, [2, 3, 4], numbersOnly, undefined, 1), qs = as4(tq.shape), n = qs[2], group = qs[1] / heads;
      // q against the cache, in q's words (attentionShape's, attention()'s, said "k's batch must equal 1 (got 2)" of the cache)
      if (qs[0] !== batch || group % 1 || qs[3] !== dk) throw c.fail(RangeError, `q must be [${batch}, a multiple of ${heads}, n, ${dk}] to fit the cache`, `shape [${tq.shape}]`);
      // before q's elements are read (2^21 rows were, 3 s, for a cache of 4), and after (a getter of theirs may have truncated it)
      const fit = () => {
        if (n > length) throw c.fail(RangeError, `q holds ${n} queries; the cache holds ${length} positions (append first)`);
      };
      fit();
      // out and the scratch's bytes too, from q's shape: each was refused after every element of q was read (0.36 s for
      // 2^21 nested values, thirty-second pass)
      const count = slots * group * n * dv;
      const out = outputArgs(c, o, count); // out: a Float32Array of count elements (checked again when written)
      // from the checked shape, not q's own (overridable) length
      const nq = slots * group * n * dk;
      // checked in doubles: pe_malloc takes 32 bits (2^32 + 64 bytes was a 64-byte buffer)
      const need = c.bytes((nq + count) * 4);
      // the scratch's room beside the cache (it is let go first) asked before q is read: q was read whole, then refused
      // as "memory is exhausted" beside a large cache (thirty-fifth pass, as attention and gram beside one)
      if (ioBytes < need) fits(wasm, c, need - ioBytes);
      tq.data = tq.data();
      fit();
      // out again once q's getters have run, before the scratch grows: one detaching it was refused only when written,
      // after the kernel, and the scratch grown for q was kept (32 MiB for q of 2^22 values until free(), forty-first pass)
      if (out.out) out.target();
      if (live(c) && ioBytes < need) {
        // q refused before its scratch grows; a failed alloc leaves no stale size (q once went to address 0)
        float32s(c, 'q.data', tq.data, nq);
        io.free();
        ioBytes = 0;
        io.alloc(need);
        ioBytes = need;
      }
      const qp = io.pointers[0], op = qp + nq * 4;
      copyTyped(heapView(Float32Array, wasm, qp, nq), tq.data); // (a view of q's buffer alone: a longer q is refused, not written past it)
      copyTyped(heapView(Int32Array, wasm, dims, 7), [1, group, 1, n, length, dk, dv]);
      for (let h = 0; h < slots; h++) {
        const status = wasm.pe_attention_f32(op + h * group * n * dv * 4, qp + h * group * n * dk * 4, kp + h * maxLength * dk * 4,
          vp + h * maxLength * dv * 4, dims, causal ? 1 + length - n : 0, scale);
        // refused (scores that overflow float32, decided by the data): the scratch let go, as no refused call keeps a block
        // (it was kept, grown for q: 64 MiB for q [1, 2^20, 1, 8] of 1e20 against keys of 1e20)
        if (status) io.free(), ioBytes = 0;
        if (status === PE_ERR_VALUE) float32s(c, 'q.data', tq.data, nq); // names a non-finite element; else an overflow
        call(c, status);
      }
      // copied before the shape is made: a slice planted on Array.prototype freed the cache there, and the result was read
      // from freed memory another call had written (as isFinite above, taken at load, freed it before q was copied in)
      const result = heapView(Float32Array, wasm, op, count), data = out.out !== null ? out.into(result) : copyOf(result, Float32Array);
      return tensor([...tq.shape.slice(0, -1), dv], data);
    }

    /** Keeps the first `n` cached positions (drops the rest), as HF's cache.crop(n). */
    function truncate(n) {
      return (length = start('truncate').integer('length', n, 0, length));
    }

    const handle = Object.freeze({
      heads, headDim: dk, valueDim: dv, maxLength, batch,
      get length() {
        return length;
      },
      append, attend, truncate,
      free: () => {
        dropped.unregister(handle);
        release();
      },
    });
    dropped.register(handle, release, handle);
    return handle;
  };
}

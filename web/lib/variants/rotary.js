// RoPE's cos/sin caches and rotation over c/rope.c, shared by ropeCache,
// ropeApply and the rope() handle. Nothing here widens float32: caches are
// written by the core in their dtype, and x is rotated in its dtype as
// Hugging Face's apply_rotary_pos_emb does (y = x cos + rotate(x) sin).
import { statusCall, dtypeCode, TYPES, withFrame, malloc, asDtype, reserve, fits, RESERVE_SLACK } from '../heap.js';
import * as C from '../../../dist/constants.js';
import { typedLength, typedArrayName, copyTyped, partOf, floatArrayOf, typedArrayBuffer, bytesPer, largest, MAX_DIM } from '../validate.js';
import { readGeneral, quickTensor } from '../tensor.js';
import { Int32Array, heapView, copyOf, memoryBuffer, typedArrayFindIndex as findIndex, typedArrayCopyWithin as copyWithin } from '../intrinsics.js';
import { FIXED } from './scaling.js';

// A caller's typed array is known by its slots: a prototype or `constructor` it was given made instanceof
// and subarray (whose species is read from `constructor`) answer for another type.
const isF32 = (data) => typedArrayName(data) === 'Float32Array';
const { fround } = Math; // (taken at load, as intrinsics.js's: see finite())

export const PAIRINGS = { interleaved: C.PE_ROPE_INTERLEAVED, half: C.PE_ROPE_HALF };
export const CACHE_LAYOUTS = { pairs: C.PE_ROPE_CACHE_PAIRS, half: C.PE_ROPE_CACHE_HALF, interleaved: C.PE_ROPE_CACHE_INTERLEAVED };
// their names, formed once (a list a call was an allocation of every decode step)
export const PAIRING_NAMES = Object.keys(PAIRINGS), LAYOUT_NAMES = Object.keys(CACHE_LAYOUTS);
/** The multi-axis frequency orders: each axis its own (FLUX), or alternating axes (Pixtral). */
export const FREQUENCY_ORDERS = ['axis', 'alternate'];

// Bytes of each cos/sin block formed in wasm and copied out while still in
// cache: the output's bytes are then written once, not written in wasm and
// copied again (which cost 2x the memory floor).
const BLOCK_BYTES = 2 ** 17;

/**
 * What a cache generator of dim (c/rope.c, pe_rope_cache_begin) holds beside a call's buffers: 5 × dim / 2 doubles of
 * frequencies and oscillator state, a longrope's dim factors, the frame's small buffers and their rounding. Uncounted,
 * rope({ dim: 2 ** 24, maxLen: 8 }) grew memory by its 320 MiB (kept) before its caches were refused.
 */
export const generatorBytes = (dim) => 28 * dim + 1024; // (not a C limit)

/** A size (check.size) that must be even, as RoPE rotates pairs. */
export function evenSize(check, name, value, max = MAX_DIM, min = 2) {
  check.integer(name, value, min, max); // (from 2: "from 1" named a range whose 1 is refused too, as odd)
  if (value % 2) throw check.fail(RangeError, `${name} must be even (RoPE rotates pairs)`, value);
  return value;
}

/** headDim, even and dividing x's last dimension (or `what`), `cols`, into heads; `config`: it is a config's head_dim. */
export function headDimArg(check, headDim, cols, what = "x's last dimension", config) {
  // (named as x's when it is: with no headDim, x of 3 columns was "headDim must be even", an option not given; and as the
  // config's when it is: a config's head_dim of 63 was "headDim (x's last dimension)" or "headDim", thirty-second pass)
  if (cols % evenSize(check, config ? "headDim (the config's)" : headDim === cols ? `headDim (${what})` : 'headDim', headDim)) throw check.fail(RangeError, `${what} must be a multiple of headDim (${headDim})`, cols);
}

/**
 * readNested's element reader for data the core rotates: a snapshot (a
 * Float32Array stays float32) without a finiteness pass, as the core refuses
 * a non-finite value and the error is then traced to its element.
 */
export function floatsAsGiven(check, name, data, count) {
  return check.numbers(name, data, count);
}

/**
 * { shape, data } of a plain { shape: [..2 to 4 sizes], data: Float32Array |
 * Float64Array } as data properties, each read once and without the general
 * reader's work (a decode step's x), or the general reader's answer for anything else:
 * without a snapshot, its data a function that reads the elements, called
 * once the call's sizes are checked (elementsOf).
 */
export function tensorArg(check, name, x, ranks = [2, 3, 4], snapshot = true) {
  const quick = quickTensor(x);
  if (!quick || !ranks.includes(quick.shape.length)) return readGeneral(check, name, x, ranks, floatsAsGiven, undefined, !snapshot);
  // A snapshot, unless the caller copies the data before any other argument is read (or only reads rows it re-checks),
  // taken when read (elementsOf), by the count now: ropeApply copied x of 2^26 values (0.2 to 0.6 s), then refused its
  // dtype, out, headDim, positions or size (thirty-sixth pass)
  const n = typedLength(quick.data);
  return snapshot ? { shape: quick.shape, data: () => check.numbers(`${name}.data`, quick.data, n) } : quick;
}

/** tensorArg's data without a snapshot: the quick form's array, or the elements read now. */
export const elementsOf = (data) => (typeof data === 'function' ? data() : data);

/** Positions index the caches' rows: whole numbers from 0 to c.rows − 1. */
export function cacheRowsCheck(check, c, positions, offset, s) {
  // `name` is a string, or the index of a position: its name is formed only when refused (2^24 names cost a second)
  const within = (p, name) => {
    if (!Number.isInteger(p) || p < 0 || p >= c.rows) throw check.fail(RangeError, `${typeof name === 'number' ? `positions[${name}]` : name} must be a row of cos and sin, a whole number from 0 to ${c.rows - 1}`, p);
  };
  // by index, to the length in its slot (positions: a checked copy, a typed array): with a forEach or length planted on
  // Float64Array.prototype the check was skipped, and the kernel read rows far past cos and sin (1e6 of a cache of 4)
  if (positions) for (let i = 0, n = typedLength(positions); i < n; i++) within(positions[i], i);
  else {
    within(offset, 'offset');
    within(offset + s - 1, `offset + ${s - 1} (the last row of x)`);
  }
}

// Frees the wasm memory of rope() handles that were dropped without free().
const dropped = new FinalizationRegistry((release) => release());

/** paramsPtr(frame, a.params): the pointer the core takes for a scaling's parameters (api.js's). */
export function createRotary(wasm, paramsPtr) {
  const call = statusCall(wasm);
  // Status 7 of a scaling's checks is the base NTK or dynamic scaling forms overflowing: said so, where
  // the core's text names no option.
  const scalingCall = (check, a, status) => {
    if (status === C.PE_ERR_VALUE) throw check.fail(RangeError, 'scaled base must be a finite number', a.base);
    call(check, status);
  };

  /**
   * body(state, attentionFactor) with a cache generator of c/rope.c for
   * maxLen positions from offset (HF's seq_len = offset + maxLen), ended
   * whatever body does.
   */
  function withRows(f, check, a, g, body) {
    const slot = f.int32Output(1);
    const af = f.output('float64', 1);
    scalingCall(check, a, wasm.pe_rope_cache_begin(slot, af, dtypeCode(g.dtype), g.maxLen, g.dim, a.base, a.code, paramsPtr(f, a.params),
      g.offset, CACHE_LAYOUTS[g.layout]));
    const state = heapView(Int32Array, wasm, slot, 1)[0]; // by index: a slice planted on Int32Array.prototype threw here, and the generator was never ended (kept)
    try {
      return body(state, f.read('float64', af, 1)[0]);
    } finally {
      wasm.pe_rope_cache_end(state);
    }
  }

  /**
   * The attention factor of a scaling (a) at positions below `seen` (HF's seq_len: dynamic NTK's base
   * grows with it), the core checking the scaling without forming or allocating anything: an NTK base
   * or an implied factor it overflows (status 7) is refused before a call allocates for it (by up to
   * 64 MiB after, before). Longrope's factors are not read: only the struct's fixed fields go in.
   */
  function scaled(f, check, a, dim, seen) {
    const af = f.output('float64', 1);
    // (views of posenc's own arrays, at their buffer's start, made by class: a subarray is made by a plantable Symbol.species)
    scalingCall(check, a, wasm.pe_rope_check(af, dim, a.base, a.code, paramsPtr(f, a.params && new Float64Array(typedArrayBuffer(a.params), 0, FIXED)), seen));
    return f.read('float64', af, 1)[0];
  }

  /**
   * Fresh cos and sin arrays (g.maxLen × cols of g.dtype) and the attention factor, the scaling checked
   * first (the generator's own scratch check, status 2, stays the first refusal of a call past the
   * limit). The row of position 0 holds the attention factor: one past the dtype's range (float16) is
   * refused before the work.
   */
  function cacheTables(f, check, a, g) {
    asDtype(check, [scaled(f, check, a, g.dim, g.offset + g.maxLen)], g.dtype);
    const cols = g.layout === 'pairs' ? g.dim / 2 : g.dim;
    const Type = TYPES[g.dtype];
    const block = Math.max(1, Math.min(g.maxLen, Math.floor(BLOCK_BYTES / (cols * (g.dtype === 'float32' ? 4 : 8)))));
    const cos = new Type(g.maxLen * cols);
    const sin = new Type(g.maxLen * cols);
    const cp = f.output(g.dtype, block * cols);
    const sp = f.output(g.dtype, block * cols);
    return withRows(f, check, a, g, (state, attentionFactor) => {
      for (let r = 0; r < g.maxLen; r += block) {
        const n = Math.min(block, g.maxLen - r);
        call(check, wasm.pe_rope_cache_next(state, cp, sp, n, 0));
        f.readInto(cos, r * cols, g.dtype, cp, n * cols);
        f.readInto(sin, r * cols, g.dtype, sp, n * cols);
      }
      return { cos, sin, cols, attentionFactor };
    });
  }

  /**
   * Wasm buffers of the cos and sin rows (rows × rd, the pairing's layout) for
   * positions (or offset + r), formed from the frequencies of a.
   */
  function formedRows(f, check, a, { rd, pairing, dtype, rows, positions, offset }) {
    // HF's seq_len: the largest position + 1; for positions, a one-row range ending there.
    const last = positions ? largest(positions) : offset + rows - 1;
    const g = { dtype, dim: rd, layout: pairing, maxLen: positions ? 1 : rows, offset: positions ? last : offset };
    return withRows(f, check, a, g, (state) => {
      const cp = f.output(dtype, rows * rd);
      const sp = f.output(dtype, rows * rd);
      call(check, wasm.pe_rope_cache_next(state, cp, sp, rows, positions ? f.float64(positions, rows) : 0));
      return { cp, sp };
    });
  }

  /**
   * Wasm buffers of the cache rows that positions (or offset + r) index in the
   * given cos and sin matrices (cols = rd in the pairing's layout, or rd/2 pairs).
   */
  function givenRows(f, c, { rd, pairing, dtype, rows, positions, offset }) {
    // both in one buffer, through one view (two of each were a tenth of a 1-token call)
    const size = rows * rd, n = c.cols, twice = n !== rd && pairing !== 'half';
    const cp = f.output(dtype, 2 * size), dst = heapView(TYPES[dtype], wasm, cp, 2 * size);
    for (let k = 0; k < 2; k++) { // (by index: for...of follows an iterator a caller can plant, and chose the pointers)
      const src = k ? c.sin : c.cos;
      // The caches are read in place (they may be large), by index: a subarray, set or constructor the
      // caller gave them is not called. Still the size checked?
      if (typedLength(src) !== c.rows * n) throw new TypeError(`posenc.ropeApply: an input array changed while being read`);
      for (let r = 0, at, o, row; r < rows; r++) {
        at = (positions ? positions[r] : offset + r) * n, o = k * size + r * rd;
        // a row of rd, or of rd / 2 pairs: [f | f] for half, f0 f0 f1 f1 ... for interleaved; copied through a view of
        // the row where it can be (by element it was a fifth of a 1-token call)
        if (twice) for (let i = 0; i < n; i++) dst[o + 2 * i] = dst[o + 2 * i + 1] = src[at + i];
        else {
          row = partOf(src, at, n);
          copyTyped(dst, row, o);
          if (n < rd) copyTyped(dst, row, o + n);
        }
      }
    }
    return { cp, sp: cp + size * bytesPer(dtype) };
  }

  /**
   * x.data (blocks × rows × cols) rotated in x's compute dtype by the cos/sin
   * rows at cp/sp, into `out` (a typed array of dtype and count elements) or a
   * fresh array. A non-finite value is reported by name.
   */
  function rotate(f, check, x, rows, out) {
    const { data, count, dtype, blocks, cols, headDim, rd, pairing } = x;
    const Type = TYPES[dtype];
    const xp = f.copy(Type, data, count);
    const status = wasm.pe_rope_rotate(xp, xp, dtypeCode(dtype), blocks, x.rows, cols, headDim, rd,
      PAIRINGS[pairing], rows.cp, rows.sp);
    if (status === C.PE_ERR_VALUE) throw nonFinite(check, x, rows);
    call(check, status);
    const target = out ?? new Type(count);
    f.readInto(target, 0, dtype, xp, count);
    return target;
  }

  /**
   * Refuses a non-finite value of `data` (x, or given cos / sin) before
   * anything is allocated: found by the core after the copy, it was refused
   * with WebAssembly memory already grown for the call (issue 22.3).
   */
  function finite(check, name, data, from = 0, to = typedLength(data), what = (i) => `${name}[${i}] must be a finite number`, f32 = false) {
    // One branch-free pass (v * 0 is ±0 for a finite v, NaN otherwise); the
    // element is looked for only when there is one: this pass is most of a
    // decode step's fixed cost. Rotated in float32, a value past its range
    // (1e39 in a Float64Array) is Infinity there: f32 narrows each value first,
    // so that it is refused here, before memory grows, and not by the kernel.
    // (fround taken at load: one planted later freed a rope() handle here, and its apply went on reading cos and sin at 0)
    // (fround called by name, no function held in a variable: the identity called through one, beside the fround taken
    // at load, made this pass, and with it a ropeApply decode step of 32 × 128 float32 values, twice as slow: 15 µs, 31 µs)
    const n = f32 && !isF32(data);
    let acc = 0;
    for (let i = from; i < to; i++) acc += (n ? fround(data[i]) : data[i]) * 0;
    if (acc === 0) return;
    for (let i = from, v; i < to; i++) if ((v = n ? fround(data[i]) : data[i]) - v !== 0) throw check.fail(RangeError, what(i) + (data[i] - data[i] === 0 ? ' (in float32)' : ''), data[i]);
  }

  /** finite() for the rows of given cos / sin caches that x's rows use (positions, or offset on). */
  const finiteRows = (check, c, positions, offset, s, f32) => {
    for (let k = 0; k < 2; k++) {
      for (let r = 0, p, name = k ? 'sin' : 'cos'; r < s; r++) {
        p = positions ? positions[r] : offset + r;
        finite(check, name, c[name], p * c.cols, (p + 1) * c.cols, () => `${name}: the row of x's row ${r} holds a value that is not a finite number`, f32);
      }
    }
  };

  /** The error for a rotation that met a non-finite value: which input held it, or the overflow. */
  function nonFinite(check, x, rows) {
    // x.data may be the caller's: refused as the scan before the work refuses it, a value past float32's range
    // named too (a rope() handle whose scratch had grown called 1e39 in a Float64Array "a rotated value"); given
    // caches (x.given) by their own rows, as that scan names them
    finite(check, 'x.data', x.data, 0, x.count, undefined, x.dtype === 'float32');
    if (x.given) finiteRows(check, ...x.given, x.dtype === 'float32');
    const n = x.rows * x.rd;
    for (let k = 0, name, j; k < 2; k++) {
      name = k ? 'sin' : 'cos';
      j = findIndex(heapView(TYPES[x.dtype], wasm, k ? rows.sp : rows.cp, n), (v) => v - v !== 0); // (no built-in called over the view)
      if (j >= 0) return check.fail(RangeError, `${name}: the row of x's row ${Math.floor(j / x.rd)} holds a value that is not a finite ${x.dtype} number`);
    }
    return check.fail(RangeError, `a rotated value overflows ${x.dtype}${x.dtype === 'float32' ? "; use dtype 'float64'" : ''} (status ${C.PE_ERR_VALUE})`);
  }

  /**
   * A rope() handle's state: its cos/sin caches (maxLen × dim, the pairing's
   * layout) kept in wasm memory with a scratch for x that grows to the largest
   * call, so that apply() allocates nothing, copies x in and the result out
   * once, and points the core at the cache rows in place.
   */
  function handle(check, a, g) {
    const Type = TYPES[g.dtype];
    const eb = bytesPer(g.dtype);
    const own = { cos: 0, sin: 0, x: 0, xCount: 0, rows: 0, rowsCount: 0, freed: 0 }; // freed own: one on Object.prototype froze every handle
    const release = () => {
      // by index: a for...of follows an iterator a caller can plant (and kept the blocks)
      for (let i = 4, ptrs = [own.cos, own.sin, own.x, own.rows]; i--; ) if (ptrs[i]) wasm.pe_free(ptrs[i]);
      own.cos = own.sin = own.x = own.rows = own.xCount = own.rowsCount = 0;
      own.freed = true;
    };
    const alloc = (count) => {
      const ptr = malloc(wasm, count * eb);
      if (!ptr) throw check.fail(RangeError, `WebAssembly memory is exhausted (could not allocate ${count * eb} bytes)`);
      return ptr;
    };
    try {
      // the scaling first (refused, it grows nothing), then the caches and their generator reserved at once, or refused:
      // the generator (20 bytes a column) grew memory, kept, before caches beside another handle were refused
      withFrame(wasm, check.fn, (f) => scaled(f, check, a, g.dim, g.maxLen));
      reserve(wasm, check, 2 * g.maxLen * g.dim * eb + generatorBytes(g.dim));
      withFrame(wasm, check.fn, (f) => withRows(f, check, a, { ...g, offset: 0, layout: g.pairing }, (state, af) => {
        own.cos = alloc(g.maxLen * g.dim);
        own.sin = alloc(g.maxLen * g.dim);
        call(check, wasm.pe_rope_cache_next(state, own.cos, own.sin, g.maxLen, 0));
        own.attentionFactor = af;
      }));
    } catch (error) {
      release();
      throw error;
    }
    // (its buffer by slot: a getter planted for it was handed the view)
    let heap = heapView(Type, wasm, 0);
    const view = () => (typedArrayBuffer(heap) === memoryBuffer(wasm.memory) ? heap : (heap = heapView(Type, wasm, 0)));
    const grow = (key, countKey, count) => {
      if (own[countKey] >= count) return;
      if (own[key]) wasm.pe_free(own[key]);
      own[key] = 0;
      own[countKey] = 0;
      own[key] = alloc(count);
      own[countKey] = count;
    };

    // the scratch let go: x's and the gathered rows'
    const drop = () => {
      if (own.x) wasm.pe_free(own.x);
      if (own.rows) wasm.pe_free(own.rows);
      own.x = own.xCount = own.rows = own.rowsCount = 0;
    };

    /** Rotates x (checked by the caller: blocks × s × cols of data) at offset or positions into out or a fresh array. */
    function rotateAt(ac, x, positions, offset, out) {
      if (own.freed) throw ac.fail(TypeError, 'this RoPE handle was freed');
      // the scratch grows only for an accepted x: x's, and the gathered rows' (a non-finite x given with positions grew
      // theirs, and the handle kept it: 8 MiB at 256 rows of 4096, twentieth pass)
      const gather = positions ? 2 * x.rows * g.dim : 0;
      if (own.xCount < x.count || own.rowsCount < gather) {
        finite(ac, 'x.data', x.data, 0, x.count, undefined, g.dtype === 'float32');
        // both let go, then room for both reserved at once, or refused: x's grew memory (kept by the handle) before the
        // rows' was refused beside the caches and other handles
        drop();
        reserve(wasm, ac, (x.count + gather) * eb);
      }
      grow('x', 'xCount', x.count);
      let cp = own.cos + offset * g.dim * eb;
      let sp = own.sin + offset * g.dim * eb;
      if (positions) { // gather the rows, in wasm memory
        grow('rows', 'rowsCount', gather);
        const h = view();
        const at = own.rows / eb;
        for (let r = 0; r < x.rows; r++) {
          const from = positions[r] * g.dim;
          copyWithin(h, at + r * g.dim, own.cos / eb + from, own.cos / eb + from + g.dim);
          copyWithin(h, at + (x.rows + r) * g.dim, own.sin / eb + from, own.sin / eb + from + g.dim);
        }
        cp = own.rows;
        sp = own.rows + x.rows * g.dim * eb;
      }
      // x.count exactly, or refused: the copy goes through a view of the whole memory, and a longer x was written past
      // its buffer (a view a worker grew, thirty-second pass; now not taken as it is, and this stays the last guard)
      if (typedLength(x.data) !== x.count) throw ac.fail(TypeError, 'x changed while being read');
      copyTyped(view(), x.data, own.x / eb);
      const status = wasm.pe_rope_rotate(own.x, own.x, dtypeCode(g.dtype), x.blocks, x.rows, x.cols, g.headDim, g.dim,
        PAIRINGS[g.pairing], cp, sp);
      if (status) {
        // refused (a rotated value that overflows, decided by the data): named, then the scratch let go, as no refused call
        // keeps a block (x's and the rows' were kept, grown for it: 4 MiB for 2^20 float32 values of 3e38)
        const error = status === C.PE_ERR_VALUE && nonFinite(ac, { ...x, dtype: g.dtype, rd: g.dim }, { cp, sp });
        drop();
        if (error) throw error;
        call(ac, status);
      }
      const result = heapView(Type, wasm, own.x, x.count);
      return out ? copyTyped(out, result) : copyOf(result, Type); // by slot: an own `set` on out is not called
    }

    /**
     * Before x or positions is read: a freed handle, and the scratch's room beside what is live (rotateAt lets its own go
     * first; less two blocks' rounding, so as never to refuse what rotateAt's reserve() takes): apply read x whole
     * (2^18 values of a proxy's), then was refused as "memory is exhausted" or "freed" (thirty-sixth pass).
     */
    const room = (ac, count, gather, more = (count + gather - own.xCount - own.rowsCount) * eb + RESERVE_SLACK - 128) => {
      if (own.freed) throw ac.fail(TypeError, 'this RoPE handle was freed');
      if ((own.xCount < count || own.rowsCount < gather) && more > 0) fits(wasm, ac, more);
    };

    const state = { rotateAt, room, attentionFactor: own.attentionFactor, free: release };
    return state;
  }

  // x's snapshot goes into a buffer kept for the next call: a fresh typed
  // array per call (an ArrayBuffer allocation, and the collections it brings)
  // cost more than the rotation. A call made while it is held (from a
  // caller's getter) takes a fresh snapshot instead.
  const spare = { Float32Array: new Float32Array(0), Float64Array: new Float64Array(0) };
  let held = null; // the snapshot that holds the spare buffer

  /**
   * ropeApply's x as { shape, data }: data a snapshot taken now of a typed array, or for anything else a function that
   * reads the elements (elementsOf), called once every size and option is checked; release(x) when the call ends.
   */
  function xArg(check, x) {
    const quick = quickTensor(x);
    const n = quick ? typedLength(quick.data) : 0;
    // (nested x, or a proxy's: its elements were read before headDim, rotaryDim, offset or base was refused, every one
    // of them, thirty-third pass's family test)
    if (!quick) return readGeneral(check, 'x', x, [2, 3, 4], floatsAsGiven, undefined, true);
    // Up to 2^20 values (4 or 8 MiB kept): past that the allocation is small beside the work.
    if (held || n > 2 ** 20) return tensorArg(check, 'x', x);
    const Type = floatArrayOf(quick.type);
    if (spare[Type.name].length < n) spare[Type.name] = new Type(n);
    return (held = { shape: quick.shape, data: copyTyped(new Type(typedArrayBuffer(spare[Type.name]), 0, n), quick.data) });
  }

  // by identity: a `spare` key on Object.prototype let a call (from a getter) that had not taken the buffer free it
  const release = (x) => {
    if (x === held) held = null;
  };

  return { scaled, cacheTables, formedRows, givenRows, rotate, handle, xArg, release, finite, finiteRows, register: (target, release) => dropped.register(target, release, target), unregister: (target) => dropped.unregister(target) };
}

// Moving data across the JS/WebAssembly boundary. Every buffer an API call
// takes is recorded in its Frame and freed in `finally`, also when the call
// throws. Views of wasm memory are made only for an instant and never kept:
// memory.grow() detaches the old ArrayBuffer, so results leave as copies.

import { Checker, typedLength, copyTyped, MAX_BYTES } from './validate.js';
import { Float32Array, Float64Array, Int32Array, Uint16Array, Uint8Array, setPrototypeOf, heapView, copyOf, memoryBuffer, byteLength } from './intrinsics.js';
import { encodeHalves } from './float16.js';
import { PE_OK, PE_ERR_NULL, PE_ERR_OPTION, PE_ERR_VALUE, PE_F32, PE_F64 } from '../../dist/constants.js';

/** The array a result of each dtype comes in: float16 and bfloat16 as their bit patterns. */
export const TYPES = { float32: Float32Array, float64: Float64Array, float16: Uint16Array, bfloat16: Uint16Array };
// What wasm memory holds for each dtype: float16 and bfloat16 are computed in
// float64 and rounded once, on the way out (through float32 they would round twice).
const WASM_TYPES = { float32: Float32Array, float64: Float64Array, float16: Float64Array, bfloat16: Float64Array };
/** The C dtype code of a dtype name. */
export const dtypeCode = (dtype) => (dtype === 'float32' ? PE_F32 : PE_F64);

/**
 * wasm.pe_malloc(bytes), or 0 past one call's limit: the size reaches C as a
 * 32-bit size_t, so 2^32 + 64 bytes would arrive as 64 and the caller would
 * write past its buffer. Every allocation goes through here, so a size a
 * caller forgot to check is refused instead (issue 22: the class, not the case).
 */
export const malloc = (wasm, bytes) => (bytes <= MAX_BYTES ? wasm.pe_malloc(bytes) : 0);

export class Frame {
  constructor(wasm, fn) {
    this.wasm = wasm;
    this.fn = fn;
    // without a prototype: an index setter (or a read-only index) on Array.prototype took each call's first block (kept),
    // and a kvCache's q was then written at address 0
    this.pointers = setPrototypeOf([], null);
    Frame.kept = this; // its map kept alive through a major GC, as Checker's (validate.js)
  }

  alloc(bytes) {
    const ptr = malloc(this.wasm, bytes);
    if (!ptr) throw exhausted(this.fn, bytes);
    // by index, not push (nor for...of in free()): methods a caller can plant on Array.prototype, and every block of
    // every call was kept
    this.pointers[this.pointers.length] = ptr;
    return ptr;
  }

  /**
   * A new float64 buffer of exactly `count` elements holding `values`, a typed
   * array as validate.js's vector() returns it. The size comes from the
   * checked count, never from re-reading the argument, and a source that no
   * longer holds `count` elements (its buffer detached or shrunk meanwhile)
   * is refused rather than leaving part of the buffer unwritten.
   */
  float64(values, count) {
    return this.copy(Float64Array, values, count);
  }

  /** As float64(), into an int32 buffer (values already checked to be int32). */
  int32(values, count) {
    return this.copy(Int32Array, values, count);
  }

  copy(Type, values, count) {
    if (typedLength(values) !== count) {
      throw new TypeError(`posenc.${this.fn}: an input array changed while being read`);
    }
    const ptr = this.alloc(Math.max(count, 1) * Type.BYTES_PER_ELEMENT);
    copyTyped(heapView(Type, this.wasm, ptr, count), values);
    return ptr;
  }

  /** A fresh buffer for `count` elements of `dtype`. */
  output(dtype, count) {
    return this.alloc(count * WASM_TYPES[dtype].BYTES_PER_ELEMENT);
  }

  /** A fresh int32 buffer with room for `count` (at least one) elements. */
  int32Output(count) {
    return this.alloc(Math.max(count, 1) * 4);
  }

  /** A copy, owned by the caller, of `count` int32 values at `ptr`. */
  readInt32(ptr, count) {
    return copyOf(heapView(Int32Array, this.wasm, ptr, count), Int32Array);
  }

  /** Copies `count` elements at `ptr` into `target` (a typed array of `dtype`) from index `at`. */
  readInto(target, at, dtype, ptr, count) {
    const view = heapView(WASM_TYPES[dtype], this.wasm, ptr, count);
    // by slot: `target` may be the caller's out, whose own or inherited `set` is not called
    copyTyped(target, WASM_TYPES[dtype] === TYPES[dtype] ? view : asDtype(new Checker(this.fn), view, dtype), at);
  }

  /** A copy, owned by the caller, of `count` elements at `ptr`, converted to `as` (default: dtype). */
  read(dtype, ptr, count, as = dtype) {
    const view = heapView(WASM_TYPES[dtype], this.wasm, ptr, count);
    return WASM_TYPES[dtype] === TYPES[as] ? copyOf(view, TYPES[as]) : asDtype(new Checker(this.fn), view, as);
  }

  free() {
    for (let i = this.pointers.length; i; ) this.wasm.pe_free(this.pointers[--i]);
    this.pointers.length = 0;
  }
}

// Headroom over a footprint for the allocator's headers and rounding (16
// bytes each) and the core's small scratch buffers.
export const RESERVE_SLACK = 4096;

/** Whether wasm memory holds the footprint `check.bytes()` recorded without growing. */
export const roomFor = (wasm, check) => wasm.pe_reserve(-(check.footprint + RESERVE_SLACK));

/**
 * Grows memory once for a handle's buffers (`bytes`, headers in the slack) before any is allocated, or refuses, checked
 * first as a call's bytes: the allocator counts what other handles hold toward its 1 GiB, so a cache of exactly 1 GiB,
 * or a second handle beside one of 600 MiB, grew memory by its first buffer (512 MiB, kept) before the next was refused.
 */
export const reserve = (wasm, check, bytes) => room(wasm, check.fn, check.bytes(bytes + RESERVE_SLACK), 1);

/** Grows memory for `bytes` at once; where it cannot and `must`, refuses the call before anything is allocated. */
export function room(wasm, fn, bytes, must) {
  if (!wasm.pe_reserve(bytes) && must) throw exhausted(fn, bytes);
}

/**
 * openFrame's refusal beside what is live, asked as soon as check.bytes() has counted the footprint, before any element
 * of the call's data is read (pe_fits: the allocator's limit beside what is live, growing nothing; a module that exports
 * it): beside a rope() handle of 512 MiB, ropeApply and ropePermute read x whole (2^26 values, 9.5 s), then were refused
 * as "memory is exhausted" (thirty-fifth pass; lab's checkFits, thirty-fourth).
 */
export const fits = (wasm, check, bytes = check.footprint + RESERVE_SLACK, why = '') => {
  if (wasm.pe_live_allocations() && !wasm.pe_fits(bytes)) throw exhausted(check.fn, bytes, why);
};

/** The refusal of a call whose `bytes` find no room in WebAssembly memory (`why`: what made it need them). */
export const exhausted = (fn, bytes, why = '') => new RangeError(`posenc.${fn}: WebAssembly memory is exhausted (could not allocate ${bytes} bytes)${why}`);

/**
 * A frame for a call that outlives one turn of the event loop (lab.trainAsync): its owner frees it. Refused when its
 * footprint finds no room beside what is live (a handle's buffers, which the allocator counts toward its 1 GiB): each
 * buffer was made in turn and a later one refused, so toyAttention or attention beside a kvCache of 724 MiB grew memory
 * by 256 MiB (kept) before its refusal. (With nothing live, a footprint within the slack of 1 GiB is made as before.)
 */
export function openFrame(wasm, check) {
  // a name has no footprint (its String.prototype's would be Object.prototype's: one put there grew memory by 1 GB, kept)
  if (typeof check !== 'string' && check.footprint > 0) room(wasm, check.fn, check.footprint + RESERVE_SLACK, wasm.pe_live_allocations());
  return new Frame(wasm, typeof check === 'string' ? check : check.fn);
}

/**
 * Runs `body(frame)` and frees everything it allocated, whatever happens.
 * `check` is the call's Checker (or its name): memory grows once for the
 * footprint its bytes() check recorded, not in steps as buffers are made.
 */
export function withFrame(wasm, check, body) {
  const frame = openFrame(wasm, check);
  try {
    return body(frame);
  } finally {
    frame.free();
  }
}

/**
 * The most common call's frame, for the module `wasm`: run(check, type,
 * count, body, as) allocates `count` elements of `type` (a dtype, or
 * 'int32'), has body(out, frame) make the one C call that fills them (its
 * status checked) and returns a copy of them, converted to `as` (default:
 * type); everything is freed as withFrame frees it.
 */
export function oneCall(wasm) {
  const call = statusCall(wasm);
  return (check, type, count, body, as) => withFrame(wasm, check, (f) => {
    const int = type === 'int32';
    const out = int ? f.int32Output(count) : f.output(type, count);
    call(check, body(out, f));
    return int ? f.readInt32(out, count) : f.read(type, out, count, as);
  });
}

/** The NUL-terminated string at `ptr` (the core's messages are ASCII: c/checks.c). */
function readCString(wasm, ptr) {
  // by index: subarray, indexOf and a spread's iterator are methods a caller can plant, and would be handed the view
  const bytes = heapView(Uint8Array, wasm, ptr);
  let text = '';
  for (let i = 0; bytes[i]; i++) text += String.fromCharCode(bytes[i]);
  return text;
}

/**
 * call(check, status) for the module `wasm`: nothing for status 0, otherwise
 * throws the core's message for the status (a TypeError for a wrong type or
 * unknown option, a RangeError for anything else), named by `check`.
 */
export function statusCall(wasm) {
  return (check, status) => {
    if (status === PE_OK) return;
    const text = readCString(wasm, wasm.pe_strerror(status));
    // the statuses that mean "wrong type or unknown option"
    throw check.fail(status === PE_ERR_NULL || status === PE_ERR_OPTION ? TypeError : RangeError, `${text} (status ${status})`);
  };
}

/**
 * A float64 result as `dtype` (float16 and bfloat16 as bit patterns). The
 * copy must hold every value: a finite value past the type's range (3.4e38
 * for float32, 65504 for float16) would round to ±Infinity silently, so it is
 * refused as the C core refuses an overflowing result (status 7).
 */
export function asDtype(check, data, dtype) {
  if (dtype === 'float64') return data;
  const half = dtype !== 'float32'; // float16 or bfloat16
  const out = half ? encodeHalves(data, dtype) : new Float32Array(data);
  for (let i = 0, n = typedLength(out); i < n; i++) { // (its count by slot, as every size)
    // Infinity (or NaN) from a finite value: a 16-bit pattern from +Infinity's up, sign aside
    if ((half ? (out[i] & 0x7fff) >= (dtype === 'float16' ? 0x7c00 : 0x7f80) : !Number.isFinite(out[i])) && Number.isFinite(data[i])) {
      throw check.fail(RangeError, `a result (${data[i]}) overflows ${dtype}; use dtype 'float64' (status ${PE_ERR_VALUE})`);
    }
  }
  return out;
}

/** A result matrix: element (r, c) is data[r * cols + c]. */
export const matrix = (rows, cols, data) => ({ rows, cols, shape: [rows, cols], data });

/** The memoryStats() of every entry: its module's memory and live allocations. */
export const memoryStats = (wasm) => ({ bytes: byteLength(memoryBuffer(wasm.memory)), liveAllocations: wasm.pe_live_allocations() });

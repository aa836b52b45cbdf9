// Argument checks. Every public function validates all of its arguments here
// before anything is allocated, so a bad call costs nothing and leaves the
// module as it was. Messages name the function, the parameter, the allowed
// range and what was received.
//
// Each argument is read exactly once: options, matrix fields and array
// elements may be getters or proxies that answer differently on a second
// read, and the sizes the C core is given must be the sizes that were checked
// and allocated. So the checks return snapshots, and callers use only those.

// The C core's limits (c/posenc.h, through the generated dist/constants.js).
import { PE_MAX_DIM, PE_MAX_POSITION, PE_MAX_BYTES } from '../../dist/constants.js';
import { MIN_SIZE } from './minimums.js';
import { uncurry, hasOwn, getPrototypeOf, setPrototypeOf, keys as ownKeys, ArrayPrototype, isView, typedArrayLength, typedArrayName, typedArrayBuffer, typedArrayOffset, typedArraySet, Float32Array, Float64Array } from './intrinsics.js';

export const MAX_DIM = PE_MAX_DIM;
export const MAX_POSITION = PE_MAX_POSITION;
export const MAX_BYTES = PE_MAX_BYTES;
// Added to a count of the C core's scratch: pe_check_scratch allows 64 bytes a
// buffer for its rounding, and every chunk rounds to 16 bytes.
export const SCRATCH_SLACK = 256; // (not a C limit)
// Results come as float32 (the default), float64, or float16 / bfloat16 bit patterns in a Uint16Array.
export const DTYPES = ['float32', 'float64', 'float16', 'bfloat16'];

// Whether an ArrayBuffer / SharedArrayBuffer can change its length (each throws
// for anything else; absent where no buffer can).
const BUFFER_FLAGS = [[ArrayBuffer, 'resizable'], [globalThis.SharedArrayBuffer, 'growable']]
  .map(([B, key]) => B && Object.getOwnPropertyDescriptor(B.prototype, key)?.get).filter(Boolean).map((get) => uncurry(get));

/** Array.isArray that never throws: a revoked Proxy is not an array (isArray threw a raw TypeError for it). */
export function isArray(value) {
  try {
    return Array.isArray(value);
  } catch {
    return false;
  }
}

export { typedArrayName, typedArrayBuffer, typedArrayOffset };

/** For an ArrayBuffer or SharedArrayBuffer, whether it can change its length; undefined for anything else. */
export function isResizable(value) {
  for (let i = 0; i < BUFFER_FLAGS.length; i++) { // (by index: for...of follows an iterator a caller can plant)
    try {
      return BUFFER_FLAGS[i](value);
    } catch {
      // not this kind of buffer
    }
  }
}

/** The element count of a (non-DataView) typed array, or -1 for anything else. */
export function typedLength(value) {
  if (!isView(value)) return -1;
  try {
    return typedArrayLength(value);
  } catch {
    return -1; // a DataView
  }
}

/**
 * `value[i]`, but a hole (an index `value` does not own) is undefined where an index is planted on Array.prototype or
 * Object.prototype: [[, 1], [1, 1]] was read as [[7, 1], [1, 1]] with Array.prototype[0] = 7, a shape [2, ,] as [2, 7].
 * (Own is asked only then: a proxy whose get trap makes its elements is read as before, and a row's holes with one
 * read each. Another realm's prototypes are not looked at: docs/limits.md.)
 */
export const item = (value, i) => (i in ArrayPrototype && !hasOwn(value, i) ? undefined : value[i]);

/**
 * An array-like whose `length` was read where its tensor was (tensor.js), before any element of this or another
 * argument; its elements are read later, by that count (a `length` read again could answer otherwise). Known by a
 * private field: `instanceof` would run a Proxy's getPrototypeOf trap.
 */
class Counted {
  #counted;
  constructor(source, length) {
    this.source = source;
    this.length = length;
  }

  static is(value) {
    return value !== null && typeof value === 'object' && #counted in value;
  }
}
export const counted = (source, length) => new Counted(source, length);

/**
 * { source, length }: where `value`'s elements are read from and its count, a typed array's by its slot, a Counted's
 * as counted, any other object's `length` read once (undefined for a primitive). (An object: an array destructured
 * follows an iterator a caller can plant.)
 */
export function countOf(check, name, value) {
  const typed = typedLength(value);
  return Counted.is(value) ? value : { source: value, length: typed >= 0 ? typed : value !== null && typeof value === 'object' ? check.read(`${name}.length`, () => value.length) : undefined };
}

/** The first `n` elements of `value` by index (never through an iterator or a length of its own), as an array. */
// (no iterator: Array.from of an array-like followed one planted on Object.prototype, until it was given one without a prototype)
// (Assigned, a fraction of Array.from's cost for a shape, into an array without a prototype until it is full: assigned
// under Array.prototype, a setter planted on an index (or a proxy made its prototype) was called with the copy as `this`
// and defined an accessor on it that gave the sizes checked, then others (attention's heads 2 read as 2^20: a wasm
// trap; as 8: other memory read, thirty-first pass). An array without a prototype takes each element as its own.)
export const byIndex = (value, n) => {
  // (up to 4, a literal: the two prototype changes below make maps that V8 keeps only through live arrays, so a major
  // GC after the last copy died deoptimised every function that had seen one, five of an axial ropeApply's;
  // tests/gc-deopt.test.js. Array.from of a prototype-less array-like makes no such change, but was 1.6x slower there.)
  if (n > 0 && n < 5) return shapeByIndex(value, n);
  const out = setPrototypeOf([], null);
  for (let i = 0; i < n; i++) out[i] = item(value, i);
  return setPrototypeOf(out, ArrayPrototype);
};

/**
 * byIndex for a shape of 1 to 4 sizes, as an array literal: it defines its elements, as byIndex's prototype-less copy
 * does, without that copy's two prototype changes (10% of rope().apply's decode step, and of attention's fixed cost:
 * shapeOf uses it too since issue 24's decode work, for +55 bytes in posenc). Elements past n are not read.
 */
export const shapeByIndex = (v, n) => {
  const a = item(v, 0), b = n > 1 ? item(v, 1) : 0, c = n > 2 ? item(v, 2) : 0;
  return n < 2 ? [a] : n < 3 ? [a, b] : n < 4 ? [a, b, c] : [a, b, c, item(v, 3)];
};

/** The product of `shape[from..to)`, by index (a reduce planted on Array.prototype could answer any count). */
export function product(shape, from = 0, to = shape.length) {
  let n = 1;
  while (from < to) n *= shape[from++];
  return n;
}

/**
 * Copies the typed array `source` into the typed array `target` from index `at` (default 0), by internal slots, for
 * posenc's arrays and views of wasm memory: a `set` planted on Float32Array.prototype (or Int32Array's) was called
 * instead, and the kernels read sizes and rows of an earlier call. (Their subarray is not used: the prototype's, even
 * taken at load, makes its view by `constructor[Symbol.species]`, which a caller can plant: views of any length, a
 * kvCache's rows written over the allocator's, a wasm trap. Views are made by their class, or copied by index.)
 */
export const copyTyped = (target, source, at) => (typedArraySet(target, source, at), target);

/** The class of a Float32Array's or Float64Array's name (numbersOnly's two). */
export const floatArrayOf = (name) => (name === 'Float32Array' ? Float32Array : Float64Array);

/** A view of `count` elements of a Float32Array or Float64Array from index `from`, made by its class. */
export const partOf = (data, from, count, Type = floatArrayOf(typedArrayName(data))) =>
  new Type(typedArrayBuffer(data), typedArrayOffset(data) + from * Type.BYTES_PER_ELEMENT, count);

// What options() returns for no options: shared, so an absent options object costs nothing.
const NO_OPTIONS = Object.freeze(Object.create(null));
/** o[key] where o owns it, else `or` (a key on Object.prototype is not o's). */
const ownOr = (o, key, or) => (hasOwn(o, key) ? o[key] : or);
/** Options whose null means something else than not given: no padding row (a preset's is 1), positions as indices. */
const NULL_IS_A_VALUE = ['paddingIdx', 'baseSize'];

/**
 * Whether an object is an object of named options: a plain object, or else by its tag (may throw for a revoked proxy):
 * not an array, typed array or buffer, nor a Map, Date, Error, Number or any other built-in kind, whose keys are not its
 * options (new Map([['dtype', 'float64']]) had none, and was taken as no options). A plain object first: by its tag
 * alone, a Symbol.toStringTag on Object.prototype refused every config ("config must be a parsed config.json object").
 */
export const isOptions = (value) => getPrototypeOf(value) === Object.prototype || ({}).toString.call(value) === '[object Object]';

/**
 * A string a caller gave, in a message: its first 99 characters. One of the engine's longest (2^29 - 24) made
 * every message naming it a raw "Invalid string length" (after a second), and a long one as long a message.
 */
export const cut = (text) => String(text).slice(0, 99);

/** The describing word of an error message; never throws, whatever `value` is. */
export function show(value) {
  if (typeof value === 'string') return JSON.stringify(cut(value));
  // a BigInt by its digits only up to 2^319 (97 digits), a Symbol by its description's first 99 characters: 1n << 2n ** 24n
  // took 1.6 s to be named in 5 MB of digits (2^30 - 1 bits, V8's largest, minutes), Symbol(s) of 2^29 - 24 failed raw
  if (typeof value === 'bigint') return BigInt.asIntN(320, value) === value ? `${value}n` : 'a BigInt';
  if (typeof value === 'symbol') return `Symbol(${cut(value.description ?? '')})`;
  if (Object.is(value, -0)) return '-0';
  if (value === null || (typeof value !== 'object' && typeof value !== 'function')) return String(value);
  try {
    if (Array.isArray(value)) return 'an array';
    // a typed array with its length: `out` of the wrong length said "(got Float32Array)" only; the name cut (a
    // class named by a string of 2^29 - 24 escaped as the raw "Invalid string length", nineteenth pass)
    const name = value.constructor?.name, n = typedLength(value);
    return typeof name === 'string' && name ? cut(name) + (n < 0 ? '' : `(${n})`) : 'an object';
  } catch {
    return 'an object'; // a revoked proxy, a constructor getter that throws
  }
}

export class Checker {
  constructor(fn) {
    this.fn = fn;
    this.footprint = 0; // bytes(): what the call will hold in wasm memory
    // The last one made is kept: V8 holds the map of a class's instances only through the instances, so a major GC that
    // found none alive dropped it, and with it the optimised code of every function that had checked it (a 1-token
    // attention() took 20 µs, then 10, for thousands of calls after each such GC, against 3.5 µs). Frame does the same.
    Checker.kept = this;
  }

  fail(ErrorType, text, value) {
    const got = arguments.length > 2 ? ` (got ${show(value)})` : '';
    return new ErrorType(`posenc.${this.fn}: ${text}${got}`);
  }

  number(name, value) {
    if (typeof value !== 'number') throw this.fail(TypeError, `${name} must be a number`, value);
    return value;
  }

  /** An integer count from MIN_SIZE (1) to `max`. */
  size(name, value, max = MAX_DIM) {
    return this.integer(name, value, MIN_SIZE, max);
  }

  /** A finite number, optionally within [min, max] or above an exclusive bound. */
  finite(name, value, bounds = NO_OPTIONS) {
    // own bounds only: a min, max or above on Object.prototype refused valid values (asked by hasOwn: a copy of the
    // bounds made for it was an object a call, and numeric options are read on every decode step)
    const min = ownOr(bounds, 'min', -Infinity), max = ownOr(bounds, 'max', Infinity), above = ownOr(bounds, 'above');
    this.number(name, value);
    const ok = Number.isFinite(value) && value >= min && value <= max && !(value <= above); // (false for no above)
    if (!ok) {
      // both ends named: with above and max, "greater than 0" alone hid why 2 was refused
      const range = above !== undefined ? ` greater than ${above}${max < Infinity ? ` and at most ${max}` : ''}`
        : Number.isFinite(min) || Number.isFinite(max) ? ` from ${min} to ${max}` : '';
      throw this.fail(RangeError, `${name} must be a finite number${range}`, value);
    }
    return value;
  }

  integer(name, value, min, max) {
    this.number(name, value);
    if (!Number.isInteger(value) || value < min || value > max) {
      throw this.fail(RangeError, `${name} must be an integer from ${min} to ${max}`, value);
    }
    return value;
  }

  boolean(name, value) {
    if (typeof value !== 'boolean') throw this.fail(TypeError, `${name} must be true or false`, value);
    return value;
  }

  oneOf(name, value, allowed) {
    if (typeof value !== 'string') throw this.fail(TypeError, `${name} must be a string, one of ${allowed.join(', ')}`, value);
    if (!allowed.includes(value)) throw this.fail(RangeError, `${name} must be one of ${allowed.join(', ')}`, value);
    return value;
  }

  /**
   * Runs `read`, which reads something a caller gave (a getter, a proxy trap,
   * a length), and turns anything it throws into this function's TypeError,
   * so that a revoked proxy or a throwing getter gives a posenc message.
   */
  read(name, read) {
    try {
      return read();
    } catch (error) {
      // What was thrown, in words: reading it runs the caller's code too (a
      // message getter, a toString, a revoked proxy), which must not escape.
      let why = 'an object'; // one whose message or string cannot be read
      try {
        // a getter throwing a string of 2^29 - 24 escaped raw, 1n << 2n ** 24n took 1.6 s (nineteenth pass)
        const what = error?.message ?? error;
        why = typeof what === 'bigint' ? show(what) : cut(what);
      } catch {
        // left as 'an object'
      }
      throw new TypeError(`posenc.${this.fn}: could not read ${name}: ${why}`, { cause: error });
    }
  }

  /**
   * An options object (or undefined) holding only the keys this function
   * knows; returns a snapshot of the keys it has, each read once (an absent
   * key reads as undefined). Only the object's own properties count: a key
   * set on Object.prototype (or any prototype) is not an option, so prototype
   * pollution elsewhere in an app cannot change a result here. The snapshot
   * has no prototype either. A decode loop calls this every step, so only
   * the keys given are read, and a plain object is not probed for being a
   * buffer (the probe throws, which cost microseconds a call).
   */
  options(value, known, name = 'options') {
    if (value === undefined || value === null) return NO_OPTIONS;
    // An array, a typed array or a buffer has keys too ("0", "1", ...): refused
    // as what it is, not as an unknown option "0".
    const keys = typeof value === 'object' && this.read(name, () => isOptions(value) && ownKeys(value)); // (taken at load: a planted Object.keys dropped options)
    if (!keys) throw this.fail(TypeError, `${name} must be an object of named options`, value);
    if (!keys.length) return NO_OPTIONS;
    const what = name === 'options' ? 'option' : `${name} option`;
    const unknown = keys.find((key) => !known.includes(key));
    if (unknown !== undefined) throw this.fail(TypeError, `unknown ${what} ${show(unknown)}; ${known.length ? `known ${what}s are ${known.join(', ')}` : `it takes no ${what}s`}`);
    const snapshot = Object.create(null);
    // by index: a for...of follows an iterator a caller can plant (options dropped: a float16 ropeCache in pairs came as float32 halves);
    // in one try, the key's name formed only for a getter that throws (a name and a closure a key were a tenth of a 1-token call)
    let key;
    try {
      for (let i = 0, v; i < keys.length; i++) {
        v = value[(key = keys[i])];
        // null is absent (as fetch's signal), but where it is a value of its own: `config: null` was "config must be a
        // parsed config.json object", `layerType: null` "layerType needs config" (thirty-second pass)
        if (v !== null || NULL_IS_A_VALUE.includes(key)) snapshot[key] = v;
      }
    } catch (error) {
      this.read(`${name}.${key}`, () => {
        throw error;
      });
    }
    return snapshot;
  }

  /**
   * A snapshot of an array, typed array or array-like (an object with a
   * numeric `length`) of numbers: its length is read once and each element
   * once, into a new array that only this call holds: a Float32Array for a
   * Float32Array argument (so float32 data can stay float32), a Float64Array
   * for anything else. Everything after this uses the snapshot only, so a
   * `length` getter, a proxy, or a worker writing into a SharedArrayBuffer
   * meanwhile cannot make the sizes checked differ from the sizes copied, or
   * the values checked differ from the values used. Elements may be any
   * number here, NaN included; vector() adds the finiteness check.
   */
  numbers(name, value, length) {
    return this.later(name, value, length).read();
  }

  /**
   * numbers() in two steps: the count read and checked now, the elements (a typed array's too) when read() is called: so a call that takes two arrays checks both counts before it
   * reads an element of either (dot read 2^22 elements of a, then refused b's count: thirty-fourth pass).
   */
  later(name, value, length) {
    // a typed array's count by its slot, a Counted's as counted, anything else's `length` read once
    const { source: from, length: n } = countOf(this, name, value);
    if (typeof n !== 'number') {
      throw this.fail(TypeError, `${name} must be an array, typed array or array-like of numbers`, from);
    }
    // its storage first, by its slot (undefined for anything but a typed array), as readNested's: a BigInt64Array of points
    // was refused after length(n) had read every element of randomFourierFeatures' B (thirty-seventh pass)
    const type = typedArrayName(from);
    if (type?.startsWith('Big')) throw this.fail(TypeError, `${name} must hold numbers, not BigInts`);
    // the element count: `length` exactly when it is a number, otherwise from 1 to MAX_DIM and, for a
    // function, what length(n) allows (a call's size), before any element is read (an int64 tensor of
    // another length comes here unconverted, tensor.js, and is refused above)
    if (typeof length !== 'number') this.size(`${name}.length`, n), length?.(n);
    else if (n !== length) throw this.fail(RangeError, `${name} must have ${length} elements to match`, n);
    const copy = type === 'Float32Array' ? new Float32Array(n) : new Float64Array(n);
    const read = () => {
      // (another argument's getter, run since the count was read, may have detached or shrunk it)
      if (type && typedLength(from) < n) throw this.fail(TypeError, `${name} changed while being read`);
      if (type && !isResizable(typedArrayBuffer(from))) return copyTyped(copy, from);
      for (let i = 0; i < n; i++) {
        const x = this.read(`${name}[${i}]`, () => item(from, i));
        if (typeof x === 'bigint') throw this.fail(TypeError, `${name} must hold numbers, not BigInts`);
        if (typeof x !== 'number') throw this.fail(TypeError, `${name}[${i}] must be a finite number`, x);
        copy[i] = x;
      }
      return copy;
    };
    // a growable buffer's, element by element: a worker growing a SharedArrayBuffer after its view's n was read
    // made set() copy the grown view whole, refused raw ("offset is out of bounds"; thirty-second pass). A typed
    // array is copied by read() too, not now: dot copied a of 2^24 values (0.4 s; 0.8 s on a resizable buffer,
    // element by element), then refused b's count (thirty-sixth pass)
    return { length: n, read };
  }

  /**
   * An array-like of finite numbers of a given length (or any length from 1):
   * numbers()'s snapshot, each element checked after the copy was taken.
   */
  vector(name, value, length) {
    return this.allFinite(name, this.numbers(name, value, length));
  }

  /** A snapshot of numbers, each checked finite. */
  allFinite(name, copy) {
    for (let i = 0, n = typedLength(copy); i < n; i++) { // (its own length, by slot: a planted getter could say 0)
      if (!Number.isFinite(copy[i])) throw this.fail(RangeError, `${name}[${i}] must be a finite number`, copy[i]);
    }
    return copy;
  }

  /**
   * Refuses, before allocating, a call whose buffers would not fit: `total`,
   * everything the call holds, and `wasm`, the part of it in WebAssembly
   * memory at once (inputs, outputs and the C core's scratch; less than total
   * where a result is made a chunk at a time). `wasm` is kept as the call's
   * footprint: withFrame grows memory for it in one step. `why`, appended to
   * the message, says which options make the call that big.
   */
  bytes(total, wasm = total, why = '') {
    total = Math.max(total, wasm);
    this.footprint = wasm;
    if (total > MAX_BYTES) {
      // Rounded up: a call just over the limit must not read as "1024.0 MiB".
      const mib = (Math.ceil((total / 2 ** 20) * 10) / 10).toFixed(1);
      throw this.fail(RangeError, `this call would need ${mib} MiB of WebAssembly memory; one call may use at most ${MAX_BYTES / 2 ** 20} MiB${why}`);
    }
    return total;
  }
}

/** The sum, and the largest, of an array of numbers (by reduce: a spread of 2^17 elements overflowed the stack). */
// By index, to their own length (a typed array's by its slot): a reduce or a length a caller can plant answered sizes,
// and the largest position that decides which rows of a cache the core reads.
const lengthOf = (values) => (isView(values) ? typedLength(values) : values.length);
export function sum(values) {
  let s = 0;
  for (let i = 0, n = lengthOf(values); i < n; i++) s += values[i];
  return s;
}
export function largest(values) {
  let m = values[0];
  for (let i = 1, n = lengthOf(values); i < n; i++) m = Math.max(m, values[i]);
  return m;
}

export const bytesPer = (dtype) => (dtype === 'float32' ? 4 : 8);

// Argument checks. Every public function validates all of its arguments here
// before anything is allocated, so a bad call costs nothing and leaves the
// module as it was. Messages name the function, the parameter, the allowed
// range and what was received.
//
// Each argument is read exactly once: options, matrix fields and array
// elements may be getters or proxies that answer differently on a second
// read, and the sizes the C core is given must be the sizes that were checked
// and allocated. So the checks return snapshots, and callers use only those.

export const MAX_DIM = 2 ** 24;
export const MAX_POSITION = 2 ** 31;
export const MAX_BYTES = 2 ** 30;
export const DTYPES = ['float32', 'float64'];

// The real element count of a typed array (throws for anything else), read
// without running any getter a caller may have put on the object.
const typedArrayLength = Object.getOwnPropertyDescriptor(
  Object.getPrototypeOf(Uint8Array.prototype), 'length').get;

/** The element count of a (non-DataView) typed array, or -1 for anything else. */
export function typedLength(value) {
  if (!ArrayBuffer.isView(value)) return -1;
  try {
    return typedArrayLength.call(value);
  } catch {
    return -1; // a DataView
  }
}

function show(value) {
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'bigint') return `${value}n`;
  if (Array.isArray(value)) return 'an array';
  if (value === null || typeof value !== 'object') return String(value);
  return value.constructor?.name ?? 'an object';
}

export class Checker {
  constructor(fn) {
    this.fn = fn;
  }

  fail(ErrorType, text, value) {
    const got = arguments.length > 2 ? ` (got ${show(value)})` : '';
    return new ErrorType(`posenc.${this.fn}: ${text}${got}`);
  }

  number(name, value) {
    if (typeof value !== 'number') throw this.fail(TypeError, `${name} must be a number`, value);
    return value;
  }

  /** An integer count from 1 to `max`. */
  size(name, value, max = MAX_DIM) {
    this.number(name, value);
    if (!Number.isInteger(value) || value < 1 || value > max) {
      throw this.fail(RangeError, `${name} must be an integer from 1 to ${max}`, value);
    }
    return value;
  }

  /** A finite number, optionally within [min, max] or above an exclusive bound. */
  finite(name, value, { min = -Infinity, max = Infinity, above } = {}) {
    this.number(name, value);
    const ok = Number.isFinite(value) && value >= min && value <= max && !(above !== undefined && value <= above);
    if (!ok) {
      const range = above !== undefined ? `a finite number greater than ${above}`
        : Number.isFinite(min) || Number.isFinite(max) ? `a finite number from ${min} to ${max}`
        : 'a finite number';
      throw this.fail(RangeError, `${name} must be ${range}`, value);
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
   * An options object (or undefined) holding only the keys this function
   * knows; returns a plain snapshot with each known key read once.
   */
  options(value, known) {
    if (value === undefined || value === null) return {};
    if (typeof value !== 'object' || Array.isArray(value)) throw this.fail(TypeError, 'options must be an object', value);
    for (const key of Object.keys(value)) {
      if (!known.includes(key)) {
        throw this.fail(TypeError, `unknown option ${JSON.stringify(key)}; known options are ${known.join(', ')}`);
      }
    }
    const snapshot = {};
    for (const key of known) snapshot[key] = value[key];
    return snapshot;
  }

  /**
   * An array-like of finite numbers of a given length (or any length from 1).
   * Returns a typed array of exactly that length holding the values checked:
   * a typed array argument itself (reading it runs no caller code), anything
   * else copied element by element into a new Float64Array.
   */
  vector(name, value, length) {
    const typedCount = typedLength(value);
    if (typedCount < 0 && !Array.isArray(value)) {
      throw this.fail(TypeError, `${name} must be an array or typed array of numbers`, value);
    }
    const count = typedCount >= 0 ? typedCount : value.length;
    if (length === undefined) this.size(`${name}.length`, count);
    else if (count !== length) {
      throw this.fail(RangeError, `${name} must have ${length} elements to match`, count);
    }
    const copy = typedCount >= 0 ? null : new Float64Array(count);
    for (let i = 0; i < count; i++) {
      const x = value[i];
      if (typeof x === 'bigint') throw this.fail(TypeError, `${name} must hold numbers, not BigInts`);
      if (typeof x !== 'number' || !Number.isFinite(x)) {
        throw this.fail(typeof x === 'number' ? RangeError : TypeError,
          `${name}[${i}] must be a finite number`, x);
      }
      if (copy) copy[i] = x;
    }
    return copy ?? value;
  }

  /**
   * A { rows, cols, data } matrix with rows * cols finite numbers; returns
   * { rows, cols, data } read once, data as vector() returns it.
   */
  matrix(name, value) {
    if (value === null || typeof value !== 'object') {
      throw this.fail(TypeError, `${name} must be a matrix { rows, cols, data }`, value);
    }
    const { rows, cols, data } = value;
    this.size(`${name}.rows`, rows);
    this.size(`${name}.cols`, cols);
    this.bytes(rows * cols * 8);
    return { rows, cols, data: this.vector(`${name}.data`, data, rows * cols) };
  }

  /** Refuses, before allocating, a call whose buffers would not fit. */
  bytes(total) {
    if (total > MAX_BYTES) {
      const mib = (total / 2 ** 20).toFixed(1);
      throw this.fail(RangeError, `this call would need ${mib} MiB of WebAssembly memory; one call may use at most 1024 MiB (wasm memory is capped at 2 GiB)`);
    }
    return total;
  }
}

export function bytesPer(dtype) {
  return dtype === 'float32' ? 4 : 8;
}

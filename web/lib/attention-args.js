// The arguments of attention beyond q, k and v: a mask and a bias, each
// broadcast to [batch, heads, queries, keys] through strides (a 0 stride
// repeats a dimension of 1), as the C core reads them (pe_attention_heads).
import { typedLength, typedArrayName, typedArrayBuffer, isResizable, isArray, item, product, countOf } from './validate.js';
import { readNested } from './tensor.js';
import { Int32Array } from './intrinsics.js';

/**
 * Size d from the end of a shape (posenc's own, dense), 1 past its rank; by index within it: an index "-1" planted on
 * Array.prototype was read past the rank (the twenty-first pass), and an `at` planted there (at() was used since) gave
 * attention any sizes, and the core read past q, k and v into other memory.
 */
const dim = (shape, d) => (d > shape.length ? 1 : shape[shape.length - d]);
/** A shape of rank 2 to 4 as [batch, heads, rows, cols], 1 where absent. */
export const as4 = (shape) => [dim(shape, 4), dim(shape, 3), dim(shape, 2), dim(shape, 1)];

/**
 * The sizes of attention over q, k, v (tensors of one rank, 2 to 4): checks
 * that they fit together, and gives { b, heads, kvHeads, n, m, dk, dv }.
 */
export function attentionShape(check, q, k, v) {
  // by index, never destructured: an iterator planted on Array.prototype read q of [2, 8] as 64 rows, past its buffer
  const qs = as4(q.shape), ks = as4(k.shape), vs = as4(v.shape);
  const b = qs[0], heads = qs[1], n = qs[2], dk = qs[3], kvHeads = ks[1], m = ks[2], dv = vs[3];
  const same = (what, got, want) => {
    if (got !== want) throw check.fail(RangeError, `${what} must equal ${want} (q [${q.shape}], k [${k.shape}], v [${v.shape}])`, got);
  };
  same('k\'s batch', ks[0], b);
  same('v\'s batch', vs[0], b);
  same('k\'s last dimension', dim(k.shape, 1), dk);
  same('v\'s heads', vs[1], kvHeads);
  same('v\'s keys', vs[2], m);
  if (heads % kvHeads) throw check.fail(RangeError, `k's heads must divide q's heads (${heads})`, kvHeads);
  return { b, heads, kvHeads, n, m, dk, dv };
}

/**
 * Elements for the float32 kernel: a Float32Array or Float64Array of the
 * right length on a fixed-length buffer as it is (it is copied into wasm
 * memory once, a run of kv heads at a time, by api.js attentionF32, through
 * views made by the library's own constructors), anything else as
 * Checker.numbers reads it; not yet checked finite (attention() does, where
 * a refusal would otherwise keep memory: a scan here was a sixth of a first
 * call). (Another type was viewed by the global constructor of its name: one
 * replaced after import gave zeros, no word. A growable buffer's view, grown
 * by a worker after its length was checked, made the KV cache's copy of q
 * write it whole, over another cache: thirty-second and thirty-third passes.)
 */
export const numbersOnly = (check, name, data, count) =>
  (typedLength(data) === count && FLOATS.includes(typedArrayName(data)) && !isResizable(typedArrayBuffer(data)) ? data : check.numbers(name, data, count));
const FLOATS = ['Float32Array', 'Float64Array'];

/** Strides that read a tensor of `shape` as one of `target` (a 0 stride repeats a dimension of 1). */
function broadcastStrides(check, name, shape, target) {
  // written by index into their own Int32Array: unshift and Int32Array.from (which follows an iterator) can be planted
  const strides = new Int32Array(target.length);
  let step = 1;
  for (let d = 1; d <= target.length; d++) {
    // dim(): past the shape's rank, no index "-1" is looked up on Array.prototype (one planted there made a bias of
    // shape [2] read as [2, 2], and the core read past it into other memory), nor a planted `at` called
    const size = dim(shape, d);
    if (size !== 1 && size !== dim(target, d)) {
      throw check.fail(RangeError, `${name} of shape [${shape}] does not broadcast to [${target}]`);
    }
    strides[target.length - d] = size === 1 ? 0 : step;
    step *= size;
  }
  return strides;
}

/**
 * An optional tensor broadcast to `target`: null, or { data(), count, strides }, its elements read by data() once the
 * call's footprint is checked: a bias of 2^24 values was read (0.7 s) to be refused as not broadcasting, and a mask
 * read whole before the bias's shape or the call's bytes refused the call (thirty-third pass)
 */
export function extraArg(check, name, value, target, elements) {
  if (value === undefined || value === null) return null;
  const t = readNested(check, name, value, [1, 2, 3, 4], elements, undefined, 1);
  return { data: t.data, ready: t.ready, count: product(t.shape), strides: broadcastStrides(check, name, t.shape, target) };
}

/** Elements of a typed array or plain array, each as `convert` returns it (undefined: refused). */
function elementsAs(Type, what, convert) {
  return (check, name, data, count) => {
    const { source: from, length: n } = countOf(check, name, data); // (counted where its tensor was read, if not typed)
    if (typedLength(from) < 0 && !isArray(from)) throw check.fail(TypeError, `${name} must be an array or typed array`, from);
    if (n !== count) throw check.fail(RangeError, `${name} must have ${count} elements to match`, n);
    const out = new Type(n);
    for (let i = 0; i < n; i++) {
      // read once, inside the guard: a getter's throw escaped raw, and a refused element was read again to be named
      const v = check.read(`${name}[${i}]`, () => item(from, i)), x = convert(v);
      if (x === undefined) throw check.fail(TypeError, `${name}[${i}] must be ${what}`, v);
      out[i] = x;
    }
    return out;
  };
}

/** A mask: true / false or 1 / 0 (1 = attend). */
export const maskElements = elementsAs(Uint8Array, 'true, false, 1 or 0',
  (x) => (x === true || x === 1 ? 1 : x === false || x === 0 ? 0 : undefined));
maskElements.integers = true; // a bool or integer tensor is a mask (tensor.js)

/** An additive bias: finite numbers or -Infinity (which leaves the key out). */
export const biasElements = elementsAs(Float64Array, 'a finite number or -Infinity',
  (x) => (typeof x === 'number' && (Number.isFinite(x) || x === -Infinity) ? x : undefined));

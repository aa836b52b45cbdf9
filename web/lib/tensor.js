// Tensor-shaped arguments and results. An input may be { data, shape },
// { rows, cols, data }, nested arrays, or a tensor of another library, duck-typed
// so that posenc depends on none: shape + dataSync() (TensorFlow.js) or
// dims + data (transformers.js, onnxruntime-web), with their element type
// (`type`, or TensorFlow.js's `dtype`). Each field is read once.
import { typedLength, typedArrayName, typedArrayBuffer, isResizable, copyTyped, byIndex, shapeByIndex, item, product, counted as countedBy, MAX_DIM, DTYPES } from './validate.js';
import { Float64Array, getPrototypeOf, hasOwn, getOwnPropertyDescriptor } from './intrinsics.js';
import { TYPES } from './heap.js';
import { HALF_TYPES, decodeHalves } from './float16.js';

const MAX_RANK = 4;

/**
 * A copy of a shape: 1 to MAX_RANK sizes, its length read once and its elements by index (Array.from(shape)
 * followed a Symbol.iterator planted on it, and an endless one never returned).
 */
function shapeOf(check, name, shape) {
  const n = check.read(name, () => Array.isArray(shape) && +shape.length); // a number once: a length object could say 2, then 2^27
  // a whole number: a proxy's length of 2.5 had the loop below read and write a third size its copy never held, through
  // an index planted on Array.prototype (an output of 64 columns for 8, read from other wasm memory)
  if (!(n >= 1 && n <= MAX_RANK) || n % 1) throw check.fail(TypeError, `${name} must be 1 to ${MAX_RANK} sizes`, shape);
  const copy = check.read(name, () => shapeByIndex(shape, n));
  // in place, by index: a map planted on Array.prototype could answer sizes never checked
  for (let i = 0; i < n; i++) copy[i] = check.size(`${name}[${i}]`, copy[i]);
  return copy;
}

/**
 * Nested arrays: the shape of their first elements, and data(), every leaf, flat (ragged rows refused), called
 * once the copy's bytes are checked: 2^24 rows of 2^24 holes were walked for 2^48 steps before it.
 */
function flatten(check, name, value) {
  const dims = [];
  check.read(name, () => {
    for (let v = value; Array.isArray(v) && dims.length <= MAX_RANK; v = item(v, 0)) dims.push(v.length);
  });
  // Bounded before it is walked: an array of length 2^32 - 1 hung every function taking a tensor.
  const shape = shapeOf(check, `${name} shape`, dims);
  // Each row read by index to the length checked (flat() read its length again, and a proxy's could have grown to
  // 2^32 - 1 meanwhile: minutes for a 2 × 2 input), every array of a level counted before any of them is read (norms,
  // gram and ropePermute read every row before a ragged last one: the count family after the fortieth pass). leaves 0:
  // the lengths only, no leaf read, for readNested's ready() (attention read q whole, then refused a k ragged in its
  // last row: thirty-seventh pass).
  const data = (leaves = 1) => {
    const level = check.read(name, () => {
      let level = [value], d = dims.length;
      for (const n of dims) {
        const k = leaves || --d ? n : 0; // (the last level's: none read, for 0)
        if (!level.every((v) => Array.isArray(v) && v.length === n)) return;
        level = level.flatMap((v) => k && byIndex(v, k));
      }
      return level;
    });
    if (!level) throw check.fail(RangeError, `${name} is ragged`);
    return level;
  };
  return { shape, data, type: undefined }; // own: readNested's `type` must not come from Object.prototype
}

/**
 * `value[key]` where the object or one of its classes holds the key, not Object.prototype (pollution), of this realm or
 * another's (a tensor made in a vm context or an iframe: the root of its chain, whose prototype is null, and which owns
 * isPrototypeOf; a class's prototype made a root, Object.setPrototypeOf(T.prototype, null), is read: its tensors were
 * refused, "matrix.rows must be a number"); at most 64 levels of them: a Proxy whose getPrototypeOf answers itself made
 * an endless chain (every tensor call hung).
 */
export function field(value, key) {
  for (let o = value, p, d = 64; o && d--; o = p) {
    if (((p = Object.getPrototypeOf(o)) || !Object.hasOwn(o, 'isPrototypeOf')) && Object.hasOwn(o, key)) return value[key];
  }
}

/** { shape, data() } of a supported tensor-like value, each field read once; data unchecked. */
function parts(check, name, value) {
  // (not an array: readNested has read nested arrays)
  if (value === null || typeof value !== 'object' || ArrayBuffer.isView(value)) {
    throw check.fail(TypeError, `${name} must be a tensor: { data, shape }, { rows, cols, data } or a tfjs / ONNX tensor`, value);
  }
  // Each field read once, in one place; a getter that throws is reported as such.
  // Only fields of the object and its classes count (field()).
  const f = check.read(name, () => {
    // a plain object's fields are its own (Object.prototype's are never read): one prototype read, not a walk a field
    const plain = getPrototypeOf(value) === Object.prototype;
    const get = (key) => (!plain ? field(value, key) : hasOwn(value, key) ? value[key] : undefined);
    const dataSync = get('dataSync'), dims = get('dims') ?? get('shape'); // a null dims is absent, as a null type
    const sync = typeof dataSync === 'function', given = sync ? undefined : get('data');
    // dataSync() called once the call's size is checked (a tfjs tensor downloads its data for it)
    return { shape: dims, rows: get('rows'), cols: get('cols'), type: get('type') ?? get('dtype'), given, sync,
      data: sync ? () => check.read(name, () => dataSync.call(value)) : () => given };
  });
  const shape = f.shape !== undefined ? shapeOf(check, `${name}.shape`, f.shape) : [check.size(`${name}.rows`, f.rows), check.size(`${name}.cols`, f.cols)];
  return { shape, data: f.data, type: f.type, given: f.given, sync: f.sync }; // data() as flatten's; given: a `data` field's value
}

// Element types of other libraries' tensors (onnxruntime-web and
// transformers.js `type`, TensorFlow.js `dtype`). float16 and bfloat16 come as
// bit patterns in a Uint16Array and are decoded exactly. Integer and boolean
// types only where the parameter holds integers (a mask): an int8 tensor of
// activations is quantized data whose scale posenc cannot know, so it is
// refused rather than read as values.
const REAL_TYPES = ['float32', 'float64', ...HALF_TYPES];
const INTEGER_TYPES = ['int8', 'uint8', 'int16', 'uint16', 'int32', 'uint32', 'int64', 'uint64', 'bool'];

/** A BigInt64Array's or BigUint64Array's first `count` elements as numbers. */
function numbersOf(data, count) {
  const out = new Float64Array(count);
  for (let i = 0; i < count; i++) out[i] = Number(data[i]);
  return out;
}

/** Refuses an element type the parameter cannot take (none given, or null: none). */
function elementType(check, name, type, integers) {
  if (type !== undefined && type !== null && !REAL_TYPES.includes(type) && !(integers && INTEGER_TYPES.includes(type))) {
    throw check.fail(TypeError, `${name} must have element type ${REAL_TYPES.join(', ')}${integers ? ` or ${INTEGER_TYPES.join(', ')}` : ''}`, type);
  }
}

/**
 * The data of a tensor of `count` elements whose element type is `type` (undefined: none given), as numbers; with a
 * count of -1, only the refusals (no element read).
 */
function typedData(check, name, type, data, integers, count) {
  elementType(check, name, type, integers);
  const array = typedArrayName(data); // by its slot: undefined for anything but a typed array, a Proxy running nothing
  if (array?.startsWith('Big') && !type?.endsWith('int64')) throw check.fail(TypeError, `${name}.data must hold numbers, not BigInts`);
  if (type === undefined || type === null) return data;
  if (HALF_TYPES.includes(type) && array !== 'Float16Array') { // a Float16Array's elements are the values
    // the bits mean nothing as numbers: only their own storage is read
    if (array !== 'Uint16Array') throw check.fail(TypeError, `${name}.data must be a Uint16Array of ${type} bit patterns`, data);
    return typedLength(data) === count ? decodeHalves(data, type) : data; // of another length: left to the length check, undecoded
  }
  // an int64 mask or position ids: any value but 0 and 1 (or past ±2^31) is refused after this. Read by index
  // (Float64Array.from followed a Symbol.iterator planted on data, or on Object.prototype) once its engine's own length is the
  // count (else left to the length check), straight into a Float64Array: an array of a BigInt each held 50 bytes a
  // value (a 2 × 2 mask of 2^24 int64s took 3 s and 0.9 GiB of heap to be refused; position ids or a mask of
  // a documented size could exhaust the heap)
  return array?.startsWith('Big') && type.endsWith('int64') && typedLength(data) === count ? numbersOf(data, count) : data;
}

const OTHER_FIELDS = ['dims', 'type', 'dtype', 'dataSync'];

/**
 * { shape, data, type } of a plain { shape: [2 to 4 sizes], data: Float32Array | Float64Array } whose fields are data
 * properties of its own (and no dims, type, dtype or dataSync of its own), data holding the shape's count on a
 * fixed-length buffer: read without the general reader's walk, which was half of a 1-token attention call. null for
 * anything else, which the general reader then reads and words (readNested, and rotary.js's decode step's x).
 */
export function quickTensor(x) {
  try {
    if (getPrototypeOf(x) !== Object.prototype) return null; // null and undefined throw: caught below
    // nothing the general reader would read besides (an own dims, type or dataSync changes its answer), asked as it asks,
    // field by field: its keys listed (a proxy's ownKeys) were a read the general reader never makes, and one that threw
    // went unreported (the reentry sweep)
    for (let i = 0; i < 4; i++) if (hasOwn(x, OTHER_FIELDS[i])) return null;
    const s = getOwnPropertyDescriptor(x, 'shape');
    const d = getOwnPropertyDescriptor(x, 'data');
    // own values only (an absent key throws): a descriptor inherits Object.prototype, and a `value` put there was read
    // as the shape of a tensor whose own shape is a getter ([2, 8] rotated as [1, 16], no word)
    if (!hasOwn(s, 'value') || !hasOwn(d, 'value') || !Array.isArray(s.value)) return null;
    const data = d.value, v = s.value, type = typedArrayName(data);
    // data's class first, by its slot: a shape's length (a proxy's, or an object's valueOf) is read only for data the
    // quick path takes, or it would be read here and again by the general reader (a planted length's second answer)
    if (type !== 'Float32Array' && type !== 'Float64Array') return null;
    // by index, not an own Symbol.iterator (endless: a hang), holes read as holes (item: not as an index planted on Array.prototype); at most 5 (a proxy's length
    // once). A loop and two comparisons: Array.from with a callback and a regular expression cost a decode step 30%.
    // (and by index, not push or for...of: methods a caller can plant, answering a shape other than the count checked;
    // an array literal, not assigned: a setter planted on Array.prototype[i] made the copy's element an accessor that
    // gave the count checked, then another shape: rope().apply's [2, 2, 8] given back as [8, 2, 8], thirty-first pass.
    // shapeByIndex's literal defines its elements, and costs a decode step nothing, where byIndex's cost it 10%.)
    const rank = Math.min(v.length, 5);
    if (rank % 1 || rank < 2 || rank > 4) return null; // (a proxy's 2.5: the general reader)
    const shape = shapeByIndex(v, rank);
    let count = 1;
    for (let i = 0, n; i < rank; i++) {
      if (!Number.isInteger((n = shape[i])) || n < 1 || n > MAX_DIM) return null;
      count *= n;
    }
    // not on a growable buffer (the general reader's snapshot instead): a worker growing one after its length was
    // checked made the copy into wasm memory write the grown view whole, over another handle's caches (thirty-second pass)
    return count === typedLength(data) && !isResizable(typedArrayBuffer(data)) ? { shape, data, type } : null;
  } catch {
    return null; // a proxy or an odd array: the general reader reports it
  }
}

const NOTHING = () => {};

/** A tensor's elements, read by `elements` (default: finite numbers, as Checker.vector). */
const readElements = (check, name, elements, data, count) =>
  (elements ? elements(check, `${name}.data`, data, count) : check.vector(`${name}.data`, data, count));

/**
 * A tensor argument of one of `ranks` (default: a matrix), nested arrays
 * included: { shape, data }, data a typed array of every element checked by
 * `elements(check, name, data, count)` (default: finite numbers, as Checker.vector).
 * alsoBytes(shape): what else the call will hold, refused with the copy before it is made.
 * later: data is a function that reads the elements, so that a call checks every shape it
 * is given (against each other and its limits) before it reads any element: a gram or an
 * attention refused by its size read every element first (10 s for 2^24 nested rows).
 */
export function readNested(check, name, value, ranks = [2], elements, alsoBytes, later) {
  const quick = quickTensor(value);
  if (!quick || !ranks.includes(quick.shape.length)) return readGeneral(check, name, value, ranks, elements, alsoBytes, later);
  // the general reader's answer for it: its bytes checked, its elements read by the same reader when data() is called
  const { shape, data } = quick, count = product(shape);
  check.bytes(count * 8 + (alsoBytes ? alsoBytes(shape) : 0));
  const read = () => readElements(check, name, elements, data, count);
  return { shape, data: later ? read : read(), ready: NOTHING };
}

/** readNested without the quick reader: for a caller that has already asked it (rotary.js). */
export function readGeneral(check, name, value, ranks, elements, alsoBytes = () => 0, later) {
  const { shape, data: given, type, sync } = check.read(name, () => Array.isArray(value)) ? flatten(check, name, value) : parts(check, name, value);
  if (!ranks.includes(shape.length)) {
    throw check.fail(TypeError, `${name} must have ${ranks.join(', ')} dimensions`, `shape [${shape}]`);
  }
  const count = product(shape);
  check.bytes(count * 8 + alsoBytes(shape));
  // own only: an `integers` on Object.prototype (or its bundle's short name) let an int8 x, q, k or bias in as values
  const integers = { __proto__: null, ...elements }.integers;
  const read = (data) => readElements(check, name, elements, data, count);
  // A data value's element type, storage and count (an array-like's `length` read once, here), checked before an element
  // of it or of another tensor is read: attention read every element of q, then refused k.data of 31 values for 32
  // (thirty-third pass), k's type "bogus", k.data as an array of 3 values for 4, or a BigInt64Array of floats; the
  // value the reader then reads.
  const counted = (data) => {
    typedData(check, name, type, data, integers, -1);
    if (data === null || typeof data !== 'object') read(data); // no elements: refused as the reader words it
    const n = typedLength(data); // (by its slot: nothing a caller wrote runs)
    const length = n >= 0 ? n : check.read(`${name}.data.length`, () => data.length);
    if (typeof length !== 'number') throw check.fail(TypeError, `${name}.data must be an array, typed array or array-like of numbers`, data);
    if (length !== count) throw check.fail(RangeError, `${name}.data must have ${count} elements to match`, length);
    // an array-like's elements read later by the reader, by that count (a length read again could answer otherwise),
    // straight from the caller's array (a snapshot array first doubled the time of a plain array's call)
    return n >= 0 ? data : countedBy(data, length);
  };
  // the data field's now; a TensorFlow.js tensor's by ready(), once the call's sizes are checked and before any tensor's
  // elements (dataSync() downloads its data: attention read q whole, then refused a k whose dataSync() gave 7 values for
  // 8); nested arrays' rows by flatten()'s walk without their leaves (counted by flatten()'s first elements)
  let checked;
  const ready = (rows = later) => {
    if (sync !== undefined) checked ??= [counted(given())];
    else if (rows && !checked) checked = given(0); // nested arrays: every row's length, before any tensor's elements
  };
  if (sync) elementType(check, name, type, integers);
  else ready(0);
  const data = () => (ready(0), read(typedData(check, name, type, sync === undefined ? given() : checked[0], integers, count)));
  return { shape, data: later ? data : data(), ready };
}

/**
 * readNested of a matrix, as { rows, cols, data }; before(shape) runs once its bytes are counted, and again, as
 * before(shape, f32), once its data is fetched (a TensorFlow.js tensor's dataSync(), float16 decoded), before any element
 * is read: f32, whether its copy is a Float32Array (gram's float32 kernel needs more than a float64 input's copy).
 */
export function readMatrix(check, name, value, alsoBytes, before) {
  // (shape unset while readNested runs: it reads a data value that is no object there, to refuse it as the reader words it)
  let shape;
  const t = readNested(check, name, value, undefined, (c, n, d, k) => (shape && before(shape, typedArrayName(d) === 'Float32Array'), c.vector(n, d, k)), alsoBytes, 1);
  before((shape = t.shape)); // once its bytes are counted, before an element is read (a room asked: fits())
  return { rows: shape[0], cols: shape[1], data: t.data() };
}

/** A result tensor; matrices also carry rows and cols. */
export const tensor = (shape, data) => (shape.length === 2 ? { rows: shape[0], cols: shape[1], shape, data } : { shape, data });

/**
 * The `dtype` and `out` options of a function returning `count` numbers:
 * { dtype, out, into(data) }, into() giving `out` holding data, or data as
 * dtype. `out` must be a typed array of dtype and that length, on a buffer
 * that cannot change size: a resizable ArrayBuffer could be shrunk or grown
 * by any getter the call runs later, so the length checked here would no
 * longer be the length written. into() checks the length again (a buffer can
 * still be detached by a transfer) before writing.
 */
export function outputArgs(check, opts, count) {
  const dtype = check.oneOf('dtype', opts.dtype ?? 'float32', DTYPES);
  const Type = TYPES[dtype];
  const given = opts.out ?? null;
  // `out`, checked: again before each write (a transfer may have detached its buffer meanwhile)
  const out = () => {
    if (typedLength(given) !== count || typedArrayName(given) !== Type.name || isResizable(typedArrayBuffer(given))) {
      throw check.fail(TypeError, `out must be a ${Type.name} of ${count} elements (dtype ${dtype}) on a fixed-length buffer`, given);
    }
    return given;
  };
  if (given !== null) out();
  const into = (data) => (given !== null ? copyTyped(out(), data) : data instanceof Type ? data : Type.from(data));
  return { dtype, out: given, into, target: () => (given !== null ? out() : new Type(count)) };
}

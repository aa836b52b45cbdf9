// The built-ins posenc uses while a call runs, taken once, when posenc is
// imported. A function put on a built-in afterwards (Function.prototype.call,
// a getter for WebAssembly.Memory.prototype.buffer, a typed array prototype's
// slice, a global Float32Array) is never handed WebAssembly memory, a view of
// it or a pointer into it: each would reach every other call's and handle's
// memory (docs/limits.md, "Planted properties and replaced built-ins").
// Module code that makes views of wasm memory imports its typed array classes
// from here, so that the names shadow the globals of the moment.

const { bind, call } = Function.prototype;
/** uncurry(f)(self, ...args) is f.call(self, ...args), without looking `call` up when it runs. */
export const uncurry = bind.bind(call);
const getter = (owner, key) => /* @__PURE__ */ uncurry(Object.getOwnPropertyDescriptor(owner, key).get);

export const { Float32Array, Float64Array, Int32Array, Uint32Array, Uint16Array, Uint8Array } = globalThis;
export const { hasOwn, getPrototypeOf, setPrototypeOf, keys, getOwnPropertyDescriptor } = Object;
export const { from: arrayFrom, prototype: ArrayPrototype } = Array;

const TypedArrayPrototype = getPrototypeOf(Uint8Array.prototype);
/** The element count, class name, buffer and offset of a typed array, by its internal slots (each throws for anything else). */
export const typedArrayLength = /* @__PURE__ */ getter(TypedArrayPrototype, 'length');
export const typedArrayName = /* @__PURE__ */ getter(TypedArrayPrototype, Symbol.toStringTag);
export const typedArrayBuffer = /* @__PURE__ */ getter(TypedArrayPrototype, 'buffer');
export const typedArrayOffset = /* @__PURE__ */ getter(TypedArrayPrototype, 'byteOffset');
/** %TypedArray%.prototype.set: copies between typed arrays by their slots (no species, no getters). */
export const typedArraySet = /* @__PURE__ */ uncurry(TypedArrayPrototype.set);
/** findIndex and copyWithin, for views of wasm memory (rotary.js). */
export const typedArrayFindIndex = /* @__PURE__ */ uncurry(TypedArrayPrototype.findIndex);
export const typedArrayCopyWithin = /* @__PURE__ */ uncurry(TypedArrayPrototype.copyWithin);
export const isView = ArrayBuffer.isView;
// Where there is no WebAssembly, importing still works, and init() says why it cannot (wasm.js).
const W = globalThis.WebAssembly;
/** The current ArrayBuffer of a WebAssembly.Memory, and an ArrayBuffer's length. */
export const memoryBuffer = W && getter(W.Memory.prototype, 'buffer');
export const byteLength = /* @__PURE__ */ getter(ArrayBuffer.prototype, 'byteLength');
/** WebAssembly.compile, the Instance constructor and an Instance's exports (undefined without WebAssembly). */
export const wasmCompile = W?.compile;
export const WasmInstance = W?.Instance;
export const instanceExports = W && getter(W.Instance.prototype, 'exports');

/** A view of `count` elements of `Type` at byte `ptr` of the module's memory (never kept: memory.grow() detaches it). */
export const heapView = (Type, wasm, ptr, count) => new Type(memoryBuffer(wasm.memory), ptr, count);
/** A copy of a typed array in a new one of its class (slice() looked up `constructor` and its species on the view). */
export const copyOf = (view, Type) => {
  const out = new Type(typedArrayLength(view));
  typedArraySet(out, view);
  return out;
};

// Read by scripts/bundle-lib.mjs (esbuild's mangleProps) and tests/size.test.js.
// Property names the library uses only inside itself (its argument checker's and frames' methods, internal
// records), renamed the same way: none is an option name, a key of a public result or a key read from a
// caller's object or by a computed string (a renamed option would be read as undefined). gzip -9 after
// the seventeenth adversarial pass: posenc -99 bytes, variants -182, fields -75, lab -82.
export const INTERNAL = ['fail', 'integer', 'finite', 'boolean', 'oneOf', 'numbers', 'vector', 'readInto', 'alloc', 'size', 'read', 'options', 'number',
  'footprint', 'pointers', 'zeroRow', 'int32Output', 'readInt32', 'strides', 'kvHeads', 'prfTop', 'resolved', 'cacheTables', 'formedRows',
  'finiteRows', 'givenRows', 'axesApply', 'multiAxis', 'rotateAt', 'xArg', 'integers', 'ropeless', 'fn', 'wasm', 'freq', 'target', 'into',
  'common', 'blocks', 'dicts', 'dist', 'release', 'later', 'allFinite', 'source', 'kept'];

// Turns an embedded module into an instance. dist/posenc-wasm.js (the core)
// and dist/variants-wasm.js each carry one as base64 of its deflated bytes
// (scripts/embed-wasm.mjs), so loading needs no fetch, file system or bundler
// plugin (a CSP needs only 'wasm-unsafe-eval'), and gzip on the wire still
// sees a compressed stream, not base64 noise. A plain "\0asm" module is used
// as is.

async function decode(base64) {
  const bytes = Uint8Array.from(atob(base64), (ch) => ch.charCodeAt(0));
  if (bytes[0] === 0 && bytes[1] === 0x61) return bytes;
  // jsdom (no Blob.stream, Response or DecompressionStream) and older
  // embedders: our own inflater, a file of its own fetched only there.
  if (typeof DecompressionStream !== 'function' || typeof Response !== 'function') return (await import('./inflate.js')).inflate(bytes);
  return new Uint8Array(await new Response(new Response(bytes).body.pipeThrough(new DecompressionStream('deflate'))).arrayBuffer());
}

/**
 * Compiles and starts a module; resolves to its raw exports. The shipped
 * modules import nothing; `imports` is for the debug build, which the tests
 * run with a host for its C assertions (tests/helpers/wasi.js).
 */
export async function instantiate(base64, imports = {}) {
  const { instance } = await WebAssembly.instantiate(await decode(base64), imports);
  const { exports } = instance;
  if (typeof exports._initialize === 'function') exports._initialize();
  return exports;
}

/**
 * The init() of an entry: instantiates the embedded module on the first call
 * and resolves to create(exports), the entry's API. Every call returns that
 * same promise, except after a failure to load, which is forgotten so that a
 * later call tries again.
 */
export function cachedInit(base64, create) {
  let ready;
  return function init() {
    ready ??= instantiate(base64).then(create, (error) => {
      ready = undefined; // let a later call try again
      throw error;
    });
    return ready;
  };
}
